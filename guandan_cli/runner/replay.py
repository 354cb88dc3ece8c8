"""``guandan replay``: one logged deal as a person reads it.

``find_deal(run, match, deal)`` finds the record (and the previous deal of the match, which
decides tribute); ``render_deal(...)`` replays it through the engine and lays it out: the
four hands with suit symbols, tribute and return, each trick with its plays and passes,
who went out when, the finish order and the upgrade.
"""

from __future__ import annotations

import os
from pathlib import Path

from guandan_cli.engine.cards import format_card, format_cards
from guandan_cli.engine.deal import PLAY, replay
from guandan_cli.engine.rules import get_ruleset
from guandan_cli.logs.reader import iter_records, part_files
from guandan_cli.runner.records import record_actions, record_setup
from guandan_cli.runner.rundir import read_manifest

PLACES = ("上游 1st", "二游 2nd", "三游 3rd", "下游 4th")


class DealNotFound(LookupError):
    pass


def find_deal(run: str | os.PathLike, match: int, deal: int) -> tuple[Path, int, dict, dict | None]:
    """``(file, line, record, previous record of the match or None)`` of deal ``deal`` of match ``match``."""
    run = Path(run)
    files = part_files(run, "deals")
    manifest = read_manifest(run) if run.is_dir() else None
    if manifest is not None:
        part = match // manifest["config"]["part_size"]
        files = [f for f in files if f.name.split("-", 1)[1].startswith(f"{part:05d}.")] or files
    prev = None
    seen_match = False
    for f in files:
        for line, rec in iter_records(f, "deals"):
            if rec["match"] != match:
                if seen_match:
                    break
                continue
            seen_match = True
            if rec["deal"] == deal:
                return f, line, rec, prev
            prev = rec
        if seen_match:
            break
    if not seen_match:
        raise DealNotFound(f"no match {match} in {run}")
    last = prev["deal"] if prev else -1
    raise DealNotFound(f"match {match} has no deal {deal} (its deals are 0..{last})")


def _play_text(combo, symbols: bool) -> str:
    key = "10" if symbols and combo.key == "T" else combo.key
    return f"{combo.type.replace('_', ' ')} {key:<2}  {format_cards(combo.cards, symbols)}"


def render_deal(rec: dict, prev: dict | None, *, symbols: bool = True, options: dict | None = None) -> str:
    """The text of one deal (see the module docstring)."""
    options = options or {}
    rules = get_ruleset(
        rec["ruleset"],
        a_fail_limit=options.get("a_fail_limit"),
        max_deals=options.get("max_deals"),
        tribute=options.get("tribute"),
    )
    from guandan_cli.runner.setups import SETUP_SOURCES, source_setup

    source = options.get("setups")
    if source in SETUP_SOURCES and options.get("seed") is not None:  # a setups run: rebuilt from its source
        setup = source_setup(source, options["seed"], rec["match"], rules).setup
    elif source is not None:  # a run directory's deals: from the record alone
        from guandan_cli.runner.records import record_setup_alone

        setup = record_setup_alone(rec, rules)
    else:
        setup = record_setup(rec, prev, rules)
    deal = replay(setup, record_actions(rec))
    strategies = rec["strategies"]

    def card(c: int) -> str:
        return format_card(c, symbols)

    out = [
        f"match {rec['match']} (seed {rec['match_seed']})  deal {rec['deal']} (seed {rec['deal_seed']})  "
        f"ruleset {rec['ruleset']}",
    ]
    lt = rec["level_team"]
    who = "first deal of the match" if lt is None else f"team {lt}'s level"
    out.append(
        f"level {rec['level']} ({who});  levels before: team 0 {rec['levels_before'][0]}, "
        f"team 1 {rec['levels_before'][1]}"
    )
    out.append("")
    out.append("hands")
    for seat in range(4):
        h = setup.hands[seat]
        out.append(f"  seat {seat} (team {seat & 1}, {strategies[seat]}):  {format_cards(h, symbols)}")
    out.append("")
    kind = deal.tribute_kind
    if kind == "none":
        why = "first deal of the match" if setup.previous is None else "tribute switched off"
        out.append(f"tribute: none ({why})")
    elif kind == "resisted":
        seats = " and ".join(f"seat {s}" for s in deal.resisted_by)
        out.append(f"tribute: resisted (抗贡) by {seats}, holding both big jokers")
    else:
        pays = "; ".join(f"seat {p} pays {card(c)} to seat {r}" for p, r, c in deal.tributes)
        rets = "; ".join(f"seat {g} returns {card(c)} to seat {r}" for g, r, c in deal.returns)
        out.append(f"tribute: {kind} — {pays}")
        out.append(f"return:  {rets}")
    out.append(f"seat {deal.leader} leads")

    counts = [27, 27, 27, 27]
    out_order: list[int] = []
    trick = 0
    owner = -1
    for ev in deal.events:
        if ev.kind not in (PLAY, "pass"):
            continue
        if ev.kind == PLAY and ev.lead:
            if trick:
                out.append(f"  → seat {owner} takes the trick")
            trick += 1
            note = ""
            if trick > 1 and owner in out_order and ev.seat != owner:
                note = f"  (接风: seat {ev.seat} leads for its partner)"
            out.append("")
            out.append(f"trick {trick}{note}")
        if ev.kind == "pass":
            out.append(f"  seat {ev.seat}  pass")
            continue
        counts[ev.seat] -= ev.combo.size
        owner = ev.seat
        tail = ""
        if counts[ev.seat] == 0:
            out_order.append(ev.seat)
            tail = f"   ← out, {PLACES[len(out_order) - 1]}"
        out.append(f"  seat {ev.seat}  {_play_text(ev.combo, symbols)}  ({counts[ev.seat]} left){tail}")
    out.append("")
    order = rec["finish_order"]
    out.append("finish: " + ", ".join(f"{PLACES[i]} seat {s}" for i, s in enumerate(order)))
    team = rec["winner_team"]
    dd = "  (double-down: 双下)" if rec["double_down"] else ""
    out.append(f"team {team} goes up {rec['upgrade']}{dd}")
    la = rec["levels_after"]
    out.append(f"levels after: team 0 {la[0]}, team 1 {la[1]}")
    if rec["match_over"]:
        if rec["capped"]:
            out.append("the match ends here: capped by max_deals (no winner)")
        else:
            out.append(f"the match ends here: team {rec['match_winner']} wins")
    return "\n".join(out)


__all__ = ["DealNotFound", "find_deal", "render_deal"]

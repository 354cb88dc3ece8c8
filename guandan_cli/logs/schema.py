"""The declared log schema, shared by the writer, its tests and every reader.

Two record kinds, one JSON object per line:

- a **deal record** (``deals-*.jsonl``): everything needed to replay a deal, plus
  fields derived from the actions (``derived``) so reports need not replay;
- a **match record** (``matches-*.jsonl``): one per match (winner, deals, final
  levels, capped, error).

``SCHEMA_VERSION`` is written in every line as ``"v"``. See docs/log-format.md.
The builders here turn engine objects into plain dicts; they import no polars.
``deal_schema()`` / ``match_schema()`` give the Polars schema for readers.
"""

from __future__ import annotations

from dataclasses import dataclass

from guandan_cli.engine.cards import FACE_NAMES, RANK_TOKENS, format_card, format_cards
from guandan_cli.engine.combos import BOMB_CLASS, Combo
from guandan_cli.engine.deal import PASS, PLAY, Deal, DealSetup, action_text
from guandan_cli.engine.match import MatchUpdate, level_token

SCHEMA_VERSION = 2
#: versions readers accept. Version 1 differs only in ``derived.jiefeng`` under
#: ``jiangsu2017``: it also counted a lead that passed in turn order to the partner of a
#: finisher other than 上游 (not 接风 in that ruleset). ``derive_stats(deal, version=1)``
#: reproduces it (``guandan verify`` checks old lines with it); the ``jiefeng`` report
#: leaves such deals out.
READABLE_VERSIONS = (1, 2)


#: bomb classes as reports name them
def bomb_class(type_: str, size: int) -> str:
    """``4``, ``5``, ``sf``, ``6``…``10`` or ``joker`` for a bomb-class play."""
    if type_ == "straight_flush":
        return "sf"
    if type_ == "joker_bomb":
        return "joker"
    return str(size)


def hand_counts_at_play(deal: Deal) -> list[int]:
    """Each seat's number of cards when the play phase starts (after tribute and returns)."""
    counts = [len(h) for h in deal.setup.hands]
    for payer, receiver, _card in deal.tributes:
        counts[payer] -= 1
        counts[receiver] += 1
    for giver, receiver, _card in deal.returns:
        counts[giver] -= 1
        counts[receiver] += 1
    return counts


def is_jiefeng(seat: int, last_owner: int, finished: list[int], any_finisher: bool) -> bool:
    """Whether ``seat``'s lead is 接风 (rules.md §7, §12): the last trick's top play was
    ``last_owner``'s last cards, and ``seat`` is its partner; with ``any_finisher`` False
    (``jiangsu2017``) only when ``last_owner`` went out first. ``finished``: the seats out so far,
    in order. The one statement of the rule, for ``derive_stats`` and ``deal_lines``.

    >>> is_jiefeng(2, 0, [0], False), is_jiefeng(3, 1, [0, 1], False), is_jiefeng(3, 1, [0, 1], True)
    (True, False, True)
    """
    return (
        last_owner >= 0
        and last_owner in finished
        and seat == last_owner ^ 2
        and (any_finisher or last_owner == finished[0])
    )


def derive_stats(deal: Deal, version: int = SCHEMA_VERSION) -> dict:
    """Facts derived from a finished deal's actions (tricks, bombs, wild use, 接风).

    ``jiefeng`` counts the leads that were 接风 as the deal's ruleset defines it
    (rules.md §7, §12): the trick's top play was its owner's last cards, every seat still
    in play passed, and the owner's partner leads, with ``jiangsu2017`` only when the
    owner is 上游. ``version=1`` gives the schema-1 count (any finished owner's partner
    leading the next trick), kept to verify old logs.
    """
    any_finisher = version == 1 or deal.rules.jiefeng == "any"
    level = deal.level
    wild = level * 4 + 1
    counts = hand_counts_at_play(deal)
    tricks = plays = passes = jiefeng = 0
    bombs: list[dict] = []
    wild_plays: list[dict] = []
    finished: list[int] = []
    last_owner = -1
    for ev in deal.events:
        if ev.kind == "pass":
            passes += 1
            continue
        if ev.kind != PLAY:
            continue
        combo = ev.combo
        seat = ev.seat
        if ev.lead:
            tricks += 1
            jiefeng += is_jiefeng(seat, last_owner, finished, any_finisher)
        plays += 1
        if combo.type in BOMB_CLASS:
            opp = [counts[s] for s in ((seat + 1) % 4, (seat + 3) % 4) if s not in finished]
            bombs.append(
                {
                    "seat": seat,
                    "class": bomb_class(combo.type, combo.size),
                    "key": combo.key,
                    "opp_min_cards": min(opp) if opp else None,
                    "lead": ev.lead,
                }
            )
        n_wild = combo.cards.count(wild)
        if n_wild:
            wild_plays.append({"seat": seat, "type": combo.type, "wilds": n_wild})
        counts[seat] -= combo.size
        if counts[seat] == 0:
            finished.append(seat)
        last_owner = seat
    return {
        "tricks": tricks,
        "plays": plays,
        "passes": passes,
        "jiefeng": jiefeng,
        "bombs": bombs,
        "wild_plays": wild_plays,
    }


#: the text of each play seen (a Combo is a value: equal plays have equal texts), bounded
_PLAY_TEXT: dict[Combo, str] = {}
_PLAY_TEXT_MAX = 100_000


def _action_line(seat: int, action) -> str:
    """``"SEAT pass"`` or ``"SEAT type:key cards"``: ``f"{seat} {action_text(action)}"``, faster."""
    if type(action) is Combo:
        text = _PLAY_TEXT.get(action)
        if text is None:
            if action[0] == "pass":
                text = "pass"
            else:
                text = f"{action[0]}:{RANK_TOKENS[action[1]]} {' '.join([FACE_NAMES[f] for f in action[2]])}"
            if len(_PLAY_TEXT) >= _PLAY_TEXT_MAX:
                _PLAY_TEXT.clear()
            _PLAY_TEXT[action] = text
        return f"{seat} {text}"
    return f"{seat} {action_text(action)}"


@dataclass(frozen=True)
class MatchKey:
    """What names a match in a run's records: the run's id, the match's index and seed, and the
    seats' strategies (``strategies``, in seat order)."""

    run_id: str
    match: int
    match_seed: int
    strategies: tuple[str, ...]


def deal_record(
    match: MatchKey,
    *,
    deal_index: int,
    deal_seed: int,
    setup: DealSetup,
    deal: Deal,
    update: MatchUpdate,
) -> dict:
    """The JSON-ready record of one finished deal of ``match``."""
    result = deal.result
    assert result is not None
    # passes (the shared PASS) need no text lookup; plays look theirs up
    play_actions = [
        f"{seat} pass" if a is PASS else _action_line(seat, a)
        for seat, a in deal.actions
        if not isinstance(a, int)
    ]
    return {
        "v": SCHEMA_VERSION,
        "run_id": match.run_id,
        "match": match.match,
        "match_seed": match.match_seed,
        "deal": deal_index,
        "deal_seed": deal_seed,
        "ruleset": setup.rules.name,
        "strategies": list(match.strategies),
        "level_team": setup.level_team,
        "level": level_token(setup.level),
        "levels_before": [level_token(x) for x in update.levels_before],
        "levels_after": [level_token(x) for x in update.levels_after],
        "hands": [format_cards(h) for h in setup.hands],
        "tribute": {
            "kind": deal.tribute_kind,
            "resisted_by": list(deal.resisted_by),
            "payments": [{"from": p, "to": r, "card": format_card(c)} for p, r, c in deal.tributes],
            "returns": [{"from": g, "to": r, "card": format_card(c)} for g, r, c in deal.returns],
        },
        "first_leader": deal.leader,
        "actions": play_actions,
        "finish_order": list(result.finish_order),
        "double_down": result.double_down,
        "upgrade": result.upgrade,
        "winner_team": result.winner_team,
        "match_over": update.match_over,
        "match_winner": update.winner,
        "capped": update.capped,
        "derived": derive_stats(deal),
    }


def match_record(
    match: MatchKey,
    *,
    ruleset: str,
    deals: int,
    final_levels: tuple[int, int],
    winner: int | None,
    capped: bool,
    error: str | None = None,
) -> dict:
    """The JSON-ready summary of one match (errored matches included, with ``error``)."""
    return {
        "v": SCHEMA_VERSION,
        "run_id": match.run_id,
        "match": match.match,
        "match_seed": match.match_seed,
        "ruleset": ruleset,
        "strategies": list(match.strategies),
        "deals": deals,
        "final_levels": [level_token(x) for x in final_levels],
        "winner": winner,
        "capped": capped,
        "error": error,
    }


#: top-level fields of a deal record, in line order: (name, JSON kinds allowed). Polars-free,
#: for the strict line checker; ``deal_schema()`` declares the same names (a test keeps them equal).
DEAL_FIELDS: tuple[tuple[str, tuple[type, ...]], ...] = (
    ("v", (int,)),
    ("run_id", (str,)),
    ("match", (int,)),
    ("match_seed", (int,)),
    ("deal", (int,)),
    ("deal_seed", (int,)),
    ("ruleset", (str,)),
    ("strategies", (list,)),
    ("level_team", (int, type(None))),
    ("level", (str,)),
    ("levels_before", (list,)),
    ("levels_after", (list,)),
    ("hands", (list,)),
    ("tribute", (dict,)),
    ("first_leader", (int,)),
    ("actions", (list,)),
    ("finish_order", (list,)),
    ("double_down", (bool,)),
    ("upgrade", (int,)),
    ("winner_team", (int,)),
    ("match_over", (bool,)),
    ("match_winner", (int, type(None))),
    ("capped", (bool,)),
    ("derived", (dict,)),
)

#: top-level fields of a match record, in line order (see ``DEAL_FIELDS``).
MATCH_FIELDS: tuple[tuple[str, tuple[type, ...]], ...] = (
    ("v", (int,)),
    ("run_id", (str,)),
    ("match", (int,)),
    ("match_seed", (int,)),
    ("ruleset", (str,)),
    ("strategies", (list,)),
    ("deals", (int,)),
    ("final_levels", (list,)),
    ("winner", (int, type(None))),
    ("capped", (bool,)),
    ("error", (str, type(None))),
)

#: record kinds: the part-file prefix of each
KINDS = ("deals", "matches")


def deal_schema() -> dict:
    """Polars schema of a deal record (declare it when reading; never infer)."""
    import polars as pl

    move = pl.Struct({"from": pl.Int32, "to": pl.Int32, "card": pl.String})
    return {
        "v": pl.Int32,
        "run_id": pl.String,
        "match": pl.Int64,
        "match_seed": pl.Int64,
        "deal": pl.Int32,
        "deal_seed": pl.Int64,
        "ruleset": pl.String,
        "strategies": pl.List(pl.String),
        "level_team": pl.Int32,
        "level": pl.String,
        "levels_before": pl.List(pl.String),
        "levels_after": pl.List(pl.String),
        "hands": pl.List(pl.String),
        "tribute": pl.Struct(
            {
                "kind": pl.String,
                "resisted_by": pl.List(pl.Int32),
                "payments": pl.List(move),
                "returns": pl.List(move),
            }
        ),
        "first_leader": pl.Int32,
        "actions": pl.List(pl.String),
        "finish_order": pl.List(pl.Int32),
        "double_down": pl.Boolean,
        "upgrade": pl.Int32,
        "winner_team": pl.Int32,
        "match_over": pl.Boolean,
        "match_winner": pl.Int32,
        "capped": pl.Boolean,
        "derived": pl.Struct(
            {
                "tricks": pl.Int32,
                "plays": pl.Int32,
                "passes": pl.Int32,
                "jiefeng": pl.Int32,
                "bombs": pl.List(
                    pl.Struct(
                        {
                            "seat": pl.Int32,
                            "class": pl.String,
                            "key": pl.String,
                            "opp_min_cards": pl.Int32,
                            "lead": pl.Boolean,
                        }
                    )
                ),
                "wild_plays": pl.List(pl.Struct({"seat": pl.Int32, "type": pl.String, "wilds": pl.Int32})),
            }
        ),
    }


def match_schema() -> dict:
    """Polars schema of a match record."""
    import polars as pl

    return {
        "v": pl.Int32,
        "run_id": pl.String,
        "match": pl.Int64,
        "match_seed": pl.Int64,
        "ruleset": pl.String,
        "strategies": pl.List(pl.String),
        "deals": pl.Int32,
        "final_levels": pl.List(pl.String),
        "winner": pl.Int32,
        "capped": pl.Boolean,
        "error": pl.String,
    }


__all__ = [
    "DEAL_FIELDS",
    "MatchKey",
    "KINDS",
    "MATCH_FIELDS",
    "PASS",
    "READABLE_VERSIONS",
    "SCHEMA_VERSION",
    "bomb_class",
    "deal_record",
    "deal_schema",
    "derive_stats",
    "match_record",
    "match_schema",
]

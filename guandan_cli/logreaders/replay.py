"""``guandan replay``: one logged deal as a person reads it.

``find_deal(run, match, deal)`` finds the record (and the previous deal of the match, which
decides tribute); ``render_deal(...)`` replays it through the engine and lays it out: the
four hands with suit symbols, tribute and return, each trick with its plays and passes,
who went out when, the finish order and the upgrade.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from guandan_cli.engine.deal import DealSetup, replay
from guandan_cli.logs.manifest import PartialConfig, RunFolder
from guandan_cli.logs.reader import LogLineError, check_unchanged, iter_records, sources, written_digests
from guandan_cli.logs.records import DealRecord, MatchRecord, RecordError, record_place
from guandan_cli.view.table import (
    ReplayedDeal,
    Style,
    deal_end_lines,
    hand_lines,
    replay_lines,
    tribute_lines,
)


class DealNotFound(LookupError):
    pass


#: the widest line replay prints (a terminal of 80 to 100 columns)
WIDTH = 80


def _columns(text: str) -> int:
    """Terminal columns of ``text``: CJK characters (the jokers' names) take two."""
    return sum(2 if "\u4e00" <= ch <= "\u9fff" else 1 for ch in text)


def several_runs_problem(run: str | os.PathLike) -> str | None:
    """Why ``run`` (a folder of runs, no manifest of its own) names no single run, or ``None``."""
    run = Path(run)
    if not run.is_dir() or (run / "manifest.json").is_file():
        return None
    folders = sorted({Path(str(getattr(f, "path", f))).parent for f in sources(run, "deals")})
    if len(folders) < 2:
        return None
    names = ", ".join(f.name for f in folders[:5]) + (", …" if len(folders) > 5 else "")
    return f"{run} holds {len(folders)} runs ({names}): name one of them"


def find_deal(
    run: str | os.PathLike | RunFolder, match: int, deal: int | None = None
) -> tuple[Path, int, DealRecord, DealRecord | None]:
    """``(file, line, record, previous record of the match or None)`` of deal ``deal`` of match ``match``.

    ``deal=None``: the match's first logged deal (deal 0, or in a run of deal setups taken
    from another run, the deal number the setup had there). An unfinished run's journaled
    matches are found too (``file`` is then ``part-N.journal[deals]``). A record of the
    match that does not read as a deal is ``RecordError``; a manifest that does not read,
    ``ValueError``.
    """
    folder = RunFolder.read(run)
    run = folder.path
    problem = several_runs_problem(run)
    if problem is not None:
        raise DealNotFound(problem)
    prev = None
    numbers: list[int] = []
    for f, line, rec in match_records(folder, match):
        if deal is None or rec.deal == deal:
            return f, line, rec, prev
        numbers.append(rec.deal)
        prev = rec
    if not numbers:
        dealless = dealless_match_problem(run, match)
        if dealless is not None:
            raise DealNotFound(dealless)
        total = folder.options.matches
        if type(total) is int and total > 0 and not 0 <= match < total:
            raise DealNotFound(f"no match {match} in {run}: its matches are 0..{total - 1}")
        raise DealNotFound(f"no match {match} in {run}")
    contiguous = numbers == list(range(numbers[0], numbers[-1] + 1))
    shown = (
        f"its deal is {numbers[0]}"
        if len(numbers) == 1
        else f"its deals are {numbers[0]}..{numbers[-1]}"
        if contiguous
        else f"its deals are {', '.join(map(str, numbers))}"
    )
    raise DealNotFound(f"match {match} has no deal {deal} ({shown})")


def dealless_match_problem(run: str | os.PathLike, match: int) -> str | None:
    """Why match ``match`` of ``run`` has no deal line although it has a match record (it
    errored before its first deal was over), or ``None``."""
    run = Path(run)
    try:
        files = sources(run, "matches") if run.is_dir() else []
    except (OSError, ValueError):
        return None
    for f in files:
        try:
            for line, data in iter_records(f, "matches"):
                if record_place(data)[0] == match:
                    rec = MatchRecord.parse(data, f, line)
                    if rec.deals == 0 and rec.error:
                        return f"match {match} has no finished deal: it ended with an error ({rec.error})"
                    return None
        except (LogLineError, OSError, ValueError):
            return None
    return None


def match_records(run: str | os.PathLike | RunFolder, match: int) -> Iterator[tuple[object, int, DealRecord]]:
    """``(source, line, record)`` of each deal of match ``match`` of a run, in order (none if absent).

    Journaled matches of an unfinished run are found too; in a run directory only the part
    that holds the match is read; a corrupt line on the way is ``LogLineError``, and once the
    match is reached the part's sha256 is checked against the manifest's (``LogReadError``
    naming it when the part changed since it was written). Each of the match's lines is
    parsed into a ``DealRecord`` (``RecordError`` for one whose values make no deal).
    """
    folder = RunFolder.read(run)
    run, manifest = folder.path, folder.manifest
    files = sources(run, "deals")
    if manifest is not None:
        part = match // folder.options.part_size
        files = [f for f in files if f.name.split("-", 1)[1].startswith(f"{part:05d}.")] or files
    written = written_digests(run) if manifest is not None else {}
    seen = False
    for f in files:
        for line, data in iter_records(f, "deals"):
            if record_place(data)[0] == match:
                if not seen and isinstance(f, Path) and f.name in written:  # a complete part:
                    check_unchanged(f, written[f.name])  # its bytes as written (bad lines first)
                seen = True
                try:
                    rec = DealRecord.parse(data, f, line)
                except RecordError as exc:
                    if exc.field == "strategies":  # no seat to show: the line is not a deal line
                        raise LogLineError(f, line, exc.why) from None
                    raise
                yield f, line, rec
            elif seen:
                return


def record_end_lines(rec: DealRecord) -> list[str]:
    """The end of a logged deal as ``replay`` and ``watch`` print it (finish, levels, match end)."""
    return deal_end_lines(
        rec.finish_order,
        rec.double_down,
        rec.winner_team,
        rec.upgrade,
        rec.levels_after,
        rec.match_over,
        rec.capped,
        rec.match_winner,
    )


def logged_setup(rec: DealRecord, prev: DealRecord | None, options: PartialConfig, rules) -> DealSetup:
    """The setup a logged deal was played from, given its run's config as recorded (``options``).

    A whole match's deal follows from the previous one (``prev``); a deal of a setups run
    (``compare --duplicate deal``, ``experiment``) stands alone: rebuilt from its named
    source and seed, or, for a run directory's deals, from the record itself.
    """
    from guandan_cli.runner.setups import SETUP_SOURCES, source_setup

    source = options.setups
    if source in SETUP_SOURCES and options.seed is not None:
        return source_setup(source, options.seed, rec.match, rules).setup
    if source is not None:
        return rec.setup_alone(rules)
    return rec.setup(prev, rules)


def record_rules(rec: DealRecord, options: PartialConfig):
    """The rules a logged deal record ``rec`` was played under: its ruleset with its run's
    options (``options``: the manifest's ``config``, as a ``PartialConfig``); ``RecordError``
    for a ruleset or option that is not known."""
    return rec.rules(a_fail_limit=options.a_fail_limit, max_deals=options.max_deals, tribute=options.tribute)


def render_deal(
    rec: DealRecord,
    prev: DealRecord | None,
    *,
    symbols: bool = True,
    options: PartialConfig | dict | None = None,
    style: Style | None = None,
) -> str:
    """The text of one deal (see the module docstring), laid out by :mod:`guandan_cli.view`
    (``style``: suit symbols and colour markup; by default symbols as ``symbols`` says, no colour)."""
    if isinstance(options, dict):  # a manifest's config block, as earlier versions took it
        options = PartialConfig.recorded({"config": options})
    options = options or PartialConfig()
    rules = record_rules(rec, options)
    setup = logged_setup(rec, prev, options, rules)
    deal = replay(setup, rec.actions())
    style = style or Style(symbols=symbols, colour=False)
    if deal.tribute_kind == "none" and setup.previous is not None:
        tribute = ["tribute: none (tribute switched off)"]
    else:
        tribute = tribute_lines(deal.tribute_kind, deal.resisted_by, deal.tributes, deal.returns, style)
    shown = ReplayedDeal(
        header=f"match {rec.match} (seed {rec.match_seed})  deal {rec.deal} "
        f"(seed {rec.deal_seed})  ruleset {rec.ruleset}",
        level=setup.level,
        level_team=rec.level_team,
        levels_before=list(rec.levels_before),
        hands=setup.hands,
        strategies=list(rec.strategies),
        tribute=tribute,
        leader=deal.leader,
        events=deal.events,
        end=record_end_lines(rec),
    )
    lines = replay_lines(shown, style, WIDTH)
    return "\n".join(lines)


__all__ = ["DealNotFound", "RecordError", "find_deal", "hand_lines", "render_deal"]

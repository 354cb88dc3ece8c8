"""Seeded task units: a chunk of consecutive matches played in a worker, returned as log lines.

A task is ``(spec, start, stop)``: play matches ``start … stop-1`` of the run described by
``spec`` and return their deal lines and match lines as bytes. Match ``i`` is seeded by
``derive_seed(spec.seed, "match", i)`` alone, so the bytes of a match never depend on the
worker, the chunking or what ran before: concatenating task results in match order gives
the same log however the matches were split.

``run_task`` is a top-level function of an importable module (the spawn context and Ray
pickle it by reference). This module imports no polars.
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass, field

from guandan_cli.engine.match import Match, deal_seed
from guandan_cli.engine.play import StrategyError, iter_match
from guandan_cli.engine.rules import get_ruleset
from guandan_cli.engine.seeding import derive_seed
from guandan_cli.logs.schema import deal_record, match_record
from guandan_cli.logs.writer import dumps_line

ON_ERROR = ("stop", "record")


@dataclass(frozen=True)
class RunSpec:
    """What decides a run's bytes (everything a worker needs to play a match)."""

    run_id: str
    seed: int
    strategies: tuple[str, str, str, str]
    ruleset: str = "cgr2022"
    a_fail_limit: int | None = None
    max_deals: int | None = None
    on_error: str = "stop"
    #: a run of setups (``guandan experiment``): match ``i`` is setup ``i`` of this source
    #: (``runner.setups.SETUP_SOURCES``), played as a one-deal match; ``None``: whole matches
    setups: str | None = None
    #: the ruleset's ``tribute`` option (``on``, ``off``, ``paid``; ``None`` is ``on``)
    tribute: str | None = None

    def rules(self):
        """The ruleset with this run's options."""
        return get_ruleset(
            self.ruleset, a_fail_limit=self.a_fail_limit, max_deals=self.max_deals, tribute=self.tribute
        )


@dataclass
class TaskResult:
    """The lines of matches ``start … stop-1`` (fewer if the run is to stop at an error)."""

    start: int
    stop: int
    deal_lines: bytes = b""
    match_lines: bytes = b""
    deals: int = 0
    matches: int = 0
    errors: list[str] = field(default_factory=list)  # "match i: text" of each errored match
    wins: tuple[int, int] = (0, 0)
    capped: int = 0
    fatal: str | None = None  # an engine failure (not a strategy's): the run must stop


def match_seed(root_seed: int, match_index: int) -> int:
    """The seed of match ``match_index`` of a run with root seed ``root_seed``."""
    return derive_seed(root_seed, "match", match_index)


_CLASSES: dict[tuple[str, ...], list] = {}


def _classes(specs: tuple[str, ...]) -> list:
    """Strategy classes, loaded once per process (``file.py:Class`` specs included)."""
    got = _CLASSES.get(specs)
    if got is None:
        from strategies.registry import load_strategy

        got = _CLASSES[specs] = [load_strategy(s) for s in specs]
    return got


def play_match(spec: RunSpec, index: int, rules=None) -> tuple[list[bytes], bytes, dict]:
    """Play match ``index``: its deal lines, its match line and facts (deals, winner, capped, error)."""
    from strategies.registry import make_players

    rules = rules or spec.rules()
    if spec.setups is not None:
        return play_setup_match(spec, index, rules)
    seed = match_seed(spec.seed, index)
    strategies = list(spec.strategies)
    match = Match(seed, rules)
    players = make_players(_classes(spec.strategies), seed)
    lines: list[bytes] = []
    error = None
    try:
        for pd in iter_match(match, players):
            rec = deal_record(
                run_id=spec.run_id,
                match_index=index,
                match_seed=seed,
                deal_index=pd.index,
                deal_seed=deal_seed(seed, pd.index),
                strategies=strategies,
                setup=pd.setup,
                deal=pd.deal,
                update=pd.update,
            )
            lines.append(dumps_line(rec))
    except StrategyError as exc:
        error = str(exc)
    winner = match.winner if error is None else None
    capped = match.capped if error is None else False
    mrec = match_record(
        run_id=spec.run_id,
        match_index=index,
        match_seed=seed,
        strategies=strategies,
        ruleset=rules.name,
        deals=len(lines),
        final_levels=(match.levels[0], match.levels[1]),
        winner=winner,
        capped=capped,
        error=error,
    )
    return lines, dumps_line(mrec), {"winner": winner, "capped": capped, "error": error}


def play_setup_match(spec: RunSpec, index: int, rules) -> tuple[list[bytes], bytes, dict]:
    """Play setup ``index`` of ``spec.setups`` as a one-deal match (see ``play_match``).

    The players are seeded by the setup's match seed, so two runs that differ only in a
    rule option play the same hands with the same players.
    """
    from guandan_cli.runner.setups import play_setup, source_setup
    from strategies.registry import make_players

    item = source_setup(spec.setups, spec.seed, index, rules)
    players = make_players(_classes(spec.strategies), item.match_seed)
    strategies = list(spec.strategies)
    lines: list[bytes] = []
    error = None
    levels = item.setup.levels
    winner, capped = None, False
    try:
        played = play_setup(item, players, run_id=spec.run_id, match_index=index, strategies=strategies)
    except StrategyError as exc:
        error = str(exc)
    else:
        lines.append(dumps_line(played.record))
        levels, winner, capped = played.update.levels_after, played.update.winner, played.update.capped
    mrec = match_record(
        run_id=spec.run_id,
        match_index=index,
        match_seed=item.match_seed,
        strategies=strategies,
        ruleset=rules.name,
        deals=len(lines),
        final_levels=(levels[0], levels[1]),
        winner=winner,
        capped=capped,
        error=error,
    )
    return lines, dumps_line(mrec), {"winner": winner, "capped": capped, "error": error}


def run_task(task: tuple[RunSpec, int, int]) -> TaskResult:
    """Play matches ``start … stop-1`` of ``spec``; see the module docstring."""
    spec, start, stop = task
    res = TaskResult(start, stop)
    rules = spec.rules()
    deal_parts: list[bytes] = []
    match_parts: list[bytes] = []
    wins = [0, 0]
    for i in range(start, stop):
        try:
            lines, mline, facts = play_match(spec, i, rules)
        except Exception as exc:  # noqa: BLE001 - an engine bug: report it with its place
            tb = traceback.format_exc(limit=-3)
            res.fatal = f"match {i} (seed {match_seed(spec.seed, i)}): {type(exc).__name__}: {exc}\n{tb}"
            res.stop = i
            break
        deal_parts.extend(lines)
        match_parts.append(mline)
        res.deals += len(lines)
        res.matches += 1
        if facts["winner"] is not None:
            wins[facts["winner"]] += 1
        res.capped += facts["capped"]
        if facts["error"] is not None:
            res.errors.append(f"match {i}: {facts['error']}")
            if spec.on_error == "stop":
                res.stop = i + 1
                break
    res.deal_lines = b"".join(deal_parts)
    res.match_lines = b"".join(match_parts)
    res.wins = (wins[0], wins[1])
    return res


__all__ = ["ON_ERROR", "RunSpec", "TaskResult", "match_seed", "play_match", "play_setup_match", "run_task"]

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

import gc
import itertools
from dataclasses import dataclass, field

from guandan_cli.engine.failures import BotFailure
from guandan_cli.engine.match import Match, deal_seed
from guandan_cli.engine.play import StrategyError, iter_match
from guandan_cli.engine.rules import get_ruleset
from guandan_cli.engine.seeding import derived_rng
from guandan_cli.logs.deal_lines import DealLines
from guandan_cli.logs.schema import match_record
from guandan_cli.logs.writer import dumps_line
from guandan_cli.runner.seeds import match_seed

ON_ERROR = ("stop", "record")
#: the cyclic garbage collector's first threshold while a task plays: a deal allocates tens of
#: thousands of short-lived tuples and lists, hardly any in cycles; at the default 700 the
#: collector ran ~150 times per 300 heuristic deals (~3% of the CPU time), at 10,000 ~20 times
GC_GEN0_THRESHOLD = 10_000


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
    #: ``None``: whole matches; else a setup source (``"fresh"``, ``"random"``, ``"paying"``,
    #: ``"resisting"`` or a run directory, see ``runner/setups.py``): "match" ``i`` is one
    #: deal from setup ``i``
    setups: str | None = None
    #: strategy classes workers cannot import, by spec, serialised by value (``dill``)
    classes: tuple[tuple[str, bytes], ...] = ()
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
    #: the first errored match's bot exception, located, with its traceback (``engine.failures``)
    failure: BotFailure | None = None
    fatal: str | None = None  # an engine failure (not a strategy's): the run must stop
    source_failure: bool = False  # ``fatal`` is the setups source's (a run directory that cannot be read)


class SetupSourceError(Exception):
    """The run directory a setups run takes its deals from cannot be read."""


_CLASSES: dict[tuple, list] = {}
#: classes given as objects to a run in this process (used as they are, never reloaded)
LOCAL_CLASSES: dict[str, type] = {}


def _classes(specs: tuple[str, ...], by_value: tuple[tuple[str, bytes], ...] = ()) -> list:
    """Strategy classes, loaded once per process (``file.py:Class`` specs included)."""
    key = (specs, by_value)
    got = _CLASSES.get(key)
    if got is None:
        from guandan_cli.strategies.registry import load_strategy

        known = dict(LOCAL_CLASSES)
        if by_value:
            import dill

            for spec, data in by_value:
                known.setdefault(spec, dill.loads(data))
        got = _CLASSES[key] = [load_strategy(known.get(s, s)) for s in specs]
    return got


_SETUP_LISTS: dict[tuple, list] = {}


def _setup(spec: RunSpec, index: int, rules):
    """Setup ``index`` of the run's setup source (a run directory's are read once per process)."""
    from guandan_cli.runner import setups

    if spec.setups in setups.SETUP_SOURCES:  # fresh, random, paying, resisting
        return setups.source_setup(spec.setups, spec.seed, index, rules)
    key = (spec.setups, rules)
    got = _SETUP_LISTS.get(key)
    if got is None or len(got) <= index:  # read the source's first deals only, growing as needed
        want = max(index + 1, 2 * len(got or ()), 256)
        from guandan_cli.logs.reader import LogLineError, LogReadError

        try:
            got = _SETUP_LISTS[key] = list(itertools.islice(setups.run_setups(spec.setups, rules), want))
        except (LogLineError, LogReadError, OSError) as exc:
            raise SetupSourceError(f"setups {spec.setups}: {exc}") from None
    return got[index]


def play_setup_match(spec: RunSpec, index: int, rules) -> tuple[list[bytes], bytes, dict]:
    """ "Match" ``index`` of a setups run: one deal from setup ``index``, logged as a one-deal match."""
    from guandan_cli.runner.setups import play_setup
    from guandan_cli.strategies.registry import make_players

    item = _setup(spec, index, rules)
    strategies = list(spec.strategies)
    players = make_players(_classes(spec.strategies, spec.classes), item.match_seed)
    lines: list[bytes] = []
    error = None
    levels = item.setup.levels
    winner, capped = None, False
    failure = None
    try:
        played = play_setup(item, players, run_id=spec.run_id, match_index=index, strategies=strategies)
    except StrategyError as exc:
        error, failure = str(exc), exc.failure
    else:
        lines.append(dumps_line(played.record))
        levels = played.update.levels_after
        winner, capped = played.update.winner, played.update.capped
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
    return lines, dumps_line(mrec), {"winner": winner, "capped": capped, "error": error, "failure": failure}


def forget_loaded() -> None:
    """Drop the classes and setups this process loaded: the next task loads them afresh.

    Called before each run in the calling process, so a bot file edited between two runs
    of one session (a notebook, a script) is played as it is now.
    """
    _CLASSES.clear()
    _SETUP_LISTS.clear()
    LOCAL_CLASSES.clear()


def play_match(spec: RunSpec, index: int, rules=None) -> tuple[list[bytes], bytes, dict]:
    """Play match ``index``: its deal lines, its match line and facts (deals, winner, capped, error)."""
    rules = rules or spec.rules()
    if spec.setups is not None:
        return play_setup_match(spec, index, rules)
    seed = match_seed(spec.seed, index)
    strategies = list(spec.strategies)
    match = Match(seed, rules)
    classes = _classes(spec.strategies, spec.classes)
    if len(classes) == 4:  # make_players' players, the classes not checked again (``_classes`` did)
        players = [cls(seat, derived_rng(seed, "seat", seat)) for seat, cls in enumerate(classes)]
    else:
        from guandan_cli.strategies.registry import make_players

        players = make_players(classes, seed)  # its error
    lines: list[bytes] = []
    error = None
    # the bytes of dumps_line(deal_record(...)), built directly (logs/deal_lines.py)
    deal_lines = DealLines(run_id=spec.run_id, match_index=index, match_seed=seed, strategies=strategies)
    failure = None
    try:
        for pd in iter_match(match, players):
            lines.append(deal_lines.line(pd.index, deal_seed(seed, pd.index), pd.setup, pd.deal, pd.update))
    except StrategyError as exc:
        error, failure = str(exc), exc.failure
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
    return lines, dumps_line(mrec), {"winner": winner, "capped": capped, "error": error, "failure": failure}


def run_task(task: tuple[RunSpec, int, int]) -> TaskResult:
    """Play matches ``start … stop-1`` of ``spec``; see the module docstring."""
    spec, start, stop = task
    thresholds = gc.get_threshold()
    if thresholds[0] and thresholds[0] < GC_GEN0_THRESHOLD:  # not disabled, not already higher
        gc.set_threshold(GC_GEN0_THRESHOLD, *thresholds[1:])
    try:
        return _run_task(spec, start, stop)
    finally:
        gc.set_threshold(*thresholds)


def _run_task(spec: RunSpec, start: int, stop: int) -> TaskResult:
    res = TaskResult(start, stop)
    rules = spec.rules()
    deal_parts: list[bytes] = []
    match_parts: list[bytes] = []
    wins = [0, 0]
    for i in range(start, stop):
        try:
            lines, mline, facts = play_match(spec, i, rules)
        except SetupSourceError as exc:  # not the engine's failure: the source's, named as such
            res.fatal, res.source_failure, res.stop = str(exc), True, i
            break
        except Exception as exc:  # noqa: BLE001 - an engine bug: report it with its place
            import traceback

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
            res.failure = res.failure or facts["failure"]
            if spec.on_error == "stop":
                res.stop = i + 1
                break
    res.deal_lines = b"".join(deal_parts)
    res.match_lines = b"".join(match_parts)
    res.wins = (wins[0], wins[1])
    return res


__all__ = ["ON_ERROR", "RunSpec", "TaskResult", "match_seed", "play_match", "play_setup_match", "run_task"]

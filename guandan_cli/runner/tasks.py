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
from enum import StrEnum

from guandan_cli.engine.failures import BotFailure
from guandan_cli.engine.match import Match, deal_seed
from guandan_cli.engine.play import StrategyError, iter_match
from guandan_cli.engine.rules import get_ruleset
from guandan_cli.engine.seeding import derived_rng
from guandan_cli.logs.deal_lines import DealLines
from guandan_cli.logs.schema import MatchKey, match_record
from guandan_cli.logs.writer import dumps_line
from guandan_cli.runner.seeds import match_seed


class OnError(StrEnum):
    """What a strategy's failure does to a run (``--on-error``)."""

    STOP = "stop"  # the run stops with SimulationError
    RECORD = "record"  # the match is recorded with its error and the run goes on


ON_ERROR = tuple(mode.value for mode in OnError)
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
    on_error: OnError = OnError.STOP
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

#: in a watched worker process (``runner.supervisor``): the shared slots where the worker says which
#: match it plays and how many of its deals are done (two stores per deal), so the parent
#: can name the match a dead worker was in; ``None`` elsewhere
POSITION = None
#: while a worker replays a match to find where its worker died: each seat's calls are
#: wrapped to store the seat in ``POSITION`` first (``_track_seats``; never on the hot path)
TRACK_SEATS = False
#: ``POSITION``'s slots: the job running, its match, the deals done in it, the seat asked
#: (-1: none; named only while a match is tracked), the watch's heartbeat, a decision that
#: outlived its limit and the grace after, and the seat the watch found past its limit
JOB, MATCH, DEALS, SEAT, BEAT, STUCK, OVERDUE = range(7)


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


@dataclass(frozen=True)
class Cut:
    """Where a match is cut short as errored without playing on: after ``deals`` deals, with
    ``seat`` (``None``: no seat was being asked) failing for ``cause``. How a match whose
    worker died or overran is recorded (``runner.supervisor``): its deals before are replayed."""

    deals: int
    seat: int | None
    cause: str

    def error(self, players, match_seed: int, deal_index: int) -> StrategyError:
        if self.seat is None:
            return WorkerLost(f"match seed {match_seed}, deal {deal_index}: {self.cause}")
        seat = self.seat
        return StrategyError(seat, _player_name(players[seat]), match_seed, deal_index, self.cause)


class WorkerLost(StrategyError):
    """A match's worker died (or overran) while no seat was being asked: the message alone."""

    def __init__(self, text: str) -> None:  # noqa: D107 - the message is the whole record
        RuntimeError.__init__(self, text)
        self.seat, self.strategy, self.match_seed, self.deal_index, self.error = None, None, None, None, text


def _player_name(player) -> str:
    return getattr(player, "name", type(player).__name__)


#: the calls a tracked seat makes to its player (``_track_seats``)
_SEAT_CALLS = (
    "choose_play",
    "choose_tribute",
    "choose_return",
    "choose_from_legal",
    "start_deal",
    "observe_action",
    "on_public_events",
)


def _track_seats(players) -> None:
    """Wrap each player's calls so the seat asked is in ``POSITION[SEAT]`` while it answers."""
    position = POSITION
    if position is None:
        return
    for seat, player in enumerate(players):
        for name in _SEAT_CALLS:
            call = getattr(player, name, None)
            if call is None or getattr(call, "does_nothing", False):
                continue
            try:
                setattr(player, name, _seat_call(call, seat, position))
            except (AttributeError, TypeError):  # __slots__: this seat's calls stay unnamed
                break


def _seat_call(call, seat: int, position):
    def asked(*args):
        position[SEAT] = seat
        answer = call(*args)
        position[SEAT] = -1
        return answer

    asked.picks_item = getattr(call, "picks_item", False)  # type: ignore[attr-defined]
    return asked


def _cut_short(played, cut: Cut | None, players, match_seed: int, next_deal):
    """``played`` (the deals of a match), ended by ``cut``'s error after ``cut.deals`` deals."""
    if cut is None:
        yield from played
        return
    done = 0
    if cut.deals > 0:
        for pd in played:
            yield pd
            done += 1
            if done >= cut.deals:
                break
    raise cut.error(players, match_seed, next_deal())


def new_players(classes: list, match_seed: int, deal_index: int = 0) -> list:
    """One player per seat, each with its rng derived from (match seed, seat), as
    ``make_players`` makes them; a constructor that raises (or overruns the decision limit:
    ``runner.supervisor`` watches this loop too) is its seat's failure, a ``StrategyError`` at the
    match's first deal (``deal_index``).
    """
    if len(classes) != 4:  # make_players' error
        from guandan_cli.strategies.registry import make_players

        return make_players(classes, match_seed)
    from guandan_cli.engine import play

    players = []
    for seat, cls in enumerate(classes):
        try:
            players.append(cls(seat, derived_rng(match_seed, "seat", seat)))
        except play.BOT_FAILURES as exc:
            raise play.strategy_error(seat, cls, match_seed, deal_index, exc) from exc
    return players


def play_setup_match(
    spec: RunSpec, index: int, rules, cut: Cut | None = None
) -> tuple[list[bytes], bytes, dict]:
    """ "Match" ``index`` of a setups run: one deal from setup ``index``, logged as a one-deal match."""
    from guandan_cli.runner.setups import play_setup

    item = _setup(spec, index, rules)
    strategies = list(spec.strategies)
    lines: list[bytes] = []
    error = None
    levels = item.setup.levels
    winner, capped = None, False
    failure = None
    try:
        players = new_players(_classes(spec.strategies, spec.classes), item.match_seed, item.deal_index)
        if TRACK_SEATS:
            _track_seats(players)
        if cut is not None:
            raise cut.error(players, item.match_seed, item.deal_index)
        played = play_setup(item, players, run_id=spec.run_id, match_index=index, strategies=strategies)
    except StrategyError as exc:
        error, failure = str(exc), exc.failure
    else:
        lines.append(dumps_line(played.record))
        levels = played.update.levels_after
        winner, capped = played.update.winner, played.update.capped
    mrec = match_record(
        MatchKey(spec.run_id, index, item.match_seed, tuple(strategies)),
        ruleset=rules.name,
        deals=len(lines),
        final_levels=(levels[0], levels[1]),
        winner=winner,
        capped=capped,
        error=error,
    )
    return lines, dumps_line(mrec), {"winner": winner, "capped": capped, "error": error, "failure": failure}


def asks_a_person(spec: RunSpec) -> bool:
    """Whether a seat of ``spec`` is a person's at a terminal (``guandan play``): their output is
    the game's screen, and their time their own."""
    return any(getattr(cls, "needs_input_source", False) for cls in _classes(spec.strategies, spec.classes))


def forget_loaded() -> None:
    """Drop the classes and setups this process loaded: the next task loads them afresh.

    Called before each run in the calling process, so a bot file edited between two runs
    of one session (a notebook, a script) is played as it is now.
    """
    _CLASSES.clear()
    _SETUP_LISTS.clear()
    LOCAL_CLASSES.clear()


def play_match(
    spec: RunSpec, index: int, rules=None, cut: Cut | None = None
) -> tuple[list[bytes], bytes, dict]:
    """Play match ``index``: its deal lines, its match line and facts (deals, winner, capped, error).

    ``cut``: play only its first ``cut.deals`` deals and record the match as errored there."""
    rules = rules or spec.rules()
    if spec.setups is not None:
        return play_setup_match(spec, index, rules, cut)
    seed = match_seed(spec.seed, index)
    strategies = list(spec.strategies)
    match = Match(seed, rules)
    classes = _classes(spec.strategies, spec.classes)
    lines: list[bytes] = []
    error = None
    # the bytes of dumps_line(deal_record(...)), built directly (logs/deal_lines.py)
    deal_lines = DealLines(run_id=spec.run_id, match_index=index, match_seed=seed, strategies=strategies)
    failure = None
    position = POSITION
    try:
        players = new_players(classes, seed)
        if TRACK_SEATS:
            _track_seats(players)
        played = iter_match(match, players)
        if cut is not None:
            played = _cut_short(played, cut, players, seed, lambda: match.deal_index)
        for pd in played:
            if position is not None:
                position[DEALS] = pd.index + 1
            lines.append(deal_lines.line(pd.index, deal_seed(seed, pd.index), pd.setup, pd.deal, pd.update))
    except StrategyError as exc:
        error, failure = str(exc), exc.failure
    winner = match.winner if error is None else None
    capped = match.capped if error is None else False
    mrec = match_record(
        MatchKey(spec.run_id, index, seed, tuple(strategies)),
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


def run_tracked(task: tuple[RunSpec, int]) -> TaskResult:
    """Play match ``index`` alone with each seat's calls named in ``POSITION`` (where a worker
    that dies in it died: ``runner.supervisor``)."""
    global TRACK_SEATS
    spec, index = task
    TRACK_SEATS = True
    try:
        return run_task((spec, index, index + 1))
    finally:
        TRACK_SEATS = False


def run_cut(task: tuple[RunSpec, int, Cut]) -> TaskResult:
    """Match ``index`` recorded as errored at ``cut`` (its deals before it replayed)."""
    spec, index, cut = task
    return _run_task(spec, index, index + 1, cut)


def _run_task(spec: RunSpec, start: int, stop: int, cut: Cut | None = None) -> TaskResult:
    res = TaskResult(start, stop)
    rules = spec.rules()
    deal_parts: list[bytes] = []
    match_parts: list[bytes] = []
    wins = [0, 0]
    position = POSITION
    for i in range(start, stop):
        if position is not None:
            position[MATCH], position[DEALS], position[SEAT] = i, 0, -1
        try:
            lines, mline, facts = play_match(spec, i, rules, cut)
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
            if spec.on_error == OnError.STOP:
                res.stop = i + 1
                break
    res.deal_lines = b"".join(deal_parts)
    res.match_lines = b"".join(match_parts)
    res.wins = (wins[0], wins[1])
    return res


__all__ = [
    "ON_ERROR",
    "Cut",
    "RunSpec",
    "TaskResult",
    "match_seed",
    "play_match",
    "play_setup_match",
    "run_cut",
    "run_task",
    "run_tracked",
]

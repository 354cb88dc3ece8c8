"""A logged deal walked through the engine: its decisions, and the table after every play.

``load_deal(run, match, deal)`` finds the record and rebuilds its setup and actions (the log
is the record: nothing is taken from it that the engine does not replay);
``decisions(logged, seats)`` yields, for each play-phase action of those seats that had a
choice, the seat's :class:`~guandan_cli.engine.observation.Observation` just before it and
the action played; ``table_states(logged)`` the public and private state after each play,
for the replay page.

>>> import random
>>> from guandan_cli.engine import deal_hands
>>> from guandan_cli.engine.deal import DealSetup
>>> setup = DealSetup(hands=deal_hands(random.Random(1)), level=0, first_leader=0)
>>> logged = LoggedDeal.played(setup, ["random"] * 4, seed=3)
>>> first = next(decisions(logged, [0]))
>>> first.index, first.seat, first.obs.seat, first.obs.top is None
(0, 0, 0, True)
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from guandan_cli.engine.deal import OVER, PLAY, Deal, DealSetup, IllegalActionError, replay
from guandan_cli.engine.observation import Observation, observe
from guandan_cli.logs.manifest import PartialConfig, RunFolder
from guandan_cli.logs.records import DealRecord, RecordError


class ReviewInputError(ValueError):
    """A run, match, deal or seat that cannot be reviewed (bad input: one line, exit 2)."""


class ReviewRecordError(ValueError):
    """A logged deal that does not replay (a failure while working: one line, exit 1)."""


class UnfinishedDealError(ValueError):
    """A logged deal whose actions end before the deal is over."""


@dataclass(frozen=True)
class LoggedDeal:
    """One deal to walk or show: where it is logged, how it starts, every action in order, the
    seats' names and how it ended (``end``: the lines ``replay`` and ``watch`` print).

    ``actions`` are ``(seat, action)`` pairs as ``Deal.apply`` takes them: tribute and return
    cards first, then the play phase (``record.plays``), whose position is a decision's
    ``index``. ``record`` is the log line it was read from (``None``: a deal played now).
    """

    setup: DealSetup
    actions: tuple
    names: tuple[str, ...]
    match: int = 0
    deal: int = 0
    match_seed: int = 0
    deal_seed: int = 0
    where: str = ""
    end: tuple[str, ...] = ()
    record: DealRecord | None = field(default=None, compare=False, repr=False)

    @classmethod
    def played(cls, setup: DealSetup, strategies: Sequence[str], seed: int = 0) -> LoggedDeal:
        """The deal ``setup`` played now by ``strategies`` (seeded like match ``seed``'s seats)."""
        from guandan_cli.engine.play import play_deal
        from guandan_cli.strategies.registry import make_players

        deal = play_deal(Deal(setup), make_players(list(strategies), seed), seed, 0)
        return cls(setup, tuple(deal.actions), tuple(strategies), match_seed=seed)

    @classmethod
    def of_record(cls, rec: DealRecord, prev: DealRecord | None, options: PartialConfig) -> LoggedDeal:
        """The deal a log line records (``prev``: the match's previous deal; ``options``: its
        run's config as recorded); ``RecordError`` when its values make no deal. Not replayed
        here (``check_replays`` does)."""
        from guandan_cli.logreaders.replay import logged_setup, record_end_lines, record_rules

        rules = record_rules(rec, options)
        return cls(
            setup=logged_setup(rec, prev, options, rules),
            actions=tuple(rec.actions()),
            names=rec.strategies,
            match=rec.match,
            deal=rec.deal,
            match_seed=rec.match_seed,
            deal_seed=rec.deal_seed,
            where=rec.where,
            end=tuple(record_end_lines(rec)),
            record=rec,
        )

    @property
    def first_play(self) -> int:
        """The position in ``actions`` of the first play-phase action (after tribute and return)."""
        if self.record is not None:
            return len(self.actions) - len(self.record.plays)
        return next((i for i, deal in _replayed(self) if deal.phase == PLAY), len(self.actions))


def _replayed(logged: LoggedDeal) -> Iterator[tuple[int, Deal]]:
    """``(i, the deal before action i)`` for each action of ``logged``, applied in turn: the
    one loop over a logged deal's actions (``engine.replay`` without its checks)."""
    deal = Deal(logged.setup)
    for i, (_seat, action) in enumerate(logged.actions):
        yield i, deal
        deal.apply(action)


def load_deal(run: str | os.PathLike | RunFolder, match: int, deal: int | None = None) -> LoggedDeal:
    """Deal ``deal`` of match ``match`` of a run (its first logged deal when ``deal`` is None).

    Raises ``ReviewInputError`` for a run, match or deal that is not there,
    ``guandan_cli.logs.reader.LogLineError`` for a corrupt line and ``ReviewRecordError`` for
    a record that does not replay (an unknown ruleset, hands or actions edited by hand).
    """
    from guandan_cli.logreaders.replay import DealNotFound, find_deal
    from guandan_cli.logs.reader import LogLineError, LogReadError

    try:
        folder = RunFolder.read(run)
        _path, _line, rec, prev = find_deal(folder, match, deal)
    except LogLineError:  # a corrupt line: a failure, not bad input
        raise
    except RecordError as exc:
        raise ReviewRecordError(f"{exc.where}: cannot replay this deal: {exc.why}") from None
    except (DealNotFound, LogReadError, ValueError) as exc:  # no such run, match or deal; a bad manifest
        raise ReviewInputError(str(exc)) from None
    return logged_from_record(rec, prev, folder.options)


def load_match(run: str | os.PathLike, match: int) -> list[LoggedDeal]:
    """Every logged deal of match ``match`` of a run, in order, each checked to replay (the errors
    of :func:`load_deal`; ``ReviewInputError`` when the run or the match holds no deal)."""
    from guandan_cli.logreaders.replay import match_records

    try:
        folder = RunFolder.read(run)
    except ValueError as exc:  # a manifest that does not read
        raise ReviewInputError(str(exc)) from None
    load_deal(folder, match)  # the first deal: the run and the match are there, or the error says why
    deals, prev = [], None
    try:
        for _source, _line, rec in match_records(folder, match):
            deals.append(logged_from_record(rec, prev, folder.options))
            prev = rec
    except RecordError as exc:
        raise ReviewRecordError(f"{exc.where}: cannot replay this deal: {exc.why}") from None
    return deals


def logged_from_record(rec: DealRecord, prev: DealRecord | None, options: PartialConfig) -> LoggedDeal:
    """The deal of record ``rec`` (``prev`` the match's previous record, ``options`` its run's
    ``config``), checked to replay (``ReviewRecordError`` naming ``file:line`` if it does not)."""
    try:
        logged = LoggedDeal.of_record(rec, prev, options)
        check_replays(logged)
    except IllegalActionError as exc:
        raise ReviewRecordError(f"{rec.where}: {exc}") from None
    except RecordError as exc:
        raise ReviewRecordError(f"{exc.where}: cannot replay this deal: {exc.why}") from None
    except UnfinishedDealError as exc:
        raise ReviewRecordError(f"{rec.where}: cannot replay this deal: {exc}") from None
    return logged


def match_deals(run: RunFolder, match: int) -> Iterator[LoggedDeal]:
    """The logged deals of match ``match`` of a run, in order, not replayed (``RecordError`` for
    a line whose values make no deal): the one place a match's logged deals are listed."""
    from guandan_cli.logreaders.replay import match_records

    prev = None
    for _source, _line, rec in match_records(run, match):
        yield LoggedDeal.of_record(rec, prev, run.options)
        prev = rec


def check_replays(logged: LoggedDeal) -> Deal:
    """The deal replayed to its end by ``engine.replay`` (``IllegalActionError`` at the first
    action that is not legal, naming its play-phase index; ``UnfinishedDealError`` when the
    actions end first)."""
    deal = replay(logged.setup, logged.actions, numbered_from=logged.first_play)
    if deal.phase != OVER:
        raise UnfinishedDealError(f"the deal is not over after its {len(logged.actions)} actions")
    return deal


def _indexed(logged: LoggedDeal) -> Iterator[tuple[int, int, object]]:
    """``(index, seat, action)``: play-phase actions numbered from 0, tribute and return from −k."""
    first = logged.first_play
    for i, (seat, action) in enumerate(logged.actions):
        yield i - first, seat, action


@dataclass(frozen=True)
class Decision:
    """A seat's choice at play-phase action ``index``: what it saw (``obs``) and what it played."""

    index: int
    seat: int
    obs: Observation
    played: object
    #: the trick the decision belongs to, from 1 (a lead starts the next one)
    trick: int = 0


def decisions(logged: LoggedDeal, seats: Iterable[int] = range(4)) -> Iterator[Decision]:
    """The play-phase decisions of ``seats`` that had more than one legal action, in order.

    Each observation is the seat's own (``engine.observation.observe``): its hand and the
    public record, with its legal actions built.
    """
    wanted = set(seats)
    deal = Deal(logged.setup)
    tricks = 0
    for i, seat, action in _indexed(logged):
        if deal.phase == PLAY and seat in wanted:
            obs = observe(deal, seat)
            if obs.only_legal_action() is None:
                yield Decision(i, seat, obs, action, tricks + (obs.top is None))
        before = len(deal.events)
        deal.apply(action)
        tricks += sum(ev.kind == PLAY and ev.lead for ev in deal.events[before:])


@dataclass(frozen=True)
class TableState:
    """The table after ``index + 1`` play-phase actions (``index`` −1: before the first play)."""

    index: int
    hands: tuple[tuple[int, ...], ...]
    trick: tuple  # the current (or just finished) trick's events, from its lead
    trick_number: int
    to_move: int
    finished: tuple[int, ...]
    top_owner: int


def table_states(logged: LoggedDeal) -> list[TableState]:
    """The table before the first play and after each play-phase action."""
    deal = Deal(logged.setup)
    states: list[TableState] = []
    trick: list = []
    tricks = 0

    def snap(index: int) -> TableState:
        return TableState(
            index,
            tuple(tuple(h) for h in deal.hands),
            tuple(trick),
            tricks,
            deal.to_move,
            tuple(deal.finished),
            deal.top_owner,
        )

    for i, _seat, action in _indexed(logged):
        if i == 0:
            states.append(snap(-1))
        before = len(deal.events)
        deal.apply(action)
        if i < 0:
            continue
        for ev in deal.events[before:]:
            if ev.kind == PLAY and ev.lead:
                trick, tricks = [], tricks + 1
            trick.append(ev)
        states.append(snap(i))
    if not states:
        states.append(snap(-1))
    return states


__all__ = [
    "Decision",
    "LoggedDeal",
    "ReviewInputError",
    "ReviewRecordError",
    "TableState",
    "UnfinishedDealError",
    "check_replays",
    "decisions",
    "load_deal",
    "load_match",
    "logged_from_record",
    "match_deals",
    "table_states",
]

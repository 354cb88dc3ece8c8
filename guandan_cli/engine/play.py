"""Driving deals and matches with players (objects with the Strategy methods).

A player answers ``choose_tribute(obs)``, ``choose_return(obs)`` and
``choose_play(obs)`` with one of ``obs.legal_actions`` (or, for plays, any other
action that ``Deal.verify`` accepts). A player that raises or answers illegally
is reported as a ``StrategyError`` naming seat, strategy, match seed and deal.
A player with an ``observe_action(obs)`` method is also shown its own observation
after every action of any seat (how a person at a terminal follows the table);
players without it cost nothing.

A player's ``start_deal(index, obs)``, if it has one, is called before each deal, unless
the method carries ``does_nothing = True`` (the base ``Strategy``'s, so no observation is
built for it).

Optional hook: a player with ``on_public_events(seat, events, end)`` is told after every
action, with the seat that acted, the public events it revealed (maybe none: a first
double-tribute card stays hidden) and, once the deal is over, ``end``: a ``DealEnd``
with the result and the hands left (shown at the end of a deal), else ``None``. The
competition server's remote seats use it to send the platform's notifications.

Optional shortcut: a player whose ``choose_from_legal`` attribute is not ``None`` is asked
``choose_from_legal(legal)`` instead (``legal``: the tuple ``obs.legal_actions`` would
hold, in every phase) and builds no observation; its answer must be an element of
``legal`` (an answer that is not is a ``StrategyError``, as for any bot). A bot offers it
only when its answers depend on the legal actions alone (``random`` does). One that also sets
``lazy_legal = True`` may be given, for a lead from a hand without wilds or natural straight
flushes, a lazy ``Sequence`` of the same plays (``engine.legal.PlainLeads``) instead of the tuple.
One whose ``choose_from_legal`` carries ``picks_item = True`` promises its answer is an element of
``legal`` (the random bot's ``legal[r]``): the answer is applied without being looked up.

>>> from guandan_cli.strategies import make_players
>>> from guandan_cli.engine.match import Match
>>> m = Match(seed=3)
>>> deals = list(iter_match(m, make_players(["random"] * 4, match_seed=3)))
>>> m.over or len(deals) > 0
True
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from .combos import Combo
from .deal import (
    OVER,
    PASS,
    PLAY,
    RETURN,
    TRIBUTE,
    Deal,
    DealResult,
    DealSetup,
    IllegalActionError,
    action_text,
)
from .failures import BotFailure, bot_failure
from .legal import PlainLeads, _follow_tuple
from .match import Match, MatchUpdate
from .observation import Observation, _get_legal, _LazyObservation, _LazyPlays, listed_legal, observe


class StrategyError(RuntimeError):
    """A strategy raised, or answered with an illegal action.

    For an exception, ``failure`` is its ``BotFailure`` (where in the bot's file, the whole
    traceback) and the message names that place: ``…, deal 2: mybot.py:17 in choose_play:
    RuntimeError: boom``; the exception itself is the ``__cause__``.
    """

    #: the bot's exception, located (``engine.failures``); ``None`` for an illegal answer
    failure: BotFailure | None = None

    def __init__(
        self, seat: int, strategy: str, match_seed: int | None, deal_index: int | None, error: str
    ) -> None:
        self.seat = seat
        self.strategy = strategy
        self.match_seed = match_seed
        self.deal_index = deal_index
        self.error = error
        super().__init__(
            f"strategy {strategy!r} at seat {seat} failed in match seed {match_seed}, deal {deal_index}: {error}"
        )


def strategy_error(seat: int, player: object, match_seed, deal_index, exc: BaseException) -> StrategyError:
    """The ``StrategyError`` for ``exc`` raised by ``player`` (or by its class, whose constructor
    raised), naming where in its file."""
    cls = player if isinstance(player, type) else type(player)
    failure = bot_failure(exc, cls)
    error = StrategyError(seat, getattr(player, "name", cls.__name__), match_seed, deal_index, failure.line)
    error.failure = failure
    return error


@dataclass
class PlayedDeal:
    """A finished deal with the match update it caused."""

    index: int
    setup: DealSetup
    deal: Deal
    update: MatchUpdate


class DealEnd(NamedTuple):
    """How a deal ended, as told to ``on_public_events``: the result and the hands left."""

    result: DealResult
    hands: tuple[tuple[int, ...], ...]


#: what a bot may raise that is reported as its failure (``StrategyError``): ``Exception``, and
#: while a runner plays a task also ``SystemExit``, ``DecisionTimeout`` (and, in a worker
#: process, where no Ctrl-C is delivered, ``KeyboardInterrupt``): set by ``runner.tasks``.
#: Looked up only when an exception is raised, so it costs the loops nothing.
BOT_FAILURES: tuple[type[BaseException], ...] = (Exception,)


def _name(player: object) -> str:
    return getattr(player, "name", type(player).__name__)


def play_deal(
    deal: Deal, players: Sequence[object], match_seed: int | None = None, deal_index: int | None = None
) -> Deal:
    """Play ``deal`` to its end, asking each seat's player in turn."""
    watchers, listeners, shortcuts, legal_of = _hooks(deal, players)
    if not watchers and not listeners:
        if None not in shortcuts:
            _play_by_shortcuts(deal, players, shortcuts, legal_of, match_seed, deal_index)
            return deal
        if shortcuts.count(None) == len(shortcuts):
            _play_by_observations(deal, players, match_seed, deal_index)
            return deal
    for _seat in _steps(deal, players, shortcuts, legal_of, watchers, listeners, match_seed, deal_index):
        pass
    return deal


def deal_steps(
    deal: Deal, players: Sequence[object], match_seed: int | None = None, deal_index: int | None = None
) -> Iterator[int]:
    """Play ``deal`` one action at a time: yields the seat about to be asked, then (when the
    caller asks for the next) asks it and applies its action. The same actions as
    :func:`play_deal` (``guandan watch`` plays a match this way, showing each action as it comes).
    """
    watchers, listeners, shortcuts, legal_of = _hooks(deal, players)
    return _steps(deal, players, shortcuts, legal_of, watchers, listeners, match_seed, deal_index)


def _hooks(deal: Deal, players: Sequence[object]) -> tuple[list, list, list, list]:
    """What the seats' players ask for: ``(watchers, listeners, shortcuts, legal_of)``."""
    watchers = [
        (s, w) for s, p in enumerate(players) if (w := getattr(p, "observe_action", None)) is not None
    ]
    listeners = [(s, p) for s, p in enumerate(players) if hasattr(p, "on_public_events")]
    shortcuts = [getattr(p, "choose_from_legal", None) for p in players]
    # a shortcut bot with ``lazy_legal = True`` may be given a lazy sequence (engine.legal.PlainLeads)
    legal_of = [deal._legal_lazy if getattr(p, "lazy_legal", False) else deal._legal_tuple for p in players]
    return watchers, listeners, shortcuts, legal_of


def _steps(
    deal: Deal,
    players,
    shortcuts: list,
    legal_of: list,
    watchers: list,
    listeners: list,
    match_seed,
    deal_index,
) -> Iterator[int]:
    """``play_deal``'s general loop, one action per step (see :func:`deal_steps`)."""
    seen = len(deal.events)
    while deal.phase != "over":
        seat = deal.to_move
        yield seat
        player = players[seat]
        pick = shortcuts[seat]
        if pick is not None:
            legal = legal_of[seat]()
        else:
            obs = observe(deal, seat)
        try:
            action = pick(legal) if pick is not None else _answer(player, obs, deal.phase)
        except BOT_FAILURES as exc:  # a bot's failure is reported, never hidden
            raise strategy_error(seat, player, match_seed, deal_index, exc) from exc
        if pick is None:
            legal = listed_legal(obs)  # the plays may still be unbuilt (looked up by type)
        canonical = _find_legal(action, legal)
        if canonical is not None:
            deal.apply_unchecked(canonical)
        elif pick is not None:  # a shortcut's answer must be one of the actions it was given
            raise StrategyError(
                seat,
                _name(player),
                match_seed,
                deal_index,
                f"illegal action {action_text(action)!r}: not one of the legal actions it was given",
            )
        else:
            _apply_checked(deal, action, seat, player, match_seed, deal_index)
        if watchers:
            _tell(watchers, deal, players, match_seed, deal_index)
        if listeners:
            seen = _announce(listeners, deal, seat, seen, match_seed, deal_index)


def _answer(player: object, obs: Observation, phase: str) -> object:
    """The player's answer to the question of ``phase`` (a play, a tribute or a return card)."""
    if phase == PLAY:
        return player.choose_play(obs)
    if phase == TRIBUTE:
        return player.choose_tribute(obs)
    if phase == RETURN:
        return player.choose_return(obs)
    raise AssertionError(phase)  # pragma: no cover


def _apply_checked(deal: Deal, action: object, seat: int, player: object, match_seed, deal_index) -> None:
    """Apply an answer that is not one of the listed legal actions (``Deal.apply`` verifies it:
    a play's cards in another order, say), or raise the ``StrategyError`` saying why not."""
    try:
        deal.apply(action)
    except IllegalActionError as exc:
        raise StrategyError(
            seat,
            _name(player),
            match_seed,
            deal_index,
            f"illegal action {action_text(action)!r}: {exc.rule}",
        ) from exc
    except Exception as exc:  # noqa: BLE001 - e.g. a non-action object
        raise StrategyError(
            seat, _name(player), match_seed, deal_index, f"bad action {action_text(action)}: {exc}"
        ) from exc


def _play_by_observations(deal: Deal, players: Sequence[object], match_seed, deal_index) -> None:
    """``play_deal``'s loop when every seat answers from its observation and nobody watches or
    listens (self-play of ``heuristic``): the same steps, fewer tests per action."""
    apply = deal.apply_unchecked
    while deal.phase != "over":
        seat = deal.to_move
        player = players[seat]
        obs = observe(deal, seat)
        try:
            action = _answer(player, obs, deal.phase)
        except BOT_FAILURES as exc:  # a bot's failure is reported, never hidden
            raise strategy_error(seat, player, match_seed, deal_index, exc) from exc
        if type(obs) is _LazyObservation and _get_legal(obs) is None:
            canonical = obs._lazy_plays.find(action)  # the plays still unbuilt: looked up by type
        else:
            canonical = _find_legal(action, obs.legal_actions)
        if canonical is not None:
            apply(canonical)
        else:
            _apply_checked(deal, action, seat, player, match_seed, deal_index)


def _play_by_shortcuts(
    deal: Deal, players: Sequence[object], picks: list, legal_of: list, match_seed, deal_index
):
    """``play_deal``'s loop when every seat answers through ``choose_from_legal`` and nobody
    watches or listens (self-play of ``random``): the same steps, fewer tests per action.

    A shortcut marked ``picks_item`` (its answer is always an element of ``legal``, as the
    random bot's ``legal[r]``) is applied as it is, not looked up; a play is applied by
    ``apply_unchecked``'s play branch written out."""
    apply = deal.apply_unchecked
    trusted = [getattr(p, "picks_item", False) is True for p in picks]
    lazy = deal._legal_lazy
    written_out = [f == lazy for f in legal_of]
    actions = deal.actions
    hands = deal.hands
    analysis = deal._analysis
    while (phase := deal.phase) != OVER:
        seat = deal.to_move
        if phase == PLAY and written_out[seat] and deal._legal_cache is None:
            # deal._legal_lazy() written out (the hot path of random self-play)
            cached = analysis[seat]
            if cached is not None and cached[1] == len(cached[0]) and cached[0] is hands[seat]:
                h = cached[2]
                if h is None:  # after the seat's own play: the analysis before, less its cards
                    h = cached[3].without(cached[4])
                    analysis[seat] = (cached[0], cached[1], h)
            else:
                h = deal._analysed(seat)
            top = deal.top
            if top is not None:
                legal = _follow_tuple(h, top, PASS)  # (``_legal_cache`` left unset: reset below)
            elif not h.w and not h.members:
                legal = PlainLeads(h)
            else:
                legal = deal._legal_tuple()
        else:
            legal = legal_of[seat]()
        try:
            action = picks[seat](legal)
        except BOT_FAILURES as exc:  # a bot's failure is reported, never hidden
            raise strategy_error(seat, players[seat], match_seed, deal_index, exc) from exc
        if not trusted[seat]:
            canonical = _find_legal(action, legal)
            if canonical is None:
                raise StrategyError(
                    seat,
                    _name(players[seat]),
                    match_seed,
                    deal_index,
                    f"illegal action {action_text(action)!r}: not one of the legal actions it was given",
                )
            action = canonical
        if phase == PLAY:
            deal._legal_cache = None
            actions.append((seat, action))
            if action[0] == "pass":
                deal._pass(seat)
            else:
                deal._play(seat, action)
        else:
            apply(action)


def _tell(watchers: list, deal: Deal, players: Sequence[object], match_seed, deal_index) -> None:
    """Show each watching player its observation after an action (a failure is the player's)."""
    for seat, watch in watchers:
        try:
            watch(observe(deal, seat))
        except BOT_FAILURES as exc:  # reported like any bot failure
            raise strategy_error(seat, players[seat], match_seed, deal_index, exc) from exc


def _announce(watchers: list, deal: Deal, seat: int, seen: int, match_seed, deal_index) -> int:
    """Call each watcher's ``on_public_events`` with the events since ``seen``; the new count."""
    events = tuple(deal.events[seen:])
    end = DealEnd(deal.result, tuple(map(tuple, deal.hands))) if deal.phase == "over" else None
    if events or end is not None:
        for s, p in watchers:
            try:
                p.on_public_events(seat, events, end)
            except BOT_FAILURES as exc:  # reported like any bot failure
                raise strategy_error(s, p, match_seed, deal_index, exc) from exc
    return len(deal.events)


def _find_legal(action: object, legal: tuple | _LazyPlays) -> object | None:
    """The listed legal action equal to ``action`` (of the same kind), or None.

    The listed object is applied, so a bot answering with an equal plain tuple or a
    ``bool`` never puts a non-``Combo`` or non-``int`` into the deal's record. Plays not
    built yet are searched among the plays of the answer's type only.
    """
    if type(legal) is _LazyPlays:
        return legal.find(action)
    if type(action) is Combo:  # the common answer: one of the listed plays
        try:
            return legal[legal.index(action)]
        except ValueError:
            return None
    if isinstance(action, bool):
        return None
    if isinstance(action, int):
        return action if action in legal else None
    if not isinstance(action, tuple):
        return None
    try:
        i = legal.index(action)
    except ValueError:
        return None
    return legal[i]


def start_deal(match: Match, setup, players: Sequence[object]) -> Deal:
    """The match's next deal from ``setup`` (``match.next_setup()``), each player told of it
    (``start_deal``)."""
    index = match.deal_index
    deal = Deal(setup, check=type(match) is not Match)  # a Match deals two whole decks
    for seat, p in enumerate(players):
        hook = getattr(p, "start_deal", None)
        if hook is not None and not getattr(hook, "does_nothing", False):
            try:
                hook(index, observe(deal, seat))
            except BOT_FAILURES as exc:  # reported like any bot failure
                raise strategy_error(seat, p, match.seed, index, exc) from exc
    return deal


def iter_match(match: Match, players: Sequence[object]) -> Iterator[PlayedDeal]:
    """Play ``match`` deal by deal, yielding each finished deal and its update."""
    while not match.over:
        index = match.deal_index
        setup = match.next_setup()
        deal = start_deal(match, setup, players)
        play_deal(deal, players, match.seed, index)
        update = match.record(deal.result)
        yield PlayedDeal(index, setup, deal, update)

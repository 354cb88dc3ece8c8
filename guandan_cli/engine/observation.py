"""What a seat sees (rules.md §11): its own hand and the public record, nothing else.

>>> import random
>>> from guandan_cli.engine import deal_hands
>>> from guandan_cli.engine.deal import Deal, DealSetup
>>> d = Deal(DealSetup(hands=deal_hands(random.Random(1)), level=0, first_leader=2))
>>> obs = observe(d, 2)
>>> obs.seat, obs.partner, len(obs.hand), obs.card_counts
(2, 0, 27, (27, 27, 27, 27))
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from .combos import Combo
from .deal import OVER, RETURN, Deal, Event


@dataclass(frozen=True, slots=True)
class Observation:
    """One seat's view of a deal at one moment: its own hand and public facts only.

    Fields: its ``seat`` (``partner`` and ``team`` derived), the ``phase`` and the seat
    ``to_move``, its own ``hand``, the deal's ``level``, both teams' ``levels`` and the
    ``level_team``, the public ``events``, every seat's ``card_counts``, the
    ``finished`` seats in order, the trick's ``top`` play and ``top_owner`` (``None``/-1
    between tricks), its ``legal_actions``, the ``tribute_kind`` and ``return_to``.
    No other seat's hand, and no tribute or return card before it is revealed.

    ``legal_actions`` is empty unless it is this seat's turn. ``events`` are the public
    events so far (tribute and return cards once revealed, plays with declarations,
    passes). ``return_to`` is the seat a return goes to, in the return phase.
    """

    seat: int
    phase: str
    to_move: int
    hand: tuple[int, ...]
    level: int
    levels: tuple[int, int]
    level_team: int | None
    events: tuple[Event, ...]
    card_counts: tuple[int, ...]
    finished: tuple[int, ...]
    top: Combo | None
    top_owner: int
    legal_actions: tuple
    tribute_kind: str
    return_to: int = -1

    @property
    def partner(self) -> int:
        return self.seat ^ 2

    @property
    def team(self) -> int:
        return self.seat & 1

    @property
    def leading(self) -> bool:
        return self.top is None


_new_observation = object.__new__
#: the slot setters of Observation by field (a frozen dataclass's __init__ is slow)
_SETTERS = {f.name: getattr(Observation, f.name).__set__ for f in fields(Observation)}
_set_seat = _SETTERS.pop("seat")
_set_phase = _SETTERS.pop("phase")
_set_to_move = _SETTERS.pop("to_move")
_set_hand = _SETTERS.pop("hand")
_set_level = _SETTERS.pop("level")
_set_levels = _SETTERS.pop("levels")
_set_level_team = _SETTERS.pop("level_team")
_set_events = _SETTERS.pop("events")
_set_card_counts = _SETTERS.pop("card_counts")
_set_finished = _SETTERS.pop("finished")
_set_top = _SETTERS.pop("top")
_set_top_owner = _SETTERS.pop("top_owner")
_set_legal_actions = _SETTERS.pop("legal_actions")
_set_tribute_kind = _SETTERS.pop("tribute_kind")
_set_return_to = _SETTERS.pop("return_to")
if _SETTERS:  # a new field must be filled by observe() below
    raise ImportError(f"observe() does not fill Observation fields {sorted(_SETTERS)}")


def observe(deal: Deal, seat: int) -> Observation:
    """The observation of ``seat`` (the legal actions only when it is its turn)."""
    phase = deal.phase
    to_move = deal.to_move
    my_turn = to_move == seat and phase != OVER
    return_to = -1
    if my_turn and phase == RETURN:
        return_to = deal._returners[len(deal._chosen_returns)][1]
    setup = deal.setup
    events = deal._events_tuple
    if len(events) != len(deal.events) or (events and events[-1] is not deal.events[-1]):
        events = deal._events_tuple = tuple(deal.events)
    hands = deal.hands
    obs = _new_observation(Observation)
    _set_seat(obs, seat)
    _set_phase(obs, phase)
    _set_to_move(obs, to_move)
    _set_hand(obs, tuple(hands[seat]))
    _set_level(obs, deal.level)
    _set_levels(obs, setup.levels)
    _set_level_team(obs, setup.level_team)
    _set_events(obs, events)
    _set_card_counts(obs, (len(hands[0]), len(hands[1]), len(hands[2]), len(hands[3])))
    _set_finished(obs, tuple(deal.finished))
    _set_top(obs, deal.top)
    _set_top_owner(obs, deal.top_owner)
    _set_legal_actions(obs, deal._legal_tuple() if my_turn else ())
    _set_tribute_kind(obs, deal.tribute_kind)
    _set_return_to(obs, return_to)
    return obs

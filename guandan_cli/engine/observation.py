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

from dataclasses import dataclass

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


def observe(deal: Deal, seat: int) -> Observation:
    """The observation of ``seat`` (the legal actions only when it is its turn)."""
    my_turn = deal.to_move == seat and deal.phase != OVER
    return_to = -1
    if my_turn and deal.phase == RETURN:
        return_to = deal._returners[len(deal._chosen_returns)][1]
    setup = deal.setup
    events = deal._events_tuple
    if len(events) != len(deal.events) or (events and events[-1] is not deal.events[-1]):
        events = deal._events_tuple = tuple(deal.events)
    return Observation(
        seat=seat,
        phase=deal.phase,
        to_move=deal.to_move,
        hand=tuple(deal.hands[seat]),
        level=deal.level,
        levels=setup.levels,
        level_team=setup.level_team,
        events=events,
        card_counts=deal.card_counts(),
        finished=tuple(deal.finished),
        top=deal.top,
        top_owner=deal.top_owner,
        legal_actions=tuple(deal.legal_actions()) if my_turn else (),
        tribute_kind=deal.tribute_kind,
        return_to=return_to,
    )

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

from collections.abc import Collection
from dataclasses import dataclass, fields

from .combos import COMBO_TYPES, SINGLE, Combo
from .deal import OVER, PASS, PLAY, RETURN, Deal, Event
from .legal import _follow_tuple, _Hand, _plays, plays_of_type


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

    def only_legal_action(self) -> object | None:
        """The legal action when there is exactly one, else None."""
        acts = self.legal_actions
        return acts[0] if len(acts) == 1 else None

    def legal_of_types(self, types: Collection[str] | str) -> tuple:
        """The legal plays of the given types (or of one type named alone), in their order in
        ``legal_actions`` (play phase).

        An observation made by ``observe`` in the play phase builds only these types' plays (a
        lead that looks at one type need not build every full house, a follow that passes need
        not build its bombs); ``legal_actions`` is built on first use.

        >>> import random
        >>> from guandan_cli.engine import deal_hands
        >>> from guandan_cli.engine.deal import Deal, DealSetup
        >>> obs = observe(Deal(DealSetup(hands=deal_hands(random.Random(1)), level=0, first_leader=2)), 2)
        >>> obs.legal_of_types(("pair",)) == tuple(a for a in obs.legal_actions if a.type == "pair")
        True
        """
        if isinstance(types, str):  # one type named alone (not its letters' substrings)
            types = (types,)
        return tuple(a for a in self.legal_actions if isinstance(a, tuple) and a[0] in types)


class _LazyPlays:
    """The legal plays of a seat to move in the play phase, built on demand (type by type
    for ``of_type``, all at once for ``all``).

    Built from the analysis of that seat's own hand (``_Hand``) and the top play: it holds
    no reference to the deal or to another seat's hand.
    """

    __slots__ = ("_hand", "_top", "_by_type")

    def __init__(self, hand: _Hand, top: Combo | None) -> None:
        self._hand = hand
        self._top = top
        self._by_type: dict[str, tuple] = {}

    def of_type(self, t: str) -> tuple:
        """The plays of type ``t`` (``PASS`` for ``"pass"`` when following), in legal order."""
        plays = self._by_type.get(t)
        if plays is None:
            if t == PASS[0]:
                plays = () if self._top is None else (PASS,)
            else:
                plays = tuple(plays_of_type(self._hand, t, self._top))
            self._by_type[t] = plays
        return plays

    def of_types(self, types: Collection[str]) -> tuple:
        """The plays of these types, in legal order (types in ``COMBO_TYPES`` order, PASS last)."""
        if len(types) == 1:
            for t in types:
                plays = self._by_type.get(t)
                return self.of_type(t) if plays is None else plays
        out: tuple = ()
        for t in _LISTED_TYPES:
            if t in types:
                out += self.of_type(t)
        return out

    def all(self) -> tuple:
        """Every legal action: ``Deal.legal_actions()`` of this seat (built as the deal builds it)."""
        if self._top is not None:
            return _follow_tuple(self._hand, self._top, PASS)
        return tuple(_plays(self._hand, None))

    def find(self, action: object) -> Combo | None:
        """The listed action equal to ``action``, or None (looked up among the plays of its type)."""
        if action is PASS:  # the commonest answer of a follow
            return PASS if self._top is not None else None
        if not isinstance(action, tuple) or len(action) != 3:
            return None
        t = action[0]
        if not isinstance(t, str) or t not in _LISTED_TYPES:
            return None
        plays = self.of_type(t)
        try:
            return plays[plays.index(action)]
        except ValueError:
            return None


#: the types of legal actions in the order they are listed
_LISTED_TYPES = (*COMBO_TYPES, PASS[0])
#: the slot of ``Observation.legal_actions`` (read and written under the lazy property)
_LEGAL_SLOT = Observation.__dict__["legal_actions"]
_get_legal = _LEGAL_SLOT.__get__


class _LazyObservation(Observation):
    """An ``Observation`` in the play phase whose ``legal_actions`` tuple is built on first use.

    Equal to (and hashed, shown and pickled as) the plain observation with the tuple built.
    """

    __slots__ = ("_lazy_plays",)

    @property
    def legal_actions(self) -> tuple:
        acts = _get_legal(self)
        if acts is None:
            acts = self._lazy_plays.all()
            _LEGAL_SLOT.__set__(self, acts)
        return acts

    @legal_actions.setter
    def legal_actions(self, value: tuple) -> None:
        _LEGAL_SLOT.__set__(self, value)

    def only_legal_action(self) -> object | None:
        if _get_legal(self) is None and self.top is None:
            # a lead lists one play exactly when the hand holds one card (its single)
            return self._lazy_plays.of_type(SINGLE)[0] if len(self.hand) == 1 else None
        return Observation.only_legal_action(self)

    def legal_of_types(self, types: Collection[str] | str) -> tuple:
        if _get_legal(self) is None:
            if type(types) is tuple and len(types) == 1:  # one type: the common question
                lazy = self._lazy_plays
                plays = lazy._by_type.get(types[0])
                return lazy.of_type(types[0]) if plays is None else plays
            return self._lazy_plays.of_types((types,) if isinstance(types, str) else types)
        return Observation.legal_of_types(self, types)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Observation):
            return all(getattr(self, f.name) == getattr(other, f.name) for f in _FIELDS)
        return NotImplemented

    __hash__ = Observation.__hash__

    def __repr__(self) -> str:
        return "Observation" + Observation.__repr__(self)[len(type(self).__qualname__) :]


_FIELDS = fields(Observation)
_set_lazy_plays = _LazyObservation.__dict__["_lazy_plays"].__set__


def listed_legal(obs: Observation) -> tuple | _LazyPlays:
    """What to look an answer up in: ``obs.legal_actions`` if built, else the lazy plays."""
    if type(obs) is _LazyObservation and _get_legal(obs) is None:
        return obs._lazy_plays
    return obs.legal_actions


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
    if my_turn and phase == PLAY and deal._legal_cache is None:
        # leads and follows: a follow that passes may never build its plays (bombs, full houses)
        obs = _new_observation(_LazyObservation)
        _set_lazy_plays(obs, _LazyPlays(deal._analysed(seat), deal.top))
        legal = None
    else:
        obs = _new_observation(Observation)
        legal = deal._legal_tuple() if my_turn else ()
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
    _set_legal_actions(obs, legal)
    _set_tribute_kind(obs, deal.tribute_kind)
    _set_return_to(obs, return_to)
    return obs

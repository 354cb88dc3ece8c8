"""The deal (一副): tribute, return, tricks, 接风 and finishing (rules.md §7–8, §10).

A ``Deal`` is built from a ``DealSetup`` (the dealt hands and what the match says
about levels and the previous deal). It knows its phase and whose turn it is,
lists that seat's legal actions and applies one. Actions are cards (int faces)
in the tribute and return phases and declared ``Combo`` plays or ``PASS`` in
the play phase. ``apply`` verifies and raises ``IllegalActionError`` naming the
seat, the action and the rule, leaving the state unchanged; ``apply_unchecked``
is the fast path for trusted callers. ``replay`` rebuilds a deal from its setup
and actions, like a poker hand history.

>>> import random
>>> from guandan_cli.engine import deal_hands
>>> d = Deal(DealSetup(hands=deal_hands(random.Random(1)), level=0, first_leader=0))
>>> d.phase, d.to_move
('play', 0)
>>> while d.phase != "over":
...     _ = d.apply_unchecked(d.legal_actions()[0])
>>> len(d.result.finish_order)
4
"""

from __future__ import annotations

from bisect import insort
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import NamedTuple

from .cards import HR, RANK_OF, format_card, format_cards
from .combos import POWER, Combo, beats, readings
from .legal import PlainLeads, _follow_tuple, _Hand, _plays
from .rules import DEFAULT_RULESET, Ruleset, get_ruleset

TRIBUTE = "tribute"
RETURN = "return"
PLAY = "play"
OVER = "over"

#: the pass action of the play phase
PASS = Combo("pass", -1, ())


def action_text(action: object) -> str:
    """``pass``, ``type:key cards`` for a play, or the card for a tribute/return.

    Never raises: anything that is not a well-formed action is shown by ``repr``
    (error messages about bad actions go through here).

    >>> action_text(53), action_text(PASS), action_text(99), action_text(None)
    ('HR', 'pass', '99', 'None')
    """
    try:
        if isinstance(action, int) and not isinstance(action, bool):
            return format_card(action) if 0 <= action < 54 else repr(action)
        if isinstance(action, Combo):
            if action[0] == "pass":
                return "pass"
            return action.text()
    except (IndexError, TypeError, ValueError, KeyError):
        pass
    if isinstance(action, tuple):
        return tuple.__repr__(action)  # Combo's own repr formats its (here bad) cards
    try:
        return repr(action)
    except Exception:  # noqa: BLE001 - a message must not fail
        return object.__repr__(action)


class IllegalActionError(ValueError):
    """An action that the rules do not allow in this state; the message names seat, action and rule."""

    def __init__(self, seat: int, action: object, rule: str) -> None:
        self.seat = seat
        self.action = action
        self.rule = rule
        if isinstance(action, int) and not isinstance(action, bool):
            verb = "pay or return"
        elif isinstance(action, Combo):
            verb = "pass" if action[0] == "pass" else "play"
        else:
            verb = "do"
        shown = action_text(action)
        text = (
            f"seat {seat} cannot pass: {rule}"
            if verb == "pass"
            else f"seat {seat} cannot {verb} {shown!r}: {rule}"
        )
        super().__init__(text)


@dataclass(frozen=True)
class DealSetup:
    """Everything a deal starts from.

    ``previous`` is the previous deal's (finish order, double-down) — it decides
    tribute; ``None`` for a match's first deal, whose leader is ``first_leader``.
    ``level`` is the rank index (0..12) the deal is played at.
    """

    hands: tuple[tuple[int, ...], ...]
    level: int = 0
    levels: tuple[int, int] = (0, 0)
    level_team: int | None = None
    previous: tuple[tuple[int, ...], bool] | None = None
    first_leader: int | None = None
    rules: Ruleset = field(default_factory=lambda: get_ruleset(DEFAULT_RULESET))


class Event(NamedTuple):
    """One public event of a deal.

    ``kind`` is ``tribute`` or ``return`` (``card`` given by ``seat`` to ``to``),
    ``play`` (``combo``; ``lead`` when it starts a trick) or ``pass``.
    """

    kind: str
    seat: int
    combo: Combo | None = None
    card: int = -1
    to: int = -1
    lead: bool = False


#: ``Event(kind, seat, combo, card, to, lead)`` built from a tuple (the hot path skips the
#: keyword handling of a NamedTuple's constructor)
_new_event = tuple.__new__
_PASS_KIND = "pass"
#: the pass event of each seat (events are values: one shared object per seat)
_PASS_EVENTS = tuple(_new_event(Event, (_PASS_KIND, seat, None, -1, -1, False)) for seat in range(4))


@dataclass(frozen=True)
class DealResult:
    """How a deal ended: finish order (all four seats), double-down, winning team, upgrade."""

    finish_order: tuple[int, ...]
    double_down: bool
    winner_team: int
    upgrade: int


def partner(seat: int) -> int:
    return seat ^ 2


def team_of(seat: int) -> int:
    return seat & 1


def _check_setup(setup: DealSetup) -> None:
    """Reject setups no deal can start from (a ``ValueError`` naming the problem).

    Hands may hold fewer than 27 cards (end-game studies), but every card is a face
    0..53 and no face appears more than twice over the four hands.
    """
    if len(setup.hands) != 4:
        raise ValueError(f"a deal needs 4 hands, got {len(setup.hands)}")
    seen: Counter = Counter()
    for hand in setup.hands:
        seen.update(hand)
    for f in seen:
        if type(f) is not int or not 0 <= f < 54:
            seat = next(i for i, h in enumerate(setup.hands) if f in h)
            raise ValueError(f"seat {seat}'s hand holds {f!r}, which is not a face 0..53")
    over = sorted(f for f, n in seen.items() if n > 2)
    if over:
        raise ValueError(f"faces dealt more than twice: {format_cards(over)}")
    if not 0 <= setup.level <= 12:
        raise ValueError(f"bad level {setup.level!r}: a level is a rank index 0..12 (2..A)")
    if setup.previous is not None:
        order, _dd = setup.previous
        if sorted(order) != [0, 1, 2, 3]:
            raise ValueError(f"previous finish order {order!r} is not a permutation of the seats 0..3")


class Deal:
    """The state machine of one deal. See the module docstring.

    Public state: ``phase`` (``tribute``, ``return``, ``play``, ``over``), ``to_move``
    (-1 when over), ``hands`` (sorted lists of faces), ``events`` (public), ``actions``
    (every applied (seat, action), the input of ``replay``), ``finished`` (seats in the
    order they went out), ``top``/``top_owner`` (the current trick's top play and its
    owner; ``None``/-1 between tricks), ``tribute_kind`` (``none``, ``single``,
    ``double`` or ``resisted``), ``tributes``/``returns`` ((giver, receiver, card)),
    ``leader`` (the seat that leads the first trick) and ``result`` once over.

    Rule points (rules.md §7–8, §10, §12):

    - Tribute: the payer's highest card by power, ♥ level cards excluded; when several
      faces share that power the payer picks one. Double tribute: the second payer
      chooses without seeing the first card; both are revealed together. The higher
      card goes to 上游, the lower to its partner; equal cards go to each payer's 上家.
    - Resistance: the paying side holds both ``HR`` (one payer, or the two between them);
      no tribute, the previous 上游 leads.
    - The ruleset's ``tribute`` option (for counterfactual experiments): ``off`` skips
      tribute and return (the previous 上游 leads); ``paid`` ignores resistance.
    - Return: receivers choose in turn (上游 first) and both returns are revealed
      together. ``cgr2022``: natural rank 2..10, else the lowest card(s) by power.
      ``jiangsu2017``: the ≤10 limit (with the same fallback) only applies to a return to
      one's own partner — a single tribute when 上游's partner came last — and any card
      may go back to an opponent (every other case, double tribute included).
    - Leader: first deal ``first_leader``; single tribute the payer; double tribute the
      payer whose card went to 上游 (``cgr2022``) or 上游's 下家 (``jiangsu2017``);
      resistance the previous 上游.
    - 接风: when the top play's owner went out with it and every seat still holding
      cards passed, the owner's partner leads. ``jiangsu2017`` grants it only after
      上游's last play; after a later finisher's the lead goes to the next seat still in
      play after the owner.
    - End: at once when the first two out are partners (double-down), else when the
      third goes out. In a double-down the last two places of ``finish_order`` are the
      two losers in seat order after the second finisher.
    """

    def __init__(self, setup: DealSetup, *, check: bool = True) -> None:
        """Start a deal from ``setup``, checked first (``ValueError``) unless ``check`` is false:
        for setups known valid, such as a ``Match``'s own (``iter_match``)."""
        if check:
            _check_setup(setup)
        self.setup = setup
        self.rules = setup.rules
        self.level = setup.level
        self.hands: list[list[int]] = [sorted(h) for h in setup.hands]
        self.events: list[Event] = []
        self.actions: list[tuple[int, Combo | int]] = []
        self.finished: list[int] = []
        #: per seat, the next seat after it still holding cards (``_next_active``)
        self._nxt = [1, 2, 3, 0]
        self.top: Combo | None = None
        self.top_owner = -1
        self.passes = 0
        self.result: DealResult | None = None
        self.tribute_kind = "none"  # none | single | double | resisted
        self.resisted_by: tuple[int, ...] = ()
        self.tributes: list[tuple[int, int, int]] = []  # (payer, receiver, card)
        self.returns: list[tuple[int, int, int]] = []  # (giver, receiver, card)
        self.leader = -1
        self._payers: list[int] = []
        self._paid: list[int] = []
        self._returners: list[tuple[int, int]] = []
        self._chosen_returns: list[int] = []
        #: the legal actions of the seat to move (a tuple), until the next action
        self._legal_cache: tuple | None = None
        #: per seat: (its hand list, its length, the analysis of it) until the hand changes;
        #: after the seat's own play, (hand list, length, None, analysis before, cards played)
        self._analysis: list = [None, None, None, None]
        #: ``tuple(self.events)``, shared by observations until the next event
        self._events_tuple: tuple = ()
        self.phase = PLAY
        self.to_move = -1
        prev = setup.previous
        if prev is None:
            if setup.first_leader is None or not 0 <= setup.first_leader < 4:
                raise ValueError("a first deal needs first_leader (a seat 0..3)")
            self._start_play(setup.first_leader)
            return
        order, double_down = prev
        first = order[0]
        if self.rules.tribute == "off":  # experiment option: no tribute, 上游 leads
            self._start_play(first)
            return
        if double_down:
            payers = [(first + 1) % 4, (first + 3) % 4]
        else:
            payers = [order[3]]
        big_jokers = sum(self.hands[p].count(HR) for p in payers)
        if big_jokers == 2 and self.rules.tribute != "paid":  # "paid": no resistance
            self.tribute_kind = "resisted"
            self.resisted_by = tuple(payers)
            self._start_play(first)
            return
        self.tribute_kind = "double" if double_down else "single"
        self._payers = payers
        self.phase = TRIBUTE
        self.to_move = payers[0]

    @classmethod
    def from_position(
        cls,
        setup: DealSetup,
        events: Iterable[Event],
        *,
        to_move: int,
        finished: Iterable[int] = (),
        top: Combo | None = None,
        top_owner: int = -1,
        tribute_kind: str = "none",
        check: bool = True,
    ) -> Deal:
        """A deal in its play phase at a given position, to be played on from there (search
        rollouts, end-game studies): ``setup.hands`` are the hands held *now*, ``events`` the
        public record so far (kept as the deal's ``events``), ``to_move`` the seat to act,
        ``finished`` the seats out in order, ``top``/``top_owner`` the trick's play to beat
        (``None``/-1 between tricks); the passes since ``top`` are counted from ``events``.
        ``actions`` starts empty (the actions applied from the position on), so ``replay``
        does not rebuild such a deal; ``setup.previous`` and ``first_leader`` are not used.
        ``check`` validates the setup and that the position is consistent (``ValueError``).

        >>> import random
        >>> from guandan_cli.engine import deal_hands
        >>> d = Deal(DealSetup(hands=deal_hands(random.Random(1)), level=0, first_leader=0))
        >>> for _ in range(6):
        ...     _ = d.apply_unchecked(d.legal_actions()[-1])
        >>> p = Deal.from_position(DealSetup(hands=tuple(map(tuple, d.hands)), level=0), d.events,
        ...                        to_move=d.to_move, finished=d.finished, top=d.top, top_owner=d.top_owner)
        >>> p.snapshot()[:4] == d.snapshot()[:4], p.passes == d.passes, p.legal_actions() == d.legal_actions()
        (True, True, True)
        """
        finished = list(finished)
        events = list(events)
        if check:
            if not 0 <= to_move < 4 or to_move in finished:
                raise ValueError(f"to_move {to_move!r} is not a seat in play (finished: {finished})")
            for s in range(4):
                if (s in finished) != (not setup.hands[s]):
                    state = "is out" if s in finished else "is in play"
                    raise ValueError(f"seat {s} {state} but holds {len(setup.hands[s])} cards")
            if (top is None) != (top_owner == -1) or not -1 <= top_owner < 4:
                raise ValueError(f"top {top!r} and top_owner {top_owner!r} do not agree")
        deal = cls(replace(setup, previous=None, first_leader=to_move), check=check)
        deal.setup = setup
        deal.events = events
        deal.finished = finished
        deal._nxt = [deal._next_active(s) for s in range(4)]
        deal.top = top
        deal.top_owner = top_owner
        passes = 0
        if top is not None:
            for ev in reversed(events):
                if ev[0] != _PASS_KIND:
                    break
                passes += 1
        deal.passes = passes
        deal.tribute_kind = tribute_kind
        for ev in events:
            if ev[0] == TRIBUTE:
                deal.tributes.append((ev.seat, ev.to, ev.card))
            elif ev[0] == RETURN:
                deal.returns.append((ev.seat, ev.to, ev.card))
        deal.leader = next((ev[1] for ev in events if ev[0] == PLAY), to_move)
        return deal

    # ------------------------------------------------------------------ queries

    @property
    def first_out(self) -> int | None:
        return self.finished[0] if self.finished else None

    def is_active(self, seat: int) -> bool:
        return seat not in self.finished

    def card_counts(self) -> tuple[int, ...]:
        return tuple(map(len, self.hands))

    def tribute_options(self, seat: int) -> list[int]:
        """The distinct faces of highest power in the hand, ♥ level cards excluded."""
        wild = self.level * 4 + 1
        pw = POWER[self.level]
        best, options = -1, []
        for f in self.hands[seat]:
            if f == wild:
                continue
            p = pw[RANK_OF[f]]
            if p > best:
                best, options = p, [f]
            elif p == best and f != options[-1]:
                options.append(f)
        return options

    def return_options(self, seat: int, to: int) -> list[int]:
        """The faces ``seat`` may return to ``to`` (rules.md §10 and the ruleset's limit).

        Limited: the faces of natural rank 2..10 (level cards and wilds included), or when
        there is none the faces of lowest power. ``cgr2022`` limits every return;
        ``jiangsu2017`` only a return to one's own partner (any card to an opponent).
        """
        hand = self.hands[seat]
        limited = self.rules.return_limit == "any_receiver" or to == partner(seat)
        if not limited:
            return sorted(set(hand))
        low = sorted({f for f in hand if RANK_OF[f] <= 8})
        if low:
            return low
        pw = POWER[self.level]
        lowest = min(pw[RANK_OF[f]] for f in hand)
        return sorted({f for f in hand if pw[RANK_OF[f]] == lowest})

    def legal_actions(self) -> list:
        """The legal actions of the seat to move (cards, or plays and PASS)."""
        return list(self._legal_tuple())

    def _analysed(self, seat: int) -> _Hand:
        """The analysis of ``seat``'s own hand (kept until the hand changes, or derived from the
        one before its own last play): the legal plays, and an observation's lazy ones, are built
        from it (it holds that hand only)."""
        hand = self.hands[seat]
        cached = self._analysis[seat]
        if cached is None or cached[0] is not hand or cached[1] != len(hand):
            cached = self._analysis[seat] = (hand, len(hand), _Hand(hand, self.level))
        elif cached[2] is None:
            cached = self._analysis[seat] = (hand, len(hand), cached[3].without(cached[4]))
        return cached[2]

    def _legal_lazy(self) -> tuple | PlainLeads:
        """``_legal_tuple()``, except a lead from a hand without wilds and natural straight
        flushes: then a lazy ``PlainLeads`` sequence of the same plays (for bots that pick by
        index, see ``engine.play``)."""
        if self._legal_cache is None and self.phase == PLAY:
            seat = self.to_move
            cached = self._analysis[seat]  # _analysed(seat), written out: the hot path
            if cached is not None and cached[1] == len(cached[0]) and cached[0] is self.hands[seat]:
                h = cached[2]
                if h is None:  # after the seat's own play: the analysis before, less its cards
                    h = cached[3].without(cached[4])
                    self._analysis[seat] = (cached[0], cached[1], h)
            else:
                h = self._analysed(seat)
            top = self.top
            if top is not None:
                acts = self._legal_cache = _follow_tuple(h, top, PASS)
                return acts
            if not h.w and not h.members:
                return PlainLeads(h)
        return self._legal_tuple()

    def _legal_tuple(self) -> tuple:
        """``legal_actions()`` as a tuple shared until the next action (do not change it)."""
        acts = self._legal_cache
        if acts is not None:
            return acts
        seat = self.to_move
        if self.phase == PLAY:
            top = self.top
            if top is None:
                acts = tuple(_plays(self._analysed(seat), None))
            else:
                acts = _follow_tuple(self._analysed(seat), top, PASS)
        elif self.phase == TRIBUTE:
            acts = tuple(self.tribute_options(seat))
        elif self.phase == RETURN:
            acts = tuple(self.return_options(seat, self._returners[len(self._chosen_returns)][1]))
        else:
            acts = ()
        self._legal_cache = acts
        return acts

    # ----------------------------------------------------------- verify / can / do

    def verify(self, action: Combo | int) -> None:
        """Raise ``IllegalActionError`` if ``action`` is not legal for the seat to move."""
        seat = self.to_move
        if self.phase == OVER:
            raise IllegalActionError(seat, action, "the deal is over")
        if self.phase in (TRIBUTE, RETURN):
            if not isinstance(action, int) or isinstance(action, bool):
                raise IllegalActionError(seat, action, f"the {self.phase} phase takes one card")
            if action not in self.hands[seat]:
                raise IllegalActionError(seat, action, f"the card is not in seat {seat}'s hand")
            if action not in self.legal_actions():  # the options are a few cards
                if self.phase == TRIBUTE:
                    rule = "tribute must be the highest card by power, ♥ level cards excluded (§10)"
                else:
                    to = self._returners[len(self._chosen_returns)][1]
                    rule = (
                        f"a return to seat {to} must have natural rank 2..10, or be the lowest card by power "
                        f"when there is none ({self.rules.name}, §10, §12)"
                    )
                raise IllegalActionError(seat, action, rule)
            return
        if not isinstance(action, Combo):
            raise IllegalActionError(seat, action, "the play phase takes a declared Combo or PASS")
        if action[0] == "pass":
            if action != PASS:
                raise IllegalActionError(seat, action, "a pass is the PASS action, with no cards")
            if self.top is None:
                raise IllegalActionError(seat, action, "the leader must play (§7)")
            return
        if not action[2]:
            raise IllegalActionError(seat, action, "a play needs cards")
        have = Counter(self.hands[seat])
        for f, n in Counter(action.cards).items():
            if have[f] < n:
                raise IllegalActionError(seat, action, f"the cards are not all in seat {seat}'s hand")
        if not any(r[0] == action[0] and r[1] == action[1] for r in readings(action.cards, self.level)):
            raise IllegalActionError(
                seat,
                action,
                f"the cards are not a valid {action.type} with key {action.key} at this level (§4, §6)",
            )
        if self.top is not None and not beats(action, self.top, self.level):
            raise IllegalActionError(seat, action, f"it does not beat the top play {self.top.text()} (§5)")

    def can(self, action: Combo | int) -> bool:
        try:
            self.verify(action)
        except IllegalActionError:
            return False
        return True

    def apply(self, action: Combo | int) -> Event | None:
        """Verify, then apply ``action`` for the seat to move; returns the event it revealed.

        An illegal action raises ``IllegalActionError`` (a ``ValueError``) and changes nothing.
        A play's cards are stored sorted, whatever order the caller gave them in.
        """
        self.verify(action)
        if isinstance(action, Combo) and action[0] != "pass":
            cards = tuple(sorted(action[2]))
            if cards != action[2]:
                action = Combo(action[0], action[1], cards)
        return self.apply_unchecked(action)

    def apply_unchecked(self, action: Combo | int) -> Event | None:
        """Apply an action known to be legal (e.g. picked from ``legal_actions``).

        No checks beyond the phase: an illegal action here corrupts the deal.
        Returns the event the action revealed (``None`` while tribute or return cards
        are still hidden).
        """
        seat = self.to_move
        if self.phase == OVER:
            raise IllegalActionError(seat, action, "the deal is over")
        self._legal_cache = None
        self.actions.append((seat, action))
        phase = self.phase
        if phase == PLAY:
            if action[0] == "pass":
                return self._pass(seat)
            return self._play(seat, action)
        if phase == TRIBUTE:
            self._paid.append(action)
            if len(self._paid) < len(self._payers):
                self.to_move = self._payers[len(self._paid)]
                return None
            self._settle_tribute()
            return None
        if phase == RETURN:
            self._chosen_returns.append(action)
            if len(self._chosen_returns) < len(self._returners):
                self.to_move = self._returners[len(self._chosen_returns)][0]
                return None
            self._settle_returns()
            return None
        raise AssertionError(f"unknown phase {phase!r}")  # pragma: no cover

    # ------------------------------------------------------------------ internals

    def _start_play(self, leader: int) -> None:
        self.phase = PLAY
        self.leader = leader
        self.to_move = leader

    def _settle_tribute(self) -> None:
        first = self.setup.previous[0][0]  # type: ignore[index]
        pw = POWER[self.level]
        if len(self._payers) == 1:
            transfers = [(self._payers[0], first, self._paid[0])]
            leader = self._payers[0]
        else:
            (p1, p2), (c1, c2) = self._payers, self._paid
            w1, w2 = pw[RANK_OF[c1]], pw[RANK_OF[c2]]
            if w1 > w2:
                transfers = [(p1, first, c1), (p2, partner(first), c2)]
            elif w2 > w1:
                transfers = [(p1, partner(first), c1), (p2, first, c2)]
            else:  # equal: each payer gives to its 上家
                transfers = [(p1, (p1 + 3) % 4, c1), (p2, (p2 + 3) % 4, c2)]
            to_first = next(p for p, r, _c in transfers if r == first)
            if self.rules.double_tribute_leader == "first_next":
                leader = (first + 1) % 4
            else:
                leader = to_first
        for payer, receiver, card in transfers:
            self.hands[payer].remove(card)
            insort(self.hands[receiver], card)
            self._analysis[payer] = self._analysis[receiver] = None
            self.tributes.append((payer, receiver, card))
            self.events.append(Event(TRIBUTE, payer, card=card, to=receiver))
        self.leader = leader
        # receivers return: 上游 first, then its partner
        self._returners = sorted(((r, p) for p, r, _c in transfers), key=lambda rp: rp[0] != first)
        self.phase = RETURN
        self.to_move = self._returners[0][0]

    def _settle_returns(self) -> None:
        for (giver, to), card in zip(self._returners, self._chosen_returns):
            self.hands[giver].remove(card)
            insort(self.hands[to], card)
            self._analysis[giver] = self._analysis[to] = None
            self.returns.append((giver, to, card))
            self.events.append(Event(RETURN, giver, card=card, to=to))
        self._start_play(self.leader)

    def _next_active(self, seat: int) -> int:
        finished = self.finished
        s = (seat + 1) % 4
        while s in finished:
            s = (s + 1) % 4
        return s

    def _play(self, seat: int, combo: Combo) -> Event:
        hand = self.hands[seat]
        cached = self._analysis[seat]
        cards = combo[2]
        for f in cards:
            hand.remove(f)
        if (
            cached is not None
            and cached[2] is not None
            and cached[0] is hand
            and cached[1] == len(hand) + len(cards)
        ):
            # the next analysis is this one less the cards (built when next asked)
            self._analysis[seat] = (hand, len(hand), None, cached[2], cards)
        else:
            self._analysis[seat] = None
        ev = _new_event(Event, (PLAY, seat, combo, -1, -1, self.top is None))
        self.events.append(ev)
        self.top = combo
        self.top_owner = seat
        self.passes = 0
        if not hand:
            self.finished.append(seat)
            n = len(self.finished)
            if (n == 2 and self.finished[1] == partner(self.finished[0])) or n == 3:
                self._finish()
                return ev
            self._nxt = [self._next_active(s) for s in range(4)]
        self.to_move = self._nxt[seat]
        return ev

    def _pass(self, seat: int) -> Event:
        ev = _PASS_EVENTS[seat]
        self.events.append(ev)
        passes = self.passes = self.passes + 1
        owner = self.top_owner
        finished = self.finished
        owner_active = owner not in finished
        if passes >= (3 if owner_active else 4) - len(finished):  # every other seat in play passed
            self.top = None
            self.top_owner = -1
            self.passes = 0
            if owner_active:
                self.to_move = owner
            elif self.rules.jiefeng == "any" or owner == self.finished[0]:
                self.to_move = partner(owner)  # 接风
            else:
                self.to_move = self._nxt[owner]
        else:
            self.to_move = self._nxt[seat]
        return ev

    def _finish(self) -> None:
        finished = self.finished
        order = list(finished)
        s = finished[-1]
        for _ in range(3):
            s = (s + 1) % 4
            if s not in order:
                order.append(s)
        first = order[0]
        double_down = order[1] == partner(first)
        place_of_partner = order.index(partner(first))
        upgrade = {1: 3, 2: 2, 3: 1}[place_of_partner]
        self.result = DealResult(tuple(order), double_down, team_of(first), upgrade)
        self.phase = OVER
        self.to_move = -1
        self.top = None
        self.top_owner = -1
        self.passes = 0

    def snapshot(self) -> tuple:
        """Every piece of state as plain values: equal snapshots mean equal states."""
        return (
            self.phase,
            self.to_move,
            tuple(tuple(h) for h in self.hands),
            tuple(self.events),
            tuple(self.actions),
            tuple(self.finished),
            self.top,
            self.top_owner,
            self.passes,
            self.result,
            self.tribute_kind,
            self.resisted_by,
            tuple(self.tributes),
            tuple(self.returns),
            self.leader,
            tuple(self._payers),
            tuple(self._paid),
            tuple(self._returners),
            tuple(self._chosen_returns),
        )


def actions_from_events(events: Iterable[Event]) -> list[tuple[int, Combo | int]]:
    """The (seat, action) list that produced ``events`` (tribute and return events are
    recorded in the order they were chosen)."""
    out: list[tuple[int, Combo | int]] = []
    for ev in events:
        if ev.kind in (TRIBUTE, RETURN):
            out.append((ev.seat, ev.card))
        elif ev.kind == PLAY:
            out.append((ev.seat, ev.combo))
        elif ev.kind == "pass":
            out.append((ev.seat, PASS))
        else:
            raise ValueError(f"unknown event kind {ev.kind!r}")
    return out


def replay(
    setup: DealSetup, actions: Iterable[tuple[int, Combo | int] | Event], *, numbered_from: int = 0
) -> Deal:
    """Rebuild a deal from its setup and its ``actions`` (or its ``events``), verifying each.

    From the dealt hands this reproduces every state exactly: the result's
    ``snapshot()`` equals the original's. Raises ``IllegalActionError`` (with the
    action's index in the message) at the first action that is out of turn or illegal.
    ``numbered_from``: the position that the messages number 0 (a logged deal's first
    play-phase action, its tribute and return cards then negative).
    """
    actions = list(actions)
    if actions and all(isinstance(a, Event) for a in actions):
        actions = actions_from_events(actions)  # type: ignore[arg-type]
    deal = Deal(setup)
    for i, (seat, action) in enumerate(actions, -numbered_from):
        if seat != deal.to_move:
            raise IllegalActionError(
                seat, action, f"action {i}: it is seat {deal.to_move}'s turn, not seat {seat}'s"
            )
        try:
            deal.apply(action)
        except IllegalActionError as exc:
            raise IllegalActionError(seat, action, f"action {i}: {exc.rule}") from None
    return deal

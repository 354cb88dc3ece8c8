"""The two-seat race, solved exactly (rules.md §7, §8, §12).

Once two seats are out, one of each team (two partners out end the deal, §8), the two seats
left are opponents, and each knows the other's hand: its own hand and every card played make
up the 108. The rest of the deal is a race with perfect information: whichever of the two
empties its hand first is 三游, and that decides the upgrade of 上游's team (+2 when its
partner wins the race, +1 when it loses it).

``solve`` decides the race by memoised minimax over (the two hands, the play to beat, who owns
it and the trick's state). The moves are the engine's own ``legal_plays`` (one card choice per
declaration), and ``PASS`` when following; with two seats a pass ends the trick and the owner
of the top play leads again. A top play whose owner went out with it (the trick the second
finisher ended) is passed by both seats before the lead goes where the engine's rules send it
(接风 under ``cgr2022``, the next seat in play under ``jiangsu2017``: ``Position.lead_after``
asks ``Deal`` itself). A node budget (a count of positions expanded) bounds the work; past it,
``solve`` says so (``Result.exceeded``) and never guesses.

>>> from guandan_cli.engine.cards import parse_cards
>>> from guandan_cli.engine.combos import Combo
>>> from guandan_cli.engine.deal import action_text
>>> p = Position.race(parse_cards("S3 S4 SA"), parse_cards("D5 D6"), level=8,
...                   top=Combo.from_text("single:2 D2"))
>>> r = solve(p)
>>> r.win, [action_text(a) for a in r.winning]
(True, ['single:3 S3', 'single:4 S4'])
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from guandan_cli.strategies.heuristic.plan import _choose

from guandan_cli.engine.combos import Combo
from guandan_cli.engine.deal import PASS, PLAY, Deal, DealSetup, Event
from guandan_cli.engine.legal import legal_plays
from guandan_cli.engine.observation import Observation
from guandan_cli.engine.rules import DEFAULT_RULESET, RULESETS, get_ruleset

#: the trick's state, seen by the seat to move (``a``; ``b`` is the other seat): ``LEAD`` no
#: play to beat; ``FOLLOW`` ``b`` owns it (a pass: ``b`` leads); ``OUT_*`` a seat that went out
#: with it owns it, ``*_FIRST`` before either seat passed, ``*_LAST`` after ``b`` passed, and
#: ``*_A`` / ``*_B``: the seat that leads once both have passed
LEAD, FOLLOW, OUT_FIRST_A, OUT_FIRST_B, OUT_LAST_A, OUT_LAST_B = range(6)
#: the default node budget of ``solve`` and of ``search`` (positions expanded: about 0.25 s in pure
#: Python; it decides 92% of the races with 9..12 cards in the smaller hand, 68% with 13..16:
#: scripts/endgame_bench.py, docs/strategies.md)
DEFAULT_NODES = 50_000
#: a solver forgets what it knows when a new budget starts with more positions than this decided
#: (about 600 bytes a position in pure Python: 60 MB)
MEMO_LIMIT = 100_000


class BudgetExceeded(Exception):
    """The node budget ran out before the race was decided (``Solver``)."""


@dataclass(frozen=True)
class Position:
    """A moment of a deal with exactly two seats in play, ``seats[0]`` to move.

    ``hands``: the two seats' hands (sorted faces), in the order of ``seats``; ``finished``:
    the two seats out, in order (one of each team); ``top``/``top_owner``: the play to beat
    and its seat (``None``/-1 for a lead); ``passes``: passes since ``top`` (0 or 1, when its
    owner is out); ``level``: rank index of the deal's level; ``rules``: the ruleset's name.
    A position that no deal reaches raises ``ValueError`` naming the field.

    >>> Position(((1,), (2,)), (0, 1), (2, 3), 0).state()
    ((1,), (2,), None, 0)
    >>> Position(((1,), (2,)), (0, 2), (1, 3), 0)
    Traceback (most recent call last):
    ...
    ValueError: seats (0, 2) are partners: two seats left in a race are opponents (rules.md §8)
    """

    hands: tuple[tuple[int, ...], tuple[int, ...]]
    seats: tuple[int, int]
    finished: tuple[int, int]
    level: int
    top: Combo | None = None
    top_owner: int = -1
    passes: int = 0
    rules: str = DEFAULT_RULESET

    def __post_init__(self) -> None:
        if sorted(self.seats + self.finished) != [0, 1, 2, 3]:
            raise ValueError(f"seats {self.seats} and finished {self.finished} are not the four seats")
        if (self.seats[0] ^ self.seats[1]) == 2:
            raise ValueError(
                f"seats {self.seats} are partners: two seats left in a race are opponents (rules.md §8)"
            )
        if not all(self.hands):
            raise ValueError(f"hands {self.hands}: both seats in play hold cards")
        if not 0 <= self.level <= 12:
            raise ValueError(f"level {self.level!r}: a level is a rank index 0..12 (2..A)")
        if self.rules not in RULESETS:
            raise ValueError(f"rules {self.rules!r}: expected one of {', '.join(sorted(RULESETS))}")
        if (self.top is None) != (self.top_owner == -1) or self.top_owner == self.seats[0]:
            raise ValueError(
                f"top {self.top!r} and top_owner {self.top_owner}: no trick of seat {self.seats[0]}"
            )
        if self.passes not in (0, 1) or (self.passes and self.top_owner not in self.finished):
            raise ValueError(f"passes {self.passes!r}: 0, or 1 when the top play's owner is out")

    @classmethod
    def race(
        cls,
        hand: Iterable[int],
        other: Iterable[int],
        level: int,
        top: Combo | None = None,
        *,
        rules: str = DEFAULT_RULESET,
    ) -> Position:
        """A race between seat 0 (``hand``, to move) and seat 1 (``other``, the owner of
        ``top`` if any), seats 2 and 3 out (2 first: seat 0 is 上游's partner)."""
        owner = -1 if top is None else 1
        return cls((tuple(sorted(hand)), tuple(sorted(other))), (0, 1), (2, 3), level, top, owner, 0, rules)

    @classmethod
    def of_deal(cls, deal: Deal) -> Position | None:
        """The position of a deal in play with two seats left (it reads both hands: for studies
        and tests; a seat's own view is ``of_observation``), else ``None``."""
        if deal.phase != PLAY or len(deal.finished) != 2:
            return None
        a = deal.to_move
        b = next(s for s in range(4) if s != a and s not in deal.finished)
        passes = deal.passes if deal.top_owner in deal.finished else 0
        hands = (tuple(deal.hands[a]), tuple(deal.hands[b]))
        out = (deal.finished[0], deal.finished[1])
        return cls(hands, (a, b), out, deal.level, deal.top, deal.top_owner, passes, deal.rules.name)

    @classmethod
    def of_observation(cls, obs: Observation, rules: str = DEFAULT_RULESET) -> Position | None:
        """The position at ``obs``, a play decision of its seat with two seats left, from what the
        seat sees: the other seat holds the 108 cards less its own hand and every card played.
        ``None`` at any other decision, or when the cards seen do not settle that hand (a study
        dealt fewer than 108 cards). ``rules``: the table's ruleset (no observation says it).
        """
        if obs.phase != PLAY or obs.to_move != obs.seat or len(obs.finished) != 2:
            return None
        a = obs.seat
        b = next(s for s in range(4) if s != a and s not in obs.finished)
        unseen = [2] * 54
        for f in obs.hand:
            unseen[f] -= 1
        for ev in obs.events:
            if ev[0] == PLAY:
                for f in ev[2][2]:
                    unseen[f] -= 1
        if min(unseen) < 0:
            return None
        other = tuple(f for f in range(54) for _ in range(unseen[f]))
        if len(other) != obs.card_counts[b]:
            return None
        passes = 0
        if obs.top_owner in obs.finished:
            for ev in reversed(obs.events):
                if ev[0] != PASS[0]:
                    break
                passes += 1
        hands = (tuple(obs.hand), other)
        out = (obs.finished[0], obs.finished[1])
        return cls(hands, (a, b), out, obs.level, obs.top, obs.top_owner, passes, rules)

    def lead_after(self) -> int:
        """The seat that leads once both seats have passed on a top play whose owner is out
        (接风, §7.2, §12.1), as ``Deal`` decides it.

        >>> from dataclasses import replace
        >>> from guandan_cli.engine.combos import Combo
        >>> p = Position(((4,), (8,)), (2, 3), (0, 1), 0, Combo.from_text("single:A SA"), 1)
        >>> p.lead_after(), replace(p, rules="jiangsu2017").lead_after()
        (3, 2)
        """
        hands: list[tuple[int, ...]] = [(), (), (), ()]
        for s, h in zip(self.seats, self.hands):
            hands[s] = h
        events = [Event(PLAY, self.top_owner, self.top)] + [Event(PASS[0], self.seats[1])] * self.passes
        setup = DealSetup(hands=tuple(hands), level=self.level, rules=get_ruleset(self.rules))
        deal = Deal.from_position(
            setup,
            events,
            to_move=self.seats[0],
            finished=self.finished,
            top=self.top,
            top_owner=self.top_owner,
            check=False,
        )
        while deal.top is not None:
            deal.apply_unchecked(PASS)
        return deal.to_move

    def state(self) -> tuple:
        """The solver's state: (the hand to move, the other hand, the play to beat, the trick's
        state ``LEAD``, ``FOLLOW`` or ``OUT_*``)."""
        a, b = self.hands
        if self.top is None:
            return a, b, None, LEAD
        if self.top_owner == self.seats[1]:
            return a, b, self.top, FOLLOW
        leader_is_a = self.lead_after() == self.seats[0]
        if self.passes:
            return a, b, self.top, OUT_LAST_A if leader_is_a else OUT_LAST_B
        return a, b, self.top, OUT_FIRST_A if leader_is_a else OUT_FIRST_B

    def levels(self, wins: bool) -> int:
        """The deal's outcome in levels for the team of the seat to move when it ``wins`` the
        race or not (§8; the unit of ``compare`` and the rollouts: the upgrade, negative when
        the other team goes up).

        >>> p = Position(((1,), (2,)), (0, 1), (2, 3), 0)
        >>> p.levels(True), p.levels(False), Position(((1,), (2,)), (1, 0), (2, 3), 0).levels(True)
        (2, 1, -1)
        """
        first = self.finished[0] & 1
        if self.seats[0] & 1 == first:
            return 2 if wins else 1
        return -1 if wins else -2


@dataclass(frozen=True)
class Result:
    """What ``solve`` found: ``win`` (the seat to move wins the race; ``None`` when the node
    budget ran out), ``moves`` (each legal move, in the engine's order, with whether it wins;
    empty when the budget ran out) and ``nodes`` (positions expanded).
    """

    win: bool | None
    moves: tuple[tuple[object, bool], ...]
    nodes: int

    @property
    def exceeded(self) -> bool:
        return self.win is None

    @property
    def winning(self) -> tuple:
        """The winning moves, in the engine's order (empty when losing or unknown)."""
        return tuple(a for a, w in self.moves if w)


def _top_key(combo: Combo) -> tuple[str, int, int]:
    """What of a play its followers see: type, key and size (its cards have left the game)."""
    return combo[0], combo[1], len(combo[2])


def _minus(hand: tuple[int, ...], cards: tuple[int, ...]) -> tuple[int, ...]:
    rest = list(hand)
    for f in cards:
        rest.remove(f)
    return tuple(rest)


class Solver:
    """Memoised minimax of two-seat races at one ``level`` (module docstring).

    The memo lasts as long as the solver, so one solver serves the successive decisions of a
    deal. ``budget`` bounds the positions expanded since the last ``start()``
    (``BudgetExceeded`` past it); ``nodes`` counts them. Every memo entry is exact, so a search
    cut short leaves nothing wrong behind. The order in which moves are tried changes only
    the speed: plays that go out first, then by the heuristic's plan cost of the cards left
    (its estimate of how hard they are to play out), the pass last; a move that won before
    with the same hand and the same choices is tried first (a killer move).
    """

    def __init__(self, level: int, budget: int = DEFAULT_NODES) -> None:
        self.level = level
        self.budget = budget
        self.nodes = 0
        #: (hand to move, other hand, its moves' number, trick state[, top key when its owner is
        #: out]) -> whether the seat to move wins
        self.memo: dict[tuple, bool] = {}
        #: (hand, top key) -> (the moves' number, ((play, top key, cards left), ...)): ``moves``
        self.listed: dict[tuple, tuple] = {}
        #: each list of moves met -> its number
        self.numbers: dict[tuple, int] = {}
        #: (hand, its moves' number, moves with the pass) -> the index of the move that last won
        #: there (the number of plays: the pass)
        self.killer: dict[tuple, int] = {}
        #: hand -> the heuristic's plan cost of it
        self.costs: dict[tuple, float] = {}

    def start(self, budget: int | None = None) -> None:
        """A fresh budget (``budget`` positions, default the solver's); the memo is emptied
        first when it holds more than ``MEMO_LIMIT`` positions."""
        self.nodes = 0
        if budget is not None:
            self.budget = budget
        if len(self.memo) > MEMO_LIMIT:
            for table in (self.memo, self.listed, self.numbers, self.killer, self.costs):
                table.clear()

    def cost(self, hand: tuple[int, ...]) -> float:
        """The heuristic's plan cost of ``hand`` (-inf for no cards: going out first)."""
        c = self.costs.get(hand)
        if c is None:
            c = self.costs[hand] = _choose(hand, self.level)[0] if hand else -math.inf
        return c

    def moves(self, hand: tuple[int, ...], top: Combo | None, top_key: tuple | None = None) -> tuple:
        """``(number, moves)``: the plays of ``hand`` against ``top`` (``top_key`` its
        ``_top_key``) as (play, its top key, cards left), in the order they are tried; equal
        lists of moves get equal numbers (a follower's moves are all its play to beat changes)."""
        if top_key is None and top is not None:
            top_key = _top_key(top)
        key = (hand, top_key)
        entry = self.listed.get(key)
        if entry is None:
            plays = [(c, _top_key(c), _minus(hand, c[2])) for c in legal_plays(hand, self.level, top)]
            cost = self.cost
            plays.sort(key=lambda m: cost(m[2]))
            number = self.numbers.setdefault(tuple(m[0] for m in plays), len(self.numbers))
            entry = self.listed[key] = (number, tuple(plays))
        return entry

    def wins(
        self, a: tuple[int, ...], b: tuple[int, ...], top: Combo | None, state: int, top_key=None
    ) -> bool:
        """Whether the seat holding ``a``, to move, wins the race against ``b`` (``state``: ``LEAD``,
        ``FOLLOW`` or ``OUT_*``, the trick's state; ``top_key``: ``top``'s, if known)."""
        if top_key is None and top is not None:
            top_key = _top_key(top)
        entry = self.listed.get((a, top_key))
        number, moves = self.moves(a, top, top_key) if entry is None else entry
        # a pass on a finisher's play leaves it to the other seat: then the play itself matters
        memo_key = (a, b, number, state) if state <= FOLLOW else (a, b, number, state, top_key)
        known = self.memo.get(memo_key)
        if known is not None:
            return known
        self.nodes += 1
        if self.nodes > self.budget:
            raise BudgetExceeded(f"more than {self.budget} positions")
        win = bool(moves) and not moves[0][2]
        if not win:
            n = len(moves)
            tried = n + (state != LEAD)  # the pass, when allowed, is move n
            killer_key = (a, number, tried)
            first = self.killer.get(killer_key)
            order = range(tried) if not first else (first, *range(first), *range(first + 1, tried))
            wins = self.wins
            for i in order:
                if i == n:
                    win = self.wins_after_pass(a, b, top, state)
                else:
                    c, k, rest = moves[i]
                    win = not wins(b, rest, c, FOLLOW, k)
                if win:
                    self.killer[killer_key] = i
                    break
        self.memo[memo_key] = win
        return win

    def wins_after_pass(self, a: tuple[int, ...], b: tuple[int, ...], top: Combo | None, state: int) -> bool:
        """Whether the seat holding ``a`` wins when it passes (``state`` is not ``LEAD``)."""
        if state == FOLLOW or state == OUT_LAST_B:
            return not self.wins(b, a, None, LEAD)
        if state == OUT_LAST_A:
            return self.wins(a, b, None, LEAD)
        return not self.wins(b, a, top, OUT_LAST_B if state == OUT_FIRST_A else OUT_LAST_A)

    def wins_after(self, position: Position, action: Combo, state: tuple | None = None) -> bool:
        """Whether the seat to move at ``position`` wins the race after ``action`` (a legal play
        or ``PASS``; not checked: ``Deal.verify`` does that). ``state``: ``position.state()``,
        if known."""
        a, b, top, trick = position.state() if state is None else state
        if action == PASS:
            if trick == LEAD:
                raise ValueError("the leader must play (rules.md §7)")
            return self.wins_after_pass(a, b, top, trick)
        rest = _minus(a, action[2])
        return not rest or not self.wins(b, rest, action, FOLLOW)

    def winning_move(self, position: Position, prefer: Combo | None = None) -> Combo | None:
        """A move that wins the race at ``position``: ``prefer`` if it wins, else the first
        that wins in the order moves are tried (the pass last); ``None`` when every move loses."""
        state = position.state()
        if prefer is not None and self.wins_after(position, prefer, state):
            return prefer
        a, _b, top, _trick = state
        for play, _key, _rest in self.moves(a, top)[1]:
            if play != prefer and self.wins_after(position, play, state):
                return play
        if top is not None and prefer != PASS and self.wins_after(position, PASS, state):
            return PASS
        return None


def legal_moves(position: Position) -> tuple:
    """The legal actions of the seat to move, as ``Deal.legal_actions`` lists them (plays, then
    ``PASS`` when following)."""
    plays = tuple(legal_plays(position.hands[0], position.level, position.top))
    return plays if position.top is None else (*plays, PASS)


def solve(position: Position, node_budget: int = DEFAULT_NODES, solver: Solver | None = None) -> Result:
    """Decide the race at ``position``: whether the seat to move wins and which of its legal
    moves win, expanding at most ``node_budget`` positions (``Result.exceeded`` past that).
    ``solver``: one at the position's level whose memo to use and keep (default a new one).

    >>> from guandan_cli.engine.cards import parse_cards
    >>> from guandan_cli.engine.deal import action_text
    >>> r = solve(Position.race(parse_cards("S3 S4 D4"), parse_cards("SA"), level=0))
    >>> r.win, [action_text(a) for a in r.winning], r.nodes
    (True, ['pair:4 S4 D4'], 4)
    >>> solve(Position.race(parse_cards("S3 S4 D4"), parse_cards("SA"), level=0), node_budget=1).exceeded
    True
    """
    if solver is None:
        solver = Solver(position.level)
    elif solver.level != position.level:
        raise ValueError(f"a solver at level {solver.level} cannot solve a race at level {position.level}")
    solver.start(node_budget)
    state = position.state()
    try:
        moves = tuple((m, solver.wins_after(position, m, state)) for m in legal_moves(position))
    except BudgetExceeded:
        return Result(None, (), solver.nodes)
    return Result(any(w for _m, w in moves), moves, solver.nodes)

"""`search`: determinized rollouts over the heuristic (the algorithm: docs/strategies.md).

At each play decision with a choice, ``SearchStrategy`` asks the heuristic for its move,
lists a few candidate moves around it (``candidate_actions``), draws worlds consistent
with what its seat has seen (``worlds.Knowledge``), plays each candidate out in each
world with the heuristic at all four seats (``rollout.Rollouts``) and races the
candidates on the same worlds; a close call between the best candidate and the
heuristic's move gets more worlds (the duel). It leaves the heuristic's move only for a
candidate whose paired gain over it is significant. Every draw of its own play comes from the
seat's ``rng``; an evaluation (``evaluate``: reviews and hints) draws its worlds from a seed derived
from the position and an explicit ``seed`` (``world_rng``). Budgets are counts (worlds,
candidates), never time.

>>> import random
>>> from guandan_cli.engine import deal_hands
>>> from guandan_cli.engine.deal import Deal, DealSetup
>>> from guandan_cli.engine.observation import observe
>>> obs = observe(Deal(DealSetup(hands=deal_hands(random.Random(1)), level=0, first_leader=0)), 0)
>>> bot = SearchStrategy(0, random.Random(5), worlds=4)
>>> values = bot.evaluate(obs, obs.legal_actions[:2])
>>> [v.n for v in values], values[0].gain
([4, 4], 0.0)
>>> values[1].low <= values[1].mean <= values[1].high and -3 <= values[1].mean <= 3
True
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar

from guandan_cli.strategies.heuristic import HeuristicStrategy
from guandan_cli.strategies.heuristic.plan import BOMB_TYPES, _make_plan, combo_signature, group_signature

from guandan_cli.engine.combos import BOMB_CLASS, POWER, SEQUENCE_TYPES, Combo, bomb_value
from guandan_cli.engine.deal import PASS, PLAY, DealSetup, IllegalActionError, action_text
from guandan_cli.engine.observation import Observation
from guandan_cli.engine.rules import get_ruleset
from guandan_cli.engine.seeding import position_seed

from ..base import Strategy
from .endgame import DEFAULT_NODES, BudgetExceeded, Position, Solver
from .inference import Explainer
from .rollout import Rollouts
from .worlds import Knowledge

#: the two-sided 95% normal quantile (intervals of means over worlds)
Z95 = 1.959963984540054


@dataclass(frozen=True)
class ActionValue:
    """The value of one action in levels for the seat's team (``compare``'s unit), over ``n`` worlds.

    ``mean`` and its 95% interval ``low``..``high``; ``gain`` is the mean paired difference
    against the first action evaluated (the same worlds), ``gain_low``..``gain_high`` its
    95% interval (``0.0`` for the first action itself). Intervals are normal ones over
    worlds (``nan`` with fewer than 2 worlds). ``exact``: the value is the race's outcome
    with both seats left playing perfectly (``endgame.py``: two seats in play, each knowing
    the other's hand), its intervals of zero width and ``n`` 1, the one world there is.
    ``outcomes``: how many of the worlds ended with each value from −3 to +3 levels (seven
    counts: −3 is a double-down against the seat's team, +3 one for it; a value above 0 means
    its team went out first), from the same rollouts; empty when not counted.
    """

    action: object
    mean: float
    low: float
    high: float
    n: int
    gain: float
    gain_low: float
    gain_high: float
    exact: bool = False
    outcomes: tuple[int, ...] = ()

    def text(self) -> str:
        """One line: the action, its mean and interval, its gain and interval.

        >>> ActionValue(PASS, 0.5, 0.1, 0.9, 8, -0.25, -0.5, 0.0).text()
        'pass  +0.50 [+0.10, +0.90]  gain -0.25 [-0.50, +0.00]  n=8'
        >>> ActionValue(PASS, 1.0, 1.0, 1.0, 1, -1.0, -1.0, -1.0, exact=True).text()
        'pass  +1.00 exact  gain -1.00'
        """
        if self.exact:
            return f"{action_text(self.action)}  {self.mean:+.2f} exact  gain {self.gain:+.2f}"
        return (
            f"{action_text(self.action)}  {self.mean:+.2f} [{self.low:+.2f}, {self.high:+.2f}]"
            f"  gain {self.gain:+.2f} [{self.gain_low:+.2f}, {self.gain_high:+.2f}]  n={self.n}"
        )


def mean_se(xs: Sequence[float]) -> tuple[float, float]:
    """The mean of ``xs`` and its standard error (``nan`` for fewer than 2 values).

    >>> mean_se([1, 3])
    (2.0, 1.0)
    """
    n = len(xs)
    m = sum(xs) / n
    if n < 2:
        return m, math.nan
    var = sum((x - m) ** 2 for x in xs) / (n - 1)
    return m, math.sqrt(var / n)


def outcome_counts(values: Sequence[int]) -> tuple[int, ...]:
    """How many of ``values`` (deal outcomes in levels, −3..+3) are each of −3, −2, …, +3.

    >>> outcome_counts([3, -1, -1, 2])
    (0, 0, 2, 0, 0, 1, 1)
    """
    counts = [0] * 7
    for v in values:
        counts[int(v) + 3] += 1
    return tuple(counts)


def _key(a: Combo, lv: int) -> int:
    return a[1] if a[0] in SEQUENCE_TYPES else POWER[lv][a[1]]


def candidate_actions(obs: Observation, choice: object, cap: int) -> list:
    """At most ``cap`` plays worth searching at ``obs``, the heuristic's ``choice`` first.

    Then ``PASS`` when following; then the plays of the groups of the heuristic's plan of
    the hand (bombs apart), a lead's in the order the heuristic would lead them (lowest
    key first, longer groups earlier), a follow's by key; then, outside the plan, a
    lead's lowest play of each type and a follow's two cheapest answers; then the lowest
    bomb and the planned bombs.
    """
    lv = obs.level
    following = obs.top is not None
    out = [choice]
    seen = {choice}

    def add(a: object) -> None:
        if a not in seen and len(out) < cap:
            seen.add(a)
            out.append(a)

    if following:
        add(PASS)
    plays = [a for a in obs.legal_actions if a is not PASS]
    if not plays:
        return out
    plan = _make_plan(tuple(obs.hand), lv)
    planned_sigs = {group_signature(g): g for g in plan.groups}
    planned: list[tuple[float, Combo]] = []
    unplanned: list[Combo] = []
    firsts: set[tuple] = set()
    for a in plays:
        if a[0] in BOMB_CLASS:
            continue
        sig = combo_signature(a, lv)
        g = planned_sigs.get(sig)
        if g is not None and g.type not in BOMB_TYPES:
            if sig not in firsts:
                firsts.add(sig)
                score = _key(a, lv) - (0.0 if following else 0.6 * (len(a[2]) - 1))
                planned.append((score, a))
        else:
            unplanned.append(a)
    for _score, a in sorted(planned, key=lambda sa: sa[0]):
        add(a)
    if following:
        for a in sorted(unplanned, key=lambda a: (_key(a, lv), a[2].count(lv * 4 + 1)))[:2]:
            add(a)
    else:
        lowest: dict[str, Combo] = {}
        for a in unplanned:
            best = lowest.get(a[0])
            if best is None or (_key(a, lv), a[2].count(lv * 4 + 1)) < (
                _key(best, lv),
                best[2].count(lv * 4 + 1),
            ):
                lowest[a[0]] = a
        for a in sorted(lowest.values(), key=lambda a: (_key(a, lv), -len(a[2]))):
            add(a)
    bombs = [a for a in plays if a[0] in BOMB_CLASS]
    if bombs:
        add(min(bombs, key=lambda a: (bomb_value(a, lv), len(a[2]))))
        for a in bombs:
            if combo_signature(a, lv) in planned_sigs:
                add(a)
    return out


def world_rng(obs: Observation, seed: int = 0) -> random.Random:
    """The generator of the worlds an evaluation of ``obs`` draws: seeded from the position's
    content (``engine.seeding.position_seed``) and ``seed``, so that the same decision gets the
    same values however it is reached (a hint asked twice, a review of one deal or of a match,
    after a resume)."""
    return random.Random(position_seed(obs, "worlds", seed))


class WorldDraws:
    """Draws the worlds of one decision as rollout setups, counting them."""

    def __init__(
        self,
        obs: Observation,
        knowledge: Knowledge,
        rng: random.Random,
        setup_of: Callable[[Observation, tuple], DealSetup],
        explain: Callable[[int, tuple[int, ...]], int] | None,
        tries: int,
    ) -> None:
        self.obs = obs
        self.knowledge = knowledge
        self.rng = rng
        self.setup_of = setup_of
        self.explain = explain
        self.tries = tries
        self.drawn = 0

    def __call__(self) -> DealSetup:
        self.drawn += 1
        return self.setup_of(self.obs, self.knowledge.sample(self.rng, self.explain, self.tries))


class SearchStrategy(Strategy):
    """Determinized rollouts over the heuristic (module docstring; options as class attributes
    or keyword arguments: ``SearchStrategy(seat, rng, worlds=16)``).

    Options: ``worlds`` (most worlds per decision), ``candidates`` (most candidate moves),
    ``first`` (worlds of the first round of the race), ``batch`` (worlds per later round),
    ``drop`` (a candidate leaves the race when its paired gain against the leader is below
    ``-drop`` standard errors), ``gate`` (the heuristic's move is left only for a gain above
    ``gate`` standard errors), ``duel`` (most worlds in all when the race's best move and the
    heuristic's are played on alone while the best one's gain is positive but below ``sure``
    standard errors; at most ``worlds``: no duel), ``caps`` (apply the tribute caps to the worlds),
    ``explain`` (weigh worlds by the other seats' last ``explain`` moves, 0: off) and
    ``tries`` (draws per seat when weighing), ``objective`` (``levels`` or ``wins``),
    ``rules`` (the ruleset name of the rollouts and of the two-seat race), ``endgame_nodes``
    (with two seats left, the node budget of the exact race, ``endgame.py``; 0: off). The
    defaults (32 worlds, a duel up to 64, 8 candidates, gate 1) and how they were chosen:
    docs/strategies.md.
    """

    name: ClassVar[str] = "search"
    worlds: ClassVar[int] = 32
    candidates: ClassVar[int] = 8
    first: ClassVar[int] = 8
    batch: ClassVar[int] = 8
    drop: ClassVar[float] = 2.0
    gate: ClassVar[float] = 1.0
    duel: ClassVar[int] = 64
    sure: ClassVar[float] = 2.0
    caps: ClassVar[bool] = True
    explain: ClassVar[int] = 0
    tries: ClassVar[int] = 8
    objective: ClassVar[str] = "levels"
    rules: ClassVar[str] = "cgr2022"
    endgame_nodes: ClassVar[int] = DEFAULT_NODES

    #: the options a spec or keyword argument may set, with their types
    OPTIONS: ClassVar[dict[str, type]] = {
        "worlds": int,
        "candidates": int,
        "first": int,
        "batch": int,
        "drop": float,
        "gate": float,
        "duel": int,
        "sure": float,
        "caps": bool,
        "explain": int,
        "tries": int,
        "objective": str,
        "rules": str,
        "endgame_nodes": int,
    }

    def __init__(self, seat: int, rng: random.Random | None = None, **options: object) -> None:
        super().__init__(seat, rng)
        for key, value in options.items():
            if key not in self.OPTIONS:
                raise TypeError(f"SearchStrategy has no option {key!r} (options: {', '.join(self.OPTIONS)})")
            setattr(self, key, value)
        #: the heuristic at this seat, following the real deal (its moves are the reference)
        self.policy = HeuristicStrategy(seat, self.rng)
        self.rollouts = Rollouts(get_ruleset(self.rules), self.objective)
        self.explainer = Explainer(self.rollouts.rules)
        #: decisions searched (statistics for bench and reports; ``rollouts.count`` counts rollouts)
        self.searched = 0
        #: the two-seat race solver of this deal (its memo serves the deal's later decisions)
        self.endgame: Solver | None = None
        #: two-seat decisions (and evaluations) the solver settled, and those past its budget
        self.solved = 0
        self.unsolved = 0

    def start_deal(self, deal_index: int, obs: Observation) -> None:
        self.endgame = None
        self.policy.start_deal(deal_index, obs)

    def choose_tribute(self, obs: Observation) -> int:
        return self.policy.choose_tribute(obs)

    def choose_return(self, obs: Observation) -> int:
        return self.policy.choose_return(obs)

    def choose_play(self, obs: Observation) -> object:
        choice = self.policy.choose_play(obs)
        if len(choice[2]) == len(obs.hand):
            return choice  # goes out
        if obs.top is not None and obs.only_legal_action() is not None:
            return choice
        won = self._winning_move(obs, choice)
        if won is not None:
            return won
        cands = candidate_actions(obs, choice, self.candidates)
        if len(cands) == 1:
            return choice
        self.searched += 1
        return cands[self._race(obs, cands)]

    # ------------------------------------------------------------ two seats left: exact

    def _race_position(self, obs: Observation) -> Position | None:
        """The two-seat race at ``obs`` (``endgame.Position``), or ``None`` (more seats in play,
        the solver off, or a study whose cards do not settle the other hand)."""
        if not self.endgame_nodes or len(obs.finished) != 2:
            return None
        return Position.of_observation(obs, self.rules)

    def _solver(self, position: Position) -> Solver:
        """This deal's solver at ``position``'s level, with a fresh budget of ``endgame_nodes``."""
        solver = self.endgame
        if solver is None or solver.level != position.level:
            solver = self.endgame = Solver(position.level)
        solver.start(self.endgame_nodes)
        return solver

    def _winning_move(self, obs: Observation, choice: object) -> object | None:
        """A move that wins the two-seat race at ``obs``: the heuristic's ``choice`` if it does,
        else the first the solver finds. ``None`` when more seats hold cards, when every move
        loses (the race of the rollouts then picks the best hope against the heuristic) or when
        the node budget runs out (the rollouts decide, as before)."""
        position = self._race_position(obs)
        if position is None:
            return None
        try:
            move = self._solver(position).winning_move(position, choice)
        except BudgetExceeded:
            self.unsolved += 1
            return None
        self.solved += 1
        return move

    def _exact_values(self, obs: Observation, actions: list) -> list[ActionValue] | None:
        """``evaluate``'s values when two seats are left and the solver decides every action
        within its budget (``ActionValue.exact``), else ``None``; an illegal action raises
        ``ValueError`` naming it. A fresh solver (no memo of earlier calls), so that whether
        the budget suffices depends on the position only."""
        position = self._race_position(obs)
        if position is None:
            return None
        hands: list[tuple[int, ...]] = [(), (), (), ()]
        for seat, hand in zip(position.seats, position.hands):
            hands[seat] = hand
        deal = self.rollouts.position(obs, self.rollouts.world_setup(obs, tuple(hands)))
        for a in actions:
            try:
                deal.verify(a)
            except IllegalActionError as exc:
                raise ValueError(f"action {action_text(a)!r} is not legal here: {exc.rule}") from None
        solver = Solver(position.level)
        solver.start(self.endgame_nodes)
        state = position.state()
        try:
            wins = [solver.wins_after(position, a, state) for a in actions]
        except BudgetExceeded:
            self.unsolved += 1
            return None
        self.solved += 1
        levels = [position.levels(w) for w in wins]
        values = levels if self.rollouts.by_levels else [1 if v > 0 else -1 for v in levels]
        self._last_values = [[v] for v in values]
        return [
            ActionValue(
                a,
                v,
                v,
                v,
                1,
                v - values[0],
                v - values[0],
                v - values[0],
                exact=True,
                outcomes=outcome_counts([v]),
            )
            for a, v in zip(actions, values)
        ]

    # ------------------------------------------------------------ the race

    def _sampler(self, obs: Observation, rng: random.Random) -> WorldDraws:
        """The worlds of one decision (``worlds.Knowledge``, weighed by ``inference`` if asked)."""
        explain = self.explainer.bind(obs, self.explain) if self.explain else None
        return WorldDraws(
            obs, Knowledge.of(obs, self.caps), rng, self.rollouts.world_setup, explain, self.tries
        )

    def _race(self, obs: Observation, cands: list) -> int:
        """The index of the candidate to play (0, the heuristic's, unless another is
        significantly better on the same worlds)."""
        draw = self._sampler(obs, self.rng)
        limit = 1 if draw.knowledge.determined else self.worlds
        values: list[list[int]] = [[] for _ in cands]
        alive = list(range(len(cands)))
        value = self.rollouts.value
        n = 0
        while n < limit and len(alive) > 1:
            for _ in range(min(self.batch if n else self.first, limit - n)):
                setup = draw()
                for i in alive:
                    values[i].append(value(obs, setup, cands[i]))
                n += 1
            if n == 1:
                break
            alive = self._survivors(values, alive)
        means = {i: sum(values[i]) / n for i in alive}
        best = max(alive, key=lambda i: (means[i], i == 0, -i))
        if best == 0:
            return 0
        gain, se = mean_se([x - y for x, y in zip(values[best], values[0])])
        if limit > 1:
            gain, se = self._duel(obs, draw, cands, values, best, (gain, se))
        if gain > 0 and (n == 1 or gain > self.gate * se):
            return best
        return 0

    def _duel(
        self, obs: Observation, draw: WorldDraws, cands: list, values: list[list[int]], best: int, gain_se
    ) -> tuple[float, float]:
        """More worlds for the best candidate and the heuristic's move alone while the best
        one's paired gain is positive but below ``sure`` standard errors, up to ``duel`` worlds
        in all; the gain and its standard error at the end."""
        gain, se = gain_se
        value = self.rollouts.value
        mine, theirs = values[0], values[best]
        while len(mine) < self.duel and 0 < gain <= self.sure * se:
            for _ in range(min(self.batch, self.duel - len(mine))):
                setup = draw()
                mine.append(value(obs, setup, cands[0]))
                theirs.append(value(obs, setup, cands[best]))
            gain, se = mean_se([x - y for x, y in zip(theirs, mine)])
        return gain, se

    def _survivors(self, values: list[list[int]], alive: list[int]) -> list[int]:
        """The candidates still in the race: the heuristic's always, the others unless their
        paired gain against the leader is significantly negative."""
        n = len(values[alive[0]])
        lead = max(alive, key=lambda i: (sum(values[i]), i == 0))
        keep = []
        for i in alive:
            if i == 0 or i == lead:
                keep.append(i)
                continue
            diffs = [x - y for x, y in zip(values[i], values[lead])]
            gain, se = mean_se(diffs)
            if gain + self.drop * se >= 0 and not (se == 0 and gain == 0 and n >= 2 * self.first):
                keep.append(i)
        return keep

    # ------------------------------------------------------------ evaluation (review)

    def candidates_at(self, obs: Observation) -> list:
        """The candidates the search would race at ``obs``, the move of a fresh heuristic first
        (one that has seen only this observation: what ``evaluate`` values by default)."""
        fresh = HeuristicStrategy(obs.seat)
        fresh.start_deal(0, obs)
        return candidate_actions(obs, fresh.choose_play(obs), self.candidates)

    def continuation(
        self,
        obs: Observation,
        action: object,
        plays: int = 6,
        *,
        rng: random.Random | None = None,
        seed: int = 0,
    ) -> list[tuple[int, object]]:
        """The next ``plays`` actions ``(seat, action)`` after ``action`` at ``obs``, the heuristic
        playing on in one world: the first world an evaluation at ``seed`` draws (``rng``: another
        generator), so the continuations of two actions are in the same world. An illegal
        action raises ``ValueError`` naming it."""
        from guandan_cli.engine.play import play_deal

        draw = self._sampler(obs, rng if rng is not None else world_rng(obs, seed))
        deal = self.rollouts.position(obs, draw())
        try:
            deal.apply(action)
        except IllegalActionError as exc:
            raise ValueError(f"action {action_text(action)!r} is not legal here: {exc.rule}") from None
        if deal.result is None:
            for p in self.rollouts.players:
                p.start_deal(0, obs)
            play_deal(deal, self.rollouts.players)
        return list(deal.actions[1 : 1 + plays])

    def evaluate(
        self,
        obs: Observation,
        actions: Sequence[object] | None = None,
        *,
        worlds: int | None = None,
        rng: random.Random | None = None,
        seed: int = 0,
    ) -> list[ActionValue]:
        """The value of each action at ``obs`` (a play decision of ``obs.seat``), all on the
        same ``worlds`` worlds (default: the ``worlds`` option), in the order given.

        ``actions`` default to the candidates the search would race (the heuristic's move
        first, asked of a fresh heuristic); any legal play or ``PASS`` may be listed (an
        illegal one raises ``ValueError`` naming it). The worlds are drawn by ``rng``, by
        default one seeded from the position and ``seed`` (:func:`world_rng`: the same
        observation gets the same values, whatever this player did before). Gains are paired differences against the first action. With two seats
        left and the race decided within ``endgame_nodes``, the values are exact (no worlds
        drawn: ``ActionValue.exact``).
        """
        if obs.phase != PLAY or obs.to_move != obs.seat:
            raise ValueError(f"evaluate needs a play decision of seat {obs.seat} (phase {obs.phase!r})")
        rng = rng if rng is not None else world_rng(obs, seed)
        n = self.worlds if worlds is None else worlds
        if n < 1:
            raise ValueError(f"worlds must be 1 or more, got {n}")
        actions = list(self.candidates_at(obs) if actions is None else actions)
        if not actions:
            raise ValueError("evaluate needs at least one action")
        exact = self._exact_values(obs, actions)
        if exact is not None:
            return exact
        draw = self._sampler(obs, rng)
        rollouts = self.rollouts
        values: list[list[int]] = [[] for _ in actions]
        for w in range(n):
            setup = draw()
            for i, a in enumerate(actions):
                try:
                    values[i].append(rollouts.value(obs, setup, a, checked=w == 0))
                except IllegalActionError as exc:
                    raise ValueError(f"action {action_text(a)!r} is not legal here: {exc.rule}") from None
        self._last_values = values
        out = []
        for a, xs in zip(actions, values):
            m, se = mean_se(xs)
            gain, gse = mean_se([x - y for x, y in zip(xs, values[0])])
            out.append(
                ActionValue(
                    a,
                    m,
                    m - Z95 * se,
                    m + Z95 * se,
                    n,
                    gain,
                    gain - Z95 * gse,
                    gain + Z95 * gse,
                    outcomes=outcome_counts(xs),
                )
            )
        return out

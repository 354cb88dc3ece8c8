"""A small determinized-rollout evaluator with the search bot's evaluation contract.

It stands in for ``guandan_cli.strategies.search`` (issue 27) where that is not installed:
the same API (``evaluate(obs, actions=None) -> list[ActionValue]``), the same method in its
simplest form, none of the search's craft (no world weighting, no racing, no endgame
enumeration).

A *world* deals the cards the seat has not seen (two decks less its hand, every card played,
and the tribute and return cards it saw go to the seat that received them) at random to the
other seats, each getting as many as it holds. In each world every action is applied to the
deal as it stands and the deal is played out with the ``heuristic`` at all four seats; the
value is the deal's outcome for the seat's team in levels (+1..+3 up, −1..−3 when the
opponents go up). Every action sees the same worlds.

>>> import random
>>> from guandan_cli.engine import deal_hands
>>> from guandan_cli.engine.deal import Deal, DealSetup
>>> from guandan_cli.engine.observation import observe
>>> obs = observe(Deal(DealSetup(hands=deal_hands(random.Random(1)), level=0, first_leader=2)), 2)
>>> values = RolloutEvaluator(2, random.Random(0), worlds=2).evaluate(obs)
>>> all(-3 <= v.mean <= 3 and v.n == 2 for v in values)
True
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

from guandan_cli.engine.combos import BOMB_CLASS, Combo
from guandan_cli.engine.deal import PASS, PLAY, RETURN, TRIBUTE, Deal, DealSetup
from guandan_cli.engine.observation import Observation
from guandan_cli.engine.play import play_deal
from guandan_cli.engine.rules import DEFAULT_RULESET, Ruleset, get_ruleset

from .values import PairedActionValue, mean_interval, paired_difference

#: every face twice (two decks)
_DECK = Counter({f: 2 for f in range(54)})


def unseen_cards(obs: Observation) -> tuple[list[int], dict[int, list[int]]]:
    """``(unseen, known)``: the cards ``obs.seat`` has not seen (sorted), and per other seat the
    cards it is known to hold (tribute and return cards it received and has not played since)."""
    played: dict[int, Counter] = {s: Counter() for s in range(4)}
    received: dict[int, Counter] = {s: Counter() for s in range(4)}
    given: dict[int, Counter] = {s: Counter() for s in range(4)}
    for ev in obs.events:
        if ev.kind == PLAY:
            played[ev.seat].update(ev.combo.cards)
        elif ev.kind in (TRIBUTE, RETURN):
            received[ev.to][ev.card] += 1
            given[ev.seat][ev.card] += 1
    known = {}
    for s in range(4):
        if s != obs.seat:
            held = received[s] - given[s] - played[s]
            known[s] = sorted(held.elements())
    rest = _DECK - Counter(obs.hand)
    for s in range(4):
        rest -= played[s]
    for cards in known.values():
        rest -= Counter(cards)
    return sorted(rest.elements()), known


def sample_world(obs: Observation, rng: random.Random) -> list[list[int]]:
    """The four current hands of one world: ``obs.seat``'s own, the others dealt at random from
    the unseen cards (each seat's known cards kept) to their card counts. (In an end-game study
    with fewer than 108 cards dealt the rest of the unseen cards are out of the deal.)"""
    unseen, known = unseen_cards(obs)
    need = {s: obs.card_counts[s] - len(known[s]) for s in known}
    if any(n < 0 for n in need.values()) or sum(need.values()) > len(unseen):  # pragma: no cover
        raise ValueError(f"seat {obs.seat}'s observation does not add up: {len(unseen)} unseen cards")
    rng.shuffle(unseen)
    hands: list[list[int]] = [[], [], [], []]
    hands[obs.seat] = list(obs.hand)
    i = 0
    for s in sorted(known):
        hands[s] = known[s] + unseen[i : i + need[s]]
        i += need[s]
    return hands


def world_deal(obs: Observation, hands: Sequence[Sequence[int]], rules: Ruleset) -> Deal:
    """The deal as ``obs`` shows it, with these current ``hands``: its play replayed from the
    start of play (each seat's hand then: its current hand and the cards it played since)."""
    plays = [ev for ev in obs.events if ev.kind in (PLAY, "pass")]
    start = [list(h) for h in hands]
    for ev in plays:
        if ev.kind == PLAY:
            start[ev.seat] += ev.combo.cards
    leader = plays[0].seat if plays else obs.to_move
    setup = DealSetup(
        hands=tuple(tuple(sorted(h)) for h in start),
        level=obs.level,
        levels=obs.levels,
        level_team=obs.level_team,
        first_leader=leader,
        rules=rules,
    )
    deal = Deal(setup, check=False)
    for ev in plays:
        deal.apply_unchecked(ev.combo if ev.kind == PLAY else PASS)
    return deal


def default_candidates(obs: Observation, heuristic_choice: object, cap: int = 8) -> list:
    """At most ``cap`` actions worth a look: the heuristic's choice, PASS when following, the
    cheapest play of each type (greedy's order; the bomb class counts as one type), each once."""
    from guandan_cli.strategies.greedy import play_cost

    out = [heuristic_choice]
    if obs.top is not None:
        out.append(PASS)
    cheapest: dict[str, Combo] = {}
    for a in obs.legal_actions:
        if a is PASS or a[0] == "pass":
            continue
        kind = "bomb" if a.type in BOMB_CLASS else a.type
        if kind not in cheapest or play_cost(a, obs.level) < play_cost(cheapest[kind], obs.level):
            cheapest[kind] = a
    out += cheapest.values()
    seen: list = []
    for a in out:
        if a not in seen:
            seen.append(a)
    return seen[:cap]


class RolloutEvaluator:
    """Values of a seat's actions by heuristic rollouts in sampled worlds (the module docstring)."""

    name = "rollout"

    def __init__(
        self, seat: int, rng: random.Random | None = None, worlds: int = 16, rules: Ruleset | None = None
    ) -> None:
        if worlds < 1:
            raise ValueError(f"worlds must be at least 1, got {worlds}")
        self.seat = seat
        self.rng = rng if rng is not None else random.Random(0)
        self.worlds = worlds
        self.rules = rules or get_ruleset(DEFAULT_RULESET)

    def candidates(self, obs: Observation) -> list:
        """The actions ``evaluate(obs)`` values when it is given none."""
        from guandan_cli.strategies.heuristic import HeuristicStrategy

        return default_candidates(obs, HeuristicStrategy(obs.seat, random.Random(0)).choose_play(obs))

    def evaluate(self, obs: Observation, actions: Sequence[object] | None = None) -> list[PairedActionValue]:
        """One value per action (``candidates(obs)`` when none are given), in their order, with its
        paired gain against the first."""
        if obs.phase != PLAY or obs.to_move != obs.seat:
            raise ValueError("evaluate needs an observation of the seat to move in the play phase")
        acts = list(actions) if actions is not None else self.candidates(obs)
        values: list[list[float]] = [[] for _ in acts]
        for _ in range(self.worlds):
            hands = sample_world(obs, self.rng)
            for i, action in enumerate(acts):
                values[i].append(self._rollout(obs, hands, action))
        out = []
        for action, vs in zip(acts, values):
            mean, low, high = mean_interval(vs)
            gain = paired_difference(vs, values[0])
            out.append(PairedActionValue(action, mean, low, high, len(vs), gain.mean, gain.low, gain.high))
        return out

    def _rollout(self, obs: Observation, hands: list[list[int]], action: object) -> float:
        from guandan_cli.strategies.heuristic import HeuristicStrategy

        deal = world_deal(obs, hands, self.rules)
        deal.apply(action)
        if deal.phase != "over":
            players = [HeuristicStrategy(s, random.Random(s)) for s in range(4)]
            play_deal(deal, players)
        r = deal.result
        return float(r.upgrade if r.winner_team == obs.team else -r.upgrade)


def rollout_evaluator(seat: int, rng: random.Random, worlds: int) -> RolloutEvaluator:
    """An :class:`~guandan_cli.review.values.EvaluatorMaker` for :class:`RolloutEvaluator`."""
    return RolloutEvaluator(seat, rng, worlds)


__all__ = ["RolloutEvaluator", "default_candidates", "rollout_evaluator", "sample_world", "unseen_cards"]

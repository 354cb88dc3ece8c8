"""Rollouts: a position played to the end of the deal by the heuristic at all four seats.

A rollout starts from one seat's observation, a world (the four hands, ``worlds.py``) and
one action of that seat: ``Deal.from_position`` rebuilds the deal at that position with
those hands (no dealing, no replay of the record), the action is applied, and four
``HeuristicStrategy`` players, made once and reset for each rollout, play on through the
engine's own loop (``play_deal``). Each rollout player sees only its own observation of
the rollout deal, as in any game. The value is the deal's outcome for the seat's team in
levels: +3/+2/+1 when it wins, −3/−2/−1 when the other team does (``compare``'s unit).

>>> import random
>>> from guandan_cli.engine import deal_hands
>>> from guandan_cli.engine.deal import Deal, DealSetup
>>> from guandan_cli.engine.observation import observe
>>> obs = observe(Deal(DealSetup(hands=deal_hands(random.Random(1)), level=0, first_leader=0)), 0)
>>> r = Rollouts()
>>> hands = tuple(tuple(h) for h in deal_hands(random.Random(1)))
>>> r.value(obs, r.world_setup(obs, hands), obs.legal_actions[0]) in (-3, -2, -1, 1, 2, 3)
True
"""

from __future__ import annotations

from guandan_cli.strategies.heuristic import HeuristicStrategy

from guandan_cli.engine.deal import Deal, DealSetup
from guandan_cli.engine.observation import Observation
from guandan_cli.engine.play import play_deal
from guandan_cli.engine.rules import DEFAULT_RULESET, Ruleset, get_ruleset


class Rollouts:
    """Plays positions out with four reusable heuristic players; counts the rollouts played.

    ``rules``: the ruleset the rollouts follow (an observation does not say which one the
    table plays; the default is the project's default ruleset). ``objective``: ``levels``
    (the value is ±upgrade) or ``wins`` (±1).
    """

    def __init__(self, rules: Ruleset | None = None, objective: str = "levels") -> None:
        if objective not in ("levels", "wins"):
            raise ValueError(f"objective {objective!r}: expected 'levels' or 'wins'")
        self.rules = rules if rules is not None else get_ruleset(DEFAULT_RULESET)
        self.by_levels = objective == "levels"
        self.players = [HeuristicStrategy(s) for s in range(4)]
        #: rollouts played so far
        self.count = 0

    def world_setup(self, obs: Observation, hands: tuple[tuple[int, ...], ...]) -> DealSetup:
        """The setup of the rollouts of one world: ``hands`` held now, the deal's levels."""
        return DealSetup(
            hands=hands, level=obs.level, levels=obs.levels, level_team=obs.level_team, rules=self.rules
        )

    def position(self, obs: Observation, setup: DealSetup) -> Deal:
        """The deal at ``obs``'s position with the world's hands, its seat to move."""
        return Deal.from_position(
            setup,
            obs.events,
            to_move=obs.seat,
            finished=obs.finished,
            top=obs.top,
            top_owner=obs.top_owner,
            tribute_kind=obs.tribute_kind,
            check=False,
        )

    def value(self, obs: Observation, setup: DealSetup, action: object, *, checked: bool = False) -> int:
        """The outcome for ``obs``'s team of playing ``action`` in the world of ``setup``, then the
        heuristic everywhere (``checked``: verify the action first, ``IllegalActionError``)."""
        deal = self.position(obs, setup)
        if checked:
            deal.apply(action)
        else:
            deal.apply_unchecked(action)
        if deal.result is None:
            for p in self.players:
                p.start_deal(0, obs)
            play_deal(deal, self.players)
        self.count += 1
        result = deal.result
        gain = result.upgrade if self.by_levels else 1
        return gain if result.winner_team == obs.seat & 1 else -gain

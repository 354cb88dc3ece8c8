"""`greedy`: the cheapest answer that beats the top play; a bomb only when nothing else
answers; leads its lowest combination.

"Cheapest" is the lowest key, then the fewest wild cards, then the fewest cards.
"""

from __future__ import annotations

from guandan_cli.engine.combos import BOMB_CLASS, POWER, SEQUENCE_TYPES, TYPE_ORDER, bomb_value
from guandan_cli.engine.deal import PASS

from .base import Strategy


def play_cost(combo, level: int) -> tuple:
    """Sort key: non-bombs before bombs, lower key first, fewer wilds, more cards shed."""
    wild = level * 4 + 1
    bv = bomb_value(combo, level)
    key = combo.rank if combo.type in SEQUENCE_TYPES else POWER[level][combo.rank]
    return (bv, key, combo.cards.count(wild), -len(combo.cards), TYPE_ORDER[combo.type])


class GreedyStrategy(Strategy):
    name = "greedy"

    def choose_play(self, obs):
        plays = [a for a in obs.legal_actions if a is not PASS and a.type != "pass"]
        if not plays:
            return PASS
        if obs.top is None:
            return min(plays, key=lambda c: play_cost(c, obs.level))
        normal = [c for c in plays if c.type not in BOMB_CLASS]
        pool = normal or plays
        return min(pool, key=lambda c: play_cost(c, obs.level))

    def choose_return(self, obs):
        pw = POWER[obs.level]
        from guandan_cli.engine.cards import RANK_OF

        return min(obs.legal_actions, key=lambda f: (pw[RANK_OF[f]], f))

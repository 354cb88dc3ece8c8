"""A weakened heuristic bot for benchmarks: it never bombs before an opponent is near out.

Use it as ``scripts/weak_heuristic.py:NoEarlyBombs`` (e.g. ``guandan compare heuristic
scripts/weak_heuristic.py:NoEarlyBombs``). Whenever the heuristic would play a bomb (a
4+ bomb, a straight flush or the joker bomb) while every opponent still in play holds more
than ``NEAR_OUT`` cards, it passes instead (or, leading, plays its first non-bomb lead).
"""

from __future__ import annotations

from guandan_cli.strategies.heuristic import HeuristicStrategy

from guandan_cli.engine.combos import BOMB_CLASS
from guandan_cli.engine.deal import PASS

NEAR_OUT = 6


class NoEarlyBombs(HeuristicStrategy):
    name = "no_early_bombs"

    def choose_play(self, obs):
        play = super().choose_play(obs)
        if play.type not in BOMB_CLASS:
            return play
        opponents = [
            obs.card_counts[s] for s in ((obs.seat + 1) % 4, (obs.seat + 3) % 4) if s not in obs.finished
        ]
        if not opponents or min(opponents) <= NEAR_OUT:
            return play
        if obs.top is not None:
            return PASS
        leads = [c for c in obs.legal_actions if c.type not in BOMB_CLASS]
        return leads[0] if leads else play

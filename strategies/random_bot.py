"""`random`: uniform over the legal actions (pass included where allowed)."""

from __future__ import annotations

from .base import Strategy


class RandomStrategy(Strategy):
    name = "random"

    def choose_tribute(self, obs):
        return self.rng.choice(obs.legal_actions)

    def choose_return(self, obs):
        return self.rng.choice(obs.legal_actions)

    def choose_play(self, obs):
        return self.rng.choice(obs.legal_actions)

    def choose_from_legal(self, legal):
        """The engine's shortcut (same draws as the three methods above): no observation built."""
        return self.rng.choice(legal)

"""Bots as source text, written to a file by the tests that load a bot from its file."""

#: a random bot that raises in about 2% of its plays (a strategy failure mid-run)
BOOM = """
from guandan_cli.strategies.random_bot import RandomStrategy

class Boom(RandomStrategy):
    name = "boom"

    def choose_play(self, obs):
        if self.rng.random() < 0.02:
            raise RuntimeError("boom")
        return super().choose_play(obs)
"""

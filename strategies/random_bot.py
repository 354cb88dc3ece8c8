"""`random`: uniform over the legal actions (pass included where allowed)."""

from __future__ import annotations

from random import Random

from .base import Strategy


class RandomStrategy(Strategy):
    name = "random"
    #: ``choose_from_legal`` only takes ``len()`` and one item: a lazy sequence of the legal
    #: actions will do (engine.play), so a lead need not build every play
    lazy_legal = True

    def choose_tribute(self, obs):
        return self.rng.choice(obs.legal_actions)

    def choose_return(self, obs):
        return self.rng.choice(obs.legal_actions)

    def choose_play(self, obs):
        return self.rng.choice(obs.legal_actions)

    def choose_from_legal(self, legal):
        """The engine's shortcut (same draws as the three methods above): no observation built.

        ``rng.choice(legal)`` written out (CPython's ``Random._randbelow``: ``n.bit_length()``
        bits, drawn again while out of range), so it draws the same numbers and picks the same
        action; tests/test_random_bot.py compares it with ``choice``.
        """
        rng = self.rng
        n = len(legal)
        if type(rng) is not Random or not n:  # another generator draws its own way
            return rng.choice(legal)
        getrandbits = rng.getrandbits
        k = n.bit_length()
        r = getrandbits(k)
        while r >= n:
            r = getrandbits(k)
        return legal[r]

    #: its answer is always an element of ``legal``: the engine applies it without a look-up
    choose_from_legal.picks_item = True

"""The Strategy interface: what a bot is asked, and what it may see.

One object per seat per match, given its own seeded ``random.Random``. It is
asked for a tribute card, a return card and a play, each from its seat's
``Observation`` (its own hand and the public record; ``obs.legal_actions`` lists
what it may answer). A complete minimal bot:

>>> from guandan_cli.strategies.base import Strategy
>>> class LowestFirst(Strategy):
...     name = "lowest_first"
...     def choose_play(self, obs):
...         return obs.legal_actions[0]   # the first listed play (lowest rank of the first type)
"""

from __future__ import annotations

import random
from typing import ClassVar

from guandan_cli.engine.combos import Combo
from guandan_cli.engine.observation import Observation


class Strategy:
    """Base class of bots. Override ``choose_play`` (and tribute/return if you care).

    The defaults pay the first allowed tribute card and return the lowest allowed card.
    """

    #: the strategy's name (a class attribute: the compiled heuristic reads it from its class)
    name: ClassVar[str] = "strategy"

    #: optional shortcut for a bot whose every answer depends on ``obs.legal_actions`` alone:
    #: ``choose_from_legal(legal)`` returns one element of ``legal`` and the engine then
    #: builds no observation for it (see ``guandan_cli.engine.play``). ``None``: not offered.
    choose_from_legal = None
    #: ``True``: ``choose_from_legal`` takes only ``len(legal)``, ``legal[i]`` and the like, so
    #: the engine may hand it a lazy ``Sequence`` instead of a tuple (a lead then builds one
    #: play, not all). A subclass that writes its own ``choose_from_legal`` gets a tuple again.
    lazy_legal = False

    def __init_subclass__(cls, **kwargs) -> None:
        """A subclass overriding a ``choose_*`` method loses an inherited shortcut (it would bypass it)."""
        super().__init_subclass__(**kwargs)
        if "choose_from_legal" not in vars(cls) and any(
            m in vars(cls) for m in ("choose_play", "choose_tribute", "choose_return")
        ):
            cls.choose_from_legal = None
        if "choose_from_legal" in vars(cls) and "lazy_legal" not in vars(cls):
            cls.lazy_legal = False

    def __init__(self, seat: int, rng: random.Random | None = None) -> None:
        self.seat = seat
        self.rng = rng if rng is not None else random.Random(0)

    def start_deal(self, deal_index: int, obs: Observation) -> None:
        """Called once at the start of each deal, with the seat's first observation."""

    #: the engine skips a ``start_deal`` marked as doing nothing (no observation is built)
    start_deal.does_nothing = True  # type: ignore[attr-defined]

    def choose_tribute(self, obs: Observation) -> int:
        return obs.legal_actions[0]

    def choose_return(self, obs: Observation) -> int:
        return obs.legal_actions[0]

    def choose_play(self, obs: Observation) -> Combo:
        raise NotImplementedError

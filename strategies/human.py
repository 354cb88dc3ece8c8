"""The ``human`` seat: a Strategy whose answers come from an input source (a person).

The game loop and the runner treat it like any bot, so a person's match is logged by
the same code as a simulated one. The source is installed by ``guandan play`` (see
``guandan_cli.interactive``) with :func:`use_input_source`; it is asked ``choose(obs)``
for every tribute, return and play, told ``start_deal(index, obs)`` and shown
``observe_action(obs)`` after every action at the table. Without a source the seat
fails at once with one clear message (``guandan simulate --strategies human`` has no
person to ask).

>>> from guandan_cli.strategies.registry import load_strategy
>>> load_strategy("human").name
'human'
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Protocol

from guandan_cli.engine.observation import Observation

from .base import Strategy


class InputSource(Protocol):
    """Where a human seat's answers come from."""

    def start_deal(self, deal_index: int, obs: Observation) -> None: ...

    def observe_action(self, obs: Observation) -> None: ...

    def choose(self, obs: Observation) -> object: ...


#: builds the input source of a seat; set by ``use_input_source``
_factory: Callable[[int], InputSource] | None = None


def use_input_source(factory: Callable[[int], InputSource] | None) -> None:
    """Install (or with ``None`` remove) the factory ``seat -> InputSource`` human seats use."""
    global _factory
    _factory = factory


def input_source_installed() -> bool:
    """Whether a person is there to answer (``guandan play`` installs an input source)."""
    return _factory is not None


class NoPersonError(RuntimeError):
    """A human seat with no input source installed."""

    #: no line of code is at fault (``engine.failures``)
    where_in_bot = False


class HumanStrategy(Strategy):
    """A seat played by a person: every decision is asked of the installed input source."""

    name = "human"
    #: the runner refuses this seat up front when no input source is installed
    needs_input_source = True

    def __init__(self, seat: int, rng: random.Random | None = None) -> None:
        super().__init__(seat, rng)
        self.source = _factory(seat) if _factory is not None else None

    def _source(self) -> InputSource:
        if self.source is None:
            raise NoPersonError(
                "the 'human' seat takes its answers from a person: play it with `guandan play`"
            )
        return self.source

    def start_deal(self, deal_index: int, obs: Observation) -> None:
        self._source().start_deal(deal_index, obs)

    def observe_action(self, obs: Observation) -> None:
        self._source().observe_action(obs)

    def choose_tribute(self, obs: Observation) -> int:
        return self._source().choose(obs)  # type: ignore[return-value]

    def choose_return(self, obs: Observation) -> int:
        return self._source().choose(obs)  # type: ignore[return-value]

    def choose_play(self, obs: Observation):
        return self._source().choose(obs)

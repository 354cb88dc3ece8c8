"""Bots: the Strategy interface, the registry/loader and the built-in strategies.

See docs/strategies.md for the interface, a minimal example bot and the rules of the
built-ins (`random`, `greedy`, `heuristic`).
"""

from typing import TYPE_CHECKING

from .base import Strategy
from .registry import BUILTINS, UnknownStrategyError, available_strategies, load_strategy, make_players

if TYPE_CHECKING:
    from .greedy import GreedyStrategy
    from .heuristic import HeuristicStrategy
    from .random_bot import RandomStrategy

#: the built-in classes, imported on first use: importing a submodule (``strategies.registry``,
#: what ``simulate`` loads) runs this file, and the heuristic's tables take ~50 ms to build,
#: a tenth of a 60-match run of ``random``
_LAZY = {
    "GreedyStrategy": ".greedy",
    "HeuristicStrategy": ".heuristic",
    "RandomStrategy": ".random_bot",
}


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__all__ = [
    "BUILTINS",
    "GreedyStrategy",
    "HeuristicStrategy",
    "RandomStrategy",
    "Strategy",
    "UnknownStrategyError",
    "available_strategies",
    "load_strategy",
    "make_players",
]

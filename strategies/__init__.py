"""Bots: the Strategy interface, the registry/loader and the built-in strategies.

See docs/strategies.md for the interface, a minimal example bot and the rules of the
built-ins (`random`, `greedy`, `heuristic`).
"""

from .base import Strategy
from .greedy import GreedyStrategy
from .heuristic import HeuristicStrategy
from .random_bot import RandomStrategy
from .registry import BUILTINS, UnknownStrategyError, available_strategies, load_strategy, make_players

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

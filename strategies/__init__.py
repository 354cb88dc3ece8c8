"""Bots: the Strategy interface, the registry/loader and the built-in strategies."""

from .base import Strategy
from .registry import available_strategies, load_strategy, make_players

__all__ = ["Strategy", "available_strategies", "load_strategy", "make_players"]

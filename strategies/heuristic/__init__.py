"""`heuristic`: the rule-based player, the strongest built-in (decision rules: docs/strategies.md).

>>> from guandan_cli.strategies.registry import load_strategy
>>> load_strategy("heuristic").name
'heuristic'
"""

import guandan_cli.native.compiled  # noqa: F401  (the guard: the compiled plan, memory and bot run only if built from their sources)

from .bot import HeuristicStrategy
from .plan import Group, Plan, make_plan

__all__ = ["Group", "HeuristicStrategy", "Plan", "make_plan"]

"""`heuristic`: the rule-based player, the strongest built-in (decision rules: docs/strategies.md).

>>> from strategies.registry import load_strategy
>>> load_strategy("heuristic").name
'heuristic'
"""

from .bot import HeuristicStrategy
from .plan import Group, Plan, make_plan

__all__ = ["Group", "HeuristicStrategy", "Plan", "make_plan"]

"""`heuristic`: the rule-based player, the strongest built-in (decision rules: docs/strategies.md).

>>> from strategies.registry import load_strategy
>>> load_strategy("heuristic").name
'heuristic'
"""

from guandan_cli.compiled import install

install()  # the compiled plan, memory and bot run only if built from these sources

from .bot import HeuristicStrategy  # noqa: E402
from .plan import Group, Plan, make_plan  # noqa: E402

__all__ = ["Group", "HeuristicStrategy", "Plan", "make_plan"]

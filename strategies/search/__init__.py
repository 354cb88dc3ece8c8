"""`search`: determinized rollouts over the heuristic (docs/strategies.md, "search").

``search`` plays with the default budget; ``search:worlds=16+candidates=6`` (options joined
by ``+``, as ``SearchStrategy``'s keyword arguments) with another.

>>> from guandan_cli.strategies.registry import load_strategy
>>> load_strategy("search").name, load_strategy("search:worlds=16+gate=1.5").worlds
('search', 16)
"""

import guandan_cli.native.compiled  # noqa: F401  (the guard: the compiled heuristic runs only if built from its sources)

from .bot import ActionValue, SearchStrategy, candidate_actions, world_rng
from .spec import SearchSpecError, search_strategy_class
from .worlds import Knowledge

__all__ = [
    "ActionValue",
    "Knowledge",
    "SearchSpecError",
    "SearchStrategy",
    "candidate_actions",
    "search_strategy_class",
    "world_rng",
]

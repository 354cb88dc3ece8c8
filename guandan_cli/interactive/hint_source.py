"""What a person's hint asks: ``?`` in ``guandan play``, the Hint button of ``guandan table``.

>>> HintSource("greedy").player(2).seat
2
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from guandan_cli.engine.rules import Ruleset


@dataclass(frozen=True)
class HintSource:
    """A strategy ``spec`` (``--hint``) playing in the game's ``rules`` (``None``: the default
    ruleset); :meth:`player` makes that bot for a seat (a search then values its candidates)."""

    spec: str = "heuristic"
    rules: Ruleset | None = None

    def player(self, seat: int):
        """The hint's bot at ``seat`` (given the game's ruleset when the strategy takes one)."""
        from guandan_cli.strategies.registry import load_strategy

        cls = load_strategy(self.spec)
        wants_rules = self.rules is not None and "rules" in getattr(cls, "OPTIONS", {})
        options = {"rules": self.rules.name} if wants_rules else {}
        return cls(seat, random.Random(seat), **options)


#: ``play``'s hint when none is given: the heuristic's play
HEURISTIC_HINT = HintSource()

__all__ = ["HEURISTIC_HINT", "HintSource"]

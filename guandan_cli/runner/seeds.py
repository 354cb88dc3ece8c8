"""The seed of each match of a run: derived from the run's root seed and the match's index alone.

Below both ``runner.tasks`` (which plays matches) and ``runner.setups`` (whose sources deal
a match's first hands), so neither imports the other for it.

>>> match_seed(0, 0) == match_seed(0, 0) != match_seed(0, 1)
True
"""

from __future__ import annotations

from guandan_cli.engine.seeding import derive_seed


def match_seed(root_seed: int, match_index: int) -> int:
    """The seed of match ``match_index`` of a run with root seed ``root_seed``."""
    return derive_seed(root_seed, "match", match_index)


__all__ = ["match_seed"]

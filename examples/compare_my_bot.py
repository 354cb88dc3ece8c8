"""Compare your own strategy against the built-in bots.

Run from the repository root:  python examples/compare_my_bot.py

``PairFirst`` below is a complete bot: it leads its lowest pair when it has one,
otherwise plays like ``greedy``. Worker processes load it from this file (the
class is addressed as ``examples/compare_my_bot.py:PairFirst``), so keep the
``if __name__ == "__main__"`` guard.
"""

from __future__ import annotations

import sys

from guandan_cli.strategies.greedy import GreedyStrategy

from guandan_cli import compare


class PairFirst(GreedyStrategy):
    name = "pair_first"

    def choose_play(self, obs):
        if obs.top is None:
            pairs = [c for c in obs.legal_actions if c.type == "pair"]
            if pairs:
                return pairs[0]
        return super().choose_play(obs)


def main(matches: int = 40) -> None:
    for opponent in ("random", "greedy"):
        result = compare(PairFirst, opponent, matches=matches, seed=1, out="runs/examples")
        print(result.verdict())


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 40)

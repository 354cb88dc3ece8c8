"""The heuristic planner's fast paths give exactly what the reference code gives.

Plan costs are compared with ``<`` and small margins, so a fast path must produce the
same float, bit for bit (same operations in the same order), not merely a close one.
"""

from __future__ import annotations

import random

from guandan_cli.engine import deal_hands
from guandan_cli.engine.cards import RANK_OF
from guandan_cli.engine.combos import POWER
from strategies.heuristic.plan import _leaf, _leaf_cost


def test_leaf_cost_is_the_reference_leaf_cost_bit_for_bit():
    rng = random.Random(13)
    for _ in range(3000):
        lv = rng.randrange(13)
        hand = rng.sample(deal_hands(rng)[0], rng.randrange(1, 28))
        wild = lv * 4 + 1
        counts = [0] * 15
        for f in hand:
            if f != wild:
                counts[RANK_OF[f]] += 1
        w = rng.choice((0, 0, 1, 2)) if wild in hand else 0
        assert _leaf_cost(counts, w, lv) == _leaf(counts, w, POWER[lv], lv, False)[0]

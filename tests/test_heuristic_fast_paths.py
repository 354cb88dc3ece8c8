"""The heuristic planner's fast paths give exactly what the reference code gives.

Plan costs are compared with ``<`` and small margins, so a fast path must produce the
same float, bit for bit (same operations in the same order), not merely a close one.
"""

from __future__ import annotations

import random

from guandan_cli.engine import deal_hands
from guandan_cli.engine.cards import RANK_OF
from guandan_cli.engine.combos import POWER
from strategies.heuristic.plan import N_SEQS, SEQ_K, SEQ_MASK, SEQS, _leaf, _leaf_cost, _Search


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


class _ReferenceSearch:
    """The plan search as first written: every window checked in order, masks rebuilt per node."""

    CAP = _Search.CAP

    def __init__(self, c: list[int], w: int, lv: int) -> None:
        self.c, self.w, self.lv = c, w, lv
        self.best, self.best_stack, self.stack, self.nodes = 1e9, [], [], 0

    def run(self, idx: int, seq_cost: float) -> None:
        self.nodes += 1
        c, w = self.c, self.w
        cost = _leaf(c, w, POWER[self.lv], self.lv, False)[0] + seq_cost
        if cost < self.best:
            self.best, self.best_stack = cost, list(self.stack)
        if self.nodes > self.CAP:
            return
        held = [sum(1 << r for r in range(13) if c[r] >= k) for k in (1, 2, 3)]
        breaks = [sum(1 << r for r in range(13) if 4 <= c[r] <= hi) for hi in (4, 5, 6)]
        for i in range(idx, N_SEQS):
            k, wm = SEQ_K[i], SEQ_MASK[i]
            if wm & breaks[k - 1]:
                continue  # would break a bomb
            if k == 1:
                need = (wm & ~held[0]).bit_count()
                ok = (wm & held[1]).bit_count() < 3
            elif k == 2:
                need = (wm & ~held[1]).bit_count()
                ok = not wm & ~held[0] and (wm & held[2]).bit_count() < 2
            else:
                need = (wm & ~held[2] & held[1]).bit_count() + 2 * (wm & ~held[1]).bit_count()
                ok = not wm & ~held[0]
            if not ok or need > w:
                continue
            ranks = SEQS[i][2]
            used = [min(k, c[r]) for r in ranks]
            for r, take in zip(ranks, used):
                c[r] -= take
            self.w = w - need
            self.stack.append((i, need))
            self.run(i, seq_cost + 1.0)
            self.stack.pop()
            self.w = w
            for r, take in zip(ranks, used):
                c[r] += take


def test_plan_search_visits_the_reference_nodes_and_finds_its_plan():
    """Same node count, same best cost (bit for bit) and same windows, with 0, 1 and 2 wilds."""
    rng = random.Random(21)
    for _ in range(1500):
        lv = rng.randrange(13)
        hand = rng.sample(deal_hands(rng)[0], rng.choice((27, 27, 20, 14, 9, 5)))
        wild = lv * 4 + 1
        counts = [0] * 15
        for f in hand:
            if f != wild:
                counts[RANK_OF[f]] += 1
        w = rng.choice((0, 1, 2))
        fast, ref = _Search(list(counts), w, lv), _ReferenceSearch(list(counts), w, lv)
        fast.run(0, 0.0)
        ref.run(0, 0.0)
        assert (fast.nodes, fast.best, fast.best_stack) == (ref.nodes, ref.best, ref.best_stack)

"""The heuristic planner's fast paths give exactly what the reference code gives.

Plan costs are compared with ``<`` and small margins, so a fast path must produce the
same float, bit for bit (same operations in the same order), not merely a close one.
"""

from __future__ import annotations

import random

from guandan_cli.engine import deal_hands, legal_plays
from guandan_cli.engine.cards import RANK_OF, SUIT_OF
from guandan_cli.engine.combos import POWER, STRAIGHT_FLUSH, STRAIGHT_WINDOWS
from strategies.heuristic import plan as plan_module
from strategies.heuristic.plan import (
    BOMB_BONUS,
    N_SEQS,
    SEQ_K,
    SEQ_MASK,
    SEQS,
    SF_TRIES,
    Group,
    Plan,
    _leaf,
    _leaf_groups,
    _Search,
    combo_signature,
    make_plan,
    plan_cost,
)


class _RootOnly(_Search):
    """The search stopped after its first node: its best is the leaf cost of the whole hand."""

    __slots__ = ()
    CAP = 0


def test_search_leaf_cost_is_the_reference_leaf_cost_bit_for_bit():
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
        root = _RootOnly(counts, w, lv)
        root.run(0, 0.0)
        assert root.nodes == 1
        assert root.best == _leaf(counts, w, POWER[lv], lv, False)[0]


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


def test_leaf_groups_are_the_reference_leaf_groups():
    rng = random.Random(17)
    for _ in range(3000):
        lv = rng.randrange(13)
        hand = rng.sample(deal_hands(rng)[0], rng.randrange(1, 28))
        wild = lv * 4 + 1
        counts = [0] * 15
        for f in hand:
            if f != wild:
                counts[RANK_OF[f]] += 1
        w = rng.choice((0, 0, 1, 2))
        fast = _leaf_groups(counts, w, lv)
        ref = _leaf(counts, w, POWER[lv], lv, True)[1]
        assert fast == ref
        assert [type(g) for g in fast] == [Group] * len(ref)


def _reference_plan_counts(c: list[int], w: int, lv: int) -> tuple[float, list[Group]]:
    s = _ReferenceSearch(c, w, lv)
    s.run(0, 0.0)
    groups, wleft = [], w
    for i, need in s.best_stack:
        t, top, ranks, k = SEQS[i]
        counts = []
        for r in ranks:
            take = min(k, c[r])
            c[r] -= take
            if take:
                counts.append((r, take))
        wleft -= need
        groups.append(Group(t, top, tuple(sorted(counts)), need))
    rest = _leaf(c, wleft, POWER[lv], lv, True)[1]
    for g in groups:
        for r, n in g.counts:
            c[r] += n
    return s.best, groups + rest


def _reference_sf_options(hand, lv, w):
    wild = lv * 4 + 1
    masks = [0, 0, 0, 0]
    for f in hand:
        if f < 52 and f != wild:
            masks[SUIT_OF[f]] |= 1 << RANK_OF[f]
    out = []
    for s in range(4):
        m = masks[s]
        if m.bit_count() < 4:
            continue
        for top, ranks in STRAIGHT_WINDOWS:
            wm = sum(1 << r for r in ranks)
            miss = (wm & ~m).bit_count()
            if miss <= (1 if w else 0):
                out.append((top, tuple(sorted(r * 4 + s for r in ranks if m >> r & 1)), miss))
    return out


def _reference_make_plan(hand: tuple[int, ...], lv: int) -> Plan:
    """make_plan as first written (no caches), on the reference search and leaf."""
    wild = lv * 4 + 1
    c = [0] * 15
    w = 0
    for f in hand:
        if f == wild:
            w += 1
        else:
            c[RANK_OF[f]] += 1
    best_cost, best_groups = _reference_plan_counts(c, w, lv)
    options = _reference_sf_options(hand, lv, w)
    if len(options) > SF_TRIES:
        options.sort(key=lambda o: (-sum(1 for f in o[1] if c[RANK_OF[f]] == 1), o[2], o[0]))
        del options[SF_TRIES:]
    for top, faces, miss in options:
        ranks = [RANK_OF[f] for f in faces]
        if any(c[r] >= 4 and c[r] - 1 < 4 for r in ranks):
            continue
        for r in ranks:
            c[r] -= 1
        cost, groups = _reference_plan_counts(c, w - miss, lv)
        for r in ranks:
            c[r] += 1
        cost -= BOMB_BONUS
        if cost < best_cost - 1e-9:
            counts = tuple((r, 1) for r in sorted(ranks))
            sf = Group(STRAIGHT_FLUSH, top, counts, miss, faces + (wild,) * miss)
            best_cost, best_groups = cost, [sf] + list(groups)
    return Plan(tuple(best_groups), best_cost, lv)


def _random_hands(seed: int, n: int):
    """Hands of every size, with 0, 1 or 2 wilds and many straight flushes, at every level."""
    rng = random.Random(seed)
    for _ in range(n):
        lv = rng.randrange(13)
        wild = lv * 4 + 1
        if rng.random() < 0.3:  # a suit-rich hand: straight flushes to try
            suit = rng.randrange(4)
            pool = [f for f in range(52) if f & 3 == suit] * 2 + rng.sample(range(54), 20)
            hand = rng.sample(pool, rng.randrange(5, 28))
        else:
            hand = rng.sample(deal_hands(rng)[0], rng.choice((27, 27, 26, 20, 14, 9, 5, 2)))
        hand = [f for f in hand if f != wild] + [wild] * rng.choice((0, 0, 1, 2))
        yield tuple(sorted(hand)), lv


def test_make_plan_is_the_reference_plan_bit_for_bit():
    """Same groups in the same order and the same cost float, straight flushes included."""
    for hand, lv in _random_hands(5, 1500):
        assert make_plan(hand, lv) == _reference_make_plan(hand, lv), (hand, lv)


def test_plan_cost_and_the_plan_built_after_it_are_the_reference():
    """``plan_cost`` keeps the search's choice; ``make_plan`` then builds the reference plan from it."""
    for hand, lv in _random_hands(7, 800):
        plan_module._CACHE.clear()
        plan_module._CHOICES.clear()
        ref = _reference_make_plan(hand, lv)
        assert plan_cost(hand, lv) == ref.cost
        assert make_plan(hand, lv) == ref
        assert plan_cost(hand, lv) == ref.cost  # from the built plan now


def _reference_signature(combo, lv: int) -> tuple:
    wild = lv * 4 + 1
    counts: dict[int, int] = {}
    w = 0
    for f in combo.cards:
        if f == wild:
            w += 1
        else:
            counts[RANK_OF[f]] = counts.get(RANK_OF[f], 0) + 1
    return (combo.type, combo.rank, tuple(sorted(counts.items())), w)


def test_combo_signature_is_the_reference_signature():
    """Every legal play of random hands (wilds included), leads and follows."""
    rng = random.Random(9)
    seen = 0
    for _ in range(150):
        lv = rng.randrange(13)
        hands = deal_hands(rng)
        wild = lv * 4 + 1
        naturals = [f for f in rng.sample(hands[0], rng.randrange(1, 28)) if f != wild]
        hand = tuple(sorted(naturals + [wild] * rng.randrange(3)))
        for combo in legal_plays(hand, lv):
            assert combo_signature(combo, lv) == _reference_signature(combo, lv)
            seen += 1
    assert seen > 5_000

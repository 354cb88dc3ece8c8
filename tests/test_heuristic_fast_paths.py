"""The heuristic planner's fast paths give exactly what the reference code gives.

Plan costs are compared with ``<`` and small margins, so a fast path must produce the
same float, bit for bit (same operations in the same order), not merely a close one.
"""

from __future__ import annotations

import functools
import random

from guandan_cli.strategies.heuristic import plan as plan_module
from guandan_cli.strategies.heuristic.plan import (
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
    _make_plan,
    _plan_cost,
    _Search,
    combo_signature,
)

from guandan_cli.engine import deal_hands, legal_plays
from guandan_cli.engine.cards import RANK_OF, SUIT_OF
from guandan_cli.engine.combos import POWER, STRAIGHT_FLUSH, STRAIGHT_WINDOWS


def _random_hand(rng: random.Random) -> tuple[int, list[int], list[int], int]:
    """``(level, hand, rank counts without the wild cards, wild face)`` of a random part of a dealt hand."""
    lv = rng.randrange(13)
    hand = rng.sample(deal_hands(rng)[0], rng.randrange(1, 28))
    wild = lv * 4 + 1
    counts = [0] * 15
    for f in hand:
        if f != wild:
            counts[RANK_OF[f]] += 1
    return lv, hand, counts, wild


def test_search_leaf_cost_is_the_reference_leaf_cost_bit_for_bit():
    rng = random.Random(13)
    for _ in range(3000):
        lv, hand, counts, wild = _random_hand(rng)
        w = rng.choice((0, 0, 1, 2)) if wild in hand else 0
        root = _Search(counts, w, lv, cap=0)  # stopped after its first node: the whole hand's leaf
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
        lv, _hand, counts, _wild = _random_hand(rng)
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
        assert _make_plan(hand, lv) == _reference_make_plan(hand, lv), (hand, lv)


def test_plan_cost_and_the_plan_built_after_it_are_the_reference():
    """``plan_cost`` keeps the search's choice; ``make_plan`` then builds the reference plan from it."""
    for hand, lv in _random_hands(7, 800):
        plan_module._CACHE.clear()
        plan_module._CHOICES.clear()
        ref = _reference_make_plan(hand, lv)
        assert _plan_cost(hand, lv) == ref.cost
        assert _make_plan(hand, lv) == ref
        assert _plan_cost(hand, lv) == ref.cost  # from the built plan now


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


def _random_counts(rng: random.Random) -> list[int]:
    """Rank counts of a random hand, now and then with ranks of 5..8 cards (the general node)."""
    counts = [0] * 15
    for f in rng.sample(deal_hands(rng)[0] + deal_hands(rng)[1], rng.randrange(1, 28)):
        counts[RANK_OF[f]] += 1
    if rng.random() < 0.3:
        for r in rng.sample(range(13), rng.randrange(1, 3)):
            counts[r] = rng.randrange(4, 9)
    return counts


def test_search_under_small_caps_is_the_reference_search():
    """The CAP cuts the same nodes: same count, best cost and windows for CAPs 0..40."""
    rng = random.Random(29)
    for cap in (0, 1, 2, 3, 5, 8, 13, 40):
        fast_cls = functools.partial(_Search, cap=cap)
        ref_cls = type("RefCapped", (_ReferenceSearch,), {"CAP": cap})
        for _ in range(300):
            counts = _random_counts(rng)
            lv = rng.randrange(13)
            w = rng.choice((0, 1, 2))
            fast, ref = fast_cls(list(counts), w, lv), ref_cls(list(counts), w, lv)
            fast.run(0, 0.0)
            ref.run(0, 0.0)
            assert (fast.nodes, fast.best, fast.best_stack) == (ref.nodes, ref.best, ref.best_stack), (
                counts,
                w,
                lv,
            )


def test_mask_cost_tables_are_the_sums_in_power_order():
    """Singles sums and pair/triple cost tuples, filled from shorter masks, are the chain sums."""
    for lv in range(13):
        pw = POWER[lv]
        plan_module._level_tables(lv)  # (made on a level's first search)
        for mask in range(8192):
            ranks = sorted((r for r in range(13) if mask >> r & 1), key=pw.__getitem__)
            total = 0.0
            for r in ranks:
                total += plan_module._SINGLE_COST[lv][r]
            got = plan_module._SINGLES_SUM[lv][mask]
            if got is None:
                got = plan_module._singles_sum(lv, mask)
            assert got.hex() == total.hex()
            if mask % 7 == 1:  # a sample of the pair/triple masks
                pcs = plan_module._PAIR_COSTS[lv][mask] or plan_module._pair_costs(lv, mask)
                tcs = plan_module._TRIPLE_COSTS[lv][mask] or plan_module._triple_costs(lv, mask)
                assert pcs == tuple(plan_module._PAIR_COST[lv][r] for r in ranks)
                assert tcs == tuple(plan_module._TRIPLE_COST[lv][r] for r in ranks)


def test_candidate_tables_are_the_window_checks():
    """``_CAND1[l1] & _CAND2[l2] & _CAND3[l3]``: the windows that fit without wilds."""
    if not plan_module._CAND1:
        plan_module._build_cand_tables()
    rng = random.Random(31)
    for _ in range(20000):
        l1 = rng.randrange(8192)
        l2 = l1 & rng.randrange(8192)
        l3 = l2 & rng.randrange(8192)
        if rng.random() < 0.5:  # long runs of pairs and triples
            l2 |= l3 | 0x7 << rng.randrange(11)
            l1 |= l2 | 0x1F << rng.randrange(9)
        want = 0
        for i in range(N_SEQS):
            k, wm = SEQ_K[i], SEQ_MASK[i]
            if k == 1:
                ok = not wm & ~l1 and (wm & l2).bit_count() < 3
            elif k == 2:
                ok = not wm & ~l2 and (wm & l3).bit_count() < 2
            else:
                ok = not wm & ~l3
            want |= ok << i
        got = plan_module._CAND1[l1] & plan_module._CAND2[l2] & plan_module._CAND3[l3]
        assert got == want, (l1, l2, l3)


def test_plan_is_the_previous_revision_bit_for_bit():
    """scripts/plan_equivalence.py on a few hundred hands (the script runs 100,000)."""
    import importlib.util
    import subprocess
    from pathlib import Path

    import pytest

    root = Path(__file__).resolve().parent.parent
    spec = importlib.util.spec_from_file_location(
        "plan_equivalence", root / "scripts" / "plan_equivalence.py"
    )
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    try:
        old = script.load_revision("bc64c5c")
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("no git history with bc64c5c (an exported tree)")
    try:
        assert script.compare(old, plan_module, 400, 11) == 400
    finally:
        plan_module._CACHE.clear()
        plan_module._CHOICES.clear()
        plan_module._COUNTS_CACHE.clear()

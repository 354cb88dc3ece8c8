"""Random-playout fuzzer: full random matches, invariants checked after every action.

Each action is checked cheaply (turn order against an independent model of §7, every
play beats its trick's top play, card counts, tribute and return cards); each deal at
its end (108 cards conserved, every hand changed only by what its seat played, paid
or returned, finish order, result); each match record (levels never pass A except by
winning, only 上游's team goes up). A sample of deals is replayed, from the actions
and from the events, verifying every action and comparing the whole final state.
"""

from __future__ import annotations

import os
import random
import time
from collections import Counter

import pytest

from guandan_cli.engine.cards import HR, RANK_OF, full_deck
from guandan_cli.engine.combos import POWER, beats
from guandan_cli.engine.deal import PASS, Deal, replay
from guandan_cli.engine.match import A_PLUS, A, Match
from guandan_cli.engine.rules import get_ruleset
from guandan_cli.engine.seeding import derive_seed

DECK = Counter(full_deck())


def _next_active(seat: int, finished: list[int]) -> int:
    s = (seat + 1) % 4
    while s in finished:
        s = (s + 1) % 4
    return s


def _expected_tribute(hand, level) -> set[int]:
    wild = level * 4 + 1
    pw = POWER[level]
    best = max(pw[RANK_OF[f]] for f in hand if f != wild)
    return {f for f in hand if f != wild and pw[RANK_OF[f]] == best}


def _expected_returns(hand, level, limited: bool) -> set[int]:
    if not limited:
        return set(hand)
    low = {f for f in hand if f < 52 and f >> 2 <= 8}
    if low:
        return low
    pw = POWER[level]
    least = min(pw[RANK_OF[f]] for f in hand)
    return {f for f in hand if pw[RANK_OF[f]] == least}


class Stats(Counter):
    pass


def play_checked(d: Deal, rng: random.Random, dump: float, shy: float, stats: Counter) -> None:
    """Play ``d`` to the end with random actions, checking every step.

    A seat plays its largest play with probability ``dump``, else a uniform legal
    action; a follower passes outright with probability ``shy``.
    """
    setup, rules, level = d.setup, d.rules, d.level
    initial = [Counter(h) for h in setup.hands]
    total = sum(len(h) for h in setup.hands)
    gained = [Counter() for _ in range(4)]
    lost = [Counter() for _ in range(4)]

    # -- the start: tribute only when due, resistance, the first leader
    prev = setup.previous
    if prev is None:
        assert (d.tribute_kind, d.phase, d.to_move) == ("none", "play", setup.first_leader)
    else:
        order, dd = prev
        payers = [(order[0] + 1) % 4, (order[0] + 3) % 4] if dd else [order[3]]
        if sum(setup.hands[p].count(HR) for p in payers) == 2:
            assert (d.tribute_kind, d.phase, d.to_move) == ("resisted", "play", order[0])
            stats["resisted"] += 1
        else:
            assert d.tribute_kind == ("double" if dd else "single")
            assert (d.phase, d.to_move) == ("tribute", payers[0])
            stats[d.tribute_kind] += 1

    # the independent trick model
    fin: list[int] = []
    owner = -1
    passes = 0
    played = 0  # cards played so far
    counts = [len(h) for h in d.hands]
    steps = 0
    while d.phase != "over":
        steps += 1
        assert steps < 5000
        seat, phase = d.to_move, d.phase
        if phase == "play" and d.top is not None and rng.random() < shy:
            a = PASS  # a follower may always pass: skip listing its plays (the costly part)
        else:
            acts = d.legal_actions()
            assert acts, (phase, seat)
            if phase == "play":
                a = max(acts, key=lambda c: len(c[2])) if rng.random() < dump else rng.choice(acts)
            else:
                a = rng.choice(acts)
        assert seat not in fin
        top = d.top
        if phase == "tribute":
            assert set(acts) == _expected_tribute(d.hands[seat], level)
        elif phase == "return":
            to = d._returners[len(d._chosen_returns)][1]
            limited = rules.return_limit == "any_receiver" or to == seat ^ 2
            assert set(acts) == _expected_returns(d.hands[seat], level, limited)
        ev = d.apply_unchecked(a)
        if phase == "play":
            if a[0] == "pass":
                assert top is not None and ev.kind == "pass"
                passes += 1
                active = [s for s in range(4) if s not in fin]
                need = len(active) - (owner in active)
                if passes == need:
                    if owner in active:
                        expect = owner
                    elif rules.jiefeng == "any" or owner == fin[0]:
                        expect = owner ^ 2
                        stats["jiefeng"] += 1
                    else:
                        expect = _next_active(owner, fin)
                        stats["jiefeng_refused"] += 1
                    owner, passes = -1, 0
                    assert d.top is None
                else:
                    expect = _next_active(seat, fin)
                    assert d.top is top
                assert d.to_move == expect
            else:
                assert ev.combo is a and ev.lead == (top is None)
                if top is not None:
                    assert beats(a, top, level), (a, top)
                    stats["beats"] += 1
                counts[seat] -= len(a[2])
                played += len(a[2])
                lost[seat].update(a[2])
                owner, passes = seat, 0
                assert d.phase == "over" or (d.top is a and d.top_owner == seat)
                if counts[seat] == 0:
                    fin.append(seat)
                    if (len(fin) == 2 and fin[1] == fin[0] ^ 2) or len(fin) == 3:
                        assert d.phase == "over"
                        break
                assert d.to_move == _next_active(seat, fin)
            assert d.finished == fin
        elif d.phase != phase or phase == "return" and d.phase == "play":
            # tribute settled: counts change by the transfers
            if phase == "tribute":
                for payer, receiver, card in d.tributes:
                    lost[payer][card] += 1
                    gained[receiver][card] += 1
                    counts[payer] -= 1
                    counts[receiver] += 1
                first = prev[0][0]
                if d.tribute_kind == "double":
                    (p1, r1, c1), (p2, r2, c2) = d.tributes
                    w1, w2 = POWER[level][RANK_OF[c1]], POWER[level][RANK_OF[c2]]
                    if w1 == w2:
                        assert (r1, r2) == ((p1 + 3) % 4, (p2 + 3) % 4)
                    else:
                        hi = p1 if w1 > w2 else p2
                        assert dict((p, r) for p, r, _ in d.tributes)[hi] == first
                    to_first = next(p for p, r, _ in d.tributes if r == first)
                    want = to_first if rules.double_tribute_leader == "payer_to_first" else (first + 1) % 4
                    assert d.leader == want
                else:
                    assert d.tributes[0][:2] == (prev[0][3], first) and d.leader == prev[0][3]
            else:
                assert d.phase == "play" and d.to_move == d.leader
                # each receiver gives back to the seat it received from, 上游 first
                assert sorted((g, r) for g, r, _ in d.returns) == sorted((r, p) for p, r, _ in d.tributes)
                assert d.returns[0][0] == prev[0][0]
                for giver, receiver, card in d.returns:
                    lost[giver][card] += 1
                    gained[receiver][card] += 1
                    counts[giver] -= 1
                    counts[receiver] += 1
        hands = d.hands
        assert len(hands[0]) == counts[0] and len(hands[1]) == counts[1]
        assert len(hands[2]) == counts[2] and len(hands[3]) == counts[3]
        assert sum(counts) == total - played

    # -- the end
    r = d.result
    assert d.phase == "over" and d.to_move == -1 and r is not None
    assert sorted(r.finish_order) == [0, 1, 2, 3] and list(r.finish_order[: len(fin)]) == fin
    assert r.double_down == (fin[1] == fin[0] ^ 2)
    assert len(fin) == (2 if r.double_down else 3)
    assert r.winner_team == fin[0] & 1
    assert r.upgrade == {1: 3, 2: 2, 3: 1}[r.finish_order.index(fin[0] ^ 2)]
    left = Counter()
    for s in range(4):
        assert Counter(d.hands[s]) == initial[s] + gained[s] - lost[s]
        assert (not d.hands[s]) == (s in fin)
        left.update(d.hands[s])
    played = Counter(f for e in d.events if e.kind == "play" for f in e.combo.cards)
    assert left + played == sum(initial, Counter())
    if total == 108:
        assert left + played == DECK
    stats["deals"] += 1
    stats["double_down"] += r.double_down
    stats["actions"] += len(d.actions)


def check_record(m: Match, result) -> None:
    before, lt, fails = list(m.levels), m.level_team, list(m.a_failures)
    u = m.record(result)
    w = result.winner_team
    at_own_ace = lt is not None and before[lt] == A
    won = at_own_ace and w == lt and result.upgrade >= 2
    assert (m.winner == w) == won and (u.winner is not None) == won
    for t in (0, 1):
        after = m.levels[t]
        if won and t == w:
            assert after == A_PLUS
            continue
        assert 0 <= after <= A
        if t == w:
            assert after in (min(A, before[t] + result.upgrade), 0)
        else:
            assert after in (before[t], 0)
        if after == 0 and before[t] != 0:
            assert u.a_failure == t and m.rules.a_fail_limit == fails[t] + 1
    assert m.level_team == w and u.levels_after == tuple(m.levels)
    if m.capped:
        assert m.winner is None and m.over and m.deal_index == m.rules.max_deals
    if not m.over:
        assert m.level == m.levels[w]


def fuzz(n_deals: int, seed: int, replay_every: int) -> Counter:
    rng = random.Random(seed)
    stats: Counter = Counter()
    matches = 0
    while stats["deals"] < n_deals:
        name = ("cgr2022", "jiangsu2017")[matches % 2]
        rules = get_ruleset(
            name, a_fail_limit=rng.choice([None, None, 1, 2]), max_deals=rng.choice([None, 25, 60])
        )
        m = Match(derive_seed(seed, "fuzz", matches), rules)
        matches += 1
        while not m.over and stats["deals"] < n_deals:
            setup = m.next_setup()
            d = Deal(setup)
            play_checked(
                d, rng, dump=rng.choice([0.0, 0.3, 0.7]), shy=rng.choice([0.0, 0.0, 0.4]), stats=stats
            )
            if stats["deals"] % replay_every == 0:
                snap = d.snapshot()
                assert replay(setup, d.actions).snapshot() == snap
                assert replay(setup, d.events).snapshot() == snap
                stats["replayed"] += 1
            check_record(m, d.result)
        stats["matches"] += 1
        stats["won"] += m.winner is not None
        stats["capped"] += m.capped
    return stats


def test_fuzz_10000_deals():
    t = time.perf_counter()
    stats = fuzz(int(os.environ.get("GUANDAN_FUZZ_DEALS", 10_000)), seed=2024, replay_every=25)
    elapsed = time.perf_counter() - t
    assert stats["deals"] >= 10_000 or "GUANDAN_FUZZ_DEALS" in os.environ
    # the random matches reach every part of the rules
    for key in ("single", "double", "resisted", "jiefeng", "jiefeng_refused", "double_down", "won", "capped"):
        assert stats[key] > 0, (key, stats)
    print(f"fuzz: {dict(stats)} in {elapsed:.1f}s")


@pytest.mark.slow
def test_fuzz_many_deals():
    stats = fuzz(150_000, seed=7, replay_every=5)
    assert stats["deals"] == 150_000

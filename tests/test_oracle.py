"""A brute-force oracle for readings, all_plays and legal_plays (rules.md §3–6).

The oracle is written from the rules text, independently of ``combos``/``legal``:
it enumerates every sub-multiset of a small hand, replaces each wild by every
non-joker face, and classifies the resulting natural cards with a plain
classifier. Only the card helpers of ``cards`` are shared with the engine.

Speed: the natural classifier depends only on the sorted ranks and on whether
all cards share one suit, so it is memoized on that, and so is the substitution
(on the naturals' sorted ranks, whether they share a suit, and the wild count).
A wild's substitutes are every non-joker face, grouped by that same signature:
faces of one rank whose suit matches the naturals' common suit give identical
classifications, and so do those whose suit does not; one face per group is tried.
"""

from __future__ import annotations

import os
import random
from collections import Counter
from functools import cache
from itertools import combinations_with_replacement, product

import pytest

from guandan_cli.engine import Combo, all_plays, legal_plays, readings
from guandan_cli.engine.cards import HR, SB, format_cards

SEED = int(os.environ.get("GUANDAN_ORACLE_SEED", "20240611"))

# --- plain classifier of natural cards (rules.md §4) ------------------------------------

# rank indices: 0..12 = 2..A, 13 = SB, 14 = HR
JOKERS = (13, 14)


def rank_of(face: int) -> int:
    if face == SB:
        return 13
    if face == HR:
        return 14
    return face // 4


def suit_of(face: int) -> int:
    return -1 if face >= 52 else face % 4


def consecutive_runs(length: int) -> list[tuple[int, tuple[int, ...]]]:
    """(natural top, ranks) of every run of ``length`` ranks; A low only as A-2-3…"""
    runs = []
    for start in range(0, 13 - length + 1):  # 2.. up to ..A
        ranks = tuple(range(start, start + length))
        runs.append((ranks[-1], ranks))
    low = (12,) + tuple(range(0, length - 1))  # A-2-…
    runs.append((length - 2, low))
    return runs


RUN5 = consecutive_runs(5)
RUN3 = consecutive_runs(3)
RUN2 = consecutive_runs(2)


def sequence_table() -> dict[tuple[int, ...], tuple[str, int]]:
    """Sorted ranks of every straight, tube and plate -> (type, natural top)."""
    table = {}
    for size, runs, kind in ((1, RUN5, "straight"), (2, RUN3, "tube"), (3, RUN2, "plate")):
        for top, run in runs:
            table[tuple(sorted(run * size))] = (kind, top)
    return table


SEQUENCES = sequence_table()


@cache
def classify_natural(ranks: tuple[int, ...], one_suit: bool) -> frozenset[tuple[str, int]]:
    """(type, key) of natural cards given as sorted ranks; ``one_suit``: all share a suit."""
    n = len(ranks)
    out: set[tuple[str, int]] = set()
    same = ranks[0] == ranks[-1]
    if n == 1:
        out.add(("single", ranks[0]))
    if n == 2 and same:
        out.add(("pair", ranks[0]))  # SB SB and HR HR included, SB HR not
    if n == 3 and same and ranks[0] not in JOKERS:
        out.add(("triple", ranks[0]))
    if n == 5:
        cnt = Counter(ranks)
        if sorted(cnt.values()) == [2, 3]:
            trip = next(r for r, k in cnt.items() if k == 3)
            if trip not in JOKERS:
                out.add(("full_house", trip))
    if 4 <= n <= 10 and same and ranks[0] not in JOKERS:
        out.add(("bomb", ranks[0]))
    if ranks == (13, 13, 14, 14):
        out.add(("joker_bomb", 14))
    seq = SEQUENCES.get(ranks)
    if seq:
        out.add(seq)
        if seq[0] == "straight" and one_suit:
            out.add(("straight_flush", seq[1]))
    return frozenset(out)


@cache
def classify_with_wilds(nat_ranks: tuple[int, ...], one_suit: bool, n_wild: int):
    """(type, key) readings of naturals (sorted ranks; ``one_suit``: all share a suit, no
    joker) plus ``n_wild`` wilds, by trying every non-joker face for each wild."""
    # one substitute per group of faces that give the same signature:
    # suit 0 stands for the naturals' common suit, suit 1 for the other three
    faces = [r * 4 + s for r in range(13) for s in ((0, 1) if one_suit else (1,))]
    out: set[tuple[str, int]] = set()
    for subs in combinations_with_replacement(faces, n_wild):
        ranks = tuple(sorted(nat_ranks + tuple(f // 4 for f in subs)))
        out |= classify_natural(ranks, one_suit and all(f % 4 == 0 for f in subs))
    return frozenset(out)


def oracle_readings(cards: tuple[int, ...], level: int) -> frozenset[tuple[str, int]]:
    wild = level * 4 + 1
    nat = [f for f in cards if f != wild]
    n_wild = len(cards) - len(nat)
    if not nat:
        # only wilds: alone a wild is a level single, two wilds a level pair
        return frozenset({("single", level)} if n_wild == 1 else {("pair", level)} if n_wild == 2 else ())
    suits = {suit_of(f) for f in nat}
    one_suit = len(suits) == 1 and -1 not in suits
    return classify_with_wilds(tuple(sorted(rank_of(f) for f in nat)), one_suit, n_wild)


def sub_multisets(hand: tuple[int, ...], max_size: int = 10):
    counts = sorted(Counter(hand).items())
    faces = [f for f, _ in counts]
    for take in product(*(range(k + 1) for _, k in counts)):
        size = sum(take)
        if 1 <= size <= max_size:
            yield tuple(f for f, t in zip(faces, take) for _ in range(t))


def oracle_plays(hand: tuple[int, ...], level: int, check=None) -> dict[tuple[int, ...], frozenset]:
    """Every sub-multiset that forms a combination, with its readings.

    ``check(cards, found)`` is called on every sub-multiset, combination or not.
    """
    out = {}
    for cards in sub_multisets(hand):
        found = oracle_readings(cards, level)
        if check is not None:
            check(cards, found)
        if found:
            out[cards] = found
    return out


# --- beats from rules.md §5 ---------------------------------------------------------------


def power(rank: int, level: int) -> int:
    """2 < 3 < … < A < level < SB < HR."""
    if rank == level:
        return 13
    return rank if rank < 13 else rank + 1


def bomb_class_order(kind: str, key: int, size: int, level: int):
    """Position in the bomb class (None for other plays); higher beats lower."""
    if kind == "bomb":
        tier = {4: 0, 5: 1, 6: 3, 7: 4, 8: 5, 9: 6, 10: 7}[size]
        return (tier, power(key, level))
    if kind == "straight_flush":
        return (2, key)
    if kind == "joker_bomb":
        return (8, 0)
    return None


def oracle_beats(play: tuple[str, int, int], top: tuple[str, int, int], level: int) -> bool:
    """``play``/``top`` as (type, key, size)."""
    pb = bomb_class_order(*play, level)
    tb = bomb_class_order(*top, level)
    if pb is not None:
        return tb is None or pb > tb
    if tb is not None or play[0] != top[0]:
        return False
    if play[0] in ("straight", "tube", "plate"):
        return play[1] > top[1]
    return power(play[1], level) > power(top[1], level)


# --- random small hands -------------------------------------------------------------------


def random_hand(rng: random.Random) -> tuple[tuple[int, ...], int]:
    level = rng.randrange(13)
    wild = level * 4 + 1
    size = rng.randint(1, rng.choice((6, 9, 12)))  # big hands are slow to enumerate
    if rng.random() < 0.25:
        pool = [f for f in range(54) for _ in range(2)]
    else:  # a few neighbouring ranks and suits, so sequences, bombs and flushes appear
        start = rng.randrange(-1, 12)
        ranks = [(start + i) % 13 for i in range(rng.randint(1, 6))]
        suits = rng.sample(range(4), rng.randint(1, 4))
        pool = [r * 4 + s for r in ranks for s in suits for _ in range(2)]
        if rng.random() < 0.3:
            pool += [SB, SB, HR, HR]
    pool = [f for f in pool if f != wild]
    n_wild = rng.choice((0, 0, 1, 2))
    size = max(size - n_wild, 0)
    hand = rng.sample(pool, min(size, len(pool))) + [wild] * n_wild
    if not hand:
        hand = [wild]
    return tuple(sorted(hand)), level


# --- checks -------------------------------------------------------------------------------


def n_wilds(cards, level: int) -> int:
    return sum(1 for f in cards if f == level * 4 + 1)


def pair_class(cards: tuple[int, ...], key: int, level: int):
    """For a full house with triple ``key``: the rank of its natural pair cards, 'wild' if none."""
    rest = {rank_of(f) for f in cards if f != level * 4 + 1 and rank_of(f) != key}
    assert len(rest) <= 1
    return rest.pop() if rest else "wild"


def check_hand(hand: tuple[int, ...], level: int, rng: random.Random) -> None:
    where = f"hand {format_cards(hand)} at level {'23456789TJQKA'[level]}"

    # (a) readings of every sub-multiset
    def check_readings(cards, found):
        got = {(c.type, c.rank) for c in readings(cards, level)}
        assert got == found, f"readings {format_cards(cards)} in {where}"

    plays = oracle_plays(hand, level, check_readings)

    triples = [(cards, t, k) for cards, found in plays.items() for t, k in found]
    tops = [None]
    if triples:
        tops += [Combo.make(t, k, cards) for cards, t, k in rng.sample(triples, min(3, len(triples)))]
    for top in tops:
        ctx = f"{where}, top {top}"
        if top is None:
            expected = set(triples)
        else:
            tk = (top.type, top.rank, top.size)
            expected = {(c, t, k) for c, t, k in triples if oracle_beats((t, k, len(c)), tk, level)}

        # (b) all_plays: every (multiset, declaration) once
        got_all = [(c.cards, c.type, c.rank) for c in all_plays(hand, level, top)]
        assert len(got_all) == len(set(got_all)), f"all_plays repeats in {ctx}"
        assert set(got_all) == expected, f"all_plays in {ctx}"

        # (c) legal_plays: one card choice per (type, key, size), fewest wilds
        legal = legal_plays(hand, level, top)
        hand_count = Counter(hand)
        min_wild: dict = {}
        for cards, t, k in expected:
            sig = (t, k, len(cards), pair_class(cards, k, level) if t == "full_house" else None)
            min_wild[sig] = min(min_wild.get(sig, 99), n_wilds(cards, level))
        seen = set()
        for combo in legal:
            assert not Counter(combo.cards) - hand_count, f"{combo} not in {ctx}"
            assert (combo.type, combo.rank) in plays.get(combo.cards, ()), f"{combo} invalid in {ctx}"
            fh = pair_class(combo.cards, combo.rank, level) if combo.type == "full_house" else None
            sig = (combo.type, combo.rank, combo.size, fh)
            assert sig not in seen, f"{combo} repeated in {ctx}"
            seen.add(sig)
            assert n_wilds(combo.cards, level) == min_wild[sig], f"{combo} wastes wilds in {ctx}"
        assert {s[:3] for s in seen} == {s[:3] for s in min_wild}, f"legal_plays in {ctx}"
        # full houses: one per attached pair; a pair of two wilds only when no other pair fits
        for t, k, size, fh in min_wild:
            if t != "full_house":
                continue
            others = {s[3] for s in min_wild if s[:3] == (t, k, size) and s[3] != "wild"}
            if fh != "wild" or not others:
                assert (t, k, size, fh) in seen, f"full house {k}/{fh} missing in {ctx}"
            else:
                assert (t, k, size, fh) not in seen


def run_oracle(n_hands: int, seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(n_hands):
        hand, level = random_hand(rng)
        check_hand(hand, level, rng)


# --- tests ----------------------------------------------------------------------------------


def test_oracle_agrees_with_rules_examples():
    def reads(text, level):
        from guandan_cli.engine import parse_cards

        return set(oracle_readings(parse_cards(text), level))

    assert reads("S3 H4 D4 C5 S5 H2", 0) == {("tube", 3)}
    assert reads("S3 S4 D4 C5 S5 H2", 1) == set()
    assert reads("S7 D7 C7 H2 H2", 0) == {("bomb", 5), ("full_house", 5)}
    assert reads("S7 S8 S9 ST SJ", 0) == {("straight", 9), ("straight_flush", 9)}
    assert reads("H2", 0) == {("single", 0)} and reads("H2 H2", 0) == {("pair", 0)}
    assert reads("SB H2", 0) == set() and reads("SB HR", 0) == set()
    assert reads("SA S2 S3 S4 S5", 5) == {("straight", 3), ("straight_flush", 3)}
    assert reads("SK SA S2 D3 D4", 5) == set()


def test_oracle_random_hands():
    run_oracle(2000, SEED)


def test_oracle_wild_heavy_hands():
    """Hands that all hold both wilds, where substitution matters most."""
    rng = random.Random(SEED + 1)
    for _ in range(300):
        hand, level = random_hand(rng)
        wild = level * 4 + 1
        hand = tuple(sorted([f for f in hand if f != wild][:8] + [wild, wild]))
        check_hand(hand, level, rng)


@pytest.mark.slow
def test_oracle_random_hands_slow():
    run_oracle(40000, SEED + 2)

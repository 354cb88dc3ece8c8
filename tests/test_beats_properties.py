"""Property tests of ``beats`` (rules.md §5) on combos drawn from random hands."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from guandan_cli.engine import Combo, beats, deal_hands, legal_plays

BOMB_CLASS = ("bomb", "straight_flush", "joker_bomb")


def deal_plays(seed: int, level: int) -> list[Combo]:
    """Every legal lead of the four hands of a seeded deal."""
    hands = deal_hands(random.Random(seed))
    return [c for hand in hands for c in legal_plays(hand, level)]


@st.composite
def level_and_plays(draw, n: int, group: str | None = None):
    """A level and ``n`` plays from one deal; ``group``: one type ('same'), the bomb class
    ('bomb'), or anything (None)."""
    level = draw(st.integers(0, 12))
    plays = deal_plays(draw(st.integers(0, 2**32 - 1)), level)
    if group == "bomb":
        plays = [c for c in plays if c.type in BOMB_CLASS]
    elif group == "same":
        kind = draw(st.sampled_from(sorted({c.type for c in plays})))
        plays = [c for c in plays if c.type == kind]
    if not plays:  # a deal always holds bombs in practice; fall back to a fixed one
        plays = [Combo.from_text("bomb:7 S7 H7 C7 D7")]
    return level, [draw(st.sampled_from(plays)) for _ in range(n)]


@settings(max_examples=200, deadline=None)
@given(level_and_plays(1))
def test_never_reflexive(lp):
    level, (a,) = lp
    assert not beats(a, a, level)
    assert not beats(a, a._replace(cards=a.cards), level)


@settings(max_examples=300, deadline=None)
@given(level_and_plays(2))
def test_antisymmetric(lp):
    level, (a, b) = lp
    assert not (beats(a, b, level) and beats(b, a, level))


@settings(max_examples=300, deadline=None)
@given(level_and_plays(2, "same"))
def test_same_type_totally_ordered_by_key(lp):
    level, (a, b) = lp
    if a.rank == b.rank and a.size == b.size:
        assert not beats(a, b, level) and not beats(b, a, level)
    elif a.type != "bomb" or a.size == b.size:
        assert beats(a, b, level) != beats(b, a, level)


@settings(max_examples=300, deadline=None)
@given(level_and_plays(3, "same"))
def test_transitive_within_a_type(lp):
    level, (a, b, c) = lp
    if beats(a, b, level) and beats(b, c, level):
        assert beats(a, c, level)


@settings(max_examples=300, deadline=None)
@given(level_and_plays(3, "bomb"))
def test_transitive_across_bomb_class(lp):
    level, (a, b, c) = lp
    if beats(a, b, level) and beats(b, c, level):
        assert beats(a, c, level)


@settings(max_examples=300, deadline=None)
@given(level_and_plays(2, "bomb"))
def test_bomb_class_is_total_up_to_equal_strength(lp):
    level, (a, b) = lp
    if not beats(a, b, level) and not beats(b, a, level):
        assert (a.type, a.rank, a.size) == (b.type, b.rank, b.size)


@settings(max_examples=200, deadline=None)
@given(level_and_plays(2))
def test_bomb_class_beats_every_other_play(lp):
    level, (a, b) = lp
    if a.type in BOMB_CLASS and b.type not in BOMB_CLASS:
        assert beats(a, b, level) and not beats(b, a, level)
    if a.type not in BOMB_CLASS and b.type not in BOMB_CLASS and a.type != b.type:
        assert not beats(a, b, level)

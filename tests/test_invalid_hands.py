"""A hand two decks cannot deal is refused by ``legal_plays`` with ``InvalidHandError``
naming the card, never misread (before, four S2 were read as a hand holding H2)."""

from __future__ import annotations

import random

import pytest

from guandan_cli.engine import InvalidHandError, hand_problem, legal_plays
from guandan_cli.engine.cards import FACE_NAMES


def test_refused_exactly_when_the_oracle_says_so():
    rng = random.Random(5)
    refused = 0
    for _ in range(3000):
        size = rng.randint(1, 27)
        if rng.random() < 0.5:  # mostly good hands with one flaw planted, or none
            hand = [rng.randrange(54) for _ in range(size)]
        else:
            # faces -108..-55 are not caught (they index the weight table from its end): the
            # check is two int operations, not a pass over the hand; see legal._P4_CHECKED
            hand = [rng.randint(-54, 115) for _ in range(size)]
        if rng.random() < 0.2:
            hand += [hand[0]] * rng.randint(1, 3)
        # the oracle counts copies in a dict: independent of the engine's base-4 digits
        counts = {f: hand.count(f) for f in hand}
        bad = any(not 0 <= f < 54 for f in hand) or max(counts.values()) > 2
        assert (hand_problem(hand) is not None) == bad
        if bad:
            refused += 1
            with pytest.raises(InvalidHandError) as caught:
                legal_plays(hand, 0)
            assert str(caught.value) == hand_problem(hand)
        else:
            legal_plays(hand, 0)
    assert 500 < refused < 2500


def test_four_copies_name_the_card():
    with pytest.raises(
        InvalidHandError, match=f"hand holds 4 copies of {FACE_NAMES[0]}: two decks hold at most 2"
    ):
        legal_plays((0, 0, 0, 0), 5)
    assert isinstance(InvalidHandError("x"), ValueError)

"""Dealing: ``deal_hands``' own shuffle gives ``random.Random.shuffle``'s cards and generator state."""

from __future__ import annotations

import random

from guandan_cli.engine import cards
from guandan_cli.engine.cards import deal_hands, full_deck


def by_random_shuffle(rng: random.Random) -> tuple:
    deck = full_deck()
    rng.shuffle(deck)
    return tuple(tuple(sorted(deck[i * 27 : (i + 1) * 27])) for i in range(4))


def test_the_same_cards_and_state_as_random_shuffle_on_many_seeds():
    seeds = (
        list(range(1500))
        + [2**63 - 1, 2**62 + 12345, 10**18 + 7]
        + [random.Random(9).getrandbits(63) for _ in range(500)]
    )
    for seed in seeds:
        ours, theirs = random.Random(seed), random.Random(seed)
        assert deal_hands(ours) == by_random_shuffle(theirs), seed
        assert ours.getstate() == theirs.getstate(), seed  # not one output more or fewer


def test_consecutive_deals_from_one_generator():
    ours, theirs = random.Random(77), random.Random(77)
    for _ in range(50):
        assert deal_hands(ours) == by_random_shuffle(theirs)
        assert ours.random() == theirs.random()  # interleaved draws stay in step


def test_the_shuffle_itself_matches_on_any_deck_order():
    for seed in range(200):
        deck = list(range(108))
        random.Random(seed + 1000).shuffle(deck)  # a deck in any order, distinct items
        ours, theirs = list(deck), list(deck)
        cards._shuffle(ours, random.Random(seed).getrandbits)
        random.Random(seed).shuffle(theirs)
        assert ours == theirs


def test_other_generators_shuffle_themselves():
    class Reversing(random.Random):
        def shuffle(self, x):
            x.reverse()

    hands = deal_hands(Reversing(1))
    assert hands[0] == tuple(sorted(full_deck()[81:]))
    assert sorted(sum(hands, ())) == full_deck()

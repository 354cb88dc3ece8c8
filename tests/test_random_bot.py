"""The random bot's shortcut draws exactly what ``Random.choice`` draws (same logs)."""

import random

import pytest
from guandan_cli.strategies.random_bot import RandomStrategy


@pytest.mark.parametrize("seed", [0, 1, 7, 12345])
def test_shortcut_picks_what_choice_picks(seed: int) -> None:
    bot = RandomStrategy(0, random.Random(seed))
    ref = random.Random(seed)
    draws = random.Random(seed + 1)
    for _ in range(5000):
        legal = tuple(range(draws.randrange(1, 300)))
        assert bot.choose_from_legal(legal) == ref.choice(legal)
    # the generators are in the same state afterwards
    assert bot.rng.getstate() == ref.getstate()


def test_other_generators_use_their_own_choice() -> None:
    class Fixed(random.Random):
        def choice(self, seq):
            return seq[-1]

    assert RandomStrategy(0, Fixed(3)).choose_from_legal((1, 2, 3)) == 3


def test_empty_legal_raises_like_choice() -> None:
    with pytest.raises(IndexError):
        RandomStrategy(0, random.Random(1)).choose_from_legal(())

import pytest

from guandan_cli.engine import CardParseError, format_cards, parse_cards
from guandan_cli.engine.cards import FACE_NAMES, N_FACES, deal_hands, full_deck, level_index


def test_every_face_round_trips():
    for face in range(N_FACES):
        assert parse_cards(FACE_NAMES[face]) == (face,)
    assert len(set(FACE_NAMES)) == 54


def test_alternative_spellings():
    assert parse_cards("♠3 h10 ♦t sb HR") == parse_cards("S3 HT DT SB HR")


def test_bad_token_names_token_and_position():
    with pytest.raises(CardParseError, match=r"'X9' at position 3"):
        parse_cards("S3 H4 X9")
    assert issubclass(CardParseError, ValueError)


def test_symbols():
    assert format_cards(parse_cards("HT SB HR"), symbols=True) == "♥10 小王 大王"


def test_deal_gives_every_face_twice():
    import random

    hands = deal_hands(random.Random(7))
    assert [len(h) for h in hands] == [27] * 4
    assert sorted(f for h in hands for f in h) == full_deck()


def test_deal_hands_deals_what_random_shuffle_deals():
    """The written-out shuffle of a plain ``random.Random`` gives ``Random.shuffle``'s order
    (the seeded deals of every log depend on it); another generator's own shuffle is used."""
    import random

    from guandan_cli.engine.cards import deal_hands, full_deck

    def reference(rng):
        deck = full_deck()
        rng.shuffle(deck)
        return tuple(tuple(sorted(deck[i * 27 : (i + 1) * 27])) for i in range(4))

    for seed in range(3000):
        assert deal_hands(random.Random(seed)) == reference(random.Random(seed)), seed

    class Reversed(random.Random):
        def shuffle(self, x):
            x.reverse()

    hands = deal_hands(Reversed(1))
    assert hands[0] == tuple(sorted(full_deck()[-27:]))


@pytest.mark.parametrize("token", ["x", "SB", "1", ""])
def test_a_bad_level_token_names_the_levels_not_the_jokers(token):
    """level_index (legal_plays, make_plan) once answered 'x' with rank_index's error, which
    offers SB and HR: no levels."""
    with pytest.raises(ValueError) as exc:
        level_index(token)
    assert (
        str(exc.value)
        == f"bad level {token!r}: a level is one of 2 3 4 5 6 7 8 9 T J Q K A (10 for T also works)"
    )

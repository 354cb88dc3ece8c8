"""Card and combination input refused where it is parsed (engine): a third copy of a card, a wrong-size combo."""

from __future__ import annotations

import pytest

from guandan_cli.engine.cards import CardParseError, parse_cards
from guandan_cli.engine.combos import SIZES, Combo, check_declared, readings


@pytest.mark.parametrize(
    ("text", "token", "position"), [("S3 S3 S3", "S3", 3), ("SB SB SB", "SB", 3), ("HR S4 hr ♠4 HR", "HR", 5)]
)
def test_a_third_copy_of_a_card_is_refused_naming_the_token(text, token, position):
    with pytest.raises(CardParseError) as info:
        parse_cards(text)
    message = str(info.value)
    assert f"card {token!r} at position {position}" in message and "at most 2 copies" in message


def test_two_copies_are_fine_and_a_full_deal_parses():
    assert parse_cards("S3 S3 SB SB") == (4, 4, 52, 52)
    from guandan_cli.engine.cards import FACE_NAMES

    assert len(parse_cards(" ".join(FACE_NAMES * 2))) == 108


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("pair:3 S3", "a pair is exactly 2 cards"),
        ("single:3 S3 D3", "a single is exactly 1 card (rules.md §4), got 2"),
        ("triple:3 S3 D3", "a triple is exactly 3 cards"),
        ("bomb:3 S3 D3 C3", "a bomb is 4 to 10 cards"),
        ("tube:5 S3 D3 S4 D4 S5", "a tube is exactly 6 cards"),
        ("joker_bomb:HR SB SB HR HR", None),  # right size: parses
    ],
)
def test_a_combo_of_the_wrong_size_is_refused_naming_the_text_and_the_rule(text, rule):
    if rule is None:
        assert Combo.from_text(text).size == 4
        return
    with pytest.raises(ValueError) as info:
        Combo.from_text(text)
    assert repr(text) in str(info.value) and rule in str(info.value) and "rules.md §4" in str(info.value)


def test_every_reading_has_a_size_its_type_allows():
    # the sizes table agrees with the engine's own readings (an independent source)
    import random

    from guandan_cli.engine.cards import deal_hands

    rng = random.Random(5)
    for _ in range(200):
        hand = deal_hands(rng)[0]
        cards = rng.sample(hand, rng.randint(1, 8))
        for combo in readings(cards, "2"):
            assert combo.size in SIZES[combo.type]


def test_a_declaration_must_be_a_reading_of_its_cards():
    assert check_declared(Combo.from_text("tube:5 S3 H4 D4 C5 S5 H2"), "2").key == "5"
    with pytest.raises(ValueError, match=r"no valid reading .* level 3"):
        check_declared(Combo.from_text("tube:5 S3 S4 D4 C5 S5 H2"), "3")  # rules.md §6 example

"""One test per fact of rules.md §3–6, written with card and combo text."""

import pytest

from guandan_cli.engine import Combo, beats, parse_cards, readings


def reads(cards: str, level: str) -> set[str]:
    """The declarations of ``cards`` at ``level`` as ``type:key`` strings."""
    return {f"{c.type}:{c.key}" for c in readings(parse_cards(cards), level)}


def c(text: str) -> Combo:
    return Combo.from_text(text)


# --- rules.md §6 examples -------------------------------------------------------------


def test_s6_level2_wild_completes_tube():
    assert reads("S3 H4 D4 C5 S5 H2", "2") == {"tube:5"}


def test_s6_level3_wild_completes_tube():
    assert reads("S4 H5 D5 C6 S6 H3", "3") == {"tube:6"}


def test_s6_level3_h2_is_an_ordinary_two():
    assert reads("S3 S4 D4 C5 S5 H2", "3") == set()


def test_s6_three_sevens_and_two_wilds_are_bomb_or_full_house():
    assert reads("S7 D7 C7 H2 H2", "2") == {"bomb:7", "full_house:7"}


def test_s6_suited_run_is_straight_flush_or_straight():
    assert reads("S7 S8 S9 ST SJ", "2") == {"straight:J", "straight_flush:J"}


@pytest.mark.parametrize(
    "cards, expected",
    [
        ("S9 H2", "pair:9"),
        ("S9 C9 H2", "triple:9"),
        ("S9 C9 H2 S4 D4", "full_house:9"),
        ("S9 ST H2 SQ DK", "straight:K"),
        ("S9 C9 ST CT H2 DJ", "tube:J"),
        ("S9 C9 D9 ST H2 CT", "plate:T"),
        ("S9 C9 D9 H2", "bomb:9"),
    ],
)
def test_s6_wild_completes_each_type(cards, expected):
    assert expected in reads(cards, "2")


def test_s6_wild_completes_straight_flush():
    assert reads("S9 ST H2 SQ SK", "2") == {"straight:K", "straight_flush:K"}


def test_s6_wild_never_stands_for_a_joker():
    assert reads("SB H2", "2") == set()
    assert reads("HR H2", "2") == set()
    assert reads("SB SB HR H2", "2") == set()
    assert reads("SB H2 HR HR", "2") == set()
    assert reads("SB SB HR HR H2", "2") == set()


def test_s6_declaration_is_part_of_the_play():
    bomb = c("bomb:7 S7 D7 C7 H2 H2")
    house = c("full_house:7 S7 D7 C7 H2 H2")
    assert bomb.cards == house.cards and bomb != house
    assert beats(bomb, c("full_house:A SA DA CA S3 D3"), "2")
    assert not beats(house, c("full_house:A SA DA CA S3 D3"), "2")


# --- sequences: natural order, A low only at the bottom ------------------------------


def test_a2345_is_the_lowest_straight():
    assert reads("SA D2 C3 S4 H5", "9") == {"straight:5"}
    assert beats(c("straight:6 D2 C3 S4 H5 S6"), c("straight:5 SA D2 C3 S4 H5"), "9")


def test_tjqka_is_the_highest_straight():
    top = c("straight:A ST DJ CQ SK HA")
    assert reads("ST DJ CQ SK HA", "9") == {"straight:A"}
    assert not beats(c("straight:K S9 ST DJ CQ SK"), top, "9")
    assert beats(top, c("straight:K S9 ST DJ CQ SK"), "9")


def test_jqka2_is_no_combination():
    assert reads("SJ DQ CK SA H2", "9") == set()


def test_aa2233_is_the_lowest_tube():
    assert reads("SA DA S2 D2 S3 D3", "9") == {"tube:3"}
    assert beats(c("tube:4 S2 D2 S3 D3 S4 D4"), c("tube:3 SA DA S2 D2 S3 D3"), "9")


def test_aaa222_is_the_lowest_plate():
    assert reads("SA DA CA S2 D2 C2", "9") == {"plate:2"}
    assert beats(c("plate:3 S2 D2 C2 S3 D3 C3"), c("plate:2 SA DA CA S2 D2 C2"), "9")


def test_kkaa22_is_no_tube():
    assert reads("SK DK SA DA S2 D2", "9") == set()


def test_level_card_in_a_straight_counts_at_natural_rank():
    # at level 7, 3-4-5-6-7 is the straight to 7, beaten by 4-5-6-7-8
    assert reads("S3 D4 C5 S6 D7", "7") == {"straight:7"}
    assert beats(c("straight:8 D4 C5 S6 D7 S8"), c("straight:7 S3 D4 C5 S6 D7"), "7")
    assert reads("S7 D8 C9 ST DJ", "7") == {"straight:J"}


# --- power order -----------------------------------------------------------------------


def test_level2_single_two_beats_ace():
    assert beats(c("single:2 S2"), c("single:A SA"), "2")
    assert not beats(c("single:A SA"), c("single:2 S2"), "2")


def test_level7_three_beats_two():
    assert beats(c("single:3 S3"), c("single:2 S2"), "7")
    assert beats(c("single:7 S7"), c("single:A SA"), "7")
    assert beats(c("single:SB SB"), c("single:7 S7"), "7")
    assert beats(c("single:HR HR"), c("single:SB SB"), "7")


# --- bomb class --------------------------------------------------------------------------


def test_six_card_bomb_of_threes_beats_every_straight_flush():
    six = c("bomb:3 S3 S3 H3 C3 C3 D3")
    for top in ("A", "5", "9"):
        sf = {"A": "ST SJ SQ SK SA", "5": "SA S2 S3 S4 S5", "9": "D5 D6 D7 D8 D9"}[top]
        assert beats(six, c(f"straight_flush:{top} {sf}"), "2")
        assert not beats(c(f"straight_flush:{top} {sf}"), six, "2")


def test_straight_flush_beats_five_card_bomb_of_level_cards():
    five = c("bomb:7 S7 S7 H7 C7 D7")
    sf = c("straight_flush:6 S2 S3 S4 S5 S6")
    assert beats(sf, five, "7")
    assert not beats(five, sf, "7")


def test_joker_bomb_beats_ten_card_bomb():
    ten = c("bomb:7 S7 S7 H7 H7 C7 C7 D7 D7 H2 H2")
    jb = c("joker_bomb:HR SB SB HR HR")
    assert beats(jb, ten, "2")
    assert not beats(ten, jb, "2")


def test_level_bomb_beats_ace_bomb_of_same_size():
    assert beats(c("bomb:7 S7 H7 C7 D7"), c("bomb:A SA HA CA DA"), "7")
    assert not beats(c("bomb:2 S2 H2 C2 D2 D2"), c("bomb:A SA HA CA DA DA"), "7")
    assert beats(c("bomb:3 S3 H3 C3 D3 D3"), c("bomb:A SA HA CA DA"), "7")


# --- jokers and wilds ---------------------------------------------------------------------


def test_sb_hr_is_not_a_pair():
    assert reads("SB HR", "2") == set()
    assert reads("SB SB", "2") == {"pair:SB"}
    assert reads("HR HR", "2") == {"pair:HR"}


def test_wild_alone_is_a_level_single():
    assert reads("H9", "9") == {"single:9"}


def test_two_wilds_alone_are_a_level_pair():
    assert reads("H9 H9", "9") == {"pair:9"}


def test_wild_never_completes_joker_pair_or_joker_bomb():
    assert reads("SB H9", "9") == set()
    assert reads("HR H9", "9") == set()
    assert reads("SB SB HR H9", "9") == set()


def test_full_house_may_carry_a_joker_pair():
    assert reads("S5 D5 C5 SB SB", "2") == {"full_house:5"}
    assert reads("S5 D5 C5 HR HR", "2") == {"full_house:5"}
    assert reads("S5 D5 H2 HR HR", "2") == {"full_house:5"}
    assert reads("S5 D5 C5 SB HR", "2") == set()


def test_ten_card_bomb_is_eight_naturals_and_both_wilds():
    assert reads("S7 S7 H7 H7 C7 C7 D7 D7 H2 H2", "2") == {"bomb:7"}
    assert reads("S7 S7 H7 H7 C7 C7 D7 D7 H2", "2") == {"bomb:7"}
    assert reads("S7 S7 H7 H7 C7 C7 D7 D7", "2") == {"bomb:7"}


# --- sizes are exact ----------------------------------------------------------------------


def test_straight_of_six_is_no_combination():
    assert reads("S3 D4 C5 S6 D7 C8", "2") == set()


def test_four_pairs_in_a_run_are_no_combination():
    assert reads("S3 D3 S4 D4 S5 D5 S6 D6", "2") == set()


def test_three_triples_in_a_run_are_no_combination():
    assert reads("S3 D3 C3 S4 D4 C4 S5 D5 C5", "2") == set()


# --- beats ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "single:7 S7",
        "pair:7 S7 D7",
        "triple:7 S7 D7 C7",
        "full_house:7 S7 D7 C7 S3 D3",
        "straight:7 S3 D4 C5 S6 D7",
        "tube:7 S5 D5 S6 D6 S7 D7",
        "plate:7 S6 D6 C6 S7 D7 C7",
        "bomb:7 S7 D7 C7 H7",
        "straight_flush:7 S3 S4 S5 S6 S7",
        "joker_bomb:HR SB SB HR HR",
    ],
)
def test_equal_plays_never_beat_each_other(text):
    a = c(text)
    assert not beats(a, a, "2")
    assert not beats(a, a, "7")


def test_equal_keys_with_other_cards_do_not_beat():
    assert not beats(c("pair:7 H7 C7"), c("pair:7 S7 D7"), "2")
    assert not beats(c("full_house:7 S7 D7 C7 SA DA"), c("full_house:7 S7 D7 C7 S3 D3"), "2")
    assert not beats(c("straight:7 D3 D4 C5 S6 D7"), c("straight:7 S3 D4 C5 S6 D7"), "2")


def test_any_bomb_beats_any_non_bomb():
    assert beats(c("bomb:2 S2 D2 C2 H2"), c("tube:A SQ DQ SK DK SA DA"), "7")


def test_different_types_do_not_beat():
    assert not beats(c("pair:A SA DA"), c("single:3 S3"), "2")
    assert not beats(c("tube:A SQ DQ SK DK SA DA"), c("plate:3 S2 D2 C2 S3 D3 C3"), "2")


# --- text form -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "single:SB SB",
        "pair:HR HR HR",
        "tube:5 H2 S3 H4 D4 S5 C5",
        "bomb:T H2 H2 ST CT DT DT",
        "straight:5 S2 D3 C4 H5 SA",
        "full_house:Q SQ DQ HQ SB SB",
        "joker_bomb:HR SB SB HR HR",
    ],
)
def test_combo_text_round_trips(text):
    combo = c(text)
    assert Combo.from_text(combo.text()) == combo
    assert Combo.from_text(combo.text(symbols=True)) == combo
    assert c(combo.text()).text() == combo.text()


def test_combo_key_spellings():
    assert c("bomb:10 ST CT DT HT") == c("bomb:T ST CT DT HT")
    assert c("pair:7 S7 D7").key == "7" and c("pair:7 S7 D7").size == 2


@pytest.mark.parametrize(
    "text, named",
    [
        ("pair7 S7 D7", "pair7"),
        ("foo:7 S7 D7", "foo"),
        ("pair:X S7 D7", "X"),
        ("pair:7 S7 X7", "X7"),
        ("pair:7", "pair:7"),
    ],
)
def test_bad_combo_text_raises_value_error_naming_it(text, named):
    with pytest.raises(ValueError) as info:
        Combo.from_text(text)
    assert repr(text) in str(info.value)
    assert named in str(info.value)

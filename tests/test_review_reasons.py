"""Review's reasons: what a move does to the hand, by the heuristic's plan, on hands built so
that the answer is known (a bomb broken or kept, a control card spent, the partner beaten, the
groups left), and the outcome shares of the worlds."""

from __future__ import annotations

import pytest

from guandan_cli.engine.cards import parse_cards
from guandan_cli.engine.combos import Combo
from guandan_cli.engine.deal import PASS
from guandan_cli.review.core import Alternative
from guandan_cli.review.reasons import move_facts, move_name, reason

#: a bomb of four 4s, an A–5 straight that needs one of the 4s, a pair of 3s, a pair of Ks (level Q)
BOMB_HAND = parse_cards("SA H2 D3 S4 H4 C4 D4 S5 S3 H3 SK HK")
Q = 10


def test_a_move_that_takes_a_card_from_a_bomb_breaks_it_and_one_that_does_not_keeps_it():
    straight = Combo.from_text("straight:5 SA H2 D3 C4 S5")
    broke = move_facts(BOMB_HAND, Q, straight)
    kept = move_facts(BOMB_HAND, Q, Combo.from_text("pair:3 S3 H3"))
    single = move_facts(BOMB_HAND, Q, Combo.from_text("single:4 S4"))
    assert broke.broken == ("your bomb of 4s",) and not broke.kept
    assert single.broken == ("your bomb of 4s",)
    assert kept.kept == ("your bomb of 4s",) and not kept.broken
    assert move_facts(BOMB_HAND, Q, PASS).kept == ("your bomb of 4s",)
    text = reason(BOMB_HAND, Q, straight, Combo.from_text("pair:3 S3 H3"))
    assert text.startswith("straight A–5 breaks your bomb of 4s; pair 3 keeps it")


def test_playing_the_bomb_itself_is_not_breaking_it():
    facts = move_facts(BOMB_HAND, Q, Combo.from_text("bomb:4 S4 H4 C4 D4"))
    assert facts.plays_bomb and not facts.broken and facts.move == "bomb of four 4s"


def test_control_cards_spent_are_named():
    hand = parse_cards("HR SB H7 S7 S3 D9 CJ")  # level 7 (index 5): H7 is the wild, S7 a level card
    lv = 5
    assert move_facts(hand, lv, Combo.from_text("single:HR HR")).spent == ("the big joker",)
    assert move_facts(hand, lv, Combo.from_text("single:7 H7")).spent == ("the ♥ wild",)
    assert move_facts(hand, lv, Combo.from_text("single:7 S7")).spent == ("a level card (7)",)
    assert move_facts(hand, lv, Combo.from_text("single:3 S3")).spent == ()


def test_groups_left_count_the_turns_of_a_hand_of_loose_singles():
    """Five singles that make no pair, straight or bomb: five turns; a single played leaves four,
    a pass five; the last card goes out."""
    hand = parse_cards("S3 H6 C9 DJ SK")
    assert move_facts(hand, 0, Combo.from_text("single:3 S3")).groups == 4
    assert move_facts(hand, 0, PASS).groups == 5
    last = move_facts(parse_cards("SK"), 0, Combo.from_text("single:K SK"))
    assert last.out and last.groups == 0 and last.text.endswith("out")
    same = reason(hand, 0, Combo.from_text("single:3 S3"), Combo.from_text("single:K SK"))
    assert same == "single 3 and single K both leave 4 groups"


def test_beating_the_partner_is_said_for_a_play_not_a_pass():
    hand = parse_cards("S3 H6 C9 DJ SK")
    assert move_facts(hand, 0, Combo.from_text("single:K SK"), partner_top=True).beats_partner
    assert not move_facts(hand, 0, PASS, partner_top=True).beats_partner
    assert not move_facts(hand, 0, Combo.from_text("single:K SK"), partner_top=False).beats_partner


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("pass", "pass"),
        ("single:T ST", "single 10"),
        ("pair:3 S3 H3", "pair 3"),
        ("straight:5 SA H2 D3 C4 S5", "straight A–5"),
        ("straight:A ST SJ SQ SK DA", "straight 10–A"),
        ("full_house:7 S7 H7 D7 S9 H9", "full house 7s"),
        ("joker_bomb:HR SB SB HR HR", "the joker bomb"),
    ],
)
def test_moves_are_named_as_a_player_says_them(text, name):
    move = PASS if text == "pass" else Combo.from_text(text)
    assert move_name(move) == name


def test_outcome_shares_come_from_the_worlds_outcomes():
    """Counts of −3..+3 levels: out first = the worlds above 0, double-downs the ±3 ends."""
    a = Alternative(PASS, 0.5, 0.0, 1.0, 8, outcomes=(1, 0, 2, 0, 3, 0, 2))
    assert a.first_out == 5 / 8 and a.double_for == 2 / 8 and a.double_against == 1 / 8

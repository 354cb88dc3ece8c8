"""The heuristic bot: its planner and targeted decisions (docs/strategies.md lists the rules)."""

from __future__ import annotations

import random

import pytest
from guandan_cli.strategies import make_players
from guandan_cli.strategies.heuristic import HeuristicStrategy, make_plan
from guandan_cli.strategies.heuristic.memory import Memory
from guandan_cli.strategies.heuristic.plan import group_combo
from observations import obs_for

from guandan_cli.engine import Combo, deal_hands, parse_cards, readings
from guandan_cli.engine.combos import BOMB_CLASS, POWER
from guandan_cli.engine.deal import PASS, Event
from guandan_cli.engine.match import Match
from guandan_cli.engine.play import iter_match
from guandan_cli.engine.rules import get_ruleset


def bot(seat=0):
    return HeuristicStrategy(seat, random.Random(0))


# ---------------------------------------------------------------- planner


def test_plan_covers_the_hand_with_valid_combinations():
    rng = random.Random(3)
    for _ in range(60):
        hand = deal_hands(rng)[0]
        lv = rng.randrange(13)
        plan = make_plan(hand, lv)
        left = list(hand)
        for g in sorted(plan.groups, key=lambda g: not g.faces):  # straight flushes take their faces first
            combo = group_combo(g, tuple(left), lv)
            assert any(r.type == g.type and r.rank == g.rank for r in readings(combo.cards, lv)), (g, combo)
            for f in combo.cards:
                left.remove(f)
        assert not left
        assert plan.hands <= 16


@pytest.mark.parametrize(
    ("hand", "level", "expected"),
    [
        ("S3 D3 S4 H2 S5 D5", 0, ["tube"]),  # the wild completes 33-44-55
        ("S3 H4 D5 C6 S7 S9 D9 SK", 0, ["straight", "single", "pair"]),
        ("S7 D7 C7 H7 S8 D9 CT SJ", 0, ["bomb", "single", "single", "single", "single"]),  # bomb kept whole
        ("S7 D7 C7 S9 D9", 0, ["full_house"]),
        ("S7 D7 C7 S8 D8 H8", 0, ["plate"]),
        ("S3 S4 S5 S6 S7 D9", 0, ["straight_flush", "single"]),
        ("SB SB HR HR S3", 0, ["joker_bomb", "single"]),
    ],
)
def test_plan_shapes(hand, level, expected):
    plan = make_plan(parse_cards(hand), level)
    assert sorted(g.type for g in plan.groups) == sorted(expected)


def test_plan_uses_wild_for_fewer_hands():
    # level 5: H5 is wild; 77 99 + wild -> full house (one hand), not two pairs and a single
    plan = make_plan(parse_cards("S7 D7 S9 D9 H5"), 3)
    assert [g.type for g in plan.groups] == ["full_house"]


# ---------------------------------------------------------------- partner


def test_does_not_overtake_partners_high_play():
    b = bot(0)
    o = obs_for("SA DA S3 D6 C9 CT", top="pair:K SK DK", owner=2)
    assert b.choose_play(o) is PASS


def test_overtakes_partner_only_to_go_out():
    b = bot(0)
    assert b.choose_play(obs_for("SA DA", top="pair:K SK DK", owner=2)).text() == "pair:A SA DA"


def test_passes_to_take_the_lead_after_partner_finished():
    b = bot(0)
    o = obs_for("SA D3 C5", top="single:K SK", owner=2, finished=(2,), counts=(3, 10, 0, 10))
    assert b.choose_play(o) is PASS  # 接风: the lead comes to seat 0


def test_feeds_a_partner_with_one_card():
    b = bot(0)
    o = obs_for("S4 D4 C4 S9 D9 S6 CK SA", counts=(8, 12, 1, 12))
    play = b.choose_play(o)
    assert play.type == "single" and play.key == "6"


# ---------------------------------------------------------------- opponents


def test_bombs_an_opponent_about_to_go_out():
    b = bot(0)
    o = obs_for("S3 D5 C7 S8 D8 H8 C8", top="single:A SA", owner=3, counts=(7, 12, 12, 2))
    assert b.choose_play(o).type in BOMB_CLASS


def test_keeps_bomb_when_no_one_is_close():
    b = bot(0)
    o = obs_for("S3 D5 C7 S8 D8 H8 C8 SJ DQ S4 D6 C9", top="single:A SA", owner=3)
    assert b.choose_play(o) is PASS


def test_answers_opponent_with_planned_group():
    b = bot(0)
    o = obs_for("S3 D6 C9 SQ DQ S4 S5", top="single:8 S8", owner=1)
    assert b.choose_play(o).text() == "single:9 C9"


def test_avoids_leading_singles_into_an_opponent_with_one_card():
    b = bot(0)
    o = obs_for("S3 D6 D6 C9", counts=(4, 1, 10, 10))
    assert b.choose_play(o).type != "single"


def test_runs_out_with_control_first():
    b = bot(0)
    o = obs_for("HR S3")
    assert b.choose_play(o).text() == "single:HR HR"


def test_counts_played_cards():
    # both big jokers and one small joker are out: the small joker is now a control
    events = [
        Event("play", 1, Combo.from_text("single:HR HR"), lead=True),
        Event("play", 3, Combo.from_text("single:HR HR")),
        Event("play", 2, Combo.from_text("single:SB SB"), lead=True),
    ]
    b = bot(0)
    o = obs_for("SB S3", events=events)
    assert b.choose_play(o).text() == "single:SB SB"
    b2 = bot(0)
    assert b2.choose_play(obs_for("SB S3")).text() == "single:3 S3"  # unseen jokers: SB is not safe


# ---------------------------------------------------------------- tribute and return


def test_returns_a_low_unneeded_card_and_never_breaks_a_bomb():
    b = bot(0)
    hand = "S2 D2 C2 H2 S4 S6 D6 S9 D9 SJ DJ CQ SK DK CA SB"
    legal = sorted({f for f in parse_cards(hand) if f // 4 <= 8})
    o = obs_for(hand, phase="return", legal=legal, level=5, return_to=3)
    card = b.choose_return(o)
    assert card == parse_cards("S4")[0]  # the lone 4: not a 2 of the bomb, nor a pair's card


def test_never_returns_the_wild_or_a_straight_flush_card():
    b = bot(0)
    # level 3: H3 is wild; spades 5-9 are a straight flush; the lone D4 goes back
    hand = "H3 S5 S6 S7 S8 S9 D4 CT CT SK DK"
    legal = sorted({f for f in parse_cards(hand) if f // 4 <= 8})
    o = obs_for(hand, phase="return", legal=legal, level=1, return_to=1)
    card = b.choose_return(o)
    assert card == parse_cards("D4")[0]


def test_tribute_keeps_a_straight_flush():
    b = bot(0)
    # level 2: the level cards S2/C2 are the highest; S2 is in the straight flush SA-S5
    hand = "SA S2 S3 S4 S5 C2 D7 D9"
    legal = list(parse_cards("S2 C2"))
    o = obs_for(hand, phase="tribute", legal=legal)
    assert b.choose_tribute(o) == parse_cards("C2")[0]


# ---------------------------------------------------------------- whole matches


def test_heuristic_beats_random_quickly():
    wins = 0
    for seed in range(10):
        for team in (0, 1):
            names = ["heuristic", "random"] * 2 if team == 0 else ["random", "heuristic"] * 2
            match = Match(1000 + seed, get_ruleset("cgr2022", max_deals=200))
            for _ in iter_match(match, make_players(names, match.seed)):
                pass
            wins += match.winner == team
    assert wins >= 17


def test_heuristic_beats_greedy_quickly():
    wins = 0
    for seed in range(5):
        for team in (0, 1):
            names = ["heuristic", "greedy"] * 2 if team == 0 else ["greedy", "heuristic"] * 2
            match = Match(2000 + seed, get_ruleset("cgr2022", max_deals=200))
            for _ in iter_match(match, make_players(names, match.seed)):
                pass
            wins += match.winner == team
    assert wins >= 7


def _reference_higher_exists(t, rank, size, un, uw, lv):
    """Memory.higher_exists as first written (single, pair, triple and full house)."""
    pw = POWER[lv]
    p = pw[rank]
    if t == "single":
        return bool(uw and 13 > p) or any(un[r] and pw[r] > p for r in range(15))
    if t == "pair":
        for r in range(15):
            if pw[r] > p and (un[r] >= 2 or (r < 13 and un[r] + uw >= 2 and un[r] >= 1)):
                return True
        return uw >= 2 and 13 > p
    return any(pw[r] > p and un[r] and un[r] + uw >= 3 for r in range(13))


def test_higher_exists_is_the_reference_on_random_unseen_counts():
    rng = random.Random(3)
    for _ in range(20000):
        lv = rng.randrange(13)
        un = [rng.choice((0, 0, 1, 2, 3, 8)) for _ in range(13)] + [rng.randrange(3), rng.randrange(3)]
        uw = rng.randrange(3)
        t = rng.choice(("single", "pair", "triple", "full_house"))
        rank = rng.randrange(15 if t in ("single", "pair") else 13)
        got = Memory.higher_exists(t, rank, 1, un, uw, lv)
        assert got == _reference_higher_exists(t, rank, 1, un, uw, lv), (t, rank, un, uw, lv)

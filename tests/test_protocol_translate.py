"""Translation between our plays and the platform's moves, and the platform's actionList order."""

import random

import pytest

from guandan_cli.engine import deal_hands
from guandan_cli.engine.cards import parse_card, parse_cards
from guandan_cli.engine.combos import POWER, Combo
from guandan_cli.engine.deal import PASS
from guandan_cli.engine.legal import all_plays, legal_plays
from guandan_cli.protocol.translate import (
    MoveError,
    action_list,
    completed_by_wild,
    from_move,
    sort_by_power,
    to_move,
)

#: the platform's type order, bombs split by size (docs/protocol.md)
PLATFORM_TYPES = ["Single", "Pair", "Trips", "ThreePair", "ThreeWithTwo", "TwoTrips", "Straight"]


def _hands(n: int, seed: int):
    rng = random.Random(seed)
    for _ in range(n):
        hands = deal_hands(rng)
        size = rng.choice((27, 27, 18, 10))
        yield tuple(sorted(rng.sample(hands[rng.randrange(4)], size))), rng.randrange(13)


def test_every_play_converts_and_back_unchanged_at_every_level():
    count = 0
    for level in range(13):
        for hand, _ in _hands(6, 100 + level):
            for combo in all_plays(hand, level):
                move = to_move(combo)
                assert isinstance(move[0], str) and isinstance(move[1], str)
                assert all(isinstance(card, str) and len(card) == 2 for card in move[2])
                assert from_move(move, level) == combo, (combo, move)
                count += 1
    assert count > 20000


def test_following_plays_convert_too():
    for hand, level in _hands(30, 7):
        for top in list(all_plays(hand[:8], level))[::7]:
            for combo in all_plays(hand, level, top):
                assert from_move(to_move(combo), level) == combo


def test_protocol_examples():
    assert to_move(Combo.from_text("joker_bomb:HR SB SB HR HR")) == [
        "Bomb",
        "JOKER",
        ["SB", "SB", "HR", "HR"],
    ]
    assert to_move(Combo.from_text("single:SB SB")) == ["Single", "B", ["SB"]]
    assert to_move(Combo.from_text("pair:HR HR HR")) == ["Pair", "R", ["HR", "HR"]]
    assert to_move(Combo.from_text("straight:5 SA H2 S3 S4 D5"))[:2] == ["Straight", "A"]
    assert to_move(Combo.from_text("straight:A ST SJ HQ SK SA"))[:2] == ["Straight", "T"]
    assert to_move(Combo.from_text("plate:A SK HK DK SA HA CA"))[:2] == ["TwoTrips", "K"]
    assert to_move(Combo.from_text("full_house:7 S7 D7 C7 H9 S9"))[:2] == ["ThreeWithTwo", "7"]
    assert to_move(PASS) == ["PASS", "PASS", "PASS"]
    assert from_move(["PASS", "PASS", "PASS"], 3) == PASS


@pytest.mark.parametrize(
    "move",
    [
        ["Pair", "7", ["S7", "D8"]],  # cards do not form it
        ["Straight", "Q", ["SQ", "SK", "SA", "S2", "S3"]],  # no wrap-around
        ["Bomb", "9", ["S9"]],
        ["Single", "Z", ["S9"]],
        ["Single", "9", ["S10"]],
        ["Single", "9", []],
        "PASS",
        ["Single", "9"],
    ],
)
def test_malformed_moves_are_refused(move):
    with pytest.raises(MoveError):
        from_move(move, 0)


def _group(c: Combo) -> int:
    """Platform group of a listed play: 0..6 the plain types, then 4-card, 5-card, SF, 6+, jokers."""
    move = to_move(c)
    if move[0] in PLATFORM_TYPES:
        return PLATFORM_TYPES.index(move[0])
    if move[0] == "StraightFlush":
        return 9
    if move[1] == "JOKER":
        return 20
    n = len(move[2])
    return {4: 7, 5: 8}.get(n, 10 + n)


def test_action_list_follows_the_platform_order():
    for hand, level in _hands(40, 3):
        for top in (None, *list(all_plays(hand[:6], level))[:3]):
            listed = action_list(hand, level, top)
            if top is None:
                assert PASS not in listed
            else:
                assert listed[0] == PASS and listed.count(PASS) == 1
                listed = listed[1:]
            # exactly the distinct plays, every engine choice among them
            assert sorted(listed) == sorted(all_plays(hand, level, top))
            assert set(legal_plays(hand, level, top)) <= set(listed)
            groups = [_group(c) for c in listed]
            assert groups == sorted(groups)
            pw = POWER[level]
            for a, b in zip(listed, listed[1:]):
                if _group(a) != _group(b):
                    continue
                if to_move(a)[0] in ("Straight", "ThreePair", "TwoTrips", "StraightFlush"):
                    assert a.rank <= b.rank  # keys by top: the same order as the lowest rank
                elif to_move(a)[1] != "JOKER":
                    assert pw[a.rank] <= pw[b.rank]


def test_the_first_listed_play_of_a_type_is_its_lowest():
    hand = parse_cards("S3 D3 S5 H5 C5 S9 D9 DK SA HA SB")
    listed = action_list(hand, 0, None)
    singles = [c for c in listed if c.type == "single"]
    assert singles[0].rank == 1 and singles[-1].rank == 13  # 3 first, the small joker last
    pairs = [c for c in listed if c.type == "pair"]
    assert [to_move(p)[1] for p in pairs] == ["3", "5", "5", "5", "9", "A"]


def test_level_card_sorts_above_ace():
    # level 5: the 5s are above the A, below the jokers
    assert sort_by_power(parse_cards("S5 SA S2 SB"), 3) == [parse_card(t) for t in ("S2", "SA", "S5", "SB")]
    singles = [c for c in action_list(parse_cards("S5 SA S2"), 3, None) if c.type == "single"]
    assert [to_move(c)[1] for c in singles] == ["2", "A", "5"]


def test_platform_listing_leaves_out_straight_flushes_completed_by_a_wild():
    # level 2: H2 is the wild; S3 S4 S5 S6 + H2 is a straight flush in our rules
    hand = parse_cards("S3 S4 S5 S6 H2")
    ours = action_list(hand, 0, None)
    platform = action_list(hand, 0, None, wild_straight_flush=False)
    wild_sf = [c for c in ours if c.type == "straight_flush"]
    assert wild_sf and all(completed_by_wild(c, 0) for c in wild_sf)
    assert not [c for c in platform if c.type == "straight_flush"]
    assert [c for c in platform if c.type == "straight"] == [c for c in ours if c.type == "straight"]
    # a natural heart straight flush through the level card stays
    natural = parse_cards("H2 H3 H4 H5 H6")
    assert [c for c in action_list(natural, 0, None, wild_straight_flush=False) if c.type == "straight_flush"]

"""What a seat sees: its own hand and the public record, never another seat's hand."""

from __future__ import annotations

import dataclasses
import random

from test_deal_scripted import build_hands, default_action

from guandan_cli.engine.cards import deal_hands
from guandan_cli.engine.deal import Deal, DealSetup
from guandan_cli.engine.observation import Observation, observe
from guandan_cli.engine.rules import get_ruleset

FIELDS = {
    "seat",
    "phase",
    "to_move",
    "hand",
    "level",
    "levels",
    "level_team",
    "events",
    "card_counts",
    "finished",
    "top",
    "top_owner",
    "legal_actions",
    "tribute_kind",
    "return_to",
}


def _swap_other_hands(hands, seat, rng):
    """The same deal from ``seat``'s view: the other three hands reshuffled (same sizes)."""
    others = [s for s in range(4) if s != seat]
    pool = [f for s in others for f in hands[s]]
    rng.shuffle(pool)
    out, i = list(hands), 0
    for s in others:
        n = len(hands[s])
        out[s] = tuple(sorted(pool[i : i + n]))
        i += n
    return tuple(out)


def test_observation_fields_are_exactly_the_public_view():
    assert {f.name for f in dataclasses.fields(Observation)} == FIELDS
    hands = deal_hands(random.Random(3))
    d = Deal(DealSetup(hands=hands, level=4, levels=(4, 2), level_team=0, first_leader=1))
    for seat in range(4):
        o = observe(d, seat)
        assert o.hand == hands[seat] and o.seat == seat and o.partner == seat ^ 2 and o.team == seat & 1
        assert (o.level, o.levels, o.level_team) == (4, (4, 2), 0)
        assert o.card_counts == (27, 27, 27, 27) and o.finished == () and o.top is None and o.leading
        assert (o.legal_actions != ()) == (seat == 1)
        values = [getattr(o, f) for f in FIELDS]
        for other in range(4):
            if other != seat:
                assert hands[other] not in values and list(hands[other]) not in values


def test_observation_depends_only_on_own_hand_and_public_events():
    """Two deals with the same public history whose other hands differ look the same to a seat."""
    rng = random.Random(7)
    for trial in range(6):
        rules = get_ruleset("cgr2022" if trial % 2 else "jiangsu2017")
        hands = deal_hands(random.Random(trial))
        previous = (
            ((0, 1, 2, 3), False) if trial % 3 == 0 else (((2, 0, 1, 3), True) if trial % 3 == 1 else None)
        )
        a = Deal(DealSetup(hands=hands, level=trial, previous=previous, first_leader=trial % 4, rules=rules))
        steps = 0
        while a.phase != "over" and steps < 60:
            seat = a.to_move
            b_hands = _swap_other_hands(tuple(tuple(h) for h in a.hands), seat, rng)
            # b: the same history, then the other seats' hands replaced by a reshuffle
            b = Deal(
                DealSetup(hands=hands, level=trial, previous=previous, first_leader=trial % 4, rules=rules)
            )
            for _s, act in a.actions:
                b.apply_unchecked(act)
            b.hands = [list(h) for h in b_hands]
            b._legal_cache = None
            assert observe(a, seat) == observe(b, seat)
            for other in range(4):
                if other != seat:
                    assert observe(a, other).legal_actions == ()
            a.apply(default_action(a) if steps % 3 else a.legal_actions()[-1])
            steps += 1


def test_return_choice_hidden_until_both_returns_are_chosen():
    hands = build_hands({1: "SA", 3: "SB", 0: "HR HR SB"}, fill_order=(1, 3, 0, 2))
    d = Deal(DealSetup(hands=hands, level=8, previous=((0, 2, 1, 3), True), first_leader=None))
    d.apply(d.legal_actions()[0])
    assert all(observe(d, s).events == () for s in range(4))  # the first tribute is hidden
    d.apply(d.legal_actions()[0])
    assert all(len(observe(d, s).events) == 2 for s in range(4))
    o = observe(d, 0)
    assert (o.phase, o.return_to, o.tribute_kind) == ("return", 3, "double")
    d.apply(d.legal_actions()[0])
    o2 = observe(d, 2)
    assert len(o2.events) == 2 and o2.return_to == 1 and observe(d, 3).return_to == -1
    assert o2.hand == tuple(d.hands[2])
    d.apply(d.legal_actions()[0])
    assert [e.kind for e in observe(d, 1).events] == ["tribute", "tribute", "return", "return"]


def test_top_and_owner_and_counts_follow_the_trick():
    d = Deal(DealSetup(hands=build_hands(), first_leader=0))
    d.apply(default_action(d))
    o = observe(d, 3)
    assert o.top == d.events[-1].combo and o.top_owner == 0 and not o.leading
    assert o.card_counts[0] == 27 - len(o.top.cards) and o.to_move == 1 and o.legal_actions == ()
    for _ in range(3):
        d.apply(default_action(d))
    o = observe(d, 3)
    assert o.top is None and o.top_owner == -1 and o.to_move == 0

"""The heuristic's card memory and plan groups: the fast code gives the reference values."""

from __future__ import annotations

import random

from guandan_cli.strategies.heuristic import make_plan
from guandan_cli.strategies.heuristic.memory import Memory

from guandan_cli.engine import deal_hands
from guandan_cli.engine.deal import PLAY, Deal, DealSetup


def _events_of_random_deals(trials: int, seed: int):
    rng = random.Random(seed)
    for trial in range(trials):
        deal = Deal(DealSetup(hands=deal_hands(rng), level=trial % 13, first_leader=trial % 4))
        while deal.phase == PLAY:
            deal.apply_unchecked(rng.choice(deal.legal_actions()))
        yield trial % 13, tuple(deal.events)


def _state(m: Memory) -> tuple:
    return (m.played, m.played_wild, m.seen_events, m.last_play, m.passed_on, m.top, m.top_owner)


def test_memory_state_does_not_depend_on_how_events_are_split_into_updates():
    rng = random.Random(5)
    for lv, events in _events_of_random_deals(30, 1):
        whole = Memory(lv)
        whole.update(events)
        parts = Memory(lv)
        cut = 0
        while cut < len(events):
            cut = min(len(events), cut + rng.randrange(0, 6))
            parts.update(events[:cut])
        assert _state(parts) == _state(whole)
        # the reference: counts of the cards played, each seat's last play, passes on opponents' plays
        played = [0] * 15
        wild = lv * 4 + 1
        cards = [f for ev in events if ev.kind == "play" for f in ev.combo.cards]
        for f in cards:
            if f != wild:
                played[f // 4 if f < 52 else f - 39] += 1
        assert whole.played == played and whole.played_wild == cards.count(wild)
        top = None
        passed: list[list] = [[], [], [], []]
        for ev in events:
            if ev.kind == "play":
                top = ev
            elif ev.kind == "pass" and (top.seat ^ ev.seat) & 1:
                passed[ev.seat].append(top.combo)
        assert whole.passed_on == passed


def test_group_size_is_its_number_of_cards():
    rng = random.Random(8)
    for _ in range(300):
        lv = rng.randrange(13)
        hand = tuple(sorted(rng.sample(deal_hands(rng)[0], rng.randrange(1, 28))))
        plan = make_plan(hand, lv)
        assert sum(g.size for g in plan.groups) == len(hand)
        for g in plan.groups:
            assert g.size == sum(n for _r, n in g.counts) + g.wilds

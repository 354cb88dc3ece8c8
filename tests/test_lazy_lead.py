"""A lead's legal plays built type by type equal the full legal list, filtered.

An observation of a seat to lead builds its plays per type on demand (``legal_of_types``)
and the whole ``legal_actions`` tuple only when asked; the game loop looks a lead's answer
up among the plays of its type. Every path must give exactly what ``legal_plays`` gives:
the same combos, cards and order.
"""

from __future__ import annotations

import copy
import dataclasses
import pickle
import random

import pytest
from guandan_cli.strategies.heuristic import HeuristicStrategy

from guandan_cli.engine import Combo, deal_hands, legal_plays
from guandan_cli.engine.combos import BOMB_CLASS, COMBO_TYPES
from guandan_cli.engine.deal import PASS, PLAY, Deal, DealSetup
from guandan_cli.engine.legal import _Hand, plays_of_type
from guandan_cli.engine.observation import Observation, observe
from guandan_cli.engine.play import StrategyError, play_deal

#: the faces of two decks
DECKS = [f for f in range(54) for _ in range(2)]


def _hand(rng: random.Random, lv: int) -> list[int]:
    """A random hand, often with extra wilds, jokers, bombs or a straight flush."""
    n = rng.randrange(1, 28)
    pool = list(DECKS)
    hand: list[int] = []
    extra = rng.randrange(5)
    if extra == 1:  # both wilds
        hand += [lv * 4 + 1] * 2
    elif extra == 2:  # jokers, maybe all four
        hand += rng.choice(([52, 52], [53, 53], [52, 52, 53, 53], [52, 53]))
    elif extra == 3:  # a bomb
        r = rng.randrange(13)
        hand += [r * 4 + s for s in range(4)] * 2
        hand = hand[: rng.randrange(4, 9)]
    elif extra == 4:  # a natural straight flush (A-2-3-4-5 included)
        top = rng.randrange(3, 13)
        s = rng.randrange(4)
        hand += [((top - k) % 13) * 4 + s for k in range(5)]
    for f in hand:
        pool.remove(f)
    rng.shuffle(pool)
    hand += pool[: max(0, n - len(hand))]
    return sorted(hand)


def _top(rng: random.Random, lv: int) -> Combo:
    """A top play of any type: a legal lead of another random hand."""
    plays = legal_plays(_hand(rng, lv), lv)
    bombs = [c for c in plays if c[0] in BOMB_CLASS]
    if bombs and rng.random() < 0.25:
        return rng.choice(bombs)
    return rng.choice(plays)


def test_plays_of_type_equal_filtered_legal_plays_lead_and_follow():
    rng = random.Random(20261130)
    seen = set()
    for trial in range(1500):
        lv = rng.randrange(13)
        hand = _hand(rng, lv)
        top = None if trial % 2 else _top(rng, lv)
        full = legal_plays(hand, lv, top)
        h = _Hand(hand, lv)
        joined = []
        for t in COMBO_TYPES:
            got = plays_of_type(h, t, top)
            assert got == [c for c in full if c[0] == t], (hand, lv, top, t)
            assert all(type(c) is Combo for c in got)
            joined += got
            seen.update((t, top is None) for _c in got[:1])
        # the legal list is listed type after type in COMBO_TYPES order
        assert joined == full, (hand, lv, top)
        assert plays_of_type(h, "pass", top) == [] and plays_of_type(h, "nonsense", top) == []
    # every type was met leading and following
    assert seen == {(t, lead) for t in COMBO_TYPES for lead in (True, False)}


def _lead_positions(trials: int, seed: int):
    """(deal, seat) at many leads of random self-play deals (random answers)."""
    rng = random.Random(seed)
    for trial in range(trials):
        deal = Deal(DealSetup(hands=deal_hands(rng), level=trial % 13, first_leader=trial % 4))
        while deal.phase == PLAY:
            if deal.top is None:
                yield deal, deal.to_move
            acts = deal.legal_actions()
            deal.apply_unchecked(
                max(acts, key=lambda a: (len(a[2]), rng.random())) if trial % 2 else rng.choice(acts)
            )


def _plain(obs: Observation) -> Observation:
    """The same observation as a plain ``Observation`` with its legal tuple built."""
    return Observation(**{f.name: getattr(obs, f.name) for f in dataclasses.fields(Observation)})


def test_lead_observation_is_the_plain_observation():
    checked = 0
    for deal, seat in _lead_positions(30, 3):
        obs = observe(deal, seat)
        # a fresh analysis of the hand (the observation's comes from the deal's cache)
        fresh = tuple(legal_plays(deal.hands[seat], deal.level))
        # asked by type first: built per type, equal to the filtered full list
        for types in (("pair",), ("single", "triple"), ("bomb", "straight_flush", "joker_bomb"), ("plate",)):
            assert obs.legal_of_types(types) == tuple(a for a in fresh if a[0] in types)
        only = obs.only_legal_action()
        assert only == (fresh[0] if len(fresh) == 1 else None)
        assert obs.legal_actions == fresh == tuple(deal.legal_actions())
        # built now: the same answers
        assert obs.legal_of_types(("pair",)) == tuple(a for a in obs.legal_actions if a[0] == "pair")
        assert obs.only_legal_action() == only
        plain = _plain(obs)
        assert type(plain) is Observation
        assert obs == plain and plain == obs and hash(obs) == hash(plain) and repr(obs) == repr(plain)
        checked += 1
    assert checked > 300


def test_lead_observation_copies_and_pickles():
    deal, seat = next(_lead_positions(1, 5))
    for build_first in (False, True):
        obs = observe(deal, seat)
        if build_first:
            _ = obs.legal_actions
        for other in (pickle.loads(pickle.dumps(obs)), copy.copy(obs), copy.deepcopy(obs)):
            assert other == obs and other.legal_actions == tuple(deal.legal_actions())
        replaced = dataclasses.replace(obs, top_owner=3)
        assert replaced.legal_actions == tuple(deal.legal_actions()) and replaced.top_owner == 3
        with pytest.raises(dataclasses.FrozenInstanceError):
            obs.legal_actions = ()  # type: ignore[misc]
    assert not hasattr(observe(deal, seat), "__dict__")  # still slotted


def test_lead_observation_holds_no_path_to_the_deal():
    deal, seat = next(_lead_positions(1, 9))
    obs = observe(deal, seat)
    lazy = obs._lazy_plays
    reachable = [lazy, *(getattr(lazy, s) for s in type(lazy).__slots__)]
    hand = lazy._hand
    # compiled by mypyc, ``_Hand`` lists its fields in ``__mypyc_attrs__`` (``__slots__`` is dropped)
    fields = getattr(type(hand), "__slots__", None) or type(hand).__mypyc_attrs__
    reachable += [getattr(hand, s, None) for s in fields]
    assert not any(isinstance(x, Deal) for x in reachable)
    for other in range(4):
        if other != seat:
            assert list(deal.hands[other]) not in [x for x in reachable if isinstance(x, list)]


class _Answer:
    """Leads with a fixed function of the observation."""

    name = "answer"

    def __init__(self, answer) -> None:
        self.answer = answer

    def choose_play(self, obs):
        return self.answer(obs)

    def choose_tribute(self, obs):
        return obs.legal_actions[0]

    choose_return = choose_tribute


def _fresh_deal() -> Deal:
    return Deal(DealSetup(hands=deal_hands(random.Random(11)), level=0, first_leader=0))


def test_game_loop_applies_the_listed_play_for_an_equal_answer():
    # a lead answered with a plain tuple equal to a listed play, built or not
    def plain_tuple(obs):
        if obs.top is not None:
            return PASS
        return tuple((obs.legal_of_types(("pair",)) or obs.legal_of_types(("single",)))[0])

    deal = play_deal(_fresh_deal(), [_Answer(plain_tuple)] * 4)
    plays = [a for _s, a in deal.actions if a[0] != "pass"]
    assert plays and all(type(a) is Combo for a in plays)


@pytest.mark.parametrize(
    "answer, rule",
    [
        (lambda obs: PASS, "the leader must play"),
        (lambda obs: Combo("pair", obs.hand[0] >> 2, (obs.hand[0], obs.hand[-1])), "not a valid pair"),
        (lambda obs: Combo("single", 9, (99,)), "not all in seat"),
        (lambda obs: 5, "declared Combo"),
        (lambda obs: ("single",), "declared Combo"),
        (lambda obs: ("bogus", 1, (0,)), "declared Combo"),
        (lambda obs: [], "declared Combo"),
    ],
)
def test_game_loop_rejects_an_illegal_lead(answer, rule):
    with pytest.raises(StrategyError, match=rule):
        play_deal(_fresh_deal(), [_Answer(answer)] * 4)


def test_game_loop_accepts_a_legal_lead_not_listed_as_given():
    # unsorted cards and a card choice of its own: verified and applied as before
    def reversed_cards(obs):
        if obs.top is not None:
            return PASS
        a = (obs.legal_of_types(("pair",)) or obs.legal_of_types(("single",)))[-1]
        return Combo(a[0], a[1], tuple(reversed(a[2])))

    deal = play_deal(_fresh_deal(), [_Answer(reversed_cards)] * 4)
    assert all(list(a[2]) == sorted(a[2]) for _s, a in deal.actions if a[0] != "pass")


def test_heuristic_leads_the_same_from_lazy_and_plain_observations():
    checked = 0
    for deal, seat in _lead_positions(40, 13):
        obs = observe(deal, seat)
        lazy_choice = HeuristicStrategy(seat).choose_play(obs)
        plain_choice = HeuristicStrategy(seat).choose_play(_plain(observe(deal, seat)))
        assert lazy_choice == plain_choice
        checked += 1
    assert checked > 400


def test_lazy_plays_of_a_follow_equal_the_legal_list():
    """The lazy plays also serve a seat following (PASS listed last, found as the listed PASS)."""
    from guandan_cli.engine.observation import _LazyPlays

    rng = random.Random(31)
    for _ in range(400):
        lv = rng.randrange(13)
        hand = _hand(rng, lv)
        top = _top(rng, lv)
        full = tuple(legal_plays(hand, lv, top)) + (PASS,)
        lazy = _LazyPlays(_Hand(hand, lv), top)
        for types in ((top[0],), ("pass",), ("bomb", "straight_flush", "joker_bomb", "pass"), COMBO_TYPES):
            assert lazy.of_types(types) == tuple(a for a in full if a[0] in types)
        assert lazy.all() == full
        for a in full:
            assert lazy.find(tuple(a)) is lazy.of_type(a[0])[lazy.of_type(a[0]).index(a)]
        assert lazy.find(tuple(PASS)) is PASS and lazy.find(("pass", 0, ())) is None


def test_lazy_plays_of_a_lead_find_only_listed_plays():
    from guandan_cli.engine.observation import _LazyPlays

    rng = random.Random(32)
    for _ in range(200):
        lv = rng.randrange(13)
        hand = _hand(rng, lv)
        full = legal_plays(hand, lv)
        lazy = _LazyPlays(_Hand(hand, lv), None)
        assert lazy.all() == tuple(full) and lazy.of_types(COMBO_TYPES) == tuple(full)
        assert lazy.of_type("pass") == () and lazy.find(PASS) is None
        for a in full:
            assert lazy.find(Combo(*a)) == a and type(lazy.find(tuple(a))) is Combo
        for bad in (None, 3, (), ("single",), ["single", 0, (0,)], (1, 2, 3), ("single", 0, (99,))):
            assert lazy.find(bad) is None


def test_observed_legal_actions_equal_fresh_legal_plays_through_whole_deals():
    """Leads analysed through the deal's cache leave it right for every later turn."""
    rng = random.Random(41)
    checked = 0
    for trial in range(30):
        level = trial % 13
        deal = Deal(DealSetup(hands=deal_hands(rng), level=level, first_leader=trial % 4))
        while deal.phase == PLAY:
            seat = deal.to_move
            obs = observe(deal, seat)
            fresh = legal_plays(deal.hands[seat], level, deal.top)
            if deal.top is not None:
                fresh.append(PASS)
            if deal.top is None and rng.random() < 0.5:
                # answered from one type without building the list (as the heuristic does)
                plays = obs.legal_of_types((rng.choice(("single", "pair", "triple", "full_house")),))
                action = rng.choice(plays) if plays else rng.choice(obs.legal_actions)
            else:
                assert obs.legal_actions == tuple(fresh)
                action = max(obs.legal_actions, key=lambda a: (len(a[2]), rng.random()))
            assert action in fresh
            deal.apply_unchecked(action)
            checked += 1
    assert checked > 1000


def test_a_type_named_alone_is_that_type_not_its_substrings() -> None:
    """``legal_of_types("straight_flush")`` (a str is a Collection of str) once matched by
    substring: it listed the straights too. Lazy and built observations agree on one type."""
    rng = random.Random(21)
    checked = 0
    for _trial in range(200):
        deal = Deal(DealSetup(hands=deal_hands(rng), level=rng.randrange(13), first_leader=0))
        for built in (False, True):
            obs = observe(deal, 0)
            if built:
                obs.legal_actions  # noqa: B018 - the tuple built: the filtering path
            for t in (*COMBO_TYPES, "pass"):
                expected = tuple(a for a in legal_plays(deal.hands[0], deal.level) if a[0] == t)
                assert obs.legal_of_types(t) == expected == obs.legal_of_types((t,)), (t, built)
        if any(a[0] == "straight" for a in legal_plays(deal.hands[0], deal.level)):
            checked += 1
    assert checked > 100

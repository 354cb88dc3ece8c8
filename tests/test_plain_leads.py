"""``PlainLeads``: the lazy lead list handed to bots with ``lazy_legal`` equals ``legal_plays``.

The random bot draws ``len(legal)`` and one index, so the count and every item must be the
full list's, in order, with the same cards; checked on random hands shaped to hold many
pairs, triples, bombs, joker pairs, sequences, and in dealt games through ``Deal``.
"""

from __future__ import annotations

import copy
import pickle
import random
from collections.abc import Sequence

import pytest
from guandan_cli.strategies.base import Strategy
from guandan_cli.strategies.random_bot import RandomStrategy

from guandan_cli.engine import deal_hands, legal_plays
from guandan_cli.engine.deal import PLAY, Deal, DealSetup
from guandan_cli.engine.legal import PlainLeads, _Hand


def _plain_hands(rng: random.Random, count: int):
    """(hand, level) pairs without a wild and without a natural straight flush."""
    deck = [f for f in range(54) for _copy in (0, 1)]
    found = 0
    while found < count:
        level = rng.randrange(13)
        if rng.random() < 0.5:
            hand = rng.sample(deck, rng.randrange(1, 28))
        else:  # few ranks, many copies: pairs, triples, full houses, bombs, tubes, plates
            ranks = rng.sample(range(14), rng.randrange(1, 8))
            pool = [f for f in deck if f >> 2 in ranks]
            hand = rng.sample(pool, min(len(pool), rng.randrange(2, 28)))
        h = _Hand(hand, level)
        if h.w or h.members:
            continue
        found += 1
        yield sorted(hand), level


def test_every_item_and_count_equal_legal_plays() -> None:
    rng = random.Random(11)
    items = 0
    for hand, level in _plain_hands(rng, 3000):
        full = legal_plays(hand, level)
        lazy = PlainLeads(_Hand(hand, level))
        assert len(lazy) == len(full), (hand, level)
        for i in rng.sample(range(len(full)), len(full)):  # any order of access
            got = lazy[i]
            assert type(got) is type(full[i]) and tuple(got) == tuple(full[i]), (hand, level, i)
            assert lazy.index(got) == i
        items += len(full)
    assert items > 50_000


def test_sequence_operations() -> None:
    rng = random.Random(3)
    for hand, level in _plain_hands(rng, 200):
        full = legal_plays(hand, level)
        lazy = PlainLeads(_Hand(hand, level))
        assert list(lazy) == full
        assert lazy[-1] == full[-1] and lazy[1:4] == tuple(full[1:4])
        assert all(p in lazy for p in full[::3])
        probe = full[len(full) // 2]
        assert lazy.index(probe) == full.index(probe)  # not the last item handed out
        with pytest.raises(IndexError):
            lazy[len(full)]


def test_behaves_as_the_tuple_it_stands_for() -> None:
    """What a bot may do with the tuple it would otherwise get: slices are tuples, a bad index
    is a TypeError, equality and hash are the tuple's, and nothing is found before a play is
    handed out (``None`` was once taken for "the last play" of a fresh list)."""
    rng = random.Random(8)
    for hand, level in _plain_hands(rng, 100):
        full = tuple(legal_plays(hand, level))
        lazy = PlainLeads(_Hand(hand, level))
        assert None not in lazy
        with pytest.raises(ValueError):
            lazy.index(None)
        for bad in (None, "0", 1.0, (1,)):
            with pytest.raises(TypeError):
                lazy[bad]
            with pytest.raises(TypeError):
                full[bad]
        assert lazy[True] == full[True]
        assert lazy[1:3] == full[1:3] and type(lazy[::-2]) is tuple and lazy[::-2] == full[::-2]
        assert lazy[:2] + (None,) == full[:2] + (None,)
        assert lazy == full and full == lazy and not lazy != full and hash(lazy) == hash(full)
        assert lazy == PlainLeads(_Hand(hand, level)) and lazy != full[:-1] and lazy != list(full)


def test_a_sequence_by_registration_and_no_tuple_is_one() -> None:
    """Compiled by mypyc, a subclass of ``Sequence`` shared its ABC cache: a tuple was then an
    instance of ``PlainLeads`` (and ``==`` against one called ``tolist`` on it)."""
    hand, level = next(_plain_hands(random.Random(3), 1))
    lazy = PlainLeads(_Hand(hand, level))
    full = legal_plays(hand, level)
    assert isinstance(lazy, Sequence) and not isinstance(tuple(full), PlainLeads)
    assert lazy == tuple(full) and lazy != list(full)
    assert list(reversed(lazy)) == full[::-1]
    assert lazy.count(full[0]) == 1 and lazy.count("nothing") == 0


def test_copies_and_pickles_equal_the_original() -> None:
    """Compiled by mypyc, ``copy``/``pickle`` build it through ``__init__`` with no arguments."""
    hand, level = next(_plain_hands(random.Random(4), 1))
    lazy = PlainLeads(_Hand(hand, level))
    first = lazy[0]
    for other in (copy.copy(lazy), copy.deepcopy(lazy), pickle.loads(pickle.dumps(lazy))):
        assert other == lazy and len(other) == len(lazy) and list(other) == list(lazy)
        assert other[0] == first and other.index(first) == 0


def test_deal_hands_a_lazy_lead_only_when_plain() -> None:
    rng = random.Random(5)
    lazy_leads = 0
    for trial in range(30):
        deal = Deal(DealSetup(hands=deal_hands(rng), level=trial % 13, first_leader=trial % 4))
        while deal.phase == PLAY:
            legal = deal._legal_lazy()  # before legal_actions() fills the deal's cache
            expected = deal.legal_actions()
            if isinstance(legal, PlainLeads):
                lazy_leads += 1
                assert deal.top is None
            assert len(legal) == len(expected) and list(legal) == expected
            deal.apply_unchecked(rng.choice(expected))
    assert lazy_leads > 100


def test_a_subclass_with_its_own_shortcut_gets_tuples_again() -> None:
    class Mine(RandomStrategy):
        def choose_from_legal(self, legal):
            return legal[0]

    class Lazy(RandomStrategy):
        lazy_legal = True

        def choose_from_legal(self, legal):
            return legal[0]

    assert RandomStrategy.lazy_legal is True
    assert Mine.lazy_legal is False and Lazy.lazy_legal is True
    assert Strategy.lazy_legal is False


def test_self_play_of_shortcut_bots_checks_every_answer() -> None:
    """The all-shortcut loop accepts an equal copy of a listed play (applying the listed one),
    and reports a raising or illegal shortcut as a StrategyError."""
    from guandan_cli.engine.combos import Combo
    from guandan_cli.engine.match import Match
    from guandan_cli.engine.play import StrategyError, iter_match

    class Copying(RandomStrategy):
        lazy_legal = True

        def choose_from_legal(self, legal):
            a = legal[0]
            return Combo(a[0], a[1], tuple(a[2])) if isinstance(a, tuple) else a

    class Raising(RandomStrategy):
        def choose_from_legal(self, legal):
            raise RuntimeError("boom")

    plain = [RandomStrategy(s, random.Random(s)) for s in range(4)]
    copying = [Copying(s, random.Random(s)) for s in range(4)]
    m = Match(seed=4)
    deals = list(iter_match(m, copying))
    assert deals and all(type(a) is Combo or type(a) is int for pd in deals for _s, a in pd.deal.actions)
    with pytest.raises(StrategyError, match="seat 1.*RuntimeError: boom"):
        list(iter_match(Match(seed=4), plain[:1] + [Raising(1, random.Random(1))] + plain[2:]))

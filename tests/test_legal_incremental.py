"""The deal's fast paths for legal plays agree with a fresh ``legal_plays`` call.

A deal keeps each seat's hand analysis across turns: after the seat's own play it is
updated (``_Hand.without``) rather than rebuilt. That must give exactly what a fresh
analysis gives, in the same order (the random bot's choices, hence the logs, depend on
the order).
"""

from __future__ import annotations

import copy
import pickle
import random

from guandan_cli.engine import deal_hands, legal_plays
from guandan_cli.engine.deal import PASS, PLAY, Deal, DealSetup
from guandan_cli.engine.legal import _all_bombs, _follow_tuple, _Hand

FIELDS = ("by", "rc", "cb", "w", "wild", "lv", "bits", "sfx", "alow", "members", "sb", "hr", "x")


def _fields(h: _Hand) -> tuple:
    return tuple(tuple(v) if isinstance(v, list) else v for v in (getattr(h, f) for f in FIELDS))


def test_deal_legal_actions_equal_fresh_legal_plays():
    rng = random.Random(20261130)
    checked = 0
    for trial in range(40):
        level = trial % 13
        deal = Deal(DealSetup(hands=deal_hands(rng), level=level, first_leader=trial % 4))
        while deal.phase == PLAY:
            seat = deal.to_move
            expected = legal_plays(deal.hands[seat], level, deal.top)
            if deal.top is not None:
                expected.append(PASS)
            assert deal.legal_actions() == expected
            checked += 1
            # lean towards big plays so hands shrink through many shapes
            acts = deal.legal_actions()
            deal.apply_unchecked(
                max(acts, key=lambda a: (len(a[2]), rng.random())) if trial % 2 else rng.choice(acts)
            )
    assert checked > 1000


def test_hand_without_equals_a_fresh_analysis():
    rng = random.Random(7)
    carried = 0
    for trial in range(300):
        level = rng.randrange(13)
        hand = sorted(deal_hands(rng)[0])
        h = _Hand(hand, level)
        while hand:
            plays = legal_plays(hand, level)
            play = rng.choice(plays)
            for f in play[2]:
                hand.remove(f)
            h = h.without(play[2])
            fresh = _Hand(hand, level)
            assert _fields(h) == _fields(fresh), (trial, play)
            # bombs (and the answers' tail) carried over from the analysis before must be the
            # fresh hand's
            if h.bombs is not None:
                carried += 1
                assert h.bombs == _all_bombs(fresh), (trial, play)
            _all_bombs(h)  # fill them, so that the next analysis may carry them over
    assert carried > 1000


def test_follow_of_a_bomb_equals_fresh_legal_plays():
    """Answers to a bomb-class top come from the hand's bombs filtered (``_follow_tuple``): the
    same as ``legal_plays`` above that top, in its order."""
    rng = random.Random(11)
    tops = []
    checked = 0
    for trial in range(400):
        level = rng.randrange(13)
        hand = sorted(deal_hands(rng)[trial % 4])
        if trial % 3 == 0:  # both wilds, for more bombs and straight flushes with wilds
            wild = level * 4 + 1
            hand = sorted([f for f in hand if f != wild][:25] + [wild, wild])
        bombs = _all_bombs(_Hand(hand, level))
        tops += [(level, b) for b in bombs]
        for lv, top in [(level, b) for b in bombs] + rng.sample(tops, min(len(tops), 6)):
            if lv != level:
                continue
            expected = tuple(legal_plays(hand, level, top)) + (PASS,)
            assert _follow_tuple(_Hand(hand, level), top, PASS) == expected, (trial, top)
            checked += 1
    assert checked > 500


def test_a_deal_copied_or_pickled_mid_play_goes_on_as_the_original():
    """Its hand analyses (``_Hand``, kept across turns) copy and pickle: compiled by mypyc,
    ``copy``/``pickle`` build them through ``__init__`` with no arguments."""
    rng = random.Random(17)
    for trial in range(6):
        deal = Deal(DealSetup(hands=deal_hands(rng), level=trial * 2, first_leader=trial % 4))
        for _ in range(rng.randrange(4, 30)):
            if deal.phase != PLAY:
                break
            deal.apply_unchecked(rng.choice(deal.legal_actions()))
        assert copy.copy(deal).snapshot() == deal.snapshot()  # shares the hands: a look only
        twins = [copy.deepcopy(deal), pickle.loads(pickle.dumps(deal))]
        while deal.phase == PLAY:
            acts = deal.legal_actions()
            assert all(t.legal_actions() == acts for t in twins), trial
            act = rng.choice(acts)
            for d in (deal, *twins):
                d.apply_unchecked(act)
        assert all(t.snapshot() == deal.snapshot() for t in twins)

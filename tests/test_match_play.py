"""Driving deals and matches with players: StrategyError reporting, full matches with bots."""

from __future__ import annotations

import pytest
from guandan_cli.strategies import make_players
from guandan_cli.strategies.base import Strategy
from test_deal_scripted import build_hands

from guandan_cli.engine.combos import Combo
from guandan_cli.engine.deal import PASS, Deal, DealSetup
from guandan_cli.engine.match import Match
from guandan_cli.engine.play import PlayedDeal, StrategyError, iter_match, play_deal
from guandan_cli.engine.rules import get_ruleset


class Scripted(Strategy):
    """Answers ``answer(obs)`` in the play phase; the default tribute/return."""

    name = "scripted"

    def __init__(self, seat, answer):
        super().__init__(seat)
        self.answer = answer

    def choose_play(self, obs):
        return self.answer(obs)


def first_legal(obs):
    return obs.legal_actions[0]


def _players(bad_seat, bad_answer):
    return [Scripted(s, bad_answer if s == bad_seat else first_legal) for s in range(4)]


def _deal():
    return Deal(DealSetup(hands=build_hands(), first_leader=0))


def test_bot_raising_is_reported():
    def boom(obs):
        raise KeyError("oops")

    with pytest.raises(StrategyError) as exc:
        play_deal(_deal(), _players(0, boom), match_seed=42, deal_index=3)
    e = exc.value
    assert (e.seat, e.strategy, e.match_seed, e.deal_index) == (0, "scripted", 42, 3)
    assert "KeyError" in str(e) and "seat 0" in str(e) and "match seed 42" in str(e) and "deal 3" in str(e)
    assert isinstance(e.__cause__, KeyError)


@pytest.mark.parametrize(
    "answer,fragment",
    [
        (lambda obs: PASS, "the leader must play"),
        (lambda obs: Combo("single", 12, (48,)), "not all in seat 0's hand"),
        (lambda obs: Combo("pair", 0, (0, 4)), "not a valid pair"),
        (lambda obs: 5, "takes a declared Combo"),
        (lambda obs: None, "takes a declared Combo"),
        (lambda obs: "single:2 S2", "takes a declared Combo"),
        (lambda obs: Combo("single", 0, (999,)), "not all in seat 0's hand"),
    ],
)
def test_bot_answering_illegally_is_reported(answer, fragment):
    d = _deal()
    with pytest.raises(StrategyError, match=fragment) as exc:
        play_deal(d, _players(0, answer), match_seed=1, deal_index=0)
    assert exc.value.seat == 0 and "illegal action" in exc.value.error
    assert d.actions == [] and d.to_move == 0  # the deal is untouched


def test_bot_failing_in_a_later_turn_names_its_seat():
    calls = []

    def late(obs):
        calls.append(obs.top)
        return obs.legal_actions[0] if obs.top is None else Combo("single", 0, (0,))

    with pytest.raises(StrategyError, match="seat 1") as exc:
        play_deal(_deal(), _players(1, late))
    assert exc.value.seat == 1 and calls[-1] is not None


def test_equal_plain_tuple_is_applied_as_the_listed_combo():
    def plain(obs):
        return tuple(obs.legal_actions[0])

    d = _deal()
    players = _players(0, plain)
    play_deal(d, players)
    assert d.phase == "over" and all(isinstance(a, Combo | int) for _s, a in d.actions)
    assert all(type(a) is Combo for _s, a in d.actions if not isinstance(a, int))


def test_unsorted_but_legal_play_is_accepted():
    def unsorted(obs):
        c = max(obs.legal_actions, key=lambda c: len(c.cards))
        return Combo(c.type, c.rank, tuple(reversed(c.cards)))

    d = _deal()
    play_deal(d, [Scripted(s, unsorted) for s in range(4)])
    assert d.phase == "over"


def test_start_deal_hook_gets_its_own_seat():
    seen = []

    class Hooked(Strategy):
        name = "hooked"

        def start_deal(self, deal_index, obs):
            seen.append((deal_index, self.seat, obs.seat, len(obs.hand)))

        def choose_play(self, obs):
            return obs.legal_actions[0]

    m = Match(seed=5, rules=get_ruleset("cgr2022", max_deals=2))
    played = list(iter_match(m, [Hooked(s) for s in range(4)]))
    assert len(played) == 2 and m.capped
    assert all(isinstance(p, PlayedDeal) for p in played)
    assert sorted(seen) == [(i, s, s, 27) for i in range(2) for s in range(4)]


@pytest.mark.parametrize("rules", ["cgr2022", "jiangsu2017"])
def test_full_matches_with_builtin_bots(rules):
    for seed, specs in ((1, ["random"] * 4), (2, ["greedy", "random", "greedy", "random"])):
        m = Match(seed=seed, rules=get_ruleset(rules, max_deals=40))
        deals = list(iter_match(m, make_players(specs, match_seed=seed)))
        assert m.over and len(deals) <= 40
        assert (m.winner is not None) != m.capped
        assert deals[0].setup.hands == Match(seed=seed).next_setup().hands
        for p in deals:
            assert p.deal.phase == "over" and p.update.deal_index == p.index

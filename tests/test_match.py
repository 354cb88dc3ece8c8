"""The match: upgrades, the cap at A, winning at A, a_fail_limit, max_deals, seeds, rulesets."""

from __future__ import annotations

import random

import pytest

from guandan_cli.engine.cards import deal_hands
from guandan_cli.engine.deal import Deal, DealResult
from guandan_cli.engine.match import A_PLUS, A, Match, deal_seed, level_token
from guandan_cli.engine.rules import RULESETS, UnknownRulesetError, get_ruleset
from guandan_cli.engine.seeding import derive_seed, derived_rng


def result(order) -> DealResult:
    first = order[0]
    place = order.index(first ^ 2)
    return DealResult(tuple(order), place == 1, first & 1, {1: 3, 2: 2, 3: 1}[place])


PLUS3, PLUS2, PLUS1 = (0, 2, 1, 3), (0, 1, 2, 3), (0, 1, 3, 2)  # team 0 takes 上游
T1_PLUS3, T1_PLUS1 = (1, 3, 0, 2), (1, 0, 2, 3)


def test_upgrades_only_for_first_out_team():
    for order, up in ((PLUS3, 3), (PLUS2, 2), (PLUS1, 1)):
        m = Match(seed=1)
        u = m.record(result(order))
        assert m.levels == [up, 0] and m.level_team == 0 and m.level == up
        assert (u.levels_before, u.levels_after, u.level_team_before, u.level_team_after) == (
            (0, 0),
            (up, 0),
            None,
            0,
        )
        assert not u.match_over and u.winner is None
        assert m.next_setup().level == up
    m = Match(seed=1)
    m.record(result(PLUS2))
    m.record(result(T1_PLUS1))
    assert m.levels == [2, 1] and m.level_team == 1 and m.next_setup().level == 1
    assert m.next_setup().levels == (2, 1) and m.next_setup().level_team == 1


def test_scripted_double_down_deal_gives_plus_three():
    from test_deal_scripted import build_hands, drive  # the scripted-deal helpers

    m = Match(seed=5)
    s = m.next_setup()
    d = drive(Deal(type(s)(hands=build_hands(), level=s.level, first_leader=0, rules=s.rules)))
    assert d.result.double_down and d.result.finish_order[:2] == (0, 2)
    m.record(d.result)
    assert m.levels == [3, 0] and m.previous == (d.result.finish_order, True)
    assert m.next_setup().previous == ((0, 2, 3, 1), True)


def test_jack_plus_three_stops_at_ace_and_does_not_win():
    m = Match(seed=2)
    for expected in (3, 6, 9, 12):  # 2 -> 5 -> 8 -> J -> A
        m.record(result(PLUS3))
        assert m.levels[0] == expected
    assert not m.over and m.levels == [A, 0] and level_token(m.levels[0]) == "A"
    assert m.level == A


def _team0_at_ace(**options) -> Match:
    m = Match(seed=3, rules=get_ruleset("cgr2022", **options))
    for _ in range(4):
        m.record(result(PLUS3))
    assert m.levels == [A, 0] and m.level_team == 0
    return m


def test_win_at_ace_only_with_partner_not_last():
    m = _team0_at_ace()
    u = m.record(result(PLUS1))  # 上游 but partner last: a failure, stays at A
    assert not m.over and u.a_failure == 0 and m.levels == [A, 0] and m.winner is None
    u = m.record(result(PLUS2))  # partner third: wins
    assert m.over and m.winner == 0 and u.winner == 0 and u.match_over and not u.capped
    assert m.levels == [A_PLUS, 0] and level_token(A_PLUS) == "A+"
    with pytest.raises(ValueError, match="over"):
        m.next_setup()
    with pytest.raises(ValueError, match="over"):
        m.record(result(PLUS3))


@pytest.mark.parametrize("order", [PLUS3, (2, 1, 0, 3)])
def test_win_at_ace_by_either_player(order):
    m = _team0_at_ace()
    m.record(result(order))
    assert m.winner == 0


def test_losing_at_ace_and_other_team_at_ace_not_at_its_level():
    m = _team0_at_ace()
    u = m.record(result(T1_PLUS3))  # team 1 takes the deal at team 0's A
    assert u.a_failure == 0 and m.levels == [A, 3] and m.level_team == 1 and not m.over
    # team 1 climbs to A in deals played at its own level
    for _ in range(3):
        m.record(result(T1_PLUS3))
    assert m.levels == [A, A] and m.level_team == 1
    # a deal at team 1's A that team 0 wins is no win for team 0 (not played at its level)
    u = m.record(result(PLUS3))
    assert not m.over and u.a_failure == 1 and m.level_team == 0 and m.levels == [A, A]
    m.record(result(PLUS2))
    assert m.winner == 0


def test_a_fail_limit_sends_team_back_to_two():
    m = _team0_at_ace(a_fail_limit=2)
    m.record(result(T1_PLUS1))  # failure 1 (lost); team 1 now level team at 1 -> 3
    assert m.a_failures == [1, 0] and m.levels == [A, 1]
    m.record(result(PLUS1))  # played at team 1's level: no failure; team 0 is the level team again
    assert m.a_failures == [1, 0] and m.levels == [A, 1] and m.level_team == 0
    u = m.record(result(PLUS1))  # at its own A, partner last: failure 2 -> back to 2
    assert u.a_failure == 0 and m.levels == [0, 1] and m.a_failures == [0, 0] and not m.over
    assert m.level == 0 and m.next_setup().level == 0


def test_a_fail_limit_off_by_default():
    m = _team0_at_ace()
    for _ in range(10):
        m.record(result(T1_PLUS1))
        m.record(result(PLUS1))
    assert m.levels[0] == A and not m.over


def test_max_deals_caps_unfinished():
    m = Match(seed=4, rules=get_ruleset("jiangsu2017", max_deals=3))
    for _ in range(3):
        assert not m.over
        u = m.record(result(PLUS1))
    assert m.over and m.capped and m.winner is None and u.capped and u.match_over and u.winner is None
    with pytest.raises(ValueError):
        m.next_setup()
    # a win on the capping deal is still a win, not capped
    m = _team0_at_ace(max_deals=5)
    u = m.record(result(PLUS3))
    assert m.winner == 0 and not m.capped


def test_deal_shuffle_depends_only_on_seed_and_index():
    a, b = Match(seed=11), Match(seed=11)
    a.record(result(PLUS3))
    b.record(result(T1_PLUS1))
    sa, sb = a.next_setup(), b.next_setup()
    assert sa.hands == sb.hands == deal_hands(random.Random(deal_seed(11, 1)))
    assert sa.level != sb.level
    assert Match(seed=12).next_setup().hands != Match(seed=11).next_setup().hands
    assert deal_seed(11, 1) == derive_seed(11, "deal", 1) != deal_seed(11, 2)


def test_first_leader_drawn_from_match_seed():
    leaders = {Match(seed=s).first_leader for s in range(40)}
    assert leaders == {0, 1, 2, 3}
    assert (
        Match(seed=9).first_leader
        == Match(seed=9).first_leader
        == derived_rng(9, "first_leader").randrange(4)
    )
    s = Match(seed=9).next_setup()
    assert s.previous is None and Deal(s).to_move == s.first_leader


def test_inconsistent_result_rejected():
    m = Match(seed=1)
    with pytest.raises(ValueError, match="permutation"):
        m.record(DealResult((0, 0, 1, 2), False, 0, 1))
    with pytest.raises(ValueError, match="inconsistent"):
        m.record(DealResult((0, 1, 2, 3), False, 0, 3))


def test_rulesets_and_options():
    assert set(RULESETS) == {"cgr2022", "jiangsu2017"}
    assert Match(seed=1).rules == RULESETS["cgr2022"]
    js = get_ruleset("jiangsu2017", a_fail_limit=3, max_deals=50)
    assert (js.name, js.a_fail_limit, js.max_deals, js.jiefeng) == ("jiangsu2017", 3, 50, "first_only")
    assert get_ruleset(js).max_deals == 50 and get_ruleset(js, max_deals=7).a_fail_limit == 3
    assert Match(seed=1, rules="jiangsu2017").rules.double_tribute_leader == "first_next"
    with pytest.raises(UnknownRulesetError, match="cgr2022, jiangsu2017") as exc:
        get_ruleset("cgr2021")
    assert isinstance(exc.value, ValueError) and "cgr2021" in str(exc.value)
    with pytest.raises(UnknownRulesetError):
        Match(seed=1, rules="nope")
    with pytest.raises(ValueError, match="a_fail_limit"):
        get_ruleset("cgr2022", a_fail_limit=0)

"""Scripted deals from chosen hands: tribute, return, resistance, leaders, tricks, 接风, endings.

``build_hands`` places the cards a test names and fills the rest deterministically
so that every face appears exactly twice over the 108 cards. ``drive`` plays a deal
with a default policy (tribute/return: the first legal card; the leader plays its
largest combination; a follower passes) that a test may override step by step.
"""

from __future__ import annotations

from collections import Counter

import pytest

from guandan_cli.engine import parse_cards
from guandan_cli.engine.cards import HR, full_deck
from guandan_cli.engine.combos import POWER, Combo
from guandan_cli.engine.deal import PASS, Deal, DealSetup, IllegalActionError, replay
from guandan_cli.engine.observation import observe
from guandan_cli.engine.rules import get_ruleset

CGR = get_ruleset("cgr2022")
JS = get_ruleset("jiangsu2017")


# ---------------------------------------------------------------- helpers


def build_hands(spec: dict[int, str] | None = None, fill_order=(0, 1, 2, 3)) -> tuple[tuple[int, ...], ...]:
    """Four 27-card hands: the cards named in ``spec`` (seat -> card text), the rest of the
    108 dealt lowest-first to the seats in ``fill_order`` (each up to 27)."""
    spec = spec or {}
    pool = Counter(full_deck())
    hands: list[list[int]] = [[] for _ in range(4)]
    for seat, text in spec.items():
        cards = list(parse_cards(text))
        for f, n in Counter(cards).items():
            if pool[f] < n:
                raise ValueError(f"{text!r}: face {f} named more than twice over the hands")
            pool[f] -= n
        if len(cards) > 27:
            raise ValueError(f"seat {seat}: {len(cards)} cards named")
        hands[seat] = cards
    rest = sorted(pool.elements())
    for seat in fill_order:
        need = 27 - len(hands[seat])
        hands[seat] += rest[:need]
        rest = rest[need:]
    if rest or any(len(h) != 27 for h in hands):
        raise ValueError("fill_order does not fill every hand to 27")
    return tuple(tuple(sorted(h)) for h in hands)


def test_build_hands_deals_every_face_twice():
    hands = build_hands({1: "HR HR SB", 3: "SA HA"}, fill_order=(3, 0, 1, 2))
    assert Counter(f for h in hands for f in h) == Counter(full_deck())
    assert [len(h) for h in hands] == [27] * 4
    assert hands[1].count(HR) == 2 and hands[3].count(48) == 1
    assert build_hands() == build_hands()  # deterministic
    with pytest.raises(ValueError):
        build_hands({0: "HR HR", 1: "HR"})


def default_action(d: Deal):
    acts = d.legal_actions()
    if d.phase != "play":
        return acts[0]
    if d.top is not None:
        return PASS
    return max(acts, key=lambda c: len(c.cards))  # first of the largest


def lowest_single(d: Deal) -> Combo:
    pw = POWER[d.level]
    return min((c for c in d.legal_actions() if c.type == "single"), key=lambda c: pw[c.rank])


def drive(d: Deal, policy=None, limit: int = 3000) -> Deal:
    """Play ``d`` to the end with checked ``apply``; ``policy(d)`` may return an action or None."""
    for _ in range(limit):
        if d.phase == "over":
            return d
        assert d.to_move not in d.finished
        action = policy(d) if policy is not None else None
        d.apply(default_action(d) if action is None else action)
    raise AssertionError("deal did not end")


def leads(d: Deal) -> list[int]:
    return [e.seat for e in d.events if e.kind == "play" and e.lead]


def check_replay(d: Deal) -> None:
    assert replay(d.setup, d.actions).snapshot() == d.snapshot()
    assert replay(d.setup, d.events).snapshot() == d.snapshot()


def setup(hands, previous=None, level=0, rules=CGR, first_leader=None) -> DealSetup:
    if previous is None and first_leader is None:
        first_leader = 0
    return DealSetup(hands=hands, level=level, previous=previous, first_leader=first_leader, rules=rules)


# ---------------------------------------------------------------- tribute


LEVEL_T = 8  # cards 2..9 are then plain, T is the level


def test_single_tribute_pay_return_and_leader():
    # previous deal: 上游 seat 1, seat 3 last -> seat 3 pays seat 1
    hands = build_hands({3: "SA HA"}, fill_order=(3, 0, 1, 2))
    d = Deal(setup(hands, previous=((1, 0, 2, 3), False), level=LEVEL_T))
    assert (d.tribute_kind, d.phase, d.to_move) == ("single", "tribute", 3)
    sa, ha = parse_cards("SA HA")
    assert d.legal_actions() == [sa, ha]  # several faces share the top power: the payer picks
    before = d.snapshot()
    for bad in (parse_cards("S2")[0], parse_cards("HR")[0], PASS, 99, None):
        with pytest.raises(IllegalActionError) as exc:
            d.apply(bad)
        assert "seat 3" in str(exc.value)
        assert d.snapshot() == before
    with pytest.raises(
        IllegalActionError, match=r"seat 3 cannot pay or return 'S2': tribute must be the highest"
    ):
        d.apply(parse_cards("S2")[0])
    d.apply(ha)
    assert (d.phase, d.to_move) == ("return", 1)
    assert d.tributes == [(3, 1, ha)] and d.events[0] == ("tribute", 3, None, ha, 1, False)
    assert ha in d.hands[1] and ha not in d.hands[3] and len(d.hands[1]) == 28
    opts = d.legal_actions()
    assert opts and all(f >> 2 <= 8 for f in opts)  # natural rank 2..10 (level T included)
    assert set(opts) == {f for f in d.hands[1] if f < 36}
    jack = next(f for f in d.hands[1] if 36 <= f < 52)
    with pytest.raises(IllegalActionError, match="natural rank 2..10"):
        d.apply(jack)
    back = opts[-1]
    d.apply(back)
    assert (d.phase, d.to_move, d.leader) == ("play", 3, 3)  # single tribute: the payer leads
    assert d.returns == [(1, 3, back)]
    assert [len(h) for h in d.hands] == [27] * 4
    assert Counter(d.hands[3]) == Counter(hands[3]) - Counter([ha]) + Counter([back])
    drive(d)
    check_replay(d)


def test_tribute_options_ignore_wild_but_count_other_level_cards():
    # level 5: H5 is wild (not paid); S5 is a level card above A
    hands = build_hands({3: "H5 H5 S5 SA"}, fill_order=(3, 0, 1, 2))
    d = Deal(setup(hands, previous=((1, 0, 2, 3), False), level=3))
    assert d.legal_actions() == list(parse_cards("S5"))
    hands = build_hands({3: "H5 H5 SA DA"}, fill_order=(3, 0, 1, 2))
    d = Deal(setup(hands, previous=((1, 0, 2, 3), False), level=3))
    assert d.legal_actions() == list(parse_cards("SA DA"))  # ♥ level cards never count


def double_setup(spec, rules, previous=((0, 2, 1, 3), True), fill=(1, 3, 0, 2)):
    return Deal(setup(build_hands(spec, fill_order=fill), previous=previous, level=LEVEL_T, rules=rules))


@pytest.mark.parametrize("rules,leader", [(CGR, 3), (JS, 1)])
def test_double_tribute_unequal(rules, leader):
    # 上游 0, partner 2 second: seats 1 and 3 pay; seat 3's SB beats seat 1's A
    d = double_setup({1: "SA", 3: "SB", 0: "HR HR SB"}, rules)
    assert (d.tribute_kind, d.to_move) == ("double", 1)
    sa, sb = parse_cards("SA SB")
    d.apply(sa)
    assert d.events == [] and d.to_move == 3  # the first tribute is not revealed yet
    assert observe(d, 3).events == () and sa in d.hands[1]
    d.apply(sb)
    assert d.tributes == [(1, 2, sa), (3, 0, sb)]  # higher to 上游, lower to its partner
    assert (d.phase, d.to_move) == ("return", 0)  # 上游 returns first
    r0 = d.legal_actions()[0]
    d.apply(r0)
    assert [e.kind for e in d.events] == ["tribute", "tribute"]  # returns revealed together
    assert observe(d, 2).events == tuple(d.events) and d.to_move == 2
    r2 = d.legal_actions()[0]
    d.apply(r2)
    assert d.returns == [(0, 3, r0), (2, 1, r2)]
    assert [e.kind for e in d.events] == ["tribute", "tribute", "return", "return"]
    assert (d.phase, d.leader, d.to_move) == ("play", leader, leader)
    assert [len(h) for h in d.hands] == [27] * 4
    drive(d)
    check_replay(d)


@pytest.mark.parametrize("rules", [CGR, JS])
def test_double_tribute_unequal_first_payer_higher(rules):
    d = double_setup({1: "SB", 3: "SA", 0: "HR HR SB"}, rules, fill=(3, 1, 0, 2))
    sa, sb = parse_cards("SA SB")
    d.apply(sb)
    d.apply(sa)
    assert d.tributes == [(1, 0, sb), (3, 2, sa)]
    drive(d)
    assert d.leader == 1  # cgr: the payer to 上游; jiangsu: 上游's 下家 — both seat 1 here


@pytest.mark.parametrize("rules", [CGR, JS])
def test_double_tribute_equal_goes_to_each_payers_upper_seat(rules):
    # 上游 seat 1, partner 3 second: seats 2 and 0 pay, both an ace (equal power)
    previous = ((1, 3, 0, 2), True)
    d = double_setup({2: "SA", 0: "HA", 1: "HR HR SB SB"}, rules, previous=previous, fill=(2, 0, 1, 3))
    assert d._payers == [2, 0]
    sa, ha = parse_cards("SA HA")
    d.apply(sa)
    d.apply(ha)
    assert d.tributes == [(2, 1, sa), (0, 3, ha)]  # each to its 上家: 上游 gets its 下家's card
    assert d.to_move == 1
    d.apply(d.legal_actions()[0])
    d.apply(d.legal_actions()[0])
    assert d.leader == 2 == d.to_move  # the payer to 上游 (cgr) = 上游's 下家 (jiangsu)
    drive(d)
    check_replay(d)


def test_double_tribute_equal_level_cards_of_different_suits():
    # level T: ST and DT are equal in power
    d = double_setup({1: "ST", 3: "DT", 0: "HR HR SB SB"}, CGR)
    st, dt = parse_cards("ST DT")
    assert d.legal_actions() == [st]
    d.apply(st)
    d.apply(dt)
    assert d.tributes == [(1, 0, st), (3, 2, dt)]


# ---------------------------------------------------------------- resistance


@pytest.mark.parametrize("rules", [CGR, JS])
def test_resistance_single(rules):
    hands = build_hands({3: "HR HR"}, fill_order=(3, 0, 1, 2))
    d = Deal(setup(hands, previous=((1, 0, 2, 3), False), level=LEVEL_T, rules=rules))
    assert (d.tribute_kind, d.resisted_by, d.phase, d.to_move, d.leader) == ("resisted", (3,), "play", 1, 1)
    assert d.events == [] and d.tributes == []
    drive(d)
    assert leads(d)[0] == 1
    check_replay(d)


def test_no_resistance_with_one_big_joker_single():
    hands = build_hands({3: "HR", 0: "HR"}, fill_order=(3, 0, 1, 2))
    d = Deal(setup(hands, previous=((1, 0, 2, 3), False), level=LEVEL_T))
    assert d.tribute_kind == "single" and d.legal_actions() == [HR]


@pytest.mark.parametrize("spec", [{1: "HR", 3: "HR"}, {1: "HR HR"}, {3: "HR HR"}])
@pytest.mark.parametrize("rules", [CGR, JS])
def test_resistance_double(spec, rules):
    d = double_setup(spec, rules)
    assert (d.tribute_kind, d.phase, d.to_move, d.leader) == ("resisted", "play", 0, 0)
    assert d.resisted_by == (1, 3)
    drive(d)
    check_replay(d)


def test_no_resistance_double_when_a_winner_holds_a_big_joker():
    d = double_setup({1: "HR", 0: "HR"}, CGR)
    assert d.tribute_kind == "double" and d.legal_actions() == [HR]


# ---------------------------------------------------------------- return limits


def _receiver_without_low_cards(rules, level, receiver_cards, payer=3):
    """上游 seat 1 receives SB from ``payer`` (3: its own partner came last; 2: an opponent)."""
    other = 5 - payer  # the seat besides 0, 1 and the payer
    hands = build_hands({1: receiver_cards, payer: "SB", 0: "HR HR SB"}, fill_order=(payer, 0, other, 1))
    order = (1, 0, other, payer)
    d = Deal(setup(hands, previous=(order, False), level=level, rules=rules))
    d.apply(parse_cards("SB")[0])
    assert (d.phase, d.to_move, d.tributes[0][:2]) == ("return", 1, (payer, 1))
    return d


def test_return_fallback_lowest_by_power():
    # level J: seat 1 holds only J (level), Q, K, A and the paid SB: no natural rank 2..10
    cards = "SJ SJ HJ HJ CJ CJ DJ DJ SQ SQ HQ HQ CQ CQ DQ DQ SK SK HK HK CK CK DK DK SA SA HA"
    d = _receiver_without_low_cards(CGR, 9, cards)
    assert all(f >> 2 >= 9 for f in d.hands[1])
    assert d.legal_actions() == list(parse_cards("SQ HQ CQ DQ"))  # Q is lowest by power at level J
    before = d.snapshot()
    with pytest.raises(IllegalActionError, match=r"seat 1 cannot pay or return 'SJ'.*lowest card by power"):
        d.apply(parse_cards("SJ")[0])
    assert d.snapshot() == before
    d.apply(parse_cards("DQ")[0])
    assert d.returns == [(1, 3, parse_cards("DQ")[0])] and d.to_move == 3 == d.leader
    drive(d)
    check_replay(d)


def test_return_level_card_counts_as_low_when_its_rank_is_at_most_ten():
    # level 5: the only card of natural rank ≤ 10 is the wild H5, which may be returned
    cards = "H5 SJ SJ HJ HJ CJ CJ DJ DJ SQ SQ HQ HQ CQ CQ DQ DQ SK SK HK HK CK CK DK DK SA SA"
    d = _receiver_without_low_cards(CGR, 3, cards)
    assert d.legal_actions() == list(parse_cards("H5"))


@pytest.mark.parametrize("payer", [3, 2])
def test_cgr_return_limit_applies_to_partner_and_opponent(payer):
    cards = "SJ SJ HJ HJ CJ CJ DJ DJ SQ SQ HQ HQ CQ CQ DQ DQ SK SK HK HK CK CK DK DK SA SA HA"
    d = _receiver_without_low_cards(CGR, 9, cards, payer=payer)
    assert d.legal_actions() == list(parse_cards("SQ HQ CQ DQ"))


def test_jiangsu_return_to_an_opponent_may_be_any_card():
    cards = "SJ SJ HJ HJ CJ CJ DJ DJ SQ SQ HQ HQ CQ CQ DQ DQ SK SK HK HK CK CK DK DK SA SA HA"
    d = _receiver_without_low_cards(JS, 9, cards, payer=2)
    assert d.legal_actions() == sorted(set(d.hands[1]))
    d.apply(parse_cards("SB")[0])  # giving the joker back is allowed
    assert d.returns == [(1, 2, parse_cards("SB")[0])]
    # and with low cards in hand, a high card may still go to the opponent
    hands = build_hands({2: "SA"}, fill_order=(2, 0, 1, 3))
    d = Deal(setup(hands, previous=((1, 0, 3, 2), False), level=LEVEL_T, rules=JS))
    d.apply(parse_cards("SA")[0])
    high = max(d.hands[1])
    assert high >> 2 > 8 and d.can(high)
    assert d.legal_actions() == sorted(set(d.hands[1]))
    drive(d)
    check_replay(d)


def test_jiangsu_return_to_ones_own_partner_is_limited():
    # 上游 seat 1's partner seat 3 came last and pays it: the return goes to a partner
    cards = "SJ SJ HJ HJ CJ CJ DJ DJ SQ SQ HQ HQ CQ CQ DQ DQ SK SK HK HK CK CK DK DK SA SA HA"
    d = _receiver_without_low_cards(JS, 9, cards, payer=3)
    assert d.legal_actions() == list(parse_cards("SQ HQ CQ DQ"))  # the fallback: lowest by power
    hands = build_hands({3: "SA"}, fill_order=(3, 0, 1, 2))
    d = Deal(setup(hands, previous=((1, 0, 2, 3), False), level=LEVEL_T, rules=JS))
    d.apply(parse_cards("SA")[0])
    opts = d.legal_actions()
    assert opts and all(f >> 2 <= 8 for f in opts) and not d.can(parse_cards("SA")[0])


# ---------------------------------------------------------------- tricks and 接风


def test_trick_passes_lead_to_owner_and_skips_finished_seats():
    d = Deal(setup(build_hands(), first_leader=2))
    drive(d)
    ev = d.events
    # the first trick: seat 2 leads, the three others pass, seat 2 leads again
    assert [(e.kind, e.seat) for e in ev[:5]] == [
        ("play", 2),
        ("pass", 3),
        ("pass", 0),
        ("pass", 1),
        ("play", 2),
    ]
    assert ev[4].lead
    out_at = {}
    for i, e in enumerate(ev):
        if (
            e.kind == "play"
            and sum(len(x.combo.cards) for x in ev[: i + 1] if x.kind == "play" and x.seat == e.seat) == 27
        ):
            out_at[e.seat] = i
    for seat, i in out_at.items():
        assert all(e.seat != seat for e in ev[i + 1 :])  # finished seats never act again
    check_replay(d)


def test_pass_not_allowed_to_leader_and_play_must_beat():
    d = Deal(setup(build_hands(), first_leader=0))
    before = d.snapshot()
    with pytest.raises(IllegalActionError, match=r"seat 0 cannot pass: the leader must play"):
        d.apply(PASS)
    assert d.snapshot() == before
    s3 = parse_cards("S3")
    d.apply(Combo("single", 1, s3))
    # seat 1 holds 5s..8s
    for bad, rule in [
        (Combo("single", 12, parse_cards("SA")), "not all in seat 1's hand"),
        (Combo("pair", 4, parse_cards("S6 H6")), "does not beat"),
        (Combo("single", 5, parse_cards("S6")), "not a valid single with key 7"),
        (Combo("pass", -1, parse_cards("S6")), "a pass is the PASS action"),
        (parse_cards("S6")[0], "takes a declared Combo"),
    ]:
        snap = d.snapshot()
        with pytest.raises(IllegalActionError, match=rule) as exc:
            d.apply(bad)
        assert str(exc.value).startswith("seat 1 cannot")
        assert d.snapshot() == snap


def test_illegal_play_message_names_seat_action_and_rule():
    d = Deal(setup(build_hands(), first_leader=1))
    with pytest.raises(IllegalActionError) as exc:
        d.apply(Combo("pair", 1, parse_cards("S3 D3")))
    msg = str(exc.value)
    assert "seat 1" in msg and "pair:3 S3 D3" in msg and "not all in seat 1's hand" in msg
    assert isinstance(exc.value, ValueError) and exc.value.seat == 1 and exc.value.rule in msg


def test_out_of_turn_and_unknown_actions_in_replay():
    d = Deal(setup(build_hands(), first_leader=0))
    d.apply(default_action(d))
    with pytest.raises(IllegalActionError, match="action 0: it is seat 0's turn, not seat 1's"):
        replay(d.setup, [(1, d.actions[0][1])])


@pytest.mark.parametrize("rules", [CGR, JS])
def test_jiefeng_after_first_out_and_double_down_ends_at_once(rules):
    # default policy: seat 0 leads and plays out, everyone passes; its partner gets the lead
    d = Deal(setup(build_hands(), first_leader=0, rules=rules))
    drive(d)
    first_out = next(
        i
        for i, e in enumerate(d.events)
        if e.kind == "play"
        and e.seat == 0
        and not d.hands[0]
        and sum(len(x.combo.cards) for x in d.events[: i + 1] if x.kind == "play" and x.seat == 0) == 27
    )
    after = d.events[first_out + 1 :]
    assert [(e.kind, e.seat) for e in after[:4]] == [("pass", 1), ("pass", 2), ("pass", 3), ("play", 2)]
    assert after[3].lead  # 接风: the partner leads
    assert d.finished == [0, 2]
    assert d.events[-1].kind == "play" and d.events[-1].seat == 2  # the double-down ends the deal at once
    r = d.result
    assert (r.finish_order, r.double_down, r.winner_team, r.upgrade) == ((0, 2, 3, 1), True, 0, 3)
    assert d.phase == "over" and d.to_move == -1 and d.legal_actions() == []
    with pytest.raises(IllegalActionError, match="the deal is over"):
        d.apply(PASS)
    with pytest.raises(IllegalActionError, match="the deal is over"):
        d.apply_unchecked(PASS)
    check_replay(d)


def _second_out_policy(d: Deal):
    """After seat 0 is out, seat 2 leads its lowest single, seat 1 answers with its largest play."""
    if d.phase != "play" or 0 not in d.finished or 1 in d.finished:
        return None
    if d.to_move == 2 and d.top is None:
        return lowest_single(d)
    if d.to_move == 1 and d.top is not None and d.top_owner == 2:
        return max(d.legal_actions(), key=lambda c: len(c.cards))
    return None


@pytest.mark.parametrize("rules,next_leader,order", [(CGR, 3, (0, 1, 3, 2)), (JS, 2, (0, 1, 2, 3))])
def test_jiefeng_after_second_out(rules, next_leader, order):
    d = Deal(setup(build_hands(), first_leader=0, rules=rules))
    drive(d, _second_out_policy)
    ev = d.events
    # seat 1's last play, then seats 2 and 3 pass
    i = max(j for j, e in enumerate(ev) if e.kind == "play" and e.seat == 1)
    assert d.finished[:2] == [0, 1]
    assert [(e.kind, e.seat) for e in ev[i + 1 : i + 4]] == [("pass", 2), ("pass", 3), ("play", next_leader)]
    assert ev[i + 3].lead
    assert d.result.finish_order == order
    assert (d.result.double_down, d.result.winner_team) == (False, 0)
    assert d.result.upgrade == (2 if order[2] == 2 else 1)
    check_replay(d)


def test_jiefeng_refused_when_partner_beats():
    """The partner may answer the finisher's last play instead of waiting for 接风."""

    def policy(d):
        if d.phase == "play" and d.top is not None and d.top_owner == 0 and not d.hands[0] and d.to_move == 2:
            beat = [c for c in d.legal_actions() if c is not PASS and c.type != "pass"]
            return beat[0] if beat else None
        return None

    d = Deal(setup(build_hands(), first_leader=0))
    drive(d, policy)
    assert d.finished[:2] == [0, 2] and d.result.double_down
    check_replay(d)


def test_third_out_ends_the_deal():
    d = Deal(setup(build_hands(), first_leader=0))
    drive(d, _second_out_policy)
    assert len(d.finished) == 3 and d.events[-1].seat == d.finished[-1]
    assert d.hands[d.result.finish_order[3]]  # the last seat still holds cards
    assert sum(len(h) for h in d.hands) == len(d.hands[d.result.finish_order[3]])


def test_unsorted_play_is_recorded_sorted():
    d = Deal(setup(build_hands(), first_leader=0))
    play = Combo("pair", 0, tuple(reversed(parse_cards("S2 D2"))))
    ev = d.apply(play)
    assert ev.combo.cards == parse_cards("S2 D2") and d.actions[-1][1].cards == parse_cards("S2 D2")


def test_setup_validation():
    hands = build_hands()
    with pytest.raises(ValueError, match="4 hands"):
        Deal(DealSetup(hands=hands[:3], first_leader=0))
    with pytest.raises(ValueError, match="more than twice"):
        Deal(DealSetup(hands=(hands[0], hands[0], hands[0], hands[1]), first_leader=0))
    with pytest.raises(ValueError, match="first_leader"):
        Deal(DealSetup(hands=hands))
    with pytest.raises(ValueError, match="permutation"):
        Deal(DealSetup(hands=hands, previous=((0, 0, 1, 2), False)))

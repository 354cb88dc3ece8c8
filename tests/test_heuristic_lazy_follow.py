"""The heuristic's follows, answered from plays built type by type, are the reference answers.

A follow asks its observation for the plays of the top's type and, only when a bomb may
answer, for the bombs (``legal_of_types``); it may pass without learning whether it had a
play at all, and counts such a follow as seen by its memory (``_memory``) only if it had one,
settled when it matters (``_settle``). ``_Reference`` is the follow as first written (the whole
legal list built first, then the same rules): both must answer the same, and leave the same
state, at every decision of many deals, including deals played one after another without
``start_deal`` (the memory then sees a new deal only from the events).
"""

from __future__ import annotations

import copy
import dataclasses
import random
from collections import Counter

from guandan_cli.strategies.heuristic import HeuristicStrategy
from guandan_cli.strategies.heuristic.bot import MAX_COMBO_CARDS, _key, _remove
from guandan_cli.strategies.heuristic.memory import Memory
from guandan_cli.strategies.heuristic.plan import (
    Group,
    Plan,
    combo_signature,
    group_combo,
    group_cost,
    group_signature,
    plan_cost,
)

from guandan_cli.engine import deal_hands
from guandan_cli.engine.combos import BOMB_CLASS, POWER, SEQUENCE_TYPES, bomb_value
from guandan_cli.engine.deal import PASS, PLAY, Deal, DealSetup
from guandan_cli.engine.observation import Observation, observe
from guandan_cli.engine.rules import get_ruleset


class _Reference(HeuristicStrategy):
    """The follow of commit bc64c5c: every legal action built first, then the rules."""

    def choose_play(self, obs):
        leading = obs.top is None
        if leading:
            only = obs.only_legal_action()
            if only is not None:
                return only
        acts = obs.legal_actions
        if len(acts) == 1:
            return acts[0]
        mem = self._memory(obs, leading)
        hand = obs.hand
        n = len(hand)
        if n <= MAX_COMBO_CARDS:
            for a in acts:
                if len(a[2]) == n:
                    return a
        lv = obs.level
        plan = self._plan(hand, lv)
        combo = self._lead(obs, plan, mem) if leading else self._follow(obs, plan)
        return self._played(hand, plan, combo, lv)

    def _memory(self, obs, update: bool = True) -> Memory:
        m = self.mem
        events = obs.events
        if m is None or m.level != obs.level or len(events) < self._events_seen:
            m = self.mem = Memory(obs.level)
            self._next_plans.clear()
        self._events_seen = len(events)
        if update:
            m.update(events)
        return m

    def _find(self, g: Group, obs, plan: Plan):
        lv = obs.level
        sig = group_signature(g)
        reserved = tuple(f for h in plan.groups if h.faces and h is not g for f in h.faces)
        for a in obs.legal_actions:
            if a[0] == g.type and a[1] == g.rank and len(a[2]) == g.size and combo_signature(a, lv) == sig:
                if not reserved or not self._touches(a, reserved, obs.hand):
                    return a
                break
        return group_combo(g, obs.hand, lv, reserved)

    def _follow(self, obs, plan: Plan):
        lv = obs.level
        seat = obs.seat
        counts = obs.card_counts
        finished = obs.finished
        owner = obs.top_owner
        top = obs.top
        hand = obs.hand
        partner = seat ^ 2
        if owner == partner:
            if owner in finished:
                return PASS
            if plan.hands != 1:
                return PASS
        plays = [a for a in obs.legal_actions if a[0] != "pass"]
        if not plays:
            return PASS
        sigs = {group_signature(g): g for g in plan.groups}
        if owner == partner:
            for a in plays:
                if a[0] in BOMB_CLASS:
                    continue
                g = sigs.get(combo_signature(a, lv))
                if g is not None:
                    return self._find(g, obs, plan)
            return PASS
        oc = counts[owner] if owner not in finished else counts[owner ^ 2]
        opps = [counts[s] for s in ((seat + 1) % 4, (seat + 3) % 4) if s not in finished]
        opp_min = min(opps) if opps else 99
        urgent = oc <= self.URGENT
        danger = oc <= self.DANGER or opp_min <= self.URGENT
        thr = self.BREAK_URGENT if urgent else self.BREAK_DANGER if danger else self.BREAK_NORMAL
        base = plan.cost
        best = None
        evaluated = 0
        pw = POWER[lv]
        normal = sorted(
            (a for a in plays if a[0] not in BOMB_CLASS),
            key=lambda a: a[1] if a[0] in SEQUENCE_TYPES else pw[a[1]],
        )
        planned = [sigs.get(combo_signature(a, lv)) for a in normal]
        limit = 3 if danger else 0 if any(g is not None for g in planned) else 2
        spend = not danger and _key(top, lv) < 9
        for a, g in zip(normal, planned):
            if g is not None:
                delta = -group_cost(g, lv)
            else:
                if evaluated >= limit:
                    continue
                evaluated += 1
                delta = plan_cost(_remove(hand, a[2]), lv) - base
            if a[0] in SEQUENCE_TYPES:
                k = a[1]
            else:
                k = pw[a[1]]
                if spend and k >= 13:
                    delta += self.SPEND_CONTROL
            score = delta + 0.01 * k
            if best is None or score < best[0]:
                best = (score, delta, a, g)
        if best is not None and best[1] <= thr:
            g = best[3]
            return self._find(g, obs, plan) if g is not None else best[2]
        bombs = [a for a in plays if a[0] in BOMB_CLASS]
        if not bombs:
            return PASS
        n_bombs = len(plan.bombs)
        if not urgent:
            if not (plan.hands <= n_bombs or danger and n_bombs >= 2):
                return PASS
            if not n_bombs:
                return PASS
        planned_bombs = [a for a in bombs if combo_signature(a, lv) in sigs]
        if not urgent and not planned_bombs:
            return PASS
        pool = planned_bombs or (bombs if urgent else [])
        if not pool:
            return PASS
        a = min(pool, key=lambda a: (bomb_value(a, lv), len(a[2])))
        g = sigs.get(combo_signature(a, lv))
        return self._find(g, obs, plan) if g is not None else a


def _plain(obs: Observation) -> Observation:
    """The same observation as a plain ``Observation`` with its legal tuple built."""
    return Observation(**{f.name: getattr(obs, f.name) for f in dataclasses.fields(Observation)})


def _state(bot: HeuristicStrategy) -> tuple:
    """What a later decision depends on: the memory, the plans kept, the events counted as seen
    (unsure follows settled, as a decision that depends on them settles them)."""
    bot = copy.copy(bot)
    bot._unsure = list(bot._unsure)
    if bot._unsure:
        bot._settle(-1)
    m = bot.mem
    memory = None
    if m is not None:
        memory = (m.level, list(m.played), m.played_wild, m.seen_events, list(m.last_play), m.passed_on)
    return memory, sorted(bot._next_plans.items()), bot._events_seen


def _as_reference(bot: HeuristicStrategy) -> _Reference:
    ref = _Reference(bot.seat)
    memory, plans, seen = _state(bot)
    ref.mem = copy.deepcopy(bot.mem)
    ref._next_plans = dict(plans)
    ref._events_seen = seen
    return ref


def _check_index(bot: HeuristicStrategy) -> None:
    """The index kept (maybe derived after a play, ``_index_without``) is the one built afresh."""
    if bot._indexed is None:
        return
    sigs, ranks_of, n_bombs = bot._index_of
    fresh = HeuristicStrategy(bot.seat)._index(bot._indexed)
    assert {k: id(g) for k, g in sigs.items()} == {k: id(g) for k, g in fresh[0].items()}
    assert {t: r for t, r in ranks_of.items() if r} == fresh[1] and n_bombs == fresh[2]


def _play(deals: int, seed: int, start_deal: bool) -> Counter:
    """Play ``deals`` deals with heuristic bots kept from deal to deal, checking every play
    decision against the reference; the kinds of follows met."""
    rng = random.Random(seed)
    bots = [HeuristicStrategy(s) for s in range(4)]
    met: Counter = Counter()
    for i in range(deals):
        level = rng.choice((i % 13, 0))  # the same level again now and then
        rules = get_ruleset(("cgr2022", "jiangsu2017")[i % 2])
        deal = Deal(DealSetup(hands=deal_hands(rng), level=level, first_leader=i % 4, rules=rules))
        if start_deal:
            for s, b in enumerate(bots):
                b.start_deal(i, observe(deal, s))
        while deal.phase == PLAY:
            seat = deal.to_move
            bot = bots[seat]
            obs = observe(deal, seat)
            ref = _as_reference(bot)
            expected = ref.choose_play(_plain(obs))
            before = len(bot._unsure)
            got = bot.choose_play(obs)
            assert got == expected, (seed, i, seat, obs)
            assert _state(bot) == _state(ref), (seed, i, seat)
            _check_index(bot)
            if obs.top is not None:
                owner = "partner" if obs.top_owner == seat ^ 2 else "opponent"
                met[owner, "pass" if got is PASS else "play", len(bot._unsure) > before] += 1
            deal.apply(got)
    return met


def test_follows_answer_as_the_reference_through_whole_deals():
    met = _play(24, 7, start_deal=True)
    # passes decided without knowing whether a play existed, and plays of both kinds of trick
    assert met["partner", "pass", True] and met["opponent", "pass", True]
    assert met["partner", "play", False] and met["opponent", "play", False]


def test_follows_answer_as_the_reference_without_start_deal():
    """Bots not told of new deals: the memory sees one from the events (fewer than counted)."""
    _play(16, 11, start_deal=False)


class _Seen:
    """An observation as ``_memory`` and ``_settle`` read it: level, events and legal actions."""

    def __init__(self, n_events: int, level: int = 0, could_play: bool | None = None) -> None:
        self.level = level
        self.events = (None,) * n_events
        self.could_play = could_play

    @property
    def legal_actions(self) -> tuple:
        assert self.could_play is not None, "settled when nothing depended on it"
        return (PASS, PASS) if self.could_play else (PASS,)


def test_an_unsure_follow_counts_as_seen_only_if_it_could_play():
    for could_play in (True, False):
        bot = HeuristicStrategy(0)
        bot._memory(_Seen(10), update=False)
        m = bot.mem
        bot._unsure.append(_Seen(50, could_play=could_play))
        # 30 events after 50 counted as seen: a new deal; after 10 only: the same deal
        bot._memory(_Seen(30), update=False)
        assert (bot.mem is not m) == could_play and bot._events_seen == 30 and not bot._unsure
    # at or after the unsure follow's events, the deal is the same either way: nothing settled
    bot = HeuristicStrategy(0)
    bot._memory(_Seen(10), update=False)
    m = bot.mem
    bot._unsure.append(_Seen(50))
    bot._memory(_Seen(50), update=False)
    assert bot.mem is m and bot._events_seen == 50 and not bot._unsure
    # start_deal forgets them
    bot._unsure.append(_Seen(60))
    bot.start_deal(1, _Seen(0))
    assert not bot._unsure and bot._events_seen == 0

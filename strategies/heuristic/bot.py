"""The heuristic player's decision rules (documented in docs/strategies.md)."""

from __future__ import annotations

import numbers
import operator
from typing import ClassVar

from mypy_extensions import mypyc_attr

from guandan_cli.engine.cards import RANK_OF
from guandan_cli.engine.combos import BOMB_CLASS, COMBO_TYPES, POWER, SEQUENCE_TYPES, SIZES, Combo, bomb_value
from guandan_cli.engine.deal import PASS

from ..base import Strategy
from .memory import Memory
from .plan import (
    BOMB_TYPES,
    Group,
    Plan,
    _make_plan,
    _plan_cost,
    combo_signature,
    group_combo,
    group_cost,
    group_signature,
)

#: the most cards one combination holds (a 10-card bomb): a larger hand cannot go out at once
MAX_COMBO_CARDS = 10
#: the types of combination that can hold exactly n cards, by n (0..10)
_TYPES_OF_SIZE = tuple(tuple(t for t in COMBO_TYPES if n in SIZES[t]) for n in range(MAX_COMBO_CARDS + 1))


#: what ``_follow`` learned of the legal plays (``HeuristicStrategy._saw_play``)
SAW_UNKNOWN, SAW_NONE, SAW_PLAY = -1, 0, 1


def _remove(hand: tuple[int, ...], cards: tuple[int, ...]) -> tuple[int, ...]:
    """``hand`` less ``cards`` (which it holds), in its order."""
    if len(cards) == 1:
        i = hand.index(cards[0])
        return hand[:i] + hand[i + 1 :]
    h = list(hand)
    for f in cards:
        h.remove(f)
    return tuple(h)


def _bomb_may_be(hand: tuple[int, ...], lv: int) -> bool:
    """Whether the whole hand may be a bomb (rules.md §4): 4 to 10 cards of one natural rank, wilds
    included, a straight flush (5 cards) or the four jokers; false only when it cannot."""
    n = len(hand)
    if n == 5 or (n == 4 and hand.count(52) == 2 and hand.count(53) == 2):
        return True
    wild = lv * 4 + 1
    return len({RANK_OF[f] for f in hand if f != wild}) <= 1


def _key(c, lv: int) -> int:
    """Strength of a combo's key within its type."""
    if c[0] in SEQUENCE_TYPES:
        return c[1]
    return POWER[lv][c[1]]


#: the constants a subclass may set (``HeuristicStrategy``), as whole numbers and as numbers
_INT_CONSTANTS = ("DANGER", "URGENT", "FEED")
_FLOAT_CONSTANTS = ("BREAK_NORMAL", "BREAK_DANGER", "BREAK_URGENT", "LEAD_SIZE_BONUS", "SPEND_CONTROL")


def _check_constants(cls: type) -> None:
    """Set a subclass's constants as the compiled methods read them (a Python int, a float), or
    raise a TypeError naming the one that is no number: compiled, a numpy integer or a float
    where an int is read fails mid-match with a bare type error (pure Python took them)."""
    for name in _INT_CONSTANTS + _FLOAT_CONSTANTS:
        value = getattr(cls, name)
        want = int if name in _INT_CONSTANTS else float
        if type(value) is want or (want is float and type(value) is int):
            continue
        try:
            if want is int:
                # a numpy integer, or a whole float such as 6.0
                fixed: object = (
                    int(value) if isinstance(value, float) and value.is_integer() else operator.index(value)
                )
            else:
                if not isinstance(value, numbers.Real):
                    raise TypeError(name)
                fixed = float(value)
        except (TypeError, ValueError, OverflowError):
            kind = "a whole number of cards (int)" if want is int else "a number (float)"
            raise TypeError(f"{cls.__name__}.{name} = {value!r}: {name} is {kind}") from None
        setattr(cls, name, fixed)


@mypyc_attr(allow_interpreted_subclasses=True)  # compiled (setup.py), and bots subclass it
class HeuristicStrategy(Strategy):
    """Plans its hand into the fewest combinations and plays the plan out with table sense."""

    #: class attributes (``ClassVar``): compiled, a subclass may still set its own
    name: ClassVar[str] = "heuristic"

    #: break a planned group to answer only when it costs at most this many plan points
    BREAK_NORMAL: ClassVar[float] = 0.1
    BREAK_DANGER: ClassVar[float] = 0.35
    BREAK_URGENT: ClassVar[float] = 3.0
    #: opponents with at most this many cards are a danger / urgent
    DANGER: ClassVar[int] = 6
    URGENT: ClassVar[int] = 3
    #: feed a partner holding at most this many cards
    FEED: ClassVar[int] = 3
    #: leading: bonus per extra card of a group (sequences, full houses first)
    LEAD_SIZE_BONUS: ClassVar[float] = 0.6
    #: following: extra cost of spending a level card or joker on a low play when nothing presses
    SPEND_CONTROL: ClassVar[float] = 0.6

    def __init__(self, seat, rng=None) -> None:
        super().__init__(seat, rng)
        if type(self) is not HeuristicStrategy:
            _check_constants(type(self))
        self.mem: Memory | None = None
        #: plans of hands this seat will hold after its own plays (this deal only)
        self._next_plans: dict[tuple[int, ...], Plan] = {}
        #: the last plan indexed by ``_index`` and its index
        self._indexed: Plan | None = None
        self._index_of: tuple[dict, dict, int] = ({}, {}, 0)
        #: the number of events at this seat's last play decision (a smaller one: a new deal)
        self._events_seen = 0
        #: follows answered (PASS) without learning whether they had a play: a decision with only
        #: PASS to choose from does not count as seen (``_memory``), so each counts only if it had
        #: one, which is asked only when it matters (``_settle``)
        self._unsure: list = []
        #: whether ``_follow`` saw a play (``SAW_PLAY``), saw there was none (``SAW_NONE``), or did
        #: not look (``SAW_UNKNOWN``). An int, not ``bool | None``: a type checker (and mypyc's
        #: compiled code) would take the attribute for None still after ``_follow`` set it
        self._saw_play: int = SAW_UNKNOWN

    # ------------------------------------------------------------ bookkeeping

    def start_deal(self, deal_index, obs) -> None:
        self.mem = Memory(obs.level)
        self._next_plans.clear()
        self._events_seen = 0
        self._unsure.clear()

    def _memory(self, obs, update: bool = True) -> Memory:
        """This deal's memory (a new one when the level changed or the events went back: a new
        deal), brought up to date with the events when ``update``. Only leads read it, and
        counting the events in several updates or in one gives the same memory, so a follow
        leaves the update to the next lead."""
        m = self.mem
        events = obs.events
        if self._unsure:
            self._settle(len(events))
        if m is None or m.level != obs.level or len(events) < self._events_seen:
            m = self.mem = Memory(obs.level)
            self._next_plans.clear()
        self._events_seen = len(events)
        if update:
            m.update(events)
        return m

    def _settle(self, n_events: int) -> None:
        """Count the unsure follows that had a play, if a decision at ``n_events`` events depends
        on it: only when ``n_events`` is below theirs (else no new deal is seen either way)."""
        unsure = self._unsure
        if n_events < len(unsure[-1].events):
            for o in unsure:
                if len(o.legal_actions) > 1:
                    self._events_seen = len(o.events)
        unsure.clear()

    def _plan(self, hand: tuple[int, ...], lv: int) -> Plan:
        p = self._next_plans.get(hand)
        return p if p is not None else _make_plan(hand, lv)

    def _played(self, hand, plan: Plan, combo: Combo, lv: int) -> Combo:
        """Remember the plan for the hand left after ``combo`` (saves a re-plan), and return it."""
        if combo is PASS:
            return combo
        t, rank = combo[0], combo[1]
        sig: tuple | None = None
        for g in plan.groups:
            if g[0] != t or g[1] != rank:  # g.type, g.rank
                continue  # a signature starts with the type and rank
            if sig is None:
                sig = combo_signature(combo, lv)
            if g[:4] == sig:  # group_signature(g)
                rest = _remove(hand, combo.cards)
                left = plan.without(g)
                sf = [f for h in left.groups if h.faces for f in h.faces]
                # the faces of the straight flushes left are all in the hand left (``Counter(sf) <= Counter(rest)``)
                if not sf or all(sf.count(f) <= rest.count(f) for f in set(sf)):
                    self._next_plans[rest] = left
                break
        return combo

    def _find(self, g: Group, obs, plan: Plan) -> Combo:
        """The concrete play for a planned group."""
        lv = obs.level
        sig = group_signature(g)
        reserved = self._reserved(plan, g)
        t, rank, size = g.type, g.rank, g.size  # a signature fixes the number of cards too
        for a in obs.legal_of_types((t,)):
            if a[0] == t and a[1] == rank and len(a[2]) == size and combo_signature(a, lv) == sig:
                if not reserved or not self._touches(a, reserved, obs.hand):
                    return a
                break
        return group_combo(g, obs.hand, lv, reserved)

    def _index(self, plan: Plan) -> tuple[dict, dict, int]:
        """The plan's groups by signature (the last of equal ones, as a dict comprehension keeps),
        the ranks of its groups by type (a play whose signature is a group's has the group's type
        and rank, so a play of another rank needs no signature) and its number of bombs."""
        if self._indexed is not plan:
            sigs = {}
            ranks_of: dict[str, set[int]] = {}
            n_bombs = 0
            for g in plan.groups:
                t = g[0]
                sigs[g[:4]] = g  # group_signature(g): (type, rank, counts, wilds)
                ranks = ranks_of.get(t)
                if ranks is None:
                    ranks_of[t] = {g[1]}
                else:
                    ranks.add(g[1])
                if t in BOMB_TYPES:
                    n_bombs += 1
            self._index_of = (sigs, ranks_of, n_bombs)
            self._indexed = plan
        return self._index_of

    def _answer(self, g: Group, a: Combo, obs, plan: Plan) -> Combo:
        """``_find(g, obs, plan)`` when ``a`` is the first legal play with ``g``'s signature."""
        reserved = self._reserved(plan, g)
        if not reserved or not self._touches(a, reserved, obs.hand):
            return a
        return group_combo(g, obs.hand, obs.level, reserved)

    @staticmethod
    def _reserved(plan: Plan, g: Group) -> tuple[int, ...]:
        """Faces of the plan's straight flushes other than ``g``."""
        sfs = [h for h in plan.groups if h[4]]  # h.faces: straight flushes only
        if not sfs:
            return ()
        return tuple(f for h in sfs if h is not g for f in h.faces)

    @staticmethod
    def _touches(a: Combo, reserved: tuple[int, ...], hand: tuple[int, ...]) -> bool:
        """Whether playing ``a`` would take a face the reserved straight flushes need."""
        cards = a[2]
        return any(hand.count(f) - cards.count(f) < reserved.count(f) for f in set(cards) if f in reserved)

    # ------------------------------------------------------------ tribute and return

    def choose_tribute(self, obs) -> int:
        opts = obs.legal_actions
        if len(opts) == 1:
            return opts[0]
        return min(opts, key=lambda f: (_plan_cost(_remove(obs.hand, (f,)), obs.level), f))

    def choose_return(self, obs) -> int:
        """Return the card whose loss hurts the plan least; never a wild, never from a bomb or
        straight flush while another card is allowed; low cards on ties."""
        lv = obs.level
        pw = POWER[lv]
        wild = lv * 4 + 1
        hand = obs.hand
        base = _make_plan(hand, lv)
        bomb_ranks: set[int] = set()
        sf_faces: dict[int, int] = {}
        for g in base.groups:
            if g.type in BOMB_TYPES:
                if g.faces:
                    for f in g.faces:
                        sf_faces[f] = sf_faces.get(f, 0) + 1
                else:
                    bomb_ranks.update(r for r, _n in g.counts)
        opts = sorted(set(obs.legal_actions))
        free = [
            f
            for f in opts
            if f != wild and RANK_OF[f] not in bomb_ranks and hand.count(f) > sf_faces.get(f, 0)
        ]
        pool = free or [f for f in opts if f != wild] or opts
        # a lone card of the plan goes back at no cost to the plan: the lowest such single
        lone = {g.rank for g in base.groups if g.type == "single" and g.counts}
        singles = [f for f in pool if RANK_OF[f] in lone]
        if singles:
            return min(singles, key=lambda f: (pw[RANK_OF[f]], f))
        # one face per rank is enough (suits matter only for straight flushes, kept above)
        reps: dict[int, int] = {}
        for f in pool:
            r = RANK_OF[f]
            if r not in reps or hand.count(f) > hand.count(reps[r]):
                reps[r] = f
        best: tuple[float, int] | None = None
        for f in sorted(reps.values(), key=lambda f: pw[RANK_OF[f]])[:4]:
            score = _plan_cost(_remove(hand, (f,)), lv) + 0.02 * pw[RANK_OF[f]]
            if best is None or score < best[0]:
                best = (score, f)
        assert best is not None  # ``reps`` holds a card: ``pool`` is never empty
        return best[1]

    # ------------------------------------------------------------ play

    def choose_play(self, obs):
        leading = obs.top is None
        if leading:
            # a lead needs the plays of a few types only (``legal_of_types``): the whole
            # list, full houses and all, is never built for it
            only = obs.only_legal_action()
            if only is not None:
                return only
        else:
            m = self.mem
            unsure = self._unsure
            if (
                m is not None
                and m.level == obs.level
                and len(obs.events) >= (len(unsure[-1].events) if unsure else self._events_seen)
            ):
                # the memory stays (no new deal is seen whatever the answer): the plays are
                # built only as far as the answer needs
                return self._follow_lazily(obs)
            acts = obs.legal_actions
            if len(acts) == 1:
                return acts[0]
        mem = self._memory(obs, leading)
        hand = obs.hand
        n = len(hand)
        if n <= MAX_COMBO_CARDS:
            # the first legal play of all n cards (only these types can hold n cards)
            for a in obs.legal_of_types(_TYPES_OF_SIZE[n]) if leading else acts:
                if len(a[2]) == n:
                    return a  # goes out
        lv = obs.level
        plan = self._plan(hand, lv)
        if leading:
            combo = self._lead(obs, plan, mem)
        else:
            combo = self._follow(obs, plan)
        return self._played(hand, plan, combo, lv)

    # leading ------------------------------------------------------------

    def _lead(self, obs, plan: Plan, mem: Memory) -> Combo:
        lv = obs.level
        seat = obs.seat
        counts = obs.card_counts
        finished = obs.finished
        un, uw = mem.unseen(obs.hand)
        groups = plan.groups
        normal = [g for g in groups if g[0] not in BOMB_TYPES]  # g.type
        if not normal:
            bombs = [g for g in groups if g[0] in BOMB_TYPES]
            g = min(bombs, key=lambda g: bomb_value(Combo(g.type, g.rank, (0,) * g.size), lv))
            return self._find(g, obs, plan)
        # a control: no unseen cards could beat it (bombs aside); equal groups are equally control
        higher = Memory.higher_exists
        is_ctrl = [not higher(g[0], g[1], g.size, un, uw, lv) for g in normal]
        ctrl = [g for g, c in zip(normal, is_ctrl) if c]
        weak = [g for g, c in zip(normal, is_ctrl) if not c]
        # run out: controls first while at most one weak hand remains
        if len(weak) <= 1 and ctrl:
            g = max(
                ctrl, key=lambda g: (g.size, -POWER[lv][g.rank] if g.type not in SEQUENCE_TYPES else -g.rank)
            )
            return self._find(g, obs, plan)
        partner = seat ^ 2
        opps = [s for s in ((seat + 1) % 4, (seat + 3) % 4) if s not in finished]
        # feed a partner close to going out
        pc = counts[partner]
        if partner not in finished and pc <= self.FEED and len(normal) >= 3:
            feed = self._feed(obs, plan, pc)
            if feed is not None:
                return feed
        danger = min((counts[s] for s in opps), default=99)
        cands = weak or normal
        if danger <= 2:
            # avoid handing the opponent a combination of its size
            safe = [g for g in cands if g.size != danger and not (danger == 2 and g.size == 1)]
            if safe:
                cands = safe
            elif danger == 1:
                singles = [g for g in normal if g.type == "single"]
                if singles:
                    g = max(singles, key=lambda g: POWER[lv][g.rank])
                    return self._find(g, obs, plan)

        def lead_score(g: Group) -> float:
            k = g.rank - 2 if g.type in SEQUENCE_TYPES else POWER[lv][g.rank]
            return k - self.LEAD_SIZE_BONUS * (g.size - 1)

        g = min(cands, key=lead_score)
        return self._find(g, obs, plan)

    def _feed(self, obs, plan: Plan, pc: int) -> Combo | None:
        """Lead the lowest combination of a type a partner with ``pc`` cards may follow."""
        lv = obs.level
        bomb_ranks = {r for g in plan.groups if g.type in BOMB_TYPES for r, _n in g.counts}
        want = ("single",) if pc == 1 else ("pair", "single") if pc == 2 else ("triple", "pair", "single")
        last = self.mem.last_play[obs.seat ^ 2] if self.mem is not None else None
        if last is not None and last[0] in want and len(last[2]) <= pc:
            want = (last[0],) + tuple(t for t in want if t != last[0])
        for t in want:
            groups = [g for g in plan.groups if g.type == t]
            if groups:
                return self._find(min(groups, key=lambda g: POWER[lv][g.rank]), obs, plan)
            opts = [a for a in obs.legal_of_types((t,)) if not any(RANK_OF[f] in bomb_ranks for f in a[2])]
            if opts:
                return min(opts, key=lambda a: (_key(a, lv), a[2].count(lv * 4 + 1)))
        return None

    # following ----------------------------------------------------------

    def _follow_lazily(self, obs) -> Combo:
        """``choose_play`` for a follow whose ``_memory`` call could only count the events: the
        same answer, with the plays of a type built only when the answer depends on them
        (``legal_of_types``: the plays of the top's type come first in the legal order, the
        bombs next). Whether the follow could play at all (``len(legal_actions) > 1``, which
        ``choose_play`` tests first) is settled only when the answer or the memory needs it."""
        hand = obs.hand
        n = len(hand)
        lv = obs.level
        if n <= MAX_COMBO_CARDS:
            # the first legal play of all n cards: of the top's type (all of one size), or a bomb
            t = obs.top[0]
            if t not in BOMB_CLASS:
                plays = obs.legal_of_types((t,))
                if plays and len(plays[0][2]) == n:
                    self._memory(obs, False)
                    return plays[0]  # goes out
            if n >= 4 and _bomb_may_be(hand, lv):
                for a in obs.legal_of_types(BOMB_CLASS):
                    if len(a[2]) == n:
                        self._memory(obs, False)
                        return a  # goes out
        plan = self._plan(hand, lv)
        self._saw_play = SAW_UNKNOWN
        combo = self._follow(obs, plan)
        if combo is not PASS or self._saw_play == SAW_PLAY:
            self._memory(obs, False)  # counts the events (no new deal: checked by the caller)
        elif self._saw_play == SAW_UNKNOWN:
            self._unsure.append(obs)
        return self._played(hand, plan, combo, lv)

    def _follow(self, obs, plan: Plan):
        """The answer to the trick's top (a play, or PASS); ``_saw_play`` tells what it learned
        of the legal plays (asked of ``obs`` type by type, in their legal order)."""
        lv = obs.level
        seat = obs.seat
        counts = obs.card_counts
        finished = obs.finished
        owner = obs.top_owner
        top = obs.top
        partner = seat ^ 2
        if owner == partner:
            if owner in finished:
                return PASS  # 接风: the lead comes to me if everyone passes
            if plan.hands != 1:
                return PASS  # a planned non-bomb play leaves plan.hands - 1 hands to play out
        sigs, ranks_of, n_bombs = self._index(plan)
        # the non-bomb plays: those of the top's type (none against a bomb), listed first
        t = top[0]
        plays = () if t in BOMB_CLASS else obs.legal_of_types((t,))
        if plays:
            self._saw_play = SAW_PLAY
        ranks = ranks_of.get(t)  # a play of another rank is no planned group
        if owner == partner:
            if ranks:
                for a in plays:
                    if a[1] in ranks:
                        g = sigs.get(combo_signature(a, lv))
                        if g is not None:
                            return self._answer(g, a, obs, plan)  # the first play of its signature
            return PASS
        hand = obs.hand
        # an owner already out hands the lead to its partner if all pass (接风)
        oc = counts[owner] if owner not in finished else counts[owner ^ 2]
        opp_min: int | None = None  # the fewest cards of an opponent still in play (99: none)
        for s in ((seat + 1) % 4, (seat + 3) % 4):
            if s not in finished and (opp_min is None or counts[s] < opp_min):
                opp_min = counts[s]
        if opp_min is None:
            opp_min = 99
        urgent = oc <= self.URGENT
        danger = oc <= self.DANGER or opp_min <= self.URGENT
        thr = self.BREAK_URGENT if urgent else self.BREAK_DANGER if danger else self.BREAK_NORMAL
        best: tuple | None = None
        if plays:
            pw = POWER[lv]
            # the planned group of each play (None for a play outside the plan), and the first
            # play (in legal order) of each planned group's signature: ``_find``'s answer
            groups: list[Group | None] = []
            planned: list[Group | None] | None = groups
            firsts: dict[int, Combo] = {}
            if ranks:
                for a in plays:
                    g = None
                    if a[1] in ranks:
                        g = sigs.get(combo_signature(a, lv))
                        if g is not None and id(g) not in firsts:
                            firsts[id(g)] = a
                    groups.append(g)
            # each play's key (a sequence's top, else the power of its rank), and the plays in key
            # order (the sort is stable: plays of equal key keep their legal order)
            seq = t in SEQUENCE_TYPES
            keys = [a[1] for a in plays] if seq else [pw[a[1]] for a in plays]
            order = sorted(range(len(plays)), key=keys.__getitem__)
            if firsts:
                limit = 3 if danger else 0
            else:
                # no planned play: only the first ``limit`` plays are looked at
                limit = 3 if danger else 2
                order = order[:limit]
                planned = None
            # spending a top card on a low play is a cost when nothing presses
            spend = not danger and not seq and _key(top, lv) < 9
            base = plan.cost
            evaluated = 0
            for i in order:
                g = planned[i] if planned is not None else None
                if g is not None:
                    delta = -group_cost(g, lv)
                else:
                    if evaluated >= limit:
                        continue
                    evaluated += 1
                    delta = _plan_cost(_remove(hand, plays[i][2]), lv) - base
                k = keys[i]
                if spend and k >= 13:
                    delta += self.SPEND_CONTROL
                score = delta + 0.01 * k
                if best is None or score < best[0]:
                    best = (score, delta, plays[i], g)
        if best is not None and best[1] <= thr:
            g = best[3]
            return self._answer(g, firsts[id(g)], obs, plan) if g is not None else best[2]
        # bombs (the plays after the non-bomb ones; asked only when a bomb may answer)
        if not urgent:
            # a planned bomb to win the lead when the plan can then run out (plan.hands <=
            # len(plan.bombs)), or one of two when in danger
            if not (len(plan.groups) - n_bombs <= n_bombs or danger and n_bombs >= 2):
                return PASS
            if not n_bombs:
                return PASS  # no bomb play has a bomb group's signature
        bombs = obs.legal_of_types(BOMB_CLASS)
        if not bombs:
            if not plays:
                self._saw_play = SAW_NONE
            return PASS
        self._saw_play = SAW_PLAY
        planned_bombs = [
            a for a in bombs if a[1] in ranks_of.get(a[0], ()) and combo_signature(a, lv) in sigs
        ]
        if not urgent and not planned_bombs:
            return PASS
        pool = planned_bombs or (bombs if urgent else [])
        if not pool:
            return PASS
        a = min(pool, key=lambda a: (bomb_value(a, lv), len(a[2])))
        g = sigs.get(combo_signature(a, lv))
        return self._find(g, obs, plan) if g is not None else a

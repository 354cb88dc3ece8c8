"""The hand planner: split a hand into the fewest combinations, counting wild cards.

A *plan* is a list of ``Group``s that together use every card of the hand once.
The search works on rank counts (suits matter only for straight flushes):

1. optionally set aside one straight flush (natural, or completed by one wild);
2. depth-first over straights, tubes (三连对) and plates (钢板) that fit the
   counts, wild cards filling gaps, never breaking a bomb (4+ of a rank);
3. the rest by rank: 4+ = bomb, 3 = triple, 2 = pair, 1 = single; each left-over
   wild completes a triple into a bomb, a spare pair into a triple, or a low
   single into a pair; triples then carry the lowest pairs as full houses.

A plan's ``cost`` is its number of non-bomb hands (what must still be played out)
plus small penalties for low singles and pairs, minus a bonus per bomb. Plans
are cached per (hand, level).

>>> from guandan_cli.engine import parse_cards
>>> p = make_plan(parse_cards("S3 H4 D5 C6 S7 S9 D9 SK"), 0)
>>> [g.type for g in p.groups]
['straight', 'pair', 'single']
>>> p.hands
3
"""

from __future__ import annotations

from collections.abc import Iterable
from operator import index as _as_index
from typing import ClassVar, NamedTuple, SupportsIndex

from guandan_cli.engine.cards import HR, RANK_OF, SB, SUIT_OF, InvalidHandError, hand_problem, level_index
from guandan_cli.engine.combos import (
    BOMB,
    FULL_HOUSE,
    JOKER_BOMB,
    PAIR,
    PLATE,
    PLATE_WINDOWS,
    POWER,
    SINGLE,
    STRAIGHT,
    STRAIGHT_FLUSH,
    STRAIGHT_WINDOWS,
    TRIPLE,
    TUBE,
    TUBE_WINDOWS,
    Combo,
)

BOMB_TYPES = frozenset((BOMB, STRAIGHT_FLUSH, JOKER_BOMB))
SEQ_TYPES = frozenset((STRAIGHT, TUBE, PLATE, STRAIGHT_FLUSH))


class Group(NamedTuple):
    """One planned combination.

    ``rank`` is the combo key (natural top for sequences); ``counts`` the natural
    cards used as ``((rank, n), …)``; ``wilds`` the wild cards used; ``faces`` the
    exact faces of a straight flush (else empty); ``pair`` a full house's pair rank.
    """

    type: str
    rank: int
    counts: tuple[tuple[int, int], ...]
    wilds: int = 0
    faces: tuple[int, ...] = ()
    pair: int = -1

    @property
    def size(self) -> int:
        counts = self[2]
        if len(counts) == 1:  # one rank (singles to bombs): no loop
            return counts[0][1] + self[3]
        size = self[3]
        for _r, n in counts:
            size += n
        return size

    @property
    def is_bomb(self) -> bool:
        return self.type in BOMB_TYPES


class Plan(NamedTuple):
    groups: tuple[Group, ...]
    cost: float
    level: int = 0

    @property
    def hands(self) -> int:
        """Non-bomb combinations still to play out."""
        return sum(1 for g in self.groups if g.type not in BOMB_TYPES)

    @property
    def bombs(self) -> tuple[Group, ...]:
        return tuple(g for g in self.groups if g.type in BOMB_TYPES)

    def without(self, group: Group) -> Plan:
        gs = list(self[0])
        gs.remove(group)
        lv = self[2]
        return _new_tuple(Plan, (tuple(gs), self[1] - group_cost(group, lv), lv))


# ---------------------------------------------------------------- costs

BOMB_BONUS = 0.6


def _single_pen(p: int) -> float:
    if p >= 13:  # level card, jokers: control
        return -0.25 - 0.05 * (p - 13)
    return max(0, 9 - p) * 0.04


def _pair_pen(p: int) -> float:
    if p >= 12:
        return -0.2
    return max(0, 9 - p) * 0.03


def _triple_pen(p: int) -> float:
    return max(0, 6 - p) * 0.02


#: penalties by power 0..15
SINGLE_PEN = tuple(_single_pen(p) for p in range(16))
PAIR_PEN = tuple(_pair_pen(p) for p in range(16))
TRIPLE_PEN = tuple(_triple_pen(p) for p in range(16))


def group_cost(g: Group, lv: int) -> float:
    t = g.type
    if t in BOMB_TYPES:
        return -BOMB_BONUS
    if t == SINGLE:
        return 1.0 + SINGLE_PEN[POWER[lv][g.rank]]
    if t == PAIR:
        return 1.0 + PAIR_PEN[POWER[lv][g.rank]]
    if t in (TRIPLE, FULL_HOUSE):
        return 1.0 + TRIPLE_PEN[POWER[lv][g.rank]]
    return 1.0


# ---------------------------------------------------------------- search

#: (type, top, ranks, cards per rank) of every sequence window
SEQS: tuple[tuple[str, int, tuple[int, ...], int], ...] = tuple(
    [(STRAIGHT, top, ranks, 1) for top, ranks in STRAIGHT_WINDOWS]
    + [(TUBE, top, ranks, 2) for top, ranks in TUBE_WINDOWS]
    + [(PLATE, top, ranks, 3) for top, ranks in PLATE_WINDOWS]
)
N_SEQS = len(SEQS)
SEQ_K = tuple(k for _t, _top, _ranks, k in SEQS)
SEQ_MASK = tuple(sum(1 << r for r in ranks) for _t, _top, ranks, _k in SEQS)
_SF_WINDOWS = tuple((top, ranks, sum(1 << r for r in ranks)) for top, ranks in STRAIGHT_WINDOWS)


#: ranks 0..12 in power order at each level (the level rank last)
ORDER: tuple[tuple[int, ...], ...] = tuple(
    tuple(sorted(range(13), key=POWER[lv].__getitem__)) for lv in range(13)
)


def _leaf(c: list[int], w: int, pw: tuple[int, ...], lv: int, build: bool):
    """Cost (and groups when ``build``) of the same-rank split of counts ``c`` with ``w`` wilds."""
    singles: list[int] = []
    pairs: list[int] = []
    triples: list[int] = []
    bombs: list[int] = []
    for r in ORDER[lv]:  # power order: every list below is sorted by power
        n = c[r]
        if n:
            if n == 1:
                singles.append(r)
            elif n == 2:
                pairs.append(r)
            elif n == 3:
                triples.append(r)
            else:
                bombs.append(r)
    sb, hr = c[13], c[14]
    joker_bomb = sb == 2 and hr == 2
    jpairs: list[int] = []
    if not joker_bomb:
        for r, n in ((13, sb), (14, hr)):
            if n == 2:
                jpairs.append(r)
            elif n == 1:
                singles.append(r)
    # wild placement: a triple becomes a bomb; else a pair becomes a triple carrying
    # another pair; else the lowest single (below A) becomes a pair; else the wild stays single
    wild_to: list[int] = []
    wild_single = 0
    for _ in range(w):
        if triples:
            r = triples.pop()
            bombs.append(r)
        elif len(pairs) >= 2:
            r = pairs.pop()
            triples.append(r)
        elif singles and singles[0] < 13 and pw[singles[0]] < 12:
            r = singles.pop(0)
            pairs.append(r)
            if len(pairs) > 1:
                pairs.sort(key=pw.__getitem__)
        else:
            wild_single += 1
            continue
        wild_to.append(r)
    nfh = min(len(triples), len(pairs))
    cost = 0.0
    for r in singles:
        cost += 1.0 + SINGLE_PEN[pw[r]]
    cost += wild_single * (1.0 + SINGLE_PEN[13])
    for r in pairs[nfh:]:
        cost += 1.0 + PAIR_PEN[pw[r]]
    for r in jpairs:
        cost += 1.0 + PAIR_PEN[pw[r]]
    for r in triples:
        cost += 1.0 + TRIPLE_PEN[pw[r]]
    cost -= BOMB_BONUS * (len(bombs) + joker_bomb)
    if not build:
        return cost, None
    wc: dict[int, int] = {}
    for r in wild_to:
        wc[r] = wc.get(r, 0) + 1
    groups: list[Group] = []
    for r in bombs:
        groups.append(Group(BOMB, r, ((r, c[r]),), wc.get(r, 0)))
    if joker_bomb:
        groups.append(Group(JOKER_BOMB, 14, ((13, 2), (14, 2))))
    # full houses: the lowest pairs go to the highest triples
    by_power = sorted(triples, key=lambda x: pw[x], reverse=True)
    for i, r in enumerate(by_power):
        if i < nfh:
            p = pairs[i]
            counts = tuple(sorted(((r, c[r]), (p, c[p])))) if c[p] else ((r, c[r]),)
            groups.append(Group(FULL_HOUSE, r, counts, wc.get(r, 0) + wc.get(p, 0), pair=p))
        else:
            groups.append(Group(TRIPLE, r, ((r, c[r]),), wc.get(r, 0)))
    for r in pairs[nfh:]:
        groups.append(Group(PAIR, r, ((r, c[r]),), wc.get(r, 0)))
    for r in jpairs:
        groups.append(Group(PAIR, r, ((r, 2),)))
    for r in singles:
        groups.append(Group(SINGLE, r, ((r, 1),)))
    for _ in range(wild_single):
        groups.append(Group(SINGLE, lv, (), 1))
    return cost, groups


_new_tuple = tuple.__new__  # Group(...) without the NamedTuple's Python-level __new__


def _leaf_groups(c: list[int], w: int, lv: int) -> list[Group]:
    """``_leaf(c, w, POWER[lv], lv, True)[1]``: the same groups in the same order, no cost."""
    pw = POWER[lv]
    singles: list[int] = []
    pairs: list[int] = []
    triples: list[int] = []
    bombs: list[int] = []
    for r in ORDER[lv]:
        n = c[r]
        if n:
            if n == 1:
                singles.append(r)
            elif n == 2:
                pairs.append(r)
            elif n == 3:
                triples.append(r)
            else:
                bombs.append(r)
    sb, hr = c[13], c[14]
    joker_bomb = sb == 2 and hr == 2
    jpairs: list[int] = []
    if not joker_bomb:
        if sb == 2:
            jpairs.append(13)
        elif sb == 1:
            singles.append(13)
        if hr == 2:
            jpairs.append(14)
        elif hr == 1:
            singles.append(14)
    wc: dict[int, int] = {}
    wild_single = 0
    for _ in range(w):
        if triples:
            r = triples.pop()
            bombs.append(r)
        elif len(pairs) >= 2:
            r = pairs.pop()
            triples.append(r)
        elif singles and singles[0] < 13 and pw[singles[0]] < 12:
            r = singles.pop(0)
            pairs.append(r)
            if len(pairs) > 1:
                pairs.sort(key=pw.__getitem__)
        else:
            wild_single += 1
            continue
        wc[r] = wc.get(r, 0) + 1
    nfh = min(len(triples), len(pairs))
    new = _new_tuple
    groups: list[Group] = []
    # a rank no wild went to holds exactly its group's cards: its group comes from the tables
    for r in bombs:
        groups.append(
            new(Group, (BOMB, r, ((r, c[r]),), wc[r], (), -1)) if r in wc else _BOMB_GROUPS[r][c[r]]
        )
    if joker_bomb:
        groups.append(_JOKER_BOMB_GROUP)
    by_power = sorted(triples, key=pw.__getitem__, reverse=True) if len(triples) > 1 else triples
    for i, r in enumerate(by_power):
        if i < nfh:
            p = pairs[i]
            counts = tuple(sorted(((r, c[r]), (p, c[p])))) if c[p] else ((r, c[r]),)
            groups.append(new(Group, (FULL_HOUSE, r, counts, wc.get(r, 0) + wc.get(p, 0), (), p)))
        else:
            groups.append(
                new(Group, (TRIPLE, r, ((r, c[r]),), wc[r], (), -1)) if r in wc else _TRIPLE_GROUPS[r]
            )
    for r in pairs[nfh:]:
        groups.append(new(Group, (PAIR, r, ((r, c[r]),), wc[r], (), -1)) if r in wc else _PAIR_GROUPS[r])
    for r in jpairs:
        groups.append(_PAIR_GROUPS[r])
    for r in singles:
        groups.append(_SINGLE_GROUPS[r])
    if wild_single:
        groups += [_WILD_SINGLE_GROUPS[lv]] * wild_single
    return groups


#: the groups of a rank's cards without wilds, by rank (0..14): ranks left single, paired,
#: tripled, and bombs by number of cards (shared: groups are compared by value, and only a
#: straight flush's group, never from these tables, is told apart by identity)
_SINGLE_GROUPS = tuple(Group(SINGLE, r, ((r, 1),)) for r in range(15))
_PAIR_GROUPS = tuple(Group(PAIR, r, ((r, 2),)) for r in range(15))
_TRIPLE_GROUPS = tuple(Group(TRIPLE, r, ((r, 3),)) for r in range(15))
_BOMB_GROUPS = tuple(tuple(Group(BOMB, r, ((r, n),)) for n in range(9)) for r in range(15))
_JOKER_BOMB_GROUP = Group(JOKER_BOMB, 14, ((13, 2), (14, 2)))
#: a wild left single, by level
_WILD_SINGLE_GROUPS = tuple(Group(SINGLE, lv, (), 1) for lv in range(13))


#: per level, the cost of a rank left as a single / pair / triple (1 + its penalty), by rank
_SINGLE_COST = tuple(tuple(1.0 + SINGLE_PEN[p] for p in POWER[lv]) for lv in range(13))
_PAIR_COST = tuple(tuple(1.0 + PAIR_PEN[p] for p in POWER[lv]) for lv in range(13))
_TRIPLE_COST = tuple(tuple(1.0 + TRIPLE_PEN[p] for p in POWER[lv]) for lv in range(13))
_WILD_SINGLE_COST = 1.0 + SINGLE_PEN[13]


if [t for t, _top, _r, _k in SEQS] != [STRAIGHT] * 10 + [TUBE] * 12 + [PLATE] * 13:  # pragma: no cover
    raise ImportError("the plan search's window bits assume 10 straights, 12 tubes and 13 plates")


if any(ORDER[lv] != tuple(r for r in range(13) if r != lv) + (lv,) for lv in range(13)):  # pragma: no cover
    raise ImportError("the plan search assumes the power order is the natural one, the level rank last")

#: per level, the cost of a rank mask's singles summed in power order from 0.0, by mask (None
#: until used: lists of 8,192 slots, read faster than dicts on the search's every node, made by
#: ``_level_tables`` on a level's first search). In power order at level lv, the ranks of a mask are its natural
#: ranks but lv, then lv if held: the sum of a mask is the sum of the mask without its last
#: rank in that order plus that rank's cost, the same additions in the same order.
_SINGLES_SUM: list[list[float | None]] = [[] for _lv in range(13)]


def _singles_sum(lv: int, mask: int) -> float:
    """``cost = 0.0; cost += single cost`` for the ranks of ``mask`` in power order, on a miss of
    ``_SINGLES_SUM[lv]`` (filled)."""
    table = _SINGLES_SUM[lv]
    last = lv if mask >> lv & 1 else mask.bit_length() - 1  # the last rank in power order
    head = table[mask ^ 1 << last]
    if head is None:
        head = _singles_sum(lv, mask ^ 1 << last)
    total = table[mask] = head + _SINGLE_COST[lv][last]
    return total


_RANK_BIT = tuple(1 << r for r in range(13))


def _three_of_five(a: int) -> int:
    """Bit i set when at least 3 of the five bits i..i+4 of ``a`` are set: counts of 1, 2 and
    3+ bit-sliced over the first four bits, then the fifth added."""
    b1 = a >> 1
    b2 = a >> 2
    b3 = a >> 3
    ge1 = a | b1
    ge2 = a & b1
    ge3 = ge2 & b2
    ge2 |= ge1 & b2
    ge1 |= b2
    ge3 |= ge2 & b3
    ge2 |= ge1 & b3
    return ge3 | ge2 & a >> 4


def _wild_windows(a1: int, a2: int, a3: int, w: int) -> int:
    """Bit i set for each sequence window i a hand with ``w`` wilds may fill: straights need
    5 - w of their ranks present (bit-sliced counts of the window's five rank bits), tubes and
    plates every rank present and enough of them paired (tripled). ``a1``/``a2``/``a3``: the
    ranks holding at least 1/2/3 cards, A also below 2 (bit 0)."""
    a2a2 = a2 & a2 >> 1
    b1 = a1 >> 1
    b2 = a1 >> 2
    b3 = a1 >> 3
    b4 = a1 >> 4
    if w == 1:
        p2 = a1 & b1
        s3 = b3 & b4
        straights = p2 & b2 & (b3 | b4) | s3 & (p2 | b2 & (a1 | b1))
        tubes = a1 & b1 & b2 & (a2a2 | a2 & a2 >> 2 | a2 >> 1 & a2 >> 2)
        cand = straights & 0x3FF | (tubes & 0xFFF) << 10 | (a2a2 & (a3 | a3 >> 1) & 0x1FFF) << 22
    elif w == 2:
        straights = _three_of_five(a1)
        tubes = a1 & b1 & b2 & (a2 | a2 >> 1 | a2 >> 2)
        cand = straights & 0x3FF | (tubes & 0xFFF) << 10 | (a1 & b1 & (a2a2 | a3 | a3 >> 1) & 0x1FFF) << 22
    else:  # pragma: no cover - a hand holds at most two wilds
        cand = (1 << N_SEQS) - 1
    return cand


#: per level, by pairs (triples) mask: the costs of its ranks left as pairs (triples), in power
#: order (the floats of ``_PAIR_COST`` / ``_TRIPLE_COST``; None until used, as ``_SINGLES_SUM``)
_PAIR_COSTS: list[list[tuple[float, ...] | None]] = [[] for _lv in range(13)]
_TRIPLE_COSTS: list[list[tuple[float, ...] | None]] = [[] for _lv in range(13)]


def _level_tables(lv: int) -> list[float | None]:
    """Level ``lv``'s ``_SINGLES_SUM``, ``_PAIR_COSTS`` and ``_TRIPLE_COSTS`` lists, made on
    first use (a level's first search): the singles sums."""
    if not _SINGLES_SUM[lv]:
        _PAIR_COSTS[lv] = [()] + [None] * 8191
        _TRIPLE_COSTS[lv] = [()] + [None] * 8191
        _SINGLES_SUM[lv] = [0.0] + [None] * 8191
    return _SINGLES_SUM[lv]


#: rank-4+ mask -> the windows (bit i for window i) that take no card of those ranks
_FREE_WINDOWS: dict[int, int] = {}
#: the windows i.. (bit i for window i), by i
_FROM = tuple((1 << N_SEQS) - (1 << i) for i in range(N_SEQS + 1))
#: the stack entry of window i taken without wilds
_NO_WILD = tuple((i, 0) for i in range(N_SEQS))


def _mask_costs(
    tables: list[list[tuple[float, ...] | None]], costs: tuple[tuple[float, ...], ...], lv: int, mask: int
) -> tuple[float, ...]:
    """On a miss of ``tables[lv]`` (``_PAIR_COSTS`` or ``_TRIPLE_COSTS``): the costs
    (``costs[lv]``: ``_PAIR_COST`` or ``_TRIPLE_COST``) of ``mask``'s ranks in power order,
    filled from the mask without its last rank."""
    table = tables[lv]
    last = lv if mask >> lv & 1 else mask.bit_length() - 1
    head = table[mask ^ 1 << last]
    if head is None:
        head = _mask_costs(tables, costs, lv, mask ^ 1 << last)
    out = table[mask] = head + (costs[lv][last],)
    return out


def _pair_costs(lv: int, pm: int) -> tuple[float, ...]:
    """The costs of ``pm``'s pairs, filling ``_PAIR_COSTS[lv]`` on a miss."""
    return _mask_costs(_PAIR_COSTS, _PAIR_COST, lv, pm)


def _triple_costs(lv: int, tm: int) -> tuple[float, ...]:
    """The costs of ``tm``'s triples, filling ``_TRIPLE_COSTS[lv]`` on a miss."""
    return _mask_costs(_TRIPLE_COSTS, _TRIPLE_COST, lv, tm)


def _free_windows(l4: int) -> int:
    """The windows that take no card of the ranks of ``l4`` (cached)."""
    free = _FREE_WINDOWS.get(l4)
    if free is None:
        free = _FREE_WINDOWS[l4] = sum(1 << i for i in range(N_SEQS) if not SEQ_MASK[i] & l4)
    return free


#: no-wild candidate windows by layer: bit i of ``_CAND1[l1] & _CAND2[l2] & _CAND3[l3]`` is set
#: when window i takes k cards from each of its ranks with no wild and leaves no triple of a
#: straight's ranks and no plate of a tube's (at least 3 pairs under a straight, 2 triples under
#: a tube): each table sets every bit it does not decide. Built by ``_build_cand_tables`` (a
#: few ms) on the first search.
_CAND1: tuple[int, ...] = ()
_CAND2: tuple[int, ...] = ()
_CAND3: tuple[int, ...] = ()


def _build_cand_tables() -> None:
    global _CAND1, _CAND2, _CAND3
    rotated = [m << 1 | m >> 12 for m in range(8192)]  # A also below 2 (bit 0)
    not_straights = (1 << N_SEQS) - 1 ^ 0x3FF
    _CAND1 = tuple([a & a >> 1 & a >> 2 & a >> 3 & a >> 4 & 0x3FF | not_straights for a in rotated])
    cand2 = []
    for a in rotated:
        three_pairs = _three_of_five(a)  # straights with 3+ of their 5 ranks paired
        cand2.append(~three_pairs & 0x3FF | (a & a >> 1 & a >> 2 & 0xFFF) << 10 | 0x1FFF << 22)
    _CAND2 = tuple(cand2)
    _CAND3 = tuple(
        [
            0x3FF | (~(a & a >> 1 | a & a >> 2 | a >> 1 & a >> 2) & 0xFFF) << 10 | (a & a >> 1 & 0x1FFF) << 22
            for a in rotated
        ]
    )


def _joker_parts(lv: int, sb: int, hr: int) -> tuple[bool, tuple[float, ...], tuple[float, ...]]:
    """Whether ``sb`` small and ``hr`` big jokers make a joker bomb, the costs of the lone jokers
    and those of the joker pairs (small joker first) at level ``lv``."""
    joker_bomb = sb == 2 and hr == 2
    jsingles: list[float] = []
    jpairs: list[float] = []
    if not joker_bomb:
        if sb == 2:
            jpairs.append(_PAIR_COST[lv][13])
        elif sb == 1:
            jsingles.append(_SINGLE_COST[lv][13])
        if hr == 2:
            jpairs.append(_PAIR_COST[lv][14])
        elif hr == 1:
            jsingles.append(_SINGLE_COST[lv][14])
    return joker_bomb, tuple(jsingles), tuple(jpairs)


#: ``_joker_parts`` by level, then by ``sb * 3 + hr`` (a hand holds at most 2 of a joker)
_JOKER_PARTS = tuple(
    tuple(_joker_parts(lv, sb, hr) for sb in range(3) for hr in range(3)) for lv in range(13)
)


#: the nodes a search visits before it stops expanding (the ``cap`` of a ``_Search``)
SEARCH_CAP = 300


class _Search:
    """Depth-first over the sequence windows, on rank-count layers: bit r of layer ``j``
    (``l1``..``l8``) is set when rank r holds at least j natural cards. Taking k cards per
    rank of a window (as many as there are, wilds filling the rest) moves layer j + k down
    to layer j on the window's ranks. Node costs are the ``_leaf`` cost + sequences, the same
    floats from the same additions, and nodes are visited in the same order (CAP included).
    """

    __slots__ = (
        "lv",
        "best",
        "best_stack",
        "stack",
        "nodes",
        "cap",
        "c",
        "w",
        "joker_bomb",
        "jsingles",
        "jpairs",
        "ss",
        "pcs",
        "tcs",
        "lvbit",
        "bombs",
        "bsub",
        "free",
    )
    CAP: ClassVar[int] = SEARCH_CAP

    def __init__(self, c: list[int], w: int, lv: int, cap: int = SEARCH_CAP) -> None:
        self.c = c
        self.w = w
        self.lv = lv
        self.best = 1e9
        self.best_stack: list[tuple[int, int]] = []
        self.stack: list[tuple[int, int]] = []
        self.nodes = 0
        self.cap = cap
        # the jokers never enter a window: their part of every leaf is fixed
        sb, hr = c[13], c[14]
        self.joker_bomb, self.jsingles, self.jpairs = (
            _JOKER_PARTS[lv][sb * 3 + hr] if sb < 3 and hr < 3 else _joker_parts(lv, sb, hr)
        )
        ss = _SINGLES_SUM[lv]
        self.ss = ss if ss else _level_tables(lv)
        self.pcs = _PAIR_COSTS[lv]
        self.tcs = _TRIPLE_COSTS[lv]
        self.lvbit = _RANK_BIT[lv]

    def run(self, idx: int, seq_cost: float) -> None:
        """Search from window ``idx`` with the counts ``c`` and wilds ``w`` given (sequences so
        far: ``seq_cost``)."""
        # the ranks holding exactly n cards, then the layers (at least j cards) from the top
        by_count = [0] * 9
        c = self.c
        for n, bit in zip(c, _RANK_BIT):  # ranks 0..12 (``_RANK_BIT`` stops the zip)
            by_count[n] |= bit
        l8 = by_count[8]
        l7 = l8 | by_count[7]
        l6 = l7 | by_count[6]
        l5 = l6 | by_count[5]
        l4 = l5 | by_count[4]
        l3 = l4 | by_count[3]
        l2 = l3 | by_count[2]
        if not _CAND1:
            _build_cand_tables()
        if l5:
            self._node(idx, seq_cost, self.w, l2 | by_count[1], l2, l3, l4, l5, l6, l7, l8)
            return
        # no rank holds more than 4: a window never takes from a rank of 4 (a bomb), so
        # layer 4 and the bombs stay as they are, and the search follows layers 1..3 without
        # the bomb ranks (the ranks of 1, 1..2, 1..3 cards)
        self.bombs = bombs = l4.bit_count()
        self.bsub = BOMB_BONUS * (bombs + self.joker_bomb)
        free = _FREE_WINDOWS.get(l4)
        self.free = free if free is not None else _free_windows(l4)
        l3 = by_count[3]
        l2 = l3 | by_count[2]
        self._node3(idx, seq_cost, l2 | by_count[1], l2, l3, self.w)

    def _leaf_cost(self, sm: int, pm: int, tm: int, bombs: int, wild_single: int, seq_cost: float) -> float:
        """The cost of a node's plan: singles, wild singles, pairs beyond the full houses,
        joker pairs, triples, bombs, sequences, summed in one fixed order (ties between plans
        depend on the floats); the masks are those after the wild placement."""
        cost = self.ss[sm]
        if cost is None:
            cost = _singles_sum(self.lv, sm)
        for x in self.jsingles:
            cost += x
        if wild_single:
            cost += wild_single * _WILD_SINGLE_COST
        cost = self._pairs_triples(cost, pm, tm)
        cost -= BOMB_BONUS * (bombs + self.joker_bomb)
        return cost + seq_cost

    def _pairs_triples(self, cost: float, pm: int, tm: int) -> float:
        """``cost`` plus the pairs beyond the full houses (the lowest pairs go with the
        triples), the joker pairs and the triples, in power order."""
        pcs = self.pcs[pm]
        if pcs is None:
            pcs = _pair_costs(self.lv, pm)
        tcs = self.tcs[tm]
        if tcs is None:
            tcs = _triple_costs(self.lv, tm)
        if tcs and pcs:
            pcs = pcs[len(tcs) :] if len(tcs) < len(pcs) else ()
        for x in pcs:
            cost += x
        for x in self.jpairs:
            cost += x
        for x in tcs:
            cost += x
        return cost

    def _node3(self, idx: int, seq_cost: float, l1: int, l2: int, l3: int, w: int) -> None:
        """``_node`` and ``_expand`` when no rank holds 5 or more cards (``l5`` .. ``l8`` empty),
        on layers 1..3 without the bomb ranks (``tm = l3``): the same nodes in the same order,
        the same costs (``_leaf_cost`` inlined)."""
        self.nodes = nodes = self.nodes + 1
        sm = l1 & ~l2
        pm = l2 & ~l3
        tm = l3
        if w:
            bombs = self.bombs
            lvbit = self.lvbit
            wild_single = 0
            for _ in range(w):  # the wild placement of ``_node``
                if tm:
                    tm ^= lvbit if tm & lvbit else 1 << (tm.bit_length() - 1)
                    bombs += 1
                elif (pm.bit_count() if pm & (pm - 1) else 1 if pm else 0) >= 2:
                    top = lvbit if pm & lvbit else 1 << (pm.bit_length() - 1)
                    pm ^= top
                    tm = top
                else:
                    low = sm & ~lvbit
                    low &= -low
                    if low and low < 0x1000:  # rank below A (12)
                        sm ^= low
                        pm |= low
                    else:
                        wild_single += 1
            cost = self.ss[sm]
            if cost is None:
                cost = _singles_sum(self.lv, sm)
            for x in self.jsingles:
                cost += x
            if wild_single:
                cost += wild_single * _WILD_SINGLE_COST
            bsub = BOMB_BONUS * (bombs + self.joker_bomb)
        else:
            cost = self.ss[sm]
            if cost is None:
                cost = _singles_sum(self.lv, sm)
            for x in self.jsingles:
                cost += x
            bsub = self.bsub
        if pm:
            pcs = self.pcs[pm]
            if pcs is None:
                pcs = _pair_costs(self.lv, pm)
            if tm:
                tcs = self.tcs[tm]
                if tcs is None:
                    tcs = _triple_costs(self.lv, tm)
                if len(tcs) < len(pcs):  # the lowest pairs go with the triples
                    for x in pcs[len(tcs) :]:
                        cost += x
                for x in self.jpairs:
                    cost += x
                for x in tcs:
                    cost += x
            else:
                for x in pcs:
                    cost += x
                for x in self.jpairs:
                    cost += x
        else:
            for x in self.jpairs:
                cost += x
            if tm:
                tcs = self.tcs[tm]
                if tcs is None:
                    tcs = _triple_costs(self.lv, tm)
                for x in tcs:
                    cost += x
        cost -= bsub
        cost += seq_cost
        if cost < self.best:
            self.best = cost
            self.best_stack = list(self.stack)
        if nodes > self.cap:
            return
        seq_cost += 1.0
        stack = self.stack
        if not w:  # every rank of a window holds k cards: no wild needed
            # (the layers hold no bomb rank: no window breaks a bomb)
            cand = _CAND1[l1] & _CAND2[l2] & _CAND3[l3] & _FROM[idx]
            while cand:
                low = cand & -cand
                cand ^= low
                i = low.bit_length() - 1
                wm = SEQ_MASK[i]
                keep = ~wm
                stack.append(_NO_WILD[i])
                if i < 10:  # straight: one card per rank
                    self._node3(i, seq_cost, l1 & keep | l2 & wm, l2 & keep | l3 & wm, l3 & keep, 0)
                elif i < 22:  # tube: two per rank
                    self._node3(i, seq_cost, l1 & keep | l3 & wm, l2 & keep, l3 & keep, 0)
                else:  # plate: three per rank
                    self._node3(i, seq_cost, l1 & keep, l2 & keep, l3 & keep, 0)
                stack.pop()
            return
        a1 = l1 << 1 | l1 >> 12
        a2 = l2 << 1 | l2 >> 12
        a3 = l3 << 1 | l3 >> 12
        cand = _wild_windows(a1, a2, a3, w) & _FROM[idx] & self.free  # ``free``: no bomb broken
        while cand:
            low = cand & -cand
            cand ^= low
            i = low.bit_length() - 1
            wm = SEQ_MASK[i]
            keep = ~wm
            if i < 10:  # straight: one card per rank
                need = (wm & ~l1).bit_count()
                if need > w or (wm & l2).bit_count() >= 3:
                    continue
                stack.append((i, need))
                self._node3(i, seq_cost, l1 & keep | l2 & wm, l2 & keep | l3 & wm, l3 & keep, w - need)
            elif i < 22:  # tube: two per rank
                if wm & ~l1:
                    continue
                need = (wm & ~l2).bit_count()
                if need > w or (wm & l3).bit_count() >= 2:
                    continue
                stack.append((i, need))
                self._node3(i, seq_cost, l1 & keep | l3 & wm, l2 & keep, l3 & keep, w - need)
            else:  # plate: three per rank
                if wm & ~l1:
                    continue
                need = (wm & ~l3 & l2).bit_count() + 2 * (wm & ~l2).bit_count()
                if need > w:
                    continue
                stack.append((i, need))
                self._node3(i, seq_cost, l1 & keep, l2 & keep, l3 & keep, w - need)
            stack.pop()

    def _node(
        self,
        idx: int,
        seq_cost: float,
        w: int,
        l1: int,
        l2: int,
        l3: int,
        l4: int,
        l5: int,
        l6: int,
        l7: int,
        l8: int,
    ) -> None:
        self.nodes += 1
        sm = l1 & ~l2
        pm = l2 & ~l3
        tm = l3 & ~l4
        bombs = l4.bit_count()
        lvbit = self.lvbit
        wild_single = 0
        if w:
            # the wild placement of ``_leaf`` on the masks: a triple (the highest) becomes a
            # bomb; else, with two pairs, the highest pair a triple; else the lowest single
            # below A (a natural rank, not the level rank) a pair; else the wild stays single
            for _ in range(w):
                if tm:
                    tm ^= lvbit if tm & lvbit else 1 << (tm.bit_length() - 1)
                    bombs += 1
                elif (pm.bit_count() if pm & (pm - 1) else 1 if pm else 0) >= 2:
                    top = lvbit if pm & lvbit else 1 << (pm.bit_length() - 1)
                    pm ^= top
                    tm = top
                else:
                    low = sm & ~lvbit
                    low &= -low
                    if low and low < 0x1000:  # rank below A (12)
                        sm ^= low
                        pm |= low
                    else:
                        wild_single += 1
        cost = self._leaf_cost(sm, pm, tm, bombs, wild_single, seq_cost)
        if cost < self.best:
            self.best = cost
            self.best_stack = list(self.stack)
        if self.nodes > self.cap:
            return
        if not w:  # every rank of a window must hold k cards (``_expand`` checks the bombs)
            cand = _CAND1[l1] & _CAND2[l2] & _CAND3[l3]
        else:
            # the windows worth checking: bit i of ``cand`` for window i, from rank masks with
            # A also below 2 (bit 0); with wilds, see ``_wild_windows``
            cand = _wild_windows(l1 << 1 | l1 >> 12, l2 << 1 | l2 >> 12, l3 << 1 | l3 >> 12, w)
        cand = cand >> idx << idx
        if cand:
            self._expand(idx, seq_cost, cand, w, l1, l2, l3, l4, l5, l6, l7, l8)

    def _expand(
        self,
        idx: int,
        seq_cost: float,
        cand: int,
        w: int,
        l1: int,
        l2: int,
        l3: int,
        l4: int,
        l5: int,
        l6: int,
        l7: int,
        l8: int,
    ) -> None:
        """Visit the children of a node: the candidate windows ``cand`` that fit."""
        f1 = l4 & ~l5  # ranks holding exactly 4, 4..5, 4..6 cards: a window would break the bomb
        f2 = l4 & ~l6
        f3 = l4 & ~l7
        stack = self.stack
        while cand:
            low = cand & -cand
            cand ^= low
            i = low.bit_length() - 1
            wm = SEQ_MASK[i]
            keep = ~wm
            if i < 10:  # straight: one card per rank
                if wm & f1:
                    continue
                need = (wm & ~l1).bit_count()
                if need > w or (wm & l2).bit_count() >= 3:
                    continue
                stack.append((i, need))
                self._node(
                    i,
                    seq_cost + 1.0,
                    w - need,
                    l1 & keep | l2 & wm,
                    l2 & keep | l3 & wm,
                    l3 & keep | l4 & wm,
                    l4 & keep | l5 & wm,
                    l5 & keep | l6 & wm,
                    l6 & keep | l7 & wm,
                    l7 & keep | l8 & wm,
                    l8 & keep,
                )
            elif i < 22:  # tube: two per rank
                if wm & ~l1 or wm & f2:
                    continue
                need = (wm & ~l2).bit_count()
                if need > w or (wm & l3).bit_count() >= 2:
                    continue
                stack.append((i, need))
                self._node(
                    i,
                    seq_cost + 1.0,
                    w - need,
                    l1 & keep | l3 & wm,
                    l2 & keep | l4 & wm,
                    l3 & keep | l5 & wm,
                    l4 & keep | l6 & wm,
                    l5 & keep | l7 & wm,
                    l6 & keep | l8 & wm,
                    l7 & keep,
                    l8 & keep,
                )
            else:  # plate: three per rank
                if wm & ~l1 or wm & f3:
                    continue
                need = (wm & ~l3 & l2).bit_count() + 2 * (wm & ~l2).bit_count()
                if need > w:
                    continue
                stack.append((i, need))
                self._node(
                    i,
                    seq_cost + 1.0,
                    w - need,
                    l1 & keep | l4 & wm,
                    l2 & keep | l5 & wm,
                    l3 & keep | l6 & wm,
                    l4 & keep | l7 & wm,
                    l5 & keep | l8 & wm,
                    l6 & keep,
                    l7 & keep,
                    l8 & keep,
                )
            stack.pop()


#: (counts, wilds, level) -> the search's best cost and its windows ``[(window, wilds), …]``
_COUNTS_CACHE: dict[tuple, tuple[float, list[tuple[int, int]]]] = {}


def _search_counts(c: list[int], w: int, lv: int) -> tuple[float, list[tuple[int, int]]]:
    """The best cost of counts ``c`` with ``w`` wilds and the windows that reach it (cached)."""
    key = (tuple(c), w, lv)
    hit = _COUNTS_CACHE.get(key)
    if hit is None:
        if len(_COUNTS_CACHE) >= _CACHE_MAX:
            _COUNTS_CACHE.clear()
        s = _Search(c, w, lv)
        s.run(0, 0.0)
        hit = _COUNTS_CACHE[key] = (s.best, s.best_stack)
    return hit


#: (type, top, ranks in natural order, cards per rank) of every sequence window: the ranks of
#: a window are distinct, so its counts come sorted without a sort (the A-low straight's A last)
_SEQS_SORTED = tuple((t, top, tuple(sorted(ranks)), k) for t, top, ranks, k in SEQS)


def _groups_of(c: list[int], w: int, lv: int, windows: list[tuple[int, int]]) -> list[Group]:
    """The groups of the search state reached by taking ``windows`` from ``c`` (restored after)."""
    if not windows:
        return _leaf_groups(c, w, lv)
    groups: list[Group] = []
    new = _new_tuple
    wleft = w
    for i, need in windows:
        t, top, ranks, k = _SEQS_SORTED[i]
        counts = []
        for r in ranks:
            n = c[r]
            if n:
                take = k if n >= k else n
                c[r] = n - take
                counts.append((r, take))
        wleft -= need
        groups.append(new(Group, (t, top, tuple(counts), need, (), -1)))
    rest = _leaf_groups(c, wleft, lv)
    for g in groups:
        for r, n in g[2]:
            c[r] += n
    groups += rest
    return groups


def _sf_options(hand: tuple[int, ...], lv: int, w: int) -> list[tuple[int, tuple[int, ...], int]]:
    """(top, natural faces, wilds needed) of straight flushes worth trying (at most one wild)."""
    wild = lv * 4 + 1
    masks = [0, 0, 0, 0]
    for f in hand:
        if f < 52 and f != wild:
            masks[SUIT_OF[f]] |= 1 << RANK_OF[f]
    return _sf_windows(masks, w)


#: per face, its rank's bit in its suit's 13 bits (suit masks side by side; none for the jokers)
_SUIT_RANK_BIT = tuple([1 << ((f & 3) * 13 + RANK_OF[f]) for f in range(52)] + [0, 0])


def _sf_windows(masks: list[int], w: int) -> list[tuple[int, tuple[int, ...], int]]:
    """``_sf_options`` from the natural ranks held in each suit (bit masks, the wilds left out):
    each suit's own, in suit order (cached by suit, mask and whether a wild may fill a gap)."""
    out: list[tuple[int, tuple[int, ...], int]] = []
    wild = 0x2000 if w else 0
    for s in range(4):
        m = masks[s]
        key = s << 14 | wild | m
        opts = _SF_SUIT.get(key)
        if opts is None:
            opts = _SF_SUIT[key] = _sf_suit(m, s, w)
        if opts:
            out += opts
    return out


#: ``suit << 14 | (0x2000 with a wild) | natural ranks held in the suit`` -> ``_sf_suit`` (filled
#: on use, at most 65,536 entries)
_SF_SUIT: dict[int, tuple[tuple[int, tuple[int, ...], int], ...]] = {}


def _sf_suit(m: int, s: int, w: int) -> tuple[tuple[int, tuple[int, ...], int], ...]:
    """(top, natural faces, wilds needed) of the straight flushes of suit ``s`` holding the ranks
    of ``m``, windows in order; with ``w`` wilds a window may miss one rank."""
    if m.bit_count() < 4:
        return ()  # a window of five ranks misses at most one of them
    # bit i for the straight windows i (A also below 2) whose ranks are all held, or, with
    # a wild, all but one (the bit-sliced counts of ``_wild_windows``)
    a = m << 1 | m >> 12
    b1 = a >> 1
    b2 = a >> 2
    b3 = a >> 3
    b4 = a >> 4
    if w:
        p2 = a & b1
        cand = (p2 & b2 & (b3 | b4) | b3 & b4 & (p2 | b2 & (a | b1))) & 0x3FF
    else:
        cand = a & b1 & b2 & b3 & b4 & 0x3FF
    out: list[tuple[int, tuple[int, ...], int]] = []
    while cand:
        low = cand & -cand
        cand ^= low
        i = low.bit_length() - 1
        top, ranks, wm = _SF_WINDOWS[i]
        held = wm & m
        faces = tuple(sorted(r * 4 + s for r in ranks if held >> r & 1))
        out.append((top, faces, 5 - held.bit_count()))
    return tuple(out)


_CACHE: dict[tuple, Plan] = {}
#: straight flushes tried per plan
SF_TRIES = 3
#: entries per plan cache before it is emptied. Plans are asked again within a deal (the same
#: hand at the next turn, a played group's rest), hardly ever across deals: 256 entries (a few
#: deals) lose 8 of 9,279 searches against 50,000, and the garbage collector no longer walks
#: ~100,000 cached objects (heuristic self-play ~10% faster).
_CACHE_MAX = 256


#: a plan's choice before its groups are built: cost, counts, wilds, the search's windows and
#: the straight flush set aside (``(top, faces, wilds, ranks)`` or None)
_Choice = tuple[float, list[int], int, list[tuple[int, int]], "tuple | None"]
#: choices of hands whose cost alone was asked (``plan_cost``): make_plan builds from them
_CHOICES: dict[tuple, _Choice] = {}


def _choose(hand: tuple[int, ...], lv: int) -> _Choice:
    """The searches of ``make_plan`` without building groups: the best choice for ``hand``."""
    c = [0] * 15
    held = 0  # the natural faces held, 13 bits (ranks) per suit; the jokers add no bit
    rank_of = RANK_OF
    suit_rank_bit = _SUIT_RANK_BIT
    for f in hand:
        c[rank_of[f]] += 1
        held |= suit_rank_bit[f]
    w = hand.count(lv * 4 + 1)
    if w:  # the wilds: counted apart, their face left out of the suit masks
        c[lv] -= w
        held &= ~suit_rank_bit[lv * 4 + 1]
    best_cost, best_windows = _search_counts(c, w, lv)
    best_sf: tuple | None = None
    # a straight flush needs 4 natural faces of a suit at least
    options = (
        _sf_windows([held & 0x1FFF, held >> 13 & 0x1FFF, held >> 26 & 0x1FFF, held >> 39], w)
        if held.bit_count() >= 4
        else []
    )
    if len(options) > SF_TRIES:
        # the straight flushes made of cards that are cheapest to take: lone cards first, naturals first
        options.sort(key=lambda o: (-sum(1 for f in o[1] if c[RANK_OF[f]] == 1), o[2], o[0]))
        del options[SF_TRIES:]
    for top, faces, miss in options:
        ranks = [RANK_OF[f] for f in faces]
        if 4 in [c[r] for r in ranks]:
            continue  # taking a card would break a bomb
        for r in ranks:
            c[r] -= 1
        cost, windows = _search_counts(c, w - miss, lv)
        for r in ranks:
            c[r] += 1
        cost -= BOMB_BONUS
        if cost < best_cost - 1e-9:
            best_cost, best_windows, best_sf = cost, windows, (top, faces, miss, ranks)
    return best_cost, c, w, best_windows, best_sf


def _plan_cost(hand: tuple[int, ...], lv: int) -> float:
    """``_make_plan(hand, lv).cost``, without building the plan's groups (cached).

    >>> from guandan_cli.engine import parse_cards
    >>> hand = parse_cards("S3 H4 D5 C6 S7 S9 D9 SK")
    >>> _plan_cost(hand, 0) == _make_plan(hand, 0).cost
    True
    """
    key = (hand, lv)
    p = _CACHE.get(key)
    if p is not None:
        return p.cost
    choice = _CHOICES.get(key)
    if choice is None:
        if len(_CHOICES) >= _CACHE_MAX:
            _CHOICES.clear()
        choice = _CHOICES[key] = _choose(hand, lv)
    return choice[0]


def _make_plan(hand: tuple[int, ...], lv: int) -> Plan:
    """The best plan found for ``hand`` (sorted faces) at level index ``lv`` (cached); unchecked:
    the bot's fast path (``make_plan`` checks its input)."""
    key = (hand, lv)
    p = _CACHE.get(key)
    if p is not None:
        return p
    choice = _CHOICES.pop(key, None)
    cost, c, w, windows, sf = choice if choice is not None else _choose(hand, lv)
    if sf is None:
        groups = _groups_of(c, w, lv, windows)
    else:
        top, faces, miss, ranks = sf
        for r in ranks:
            c[r] -= 1
        rest = _groups_of(c, w - miss, lv, windows)
        for r in ranks:
            c[r] += 1
        counts = tuple((r, 1) for r in sorted(ranks))
        groups = [Group(STRAIGHT_FLUSH, top, counts, miss, faces + (lv * 4 + 1,) * miss)] + rest
    plan = _new_tuple(Plan, (tuple(groups), cost, lv))
    if len(_CACHE) >= _CACHE_MAX:
        _CACHE.clear()
    _CACHE[key] = plan
    return plan


def _checked(hand: Iterable[SupportsIndex], lv: str | SupportsIndex) -> tuple[tuple[int, ...], int]:
    """``(sorted faces, level index)`` of the public functions' input, or an error naming it: the
    unchecked functions take only a tuple and a Python int (compiled, a bare type error)."""
    try:
        faces = tuple(sorted(map(_as_index, hand)))
    except TypeError:
        raise TypeError(
            f"hand {hand!r}: expected card faces, whole numbers 0..53 (e.g. parse_cards('S3 H4'))"
        ) from None
    problem = hand_problem(faces)
    if problem is not None:
        raise InvalidHandError(problem)
    return faces, level_index(lv)


def make_plan(hand: Iterable[SupportsIndex], lv: str | SupportsIndex) -> Plan:
    """The best plan found for ``hand`` (faces, in any order) at level ``lv`` (an index 0..12 or
    a token ``2``..``A``), cached. A hand of more than two decks, a card that is no face or a bad
    level is an error (InvalidHandError, TypeError or ValueError), compiled or not.

    >>> make_plan([0, 4.5], 0)
    Traceback (most recent call last):
    ...
    TypeError: hand [0, 4.5]: expected card faces, whole numbers 0..53 (e.g. parse_cards('S3 H4'))
    """
    return _make_plan(*_checked(hand, lv))


def plan_cost(hand: Iterable[SupportsIndex], lv: str | SupportsIndex) -> float:
    """``make_plan(hand, lv).cost``, without building the plan's groups (cached); input checked
    as ``make_plan``'s.

    >>> from guandan_cli.engine import parse_cards
    >>> hand = parse_cards("S3 H4 D5 C6 S7 S9 D9 SK")
    >>> plan_cost(hand, "2") == make_plan(list(hand), 0).cost
    True
    """
    return _plan_cost(*_checked(hand, lv))


# ---------------------------------------------------------------- groups as plays


def combo_signature(combo: Combo, lv: int) -> tuple:
    """(type, rank, natural counts, wilds) of a played combo, comparable with a Group's."""
    wild = lv * 4 + 1
    cards = combo[2]
    if len(cards) == 1:  # a single: the commonest play
        f = cards[0]
        if f == wild:
            return (combo[0], combo[1], (), 1)
        return (combo[0], combo[1], ((RANK_OF[f], 1),), 0)
    if wild in cards:
        w = cards.count(wild)
        ranks = [RANK_OF[f] for f in cards if f != wild]
        if not ranks:
            return (combo[0], combo[1], (), w)
    else:
        first = RANK_OF[cards[0]]
        if first == RANK_OF[cards[-1]]:  # sorted faces: one rank (pairs, triples, bombs)
            return (combo[0], combo[1], ((first, len(cards)),), 0)
        w = 0
        ranks = [RANK_OF[f] for f in cards]
    first = ranks[0]
    if ranks.count(first) == len(ranks):  # one rank: singles, pairs, triples, bombs
        return (combo[0], combo[1], ((first, len(ranks)),), w)
    # the run lengths of the ranks, which come sorted with the faces (else counted apart)
    counts = []
    prev = first
    n = 0
    for r in ranks:
        if r == prev:
            n += 1
        elif r > prev:
            counts.append((prev, n))
            prev = r
            n = 1
        else:  # pragma: no cover - a combo's faces are sorted
            by_rank: dict[int, int] = {}
            for r in ranks:
                by_rank[r] = by_rank.get(r, 0) + 1
            return (combo[0], combo[1], tuple(sorted(by_rank.items())), w)
    counts.append((prev, n))
    return (combo[0], combo[1], tuple(counts), w)


def group_signature(g: Group) -> tuple:
    return (g.type, g.rank, g.counts, g.wilds)


def group_combo(g: Group, hand: tuple[int, ...], lv: int, reserved: tuple[int, ...] = ()) -> Combo:
    """Concrete faces from ``hand`` for group ``g`` (faces in ``reserved`` taken last)."""
    wild = lv * 4 + 1
    if g.faces:
        return Combo(g.type, g.rank, tuple(sorted(g.faces)))
    res = list(reserved)
    by_rank: dict[int, list[int]] = {}
    for f in hand:
        if f != wild:
            by_rank.setdefault(RANK_OF[f], []).append(f)
    cards: list[int] = []
    for r, n in g.counts:
        faces = by_rank.get(r, [])
        free = [f for f in faces if f not in res]
        if len(free) < n:
            free = free + [f for f in faces if f in res]
        cards += free[:n]
    cards += [wild] * g.wilds
    return Combo(g.type, g.rank, tuple(sorted(cards)))


def power_key(t: str, rank: int, lv: int) -> int:
    """Comparable strength of a combo's key: natural top for sequences, else power."""
    if t in SEQ_TYPES:
        return rank
    return POWER[lv][rank]


__all__ = [
    "BOMB_TYPES",
    "Group",
    "Plan",
    "combo_signature",
    "group_combo",
    "group_cost",
    "group_signature",
    "make_plan",
    "plan_cost",
    "power_key",
    "HR",
    "SB",
]

"""Legal plays: every combination a hand can play, leading or following (rules.md §4–6).

``legal_plays`` is the hot path: one concrete card choice per (type, key, size)
(full houses also per attached pair), chosen with the fewest wild cards and,
among equal choices, suits that keep natural straight flushes intact.
``all_plays`` enumerates every distinct (card multiset, declaration) instead.

>>> from guandan_cli.engine import parse_cards, Combo
>>> hand = parse_cards("S3 H3 S4 D4 C5 H2")
>>> [c.text() for c in legal_plays(hand, "2", Combo.from_text("pair:3 S3 D3"))]
['pair:4 S4 D4', 'pair:5 H2 C5']
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import combinations, product

from .cards import HR, SB, level_index
from .combos import (
    BOMB,
    FULL_HOUSE,
    JOKER_BOMB,
    PAIR,
    PLATE,
    PLATE_WINDOWS,
    POWER,
    SEQUENCE_TYPES,
    SINGLE,
    STRAIGHT,
    STRAIGHT_FLUSH,
    STRAIGHT_WINDOWS,
    TRIPLE,
    TUBE,
    TUBE_WINDOWS,
    Combo,
    bomb_value,
)

_new = tuple.__new__
_RANGE13 = range(13)
#: (top, ranks, rank bitmask) per straight window
_SF_WINDOWS = tuple((top, ranks, sum(1 << r for r in ranks)) for top, ranks in STRAIGHT_WINDOWS)
#: ranks of the straight to each top
_STRAIGHT_RANKS = {top: ranks for top, ranks in STRAIGHT_WINDOWS}

# The natural faces present are kept as one int, suit-major: bit ``suit * 13 + rank``.
_FACE_BIT = tuple(1 << ((f & 3) * 13 + (f >> 2)) for f in range(52)) + (0, 0)
_RANK_MASK = 0x1FFF
#: bit 0 of each suit
_SUIT_BASES = 1 | 1 << 13 | 1 << 26 | 1 << 39
#: low bits (start rank 0..8, i.e. tops 6..A) of the 2..A straight windows in each suit
_WINDOW_STARTS = 0x1FF * _SUIT_BASES
#: bomb-class value of a bomb by size, before adding its power (see ``bomb_value``)
_BOMB_BASE = (0, 0, 0, 0, 100, 200, 400, 500, 600, 700, 800)


class _Hand:
    """Per-call analysis of a hand at a level: wilds and natural faces per rank.

    ``by[r]`` lists the natural faces of rank ``r`` (``by[13]`` the jokers), preferred
    first: faces outside natural straight flushes, then by face; ``rc[r]`` is their
    number. ``bits`` holds the natural faces present, suit-major (``_FACE_BIT``);
    ``sfx`` / ``alow`` the low bits of the natural straight flushes (2..A windows / A-5).
    """

    __slots__ = ("by", "rc", "w", "wild", "lv", "bits", "sfx", "alow", "members", "sb", "hr")

    def __init__(self, hand: Iterable[int], lv: int) -> None:
        by: list[list[int]] = [[], [], [], [], [], [], [], [], [], [], [], [], [], []]
        fb = _FACE_BIT
        bits = 0
        for f in sorted(hand):
            by[f >> 2].append(f)
            bits |= fb[f]
        wild = lv * 4 + 1
        w = 0
        if bits & fb[wild]:
            bits ^= fb[wild]
            faces = by[lv]
            w = faces.count(wild)
            by[lv] = [f for f in faces if f != wild]
        jokers = by[13]
        sb = jokers.count(SB) if jokers else 0
        self.sb = sb
        self.hr = len(jokers) - sb
        self.by = by
        self.rc = list(map(len, by))
        self.w = w
        self.wild = wild
        self.lv = lv
        self.bits = bits
        # natural straight flushes: 5 faces of a suit in a row (A-2-3-4-5 apart)
        x4 = bits & bits >> 1 & bits >> 2 & bits >> 3
        self.sfx = sfx = x4 & bits >> 4 & _WINDOW_STARTS
        self.alow = alow = x4 & bits >> 12 & _SUIT_BASES
        members = 0
        if sfx or alow:
            # their faces go last, so other choices keep them intact
            x = sfx
            while x:
                low = x & -x
                members |= low * 0x1F
                x ^= low
            members |= alow * 0x100F
            for r in _RANGE13:
                faces = by[r]
                if len(faces) > 1 and any(members >> ((f & 3) * 13 + r) & 1 for f in faces):
                    faces.sort(key=lambda f, r=r: (members >> ((f & 3) * 13 + r) & 1, f))
        self.members = members

    @property
    def cnt(self) -> list[int]:
        """Count of each natural face (the wilds not counted)."""
        cnt = [0] * 54
        for faces in self.by:
            for f in faces:
                cnt[f] += 1
        return cnt

    def pick(self, r: int) -> list[int]:
        """The natural faces of rank ``r``, preferred first (empty list if none)."""
        return self.by[r]

    def take(self, r: int, k: int) -> tuple[int, ...]:
        """``k`` faces of rank ``r`` (naturals first, wilds for the rest), sorted."""
        faces = self.by[r]
        if len(faces) >= k:
            if self.members:
                return tuple(sorted(faces[:k]))
            return tuple(faces[:k])
        part = faces + [self.wild] * (k - len(faces))
        part.sort()
        return tuple(part)


def legal_plays(hand: Iterable[int], level: str | int, top: Combo | None = None) -> list[Combo]:
    """Every (type, key, size) ``hand`` can play at ``level``, one card choice each.

    Leading when ``top`` is None, else only the plays that beat ``top``. Full houses
    are listed once per attached pair rank.

    >>> from guandan_cli.engine import parse_cards
    >>> len(legal_plays(parse_cards("S3 D3 S4"), "2"))
    3
    """
    lv = level if type(level) is int else level_index(level)
    h = _Hand(hand, lv)
    out: list[Combo] = []
    if top is None:
        _singles(h, -1, out)
        _pairs(h, -1, out)
        _triples(h, -1, out)
        _full_houses(h, -1, out)
        _straights(h, -1, out)
        _tubes(h, -1, out)
        _plates(h, -1, out)
        _bomb_class(h, 0, out)
        return out
    t = top[0]
    tb = bomb_value(top, lv)
    if not tb:
        thr = top[1] if t in SEQUENCE_TYPES else POWER[lv][top[1]]
        if t == FULL_HOUSE:
            _full_houses(h, thr, out)
        elif t == SINGLE:
            _singles(h, thr, out)
        elif t == PAIR:
            _pairs(h, thr, out)
        elif t == TRIPLE:
            _triples(h, thr, out)
        elif t == STRAIGHT:
            _straights(h, thr, out)
        elif t == TUBE:
            _tubes(h, thr, out)
        elif t == PLATE:
            _plates(h, thr, out)
    _bomb_class(h, tb, out)
    return out


def _singles(h: _Hand, thr: int, out: list) -> None:
    pw = POWER[h.lv]
    by = h.by
    lv = h.lv
    if h.w and not by[lv]:
        by = by[:]
        by[lv] = [h.wild]
    out += [_new(Combo, (SINGLE, r, (by[r][0],))) for r in _RANGE13 if by[r] and pw[r] > thr]
    if h.sb and 14 > thr:
        out.append(_new(Combo, (SINGLE, 13, (SB,))))
    if h.hr and 15 > thr:
        out.append(_new(Combo, (SINGLE, 14, (HR,))))


def _pairs(h: _Hand, thr: int, out: list) -> None:
    pw = POWER[h.lv]
    rc, w = h.rc, h.w
    if w:
        take = h.take
        lv = h.lv
        for r in _RANGE13:
            c = rc[r]
            if (c or (r == lv and w == 2)) and pw[r] > thr:
                out.append(_new(Combo, (PAIR, r, take(r, 2))))
    else:
        by = h.by
        if h.members:
            out += [
                _new(Combo, (PAIR, r, tuple(sorted(by[r][:2]))))
                for r in _RANGE13
                if rc[r] >= 2 and pw[r] > thr
            ]
        else:
            out += [_new(Combo, (PAIR, r, tuple(by[r][:2]))) for r in _RANGE13 if rc[r] >= 2 and pw[r] > thr]
    if h.sb == 2 and 14 > thr:
        out.append(_new(Combo, (PAIR, 13, (SB, SB))))
    if h.hr == 2 and 15 > thr:
        out.append(_new(Combo, (PAIR, 14, (HR, HR))))


def _triples(h: _Hand, thr: int, out: list) -> None:
    pw = POWER[h.lv]
    rc, w = h.rc, h.w
    take = h.take
    for r in _RANGE13:
        c = rc[r]
        if c and c + w >= 3 and pw[r] > thr:
            out.append(_new(Combo, (TRIPLE, r, take(r, 3))))


def _full_houses(h: _Hand, thr: int, out: list) -> None:
    pw = POWER[h.lv]
    rc, w = h.rc, h.w
    lo = 3 - w
    trips = [t for t in _RANGE13 if rc[t] >= lo and rc[t] and pw[t] > thr]
    if not trips:
        return
    by = h.by
    joker_pairs = []
    if h.sb == 2:
        joker_pairs.append((SB, SB))
    if h.hr == 2:
        joker_pairs.append((HR, HR))
    if not w:
        # naturals only: cards sort by rank, triple and pair each sorted
        members = h.members
        pranks = [p for p in _RANGE13 if rc[p] >= 2]
        if members:
            pairs = [tuple(sorted(by[p][:2])) for p in pranks]
        else:
            pairs = [tuple(by[p][:2]) for p in pranks]
        for t in trips:  # every triple rank is also a pair rank
            i = pranks.index(t)
            trip = tuple(sorted(by[t][:3])) if members else tuple(by[t][:3])
            out += [_new(Combo, (FULL_HOUSE, t, pair + trip)) for pair in pairs[:i]]
            out += [_new(Combo, (FULL_HOUSE, t, trip + pair)) for pair in pairs[i + 1 :]]
            if joker_pairs:
                out += [_new(Combo, (FULL_HOUSE, t, trip + pair)) for pair in joker_pairs]
        return
    wild = h.wild
    take = h.take
    # attached pair candidates by rank: (rank, natural pair or natural face + wild, needs a wild)
    pairs2 = []
    for p in _RANGE13:
        cp = rc[p]
        if cp >= 2:
            pairs2.append((p, take(p, 2), False))
        elif cp:
            pairs2.append((p, (by[p][0], wild), True))
    for t in trips:
        ct = rc[t]
        trip = take(t, 3)
        wt = w - 3 + ct if ct < 3 else w
        found = False
        for p, pair, half in pairs2:
            if p == t:
                continue
            if half:
                if not wt:
                    continue
                cards = tuple(sorted(trip + pair))
            elif ct >= 3:  # naturals only: the cards sort by rank
                cards = trip + pair if t < p else pair + trip
            else:
                cards = tuple(sorted(trip + pair))
            out.append(_new(Combo, (FULL_HOUSE, t, cards)))
            found = True
        for pair in joker_pairs:
            out.append(_new(Combo, (FULL_HOUSE, t, trip + pair)))
            found = True
        if not found and wt >= 2:
            out.append(_new(Combo, (FULL_HOUSE, t, tuple(sorted(trip + (wild, wild))))))


def _straights(h: _Hand, thr: int, out: list) -> None:
    w, wild, by = h.w, h.wild, h.by
    bits = h.bits
    present = (bits | bits >> 13 | bits >> 26 | bits >> 39) & _RANK_MASK
    need = 5 - w
    for top, ranks, wm in _SF_WINDOWS:
        if top <= thr or (present & wm).bit_count() < need:
            continue
        cards = [by[r][0] if by[r] else wild for r in ranks]
        cards.sort()
        out.append(_new(Combo, (STRAIGHT, top, tuple(cards))))


def _tubes(h: _Hand, thr: int, out: list) -> None:
    rc, w, wild = h.rc, h.w, h.wild
    take = h.take
    for top, ranks in TUBE_WINDOWS:
        if top <= thr:
            continue
        need = 0
        for r in ranks:
            c = rc[r]
            if c < 2:
                need += 2 - c
        if need > w:
            continue
        cards = []
        for r in ranks:
            cards += take(r, 2) if rc[r] else (wild, wild)
        cards.sort()
        out.append(_new(Combo, (TUBE, top, tuple(cards))))


def _plates(h: _Hand, thr: int, out: list) -> None:
    rc, w = h.rc, h.w
    take = h.take
    for top, ranks in PLATE_WINDOWS:
        if top <= thr:
            continue
        a, b = ranks
        ca, cb = rc[a], rc[b]
        need = (3 - ca if ca < 3 else 0) + (3 - cb if cb < 3 else 0)
        if need > w or not ca or not cb:
            continue
        cards = list(take(a, 3) + take(b, 3))
        cards.sort()
        out.append(_new(Combo, (PLATE, top, tuple(cards))))


def _bomb_class(h: _Hand, tb: int, out: list) -> None:
    rc, w = h.rc, h.w
    lo = 4 - w
    ranks = [r for r in _RANGE13 if rc[r] >= lo and rc[r]]
    if ranks:
        pw = POWER[h.lv]
        by = h.by
        members = h.members
        wild = h.wild
        for r in ranks:
            c = rc[r]
            p = pw[r]
            faces = by[r]
            for k in range(4, (c + w if c + w < 10 else 10) + 1):
                if _BOMB_BASE[k] + p > tb:
                    if k <= c:
                        cards = tuple(sorted(faces[:k])) if members else tuple(faces[:k])
                    else:
                        cards = tuple(sorted(faces + [wild] * (k - c)))
                    out.append(_new(Combo, (BOMB, r, cards)))
    if tb < 400 and (w or h.members):
        _straight_flushes(h, tb, out)
    if tb < 900 and h.sb == 2 and h.hr == 2:
        out.append(_new(Combo, (JOKER_BOMB, 14, (SB, SB, HR, HR))))


def _straight_flushes(h: _Hand, tb: int, out: list) -> None:
    """Per window, the suit needing the fewest wilds (the lowest suit on ties)."""
    w = h.w
    bits = h.bits
    # candidate windows, most faces present first: (low bits of 2..A windows, A-5 suits)
    if w == 0:
        levels = [(h.sfx, h.alow)]
    else:
        # bit-sliced count (b2 b1 b0) of the faces present in each window of 5, at its low bit
        b0 = bits ^ bits >> 1
        b1 = bits & bits >> 1
        a = bits >> 2
        b1 |= b0 & a
        b0 ^= a
        a = bits >> 3
        carry = b0 & a
        b0 ^= a
        b2 = b1 & carry
        b1 ^= carry
        a = bits >> 4
        carry = b0 & a
        b0 ^= a
        b2 |= b1 & carry
        b1 ^= carry
        exact = (
            ~(b2 | b1 | b0),
            ~b2 & ~b1 & b0,
            ~b2 & b1 & ~b0,
            ~b2 & b1 & b0,
            b2 & ~b0,
            b2 & b0,
        )
        alow = [(bits >> sh & 0x100F).bit_count() for sh in (0, 13, 26, 39)]
        levels = []
        for have in range(5, max(4 - w, -1), -1):
            am = 0
            for s in range(4):
                if alow[s] == have:
                    am |= 1 << (13 * s)
            levels.append((exact[have] & _WINDOW_STARTS, am))
    # per top: the window with most faces present, lowest suit first
    chosen: dict[int, int] = {}
    done = 0  # window starts already chosen
    for cand, am in levels:
        if am and 3 not in chosen:
            chosen[3] = ((am & -am).bit_length() - 1) // 13
        starts = (cand | cand >> 13 | cand >> 26 | cand >> 39) & ~done & 0x1FF
        if not starts:
            continue
        done |= starts
        while starts:
            low = starts & -starts
            starts ^= low
            if cand & low:
                chosen[low.bit_length() + 3] = 0
            elif cand >> 13 & low:
                chosen[low.bit_length() + 3] = 1
            elif cand >> 26 & low:
                chosen[low.bit_length() + 3] = 2
            else:
                chosen[low.bit_length() + 3] = 3
    if not chosen:
        return
    wild = h.wild
    for top in sorted(chosen):
        if 300 + top <= tb:
            continue
        s = chosen[top]
        m = bits >> (13 * s)
        cards = [r * 4 + s if m >> r & 1 else wild for r in _STRAIGHT_RANKS[top]]
        cards.sort()
        out.append(_new(Combo, (STRAIGHT_FLUSH, top, tuple(cards))))


# ---------------------------------------------------------------------------
# every distinct (multiset, declaration)


def _sub_multisets(faces: list[int], k: int) -> set[tuple[int, ...]]:
    if k < 0 or k > len(faces):
        return set()
    return set(combinations(sorted(faces), k))


def all_plays(hand: Iterable[int], level: str | int, top: Combo | None = None) -> Iterator[Combo]:
    """Every distinct (card multiset, declaration) the hand can play, each once.

    Where ``legal_plays`` picks one card choice per declaration, this yields every
    choice of suits and of wild use. For tests and for bots that care about suits.

    >>> from guandan_cli.engine import parse_cards
    >>> sorted(c.text() for c in all_plays(parse_cards("S3 D3"), "2"))
    ['pair:3 S3 D3', 'single:3 D3', 'single:3 S3']
    """
    lv = level if type(level) is int else level_index(level)
    h = _Hand(hand, lv)
    wild, w = h.wild, h.w
    seen: set[Combo] = set()
    naturals = [h.pick(r) for r in _RANGE13]

    def rank_sets(r: int, k: int, min_nat: int = 1) -> Iterator[tuple[tuple[int, ...], int]]:
        """(cards, wilds used) for k cards standing for rank r."""
        for u in range(0, min(w, k) + 1):
            if k - u < min_nat:
                continue
            for nat in _sub_multisets(naturals[r], k - u):
                yield nat + (wild,) * u, u

    def emit(t: str, key: int, cards: tuple[int, ...]) -> None:
        c = _new(Combo, (t, key, tuple(sorted(cards))))
        if c not in seen and (top is None or _beats_fast(c, top, lv)):
            seen.add(c)

    cnt = h.cnt
    for r in _RANGE13:
        lvl = r == lv
        for cards, _u in rank_sets(r, 1, 0 if lvl else 1):
            emit(SINGLE, r, cards)
        for cards, _u in rank_sets(r, 2, 0 if lvl else 1):
            emit(PAIR, r, cards)
        for cards, _u in rank_sets(r, 3):
            emit(TRIPLE, r, cards)
        for k in range(4, 11):
            for cards, _u in rank_sets(r, k):
                emit(BOMB, r, cards)
    for j, key in ((SB, 13), (HR, 14)):
        if cnt[j]:
            emit(SINGLE, key, (j,))
        if cnt[j] == 2:
            emit(PAIR, key, (j, j))
    if cnt[SB] == 2 and cnt[HR] == 2:
        emit(JOKER_BOMB, 14, (SB, SB, HR, HR))
    # full houses
    for t in _RANGE13:
        for trip, u in rank_sets(t, 3):
            left = w - u
            pairs: list[tuple[int, ...]] = []
            for p in _RANGE13:
                if p != t:
                    pairs += [c for c, v in rank_sets(p, 2) if v <= left]
            if left >= 2:
                pairs.append((wild, wild))
            for j in (SB, HR):
                if cnt[j] == 2:
                    pairs.append((j, j))
            for pair in pairs:
                emit(FULL_HOUSE, t, trip + pair)
    # sequences: each position is natural faces of its rank or wilds
    for windows, size, kind in (
        (STRAIGHT_WINDOWS, 1, STRAIGHT),
        (TUBE_WINDOWS, 2, TUBE),
        (PLATE_WINDOWS, 3, PLATE),
    ):
        for topr, ranks in windows:
            options = [list(rank_sets(r, size, 0)) for r in ranks]
            for choice in product(*options):
                if sum(u for _c, u in choice) <= w:
                    emit(kind, topr, sum((c for c, _u in choice), ()))
    for s in range(4):
        for topr, ranks in STRAIGHT_WINDOWS:
            options = []
            for r in ranks:
                opts = [((r * 4 + s,), 0)] if cnt[r * 4 + s] else []
                if w:
                    opts.append(((wild,), 1))
                options.append(opts)
            for choice in product(*options):
                if sum(u for _c, u in choice) <= w:
                    emit(STRAIGHT_FLUSH, topr, sum((c for c, _u in choice), ()))
    yield from sorted(seen, key=_sort_key)


def _sort_key(c: Combo) -> tuple:
    from .combos import TYPE_ORDER

    return (TYPE_ORDER[c[0]], c[1], len(c[2]), c[2])


def _beats_fast(play: Combo, top: Combo, lv: int) -> bool:
    from .combos import beats

    return beats(play, top, lv)

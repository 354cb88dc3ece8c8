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
    POWER,
    PLATE_WINDOWS,
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


class _Hand:
    """Per-call analysis of a hand at a level: counts, wilds and preferred faces per rank."""

    __slots__ = ("cnt", "rc", "w", "wild", "lv", "masks", "pick")

    def __init__(self, hand: Iterable[int], lv: int) -> None:
        cnt = [0] * 54
        for f in hand:
            cnt[f] += 1
        wild = lv * 4 + 1
        self.w = cnt[wild]
        cnt[wild] = 0
        self.cnt = cnt
        self.wild = wild
        self.lv = lv
        masks = [0, 0, 0, 0]
        rc = [0] * 13
        pick: list[list[int]] = [None] * 13  # type: ignore[list-item]
        for r in _RANGE13:
            b = r * 4
            c0, c1, c2, c3 = cnt[b], cnt[b + 1], cnt[b + 2], cnt[b + 3]
            n = c0 + c1 + c2 + c3
            rc[r] = n
            if n:
                bit = 1 << r
                faces = []
                if c0:
                    masks[0] |= bit
                    faces += [b] * c0
                if c1:
                    masks[1] |= bit
                    faces += [b + 1] * c1
                if c2:
                    masks[2] |= bit
                    faces += [b + 2] * c2
                if c3:
                    masks[3] |= bit
                    faces += [b + 3] * c3
                pick[r] = faces
        self.rc = rc
        self.masks = masks
        # faces of natural straight flushes go last, so other choices keep them intact
        members = None
        for s in range(4):
            m = masks[s]
            for _top, ranks, wm in _SF_WINDOWS:
                if m & wm == wm:
                    if members is None:
                        members = set()
                    members.update(r * 4 + s for r in ranks)
        if members:
            for r in _RANGE13:
                faces = pick[r]
                if faces:
                    faces.sort(key=lambda f: (f in members, f))
        self.pick = pick

    def take(self, r: int, k: int) -> tuple[int, ...]:
        """``k`` faces of rank ``r`` (naturals first, wilds for the rest), sorted."""
        faces = self.pick[r]
        n = self.rc[r]
        if n >= k:
            part = faces[:k]
        else:
            part = (faces or []) + [self.wild] * (k - n)
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
        if t == SINGLE:
            _singles(h, thr, out)
        elif t == PAIR:
            _pairs(h, thr, out)
        elif t == TRIPLE:
            _triples(h, thr, out)
        elif t == FULL_HOUSE:
            _full_houses(h, thr, out)
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
    rc, pick = h.rc, h.pick
    for r in _RANGE13:
        if pw[r] > thr:
            if rc[r]:
                out.append(_new(Combo, (SINGLE, r, (pick[r][0],))))
            elif r == h.lv and h.w:
                out.append(_new(Combo, (SINGLE, r, (h.wild,))))
    cnt = h.cnt
    if cnt[SB] and 14 > thr:
        out.append(_new(Combo, (SINGLE, 13, (SB,))))
    if cnt[HR] and 15 > thr:
        out.append(_new(Combo, (SINGLE, 14, (HR,))))


def _pairs(h: _Hand, thr: int, out: list) -> None:
    pw = POWER[h.lv]
    rc, w = h.rc, h.w
    for r in _RANGE13:
        if pw[r] > thr:
            c = rc[r]
            if c >= 2 or (c == 1 and w) or (r == h.lv and w == 2):
                out.append(_new(Combo, (PAIR, r, h.take(r, 2))))
    cnt = h.cnt
    if cnt[SB] == 2 and 14 > thr:
        out.append(_new(Combo, (PAIR, 13, (SB, SB))))
    if cnt[HR] == 2 and 15 > thr:
        out.append(_new(Combo, (PAIR, 14, (HR, HR))))


def _triples(h: _Hand, thr: int, out: list) -> None:
    pw = POWER[h.lv]
    rc, w = h.rc, h.w
    for r in _RANGE13:
        c = rc[r]
        if c and c + w >= 3 and pw[r] > thr:
            out.append(_new(Combo, (TRIPLE, r, h.take(r, 3))))


def _full_houses(h: _Hand, thr: int, out: list) -> None:
    pw = POWER[h.lv]
    rc, w, wild, pick = h.rc, h.w, h.wild, h.pick
    cnt = h.cnt
    joker_pairs = []
    if cnt[SB] == 2:
        joker_pairs.append((SB, SB))
    if cnt[HR] == 2:
        joker_pairs.append((HR, HR))
    for t in _RANGE13:
        ct = rc[t]
        if not ct or ct + w < 3 or pw[t] <= thr:
            continue
        trip = h.take(t, 3)
        wt = w - (3 - ct if ct < 3 else 0)
        found = False
        for p in _RANGE13:
            if p == t:
                continue
            cp = rc[p]
            if cp >= 2:
                pair = h.take(p, 2)
                cards = trip + pair if t < p else pair + trip
            elif cp == 1 and wt:
                cards = tuple(sorted(trip + (pick[p][0], wild)))
            else:
                continue
            out.append(_new(Combo, (FULL_HOUSE, t, cards)))
            found = True
        for pair in joker_pairs:
            out.append(_new(Combo, (FULL_HOUSE, t, trip + pair)))
            found = True
        if not found and wt >= 2:
            out.append(_new(Combo, (FULL_HOUSE, t, tuple(sorted(trip + (wild, wild))))))


def _straights(h: _Hand, thr: int, out: list) -> None:
    rc, w, wild, pick = h.rc, h.w, h.wild, h.pick
    for top, ranks in STRAIGHT_WINDOWS:
        if top <= thr:
            continue
        need = 0
        for r in ranks:
            if not rc[r]:
                need += 1
        if need > w:
            continue
        cards = [pick[r][0] if rc[r] else wild for r in ranks]
        cards.sort()
        out.append(_new(Combo, (STRAIGHT, top, tuple(cards))))


def _tubes(h: _Hand, thr: int, out: list) -> None:
    rc, w = h.rc, h.w
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
            cards += h.take(r, 2) if rc[r] else (h.wild, h.wild)
        cards.sort()
        out.append(_new(Combo, (TUBE, top, tuple(cards))))


def _plates(h: _Hand, thr: int, out: list) -> None:
    rc, w = h.rc, h.w
    for top, ranks in PLATE_WINDOWS:
        if top <= thr:
            continue
        a, b = ranks
        ca, cb = rc[a], rc[b]
        need = (3 - ca if ca < 3 else 0) + (3 - cb if cb < 3 else 0)
        if need > w or not ca or not cb:
            continue
        cards = list(h.take(a, 3) + h.take(b, 3))
        cards.sort()
        out.append(_new(Combo, (PLATE, top, tuple(cards))))


def _bomb_class(h: _Hand, tb: int, out: list) -> None:
    pw = POWER[h.lv]
    rc, w = h.rc, h.w
    for r in _RANGE13:
        c = rc[r]
        if c + w < 4 or not c:
            continue
        p = pw[r]
        for k in range(4, min(10, c + w) + 1):
            value = ((k - 3 if k <= 5 else k - 2) * 100) + p
            if value > tb:
                out.append(_new(Combo, (BOMB, r, h.take(r, k))))
    if tb < 400:
        wild = h.wild
        for s in range(4):
            m = h.masks[s]
            for top, ranks, wm in _SF_WINDOWS:
                if 300 + top <= tb:
                    continue
                miss = (wm & ~m).bit_count()
                if miss > w:
                    continue
                cards = [r * 4 + s if m >> r & 1 else wild for r in ranks]
                cards.sort()
                out.append(_new(Combo, (STRAIGHT_FLUSH, top, tuple(cards))))
    if h.cnt[SB] == 2 and h.cnt[HR] == 2:
        out.append(_new(Combo, (JOKER_BOMB, 14, (SB, SB, HR, HR))))


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
    naturals = [h.pick[r] or [] for r in _RANGE13]

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
    for windows, size, kind in ((STRAIGHT_WINDOWS, 1, STRAIGHT), (TUBE_WINDOWS, 2, TUBE), (PLATE_WINDOWS, 3, PLATE)):
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

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

from bisect import bisect_left as _bisect_left
from collections.abc import Iterable, Iterator, Sequence
from itertools import combinations, product
from operator import getitem as _getitem
from operator import index as _as_index
from operator import itemgetter
from typing import SupportsIndex, cast

from .cards import HR, SB, InvalidHandError, hand_problem, level_index
from .combos import (
    BOMB,
    BOMB_CLASS,
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
    TYPE_ORDER,
    Combo,
    beats,
    bomb_value,
)

_new = tuple.__new__
#: the default hand of ``_Hand``: a blank analysis, for ``without`` (or ``copy``/``pickle``) to
#: fill (``object.__new__`` cannot build a class compiled by mypyc, whose ``__new__`` runs
#: ``__init__``, with no arguments when copying)
_BLANK: list[int] = []
_RANGE13 = range(13)
_BASE_BIT = 1 | 1 << 8 | 1 << 16 | 1 << 24 | 1 << 32

# A hand is analysed through one int ``x`` of base-4 digits: digit ``f`` (bits ``2f``,
# ``2f + 1``) counts face ``f``. Byte ``r`` of ``x`` then holds rank ``r`` (13: jokers),
# and the faces present are the bits ``2f`` of ``present`` (rank-major: ``8 * rank + 2 * suit``).
_P4 = tuple(1 << (2 * f) for f in range(54))
#: the low bit of every digit
_M01 = sum(_P4)
_M10 = _M01 << 1
#: ``_P4`` followed by 54 poison weights: a face 54..107, or -54..-1 (which would index from
#: the end), makes the sum ``>= 1 << 108``; such a hand is refused, not misread. Faces past
#: 107 or below -108 raise IndexError (refused too); -108..-55 alone index ``_P4`` again
#: and are not caught (a pass over the hand to find them costs 3% of a follow)
_P4_CHECKED = _P4 + (1 << 256,) * 54
#: bit ``8 * rank`` per rank of each straight window: (top, ranks, mask)
_SF_WINDOWS = tuple((top, ranks, sum(1 << (8 * r) for r in ranks)) for top, ranks in STRAIGHT_WINDOWS)
#: ranks of the straight to each top
_STRAIGHT_RANKS = {top: ranks for top, ranks in STRAIGHT_WINDOWS}
#: bit 0 of each suit (bits ``2 * suit``)
_SUIT_BASES = 0b01010101
#: low bits (start rank 0..8, i.e. tops 6..A) of the 2..A straight windows in each suit
_WINDOW_STARTS = sum(_SUIT_BASES << (8 * r) for r in range(9))
#: ``bytes.translate`` tables: 1 for a count of at least 2 (3), else 0
_AT_LEAST_2 = bytes(int(n >= 2) for n in range(256))
_AT_LEAST_3 = bytes(int(n >= 3) for n in range(256))
#: ``bytes.translate`` tables: faces a count lacks for a pair (a triple; 9 for none held), and
#: ``_AT_MOST[w]``: 1 for a sum of at most ``w``
_SHORT_OF_2 = bytes(max(0, 2 - n) for n in range(256))
_SHORT_OF_3 = bytes(9 if n == 0 else max(0, 3 - n) for n in range(256))
_AT_MOST = tuple(bytes(int(n <= w) for n in range(256)) for w in range(4))
#: bit ``8 * rank`` of ranks 0..12
_SPREAD = sum(1 << (8 * r) for r in range(13))
#: bomb-class value of a bomb by size, before adding its power (see ``bomb_value``)
_BOMB_BASE = (0, 0, 0, 0, 100, 200, 400, 500, 600, 700, 800)


def _faces_table(r: int) -> tuple[tuple[int, ...], ...]:
    """The sorted faces of rank ``r`` for each byte of digit counts (byte ``n0 | n1 << 2 |
    n2 << 4 | n3 << 6``: ``n_s`` faces of suit ``s``; ``product`` varies ``n0`` fastest)."""
    f0, f1, f2, f3 = (tuple((r * 4 + s,) * n for n in range(4)) for s in range(4))
    return tuple(f0[n0] + f1[n1] + f2[n2] + f3[n3] for n3, n2, n1, n0 in product(range(4), repeat=4))


#: ``_BY[r][byte]``: the faces of rank ``r`` (13: jokers) held, sorted
_BY = tuple(_faces_table(r) for r in range(14))
#: number of faces in a byte of digit counts
_COUNT = bytes(sum(byte >> (2 * s) & 3 for s in range(4)) for byte in range(256))


class _Hand:
    """Per-call analysis of a hand at a level: wilds and natural faces per rank.

    ``by[r]`` holds the natural faces of rank ``r`` (``by[13]`` the jokers), preferred
    first: faces outside natural straight flushes, then by face; ``rc[r]`` is their
    number. ``bits`` holds the natural faces present, bit ``2 * face`` (rank-major);
    ``sfx`` / ``alow`` the low bits of the natural straight flushes (2..A windows / A-5);
    ``moved`` the ranks whose preferred faces are not in ``_BY`` order (``members``' ranks).
    """

    __slots__ = (
        "by",
        "rc",
        "cb",
        "w",
        "wild",
        "lv",
        "bits",
        "sfx",
        "alow",
        "members",
        "sb",
        "hr",
        "x",
        "b",
        "bombs",
        "tail",
        "moved",
    )
    by: list[tuple[int, ...]]
    rc: list[int]
    cb: bytes
    w: int
    wild: int
    lv: int
    bits: int
    sfx: int
    alow: int
    members: int
    sb: int
    hr: int
    x: int
    b: bytes
    #: every bomb-class play (``_all_bombs``), ``None`` until built
    bombs: list[Combo] | None
    #: the bombs and the pass that end the answers to a non-bomb (``_follow_tuple``)
    tail: tuple[Combo, ...] | None
    moved: list[int] | tuple[int, ...]

    def __init__(self, hand: Iterable[int] = _BLANK, lv: int = 0) -> None:
        if hand is _BLANK:
            return
        if type(hand) is not tuple and type(hand) is not list:
            hand = tuple(hand)
        try:
            if len(hand) > 1:
                x = sum(itemgetter(*hand)(_P4_CHECKED))
            else:
                x = sum(map(_P4_CHECKED.__getitem__, hand))
        except (IndexError, TypeError):
            x = -1
        # a hand of two decks: faces 0..53 (else x is poisoned) and every 2-bit digit at most
        # 2 (a 3 has both bits; a 4 carries, and the digits then sum to fewer than the cards;
        # popcount(d) + popcount(d & 2) is d for a digit d)
        if x >> 108 or x < 0 or x >> 1 & x & _M01 or x.bit_count() + (x & _M10).bit_count() != len(hand):
            raise InvalidHandError(hand_problem(hand) or f"hand {hand!r} is not a hand of two decks")
        wild = lv * 4 + 1
        w = x >> (2 * wild) & 3
        if w:
            x -= w << (2 * wild)
        self._setup(x, w, lv, None)

    def without(self, cards: Iterable[int]) -> _Hand:
        """The analysis of this hand less ``cards`` (which it holds), without a full rebuild."""
        x = self.x
        w = self.w
        wild = self.wild
        if w:
            for f in cards:
                if f == wild:
                    w -= 1
                else:
                    x -= _P4[f]
        else:  # no wild among the cards
            for f in cards:
                x -= _P4[f]
        h = _Hand()
        if self.members:
            h._setup(x, w, self.lv, self)
            return h
        # no natural straight flush before, none after: only the ranks played change
        h.x = x
        bombs = self.bombs
        if bombs and self.w:
            bombs = None  # bombs with wilds: built again
        elif bombs:
            # no wild nor natural straight flush: the bombs are the ranks of 4 faces or more and
            # the four jokers, the same after cards of other ranks (the same tuples, by rank byte)
            cb = self.cb
            for f in cards:
                r = f >> 2
                if (cb[r] >= 4) if r < 13 else (self.sb == 2 and self.hr == 2):
                    bombs = None
                    break
        if bombs is not None:
            # the bombs before, or none before and none after (fewer cards): the same tail of
            # answers, bombs + pass
            h.bombs = bombs
            h.tail = self.tail
        else:
            h.bombs = h.tail = None
        h.b = b = x.to_bytes(14, "little")
        by = h.by = self.by[:]
        for f in cards:
            r = f >> 2
            by[r] = _BY[r][b[r]]
        jb = b[13]
        h.sb = jb & 3
        h.hr = jb >> 2 & 3
        h.cb = cb = b.translate(_COUNT)[:13]
        h.rc = list(cb)
        h.w = w
        h.wild = wild
        h.lv = self.lv
        h.bits = (x | x >> 1) & _M01
        h.sfx = h.alow = h.members = 0
        h.moved = ()
        return h

    def _setup(self, x: int, w: int, lv: int, prev: _Hand | None) -> None:
        """Fill the analysis from ``x`` (natural digit counts) and ``w`` wilds.

        ``prev``, an analysis of a superset of this hand without natural straight flushes,
        lets unchanged ranks keep their face tuples.
        """
        self.x = x
        self.bombs = self.tail = None
        self.b = b = x.to_bytes(14, "little")
        if prev is None or prev.members:
            by = list(map(_getitem, _BY, b))
        else:
            by = prev.by[:]
            old = prev.x ^ x
            while old:
                r = ((old & -old).bit_length() - 1) >> 3
                by[r] = _BY[r][b[r]]
                old &= ~(0xFF << (8 * r))
        jb = b[13]
        self.sb = jb & 3
        self.hr = jb >> 2 & 3
        self.by = by
        self.cb = cb = b.translate(_COUNT)[:13]
        self.rc = list(cb)
        self.w = w
        self.wild = lv * 4 + 1
        self.lv = lv
        self.bits = bits = (x | x >> 1) & _M01
        # natural straight flushes: 5 faces of a suit in a row (A-2-3-4-5 apart)
        x4 = bits & bits >> 8 & bits >> 16 & bits >> 24
        self.sfx = sfx = x4 & bits >> 32 & _WINDOW_STARTS
        self.alow = alow = x4 & bits >> 96 & _SUIT_BASES
        members = 0
        moved: list[int] | tuple = ()
        if sfx or alow:
            # their faces go last, so other choices keep them intact
            if prev is not None and not prev.members:
                by = self.by = list(map(_getitem, _BY, b))
            members = sfx | sfx << 8 | sfx << 16 | sfx << 24 | sfx << 32
            members |= alow | alow << 8 | alow << 16 | alow << 24 | alow << 96
            mb = members.to_bytes(13, "little")
            moved = []
            # the ranks from the lowest to the highest with faces in them: their faces outside
            # straight flushes (digits of the other suits), then those in them, each sorted
            for r in range(((members & -members).bit_length() - 1) >> 3, (members.bit_length() + 7) >> 3):
                ms = mb[r]
                if ms and cb[r] > 1:
                    faces, byte, mm = _BY[r], b[r], ms * 3
                    by[r] = faces[byte & ~mm] + faces[byte & mm]
                    moved.append(r)
        self.members = members
        self.moved = moved

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
        return list(self.by[r])

    def take(self, r: int, k: int) -> tuple[int, ...]:
        """``k`` faces of rank ``r`` (naturals first, wilds for the rest), sorted."""
        faces = self.by[r]
        if len(faces) >= k:
            if self.members:
                return tuple(sorted(faces[:k]))
            return faces[:k]
        return tuple(sorted(faces + (self.wild,) * (k - len(faces))))


def legal_plays(
    hand: Iterable[int], level: str | SupportsIndex, top: Combo | Sequence[object] | None = None
) -> list[Combo]:
    """Every (type, key, size) ``hand`` can play at ``level``, one card choice each.

    Leading when ``top`` is None, else only the plays that beat ``top``. Full houses
    are listed once per attached pair rank.

    >>> from guandan_cli.engine import parse_cards
    >>> len(legal_plays(parse_cards("S3 D3 S4"), "2"))
    3
    """
    lv = level if type(level) is int and 0 <= level <= 12 else level_index(level)
    against = None if top is None else _as_top(top)
    return _plays(_Hand(hand, lv), against)


def _as_top(top: object) -> Combo:
    """``top`` itself when a Combo of a Python int rank, else ``top`` given as a plain (type, rank, cards) sequence (a list read from JSON, numpy
    ints) as a Combo, or a TypeError/ValueError naming it: the compiled engine takes only a
    Combo of Python ints, and would fail deep inside with a bare type error."""
    # (no narrowing to Combo before: compiled, reading its rank as an int would check it)
    if type(top) is Combo and type(cast(Sequence[object], top)[1]) is int:
        return cast(Combo, top)
    try:
        t, r, cards = cast(Sequence[object], top)
        combo = Combo(
            cast(str, t), _as_index(cast(SupportsIndex, r)), tuple(map(_as_index, cast(Iterable[int], cards)))
        )
    except (TypeError, ValueError):
        raise TypeError(
            f"top {top!r}: expected a Combo (type, rank, cards), e.g. Combo.from_text('pair:7 S7 D7'), or None"
        ) from None
    if (combo.type not in TYPE_ORDER or not 0 <= combo.rank <= 14) and combo != ("pass", -1, ()):
        raise ValueError(f"top {top!r}: not a play (type one of {', '.join(TYPE_ORDER)}; rank 0..14)")
    return combo


def _plays(h: _Hand, top: Combo | None) -> list[Combo]:
    """``legal_plays`` from an analysed hand (``_Hand`` is never changed here)."""
    out: list[Combo] = []
    if top is None:
        if not h.w:
            return _lead_plain(h)
        # each guard skips a generator only when it would list nothing (small hands)
        cb, w = h.cb, h.w
        _singles(h, -1, out)
        _pairs(h, -1, out)
        if max(cb) + w >= 3:  # some rank can make a triple
            _triples(h, -1, out)
            _full_houses(h, -1, out)
        if 13 - cb.count(0) + w >= 5:  # enough ranks present for a straight
            _straights(h, -1, out)
        if sum(cb) + w >= 6:  # enough cards for a tube or a plate
            _tubes(h, -1, out)
            _plates(h, -1, out)
        out += _all_bombs(h)
        return out
    t = top[0]
    lv = h.lv
    if t in BOMB_CLASS:
        _bomb_class(h, bomb_value(top, lv), out)
        return out
    if t == FULL_HOUSE:
        _full_houses(h, POWER[lv][top[1]], out)
    elif t == SINGLE:
        _singles(h, POWER[lv][top[1]], out)
    elif t == PAIR:
        _pairs(h, POWER[lv][top[1]], out)
    elif t == TRIPLE:
        _triples(h, POWER[lv][top[1]], out)
    elif t == STRAIGHT:
        _straights(h, top[1], out)
    elif t == TUBE:
        _tubes(h, top[1], out)
    elif t == PLATE:
        _plates(h, top[1], out)
    else:
        POWER[lv][top[1]]  # noqa: B018 - a bad key fails as it always did
    out += _all_bombs(h)
    return out


def _follow_tuple(h: _Hand, top: Combo, pass_: Combo) -> tuple:
    """The answers to ``top`` as the deal lists them: ``_plays(h, top)`` then ``pass_``, a tuple.

    The bombs and the pass that end every answer to a non-bomb are one tuple per analysed
    hand, returned as it is when nothing of the top's type beats it.
    """
    t = top[0]
    gen = _power_generator(t)
    if gen is not None:
        out: list = []
        gen(h, POWER[h.lv][top[1]], out)
    else:
        gen = _key_generator(t)
        if gen is None:
            if t in BOMB_CLASS:
                # the bombs above the top's: the hand's bombs (built once per analysed hand, from
                # tables) filtered, in their order (``_bomb_class`` above ``tb`` lists them so)
                lv = h.lv
                tb = bomb_value(top, lv)
                out = [c for c in _all_bombs(h) if bomb_value(c, lv) > tb]
            else:
                out = _plays(h, top)
            out.append(pass_)
            return tuple(out)
        out = []
        gen(h, top[1], out)
    tail = h.tail
    if tail is None:
        tail = h.tail = (*_all_bombs(h), pass_)
    return (*out, *tail) if out else tail


def _lead_plain(h: _Hand) -> list[Combo]:
    """``_plays(h, None)`` for a hand without wilds, in one pass (the generators' paths without
    wilds, sharing the hand's fields): the most common lead.

    Pairs and triples come from tables by rank and suits (``_PAIRS``, ``_TRIPLES``), their
    suits from the preferred faces (``_Hand.by``)."""
    by, rc, cb = h.by, h.rc, h.cb
    single = _SINGLE_OF
    out = [single[by[r][0]] for r in _RANGE13 if by[r]]
    sb, hr = h.sb, h.hr
    if sb:
        out.append(single[SB])
    if hr:
        out.append(single[HR])
    top_count = max(cb)
    n = 0
    if top_count >= 2:
        pranks = [r for r in _RANGE13 if rc[r] >= 2]
        n = len(pranks)
        poffs = _pair_offsets(h, pranks)
        table = _PAIRS
        out += [table[o] or _pair(o) for o in poffs]
    if sb == 2:
        out.append(_SB_PAIR)
    if hr == 2:
        out.append(_HR_PAIR)
    if top_count >= 3:
        trips = [t for t in pranks if rc[t] >= 3]
        toffs = _triple_offsets(h, trips)
        table = _TRIPLES
        out += [table[o] or _triple(o) for o in toffs]
        _natural_full_houses(h, trips, out, poffs, toffs)
    if 13 - cb.count(0) >= 5:
        _straights(h, -1, out)
    if sum(cb) >= 6:
        if n >= 3:
            _tubes(h, -1, out)
        if top_count >= 3:
            _plates(h, -1, out)
    bombs = h.bombs
    if bombs is None:
        bombs = h.bombs = []
        if top_count >= 4 or (sb == 2 and hr == 2) or h.members:
            _bomb_class(h, 0, bombs)
    out += bombs
    return out


def _nth_rank(rc: list[int], least: int, k: int) -> int:
    """The ``k``-th rank (from 0, in rank order) with at least ``least`` natural faces."""
    for r in _RANGE13:
        if rc[r] >= least:
            if not k:
                return r
            k -= 1
    raise IndexError(k)  # pragma: no cover - the counts said it exists


class PlainLeads:
    """The lead list of a hand without wilds and natural straight flushes, built lazily.

    Equal, item for item and in order, to ``_lead_plain(h)`` (``legal_plays`` leading), but
    ``len()`` is counted from the rank counts and ``[i]`` builds only play ``i``: a bot that
    picks one play by index (``random``) does not pay for the others. Built from the seat's own
    hand analysis only. ``index`` answers at once for the last play it handed out.

    A ``Sequence`` by registration, not inheritance: compiled by mypyc, a subclass of an ABC
    shares its ABC cache (a tuple was then an instance of ``PlainLeads``).
    """

    __slots__ = ("_h", "_ends", "_last", "_last_i", "_list")
    _h: _Hand
    _ends: tuple[int, ...]
    #: the last play handed out and its index (``_NOTHING`` for none yet)
    _last: object
    _last_i: object
    _list: list[Combo] | None

    def __init__(self, h: _Hand | None = None) -> None:
        if h is None:  # blank, for ``copy``/``pickle`` to fill (compiled, they call ``__init__``)
            return
        self._h = h
        # no play handed out yet: a marker no caller holds (``None`` would answer ``legal[None]``)
        self._last = self._last_i = _NOTHING
        self._list = None
        cb = h.cb
        sb, hr = h.sb, h.hr
        ranks = 13 - cb.count(0)
        n1 = ranks + (sb > 0) + (hr > 0)
        pairs = cb.translate(_AT_LEAST_2)
        np_ = pairs.count(1)
        jp = (sb == 2) + (hr == 2)
        n5 = n6 = n7 = nt = 0
        if ranks >= 5:  # windows of 5 ranks present (A also below 2)
            present = h.bits
            present |= present >> 2 | present >> 4 | present >> 6
            ext = (present & _SPREAD) << 8 | present >> 96 & 1
            n5 = (ext & ext >> 8 & ext >> 16 & ext >> 24 & ext >> 32).bit_count()
        if np_ >= 2:
            trips = cb.translate(_AT_LEAST_3)
            nt = trips.count(1)
            if np_ >= 3:  # windows of 3 ranks holding pairs
                ext = int.from_bytes(pairs, "little")
                ext = ext << 8 | ext >> 96
                n6 = (ext & ext >> 8 & ext >> 16).bit_count()
            if nt >= 2:  # windows of 2 ranks holding triples
                ext = int.from_bytes(trips, "little")
                ext = ext << 8 | ext >> 96
                n7 = (ext & ext >> 8).bit_count()
        elif np_:
            nt = cb.translate(_AT_LEAST_3).count(1)
        nf = nt * (np_ - 1 + jp)
        bombs = h.bombs
        if bombs is None:
            bombs = h.bombs = []
            if nt and max(cb) >= 4 or jp == 2:
                _bomb_class(h, 0, bombs)
        e1 = n1
        e2 = e1 + np_ + jp
        e3 = e2 + nt
        e4 = e3 + nf
        e5 = e4 + n5
        e6 = e5 + n6
        e7 = e6 + n7
        self._ends = (e1, e2, e3, e4, e5, e6, e7, e7 + len(bombs), np_, jp)

    def __len__(self) -> int:
        return self._ends[7]

    def __getitem__(self, i):
        if i is self._last_i:  # asked again for the last play (small ints are shared)
            return self._last
        ends = self._ends
        if type(i) is not int:
            if isinstance(i, slice):
                return tuple(self.tolist()[i])  # as the tuple it stands for slices
            i = _as_index(i)  # TypeError for a str, float, None, like a tuple
        n = ends[7]
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("lead index out of range")
        c = self._play(i, ends)
        self._last = c
        self._last_i = i
        return c

    def _play(self, i: int, ends: tuple) -> Combo:
        h = self._h
        by, cb, rc = h.by, h.cb, h.rc
        if i < ends[0]:  # singles
            k = i
            nat = 13 - cb.count(0)
            if k < nat:
                return _SINGLE_OF[by[_nth_rank(rc, 1, k)][0]]
            return _SINGLE_OF[SB if k == nat and h.sb else HR]
        if i < ends[1]:  # pairs
            k = i - ends[0]
            if k < ends[8]:
                r = _nth_rank(rc, 2, k)
                o = 10 * r + _PAIR_ID[h.b[r]]
                return _PAIRS[o] or _pair(o)
            return _SB_PAIR if k == ends[8] and h.sb == 2 else _HR_PAIR
        if i < ends[2]:  # triples
            r = _nth_rank(rc, 3, i - ends[1])
            o = 20 * r + _TRIP_ID[h.b[r]]
            return _TRIPLES[o] or _triple(o)
        if i < ends[3]:  # full houses: per triple rank, every other pair rank, then joker pairs
            per = ends[8] - 1 + ends[9]
            ti, j = divmod(i - ends[2], per)
            t = _nth_rank(rc, 3, ti)
            trip = by[t][:3]
            if j < ends[8] - 1:
                p = _nth_rank(rc, 2, j if j < _count_below(cb, t) else j + 1)
                cards = by[p][:2] + trip if p < t else trip + by[p][:2]
            else:
                cards = trip + ((SB, SB) if j == ends[8] - 1 and h.sb == 2 else (HR, HR))
            return _new(Combo, (FULL_HOUSE, t, cards))
        if i < ends[4]:  # straights
            k = i - ends[3]
            present = h.bits
            present |= present >> 2 | present >> 4 | present >> 6
            for top, ranks, wm, _get, alow in _STRAIGHT_STEPS:
                if present & wm == wm:
                    if not k:
                        cards = tuple([by[r][0] for r in ranks])
                        return _new(Combo, (STRAIGHT, top, tuple(sorted(cards)) if alow else cards))
                    k -= 1
        elif i < ends[5]:  # tubes
            k = i - ends[4]
            for top, (a, b, c), alow in _TUBE_STEPS:
                if rc[a] >= 2 and rc[b] >= 2 and rc[c] >= 2:
                    if not k:
                        if alow:
                            return _new(Combo, (TUBE, top, by[b][:2] + by[c][:2] + by[a][:2]))
                        return _new(Combo, (TUBE, top, by[a][:2] + by[b][:2] + by[c][:2]))
                    k -= 1
        elif i < ends[6]:  # plates
            k = i - ends[5]
            for top, (a, b) in PLATE_WINDOWS:
                if rc[a] >= 3 and rc[b] >= 3:
                    if not k:
                        plate = list(by[a][:3] + by[b][:3])
                        plate.sort()
                        return _new(Combo, (PLATE, top, tuple(plate)))
                    k -= 1
        else:
            return cast("list[Combo]", self._h.bombs)[i - ends[6]]
        raise IndexError(i)  # pragma: no cover - the counts said it exists

    def tolist(self) -> list[Combo]:
        """Every play, as ``legal_plays`` lists them."""
        lst = self._list
        if lst is None:
            lst = self._list = _lead_plain(self._h)
        return lst

    def __iter__(self) -> Iterator[Combo]:
        return iter(self.tolist())

    def count(self, action: object) -> int:
        """As ``Sequence.count`` (no longer inherited)."""
        return sum(1 for c in self.tolist() if c is action or c == action)

    def __reversed__(self) -> Iterator[Combo]:
        """As ``Sequence.__reversed__`` (no longer inherited; compiled, ``reversed()`` has no
        fallback to ``__getitem__``): play by play from the last."""
        for i in reversed(range(len(self))):
            yield self[i]

    def __contains__(self, action: object) -> bool:
        return action is self._last or action in self.tolist()

    def index(self, action, start: int = 0, stop: int | None = None) -> int:
        if action is self._last and start == 0 and stop is None:
            return cast(int, self._last_i)
        return self.tolist().index(action, start, *(() if stop is None else (stop,)))

    def __eq__(self, other: object) -> bool:
        """Equal to the tuple it stands for (and to another lazy list of the same plays)."""
        if isinstance(other, PlainLeads):
            other = other.tolist()
        elif not isinstance(other, tuple):
            return NotImplemented
        return tuple(self.tolist()) == tuple(other)

    def __hash__(self) -> int:
        return hash(tuple(self.tolist()))

    def __repr__(self) -> str:
        return f"PlainLeads({self.tolist()!r})"


Sequence.register(PlainLeads)

#: ``PlainLeads``' "no play handed out yet"
_NOTHING = object()


def _count_below(cb: bytes, t: int) -> int:
    """How many ranks below ``t`` hold a natural pair."""
    return cb[:t].translate(_AT_LEAST_2).count(1)


def _all_bombs(h: _Hand) -> list[Combo]:
    """Every bomb-class play of the hand, listed once per analysed hand (leads and follows
    of a non-bomb all answer with every bomb)."""
    bombs = h.bombs
    if bombs is None:
        bombs = h.bombs = []
        _bomb_class(h, 0, bombs)
    return bombs


#: the single of each face (a wild's single is its own rank, the level)
_SINGLE_OF = tuple(_new(Combo, (SINGLE, f >> 2, (f,))) for f in range(52)) + (
    _new(Combo, (SINGLE, 13, (SB,))),
    _new(Combo, (SINGLE, 14, (HR,))),
)
_SB_PAIR = _new(Combo, (PAIR, 13, (SB, SB)))
_HR_PAIR = _new(Combo, (PAIR, 14, (HR, HR)))
#: ``_RANKS_ABOVE[lv][thr + 1]``: the ranks 0..12 whose power at level ``lv`` exceeds ``thr``
_RANKS_ABOVE = tuple(
    tuple(tuple(r for r in _RANGE13 if POWER[lv][r] > thr) for thr in range(-1, 16)) for lv in range(13)
)

#: suit multisets of a natural pair (2 suits) and triple (3 suits), ascending: a natural pair or
#: triple is named by its rank and its index in these (its id)
_PAIR_SUITS = tuple(c for c in product(range(4), repeat=2) if list(c) == sorted(c))
_TRIP_SUITS = tuple(c for c in product(range(4), repeat=3) if list(c) == sorted(c))
#: index in ``_PAIR_SUITS`` / ``_TRIP_SUITS`` of the first 2 / 3 faces of a ``_BY`` byte (0 if fewer)
_PAIR_ID = bytes(
    _PAIR_SUITS.index(tuple(f & 3 for f in _BY[0][b][:2])) if _COUNT[b] >= 2 else 0 for b in range(256)
)
_TRIP_ID = bytes(
    _TRIP_SUITS.index(tuple(f & 3 for f in _BY[0][b][:3])) if _COUNT[b] >= 3 else 0 for b in range(256)
)
#: the same from the suits of two (three) faces in any order: ``[s0 * 4 + s1]`` (``[s0 * 16 + s1 * 4 + s2]``)
_PAIR_ID_OF = bytes(_PAIR_SUITS.index(tuple(sorted(divmod(i, 4)))) for i in range(16))
_TRIP_ID_OF = bytes(_TRIP_SUITS.index(tuple(sorted((i >> 4, i >> 2 & 3, i & 3)))) for i in range(64))
#: ``_PAIRS[10 * rank + pair id]``, ``_TRIPLES[20 * rank + triple id]``: the natural pair and
#: triple of those suits (made on use)
_PAIRS: list[Combo | None] = [None] * 130
_TRIPLES: list[Combo | None] = [None] * 260


def _pair(o: int) -> Combo:
    """Fill ``_PAIRS[o]``."""
    r, pid = divmod(o, 10)
    c = _PAIRS[o] = _new(Combo, (PAIR, r, tuple(4 * r + s for s in _PAIR_SUITS[pid])))
    return c


def _triple(o: int) -> Combo:
    """Fill ``_TRIPLES[o]``."""
    r, tid = divmod(o, 20)
    c = _TRIPLES[o] = _new(Combo, (TRIPLE, r, tuple(4 * r + s for s in _TRIP_SUITS[tid])))
    return c


def _pair_offsets(h: _Hand, ranks: list[int]) -> list[int]:
    """``_PAIRS`` offsets of the natural pairs of ``ranks`` (each held twice or more): the first
    two preferred faces."""
    if h.members:
        # as in ``_BY`` order but at the ranks whose preferred faces moved
        pid = bytearray(h.b.translate(_PAIR_ID))
        by, ids = h.by, _PAIR_ID_OF
        for r in h.moved:
            f = by[r]
            pid[r] = ids[(f[0] & 3) << 2 | f[1] & 3]
        return [10 * r + pid[r] for r in ranks]
    b, ids = h.b, _PAIR_ID
    return [10 * r + ids[b[r]] for r in ranks]


def _triple_offsets(h: _Hand, ranks: list[int]) -> list[int]:
    """``_TRIPLES`` offsets of the natural triples of ``ranks`` (each held three times or more)."""
    if h.members:
        by, ids = h.by, _TRIP_ID_OF
        return [20 * r + ids[(by[r][0] & 3) << 4 | (by[r][1] & 3) << 2 | by[r][2] & 3] for r in ranks]
    b, ids = h.b, _TRIP_ID
    return [20 * r + ids[b[r]] for r in ranks]


#: plays with wilds (made on use): ``_HALF_PAIRS[13 * face + level]``, a natural face and the
#: wild; ``_WILD_TRIPLES[13 * (10 * rank + pair id) + level]``, a natural pair and the wild;
#: ``_WILD_TRIPLES2[13 * face + level]``, a natural face and two wilds
_HALF_PAIRS: list[Combo | None] = [None] * (52 * 13)
_WILD_TRIPLES: list[Combo | None] = [None] * (130 * 13)
_WILD_TRIPLES2: list[Combo | None] = [None] * (52 * 13)


def _half_pair(i: int) -> Combo:
    """Fill ``_HALF_PAIRS[i]``."""
    f, lv = divmod(i, 13)
    wild = 4 * lv + 1
    c = _HALF_PAIRS[i] = _new(Combo, (PAIR, f >> 2, (f, wild) if f < wild else (wild, f)))
    return c


def _wild_triple(i: int) -> Combo:
    """Fill ``_WILD_TRIPLES[i]``."""
    o, lv = divmod(i, 13)
    r, pid = divmod(o, 10)
    cards = [4 * r + s for s in _PAIR_SUITS[pid]]
    cards.append(4 * lv + 1)
    cards.sort()
    c = _WILD_TRIPLES[i] = _new(Combo, (TRIPLE, r, tuple(cards)))
    return c


def _wild_triple2(i: int) -> Combo:
    """Fill ``_WILD_TRIPLES2[i]``."""
    f, lv = divmod(i, 13)
    wild = 4 * lv + 1
    c = _WILD_TRIPLES2[i] = _new(Combo, (TRIPLE, f >> 2, tuple(sorted((f, wild, wild)))))
    return c


#: ``_FH_ROWS[triple offset][pair offset]``: the full house of a natural triple (``_TRIPLES``
#: offset) and a natural pair (``_PAIRS`` offset; 130, 131: the joker pairs), ``None`` for the
#: triple's own rank; a row is made whole on first use (132 combos, shared by every level)
_FH_ROWS: list[list[Combo | None] | None] = [None] * 260


def _fh_row(to: int) -> list[Combo | None]:
    """Fill ``_FH_ROWS[to]``: the cards sort by rank, triple and pair each sorted."""
    t = to // 20
    trip = (_TRIPLES[to] or _triple(to))[2]
    row: list[Combo | None] = []
    for po in range(130):
        p = po // 10
        pair = (_PAIRS[po] or _pair(po))[2]
        row.append(None if p == t else _new(Combo, (FULL_HOUSE, t, pair + trip if p < t else trip + pair)))
    row.append(_new(Combo, (FULL_HOUSE, t, trip + (SB, SB))))
    row.append(_new(Combo, (FULL_HOUSE, t, trip + (HR, HR))))
    _FH_ROWS[to] = row
    return row


def _natural_full_houses(
    h: _Hand,
    trips: list[int],
    out: list,
    poffs: list[int] | None = None,
    toffs: list[int] | None = None,
) -> None:
    """The full houses of a hand without wilds: per triple rank of ``trips``, every other rank
    with a natural pair, then the joker pairs (``poffs`` / ``toffs``: the ``_PAIRS`` offsets of
    every natural pair / the ``_TRIPLES`` offsets of ``trips``, if known).

    Each triple's full houses are one row of ``_FH_ROWS`` read at the pair offsets; the cell of
    its own rank (``None``) is dropped."""
    rc = h.rc
    if poffs is None:
        if h.members:
            poffs = _pair_offsets(h, [p for p in _RANGE13 if rc[p] >= 2])
        else:
            b, ids = h.b, _PAIR_ID
            poffs = [10 * p + ids[b[p]] for p in _RANGE13 if rc[p] >= 2]
    offs = poffs[:]
    if h.sb == 2:
        offs.append(130)
    if h.hr == 2:
        offs.append(131)
    if len(offs) < 2:  # only the triple's own pair
        return
    get = itemgetter(*offs)
    rows = _FH_ROWS
    for to in toffs or _triple_offsets(h, trips):
        # the offsets ascend with the ranks: the triple's own pair is the first of its rank
        n = len(out) + _bisect_left(offs, to // 20 * 10)
        out += get(rows[to] or _fh_row(to))
        del out[n]


def _singles(h: _Hand, thr: int, out: list) -> None:
    by = h.by
    lv = h.lv
    if h.w and not by[lv]:
        by = by[:]
        by[lv] = (h.wild,)
    single = _SINGLE_OF
    out += [single[by[r][0]] for r in _RANKS_ABOVE[lv][thr + 1] if by[r]]
    if h.sb and 14 > thr:
        out.append(single[SB])
    if h.hr and 15 > thr:
        out.append(single[HR])


def _pairs(h: _Hand, thr: int, out: list) -> None:
    rc, w = h.rc, h.w
    ranks = _RANKS_ABOVE[h.lv][thr + 1]
    if w:
        by, lv = h.by, h.lv
        ptab, half, ids = _PAIRS, _HALF_PAIRS, _PAIR_ID_OF
        for r in ranks:
            c = rc[r]
            if c >= 2:
                f = by[r]
                o = 10 * r + ids[(f[0] & 3) << 2 | f[1] & 3]
                out.append(ptab[o] or _pair(o))
            elif c:
                i = 13 * by[r][0] + lv
                out.append(half[i] or _half_pair(i))
            elif r == lv and w == 2:
                out.append(_new(Combo, (PAIR, r, (h.wild, h.wild))))
    else:
        ptab = _PAIRS
        if h.members:
            out += [ptab[o] or _pair(o) for o in _pair_offsets(h, [r for r in ranks if rc[r] >= 2])]
        else:
            b, ids = h.b, _PAIR_ID
            for r in ranks:
                if rc[r] >= 2:
                    o = 10 * r + ids[b[r]]
                    out.append(ptab[o] or _pair(o))
    if h.sb == 2 and 14 > thr:
        out.append(_SB_PAIR)
    if h.hr == 2 and 15 > thr:
        out.append(_HR_PAIR)


def _triples(h: _Hand, thr: int, out: list) -> None:
    rc, w = h.rc, h.w
    ranks = _RANKS_ABOVE[h.lv][thr + 1]
    if w:
        by, lv = h.by, h.lv
        for r in ranks:
            c = rc[r]
            if c and c + w >= 3:
                out.append(_triple_play(by, r, c, lv))
    else:
        ttab = _TRIPLES
        if h.members:
            out += [ttab[o] or _triple(o) for o in _triple_offsets(h, [r for r in ranks if rc[r] >= 3])]
        else:
            b, ids = h.b, _TRIP_ID
            for r in ranks:
                if rc[r] >= 3:
                    o = 20 * r + ids[b[r]]
                    out.append(ttab[o] or _triple(o))


def _wild_pairs(h: _Hand) -> list[tuple[int, ...]]:
    """Per rank its pair in a hand with wilds, sorted: natural, a natural face and the wild,
    or both wilds when none is held."""
    rc, by, lv, wild = h.rc, h.by, h.lv, h.wild
    ptab, half, ids = _PAIRS, _HALF_PAIRS, _PAIR_ID_OF
    pairs = []
    for r in _RANGE13:
        c = rc[r]
        if c >= 2:
            f = by[r]
            o = 10 * r + ids[(f[0] & 3) << 2 | f[1] & 3]
            pairs.append((ptab[o] or _pair(o))[2])
        elif c:
            i = 13 * by[r][0] + lv
            pairs.append((half[i] or _half_pair(i))[2])
        else:
            pairs.append((wild, wild))
    return pairs


def _triple_play(by: list, r: int, c: int, lv: int) -> Combo:
    """The triple of rank ``r`` held ``c`` times (1..), its preferred faces ``by[r]``, wilds
    for the rest (the hand holds them), at level ``lv``."""
    f = by[r]
    if c >= 3:
        o = 20 * r + _TRIP_ID_OF[(f[0] & 3) << 4 | (f[1] & 3) << 2 | f[2] & 3]
        return _TRIPLES[o] or _triple(o)
    if c == 2:
        i = 13 * (10 * r + _PAIR_ID_OF[(f[0] & 3) << 2 | f[1] & 3]) + lv
        return _WILD_TRIPLES[i] or _wild_triple(i)
    i = 13 * f[0] + lv
    return _WILD_TRIPLES2[i] or _wild_triple2(i)


def _full_houses(h: _Hand, thr: int, out: list) -> None:
    rc, w = h.rc, h.w
    if not w:
        trips = [t for t in _RANKS_ABOVE[h.lv][thr + 1] if rc[t] >= 3]
        if trips:
            _natural_full_houses(h, trips, out)
        return
    pw = POWER[h.lv]
    lo = 3 - w
    trips = [t for t in _RANGE13 if rc[t] >= lo and rc[t] and pw[t] > thr]
    if not trips:
        return
    by = h.by
    wild, lv = h.wild, h.lv
    # attached pair candidates by rank: (rank, natural pair or natural face + wild, sorted;
    # its lowest and highest face; whether it needs a wild), then the joker pairs
    ptab, half, ids = _PAIRS, _HALF_PAIRS, _PAIR_ID_OF
    pairs2 = []
    halves = 0
    for p in _RANGE13:
        cp = rc[p]
        if cp >= 2:
            f = by[p]
            o = 10 * p + ids[(f[0] & 3) << 2 | f[1] & 3]
            pair = (ptab[o] or _pair(o))[2]
            pairs2.append((p, pair, pair[0], pair[1], False))
        elif cp:
            i = 13 * by[p][0] + lv
            pair = (half[i] or _half_pair(i))[2]
            pairs2.append((p, pair, pair[0], pair[1], True))
            halves += 1
    if h.sb == 2:
        pairs2.append((13, (SB, SB), SB, SB, False))
    if h.hr == 2:
        pairs2.append((14, (HR, HR), HR, HR, False))
    fulls = len(pairs2) - halves
    # per triple: (rank, cards sorted, lowest and highest card, wilds left for the pair)
    triples = []
    alone = False  # a triple with no other pair: its pair is two wilds, if any
    for t in trips:
        ct = rc[t]
        trip = _triple_play(by, t, ct, lv)[2]
        wt = w - 3 + ct if ct < 3 else w
        triples.append((t, trip, trip[0], trip[2], wt))
        if ct >= 2:
            alone = alone or fulls == 1 and not (wt and halves)
        else:
            alone = alone or not fulls and halves == 1
    # the cards of triple and pair, sorted: one before the other unless they interleave
    # (a wild between the ranks), then sorted
    for t, trip, lo, hi, wt in triples:
        n0 = len(out)
        out += [
            _new(
                Combo,
                (
                    FULL_HOUSE,
                    t,
                    trip + pair if hi <= a else pair + trip if b <= lo else tuple(sorted(trip + pair)),
                ),
            )
            for p, pair, a, b, need in pairs2
            if p != t and (wt or not need)
        ]
        if alone and len(out) == n0 and wt >= 2:
            out.append(_new(Combo, (FULL_HOUSE, t, tuple(sorted(trip + (wild, wild))))))


#: the lowest suit of a ``_BY`` byte (0 if none), and ``4 * rank`` in byte ``rank``
_FIRST_SUIT = bytes(_BY[0][b][0] & 3 if _COUNT[b] else 0 for b in range(256))
_FACE_BASE = int.from_bytes(bytes(4 * r for r in range(14)), "little")
#: per straight window: (top, ranks, bit ``8 * rank`` per rank, the ranks' getter, A-low)
_STRAIGHT_STEPS = tuple(
    (top, ranks, wm, itemgetter(*ranks), ranks[0] > ranks[-1]) for top, ranks, wm in _SF_WINDOWS
)
#: ``_STRAIGHT_AT[j]``: (top, the ranks' getter, A-low) of the straight window that starts at
#: rank ``j - 1`` (0: A-2-3-4-5)
_STRAIGHT_AT = tuple((top, get, alow) for top, _ranks, _wm, get, alow in _STRAIGHT_STEPS)
#: per tube window: (top, ranks, A-low)
_TUBE_STEPS = tuple((top, ranks, ranks[0] > ranks[-1]) for top, ranks in TUBE_WINDOWS)


def _straights(h: _Hand, thr: int, out: list) -> None:
    w, wild, by = h.w, h.wild, h.by
    bits = h.bits
    present = bits | bits >> 2 | bits >> 4 | bits >> 6
    # the first (preferred) face of each rank, a wild where none: one per rank of a window,
    # ascending with the ranks (faces are 4 * rank + suit) except in A-2-3-4-5 or with wilds
    if not w:
        # any window with every rank present? (bit ``8 * j`` of ``runs``: the one topped by j + 3)
        ext = (present & _SPREAD) << 8 | present >> 96 & 1  # A also below 2
        runs = ext & ext >> 8 & ext >> 16 & ext >> 24 & ext >> 32
        if not runs:
            return
        firsts: list[int] | bytes
        if h.members:
            firsts = [t[0] if t else wild for t in by]
        else:  # the lowest face of each rank: 4 * rank + its lowest suit, bytewise
            firsts = (int.from_bytes(h.b.translate(_FIRST_SUIT), "little") + _FACE_BASE).to_bytes(
                14, "little"
            )
        steps = _STRAIGHT_AT
        while runs:
            low = runs & -runs
            runs ^= low
            top, get, alow = steps[low.bit_length() >> 3]
            if top > thr:
                cards = get(firsts)
                out.append(_new(Combo, (STRAIGHT, top, tuple(sorted(cards)) if alow else cards)))
        return
    firsts = [t[0] if t else wild for t in by]
    need = 5 - w
    for top, _ranks, wm, get, _alow in _STRAIGHT_STEPS:
        if top <= thr or (present & wm).bit_count() < need:
            continue
        out.append(_new(Combo, (STRAIGHT, top, tuple(sorted(get(firsts))))))


def _tubes(h: _Hand, thr: int, out: list) -> None:
    w = h.w
    if not w:
        # natural pairs only: per rank its two preferred faces, sorted; ascending by rank.
        # Any window? (bit ``8 * j`` of ``runs``: ranks j - 1, j, j + 1, A also below 2, hold pairs)
        pairs = int.from_bytes(h.cb.translate(_AT_LEAST_2), "little")
        ext = pairs << 8 | pairs >> 96
        runs = ext & ext >> 8 & ext >> 16
        if not runs:
            return
        by = h.by
        members = h.members
        steps = _TUBE_STEPS
        while runs:
            low = runs & -runs
            runs ^= low
            top, (a, b, c), alow = steps[low.bit_length() >> 3]
            if top > thr:
                if members:  # the two preferred faces of a rank may be out of order
                    pa, pb, pc = by[a], by[b], by[c]
                    pa = pa[:2] if pa[0] <= pa[1] else (pa[1], pa[0])
                    pb = pb[:2] if pb[0] <= pb[1] else (pb[1], pb[0])
                    pc = pc[:2] if pc[0] <= pc[1] else (pc[1], pc[0])
                    cards = pb + pc + pa if alow else pa + pb + pc
                elif alow:
                    cards = by[b][:2] + by[c][:2] + by[a][:2]
                else:
                    cards = by[a][:2] + by[b][:2] + by[c][:2]
                out.append(_new(Combo, (TUBE, top, cards)))
        return
    # the windows whose ranks lack at most ``w`` faces of their pairs (per rank the faces it
    # lacks, summed over 3 ranks in a row, A also below 2): byte ``top - 1``
    short = int.from_bytes(h.cb.translate(_SHORT_OF_2), "little")
    short = (short << 8 | short >> 96) * 0x010101
    fits = short.to_bytes(16, "little")[2:14].translate(_AT_MOST[w if w < 3 else 3])
    if not any(fits):
        return
    wpairs = _wild_pairs(h)
    for top, fit in enumerate(fits, 1):
        if fit and top > thr:
            a, b, c = TUBE_WINDOWS[top - 1][1]
            tube = list(wpairs[a] + wpairs[b] + wpairs[c])
            tube.sort()
            out.append(_new(Combo, (TUBE, top, tuple(tube))))


def _plates(h: _Hand, thr: int, out: list) -> None:
    w = h.w
    take = h.take
    if not w:
        # bit ``8 * j`` of ``runs``: ranks j - 1 and j (A also below 2) hold triples
        trips = int.from_bytes(h.cb.translate(_AT_LEAST_3), "little")
        ext = trips << 8 | trips >> 96
        runs = ext & ext >> 8
        while runs:
            low = runs & -runs
            runs ^= low
            top = (low.bit_length() - 1) >> 3
            if top > thr:
                # each triple sorted, the lower rank first (A-A-A-2-2-2: the 2s)
                a, b = PLATE_WINDOWS[top][1]
                cards = take(b, 3) + take(a, 3) if top == 0 else take(a, 3) + take(b, 3)
                out.append(_new(Combo, (PLATE, top, cards)))
        return
    # the windows whose two ranks are held and lack at most ``w`` faces of their triples: byte ``top``
    short = int.from_bytes(h.cb.translate(_SHORT_OF_3), "little")
    short = (short << 8 | short >> 96) * 0x0101
    fits = short.to_bytes(15, "little")[1:14].translate(_AT_MOST[w if w < 3 else 3])
    for top, fit in enumerate(fits):
        if fit and top > thr:
            a, b = PLATE_WINDOWS[top][1]
            plate = list(take(a, 3) + take(b, 3))
            plate.sort()
            out.append(_new(Combo, (PLATE, top, tuple(plate))))


#: every bomb of a rank, by ``((level * 3 + wilds) * 13 + rank) << 8 | byte`` (``_BY`` bytes; level
#: 0 for every level when no wild is held: the same bombs), when no straight flush is to be kept;
#: filled on use (at most 13 * 3 * 13 * 81 entries)
_RANK_BOMBS: dict[int, tuple[Combo, ...]] = {}
#: the same for a rank with more than 4 faces, some in natural straight flushes to keep, by its
#: ``_RANK_BOMBS`` key ``<< 8 |`` the byte of those suits (``_Hand.members``)
_RANK_BOMBS_KEPT: dict[int, tuple[Combo, ...]] = {}


def _rank_bombs(r: int, byte: int, w: int, lv: int) -> tuple[Combo, ...]:
    """The bombs of rank ``r`` held as ``byte`` with ``w`` wilds at level ``lv``, by size:
    naturals first, then wilds (placed where the sorted cards put them)."""
    faces = _BY[r][byte]
    wild = lv * 4 + 1
    return tuple(
        _new(Combo, (BOMB, r, _bomb_cards(faces, k, r, wild, lv, 0)))
        for k in range(4, min(len(faces) + w, 10) + 1)
    )


def _bomb_cards(faces: tuple[int, ...], k: int, r: int, wild: int, lv: int, members: int) -> tuple[int, ...]:
    """The ``k`` cards of a bomb of rank ``r``: its natural ``faces`` (preferred first), then
    wilds, sorted (by construction where no straight flush is kept)."""
    c = len(faces)
    if k <= c:
        return tuple(sorted(faces[:k])) if members else faces[:k]
    if members or r == lv:
        return tuple(sorted(faces + (wild,) * (k - c)))
    if r < lv:
        return faces + (wild,) * (k - c)
    return (wild,) * (k - c) + faces


def _rank_bombs_kept(h: _Hand, r: int, tb: int, out: list) -> None:
    """The bombs of rank ``r`` above bomb value ``tb``, from its preferred faces."""
    w = h.w
    c = h.rc[r]
    p = POWER[h.lv][r]
    faces = h.by[r]
    for k in range(4, (c + w if c + w < 10 else 10) + 1):
        if _BOMB_BASE[k] + p > tb:
            out.append(_new(Combo, (BOMB, r, _bomb_cards(faces, k, r, h.wild, h.lv, h.members))))


def _bomb_class(h: _Hand, tb: int, out: list) -> None:
    w = h.w
    cb = h.cb
    if w:
        lo = 4 - w
        rc = h.rc
        ranks = [r for r in _RANGE13 if rc[r] >= lo and rc[r]]
    elif max(cb) >= 4:
        rc = h.rc
        ranks = [r for r in _RANGE13 if rc[r] >= 4]
    else:
        ranks = None
    if ranks and tb == 0:
        # every bomb of each rank: looked up by (level, wilds, rank, byte of its faces), and by
        # the suits of its faces in straight flushes to keep when it has more than 4 faces (the
        # bombs that leave some out then choose which)
        table, kept = _RANK_BOMBS, _RANK_BOMBS_KEPT
        b = h.b
        head = (h.lv * 3 + w) * 13 if w else 0  # without wilds, bombs do not depend on the level
        members = h.members
        for r in ranks:
            if members and rc[r] > 4 and members >> (8 * r) & 0x55:
                # its preferred faces: by (rank, suits in straight flushes, byte), which fix their order
                key = ((head + r) << 8 | b[r]) << 8 | members >> (8 * r) & 0xFF
                bombs = kept.get(key)
                if bombs is None:
                    made: list[Combo] = []
                    _rank_bombs_kept(h, r, 0, made)
                    bombs = kept[key] = tuple(made)
                out += bombs
                continue
            key = (head + r) << 8 | b[r]
            bombs = table.get(key)
            if bombs is None:
                bombs = table[key] = _rank_bombs(r, b[r], w, h.lv)
            out += bombs
    elif ranks:
        for r in ranks:
            _rank_bombs_kept(h, r, tb, out)
    if tb < 400 and (w or h.members):
        _straight_flushes(h, tb, out)
    if tb < 900 and h.sb == 2 and h.hr == 2:
        out.append(_new(Combo, (JOKER_BOMB, 14, (SB, SB, HR, HR))))


#: straight flushes by (suit faces present in the window, wild, top, suit), filled on use (at most
#: 10 tops * 4 suits * 32 faces present * 13 wilds)
_SF_PLAYS: dict[int, Combo] = {}
#: ``_NATURAL_SF[4 * top + suit]``: the natural straight flush (filled on use)
_NATURAL_SF: list[Combo | None] = [None] * 52
#: bit ``8 * rank`` of each rank of the straight to each top
_SF_MASK = {top: wm for top, _ranks, wm in _SF_WINDOWS}


def _sf_cards(present: int, wild: int, top: int, s: int) -> tuple[int, ...]:
    cards = [r * 4 + s if present >> (8 * r) & 1 else wild for r in _STRAIGHT_RANKS[top]]
    cards.sort()
    return tuple(cards)


#: per rank byte (``_BY``): whether suits 0 and 1 (``_SUITS01``; 2 and 3: ``_SUITS23``) are held,
#: as the two nibbles of a byte
_SUITS01 = bytes((b & 3 != 0) | (b >> 2 & 3 != 0) << 4 for b in range(256))
_SUITS23 = bytes((b >> 4 & 3 != 0) | (b >> 6 & 3 != 0) << 4 for b in range(256))
#: the sums of 5 consecutive bytes (a window of ranks) land in the byte of the last one
_WINDOW_SUM = 0x0101010101
#: of a byte of two nibble counts (suits 0 and 1; 2 and 3), the larger as count * 4 + (3 - suit),
#: the lower suit on ties
_BEST01 = bytes(max((v & 15) * 4 + 3, (v >> 4) * 4 + 2) for v in range(256))
_BEST23 = bytes(max((v & 15) * 4 + 1, (v >> 4) * 4) for v in range(256))
#: bit 7 of each of 10 bytes
_HIGH10 = int.from_bytes(b"\x80" * 10, "little")
#: ``_SF_SUIT[w][count * 4 + 3 - suit]``: suit + 1 when ``w`` wilds complete the window, else 0
_SF_SUIT = tuple(bytes(4 - (v & 3) if (v >> 2) + w >= 5 else 0 for v in range(256)) for w in range(3))


def _natural_sf(i: int) -> Combo:
    """Fill ``_NATURAL_SF[i]``."""
    top, s = divmod(i, 4)
    c = _NATURAL_SF[i] = _new(
        Combo, (STRAIGHT_FLUSH, top, tuple(sorted(4 * r + s for r in _STRAIGHT_RANKS[top])))
    )
    return c


def _straight_flushes(h: _Hand, tb: int, out: list) -> None:
    """Per window, the suit needing the fewest wilds (the lowest suit on ties)."""
    w = h.w
    if not w:
        # natural ones only: per top, the lowest suit; the A-5 one first
        alow, sfx = h.alow, h.sfx
        table = _NATURAL_SF
        if alow and 303 > tb:
            i = 12 + (((alow & -alow).bit_length() - 1) >> 1)
            out.append(table[i] or _natural_sf(i))
        while sfx:
            low = sfx & -sfx
            r, s = divmod(low.bit_length() - 1, 8)
            top = r + 4
            sfx &= ~(0xFF << (8 * r))
            if 300 + top > tb:
                i = 4 * top + (s >> 1)
                out.append(table[i] or _natural_sf(i))
        return
    # per window (tops 3..12, A-5 first) the most faces of one suit present, as count * 4 +
    # (3 - suit): window sums of each suit's presence, suits 0 and 1 (2 and 3) in the nibbles
    # of one byte per rank, A also below 2
    b = h.b[:13]
    v = int.from_bytes(b.translate(_SUITS01), "little")
    v = (v << 8 | v >> 96) * _WINDOW_SUM
    x = int.from_bytes(v.to_bytes(18, "little")[4:14].translate(_BEST01), "little")
    v = int.from_bytes(b.translate(_SUITS23), "little")
    v = (v << 8 | v >> 96) * _WINDOW_SUM
    y = int.from_bytes(v.to_bytes(18, "little")[4:14].translate(_BEST23), "little")
    m = (((x | _HIGH10) - y) & _HIGH10) >> 7  # bit 0 of each byte: x at least y
    best = y ^ (x ^ y) & m * 255
    suits = best.to_bytes(10, "little").translate(_SF_SUIT[w if w < 2 else 2])
    if not any(suits):
        return
    bits = h.bits
    wild = h.wild
    plays = _SF_PLAYS
    for top, s in enumerate(suits, 3):
        if s and 300 + top > tb:
            s -= 1
            present = bits >> (2 * s) & _SF_MASK[top]
            key = present << 12 | wild << 6 | top << 2 | s
            c = plays.get(key)
            if c is None:
                c = plays[key] = _new(Combo, (STRAIGHT_FLUSH, top, _sf_cards(present, wild, top, s)))
            out.append(c)


# ---------------------------------------------------------------------------
# every distinct (multiset, declaration)


def _sub_multisets(faces: list[int], k: int) -> set[tuple[int, ...]]:
    if k < 0 or k > len(faces):
        return set()
    return set(combinations(sorted(faces), k))


def all_plays(
    hand: Iterable[int], level: str | SupportsIndex, top: Combo | Sequence[object] | None = None
) -> Iterator[Combo]:
    """Every distinct (card multiset, declaration) the hand can play, each once.

    Where ``legal_plays`` picks one card choice per declaration, this yields every
    choice of suits and of wild use. For tests and for bots that care about suits.

    >>> from guandan_cli.engine import parse_cards
    >>> sorted(c.text() for c in all_plays(parse_cards("S3 D3"), "2"))
    ['pair:3 S3 D3', 'single:3 D3', 'single:3 S3']
    """
    lv = level if type(level) is int and 0 <= level <= 12 else level_index(level)
    against = None if top is None else _as_top(top)
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
        if c not in seen and (against is None or beats(c, against, lv)):
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
                opts: list[tuple[tuple[int, ...], int]] = [((r * 4 + s,), 0)] if cnt[r * 4 + s] else []
                if w:
                    opts.append(((wild,), 1))
                options.append(opts)
            for choice in product(*options):
                if sum(u for _c, u in choice) <= w:
                    emit(STRAIGHT_FLUSH, topr, sum((c for c, _u in choice), ()))
    yield from sorted(seen, key=_sort_key)


def _sort_key(c: Combo) -> tuple:
    return (TYPE_ORDER[c[0]], c[1], len(c[2]), c[2])


# ---------------------------------------------------------------------------
# the legal plays of one type


#: the generator of ``_plays`` for each non-bomb type (bomb-class plays come from ``_bomb_class``)
_GENERATOR_OF = {
    SINGLE: _singles,
    PAIR: _pairs,
    TRIPLE: _triples,
    FULL_HOUSE: _full_houses,
    STRAIGHT: _straights,
    TUBE: _tubes,
    PLATE: _plates,
}
#: the generators of the answers to a non-bomb top (``_follow_tuple``): its key compared by power,
#: or as it is (sequences)
_FOLLOW_BY_POWER = {t: _GENERATOR_OF[t] for t in (SINGLE, PAIR, TRIPLE, FULL_HOUSE)}
_FOLLOW_BY_KEY = {t: _GENERATOR_OF[t] for t in (STRAIGHT, TUBE, PLATE)}
_power_generator = _FOLLOW_BY_POWER.get
_key_generator = _FOLLOW_BY_KEY.get


def plays_of_type(h: _Hand, t: str, top: Combo | None = None) -> list[Combo]:
    """The plays of type ``t`` in ``legal_plays``, in their order there, from an analysed hand.

    ``h`` is ``_Hand(hand, level)``; the result equals ``[c for c in legal_plays(hand, level,
    top) if c.type == t]`` (the same combos, cards and order), without building the plays of
    the other types: a lead that needs one type skips the rest (full houses above all).
    The plays are listed type after type in ``COMBO_TYPES`` order, so for several types the
    lists of ``plays_of_type`` in that order, joined, are the filtered ``legal_plays``.

    >>> from guandan_cli.engine import parse_cards
    >>> h = _Hand(parse_cards("S3 H3 D3 S4 D4 C5"), 0)
    >>> [c.text() for c in plays_of_type(h, "full_house")]
    ['full_house:3 S3 H3 D3 S4 D4']
    >>> [c.text() for c in plays_of_type(h, "pair", Combo.from_text("pair:3 C3 D3"))]
    ['pair:4 S4 D4']
    """
    if t in BOMB_CLASS:
        if top is not None and top[0] in BOMB_CLASS:
            bombs: list[Combo] = []
            _bomb_class(h, bomb_value(top, h.lv), bombs)
        else:
            bombs = _all_bombs(h)
        return [c for c in bombs if c[0] == t]
    out: list[Combo] = []
    generate = _GENERATOR_OF.get(t)
    if generate is None:
        return out
    if top is None:
        # the guards of ``_plays`` (each skips a generator only when it would list nothing)
        cb, w = h.cb, h.w
        if t in (TRIPLE, FULL_HOUSE):
            if max(cb) + w < 3:
                return out
        elif t == STRAIGHT:
            if 13 - cb.count(0) + w < 5:
                return out
        elif t in (TUBE, PLATE) and sum(cb) + w < 6:
            return out
        generate(h, -1, out)
        return out
    if top[0] != t:
        return out
    generate(h, top[1] if t in (STRAIGHT, TUBE, PLATE) else POWER[h.lv][top[1]], out)
    return out

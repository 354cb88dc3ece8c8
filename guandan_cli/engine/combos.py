"""Combinations: the `Combo` value, declared readings, and `beats` (rules.md §4–6).

A play is its cards plus a declared reading (type and key). ``readings`` lists
every valid declaration of a set of cards; the engine never guesses one.

>>> [c.text() for c in readings(parse_cards("S7 D7 C7 H2 H2"), "2")]
['full_house:7 H2 H2 S7 C7 D7', 'bomb:7 H2 H2 S7 C7 D7']
>>> beats(Combo.from_text("single:2 S2"), Combo.from_text("single:A SA"), "2")
True
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from .cards import (
    HR,
    RANK_INDEX,
    RANK_OF,
    RANK_TOKENS,
    SB,
    SUIT_OF,
    format_cards,
    level_index,
    parse_cards,
)

SINGLE = "single"
PAIR = "pair"
TRIPLE = "triple"
FULL_HOUSE = "full_house"
STRAIGHT = "straight"
TUBE = "tube"
PLATE = "plate"
BOMB = "bomb"
STRAIGHT_FLUSH = "straight_flush"
JOKER_BOMB = "joker_bomb"

#: every combination type, in the order plays are listed
COMBO_TYPES: tuple[str, ...] = (
    SINGLE,
    PAIR,
    TRIPLE,
    FULL_HOUSE,
    STRAIGHT,
    TUBE,
    PLATE,
    BOMB,
    STRAIGHT_FLUSH,
    JOKER_BOMB,
)
TYPE_ORDER = {t: i for i, t in enumerate(COMBO_TYPES)}
#: the exact sizes of each type (rules.md §4)
SIZES: dict[str, tuple[int, ...]] = {
    SINGLE: (1,),
    PAIR: (2,),
    TRIPLE: (3,),
    FULL_HOUSE: (5,),
    STRAIGHT: (5,),
    TUBE: (6,),
    PLATE: (6,),
    BOMB: tuple(range(4, 11)),
    STRAIGHT_FLUSH: (5,),
    JOKER_BOMB: (4,),
}
#: types compared by power (level rank lifted above A)
POWER_TYPES = frozenset((SINGLE, PAIR, TRIPLE, FULL_HOUSE, BOMB))
#: types compared by natural top rank
SEQUENCE_TYPES = frozenset((STRAIGHT, TUBE, PLATE, STRAIGHT_FLUSH))
BOMB_CLASS = frozenset((BOMB, STRAIGHT_FLUSH, JOKER_BOMB))

#: POWER[level][rank]: power of a rank index at a level index (2 < … < A < level < SB < HR)
POWER: tuple[tuple[int, ...], ...] = tuple(
    tuple(13 if r == lv else (r if r < 13 else r + 1) for r in range(15)) for lv in range(13)
)


#: window start -1 stands for A (the A-low sequences A2345, AA2233, AAA222)
def _windows(length: int) -> tuple[tuple[int, tuple[int, ...]], ...]:
    out = []
    for start in range(-1, 14 - length):
        ranks = tuple((start + i) % 13 for i in range(length))
        out.append((start + length - 1, ranks))
    return tuple(out)


#: (top rank, ranks) for every straight, tube and plate window
STRAIGHT_WINDOWS = _windows(5)
TUBE_WINDOWS = _windows(3)
PLATE_WINDOWS = _windows(2)


class Combo(NamedTuple):
    """A declared play: type, key rank index and the faces played (sorted).

    ``key`` is the rank token (``2``…``A``, ``SB``/``HR``); ``rank`` the same as an int.
    The text form round-trips:

    >>> c = Combo.from_text("tube:5 S3 H4 D4 C5 S5 H2")
    >>> c.type, c.key, c.size
    ('tube', '5', 6)
    >>> Combo.from_text(c.text()) == c
    True
    """

    type: str
    rank: int
    cards: tuple[int, ...]

    @property
    def key(self) -> str:
        return RANK_TOKENS[self.rank]

    @property
    def size(self) -> int:
        return len(self.cards)

    def text(self, symbols: bool = False) -> str:
        """``type:key cards``, e.g. ``pair:7 S7 D7``."""
        return f"{self.type}:{RANK_TOKENS[self.rank]} {format_cards(self.cards, symbols)}"

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        return f"Combo.from_text({self.text()!r})"

    @classmethod
    def make(cls, type: str, key: str | int, cards: Iterable[int]) -> Combo:
        """Build a combo from a type, a key (token or rank index) and faces (sorted here).

        The number of cards must be one the type allows (rules.md §4); whether the
        cards really read as the declared type and key depends on the level: see
        :func:`check_declared`.

        >>> Combo.make("pair", "3", [4])
        Traceback (most recent call last):
        ...
        ValueError: a pair is exactly 2 cards (rules.md §4), got 1
        """
        if type not in TYPE_ORDER:
            raise ValueError(f"unknown combination type {type!r}: expected one of {', '.join(COMBO_TYPES)}")
        rank = key if isinstance(key, int) else _parse_key(key)
        faces = tuple(sorted(cards))
        sizes = SIZES[type]
        if len(faces) not in sizes:
            exact = f"exactly {sizes[0]}" if len(sizes) == 1 else f"{sizes[0]} to {sizes[-1]}"
            noun = "card" if sizes[-1] == 1 else "cards"
            raise ValueError(f"a {type.replace('_', ' ')} is {exact} {noun} (rules.md §4), got {len(faces)}")
        return cls(type, rank, faces)

    @classmethod
    def from_text(cls, text: str) -> Combo:
        """Parse ``type:key cards`` (the inverse of ``text()``).

        A malformed text raises ``ValueError`` naming the text (a bad card token
        raises ``CardParseError``, a ``ValueError``, naming both).
        """
        head, _, rest = text.strip().partition(" ")
        type_, sep, key = head.partition(":")
        if not sep:
            raise ValueError(f"bad combo {text!r}: expected 'type:key cards', e.g. 'pair:7 S7 D7'")
        try:
            cards = parse_cards(rest)
            if not cards:
                raise ValueError("no cards")
            combo = cls.make(type_, key, cards)
        except ValueError as exc:
            raise type(exc)(f"bad combo {text!r}: {exc}") from None
        return combo


def _parse_key(key: str) -> int:
    tok = key.strip().upper()
    if tok == "10":
        tok = "T"
    if tok not in RANK_INDEX:
        raise ValueError(f"bad combo key {key!r}: expected a rank token 2-9/T/J/Q/K/A or SB/HR")
    return RANK_INDEX[tok]


def bomb_value(combo: Combo, level: int) -> int:
    """Rank of a play within the bomb class (0 for non-bombs); higher beats lower.

    4-card < 5-card < straight flush < 6-card < … < 10-card < joker bomb.
    """
    t = combo[0]
    if t == BOMB:
        n = len(combo[2])
        tier = n - 3 if n <= 5 else n - 2  # 4→1, 5→2, (sf 3), 6→4 … 10→8
        return tier * 100 + POWER[level][combo[1]]
    if t == STRAIGHT_FLUSH:
        return 300 + combo[1]
    if t == JOKER_BOMB:
        return 900
    return 0


def beats(play: Combo, top: Combo, level: str | int) -> bool:
    """Whether ``play`` beats ``top`` at ``level`` (rules.md §5). Equal never beats.

    >>> beats(Combo.from_text("bomb:3 S3 S3 H3 C3 C3 D3"), Combo.from_text("straight_flush:A ST SJ SQ SK SA"), "2")
    True
    """
    lv = level_index(level)
    pb = bomb_value(play, lv)
    tb = bomb_value(top, lv)
    if pb:
        return pb > tb
    if tb or play[0] != top[0] or len(play[2]) != len(top[2]):
        return False
    if play[0] in SEQUENCE_TYPES:
        return play[1] > top[1]
    pw = POWER[lv]
    return pw[play[1]] > pw[top[1]]


def check_declared(combo: Combo, level: str | int) -> Combo:
    """``combo`` if its cards read as its declared type and key at ``level``, else ValueError.

    >>> check_declared(Combo.from_text("pair:3 S3 D3"), "2").text()
    'pair:3 S3 D3'
    >>> check_declared(Combo.from_text("pair:4 S3 D3"), "2")
    Traceback (most recent call last):
    ...
    ValueError: 'pair:4 S3 D3' is no valid reading of its cards at level 2 (rules.md §4, §6); they read as: pair:3 S3 D3
    """
    found = readings(combo.cards, level)
    if not any(r[0] == combo[0] and r[1] == combo[1] for r in found):
        level_text = level if isinstance(level, str) else RANK_TOKENS[level]
        options = ", ".join(r.text() for r in found) or "no combination"
        raise ValueError(
            f"{combo.text()!r} is no valid reading of its cards at level {level_text.upper()} "
            f"(rules.md §4, §6); they read as: {options}"
        )
    return combo


def readings(cards: Iterable[int], level: str | int) -> list[Combo]:
    """Every valid declaration of exactly these cards, each (type, key, size) once.

    Empty when the cards form no combination.

    >>> [c.text() for c in readings(parse_cards("S3 H4 D4 C5 S5 H2"), "2")]
    ['tube:5 H2 S3 H4 D4 S5 C5']
    >>> readings(parse_cards("SB HR"), "2")
    []
    """
    lv = level_index(level)
    faces = tuple(sorted(cards))
    found = [(t, r) for t, r in _classify(faces, lv)]
    found.sort(key=lambda tr: (TYPE_ORDER[tr[0]], tr[1]))
    return [Combo(t, r, faces) for t, r in found]


def _classify(faces: tuple[int, ...], lv: int) -> set[tuple[str, int]]:
    n = len(faces)
    out: set[tuple[str, int]] = set()
    if n == 0 or n > 10:
        return out
    wild = lv * 4 + 1
    w = faces.count(wild)
    nat = [f for f in faces if f != wild]
    counts: dict[int, int] = {}
    for f in nat:
        r = RANK_OF[f]
        counts[r] = counts.get(r, 0) + 1
    jokers = counts.get(13, 0) + counts.get(14, 0)
    if n == 1:
        out.add((SINGLE, RANK_OF[faces[0]]))
        return out
    # same-rank combinations (pair, triple, bomb); wilds fill non-joker ranks
    if len(counts) == 0:  # only wilds: two wilds alone are a level pair
        if n == 2:
            out.add((PAIR, lv))
        return out
    if len(counts) == 1:
        (r,) = counts
        if r >= 13:  # jokers: only a natural joker pair
            if n == 2 and w == 0:
                out.add((PAIR, r))
        elif n == 2:
            out.add((PAIR, r))
        elif n == 3:
            out.add((TRIPLE, r))
        elif n >= 4:
            out.add((BOMB, r))
    if n == 4 and w == 0 and faces == (SB, SB, HR, HR):
        out.add((JOKER_BOMB, 14))
    if n == 5:
        _classify_full_house(counts, w, out)
        if jokers == 0 and len(counts) == len(nat):
            present = set(counts)
            suits = {SUIT_OF[f] for f in nat}
            for top, ranks in STRAIGHT_WINDOWS:
                if present.issubset(ranks):
                    out.add((STRAIGHT, top))
                    if len(suits) == 1:
                        out.add((STRAIGHT_FLUSH, top))
    if n == 6 and jokers == 0:
        present = set(counts)
        if all(c <= 2 for c in counts.values()):
            for top, ranks in TUBE_WINDOWS:
                if present.issubset(ranks):
                    out.add((TUBE, top))
        if all(c <= 3 for c in counts.values()):
            for top, ranks in PLATE_WINDOWS:
                if present.issubset(ranks):
                    out.add((PLATE, top))
    return out


def _classify_full_house(counts: dict[int, int], w: int, out: set) -> None:
    for t, ct in counts.items():
        if t >= 13 or ct > 3:
            continue
        need_t = 3 - ct
        rest = [(r, c) for r, c in counts.items() if r != t]
        if not rest:
            if need_t + 2 == w:  # the pair is two wilds
                out.add((FULL_HOUSE, t))
            continue
        if len(rest) != 1:
            continue
        p, cp = rest[0]
        if cp > 2:
            continue
        if p >= 13:
            if cp == 2 and need_t == w:
                out.add((FULL_HOUSE, t))
        elif need_t + (2 - cp) == w:
            out.add((FULL_HOUSE, t))

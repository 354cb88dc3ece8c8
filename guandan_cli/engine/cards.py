"""Cards as small ints, with one parse/format pair.

A *face* is an int 0..53: ``rank * 4 + suit`` for the 52 suited cards (rank 0..12
for ``2``..``A``, suit 0..3 for ``S H C D``), then ``52`` = small joker ``SB`` and
``53`` = big joker ``HR``. Sorting faces sorts by rank, then suit. A hand is a
multiset of faces (each face at most twice in a 108-card deal).

>>> parse_cards("S3 h4 ♦4 C10 SB")
(4, 9, 11, 34, 52)
>>> format_cards((4, 9, 11, 34, 52))
'S3 H4 D4 CT SB'
>>> format_cards((4, 53), symbols=True)
'♠3 大王'
"""

from __future__ import annotations

import operator
import random
from collections.abc import Iterable
from typing import SupportsIndex

RANKS = "23456789TJQKA"
SUITS = "SHCD"
SUIT_SYMBOLS = "♠♥♣♦"
SB = 52  # small joker (小王)
HR = 53  # big joker (大王)
N_FACES = 54
JOKER_RANK_SB = 13
JOKER_RANK_HR = 14

#: rank index of each face: 0..12 for 2..A, 13 for SB, 14 for HR
RANK_OF: tuple[int, ...] = tuple([f >> 2 for f in range(52)] + [JOKER_RANK_SB, JOKER_RANK_HR])
#: suit index of each face (0..3), -1 for jokers
SUIT_OF: tuple[int, ...] = tuple([f & 3 for f in range(52)] + [-1, -1])
#: rank tokens by rank index, jokers included
RANK_TOKENS: tuple[str, ...] = tuple(RANKS) + ("SB", "HR")
RANK_INDEX: dict[str, int] = {tok: i for i, tok in enumerate(RANK_TOKENS)}

FACE_NAMES: tuple[str, ...] = tuple([SUITS[f & 3] + RANKS[f >> 2] for f in range(52)] + ["SB", "HR"])
FACE_SYMBOLS: tuple[str, ...] = tuple(
    [SUIT_SYMBOLS[f & 3] + ("10" if RANKS[f >> 2] == "T" else RANKS[f >> 2]) for f in range(52)]
    + ["小王", "大王"]
)


class CardParseError(ValueError):
    """A card token that is not in the notation of rules.md §2, or a third copy of a card."""


#: copies of each face in the 108-card deal (two decks, rules.md §1)
COPIES = 2


def _build_token_table() -> dict[str, int]:
    table: dict[str, int] = {}
    suit_spellings = {0: ("S", "s", "♠"), 1: ("H", "h", "♥"), 2: ("C", "c", "♣"), 3: ("D", "d", "♦")}
    for f in range(52):
        rank = RANKS[f >> 2]
        rank_spellings = {rank, rank.lower()}
        if rank == "T":
            rank_spellings.add("10")
        for s in suit_spellings[f & 3]:
            for r in rank_spellings:
                table[s + r] = f
    for tok in ("SB", "sb", "Sb", "sB", "小王"):
        table[tok] = SB
    for tok in ("HR", "hr", "Hr", "hR", "大王"):
        table[tok] = HR
    return table


_TOKENS = _build_token_table()


def parse_card(token: str, position: int = 1) -> int:
    """Parse one card token (``S3``, ``hT``, ``♥10``, ``SB``) into a face int; an error names
    the token and its ``position`` (counted from 1, as a person counts cards).

    >>> parse_card("HR")
    53
    """
    face = _TOKENS.get(token)
    if face is None:
        raise CardParseError(
            f"bad card token {token!r} at position {position}: expected suit S/H/C/D (or ♠♥♣♦) "
            f"+ rank 2-9/T/10/J/Q/K/A, or SB/HR for the jokers"
        )
    return face


def parse_cards(text: str | Iterable[str]) -> tuple[int, ...]:
    """Parse cards separated by spaces (or commas) into a sorted tuple of faces.

    Two decks hold two copies of each face, so a third copy is an error naming the
    token and its position, counted from 1 (rules.md §1).

    >>> parse_cards("S3 H4 D4 C5 S5 H2")
    (1, 4, 9, 11, 12, 14)
    >>> parse_cards("SB SB SB")
    Traceback (most recent call last):
    ...
    guandan_cli.engine.cards.CardParseError: card 'SB' at position 3 is a third SB: two decks hold at most 2 copies of a card
    """
    if isinstance(text, str):
        tokens = text.replace(",", " ").split()
    else:
        tokens = list(text)
    faces = [parse_card(tok, i) for i, tok in enumerate(tokens, 1)]
    if len(faces) > COPIES:
        seen = [0] * N_FACES
        for i, face in enumerate(faces):
            seen[face] += 1
            if seen[face] > COPIES:
                raise CardParseError(
                    f"card {tokens[i]!r} at position {i + 1} is a third {FACE_NAMES[face]}: "
                    f"two decks hold at most {COPIES} copies of a card"
                )
    return tuple(sorted(faces))


class InvalidHandError(ValueError):
    """A hand that two decks cannot deal: a face that is not 0..53, or more than 2 copies."""


def hand_problem(hand) -> str | None:
    """Why ``hand`` (faces) is no hand of two decks, or ``None``.

    >>> hand_problem(parse_cards("S3 S3 H2")) is None
    True
    >>> hand_problem((0, 0, 0, 0))
    'hand holds 4 copies of S2: two decks hold at most 2'
    >>> hand_problem((3, 54))
    'hand holds 54, not a card (faces are whole numbers 0..53)'
    """
    seen: dict[int, int] = {}
    for f in hand:
        if type(f) is not int or not 0 <= f < len(FACE_NAMES):
            return f"hand holds {f!r}, not a card (faces are whole numbers 0..{len(FACE_NAMES) - 1})"
        seen[f] = seen.get(f, 0) + 1
    for f, n in seen.items():
        if n > 2:
            return f"hand holds {n} copies of {FACE_NAMES[f]}: two decks hold at most 2"
    return None


def format_card(face: int, symbols: bool = False) -> str:
    """Format one face: ``S3`` (or ``♠3`` with ``symbols=True``)."""
    return FACE_SYMBOLS[face] if symbols else FACE_NAMES[face]


def format_cards(cards: Iterable[int], symbols: bool = False) -> str:
    """Format faces separated by spaces, in the given order."""
    names = FACE_SYMBOLS if symbols else FACE_NAMES
    return " ".join(names[f] for f in cards)


def rank_index(token: str) -> int:
    """Rank index of a rank token (``2``..``A``, ``10`` for ``T``, ``SB``, ``HR``)."""
    tok = token.strip().upper()
    if tok == "10":
        tok = "T"
    try:
        return RANK_INDEX[tok]
    except KeyError:
        raise ValueError(f"bad rank token {token!r}: expected one of {' '.join(RANK_TOKENS)}") from None


def level_index(level: str | SupportsIndex) -> int:
    """Rank index 0..12 of a level given as a token (``2``..``A``) or an index.

    An index may be any integer type (a numpy integer from an array goes through
    ``operator.index``): the compiled engine takes only a Python int.

    >>> level_index("T")
    8
    >>> level_index(2.0)
    Traceback (most recent call last):
    ...
    TypeError: bad level 2.0: a level is a token 2..A (str) or an index 0..12 (int)
    >>> level_index("x")
    Traceback (most recent call last):
    ...
    ValueError: bad level 'x': a level is one of 2 3 4 5 6 7 8 9 T J Q K A (10 for T also works)
    """
    if not isinstance(level, str):
        try:
            lv = operator.index(level)
        except TypeError:
            raise TypeError(
                f"bad level {level!r}: a level is a token 2..A (str) or an index 0..12 (int)"
            ) from None
        if 0 <= lv <= 12:
            return lv
        raise ValueError(f"bad level {level!r}: a level index is 0..12 (2..A)")
    try:
        idx = rank_index(level)
    except ValueError:  # (its message offers SB and HR, which are no levels)
        idx = 13
    if idx > 12:
        raise ValueError(f"bad level {level!r}: a level is one of {' '.join(RANKS)} (10 for T also works)")
    return idx


def wild_face(level: int) -> int:
    """The face of the wild card (♥ level card) at a level index."""
    return level * 4 + 1


def full_deck() -> list[int]:
    """The 108 faces of two decks, sorted."""
    return sorted(list(range(N_FACES)) * 2)


#: the two decks in order, and per swap of ``random.Random.shuffle`` over them (last card
#: first): the position, the number of cards it draws among, and that number's bit length
_DECK = tuple(full_deck())
_SWAPS = tuple((i, i + 1, (i + 1).bit_length()) for i in reversed(range(1, len(_DECK))))


def _shuffle(rng: random.Random, deck: list[int]) -> None:
    """``rng.shuffle(deck)`` written out for a plain ``random.Random``: the same draws
    (``getrandbits`` of the bound's bit length, redrawn while out of range, as
    ``Random._randbelow`` does) and the same swaps, without two method calls per card."""
    getrandbits = rng.getrandbits
    for i, n, k in _SWAPS:
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        deck[i], deck[j] = deck[j], deck[i]


def _same_as_shuffle() -> bool:
    """Whether ``_shuffle`` gives this Python's ``Random.shuffle`` order (checked once, on a
    few seeds: another Python could draw differently, and then ``rng.shuffle`` is used)."""
    for seed in (0, 1, 2, 12345):
        a, b = list(_DECK), list(_DECK)
        random.Random(seed).shuffle(a)
        _shuffle(random.Random(seed), b)
        if a != b:
            return False
    return True


_FAST_SHUFFLE = _same_as_shuffle()


def deal_hands(rng) -> tuple[tuple[int, ...], ...]:
    """Shuffle two decks with ``rng`` (a ``random.Random``) into four sorted 27-card hands."""
    deck = list(_DECK)
    if type(rng) is random.Random and _FAST_SHUFFLE:
        _shuffle(rng, deck)
    else:
        rng.shuffle(deck)
    return tuple(tuple(sorted(deck[i * 27 : (i + 1) * 27])) for i in range(4))

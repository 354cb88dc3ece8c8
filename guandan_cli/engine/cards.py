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

from collections.abc import Callable, Iterable

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


def parse_card(token: str, position: int = 0) -> int:
    """Parse one card token (``S3``, ``hT``, ``♥10``, ``SB``) into a face int.

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
    token and its position (rules.md §1).

    >>> parse_cards("S3 H4 D4 C5 S5 H2")
    (1, 4, 9, 11, 12, 14)
    >>> parse_cards("SB SB SB")
    Traceback (most recent call last):
    ...
    guandan_cli.engine.cards.CardParseError: card 'SB' at position 2 is a third SB: two decks hold at most 2 copies of a card
    """
    if isinstance(text, str):
        tokens = text.replace(",", " ").split()
    else:
        tokens = list(text)
    faces = [parse_card(tok, i) for i, tok in enumerate(tokens)]
    if len(faces) > COPIES:
        seen = [0] * N_FACES
        for i, face in enumerate(faces):
            seen[face] += 1
            if seen[face] > COPIES:
                raise CardParseError(
                    f"card {tokens[i]!r} at position {i} is a third {FACE_NAMES[face]}: "
                    f"two decks hold at most {COPIES} copies of a card"
                )
    return tuple(sorted(faces))


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


def level_index(level: str | int) -> int:
    """Rank index 0..12 of a level given as a token (``2``..``A``) or an index.

    >>> level_index("T")
    8
    """
    if isinstance(level, int):
        if 0 <= level <= 12:
            return level
        raise ValueError(f"bad level {level!r}: a level index is 0..12 (2..A)")
    idx = rank_index(level)
    if idx > 12:
        raise ValueError(f"bad level {level!r}: a level is one of {RANKS}")
    return idx


def wild_face(level: int) -> int:
    """The face of the wild card (♥ level card) at a level index."""
    return level * 4 + 1


def full_deck() -> list[int]:
    """The 108 faces of two decks, sorted."""
    return sorted(list(range(N_FACES)) * 2)


_FULL_DECK = tuple(full_deck())
#: ``32 - n.bit_length()`` for ``n = i + 1``: ``getrandbits(n.bit_length())`` is one 32-bit
#: output of the generator shifted right by this much
_SHIFTS = tuple(32 - (i + 1).bit_length() for i in range(len(_FULL_DECK)))
_UNPACK: dict[int, Callable] = {}
#: ``[random.Random]`` when ``_shuffle`` gives ``Random.shuffle``'s order here, else ``[None]``
#: (decided on first use: ``random`` and ``struct`` are imported then, not with the cards)
_FAST_TYPE: list = []


def _words(getrandbits: Callable[[int], int], n: int) -> tuple[int, ...]:
    """The generator's next ``n`` 32-bit outputs, in the order ``getrandbits(32)`` gives them
    (``getrandbits(32 * n)`` holds them from the least significant bits up)."""
    unpack = _UNPACK.get(n)
    if unpack is None:
        import struct

        unpack = _UNPACK[n] = struct.Struct(f"<{n}I").unpack
    return unpack(getrandbits(32 * n).to_bytes(4 * n, "little"))


def _shuffle(deck: list[int], getrandbits: Callable[[int], int]) -> None:
    """``random.Random.shuffle(deck)``, drawing the same outputs, for up to 108 cards.

    ``shuffle`` swaps item ``i`` (from the last down to 1) with item ``_randbelow(i + 1)``,
    which takes ``getrandbits(k)`` (``k`` the bit length of ``i + 1``: one 32-bit output's
    top ``k`` bits) until the value is below ``i + 1``. Each of the ``i`` swaps left takes
    at least one output, so ``i`` outputs are drawn at a time: never one more than
    ``shuffle`` draws, and the generator ends in the same state.
    """
    i = len(deck) - 1
    shifts = _SHIFTS
    while i:
        for word in _words(getrandbits, i):
            j = word >> shifts[i]
            if j <= i:
                deck[i], deck[j] = deck[j], deck[i]
                i -= 1


def _fast_type() -> type | None:
    """``random.Random`` if ``_shuffle`` gives ``Random.shuffle``'s cards and state on this
    Python (a few seeds), else ``None``."""
    import random

    for seed in (0, 1, 2**40 + 3):
        a, b = random.Random(seed), random.Random(seed)
        ours, theirs = list(_FULL_DECK), list(_FULL_DECK)
        _shuffle(ours, a.getrandbits)
        b.shuffle(theirs)
        if ours != theirs or a.getstate() != b.getstate():
            return None
    return random.Random


def deal_hands(rng) -> tuple[tuple[int, ...], ...]:
    """Shuffle two decks with ``rng`` (a ``random.Random``) into four sorted 27-card hands.

    ``rng.shuffle(deck)`` of the sorted deck, dealt 27 by 27; for a plain ``random.Random``
    the same shuffle is done by ``_shuffle`` (the same cards and generator state, faster).

    >>> import random
    >>> deal_hands(random.Random(5)) == _dealt_by_shuffle(random.Random(5))
    True
    """
    if not _FAST_TYPE:
        _FAST_TYPE.append(_fast_type())
    if type(rng) is _FAST_TYPE[0]:
        deck = list(_FULL_DECK)
        _shuffle(deck, rng.getrandbits)
        return (
            tuple(sorted(deck[:27])),
            tuple(sorted(deck[27:54])),
            tuple(sorted(deck[54:81])),
            tuple(sorted(deck[81:])),
        )
    return _dealt_by_shuffle(rng)


def _dealt_by_shuffle(rng) -> tuple[tuple[int, ...], ...]:
    """``deal_hands`` through ``rng.shuffle`` (the reference)."""
    deck = full_deck()
    rng.shuffle(deck)
    return tuple(tuple(sorted(deck[i * 27 : (i + 1) * 27])) for i in range(4))

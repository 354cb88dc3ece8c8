"""Our plays ⇄ the competition platform's moves ``[type, rank, cards]``, and its ``actionList`` order.

The NJUPT platform (docs/protocol.md) writes a card as two characters (suit ``S H C D``
then rank ``2..9 T J Q K A``; ``SB``/``HR`` the jokers), which are our card names. A move
is ``[type, rank, cards]``: the rank token is the key rank for same-rank types (``B``/``R``
for a joker single or pair, ``JOKER`` for the joker bomb) and the **lowest** rank for
sequences (``A`` for the A-low ones), where our ``Combo`` keys sequences by the top.

>>> from guandan_cli.engine.combos import Combo
>>> to_move(Combo.from_text("straight:6 H2 S3 H4 D5 C6"))
['Straight', '2', ['H2', 'S3', 'H4', 'D5', 'C6']]
>>> to_move(Combo.from_text("tube:3 SA HA S2 D2 C3 D3"))
['ThreePair', 'A', ['S2', 'D2', 'C3', 'D3', 'SA', 'HA']]
>>> from_move(['ThreePair', 'A', ['S2', 'D2', 'C3', 'D3', 'SA', 'HA']], 0).text()
'tube:3 S2 D2 C3 D3 SA HA'
>>> to_move(PASS)
['PASS', 'PASS', 'PASS']
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from guandan_cli.engine.cards import FACE_NAMES, RANK_OF, RANKS, SUIT_OF, parse_card
from guandan_cli.engine.combos import (
    BOMB,
    FULL_HOUSE,
    JOKER_BOMB,
    PAIR,
    PLATE,
    POWER,
    SINGLE,
    STRAIGHT,
    STRAIGHT_FLUSH,
    TRIPLE,
    TUBE,
    Combo,
    readings,
)
from guandan_cli.engine.deal import PASS
from guandan_cli.engine.legal import all_plays

#: our combination type -> the platform's type token
TYPE_TOKEN = {
    SINGLE: "Single",
    PAIR: "Pair",
    TRIPLE: "Trips",
    FULL_HOUSE: "ThreeWithTwo",
    STRAIGHT: "Straight",
    TUBE: "ThreePair",
    PLATE: "TwoTrips",
    BOMB: "Bomb",
    STRAIGHT_FLUSH: "StraightFlush",
    JOKER_BOMB: "Bomb",
}
OUR_TYPE = {v: k for k, v in TYPE_TOKEN.items() if k != JOKER_BOMB}
#: cards in a sequence of each type (the rank token is its lowest rank)
SEQUENCE_LENGTH = {STRAIGHT: 5, STRAIGHT_FLUSH: 5, TUBE: 3, PLATE: 2}
PASS_MOVE = ["PASS", "PASS", "PASS"]
NO_MOVE = [None, None, None]
#: rank tokens by rank index (jokers as the platform writes them in a single or pair)
RANK_TOKEN = tuple(RANKS) + ("B", "R")
_RANK_OF_TOKEN = {t: i for i, t in enumerate(RANK_TOKEN)}

#: the platform's listing order of types (bombs are ordered by ``_bomb_group``)
_LIST_GROUP = {SINGLE: 0, PAIR: 1, TRIPLE: 2, TUBE: 3, FULL_HOUSE: 4, PLATE: 5, STRAIGHT: 6}


class MoveError(ValueError):
    """A platform move that names no valid play of ours."""


def card_token(face: int) -> str:
    """The platform's token of a card (our card name).

    >>> card_token(53), card_token(34)
    ('HR', 'CT')
    """
    return FACE_NAMES[face]


def card_face(token: str) -> int:
    """The face of a platform card token (``SB``, ``HT``…); ``MoveError`` if it is none."""
    if not isinstance(token, str) or len(token) != 2:
        raise MoveError(f"bad card {token!r}: a card is two characters, e.g. 'S3', 'HT', 'SB'")
    try:
        return parse_card(token)
    except ValueError:
        raise MoveError(f"bad card {token!r}: expected suit S/H/C/D + rank 2-9/T/J/Q/K/A, or SB/HR") from None


def level_token(level: int) -> str:
    """A level (rank index 0..12) as the platform writes it (``'2'``..``'A'``)."""
    return RANKS[level]


def level_of_token(token: str) -> int:
    """The rank index of a level token ``'2'``..``'A'``."""
    i = RANKS.find(token) if isinstance(token, str) and len(token) == 1 else -1
    if i < 0:
        raise MoveError(f"bad level {token!r}: expected one of {' '.join(RANKS)}")
    return i


def sort_by_power(cards: Iterable[int], level: int) -> list[int]:
    """Cards in the platform's ``handCards`` order: by power (level rank above A), then by face."""
    pw = POWER[level]
    return sorted(cards, key=lambda f: (pw[RANK_OF[f]], f))


def to_move(combo: Combo) -> list:
    """Our play (or ``PASS``) as the platform's ``[type, rank, cards]``."""
    t = combo[0]
    if t == "pass":
        return list(PASS_MOVE)
    cards = [FACE_NAMES[f] for f in combo[2]]
    if t == JOKER_BOMB:
        return ["Bomb", "JOKER", cards]
    n = SEQUENCE_LENGTH.get(t)
    rank = combo[1] if n is None else (combo[1] - n + 1) % 13
    return [TYPE_TOKEN[t], RANK_TOKEN[rank], cards]


def from_move(move: object, level: int) -> Combo:
    """The platform's ``[type, rank, cards]`` (``PASS`` included) as our ``Combo``.

    Raises ``MoveError`` naming the move when it is malformed or its cards do not form
    the declared type and rank at ``level``.
    """
    if not isinstance(move, (list, tuple)) or len(move) != 3:
        raise MoveError(f"bad move {move!r}: expected [type, rank, cards]")
    type_tok, rank_tok, cards_tok = move
    if type_tok == "PASS":
        return PASS
    if not isinstance(cards_tok, (list, tuple)) or not cards_tok:
        raise MoveError(f"bad move {move!r}: cards must be a non-empty list")
    faces = tuple(sorted(card_face(c) for c in cards_tok))
    if type_tok == "Bomb" and rank_tok == "JOKER":
        t, key = JOKER_BOMB, 14
    else:
        t = OUR_TYPE.get(type_tok) if isinstance(type_tok, str) else None
        rank = _RANK_OF_TOKEN.get(rank_tok) if isinstance(rank_tok, str) else None
        if t is None or rank is None:
            raise MoveError(f"bad move {move!r}: unknown type or rank token")
        n = SEQUENCE_LENGTH.get(t)
        if n is None:
            key = rank
        else:
            if rank > 12:
                raise MoveError(f"bad move {move!r}: a sequence starts at a rank 2..A")
            key = n - 2 if rank == 12 else rank + n - 1  # A-low: the A stands below the 2
    combo = Combo(t, key, faces)
    if combo not in readings(faces, level):
        raise MoveError(f"bad move {move!r}: these cards do not form that {type_tok} at level {RANKS[level]}")
    return combo


def tribute_move(face: int) -> list:
    return ["tribute", "tribute", [FACE_NAMES[face]]]


def back_move(face: int) -> list:
    return ["back", "back", [FACE_NAMES[face]]]


def completed_by_wild(combo: Combo, level: int) -> bool:
    """Whether a straight flush uses a ♥ level card for another rank (the platform lists those
    five cards only as a ``Straight``). A ♥ level card in a ♥ straight flush at its own rank
    is natural.

    >>> from guandan_cli.engine.combos import Combo
    >>> completed_by_wild(Combo.from_text("straight_flush:7 S3 S4 S5 H2 S7"), 0)
    True
    >>> completed_by_wild(Combo.from_text("straight_flush:6 H2 H3 H4 H5 H6"), 0)
    False
    """
    if combo[0] != STRAIGHT_FLUSH:
        return False
    wild = level * 4 + 1
    w = combo[2].count(wild)
    if not w:
        return False
    natural_ranks = {RANK_OF[f] for f in combo[2] if f != wild}
    suit = next((SUIT_OF[f] for f in combo[2] if f != wild), 1)
    window = {(combo[1] - i) % 13 for i in range(5)}
    own = suit == 1 and level in window and level not in natural_ranks
    return w > (1 if own else 0)


def _list_key(c: Combo, level: int) -> tuple:
    """The platform's order: Single, Pair, Trips, ThreePair, ThreeWithTwo, TwoTrips, Straight
    (by power, sequences by lowest rank), then bombs: 4, 5 cards, straight flush, 6..10 cards,
    joker bomb."""
    t, key, cards = c
    pw = POWER[level]
    wild = level * 4 + 1
    tail = (cards.count(wild), cards)
    group = _LIST_GROUP.get(t)
    if group is not None:
        n = SEQUENCE_LENGTH.get(t)
        if n is not None:
            return (group, key, 0, *tail)
        if t == FULL_HOUSE:
            pair = next((RANK_OF[f] for f in cards if f != wild and RANK_OF[f] != key), level)
            return (group, pw[key], pw[pair], *tail)
        return (group, pw[key], 0, *tail)
    n = len(cards)
    if t == BOMB:
        return (10 + (n if n <= 5 else n + 1), pw[key], 0, *tail)
    if t == STRAIGHT_FLUSH:
        return (16, key, 0, *tail)
    return (30, 0, 0, *tail)  # joker bomb


def action_list(
    hand: Sequence[int], level: int, top: Combo | None, wild_straight_flush: bool = True
) -> list[Combo]:
    """Every concrete play the platform lists, in its order: ``PASS`` first when following.

    ``wild_straight_flush=False`` leaves out straight flushes completed by a wild card
    (the platform's listing; docs/protocol.md).
    """
    plays = list(all_plays(hand, level, top))
    if not wild_straight_flush:
        plays = [c for c in plays if not completed_by_wild(c, level)]
    plays.sort(key=lambda c: _list_key(c, level))
    return ([PASS] if top is not None else []) + plays


__all__ = [
    "MoveError",
    "NO_MOVE",
    "PASS_MOVE",
    "action_list",
    "back_move",
    "card_face",
    "card_token",
    "completed_by_wild",
    "from_move",
    "level_of_token",
    "level_token",
    "sort_by_power",
    "to_move",
    "tribute_move",
]

"""The fixed action space of the environments: one index per abstract action.

The engine lists, for the seat to move, one concrete card choice per (type, key,
size) — full houses once per attached pair — plus ``PASS`` when following, or the
cards allowed in the tribute and return phases (``Deal.legal_actions``). Each of
those maps to exactly one index here, so a mask over ``N_ACTIONS`` values says
which are legal, and an index names the engine's card choice for it.

=========================  =====  =======================================================
indices                    count  meaning
=========================  =====  =======================================================
0                          1      pass
1 .. 15                    15     single of rank r (2..A, SB, HR): ``1 + r``
16 .. 30                   15     pair of rank r: ``16 + r``
31 .. 43                   13     triple of rank r (2..A)
44 .. 251                  208    full house, triple rank t, pair p: ``44 + 16 t + p``;
                                  p is the natural rank of the pair (0..14) or 15 when
                                  the pair is two wild cards
252 .. 261                 10     straight with top 5..A: ``252 + top - 3``
262 .. 273                 12     tube (three pairs) with top 3..A: ``262 + top - 1``
274 .. 286                 13     plate (two triples) with top 2..A: ``274 + top``
287 .. 377                 91     bomb of rank r and n cards (4..10): ``287 + 7 r + n - 4``
378 .. 387                 10     straight flush with top 5..A: ``378 + top - 3``
388                        1      joker bomb
389 .. 442                 54     tribute or return of the card (face) f: ``389 + f``
=========================  =====  =======================================================

Ranks are the engine's rank indices (0 = 2 … 12 = A, 13 = SB, 14 = HR); the key of
a straight-like play is its top rank (A-2-3-4-5 has top 5, i.e. 3).

>>> from guandan_cli.engine import Combo
>>> action_index(Combo.from_text("pair:7 S7 D7"), 0)
21
>>> action_index(Combo.from_text("full_house:7 S7 H7 D7 SK DK"), 0) == 44 + 16 * 5 + 11
True
>>> describe_index(389 + 53)
'card HR'
"""

from __future__ import annotations

from guandan_cli.engine.cards import FACE_NAMES, RANK_OF, RANK_TOKENS
from guandan_cli.engine.combos import Combo
from guandan_cli.engine.deal import PASS

PASS_INDEX = 0
SINGLE_BASE = 1
PAIR_BASE = 16
TRIPLE_BASE = 31
FULL_HOUSE_BASE = 44
STRAIGHT_BASE = 252
TUBE_BASE = 262
PLATE_BASE = 274
BOMB_BASE = 287
STRAIGHT_FLUSH_BASE = 378
JOKER_BOMB_INDEX = 388
CARD_BASE = 389
N_PLAY_ACTIONS = CARD_BASE
N_ACTIONS = CARD_BASE + 54
#: the pair slot of a full house whose pair is two wild cards
WILD_PAIR = 15


def _full_house_pair(combo: Combo, level: int) -> int:
    """The attached pair's slot: its natural rank, or ``WILD_PAIR`` for two wilds."""
    wild = level * 4 + 1
    t = combo[1]
    for f in combo[2]:
        if f != wild and RANK_OF[f] != t:
            return RANK_OF[f]
    return WILD_PAIR


def action_index(action: Combo | int, level: int) -> int:
    """The index of an engine action (a ``Combo``, ``PASS`` or a tribute/return card)."""
    if type(action) is int:
        return CARD_BASE + action
    t, r, cards = action
    if t == "single":
        return SINGLE_BASE + r
    if t == "pair":
        return PAIR_BASE + r
    if t == "pass":
        return PASS_INDEX
    if t == "triple":
        return TRIPLE_BASE + r
    if t == "full_house":
        return FULL_HOUSE_BASE + 16 * r + _full_house_pair(action, level)
    if t == "straight":
        return STRAIGHT_BASE + r - 3
    if t == "tube":
        return TUBE_BASE + r - 1
    if t == "plate":
        return PLATE_BASE + r
    if t == "bomb":
        return BOMB_BASE + 7 * r + len(cards) - 4
    if t == "straight_flush":
        return STRAIGHT_FLUSH_BASE + r - 3
    if t == "joker_bomb":
        return JOKER_BOMB_INDEX
    raise ValueError(f"not an action: {action!r}")


#: index = base + key rank, for the play types whose index needs nothing else
_KEYED_BASE = {
    "single": SINGLE_BASE,
    "pair": PAIR_BASE,
    "triple": TRIPLE_BASE,
    "straight": STRAIGHT_BASE - 3,
    "tube": TUBE_BASE - 1,
    "plate": PLATE_BASE,
    "straight_flush": STRAIGHT_FLUSH_BASE - 3,
}


def legal_index_map(legal: list | tuple, level: int) -> dict[int, Combo | int]:
    """``{index: engine action}`` for the legal actions of one decision (``action_index`` of each)."""
    out = {}
    keyed = _KEYED_BASE
    for a in legal:
        if type(a) is int:
            out[CARD_BASE + a] = a
            continue
        base = keyed.get(a[0])
        out[action_index(a, level) if base is None else base + a[1]] = a
    return out


def describe_index(index: int) -> str:
    """A short text for an index (what it stands for, whatever the hand).

    >>> describe_index(0), describe_index(16 + 12), describe_index(287 + 7 * 3 + 2)
    ('pass', 'pair:A', 'bomb:5 x6')
    """
    if not 0 <= index < N_ACTIONS:
        raise ValueError(f"action index {index} is outside 0..{N_ACTIONS - 1}")
    if index == PASS_INDEX:
        return "pass"
    if index < PAIR_BASE:
        return f"single:{RANK_TOKENS[index - SINGLE_BASE]}"
    if index < TRIPLE_BASE:
        return f"pair:{RANK_TOKENS[index - PAIR_BASE]}"
    if index < FULL_HOUSE_BASE:
        return f"triple:{RANK_TOKENS[index - TRIPLE_BASE]}"
    if index < STRAIGHT_BASE:
        t, p = divmod(index - FULL_HOUSE_BASE, 16)
        return (
            f"full_house:{RANK_TOKENS[t]} with {'two wilds' if p == WILD_PAIR else 'pair ' + RANK_TOKENS[p]}"
        )
    if index < TUBE_BASE:
        return f"straight:{RANK_TOKENS[index - STRAIGHT_BASE + 3]}"
    if index < PLATE_BASE:
        return f"tube:{RANK_TOKENS[index - TUBE_BASE + 1]}"
    if index < BOMB_BASE:
        return f"plate:{RANK_TOKENS[index - PLATE_BASE]}"
    if index < STRAIGHT_FLUSH_BASE:
        r, n = divmod(index - BOMB_BASE, 7)
        return f"bomb:{RANK_TOKENS[r]} x{n + 4}"
    if index < JOKER_BOMB_INDEX:
        return f"straight_flush:{RANK_TOKENS[index - STRAIGHT_FLUSH_BASE + 3]}"
    if index == JOKER_BOMB_INDEX:
        return "joker_bomb"
    return f"card {FACE_NAMES[index - CARD_BASE]}"


__all__ = ["N_ACTIONS", "PASS", "action_index", "describe_index", "legal_index_map"]

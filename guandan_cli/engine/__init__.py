"""The rules engine: cards, combinations, legal plays, deals and matches.

Pure Python; imports no click, polars or matplotlib.

>>> from guandan_cli.engine import parse_cards, legal_plays, Combo
>>> [c.text() for c in legal_plays(parse_cards("S3 D3 S4"), "2", Combo.from_text("single:3 C3"))]
['single:4 S4']
"""

from .cards import (
    HR,
    RANKS,
    SB,
    CardParseError,
    InvalidHandError,
    deal_hands,
    format_card,
    format_cards,
    full_deck,
    hand_problem,
    level_index,
    parse_card,
    parse_cards,
    wild_face,
)
from .combos import COMBO_TYPES, Combo, beats, bomb_value, readings
from .legal import all_plays, legal_plays

__all__ = [
    "COMBO_TYPES",
    "HR",
    "RANKS",
    "SB",
    "CardParseError",
    "Combo",
    "InvalidHandError",
    "all_plays",
    "beats",
    "bomb_value",
    "deal_hands",
    "format_card",
    "format_cards",
    "full_deck",
    "hand_problem",
    "legal_plays",
    "level_index",
    "parse_card",
    "parse_cards",
    "readings",
    "wild_face",
]

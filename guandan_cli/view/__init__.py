"""The terminal view: how cards, plays, tricks and the table are shown to a person.

One module (:mod:`.table`) used by ``guandan replay``, ``guandan watch`` and ``guandan play``.
It imports the engine and nothing above it; colour comes as rich markup, which a rich
console prints in colour or strips (``--plain``).
"""

from .table import (
    PLACES,
    Style,
    TrickLog,
    card_text,
    cards_text,
    deal_end_lines,
    level_line,
    play_text,
    render_table,
    sort_by_power,
    tribute_lines,
    wild_meanings,
)

__all__ = [
    "PLACES",
    "Style",
    "TrickLog",
    "card_text",
    "cards_text",
    "deal_end_lines",
    "level_line",
    "play_text",
    "render_table",
    "sort_by_power",
    "tribute_lines",
    "wild_meanings",
]

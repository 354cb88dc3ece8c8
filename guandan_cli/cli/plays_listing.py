"""What ``guandan plays`` prints (the command and the Python API share it).

>>> plays_lines("S3 D3 S4", "2", "single:3 C3")
['hand: S3 D3 S4  (level 2, 1 play)', 'single:4 S4']
>>> plays_lines("S3 X")
Traceback (most recent call last):
...
guandan_cli.cli.plays_listing.PlaysInputError: HAND 'S3 X': bad card token 'X' at position 2: expected suit S/H/C/D (or ♠♥♣♦) + rank 2-9/T/10/J/Q/K/A, or SB/HR for the jokers
>>> from guandan_cli.engine.cards import FACE_NAMES
>>> plays_lines(" ".join(FACE_NAMES[:29]))
Traceback (most recent call last):
...
guandan_cli.cli.plays_listing.PlaysInputError: HAND holds 29 cards: a seat is dealt 27 (108 cards to four seats, rules.md §1), so a hand holds at most 27
"""

from __future__ import annotations

#: the cards a seat is dealt, the most a hand can hold (rules.md §1)
HAND_SIZE = 27


class PlaysInputError(ValueError):
    """Bad input to ``guandan plays``; the message names the input and the rule it breaks."""


def plays_lines(
    hand: str, level: str = "2", top: str | None = None, every: bool = False, symbols: bool = False
) -> list[str]:
    """The lines listing what ``hand`` can play at ``level`` (leading, or beating ``top``).

    Every input is checked (level, then hand, then ``top``) before any play is listed.
    """
    from guandan_cli.engine import Combo, all_plays, format_cards, legal_plays, parse_cards
    from guandan_cli.engine.cards import RANKS
    from guandan_cli.engine.combos import check_declared

    token = level.strip().upper()
    if (token := "T" if token == "10" else token) not in tuple(RANKS):  # a rank, never SB or HR
        raise PlaysInputError(f"--level {level!r}: a level is one of {' '.join(RANKS)} (10 for T also works)")
    level = token
    try:
        cards = parse_cards(hand)
    except ValueError as exc:
        raise PlaysInputError(f"HAND {hand!r}: {exc}") from None
    if not cards:
        raise PlaysInputError(f"HAND {hand!r}: no cards; give card tokens, e.g. 'S3 H4 D4'")
    if len(cards) > HAND_SIZE:
        raise PlaysInputError(
            f"HAND holds {len(cards)} cards: a seat is dealt {HAND_SIZE} (108 cards to four seats, "
            f"rules.md §1), so a hand holds at most {HAND_SIZE}"
        )
    try:
        top_combo = check_declared(Combo.from_text(top), level) if top is not None else None
    except ValueError as exc:
        raise PlaysInputError(f"--top: {exc}") from None
    found = list(all_plays(cards, level, top_combo)) if every else legal_plays(cards, level, top_combo)
    lines = [
        f"hand: {format_cards(cards, symbols)}  (level {level}, {len(found)} play{'' if len(found) == 1 else 's'})"
    ]
    lines.extend(combo.text(symbols) for combo in found)
    return lines

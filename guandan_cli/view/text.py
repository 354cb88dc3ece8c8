"""Text for a person's terminal: widths in columns, wrapping that never splits a word, plurals.

>>> columns("大王 ♠10")
8
>>> wrap("x S3 S4 does not beat the top play pair K", 24)
['x S3 S4 does not beat', '  the top play pair K']
>>> wrap("your hand (12): S3 S4 S5 S6 S7 S8 S9 S10 SJ SQ SK SA", 48)
['your hand (12): S3 S4 S5 S6 S7 S8 S9 S10 SJ SQ', '                SK SA']
>>> plural(1, "card"), plural(2, "match", "matches")
('1 card', '2 matches')
"""

from __future__ import annotations

import re
import unicodedata

#: the widest line a person's view prints (terminals of 80 to 100 columns and wider)
MAX_WIDTH = 100

_WORD = re.compile(r"\S+")


def columns(text: str) -> int:
    """Terminal columns ``text`` takes: East Asian wide characters (``大王``) take two."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def plural(n: int, word: str, words: str | None = None) -> str:
    """``1 card``, ``2 cards`` (``words`` is the plural when it is not ``word + "s"``)."""
    return f"{n} {word if n == 1 else words or word + 's'}"


def hang_of(text: str, width: int) -> int:
    """Where the continuation lines of ``text`` start: under the text after a short label
    (``your hand (27): ``, ``single: ``) when there is one in the first third of the
    width, else two columns in from the line's own indent."""
    indent = len(text) - len(text.lstrip(" "))
    label = text.find(": ")
    if 0 <= label and columns(text[: label + 2]) <= width // 3:
        return columns(text[: label + 2])
    return indent + 2


def wrap_spans(text: str, width: int, hang: int | None = None) -> list[tuple[int, int]]:
    """``(start, end)`` of each line of ``text`` wrapped at ``width`` columns, breaking only
    at spaces (a word or card token wider than a line gets a line of its own). Lines after
    the first are meant to be printed after ``hang`` spaces (see :func:`hang_of`)."""
    if columns(text) <= width:
        return [(0, len(text))]
    if hang is None:
        hang = hang_of(text, width)
    spans: list[tuple[int, int]] = []
    start = end = used = -1  # the line being filled: its span in ``text`` and its columns
    for m in _WORD.finditer(text):
        word = columns(m.group())
        if start < 0:  # the first word stays after the line's own indent
            start, end, used = 0, m.end(), columns(text[: m.end()])
        elif used + columns(text[end : m.start()]) + word <= width:
            used += columns(text[end : m.start()]) + word
            end = m.end()
        else:
            spans.append((start, end))
            start, end, used = m.start(), m.end(), hang + word
    return spans + [(start, end)] if start >= 0 else [(0, len(text))]


def wrap(text: str, width: int = MAX_WIDTH, hang: int | None = None) -> list[str]:
    """``text`` (one line) as lines of at most ``width`` columns (see :func:`wrap_spans`)."""
    if hang is None:
        hang = hang_of(text, width)
    spans = wrap_spans(text, width, hang)
    return [("" if i == 0 else " " * hang) + text[a:b] for i, (a, b) in enumerate(spans)]


__all__ = ["MAX_WIDTH", "columns", "hang_of", "plural", "wrap", "wrap_spans"]

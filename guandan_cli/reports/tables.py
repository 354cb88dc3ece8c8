"""Report frames as people read them: intervals as ``0.45 [0.33, 0.58]``, tables that fit.

Shared by ``guandan analyze`` (terminal and Markdown tables) and the HTML report, so every
format shows the same numbers.

- :func:`readable_columns`: one text column per reported quantity (``x``, ``x_lo`` and
  ``x_hi`` merged into ``x [lo, hi]``; floats rounded, decimals chosen per column so an
  interval's ends stay distinct).
- :func:`text_table`: a plain table at most ``width`` characters wide (100 by default):
  long column names are abbreviated (a legend follows the table) and, if that is not
  enough, the least important columns are hidden and named; ``wide=True`` shows every
  column with its full name.

>>> import polars as pl
>>> df = pl.DataFrame({"side": ["a"], "deals": [40], "win_rate": [0.45], "win_rate_lo": [0.33],
...                    "win_rate_hi": [0.58]})
>>> [c.name for c in readable_columns(df)], readable_columns(df)[2].cells
(['side', 'deals', 'win_rate'], ['0.45 [0.33, 0.58]'])
"""

from __future__ import annotations

import math
import textwrap
import unicodedata
from dataclasses import dataclass

import polars as pl

from guandan_cli.view.names import strategy_names

DEFAULT_WIDTH = 100
GAP = "  "
INTERVAL_NOTE = "x [lo, hi]: estimate [95% CI]"


@dataclass
class Column:
    """A column as text: its name, its cells, whether numbers (right-aligned), its role."""

    name: str
    cells: list[str]
    numeric: bool
    kind: str  # "key" (a grouping value), "count", "number" or "interval"


def display_width(text: str) -> int:
    """Terminal cells taken by ``text`` (East Asian wide characters take two).

    >>> display_width("上游 1st"), display_width("abc")
    (8, 3)
    """
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _decimals(values: list[tuple[float | None, float | None, float | None]]) -> int:
    """Decimals (2…4) enough to tell each interval's ends apart."""
    need = 2
    for _v, lo, hi in values:
        if lo is None or hi is None:
            continue
        w = hi - lo
        if w > 0 and math.isfinite(w):
            need = max(need, math.ceil(-math.log10(w)) + 1)
    return min(need, 4)


def _num(v: float | None, d: int) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    return f"{v:.{d}f}"


def format_interval(v: float | None, lo: float | None, hi: float | None, decimals: int = 2) -> str:
    """``0.45 [0.33, 0.58]``; ``–`` for a missing estimate.

    >>> format_interval(0.4512, 0.33, 0.581), format_interval(None, None, None)
    ('0.45 [0.33, 0.58]', '–')
    """
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    return f"{_num(v, decimals)} [{_num(lo, decimals)}, {_num(hi, decimals)}]"


def readable_columns(df: pl.DataFrame) -> list[Column]:
    """The columns of a report frame as text (intervals merged; see the module docstring)."""
    cols: list[Column] = []
    seen_number = False
    for c in df.columns:
        if c.endswith(("_lo", "_hi")) and c[:-3] in df.columns:
            continue
        dtype = df[c].dtype
        if f"{c}_lo" in df.columns and f"{c}_hi" in df.columns:
            triples = list(zip(df[c].to_list(), df[f"{c}_lo"].to_list(), df[f"{c}_hi"].to_list()))
            d = _decimals(triples)
            cols.append(Column(c, [format_interval(v, lo, hi, d) for v, lo, hi in triples], True, "interval"))
            seen_number = True
        elif dtype.is_float():
            vals = df[c].to_list()
            cols.append(Column(c, [_num(v, 3) for v in vals], True, "number"))
            seen_number = True
        elif dtype.is_integer() and seen_number:
            cols.append(Column(c, ["–" if v is None else str(v) for v in df[c].to_list()], True, "count"))
        elif dtype.is_integer():
            # the first integers: group values (seat, deal index, power) or the row's size
            kind = "key" if c in ("seat", "deal", "power", "partner_place") else "count"
            seen_number = kind == "count"
            cols.append(Column(c, ["–" if v is None else str(v) for v in df[c].to_list()], True, kind))
        else:
            values = df[c].to_list()
            if c in STRATEGY_COLUMNS:
                values = strategy_cells(values)
            cells = [
                "–" if v is None else (", ".join(map(str, v)) if isinstance(v, list) else str(v))
                for v in values
            ]
            cols.append(Column(c, cells, dtype.is_numeric(), "key"))
    return cols


#: columns whose values are strategy specs (``team_strategy``: ``a`` or ``a+b``)
STRATEGY_COLUMNS = ("strategy", "team_strategy", "strategies")


def with_strategy_names(df: pl.DataFrame) -> pl.DataFrame:
    """``df`` with its strategy columns as people read them (for figures; see :func:`strategy_cells`).

    >>> with_strategy_names(pl.DataFrame({"strategy": ["/x/bot.py:Bot"]}))["strategy"].to_list()
    ['bot.py:Bot']
    """
    named = [c for c in STRATEGY_COLUMNS if c in df.columns and df[c].dtype == pl.String]
    if not named:
        return df
    return df.with_columns(pl.Series(c, strategy_cells(df[c].to_list()), dtype=pl.String) for c in named)


def strategy_cells(values: list) -> list:
    """Strategy specs as people read them (:mod:`guandan_cli.view.names`): ``remote:alice`` for
    ``guandan_cli.protocol.remote:alice``; a team's ``a+b`` name by name; lists item by item.

    >>> strategy_cells(["guandan_cli.protocol.remote:alice+heuristic", "all", None])
    ['remote:alice+heuristic', 'all', None]
    """

    def parts(v) -> list[str]:
        if isinstance(v, list):
            return [str(x) for x in v]
        return str(v).split("+") if v is not None else []

    names = strategy_names(p for v in values for p in parts(v))
    out = []
    for v in values:
        if v is None:
            out.append(None)
        elif isinstance(v, list):
            out.append([names[str(x)] for x in v])
        else:
            out.append("+".join(names[p] for p in parts(v)))
    return out


def abbreviation(name: str) -> str:
    """Initials of the underscore-separated words: ``receiver_win_rate`` → ``rwr``.

    >>> abbreviation("receiver_win_rate"), abbreviation("deals")
    ('rwr', 'd')
    """
    return "".join(w[0] for w in name.replace("-", "_").split("_") if w)


def _width(cols: list[Column], headers: list[str]) -> int:
    widths = [max([display_width(h), *(display_width(x) for x in c.cells)]) for c, h in zip(cols, headers)]
    return sum(widths) + len(GAP) * max(0, len(cols) - 1)


def _hide_order(cols: list[Column]) -> list[int]:
    """Columns to hide first: extra counts (right to left, the first count kept), then
    plain numbers, then intervals; grouping values are never hidden."""
    counts = [i for i, c in enumerate(cols) if c.kind == "count"]
    numbers = [i for i, c in enumerate(cols) if c.kind == "number"]
    intervals = [i for i, c in enumerate(cols) if c.kind == "interval"]
    return counts[1:][::-1] + numbers[::-1] + intervals[::-1]


def fit_columns(
    cols: list[Column], width: int = DEFAULT_WIDTH
) -> tuple[list[Column], list[str], list[tuple[str, str]], list[str]]:
    """``(columns kept, their headers, legend (abbreviation, name), hidden names)`` so the
    table is at most ``width`` characters wide (if hiding everything but the grouping
    columns still does not fit, the result is as narrow as it gets)."""
    headers = [c.name for c in cols]
    legend: list[tuple[str, str]] = []
    used = set(headers)
    # abbreviate one header at a time, the largest saving first (never a grouping column's)
    candidates = []
    for i, c in enumerate(cols):
        cell = max((display_width(x) for x in c.cells), default=0)
        short = abbreviation(c.name)
        saving = display_width(c.name) - max(cell, display_width(short))
        if saving > 0 and display_width(c.name) > 5 and c.kind != "key":
            candidates.append((-saving, i, short))
    for _saving, i, short in sorted(candidates):
        if _width(cols, headers) <= width:
            break
        base, k = short, 2
        while short in used:
            short, k = f"{base}{k}", k + 1
        used.add(short)
        headers[i] = short
        legend.append((short, cols[i].name))
    hidden: list[str] = []
    keep = list(range(len(cols)))
    for i in _hide_order(cols):
        if _width([cols[j] for j in keep], [headers[j] for j in keep]) <= width:
            break
        keep.remove(i)
        hidden.append(cols[i].name)
    kept_names = {cols[j].name for j in keep}
    legend = [(a, n) for a, n in legend if n in kept_names]
    return [cols[j] for j in keep], [headers[j] for j in keep], legend, hidden


def _pad(text: str, size: int, right: bool) -> str:
    fill = " " * (size - display_width(text))
    return fill + text if right else text + fill


def text_table(df: pl.DataFrame, *, wide: bool = False, width: int = DEFAULT_WIDTH) -> str:
    """A plain-text table of a report frame, at most ``width`` wide unless ``wide``.

    >>> df = pl.DataFrame({"ruleset": ["cgr2022"], "payments": [40], "receiver_wins": [31],
    ...                    "rate": [0.5], "rate_lo": [0.4], "rate_hi": [0.6]})
    >>> print(text_table(df, width=48))
    ruleset  payments  rw               rate
    -------  --------  --  -----------------
    cgr2022        40  31  0.50 [0.40, 0.60]
    <BLANKLINE>
    rw: receiver_wins; x [lo, hi]: estimate [95% CI]
    >>> text_table(df, width=30).replace("\\n", " ").split("hidden: ")[1]
    'receiver_wins (--wide shows every column)'
    """
    cols = readable_columns(df)
    if wide:
        kept, headers, legend, hidden = cols, [c.name for c in cols], [], []
    else:
        kept, headers, legend, hidden = fit_columns(cols, width)
    sizes = [max([display_width(h), *(display_width(x) for x in c.cells)]) for c, h in zip(kept, headers)]
    lines = [GAP.join(_pad(h, s, c.numeric) for c, h, s in zip(kept, headers, sizes)).rstrip()]
    lines.append(GAP.join("-" * s for s in sizes))
    for r in range(df.height):
        lines.append(GAP.join(_pad(c.cells[r], s, c.numeric) for c, s in zip(kept, sizes)).rstrip())
    notes = [f"{a}: {n}" for a, n in legend]
    if any(c.kind == "interval" for c in kept):
        notes.append(INTERVAL_NOTE)
    tail = []
    if notes:
        tail.append("; ".join(notes))
    if hidden:
        tail.append(f"hidden: {', '.join(hidden)} (--wide shows every column)")
    if not wide:
        tail = [textwrap.fill(t, width, break_on_hyphens=False) for t in tail]
    return "\n".join(lines + ([""] + tail if tail else []))


__all__ = [
    "DEFAULT_WIDTH",
    "INTERVAL_NOTE",
    "STRATEGY_COLUMNS",
    "Column",
    "abbreviation",
    "display_width",
    "fit_columns",
    "format_interval",
    "readable_columns",
    "strategy_cells",
    "text_table",
    "with_strategy_names",
]

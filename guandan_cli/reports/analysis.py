"""What ``guandan analyze`` does below its options, callable from scripts: which reports, run, rendered.

- :func:`report_names`, :func:`groupings`, :func:`without_match_reports`,
  :func:`check_groupable` — the reports and grouping asked, checked against the
  catalogue and against what the sources hold (``AnalyzeInputError``, one line each);
- :func:`reading` / :func:`computing` — read errors as one line (``AnalyzeFailure`` for a
  bad line or a damaged copy, ``AnalyzeInputError`` for no such run);
- :func:`run_reports` — every report asked over a loaded run (``loading.load``);
- :func:`render` — the reports as a text table, CSV, JSON (with metadata) or Markdown.

>>> report_names("tribute, bombs"), groupings("seat,seat")
(['tribute', 'bombs'], ['seat'])
>>> report_names(None)[:3], groupings(None)
(['tribute', 'tribute-card', 'first-leader'], None)
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


class AnalyzeInputError(ValueError):
    """Reports asked that cannot be given (an unknown name, a grouping none takes…): one line, exit 2."""


class AnalyzeFailure(RuntimeError):
    """Reading or reporting failed (a bad line, a damaged Parquet copy): one line, exit 1."""


#: the output formats of ``render``
FORMATS = ("table", "csv", "json", "markdown")


# ------------------------------------------------------------------ which reports


def report_names(spec: str | None) -> list[str]:
    """The reports ``spec`` names (comma-separated, or ``all``/``None`` for every one), each once."""
    from . import REPORTS

    if spec is None or spec.strip() == "all":
        return list(REPORTS)
    names = [s.strip() for s in spec.split(",")]
    if "" in names and len(names) > 1:
        raise AnalyzeInputError(f"--report {spec!r}: an empty report name (between commas)")
    names = [n for n in names if n]
    unknown = [n for n in names if n not in REPORTS and n != "all"]
    if unknown or not names:
        shown = ", ".join(map(repr, unknown)) or repr(spec)
        raise AnalyzeInputError(
            f"--report {spec!r}: unknown report{'s' if len(unknown) > 1 else ''} {shown}; "
            f"choose from {', '.join(REPORTS)} or all"
        )
    if "all" in names:  # "all" among other names: every report, each once
        return list(REPORTS)
    return names


def groupings(spec: str | None) -> list[str] | None:
    """The groupings ``spec`` names (``strategy``, ``seat``, comma-separated), each once; ``None`` for none."""
    if spec is None:
        return None
    from ._common import GROUPINGS

    items = [s.strip() for s in spec.split(",") if s.strip()]
    bad = [s for s in items if s not in GROUPINGS]
    if bad or not items:
        raise AnalyzeInputError(
            f"--by {spec!r}: unknown grouping {', '.join(bad) or spec!r}; choose from {', '.join(GROUPINGS)}"
        )
    return list(dict.fromkeys(items))  # a grouping named twice counts once (as --report names do)


def without_match_reports(
    runs: list[Path], names: list[str], spec: str | None
) -> tuple[list[str], str | None]:
    """Deals parts alone hold no match records: the reports that read them are refused when
    asked by name, left out with a note (returned) when asked as ``all``."""
    from . import REPORTS

    if not runs or not all(r.is_file() and r.name.startswith("deals-") for r in runs):
        return names, None
    needing = [n for n in names if REPORTS[n].source == "matches"]
    if not needing:
        return names, None
    parts = ", ".join(r.name.replace("deals-", "matches-", 1) for r in runs[:2])
    asked_all = spec is None or "all" in [x.strip() for x in spec.split(",")]
    if not asked_all:
        raise AnalyzeInputError(
            f"--report {', '.join(needing)} reads match records, which deals parts do not hold: "
            f"give the matches parts too ({parts}) or the run directory"
        )
    note = f"note: {', '.join(needing)} left out: they read the matches parts ({parts}), not given"
    return [n for n in names if n not in needing], note


def check_groupable(groups: list[str] | None, names: list[str], by: str | None) -> None:
    """A grouping is asked only of reports that take one."""
    from . import REPORTS

    if groups is not None and not any(REPORTS[n].groupable for n in names):
        takes = ", ".join(n for n, r in REPORTS.items() if r.groupable)
        raise AnalyzeInputError(
            f"--by {by}: none of the reports asked takes a grouping (those that do: {takes})"
        )


def check_lone_matches_parts(runs: list[Path]) -> None:
    """Matches parts alone hold no deal lines, which every report reads."""
    lone = [r for r in runs if r.is_file() and r.name.startswith("matches-")]
    if lone and len(lone) == len(runs):
        deals = lone[0].with_name(lone[0].name.replace("matches-", "deals-", 1))
        raise AnalyzeInputError(
            f"{lone[0]}: a matches part holds no deal lines, which every report reads; "
            f"give its deals part {deals.name} with it, or the run directory {lone[0].parent}"
        )


# ------------------------------------------------------------------ reading and reporting


NO_CHECK_HINT = " (read with --no-check: drop it to have every line checked, or run guandan verify)"


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def read_failed(runs, exc: BaseException, check: bool) -> str:
    """The line for a read error Polars raised that the reader did not name."""
    from .loading import fresh_parquet

    copies = [str(p) for r in runs for k in ("deals", "matches") if (p := fresh_parquet(r, k)) is not None]
    if copies:
        them = "them" if len(copies) > 1 else "it"
        where = f" (read from {', '.join(copies)}: delete {them} or run analyze --to-parquet again)"
    else:
        where = "" if check else NO_CHECK_HINT
    return f"reading {', '.join(map(str, runs))} failed: {_first_line(exc)}{where}"


@contextmanager
def reading(runs: list[Path], check: bool) -> Iterator[None]:
    """Errors while reading ``runs`` as one line: a bad line or a deals/matches mismatch, a
    damaged copy (``AnalyzeFailure``), no such run or no parts in it (``AnalyzeInputError``)."""
    import polars as pl

    from .loading import LogLineError, LogMismatchError, LogReadError

    try:
        yield
    except (LogLineError, LogMismatchError) as exc:  # "path:line: reason", or deals vs matches
        raise AnalyzeFailure(f"{exc}{'' if check else NO_CHECK_HINT}") from None
    except LogReadError as exc:  # no such run, no parts in it
        raise AnalyzeInputError(str(exc)) from None
    except pl.exceptions.PolarsError as exc:  # a safety net: e.g. a Parquet copy damaged past its footer
        raise AnalyzeFailure(read_failed(runs, exc, check)) from None


@contextmanager
def computing(runs: list[Path], check: bool) -> Iterator[None]:
    """A Polars error while the reports run (reading lazily) as one line (``AnalyzeFailure``)."""
    import polars as pl

    try:
        yield
    except pl.exceptions.PolarsError as exc:
        raise AnalyzeFailure(read_failed(runs, exc, check)) from None


def run_reports(names: list[str], data, groups: list[str] | None = None) -> dict:
    """Each report of ``names`` over ``data`` (a ``RunData``), by name."""
    from . import run_report

    return {name: run_report(name, data.deals, data.matches, by=groups) for name in names}


def metadata(data) -> dict:
    """What a JSON output says of the runs read: their completeness, and which are incomplete."""
    return {"runs": [c.as_dict() for c in data.completeness], "incomplete": data.incomplete}


# ------------------------------------------------------------------ rendering


def markdown(df) -> str:
    """A Markdown table of the readable columns (intervals merged, every column)."""
    import polars as pl

    from .tables import readable_columns

    cols = readable_columns(df)
    frame = pl.DataFrame([pl.Series(c.name, c.cells, dtype=pl.String) for c in cols])
    with pl.Config(
        tbl_rows=-1,
        tbl_cols=-1,
        tbl_width_chars=10_000,
        tbl_hide_column_data_types=True,
        tbl_hide_dataframe_shape=True,
        fmt_str_lengths=100,
        tbl_formatting="MARKDOWN",
    ):
        return str(frame)


def render(
    results: dict, fmt: str, titles: dict[str, str], wide: bool = False, metadata: dict | None = None
) -> str:
    """The reports in ``results`` as one text in ``fmt`` (one of ``FORMATS``; ``titles`` by report name)."""
    from .tables import INTERVAL_NOTE, text_table

    if fmt == "json":
        doc = {"metadata": metadata or {}} | {name: df.to_dicts() for name, df in results.items()}
        return json.dumps(doc, ensure_ascii=False, indent=1)
    blocks = []
    for name, df in results.items():
        if fmt == "csv":
            text = df.write_csv().rstrip("\n")
            blocks.append(text if len(results) == 1 else f"# {name}\n{text}\n")
            continue
        if fmt == "markdown":
            blocks.append(f"## {name}: {titles[name]}\n\n{markdown(df)}\n\n{INTERVAL_NOTE}\n")
        else:
            blocks.append(f"{name}: {titles[name]}\n\n{text_table(df, wide=wide)}\n")
    return "\n".join(blocks)


__all__ = [
    "AnalyzeFailure",
    "AnalyzeInputError",
    "FORMATS",
    "check_groupable",
    "check_lone_matches_parts",
    "computing",
    "groupings",
    "markdown",
    "metadata",
    "read_failed",
    "reading",
    "render",
    "report_names",
    "run_reports",
    "without_match_reports",
]

"""`guandan analyze`: run reports over one or more runs and print them (and plot them)."""

from __future__ import annotations

import json
import os
import tempfile
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from guandan_cli.cli.errors import FAILURE, check_output_dir, fail
from guandan_cli.cli.typer_app import app


class OutputFormat(StrEnum):
    table = "table"
    csv = "csv"
    json = "json"
    markdown = "markdown"


class PlotFormat(StrEnum):
    png = "png"
    svg = "svg"


def _report_names(spec: str | None) -> list[str]:
    from guandan_cli.reports import REPORTS

    if spec is None or spec.strip() == "all":
        return list(REPORTS)
    names = [s.strip() for s in spec.split(",")]
    if "" in names and len(names) > 1:
        fail(f"--report {spec!r}: an empty report name (between commas)")
    names = [n for n in names if n]
    unknown = [n for n in names if n not in REPORTS and n != "all"]
    if unknown or not names:
        shown = ", ".join(map(repr, unknown)) or repr(spec)
        fail(
            f"--report {spec!r}: unknown report{'s' if len(unknown) > 1 else ''} {shown}; "
            f"choose from {', '.join(REPORTS)} or all"
        )
    if "all" in names:  # "all" among other names: every report, each once
        return list(REPORTS)
    return names


def _by(spec: str | None) -> list[str] | None:
    if spec is None:
        return None
    from guandan_cli.reports._common import GROUPINGS

    items = [s.strip() for s in spec.split(",") if s.strip()]
    bad = [s for s in items if s not in GROUPINGS]
    if bad or not items:
        fail(
            f"--by {spec!r}: unknown grouping {', '.join(bad) or spec!r}; choose from {', '.join(GROUPINGS)}"
        )
    return list(dict.fromkeys(items))  # a grouping named twice counts once (as --report names do)


def _without_match_reports(runs: list[Path], names: list[str], spec: str | None) -> list[str]:
    """Deals parts alone hold no match records: the reports that read them are refused when
    asked by name, left out with a notice when asked as ``all``."""
    from guandan_cli.reports import REPORTS

    if not runs or not all(r.is_file() and r.name.startswith("deals-") for r in runs):
        return names
    needing = [n for n in names if REPORTS[n].source == "matches"]
    if not needing:
        return names
    parts = ", ".join(r.name.replace("deals-", "matches-", 1) for r in runs[:2])
    asked_all = spec is None or "all" in [x.strip() for x in spec.split(",")]
    if not asked_all:
        fail(
            f"--report {', '.join(needing)} reads match records, which deals parts do not hold: "
            f"give the matches parts too ({parts}) or the run directory"
        )
    typer.echo(
        f"note: {', '.join(needing)} left out: they read the matches parts ({parts}), not given", err=True
    )
    return [n for n in names if n not in needing]


def _markdown(df) -> str:
    """A Markdown table of the readable columns (intervals merged, every column)."""
    import polars as pl

    from guandan_cli.reports.tables import readable_columns

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


def _render(
    results: dict, fmt: OutputFormat, titles: dict[str, str], wide: bool = False, metadata: dict | None = None
) -> str:
    from guandan_cli.reports.tables import INTERVAL_NOTE, text_table

    if fmt is OutputFormat.json:
        doc = {"metadata": metadata or {}} | {name: df.to_dicts() for name, df in results.items()}
        return json.dumps(doc, ensure_ascii=False, indent=1)
    blocks = []
    for name, df in results.items():
        if fmt is OutputFormat.csv:
            text = df.write_csv().rstrip("\n")
            blocks.append(text if len(results) == 1 else f"# {name}\n{text}\n")
            continue
        if fmt is OutputFormat.markdown:
            blocks.append(f"## {name}: {titles[name]}\n\n{_markdown(df)}\n\n{INTERVAL_NOTE}\n")
        else:
            blocks.append(f"{name}: {titles[name]}\n\n{text_table(df, wide=wide)}\n")
    return "\n".join(blocks)


_NO_CHECK_HINT = " (read with --no-check: drop it to have every line checked, or run guandan verify)"


def _hint(check: bool) -> str:
    return "" if check else _NO_CHECK_HINT


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _read_failed(runs, exc: BaseException, check: bool, fresh_parquet) -> None:
    """One line (exit 1) for a read error Polars raised that the reader did not name."""
    copies = [str(p) for r in runs for k in ("deals", "matches") if (p := fresh_parquet(r, k)) is not None]
    if copies:
        them = "them" if len(copies) > 1 else "it"
        where = f" (read from {', '.join(copies)}: delete {them} or run analyze --to-parquet again)"
    else:
        where = _hint(check)
    fail(f"reading {', '.join(map(str, runs))} failed: {_first_line(exc)}{where}", FAILURE)


@app.command()
def analyze(
    runs: Annotated[
        list[Path],
        typer.Argument(help="Run directories (or log part files).", show_default=False, metavar="RUNS"),
    ],
    report: Annotated[
        str | None,
        typer.Option("--report", "-r", help="Report name, comma-separated names, or all (the default)."),
    ] = None,
    fmt: Annotated[OutputFormat, typer.Option("--format", "-f", help="Output format.")] = OutputFormat.table,
    plots: Annotated[
        Path | None, typer.Option("--plots", help="Write one figure per report into this directory.")
    ] = None,
    plot_format: Annotated[
        PlotFormat | None,
        typer.Option("--plot-format", help="Figure file format (with --plots): png or svg."),
    ] = None,
    by: Annotated[
        str | None,
        typer.Option(help="Grouping for reports that take one: strategy, seat or strategy,seat."),
    ] = None,
    skip_bad: Annotated[
        bool,
        typer.Option("--skip-bad", help="Leave out corrupt lines (and say how many) instead of stopping."),
    ] = False,
    check: Annotated[
        bool,
        typer.Option("--check/--no-check", help="Check every log line before reading (names bad lines)."),
    ] = True,
    html: Annotated[
        Path | None,
        typer.Option(
            "--html",
            help="Also write one self-contained HTML page (run metadata, each report's definition, "
            "table and plot) to this file.",
            show_default=False,
        ),
    ] = None,
    wide: Annotated[
        bool,
        typer.Option(
            "--wide", help="Table format: every column with its full name (tables may exceed 100 columns)."
        ),
    ] = False,
    to_parquet: Annotated[
        bool,
        typer.Option(
            "--to-parquet",
            help="Convert each run's logs to deals.parquet/matches.parquet in the run directory "
            "(later analyses read them); reports run only if --report or --html is given.",
        ),
    ] = False,
) -> None:
    """Turn logs into answers: print reports (rates with 95% confidence intervals).

    Reports: tribute, tribute-card, first-leader, bombs, bombs-by-player, winner-bombs, partners, double-down, deal-length, match-length, levels, wilds, jiefeng, strategy-deals, strategy-matches (see docs/reports.md).
    """
    import warnings

    import polars as pl

    from guandan_cli.reports import (
        REPORTS,
        IncompleteRunWarning,
        LogLineError,
        LogMismatchError,
        LogReadError,
        ScanStats,
        convert_to_parquet,
        fresh_parquet,
        load,
        run_report,
    )

    names = _report_names(report)
    groups = _by(by)
    for run in runs if to_parquet else ():
        if run.exists() and not run.is_dir():
            fail(
                f"--to-parquet {run}: not a run directory (it writes RUN/deals.parquet and RUN/matches.parquet)"
            )
    names = _without_match_reports(runs, names, report)
    if groups is not None and not any(REPORTS[n].groupable for n in names):
        takes = ", ".join(n for n, r in REPORTS.items() if r.groupable)
        fail(f"--by {by}: none of the reports asked takes a grouping (those that do: {takes})")
    if plot_format is not None and plots is None and html is None:
        fail(f"--plot-format {plot_format.value} goes with --plots DIR (or --html), and neither is given")
    plot_format = plot_format or PlotFormat.png
    if wide and fmt is not OutputFormat.table:
        fail(f"--wide applies to --format table, not {fmt.value}")
    lone = [r for r in runs if r.is_file() and r.name.startswith("matches-")]
    if lone and len(lone) == len(runs):
        deals = lone[0].with_name(lone[0].name.replace("matches-", "deals-", 1))
        fail(
            f"{lone[0]}: a matches part holds no deal lines, which every report reads; "
            f"give its deals part {deals.name} with it, or the run directory {lone[0].parent}"
        )
    if plots is not None:
        check_output_dir(plots, "--plots")
    if html is not None:
        if html.is_dir():
            fail(f"--html {html} is a directory; give the file to write, e.g. {html / 'report.html'}")
        if not html.parent.is_dir():
            from guandan_cli.reports.html import folder_problem

            fail(f"--html {html}: {folder_problem(html)}")
        if html.exists() and not os.access(html, os.W_OK):
            fail(f"--html {html}: the file cannot be overwritten")
        try:  # before any work, as --plots: a folder that cannot be written is refused now
            with tempfile.NamedTemporaryFile(dir=html.parent, prefix=".guandan-probe-"):
                pass
        except OSError as exc:
            fail(f"--html {html}: cannot write into {html.parent} ({exc.strerror or exc})")
    try:
        if to_parquet:
            stats = ScanStats()
            for run in runs:
                for path in convert_to_parquet(run, skip_bad=skip_bad, stats=stats):
                    typer.echo(f"wrote {path}", err=True)
            if skip_bad:
                typer.echo(f"skipped {stats.skipped} bad line(s)", err=True)
            if report is None and html is None:
                return
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", IncompleteRunWarning)  # said below, once, in our style
            data = load(*runs, skip_bad=skip_bad, check=check)
    except (
        LogLineError,
        LogMismatchError,
    ) as exc:  # "path:line: reason", or deals vs matches: found while reading
        fail(f"{exc}{'' if check else _NO_CHECK_HINT}", FAILURE)
    except LogReadError as exc:  # no such run, no parts in it
        fail(exc)
    except pl.exceptions.PolarsError as exc:  # a safety net: e.g. a Parquet copy damaged past its footer
        _read_failed(runs, exc, check, fresh_parquet)
    for line in data.notices:  # a Parquet copy passed over: its JSONL parts were read
        typer.echo(line, err=True)
    if skip_bad and not to_parquet:
        typer.echo(f"skipped {data.skipped} bad line(s)", err=True)
        for bad in data.stats.bad[:10]:
            typer.echo(f"  {bad}", err=True)
    try:
        results = {name: run_report(name, data.deals, data.matches, by=groups) for name in names}
    except pl.exceptions.PolarsError as exc:
        _read_failed(runs, exc, check, fresh_parquet)
    titles = {n: REPORTS[n].title for n in names}
    for line in data.incomplete:  # "PATH: incomplete run: 100 of 300 matches"
        typer.echo(line, err=True)
    metadata = {"runs": [c.as_dict() for c in data.completeness], "incomplete": data.incomplete}
    typer.echo(_render(results, fmt, titles, wide=wide, metadata=metadata))
    if html is not None:
        from guandan_cli.reports.html import render_html, run_info, write_html

        infos = [info for info in (run_info(r) for r in runs if r.is_dir()) if info is not None]
        page = render_html(
            results,
            runs=infos,
            titles=titles,
            definitions={n: REPORTS[n].definition for n in names},
            by=groups,
            skipped=data.skipped,
        )
        try:
            write_html(html, page)
        except OSError as exc:
            fail(f"cannot write --html {html}: {exc.strerror or exc}", FAILURE)
        typer.echo(f"wrote {html}", err=True)
    if plots is not None:
        from guandan_cli.reports.plots import save_plot

        for name, df in results.items():
            try:
                path = save_plot(name, df, plots, plot_format.value)
            except OSError as exc:
                fail(f"--plots {plots}: cannot write the {name} figure ({exc})", FAILURE)
            typer.echo(f"wrote {path}", err=True)

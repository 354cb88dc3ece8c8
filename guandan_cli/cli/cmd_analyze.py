"""`guandan analyze`: run reports over one or more runs and print them (and plot them)."""

from __future__ import annotations

import json
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from guandan_cli.cli.app import app
from guandan_cli.cli.errors import FAILURE, check_output_dir, fail


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
    names = [s.strip() for s in spec.split(",") if s.strip()]
    unknown = [n for n in names if n not in REPORTS]
    if unknown or not names:
        fail(
            f"--report {spec!r}: unknown report {', '.join(unknown) or spec!r}; choose from {', '.join(REPORTS)} or all"
        )
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
    return items


def _fmt(v: float | None) -> str:
    return "–" if v is None else f"{v:.3f}"


def _readable(df):
    """Merge each ``x``, ``x_lo``, ``x_hi`` into one text column ``x [95% CI]``; round floats."""
    import polars as pl

    cols = []
    for c in df.columns:
        if c.endswith(("_lo", "_hi")) and c[:-3] in df.columns:
            continue
        if f"{c}_lo" in df.columns and f"{c}_hi" in df.columns:
            text = [
                "–" if v is None else f"{_fmt(v)} [{_fmt(lo)}, {_fmt(hi)}]"
                for v, lo, hi in zip(df[c].to_list(), df[f"{c}_lo"].to_list(), df[f"{c}_hi"].to_list())
            ]
            cols.append(pl.Series(f"{c} [95% CI]", text, dtype=pl.String))
        elif df[c].dtype.is_float():
            cols.append(df[c].round(4))
        else:
            cols.append(df[c])
    return pl.DataFrame(cols)


def _render(results: dict, fmt: OutputFormat, titles: dict[str, str]) -> str:
    import polars as pl

    if fmt is OutputFormat.json:
        return json.dumps({name: df.to_dicts() for name, df in results.items()}, ensure_ascii=False, indent=1)
    blocks = []
    for name, df in results.items():
        if fmt is OutputFormat.csv:
            text = df.write_csv().rstrip("\n")
            blocks.append(text if len(results) == 1 else f"# {name}\n{text}\n")
            continue
        with pl.Config(
            tbl_rows=-1,
            tbl_cols=-1,
            tbl_width_chars=10_000,
            tbl_hide_column_data_types=True,
            tbl_hide_dataframe_shape=True,
            fmt_str_lengths=100,
            tbl_formatting="MARKDOWN" if fmt is OutputFormat.markdown else "UTF8_FULL_CONDENSED",
        ):
            table = str(_readable(df))
        head = f"## {name}: {titles[name]}" if fmt is OutputFormat.markdown else f"{name}: {titles[name]}"
        blocks.append(f"{head}\n\n{table}\n")
    return "\n".join(blocks)


@app.command()
def analyze(
    runs: Annotated[
        list[Path], typer.Argument(help="Run directories (or log part files).", show_default=False)
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
        PlotFormat, typer.Option("--plot-format", help="Figure file format.")
    ] = PlotFormat.png,
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
    to_parquet: Annotated[
        bool,
        typer.Option(
            "--to-parquet",
            help="Convert each run's logs to deals.parquet/matches.parquet in the run directory "
            "(later analyses read them); reports run only if --report is given.",
        ),
    ] = False,
) -> None:
    """Turn logs into answers: print reports (rates with 95% confidence intervals).

    Reports: tribute, tribute-card, first-leader, bombs, bombs-by-player, winner-bombs, partners, double-down, deal-length, match-length, levels, wilds, jiefeng, strategy-deals, strategy-matches (see docs/reports.md).
    """
    from guandan_cli.reports import (
        REPORTS,
        LogLineError,
        LogReadError,
        ScanStats,
        convert_to_parquet,
        load,
        run_report,
    )

    names = _report_names(report)
    groups = _by(by)
    if plots is not None:
        check_output_dir(plots, "--plots")
    try:
        if to_parquet:
            stats = ScanStats()
            for run in runs:
                for path in convert_to_parquet(run, skip_bad=skip_bad, stats=stats):
                    typer.echo(f"wrote {path}", err=True)
            if skip_bad:
                typer.echo(f"skipped {stats.skipped} bad line(s)", err=True)
            if report is None:
                return
        data = load(*runs, skip_bad=skip_bad, check=check)
    except LogLineError as exc:  # "path:line: reason": found while reading
        fail(exc, FAILURE)
    except LogReadError as exc:  # no such run, no parts in it
        fail(exc)
    if skip_bad and not to_parquet:
        typer.echo(f"skipped {data.skipped} bad line(s)", err=True)
        for bad in data.stats.bad[:10]:
            typer.echo(f"  {bad}", err=True)
    results = {name: run_report(name, data.deals, data.matches, by=groups) for name in names}
    typer.echo(_render(results, fmt, {n: REPORTS[n].title for n in names}))
    if plots is not None:
        from guandan_cli.reports.plots import save_plot

        for name, df in results.items():
            try:
                path = save_plot(name, df, plots, plot_format.value)
            except OSError as exc:
                fail(f"--plots {plots}: cannot write the {name} figure ({exc})", FAILURE)
            typer.echo(f"wrote {path}", err=True)

"""`guandan analyze`: run reports over one or more runs and print them (and plot them).

What the reports are and how they print is ``guandan_cli.reports.analysis``; this module
reads the options, checks the outputs before any work, and writes what was asked.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import click

from guandan_cli.cli.errors import FAILURE, check_output_dir, fail
from guandan_cli.cli.options import Workers, reported
from guandan_cli.cli.parameters import Argument, Option


class OutputFormat(StrEnum):
    table = "table"
    csv = "csv"
    json = "json"
    markdown = "markdown"


class PlotFormat(StrEnum):
    png = "png"
    svg = "svg"


Runs = Annotated[
    list[Path],
    Argument(help="Run directories (or log part files).", show_default=False, metavar="RUNS"),
]
Report = Annotated[
    str | None,
    Option("--report", "-r", help="Report name, comma-separated names, or all (the default)."),
]
Format = Annotated[OutputFormat, Option("--format", "-f", help="Output format.")]
Plots = Annotated[Path | None, Option("--plots", help="Write one figure per report into this directory.")]
PlotFormatOption = Annotated[
    PlotFormat | None, Option("--plot-format", help="Figure file format (with --plots): png or svg.")
]
By = Annotated[
    str | None, Option(help="Grouping for reports that take one: strategy, seat or strategy,seat.")
]
SkipBad = Annotated[
    bool, Option("--skip-bad", help="Leave out corrupt lines (and say how many) instead of stopping.")
]
Check = Annotated[
    bool, Option("--check/--no-check", help="Check every log line before reading (names bad lines).")
]
Html = Annotated[
    Path | None,
    Option(
        "--html",
        help="Also write one self-contained HTML page (run metadata, each report's definition, "
        "table and plot) to this file.",
        show_default=False,
    ),
]
Wide = Annotated[
    bool,
    Option("--wide", help="Table format: every column with its full name (tables may exceed 100 columns)."),
]
Backend = Annotated[
    str,
    Option(
        help="local (worker processes on this machine), or ray (a Ray cluster whose workers can read "
        "the runs; needs the ray extra: pip install 'guandan[ray]')."
    ),
]
RayAddress = Annotated[
    str | None, Option(help="Ray cluster address (default: RAY_ADDRESS, else a local Ray).")
]
ToParquet = Annotated[
    bool,
    Option(
        "--to-parquet",
        help="Convert each run's logs to deals.parquet/matches.parquet in the run directory "
        "(later analyses read them); reports run only if --report or --html is given.",
    ),
]


@dataclass(frozen=True)
class AnalyzeCommand:
    """``guandan analyze``'s arguments and options, in the order ``--help`` lists them."""

    runs: Runs
    report: Report = None
    fmt: Format = OutputFormat.table
    plots: Plots = None
    plot_format: PlotFormatOption = None
    by: By = None
    skip_bad: SkipBad = False
    check: Check = True
    html: Html = None
    wide: Wide = False
    to_parquet: ToParquet = False
    workers: Workers = None
    backend: Backend = "local"
    ray_address: RayAddress = None


def analyze(given: AnalyzeCommand) -> None:
    """Turn logs into answers: print reports (rates with 95% confidence intervals).

    Reports: tribute, tribute-card, first-leader, bombs, bombs-by-player, winner-bombs, partners, double-down, deal-length, match-length, levels, wilds, jiefeng, strategy-deals, strategy-matches (see docs/reports.md).
    """
    from guandan_cli.reports import REPORTS
    from guandan_cli.reports import analysis as an

    with reported(bad_input=(an.AnalyzeInputError,), failures=(an.AnalyzeFailure,)):
        names, groups = an.report_names(given.report), an.groupings(given.by)
        if given.to_parquet:
            _check_run_directories(given.runs)
        names, note = an.without_match_reports(given.runs, names, given.report)
        if note is not None:
            click.echo(note, err=True)
        an.check_groupable(groups, names, given.by)
        _check_formats(given.fmt, given.plots, given.plot_format, given.html, given.wide)
        an.check_lone_matches_parts(given.runs)
        _check_outputs(given.plots, given.html)
        _check_workers(given.workers, given.backend)
        if given.to_parquet:
            _convert(given.runs, given.skip_bad, given.check)
            if given.report is None and given.html is None:
                return
        data = _reduce(
            given.runs,
            names,
            groups,
            given.skip_bad,
            given.check,
            given.to_parquet,
            (given.workers, given.backend, given.ray_address),
        )
        results = data.results
    titles = {n: REPORTS[n].title for n in names}
    for line in data.incomplete:  # "PATH: incomplete run: 100 of 300 matches"
        click.echo(line, err=True)
    click.echo(an.render(results, given.fmt.value, titles, wide=given.wide, metadata=an.metadata(data)))
    if given.html is not None:
        _write_html(given.html, given.runs, results, titles, groups, data.skipped)
    if given.plots is not None:
        _write_plots(given.plots, results, (given.plot_format or PlotFormat.png).value)


def _check_run_directories(runs: list[Path]) -> None:
    for run in runs:
        if run.exists() and not run.is_dir():
            fail(
                f"--to-parquet {run}: not a run directory (it writes RUN/deals.parquet and RUN/matches.parquet)"
            )


def _check_formats(fmt: OutputFormat, plots: Path | None, plot_format, html: Path | None, wide: bool) -> None:
    if plot_format is not None and plots is None and html is None:
        fail(f"--plot-format {plot_format.value} goes with --plots DIR (or --html), and neither is given")
    if wide and fmt is not OutputFormat.table:
        fail(f"--wide applies to --format table, not {fmt.value}")


def _check_outputs(plots: Path | None, html: Path | None) -> None:
    """The folder of --plots and the file of --html can be written: refused now, before any work."""
    if plots is not None:
        check_output_dir(plots, "--plots")
    if html is None:
        return
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


def _convert(runs: list[Path], skip_bad: bool, check: bool) -> None:
    """``--to-parquet``: each run's logs as Parquet copies in the run directory."""
    from guandan_cli.reports import ScanStats, convert_to_parquet
    from guandan_cli.reports.analysis import reading

    stats = ScanStats()
    with reading(runs, check):
        for run in runs:
            for path in convert_to_parquet(run, skip_bad=skip_bad, stats=stats):
                click.echo(f"wrote {path}", err=True)
    if skip_bad:
        click.echo(f"skipped {stats.skipped} bad line(s)", err=True)


def _check_workers(workers: int | None, backend: str) -> None:
    from guandan_cli.runner.backends import BACKENDS, workers_problem

    if backend not in BACKENDS:
        fail(f"--backend {backend}: expected one of {', '.join(BACKENDS)}")
    if workers is not None and workers < 1:
        fail(f"--workers must be a positive whole number, got {workers}")
    problem = workers_problem(workers, "--workers") if backend == "local" else None
    if problem is not None:
        fail(problem)


def _reduce(runs: list[Path], names, groups, skip_bad: bool, check: bool, to_parquet: bool, pool):
    """The reports over the runs (``reports.reduce.reduce_runs``), with what was passed over said on stderr."""
    from guandan_cli.reports.analysis import computing, reading
    from guandan_cli.reports.reduce import reduce_runs
    from guandan_cli.runner.backends import BackendError, default_workers, open_backend

    workers, backend, ray_address = pool
    workers = workers or (default_workers() if backend == "local" else None)
    try:
        with reading(runs, check), computing(runs, check):
            data = reduce_runs(
                runs,
                names,
                groups,
                check=check,
                skip_bad=skip_bad,
                workers=workers or default_workers(),
                open_pool=lambda: open_backend(backend, workers, ray_address),
                in_process_when_small=backend == "local",
            )
    except BackendError as exc:
        fail(str(exc), FAILURE)
    for line in data.notices:  # a Parquet copy passed over: its JSONL parts were read
        click.echo(line, err=True)
    if skip_bad and not to_parquet:
        click.echo(f"skipped {data.skipped} bad line(s)", err=True)
        for bad in data.stats.bad[:10]:
            click.echo(f"  {bad}", err=True)
    return data


def _write_html(html: Path, runs: list[Path], results: dict, titles: dict, groups, skipped: int) -> None:
    from guandan_cli.reports import REPORTS
    from guandan_cli.reports.html import render_html, run_info, write_html

    infos = [info for info in (run_info(r) for r in runs if r.is_dir()) if info is not None]
    page = render_html(
        results,
        runs=infos,
        titles=titles,
        definitions={n: REPORTS[n].definition for n in results},
        by=groups,
        skipped=skipped,
    )
    try:
        write_html(html, page)
    except OSError as exc:
        fail(f"cannot write --html {html}: {exc.strerror or exc}", FAILURE)
    click.echo(f"wrote {html}", err=True)


def _write_plots(plots: Path, results: dict, plot_format: str) -> None:
    from guandan_cli.reports.plots import save_plot

    for name, df in results.items():
        try:
            path = save_plot(name, df, plots, plot_format)
        except OSError as exc:
            fail(f"--plots {plots}: cannot write the {name} figure ({exc})", FAILURE)
        click.echo(f"wrote {path}", err=True)

"""`guandan verify`: replay every logged deal and report each illegal or inconsistent line."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import click

from guandan_cli.cli.errors import FAILURE, fail
from guandan_cli.cli.parameters import Argument, Option


class _Bar:
    """A rich progress bar on stderr: deals verified, rate, ETA."""

    def __init__(self, total: int | None) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self._progress = Progress(
            TextColumn("[bold]verify"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("deals  {task.fields[rate]} deals/s"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=Console(stderr=True),
        )
        self._t0 = time.monotonic()
        self._done = 0
        self._task = self._progress.add_task("verify", total=total, rate="-")
        self._progress.start()

    def __call__(self, deals: int) -> None:
        self._done += deals
        dt = time.monotonic() - self._t0
        self._progress.update(self._task, advance=deals, rate=f"{self._done / dt:.0f}" if dt > 0 else "-")

    def close(self) -> None:
        self._progress.stop()


def verify(
    runs: Annotated[list[Path], Argument(help="Run directories or part files.", metavar="RUNS")],
    max_problems: Annotated[int, Option(help="Print at most this many problems (all are counted).")] = 200,
    workers: Annotated[
        int | None,
        Option("--workers", "-w", help="Processes (default: all cores).", show_default=False),
    ] = None,
    quiet: Annotated[bool, Option("--quiet", "-q", help="No progress bar.")] = False,
) -> None:
    """Replay every deal through the engine; print FILE:LINE: REASON for each problem; exit 1 if any."""
    from guandan_cli.cli.errors import interrupted
    from guandan_cli.logreaders.verify import (
        expected_deals,
        inferred_note,
        stray_part_notes,
        unverified_journal_notes,
    )
    from guandan_cli.logreaders.verify import verify as run_verify
    from guandan_cli.logs.reader import LogReadError
    from guandan_cli.runner.backends import default_workers, workers_problem

    if workers is not None and workers < 1:
        fail(f"--workers must be a positive whole number, got {workers}")
    problem = workers_problem(workers, "--workers")  # each is a process: more compete for the cores
    if problem is not None:
        fail(problem)
    if max_problems < 0:
        fail(f"--max-problems must be 0 or more, got {max_problems}")
    workers = workers or default_workers()
    bar = None
    t0 = time.monotonic()
    try:
        total = expected_deals(runs)
        bar = None if quiet else _Bar(total)
        report = run_verify(runs, workers=workers, progress=bar)
    except LogReadError as exc:
        fail(exc)
    except KeyboardInterrupt:
        if bar is not None:
            bar.close()
        interrupted("nothing was changed; rerun verify to check again")
    finally:
        if bar is not None:
            bar.close()
    seconds = time.monotonic() - t0
    if report.files == 0 and report.ok:  # "verified 0 deals: ok" would claim what was not checked
        notes = "; ".join(unverified_journal_notes(runs))
        fail(
            f"nothing to verify: {', '.join(map(str, runs))} holds no complete log part yet"
            + (f" ({notes})" if notes else ""),
            FAILURE,
        )
    for p in report.problems[:max_problems]:
        click.echo(str(p))
    if len(report.problems) > max_problems:
        click.echo(f"… and {len(report.problems) - max_problems} more", err=True)
    verdict = "ok" if report.ok else f"{len(report.problems)} problem(s)"
    rate = f"{report.deals / seconds:.0f}" if seconds > 0 else "-"
    click.echo(
        f"verified {report.deals} deal{'' if report.deals == 1 else 's'} and {report.matches} "
        f"match{'' if report.matches == 1 else 'es'} in {report.files} file{'' if report.files == 1 else 's'}: "
        f"{verdict}"
        f"  ({seconds:.1f} s, {rate} deals/s, {workers} worker{'s' if workers != 1 else ''})"
    )
    if report.no_manifest:  # "ok" checked the lines only: say what it could not check
        click.echo(
            f"note: no manifest in {', '.join(report.no_manifest)}: sha256 checks skipped "
            "(and the lines' run_id, seeds and strategies are not checked against one)",
            err=True,
        )
    for run, options in report.inferred.items():  # replayed with options no manifest gave: say which
        said = inferred_note(options)
        which = (
            f"no manifest in {run}" if run in report.no_manifest else f"the manifest in {run} is unreadable"
        )
        click.echo(f"note: {which}: replayed with {said}", err=True)
    for line in [*unverified_journal_notes(runs), *stray_part_notes(runs)]:
        click.echo(line, err=True)
    if not report.ok:
        raise click.exceptions.Exit(1)

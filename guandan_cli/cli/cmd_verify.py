"""`guandan verify`: replay every logged deal and report each illegal or inconsistent line."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Annotated

import typer

from guandan_cli.cli.errors import FAILURE, fail
from guandan_cli.cli.typer_app import app


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


@app.command()
def verify(
    runs: Annotated[list[Path], typer.Argument(help="Run directories or part files.", metavar="RUNS")],
    max_problems: Annotated[
        int, typer.Option(help="Print at most this many problems (all are counted).")
    ] = 200,
    workers: Annotated[
        int | None,
        typer.Option("--workers", "-w", help="Processes (default: all cores).", show_default=False),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
) -> None:
    """Replay every deal through the engine; print FILE:LINE: REASON for each problem; exit 1 if any."""
    from guandan_cli.cli.errors import interrupted
    from guandan_cli.logs.reader import LogReadError
    from guandan_cli.runner.backends import default_workers, workers_problem
    from guandan_cli.runner.verify import expected_deals
    from guandan_cli.runner.verify import verify as run_verify

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
        notes = "; ".join(_unverified_journals(runs))
        fail(
            f"nothing to verify: {', '.join(map(str, runs))} holds no complete log part yet"
            + (f" ({notes})" if notes else ""),
            FAILURE,
        )
    for p in report.problems[:max_problems]:
        typer.echo(str(p))
    if len(report.problems) > max_problems:
        typer.echo(f"… and {len(report.problems) - max_problems} more", err=True)
    verdict = "ok" if report.ok else f"{len(report.problems)} problem(s)"
    rate = f"{report.deals / seconds:.0f}" if seconds > 0 else "-"
    typer.echo(
        f"verified {report.deals} deal{'' if report.deals == 1 else 's'} and {report.matches} "
        f"match{'' if report.matches == 1 else 'es'} in {report.files} file{'' if report.files == 1 else 's'}: "
        f"{verdict}"
        f"  ({seconds:.1f} s, {rate} deals/s, {workers} worker{'s' if workers != 1 else ''})"
    )
    if report.no_manifest:  # "ok" checked the lines only: say what it could not check
        typer.echo(
            f"note: no manifest in {', '.join(report.no_manifest)}: sha256 checks skipped "
            "(and the lines' run_id, seeds and strategies are not checked against one)",
            err=True,
        )
    for run, options in report.inferred.items():  # replayed with options no manifest gave: say which
        said = ", ".join(_SHOWN_BY[name].format(value) for name, value in options.items())
        which = (
            f"no manifest in {run}" if run in report.no_manifest else f"the manifest in {run} is unreadable"
        )
        typer.echo(f"note: {which}: replayed with {said}", err=True)
    for line in [*_unverified_journals(runs), *_stray_parts(runs)]:
        typer.echo(line, err=True)
    if not report.ok:
        raise typer.Exit(1)


#: where the deal lines show an option the manifest would give (``runner.verify.infer_options``)
_SHOWN_BY = {
    "max_deals": "max_deals {} (from its capped deals)",
    "a_fail_limit": "a_fail_limit {} (from its levels sent back to 2 at A)",
    "setups": "each deal on its own (its matches are single deals from set situations: a setups run)",
    "tribute": "tribute {} (from a tribute paid by a side holding both HR)",
}


_PART_FILE = re.compile(r"(deals|matches)-(\d{5})\.jsonl(\.gz|\.zst)?")


def _stray_parts(runs: list[Path]) -> list[str]:
    """A note per run folder holding part files that are no part of the run (outside its plan,
    or of another compression): no reader reads them, so "ok" would pass over them."""
    from guandan_cli.logs.layout import part_paths, plan_parts, read_manifest

    notes = []
    for run in runs:
        try:
            manifest = read_manifest(run) if run.is_dir() else None
            if manifest is None:
                continue
            cfg = manifest["config"]
            plan = plan_parts(int(cfg["matches"]), int(cfg["part_size"]))
            planned = {p.name for index, _a, _b in plan for p in part_paths(run, index, cfg["compression"])}
            stray = sorted(
                q.name for q in run.iterdir() if _PART_FILE.fullmatch(q.name) and q.name not in planned
            )
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if stray:
            parts = "part 0" if len(plan) == 1 else f"parts 0..{len(plan) - 1}"
            notes.append(
                f"note: {run}: {', '.join(stray)} {'is' if len(stray) == 1 else 'are'} not read: "
                f"the run's {cfg['matches']} matches are {parts}, {'uncompressed' if cfg['compression'] == 'none' else cfg['compression']}"
            )
    return notes


def _unverified_journals(runs: list[Path]) -> list[str]:
    """A note per unfinished run with journaled matches: verify reads complete parts only."""
    from guandan_cli.logs.layout import read_manifest, run_completeness

    notes = []
    for run in runs:
        try:
            manifest = read_manifest(run) if run.is_dir() else None
            c = run_completeness(run, manifest) if manifest is not None else None
        except ValueError:
            continue
        if c is not None and c.journaled_matches:
            notes.append(
                f"note: {run}: {c.describe()}; verify checks complete parts only, not the "
                f"{c.journaled_matches} journaled matches of unfinished parts (resume the run to verify them)"
            )
    return notes

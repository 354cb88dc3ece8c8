"""`guandan verify`: replay every logged deal and report each illegal or inconsistent line."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from guandan_cli.cli.app import app
from guandan_cli.cli.errors import fail


@app.command()
def verify(
    runs: Annotated[list[Path], typer.Argument(help="Run directories or part files.")],
    max_problems: Annotated[
        int, typer.Option(help="Print at most this many problems (all are counted).")
    ] = 200,
) -> None:
    """Replay every deal through the engine; print FILE:LINE: REASON for each problem; exit 1 if any."""
    from guandan_cli.logs.reader import LogReadError
    from guandan_cli.runner.verify import verify as run_verify

    try:
        report = run_verify(runs)
    except LogReadError as exc:
        fail(exc)
    for p in report.problems[:max_problems]:
        typer.echo(str(p))
    if len(report.problems) > max_problems:
        typer.echo(f"… and {len(report.problems) - max_problems} more", err=True)
    verdict = "ok" if report.ok else f"{len(report.problems)} problem(s)"
    typer.echo(
        f"verified {report.deals} deals and {report.matches} matches in {report.files} files: {verdict}"
    )
    if not report.ok:
        raise typer.Exit(1)

"""`guandan replay`: show one logged deal as a person reads it."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from guandan_cli.cli.errors import FAILURE, fail
from guandan_cli.cli.typer_app import app


@app.command()
def replay(
    run: Annotated[Path, typer.Argument(help="Run directory (or a deals part file).", metavar="RUN")],
    match: Annotated[int, typer.Option("--match", "-m", help="Match index.")] = 0,
    deal: Annotated[
        int | None,
        typer.Option(
            "--deal", "-d", help="Deal index within the match (default: its first deal).", show_default=False
        ),
    ] = None,
    symbols: Annotated[bool, typer.Option(help="Suit symbols ♠♥♣♦ (else S H C D).")] = True,
) -> None:
    """Replay deal DEAL of match MATCH: hands, tribute and return, tricks, finish order, upgrade."""
    from guandan_cli.engine.deal import IllegalActionError
    from guandan_cli.logs.reader import LogLineError, LogReadError
    from guandan_cli.runner.replay import DealNotFound, find_deal, render_deal
    from guandan_cli.runner.rundir import read_manifest

    try:
        path, line, rec, prev = find_deal(run, match, deal)
        manifest = read_manifest(run) if run.is_dir() else None
        options = (manifest or {}).get("config", {})
        text = render_deal(rec, prev, symbols=symbols, options=options)
    except (LogLineError, IllegalActionError) as exc:  # the log is corrupt or does not replay
        fail(exc, FAILURE)
    except (DealNotFound, LogReadError, ValueError) as exc:  # no such run, match or deal
        fail(exc)
    typer.echo(f"{path}:{line}")
    typer.echo(text)

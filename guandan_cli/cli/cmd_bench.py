"""`guandan bench`: rerunnable speed figures (legal plays now; deals/s once the runner exists)."""

from __future__ import annotations

from typing import Annotated

import typer

from guandan_cli.cli.app import app


@app.command()
def bench(
    positions: Annotated[int, typer.Option(help="Seeded positions per figure.")] = 2000,
    seed: Annotated[int, typer.Option(help="Seed of the position set.")] = 1,
) -> None:
    """Print median µs per legal_plays call (leading from 27 cards, following a random play)."""
    from guandan_cli.bench import bench_legal_plays

    for line in bench_legal_plays(positions=positions, seed=seed):
        typer.echo(line)

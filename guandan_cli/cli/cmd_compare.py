"""`guandan compare` and `guandan tournament`: duplicate-pair strategy comparisons."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from guandan_cli.cli.app import app
from guandan_cli.cli.errors import FAILURE, check_output_file, fail


@app.command()
def compare(
    a: Annotated[str, typer.Argument(help="Strategy A: a name, module:Class or file.py:Class.")],
    b: Annotated[str, typer.Argument(help="Strategy B.")],
    matches: Annotated[
        int, typer.Option("--matches", "-n", help="Duplicate pairs (each is 2 matches).")
    ] = 100,
    seed: Annotated[int, typer.Option(help="Root seed.")] = 0,
    workers: Annotated[int | None, typer.Option(help="Worker processes (default: all cores).")] = None,
    out: Annotated[Path, typer.Option(help="Folder for the two runs' logs.")] = Path("runs/compare"),
    ruleset: Annotated[str, typer.Option(help="cgr2022 or jiangsu2017.")] = "cgr2022",
    max_deals: Annotated[int | None, typer.Option(help="Cap each match at this many deals.")] = None,
    unpaired: Annotated[
        bool, typer.Option(help="Use other seeds for the swapped seating (for contrast).")
    ] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
) -> None:
    """Compare A with B over duplicate pairs: each seed played twice with the teams swapped."""
    from guandan_cli.comparison import compare as run_compare

    try:
        res = run_compare(
            a,
            b,
            matches=matches,
            seed=seed,
            workers=workers,
            out=out,
            ruleset=ruleset,
            max_deals=max_deals,
            paired=not unpaired,
            progress=not quiet,
        )
    except (ValueError, RuntimeError) as exc:
        fail(exc)
    design = "duplicate pairs" if res.paired else "unpaired"
    typer.echo(f"{res.a} vs {res.b}: {res.matches} {design} = {res.games} matches, {res.deals} deals")
    typer.echo(
        f"  matches won by {res.a}: {res.match_wins}, by {res.b}: {res.match_losses}, unfinished: {res.match_unfinished}"
    )
    typer.echo(res.verdict())
    typer.echo(f"logs: {res.runs[0].path} and {res.runs[1].path}")


@app.command()
def tournament(
    strategies: Annotated[list[str], typer.Argument(help="Two or more strategies.")],
    matches: Annotated[int, typer.Option("--matches", "-n", help="Duplicate pairs per pairing.")] = 50,
    seed: Annotated[int, typer.Option(help="Root seed.")] = 0,
    workers: Annotated[int | None, typer.Option(help="Worker processes (default: all cores).")] = None,
    out: Annotated[Path, typer.Option(help="Folder for the runs' logs.")] = Path("runs/tournament"),
    ruleset: Annotated[str, typer.Option(help="cgr2022 or jiangsu2017.")] = "cgr2022",
    max_deals: Annotated[int | None, typer.Option(help="Cap each match at this many deals.")] = None,
    plot: Annotated[
        Path | None, typer.Option(help="Write the win-rate matrix plot here (.png or .svg).")
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
) -> None:
    """Round robin of duplicate pairs: a leaderboard (openskill) and a win-rate matrix."""
    from guandan_cli.comparison import tournament as run_tournament

    if plot is not None:  # before the tournament runs, not after
        check_output_file(plot, "--plot", (".png", ".svg"))
    try:
        res = run_tournament(
            strategies,
            matches=matches,
            seed=seed,
            workers=workers,
            out=out,
            ruleset=ruleset,
            max_deals=max_deals,
            progress=not quiet,
        )
    except (ValueError, RuntimeError) as exc:
        fail(exc)
    import polars as pl

    with pl.Config(tbl_rows=50, tbl_cols=20, float_precision=3, tbl_hide_dataframe_shape=True):
        typer.echo("leaderboard")
        typer.echo(str(res.leaderboard))
        typer.echo("match win rate, row against column")
        typer.echo(str(res.matrix))
    for r in res.results.values():
        typer.echo(r.verdict())
    if plot is not None:
        try:
            plot.parent.mkdir(parents=True, exist_ok=True)
            res.plot(plot)
        except OSError as exc:
            fail(f"--plot {plot}: cannot write the plot ({exc})", FAILURE)
        typer.echo(f"plot: {plot}")

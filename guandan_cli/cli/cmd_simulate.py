"""`guandan simulate`: play a seeded run of matches into a run directory (see guandan_cli.runner)."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Annotated

import typer

from guandan_cli.cli.bot_errors import TracebackOption, run_failed
from guandan_cli.cli.errors import fail, interrupted
from guandan_cli.cli.typer_app import app


def _command_line(ctx: typer.Context) -> str:
    """The options given on the command line, in long form (how the manifest records the run)."""
    parts = ["guandan", ctx.info_name or "simulate"]
    for param in ctx.command.params:
        source = ctx.get_parameter_source(param.name)
        if source is None or source.name != "COMMANDLINE":
            continue
        value = ctx.params[param.name]
        flag = max(param.opts, key=len)
        if isinstance(value, bool):
            parts.append(flag if value else max(param.secondary_opts or [flag], key=len))
        else:
            parts += [flag, str(value)]
    return shlex.join(parts)


@app.command()
def simulate(
    ctx: typer.Context,
    matches: Annotated[
        int | None,
        typer.Option("--matches", "-n", help="Matches to play (default: 100).", show_default=False),
    ] = None,
    seed: Annotated[int | None, typer.Option(help="Root seed (default: 0).", show_default=False)] = None,
    strategies: Annotated[
        str | None,
        typer.Option(
            "--strategies",
            "-s",
            help="One name (every seat), two (seats 0/2 and 1/3) or four (seats 0-3), comma-separated; "
            "built-ins, plugins, module:Class or file.py:Class (default: heuristic).",
            show_default=False,
        ),
    ] = None,
    ruleset: Annotated[
        str | None, typer.Option(help="cgr2022 or jiangsu2017 (default: cgr2022).", show_default=False)
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option("--workers", "-w", help="Processes (default: all cores).", show_default=False),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            help="Run directory (default: runs/STRATEGIES-RULESET-sSEED-nMATCHES, then -dMAX_DEALS, -aA_FAIL_LIMIT, -setups_…, -tribute_… when set).",
            show_default=False,
        ),
    ] = None,
    max_deals: Annotated[
        int | None, typer.Option(help="Cap each match at this many deals (capped = unfinished).")
    ] = None,
    a_fail_limit: Annotated[
        int | None, typer.Option(help="Failures at one's own A before the level goes back to 2.")
    ] = None,
    compression: Annotated[
        str | None, typer.Option(help="none, gzip or zstd (default: none).", show_default=False)
    ] = None,
    on_error: Annotated[
        str,
        typer.Option(
            help="stop: a failing strategy stops the run; record: record the match as errored, go on."
        ),
    ] = "stop",
    resume: Annotated[bool, typer.Option(help="Continue the unfinished run in --out.")] = False,
    force: Annotated[bool, typer.Option(help="Overwrite the run in --out, complete or not.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar, no summary.")] = False,
    backend: Annotated[
        str, typer.Option(help="local, or ray (needs the ray extra: pip install 'guandan[ray]').")
    ] = "local",
    ray_address: Annotated[
        str | None, typer.Option(help="Ray cluster address (default: RAY_ADDRESS, else a local Ray).")
    ] = None,
    chunk_size: Annotated[
        int | None,
        typer.Option(
            help="Matches per task (never changes the log; a kill loses about workers × this many) (default: up to 8)."
        ),
    ] = None,
    part_size: Annotated[
        int | None, typer.Option(help="Matches per log part (default: 1000).", show_default=False)
    ] = None,
    encoding: Annotated[
        str | None,
        typer.Option(
            help="Input encoding of onnx:model.onnx strategies that name none (guandan, danzero, danzero-danlm)."
        ),
    ] = None,
    traceback: TracebackOption = False,
) -> None:
    """Play seeded matches between bots; write a resumable, deterministic JSON Lines log."""
    from guandan_cli.runner.simulation import (
        SimulationError,
        SimulationInputError,
        SimulationInterrupted,
        interruption,
    )
    from guandan_cli.runner.simulation import simulate as run_simulation
    from guandan_cli.strategies.onnx_model import apply_encoding

    try:
        strategies = (
            strategies
            if encoding is None
            else ",".join(apply_encoding((strategies or "").split(","), encoding))
        )
    except ValueError as exc:
        fail(str(exc))
    try:
        run = run_simulation(
            matches,
            seed=seed,
            strategies=strategies,
            ruleset=ruleset,
            max_deals=max_deals,
            a_fail_limit=a_fail_limit,
            out=out,
            workers=workers,
            compression=compression,
            on_error=on_error,
            backend=backend,
            ray_address=ray_address,
            resume=resume,
            force=force,
            chunk_size=chunk_size,
            part_size=part_size,
            progress=not quiet,
            command=_command_line(ctx),
        )
    except SimulationInputError as exc:
        fail(exc)
    except SimulationError as exc:
        run_failed(exc, traceback)
    except SimulationInterrupted as exc:  # at any moment after the output folder was chosen
        interrupted(exc.resume_hint())
    except KeyboardInterrupt:  # before simulate() knew its output folder
        interrupted("before the run started: nothing was written")
    try:
        if run.already_complete:
            c = run.counts
            typer.echo(
                f"{run.path}: run already complete ({c['matches']} match{'' if c['matches'] == 1 else 'es'}, "
                f"{c['deals']} deal{'' if c['deals'] == 1 else 's'}); nothing to do"
            )
        elif not quiet:
            typer.echo(run.summary())
    except KeyboardInterrupt:  # while printing the summary: the run is written
        interrupted(interruption(run.path).resume_hint())

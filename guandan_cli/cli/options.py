"""What several commands share: option definitions, the command line as typed, and how the
Python API's errors map to the one error style (``cli/errors.py``).

Each ``cmd_*`` module defines plain functions whose parameters are ``Annotated`` options;
``cli/typer_app.py`` builds the app from them. An option two commands define alike is
defined here once (its help text is what ``--help`` prints, and what the start-up path's
stored texts hold: rebuild them with ``python -m guandan_cli.cli.fast_path_build``).
A command never imports another command.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Annotated

import typer

from guandan_cli.cli.errors import FAILURE, fail, interrupted

# ------------------------------------------------------------------ options

Quiet = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")]
Encoding = Annotated[
    str | None,
    typer.Option(help="Input encoding of onnx:model.onnx strategies that name none (guandan, danzero)."),
]
#: the rulesets' names (simulate says its default in its own words)
Ruleset = Annotated[str, typer.Option(help="cgr2022 or jiangsu2017.")]
MaxDeals = Annotated[int | None, typer.Option(help="Cap each match at this many deals.")]
AFailLimit = Annotated[
    int | None, typer.Option(help="Failures at one's own A before the level goes back to 2.")
]
#: the workers of a comparison
PoolWorkers = Annotated[
    int | None, typer.Option("--workers", "-w", help="Worker processes (default: all cores).")
]
#: the workers of a run (or an experiment's runs)
Workers = Annotated[
    int | None,
    typer.Option("--workers", "-w", help="Processes (default: all cores).", show_default=False),
]
RootSeed = Annotated[int, typer.Option(help="Root seed.")]
Duplicate = Annotated[
    str,
    typer.Option(
        help="match: each match seed played twice with the teams swapped; deal: each deal setup played twice "
        "with the teams swapped (same luck per deal: narrower intervals for the same time)."
    ),
]
Setups = Annotated[
    str,
    typer.Option(
        help="With --duplicate deal: fresh (level 2, no tribute), random (random levels and tribute "
        "situations) or a run directory (its logged deals)."
    ),
]
#: a comparison's --on-error (simulate explains its own)
CountOnError = Annotated[
    str, typer.Option(help="stop: a strategy failure stops; record: count the match as unfinished.")
]


# ------------------------------------------------------------------ the command line


def command_line(ctx: typer.Context) -> str:
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


def notice(message: str) -> None:
    """A line on stderr that is no error (``reusing the stored results in …``)."""
    typer.echo(message, err=True)


# ------------------------------------------------------------------ errors


@contextmanager
def reported(
    bad_input: tuple[type[BaseException], ...] = (),
    failures: tuple[type[BaseException], ...] = (),
    interrupt: str | Callable[[KeyboardInterrupt], str] = "",
) -> Iterator[None]:
    """The Python API's errors as one line each: ``failures`` and a stopped run
    (``SimulationError``) exit 1, ``bad_input`` exit 2, Ctrl-C exit 130 with the hint
    ``interrupt`` (or ``interrupt(exc)``)."""
    from guandan_cli.runner.errors import SimulationError

    try:
        yield
    except failures as exc:
        fail(exc, FAILURE)
    except SimulationError as exc:
        fail(exc, FAILURE)
    except bad_input as exc:
        fail(exc)
    except KeyboardInterrupt as exc:
        interrupted(interrupt(exc) if callable(interrupt) else interrupt)


def run_interrupt_hint(exc: KeyboardInterrupt) -> str:
    """What a Ctrl-C during ``simulate`` saved: its ``SimulationInterrupted`` says, else nothing was."""
    from guandan_cli.runner.errors import SimulationInterrupted

    if isinstance(exc, SimulationInterrupted):  # at any moment after the output folder was chosen
        return exc.resume_hint()
    return "before the run started: nothing was written"  # before simulate() knew its folder


__all__ = [
    "AFailLimit",
    "CountOnError",
    "Duplicate",
    "Encoding",
    "MaxDeals",
    "PoolWorkers",
    "Quiet",
    "RootSeed",
    "Ruleset",
    "Setups",
    "Workers",
    "command_line",
    "notice",
    "reported",
    "run_interrupt_hint",
]

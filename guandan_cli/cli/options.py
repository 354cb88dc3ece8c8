"""What several commands share: option definitions, the command line as typed, and how the
Python API's errors map to the one error style (``cli/errors.py``), a failing bot's
traceback included.

Each ``cmd_*`` module defines plain functions whose parameters are ``Annotated`` options;
``cli/commands.py`` builds the app from them (``cli/parameters.py``). An option two
commands define alike is defined here once (its help text is what ``--help`` prints).
A command never imports another command.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, NoReturn

import click

from guandan_cli.cli.errors import FAILURE, fail, interrupted
from guandan_cli.cli.parameters import Argument, Option

# ------------------------------------------------------------------ options

Quiet = Annotated[bool, Option("--quiet", "-q", help="No progress bar (simulate: no summary either).")]
Encoding = Annotated[
    str | None,
    Option(
        help="Input encoding of onnx:model.onnx strategies that name none (guandan, danzero, danzero-danlm)."
    ),
]
#: the rulesets' names (simulate's default ``None`` is a stored run's ruleset, else cgr2022)
Ruleset = Annotated[str | None, Option(help="cgr2022 or jiangsu2017 (default: cgr2022).", show_default=False)]
#: the deal a command shows (replay, review): the run, the match and the deal in it
LoggedRun = Annotated[Path, Argument(help="Run directory (or a deals part file).", metavar="RUN")]
MatchIndex = Annotated[int, Option("--match", "-m", help="Match index.")]
DealIndex = Annotated[
    int | None,
    Option("--deal", "-d", help="Deal index within the match (default: its first deal).", show_default=False),
]
MaxDeals = Annotated[
    int | None, Option(help="Cap each match at this many deals (a capped match is unfinished).")
]
AFailLimit = Annotated[int | None, Option(help="Failures at one's own A before the level goes back to 2.")]
#: the workers of a comparison
PoolWorkers = Annotated[int | None, Option("--workers", "-w", help="Worker processes (default: all cores).")]
#: the workers of a run (or an experiment's runs)
Workers = Annotated[
    int | None,
    Option("--workers", "-w", help="Processes (default: all cores).", show_default=False),
]
RootSeed = Annotated[int, Option(help="Root seed.")]
Duplicate = Annotated[
    str,
    Option(
        help="match: each match seed played twice with the teams swapped; deal: each deal setup played twice "
        "with the teams swapped (same luck per deal: narrower intervals for the same time)."
    ),
]
Setups = Annotated[
    str,
    Option(
        help="With --duplicate deal: fresh (level 2, no tribute), random (random levels and tribute "
        "situations) or a run directory (its logged deals)."
    ),
]
#: a comparison's --on-error (simulate explains its own)
CountOnError = Annotated[
    str, Option(help="stop: a strategy failure stops; record: count the match as unfinished.")
]

#: a bot's time per decision, and a worker's memory (``runner.supervisor``), for every command that runs bots
DecisionTimeoutOption = Annotated[
    float | None,
    Option(
        "--decision-timeout",
        help="Seconds a bot may take over one decision before it fails (its match errored); 0: no limit (default: 60).",
        show_default=False,
    ),
]
MaxMemoryOption = Annotated[
    str | None,
    Option(
        "--max-memory",
        help="Address space per worker process, e.g. 2G: a bot over it fails with MemoryError (default: no limit).",
        show_default=False,
    ),
]


@contextmanager
def run_limits(decision_timeout: float | None, max_memory: str | None) -> Iterator[None]:
    """The runs started inside take these limits (checked first: one line naming the option, exit 2)."""
    from guandan_cli.runner import supervisor

    try:
        supervisor.check_decision_timeout(decision_timeout)
        supervisor.parse_memory(max_memory)
    except ValueError as exc:
        fail(exc)
    with supervisor.given_limits(decision_timeout, max_memory):
        yield


#: the environment variable that asks for a failing bot's traceback (as ``--traceback`` does)
TRACEBACK_ENV = "GUANDAN_TRACEBACK"

#: the ``--traceback`` switch of the commands that run bots
TracebackOption = Annotated[
    bool,
    Option(
        "--traceback",
        help=f"When a bot raises, print its whole traceback (from the worker) before the error line (or set {TRACEBACK_ENV}=1).",
    ),
]


# ------------------------------------------------------------------ the command line


def command_line(ctx: click.Context) -> str:
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
    click.echo(message, err=True)


# ------------------------------------------------------------------ errors


@contextmanager
def reported(
    bad_input: tuple[type[BaseException], ...] = (),
    failures: tuple[type[BaseException], ...] = (),
    interrupt: str | Callable[[KeyboardInterrupt], str] = "",
    traceback: bool = False,
) -> Iterator[None]:
    """The Python API's errors as one line each: ``failures`` and a stopped run
    (``SimulationError``: see ``run_failed``, ``traceback`` its ``--traceback``) exit 1,
    ``bad_input`` exit 2, Ctrl-C exit 130 with the hint ``interrupt`` (or ``interrupt(exc)``)."""
    from guandan_cli.runner.errors import SimulationError

    try:
        yield
    except failures as exc:
        fail(exc, FAILURE)
    except SimulationError as exc:
        run_failed(exc, traceback)
    except bad_input as exc:
        fail(exc)
    except KeyboardInterrupt as exc:
        interrupted(interrupt(exc) if callable(interrupt) else interrupt)


def traceback_wanted(flag: bool, environ: Mapping[str, str] = os.environ) -> bool:
    """Whether to print a failing bot's traceback: ``--traceback``, or ``GUANDAN_TRACEBACK`` set to
    anything but ``""`` or ``"0"``.

    >>> traceback_wanted(False, {"GUANDAN_TRACEBACK": "1"}), traceback_wanted(False, {"GUANDAN_TRACEBACK": "0"})
    (True, False)
    """
    return flag or environ.get(TRACEBACK_ENV, "") not in ("", "0")


def run_failed(exc: BaseException, flag: bool = False) -> NoReturn:
    """Exit 1 with ``exc``'s one line, after the bot's traceback when one is wanted.

    The error line names the innermost frame in the bot's own file
    (``… deal 2: mybot.py:17 in choose_play: RuntimeError: boom``, built in
    :mod:`guandan_cli.engine.failures`). ``--traceback`` (or ``GUANDAN_TRACEBACK=1`` in the
    environment) prints, before it, the whole traceback of the bot's exception as the process
    that ran the bot formatted it (a worker's, with ``-w 2``); without it, the line says how
    to see the traceback.
    """
    failure = getattr(exc, "failure", None)
    if failure is None:
        fail(exc, FAILURE)
    if traceback_wanted(flag):
        click.echo(failure.traceback.rstrip("\n"), err=True)
        fail(exc, FAILURE)
    fail(f"{exc}; --traceback prints the bot's whole traceback", FAILURE)


def run_interrupt_hint(exc: KeyboardInterrupt) -> str:
    """What a Ctrl-C during ``simulate`` saved: its ``SimulationInterrupted`` says, else nothing was."""
    from guandan_cli.runner.errors import SimulationInterrupted

    if isinstance(exc, SimulationInterrupted):  # at any moment after the output folder was chosen
        return exc.resume_hint()
    return "before the run started: nothing was written"  # before simulate() knew its folder


__all__ = [
    "AFailLimit",
    "CountOnError",
    "DecisionTimeoutOption",
    "MaxMemoryOption",
    "Duplicate",
    "Encoding",
    "MaxDeals",
    "PoolWorkers",
    "Quiet",
    "TRACEBACK_ENV",
    "RootSeed",
    "Ruleset",
    "Setups",
    "TracebackOption",
    "Workers",
    "command_line",
    "notice",
    "reported",
    "run_failed",
    "run_interrupt_hint",
    "run_limits",
    "traceback_wanted",
]

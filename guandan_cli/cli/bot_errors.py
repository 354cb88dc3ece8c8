"""A run stopped by a bot's exception: the one error line, and on request the whole traceback.

The error line names the innermost frame in the bot's own file
(``… deal 2: mybot.py:17 in choose_play: RuntimeError: boom``, built in
:mod:`guandan_cli.engine.failures`). ``--traceback`` (or ``GUANDAN_TRACEBACK=1`` in the
environment) prints, before it, the whole traceback of the bot's exception as the process
that ran the bot formatted it (a worker's, with ``-w 2``).

>>> traceback_wanted(False, {"GUANDAN_TRACEBACK": "1"}), traceback_wanted(False, {"GUANDAN_TRACEBACK": "0"})
(True, False)
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Annotated, NoReturn

import typer

from guandan_cli.cli.errors import FAILURE, fail

#: the environment variable that asks for a failing bot's traceback (as ``--traceback`` does)
TRACEBACK_ENV = "GUANDAN_TRACEBACK"

#: the ``--traceback`` switch of the commands that run bots
TracebackOption = Annotated[
    bool,
    typer.Option(
        "--traceback",
        help=f"When a bot raises, print its whole traceback (from the worker) before the error line (or set {TRACEBACK_ENV}=1).",
    ),
]


def traceback_wanted(flag: bool, environ: Mapping[str, str] = os.environ) -> bool:
    """Whether to print a failing bot's traceback: ``--traceback``, or ``GUANDAN_TRACEBACK`` set to
    anything but ``""`` or ``"0"``."""
    return flag or environ.get(TRACEBACK_ENV, "") not in ("", "0")


def run_failed(exc: BaseException, flag: bool = False) -> NoReturn:
    """Exit 1 with ``exc``'s one line, after the bot's traceback when one is wanted (see the
    module docstring); without it, the line says how to see the traceback."""
    failure = getattr(exc, "failure", None)
    if failure is None:
        fail(exc, FAILURE)
    if traceback_wanted(flag):
        typer.echo(failure.traceback.rstrip("\n"), err=True)
        fail(exc, FAILURE)
    fail(f"{exc}; --traceback prints the bot's whole traceback", FAILURE)


__all__ = ["TRACEBACK_ENV", "TracebackOption", "run_failed", "traceback_wanted"]

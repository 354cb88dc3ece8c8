"""One error style for every command: a single line on stderr and a fixed exit code.

``guandan: error: <what was wrong, naming the input and the rule>``

Exit codes: 2 for bad input (checked before any work starts), 1 for a failure while
working, 130 for an interrupt (Ctrl-C). Commands call :func:`fail` rather than
printing errors themselves, so the style lives in one place.
"""

from __future__ import annotations

from typing import NoReturn

import typer

BAD_INPUT = 2
FAILURE = 1
INTERRUPTED = 130
PREFIX = "guandan: error: "


def error_line(message: object) -> str:
    """The one-line form of ``message`` (newlines folded), with the common prefix.

    >>> error_line("unknown strategy 'x'")
    "guandan: error: unknown strategy 'x'"
    """
    text = " ".join(str(message).split())
    return text if text.startswith(PREFIX) else PREFIX + text


def fail(message: object, code: int = BAD_INPUT) -> NoReturn:
    """Print ``message`` as one ``guandan: error:`` line on stderr and exit with ``code``."""
    typer.echo(error_line(message), err=True)
    raise typer.Exit(code)


def interrupted(hint: str = "") -> NoReturn:
    """Report a Ctrl-C in one line (with an optional hint such as how to resume) and exit 130."""
    typer.echo(f"guandan: interrupted{': ' + hint if hint else ''}", err=True)
    raise typer.Exit(INTERRUPTED)

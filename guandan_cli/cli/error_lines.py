"""The one-line error style itself, importable without Typer: prefix, exit codes, lines.

:mod:`guandan_cli.cli.errors` builds ``fail`` and ``interrupted`` on these for the commands;
the Typer-free start-up path (:mod:`guandan_cli.cli.fast_path`) prints the same lines.
"""

from __future__ import annotations

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


def interrupted_line(hint: str = "") -> str:
    """The line printed for a Ctrl-C, with an optional hint such as how to resume.

    >>> interrupted_line()
    'guandan: interrupted'
    >>> interrupted_line("resume with: guandan simulate --resume runs/x")
    'guandan: interrupted: resume with: guandan simulate --resume runs/x'
    """
    return f"guandan: interrupted{': ' + hint if hint else ''}"

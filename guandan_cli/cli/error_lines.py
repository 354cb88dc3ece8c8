"""The one-line error style itself, importable without Click: prefix, exit codes, lines.

:mod:`guandan_cli.cli.errors` builds ``fail`` and ``interrupted`` on these for the commands;
the console script (:mod:`guandan_cli.cli.app`) prints the same lines for what it catches.
"""

from __future__ import annotations

BAD_INPUT = 2
FAILURE = 1
INTERRUPTED = 130
PREFIX = "guandan: error: "
#: the signal that stopped the command (SIGTERM or SIGHUP, set by ``app``'s handler), if any
STOPPED_BY: list[int] = []


def interrupted_code() -> int:
    """The exit code of an interruption: 130 for Ctrl-C, 128 + the signal's number for
    SIGTERM (143) or SIGHUP (129), the shell's convention, so a scheduler can tell which.

    >>> interrupted_code()
    130
    """
    return 128 + STOPPED_BY[-1] if STOPPED_BY else INTERRUPTED


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


#: write errors that are the machine's, not a bug: a full disk or quota, a file too large,
#: a read-only file system, an I/O error
WRITE_ERRNOS = frozenset({28, 122, 27, 30, 5})  # ENOSPC, EDQUOT, EFBIG, EROFS, EIO


def write_error_line(exc: BaseException) -> str | None:
    """The one line for an output that could not be written (a full disk…), else ``None``.

    >>> write_error_line(OSError(28, "No space left on device"))
    'guandan: error: cannot write the output: No space left on device'
    >>> write_error_line(ValueError("x")) is None
    True
    """
    if not isinstance(exc, OSError) or exc.errno not in WRITE_ERRNOS:
        return None
    where = f" {exc.filename}" if exc.filename else " the output"
    return error_line(f"cannot write{where}: {exc.strerror or exc}")

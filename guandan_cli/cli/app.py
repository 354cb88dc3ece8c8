"""The ``guandan`` console script: :func:`main`, which runs the Click group of
:mod:`guandan_cli.cli.commands` (``from guandan_cli.cli.app import app`` gives that group,
imported on first use).

This module imports nothing heavy, so a Ctrl-C during the start-up imports is caught by
:func:`main` too: one ``guandan: interrupted`` line and exit 130 (143 for SIGTERM, 129 for SIGHUP), never a
traceback.
"""

from __future__ import annotations

import sys

from guandan_cli.cli.error_lines import (
    FAILURE,
    STOPPED_BY,
    interrupted_code,
    interrupted_line,
    write_error_line,
)


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP (``kill``, a scheduler, a closed terminal): stops a command as Ctrl-C
    does (one line, the run interrupted and resumable, its workers stopped by this process)."""


def _stop_as_ctrl_c(signum, frame) -> None:
    STOPPED_BY.append(signum)
    raise Terminated(signum)


def _handle_stop_signals() -> dict[int, object]:
    """SIGTERM and SIGHUP raise ``Terminated`` in the main thread (unless ignored already, as
    ``nohup`` does for SIGHUP); returns the handlers replaced."""
    import _signal  # not ``signal``: its enums cost about a millisecond of start-up

    replaced = {}
    for name in ("SIGTERM", "SIGHUP"):
        signum = getattr(_signal, name, None)
        if signum is not None and _signal.getsignal(signum) == _signal.SIG_DFL:
            replaced[signum] = _signal.signal(signum, _stop_as_ctrl_c)
    return replaced


def main(argv: list[str] | None = None) -> None:
    """Run ``guandan`` on ``argv`` (default: ``sys.argv``); always ends by raising ``SystemExit``.

    Without ``argv`` this is the process's last act (the console script): once the command is
    over, late Ctrl-C, SIGTERM and SIGHUP are ignored while Python shuts down. With ``argv`` (a
    program or a test running guandan inside its own process) the process goes on: its signal
    handlers are left as they were found.

    >>> import pytest
    >>> with pytest.raises(SystemExit) as stop:
    ...     main(["--version"])  # doctest: +ELLIPSIS
    guandan ...
    >>> stop.value.code
    0
    """
    replaced = _handle_stop_signals()
    last_act = argv is None
    try:
        from guandan_cli.cli.commands import app

        app(args=argv)  # raises SystemExit
    except SystemExit:
        if last_act:
            _ignore_late_ctrl_c()
        raise
    except OSError as exc:
        line = write_error_line(exc)
        if line is None:
            raise
        _stderr_line(line)
        raise SystemExit(FAILURE) from None
    except KeyboardInterrupt:
        if sys.stderr is not None:
            sys.stderr.write(interrupted_line() + "\n")
            sys.stderr.flush()
        if last_act:
            _ignore_late_ctrl_c()
        raise SystemExit(interrupted_code()) from None
    finally:
        if not last_act:
            import _signal

            for signum, handler in replaced.items():
                _signal.signal(signum, handler)


def _ignore_late_ctrl_c() -> None:
    """The command is over (its logs written): a Ctrl-C from here on is ignored. Python puts
    SIGINT back to the default action while it shuts down, so one arriving then killed the
    process silently (exit -2) after a complete run; an ignored signal stays ignored."""
    import signal
    import threading

    if threading.current_thread() is threading.main_thread():
        for name in ("SIGINT", "SIGTERM", "SIGHUP"):
            if hasattr(signal, name):
                signal.signal(getattr(signal, name), signal.SIG_IGN)


def _stderr_line(line: str) -> None:
    try:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
    except OSError:  # stderr on the full disk too: the exit code says it
        pass


def __getattr__(name: str):
    """``app``: the Click group of every command, imported on first use."""
    if name == "app":
        from guandan_cli.cli.commands import app

        return app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

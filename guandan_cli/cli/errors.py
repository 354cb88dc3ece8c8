"""One error style for every command: a single line on stderr and a fixed exit code.

``guandan: error: <what was wrong, naming the input and the rule>``

Exit codes: 2 for bad input (checked before any work starts), 1 for a failure while
working, 130 for an interrupt (Ctrl-C). Commands call :func:`fail` rather than
printing errors themselves, so the style lives in one place. Usage errors found by
Click itself (an unknown option, a bad choice, a missing argument) get the same
one line through :class:`OneLineErrors`, the app's command group. The lines themselves
are built in :mod:`guandan_cli.cli.error_lines` (no Click: :mod:`guandan_cli.cli.app` uses them).
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path
from typing import Any, NoReturn

import click

from guandan_cli.cli.error_lines import (  # noqa: F401 - re-exported: the commands import them from here
    BAD_INPUT,
    FAILURE,
    PREFIX,
    error_line,
    interrupted_code,
    interrupted_line,
    write_error_line,
)


def fail(message: object, code: int = BAD_INPUT) -> NoReturn:
    """Print ``message`` as one ``guandan: error:`` line on stderr and exit with ``code``."""
    click.echo(error_line(message), err=True)
    raise click.exceptions.Exit(code)


def interrupted(hint: str = "") -> NoReturn:
    """Report a Ctrl-C (or SIGTERM, SIGHUP) in one line (with an optional hint such as how to
    resume) and exit 130 (143, 129: ``interrupted_code``)."""
    click.echo(interrupted_line(hint), err=True)
    raise click.exceptions.Exit(interrupted_code())


#: the longest ``--delay`` a command accepts, in seconds (an hour: more is a mistake, and
#: ``time.sleep`` refuses what does not fit its clock)
MAX_DELAY = 3600.0


def check_delay(delay: float, option: str = "--delay") -> None:
    """Refuse (exit 2) a pause that is not a finite number of seconds from 0 to ``MAX_DELAY``."""
    import math

    if not (math.isfinite(delay) and 0 <= delay <= MAX_DELAY):
        fail(f"{option} must be a finite number of seconds from 0 to {MAX_DELAY:g}, got {delay:g}")


def _probe_write(directory: Path) -> None:
    """Create ``directory`` if needed and write (then delete) a file in it; OSError if impossible."""
    directory.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=directory, prefix=".guandan-probe-"):
        pass


def check_output_dir(path: Path, option: str) -> None:
    """Refuse (exit 2) an output folder that is a file or cannot be written — before any work.

    The folder is created if it does not exist (it is about to be used).
    """
    from guandan_cli.logs.layout import file_in_the_way

    blocker = file_in_the_way(path)
    if blocker == path:
        fail(f"{option} {path}: a file is in the way; give a folder to write into")
    if blocker is not None:
        fail(f"{option} {path}: {blocker} is a file, not a folder; give a folder to write into")
    try:
        _probe_write(path)
    except OSError as exc:
        fail(f"{option} {path}: cannot write into this folder ({exc.strerror or exc})")


def check_output_file(path: Path, option: str, suffixes: tuple[str, ...]) -> None:
    """Refuse (exit 2) an output file with another suffix, or one that cannot be written — before any work."""
    from guandan_cli.logs.layout import file_in_the_way

    if path.suffix.lower() not in suffixes:
        fail(f"{option} {path}: the file name must end in {' or '.join(suffixes)}")
    if path.is_dir():
        fail(f"{option} {path}: a folder is in the way; give a file name")
    if path.exists() and not os.access(path, os.W_OK):
        fail(f"{option} {path}: the file cannot be overwritten")
    blocker = file_in_the_way(path.parent)
    if blocker is not None:
        fail(f"{option} {path}: {blocker} is a file, not a folder")
    try:
        _probe_write(path.parent)
    except OSError as exc:
        fail(f"{option} {path}: cannot write into {path.parent} ({exc.strerror or exc})")


def _close_options(name: str, possibilities) -> list[str]:
    """The options close to an unknown ``name``, compared without their dashes.

    Click compares ``--bogus`` with ``--out`` dashes included and finds them close.

    >>> _close_options("--reprot", ["--report", "--plots", "--by"])
    ['--report']
    >>> _close_options("--bogus", ["--out"])
    []
    """
    import difflib

    bare = {p.lstrip("-"): p for p in possibilities}
    return [bare[m] for m in difflib.get_close_matches(name.lstrip("-"), list(bare), n=3, cutoff=0.6)]


def _given_value(param: Any, args: list[str]) -> str | None:
    """The value typed for option ``param`` (its last occurrence in ``args``), or ``None``.

    >>> class P:
    ...     opts, secondary_opts = ["-n", "--matches"], []
    >>> _given_value(P, ["simulate", "-n", "abc"]), _given_value(P, ["--matches=2.5"]), _given_value(P, ["-nx"])
    ('abc', '2.5', 'x')
    """
    opts = [
        o for o in [*getattr(param, "opts", ()), *getattr(param, "secondary_opts", ())] if o.startswith("-")
    ]
    found = None
    for i, token in enumerate(args):
        if token == "--":
            break
        for o in opts:
            if token == o and i + 1 < len(args):
                found = args[i + 1]
            elif token.startswith(o + "=") and o.startswith("--"):
                found = token[len(o) + 1 :]
            elif not o.startswith("--") and token.startswith(o) and len(token) > len(o):
                found = token[len(o) :]
    return found


def _usage_line(exc: Any, args: list[str] | None = None) -> str:
    """One line for a Click usage error: the message (with the value typed, for a value of the
    wrong type), and where to find help."""
    if getattr(exc, "option_name", None) and getattr(exc, "possibilities", None) is not None:
        exc.possibilities = _close_options(exc.option_name, exc.possibilities)
    param = getattr(exc, "param", None)
    if args and param is not None and type(exc).__name__ == "BadParameter" and getattr(param, "opts", None):
        given = _given_value(param, args)
        if given is not None and repr(given) not in exc.message:
            exc.message = f"{exc.message}, got {given!r}"
    message = exc.format_message()
    ctx = getattr(exc, "ctx", None)
    where = f" (see '{ctx.command_path} --help')" if ctx is not None else ""
    return error_line(f"{message}{where}")


#: ``guandan --help`` lists the commands in the order a user meets them (others after, by name)
COMMAND_ORDER = (
    "simulate",
    "analyze",
    "compare",
    "tournament",
    "experiment",
    "replay",
    "review",
    "watch",
    "play",
    "table",
    "verify",
    "plays",
    "rules",
    "serve",
    "connect",
    "bench",
)


class OneLineErrors(click.Group):
    """The app's group: Click's errors become one ``guandan: error:`` line.

    The app runs in Click's non-standalone mode and each usage error (an unknown option,
    a bad choice, a missing argument) is printed in the common style with Click's exit
    code (2 for usage errors); a Ctrl-C that no command handled is one ``guandan:
    interrupted`` line and exit 130. This applies to ``guandan`` and to
    ``click.testing.CliRunner`` alike.
    """

    def list_commands(self, ctx):  # noqa: D102 - the order of COMMAND_ORDER
        names = super().list_commands(ctx)
        rank = {name: i for i, name in enumerate(COMMAND_ORDER)}
        return sorted(names, key=lambda name: (rank.get(name, len(rank)), name))

    def invoke(self, ctx):  # noqa: D102 - see the class docstring
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            interrupted()

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):  # noqa: D102
        exceptions = click.exceptions
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        try:
            result = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except exceptions.NoArgsIsHelpError as exc:  # `guandan` alone: the help text
            click.echo(exc.format_message(), err=True)
            raise SystemExit(exc.exit_code) from None
        except exceptions.UsageError as exc:
            click.echo(_usage_line(exc, list(sys.argv[1:] if args is None else args)), err=True)
            raise SystemExit(BAD_INPUT) from None
        except exceptions.ClickException as exc:
            click.echo(error_line(exc.format_message()), err=True)
            raise SystemExit(exc.exit_code) from None
        except click.Abort:
            click.echo(interrupted_line(), err=True)
            raise SystemExit(interrupted_code()) from None
        except OSError as exc:  # the output could not be written: a full disk
            line = write_error_line(exc)
            if line is None:
                raise
            try:
                click.echo(line, err=True)
            except OSError:
                pass
            raise SystemExit(FAILURE) from None
        raise SystemExit(result if isinstance(result, int) else 0)


def given_options(ctx: click.Context, names: tuple[str, ...]) -> dict[str, object]:
    """The options among ``names`` typed on the command line: ``{"--max-deals": 3}``."""
    given = {}
    for param in ctx.command.params:
        source = ctx.get_parameter_source(param.name)
        if param.name in names and source is not None and source.name == "COMMANDLINE":
            given[max(param.opts, key=len)] = ctx.params[param.name]
    return given

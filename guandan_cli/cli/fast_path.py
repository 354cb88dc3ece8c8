"""``guandan --help``, ``guandan plays --help`` and ``guandan plays …`` without importing Typer.

Importing Typer (and its Click) costs more than everything else these commands do, so
:func:`guandan_cli.cli.app.main` first hands the command line to :func:`run`. It answers
only what it fully understands and returns ``None`` for anything else, which then runs
the Typer app; so the output (stdout, stderr, exit code) is always the Typer app's:

- ``guandan --help``: the root help;
- ``guandan plays`` with one HAND and the options of ``plays`` (``-l/--level``,
  ``-t/--top``, ``--all``, ``--symbols``, ``--help``), each at most once, a value as the
  next word or after ``=`` (long options), never starting with ``-``.

Anything else (another command, ``-h``, an unknown or repeated option, a missing or
extra HAND, ``-l3``, ``--``, shell completion, a Windows console, output streams that are
missing or not UTF-8, an escape character in the line) goes to the Typer app.

The help texts and the option table are in :mod:`guandan_cli.cli.fast_path_spec`,
generated from the Typer app by :mod:`guandan_cli.cli.fast_path_build` (a test checks
they equal the app's current render). Help is served only where the Typer app would render
that same text: Click's default width (a terminal of 80 columns or more, or none), the
program named ``guandan``, and the installed Typer being the version the texts were
rendered with. ``plays`` itself runs :func:`guandan_cli.cli.plays_listing.plays_lines`,
the function the Typer command runs.
"""

from __future__ import annotations

import os
import sys

from guandan_cli.cli import fast_path_spec as spec
from guandan_cli.cli.error_lines import BAD_INPUT, error_line

#: the console script's name, the one the stored help texts show
PROGRAM = "guandan"


def program_name(path: str | None = None, main_module=None) -> str:
    """The program name Click shows in help: the script's file name, or ``python -m …``.

    The same rule as Click's (and so Typer's) own detection, from ``sys.argv[0]`` and the
    ``__main__`` module unless given.

    >>> from types import SimpleNamespace
    >>> program_name("/usr/local/bin/guandan", SimpleNamespace(__package__=None))
    'guandan'
    >>> program_name("/src/tools/__main__.py", SimpleNamespace(__package__="tools"))
    'python -m tools'
    """
    if path is None:
        path = sys.argv[0] if sys.argv else ""
    if main_module is None:
        main_module = sys.modules.get("__main__")
    package = getattr(main_module, "__package__", None)
    if package in (None, ""):
        return os.path.basename(path)
    name = os.path.splitext(os.path.basename(path))[0]
    module = package if name == "__main__" else f"{package}.{name}"
    return f"python -m {module.lstrip('.')}"


def run(argv: list[str], prog_name: str) -> int | None:
    """Answer ``argv`` (the words after ``guandan``) as the Typer app would: its exit code,
    after printing; ``None`` (nothing printed) when the Typer app must answer instead."""
    if not argv or not _plain_setting(argv, prog_name):
        return None
    if len(argv) == 1 and argv[0] in spec.HELP_OPTIONS:
        return _help(spec.ROOT_HELP, prog_name)
    if argv[0] == "plays":
        return _plays(argv[1:], prog_name)
    return None


def _plain_setting(argv: list[str], prog_name: str) -> bool:
    """True where printing plain lines gives exactly what Click's ``echo`` gives."""
    if os.name == "nt" or sys.stdout is None or sys.stderr is None:
        return False  # Windows consoles and argument globbing; echo skips a missing stream
    if not (_is_utf8(sys.stdout) and _is_utf8(sys.stderr)):
        return False  # Click rewraps ASCII streams
    if os.environ.get(f"_{prog_name}_COMPLETE".replace("-", "_").upper()):
        return False  # a shell-completion request
    for word in argv:
        if "\x1b" in word:
            return False  # echo strips escape sequences from output that is not a terminal
        try:
            word.encode("utf-8")
        except UnicodeEncodeError:  # bytes the locale could not decode
            return False
    return True


def _is_utf8(stream) -> bool:
    encoding = (getattr(stream, "encoding", None) or "").lower().replace("_", "-")
    return encoding in ("utf-8", "utf8")


def _help(text: str, prog_name: str) -> int | None:
    if prog_name != PROGRAM or _help_width() != spec.HELP_WIDTH:
        return None
    if not _typer_version_is(spec.TYPER_VERSION):
        return None
    return _print(sys.stdout, text)


def _help_width() -> int:
    """The width Click formats help to: the terminal's columns, at most 80, less 2 (at least 50)."""
    return max(min(_terminal_columns(), 80) - 2, 50)


def _terminal_columns() -> int:
    """``shutil.get_terminal_size().columns`` (``COLUMNS`` first, then the terminal, else 80),
    without importing shutil (and the compression modules it imports)."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns > 0:
        return columns
    try:
        columns = os.get_terminal_size(sys.__stdout__.fileno()).columns
    except (AttributeError, ValueError, OSError):
        columns = 0
    return columns or 80


def _typer_version_is(version: str) -> bool:
    """Whether the ``typer`` that ``import typer`` would load is installed as ``version``
    (its ``typer-VERSION.dist-info`` next to it), without importing it."""
    for entry in sys.path:
        folder = entry or os.getcwd()
        if os.path.isfile(os.path.join(folder, "typer", "__init__.py")):
            return os.path.isdir(os.path.join(folder, f"typer-{version}.dist-info"))
    return False


def _plays(words: list[str], prog_name: str) -> int | None:
    """``guandan plays WORDS``, parsed as Click parses them, or ``None`` if in doubt."""
    values: dict[str, object] = {}
    hand: str | None = None
    asked_help = False
    i = 0
    while i < len(words):
        word = words[i]
        i += 1
        if not word.startswith("-"):
            if hand is not None:
                return None  # an extra argument
            hand = word
            continue
        name, value = word, None
        if word.startswith("--") and "=" in word:
            name, value = word.split("=", 1)
        if name in spec.HELP_OPTIONS and value is None:
            asked_help = True
        elif name in spec.PLAYS_FLAGS and value is None:
            param, flag_value = spec.PLAYS_FLAGS[name]
            if param in values:
                return None
            values[param] = flag_value
        elif name in spec.PLAYS_VALUE_OPTIONS:
            param = spec.PLAYS_VALUE_OPTIONS[name]
            if value is None:
                if i == len(words):
                    return None  # the option's value is missing
                value = words[i]
                i += 1
            if param in values or value.startswith("-"):
                return None
            values[param] = value
        else:
            return None  # unknown, a flag given a value, a short option with its value attached
    if asked_help:
        return _help(spec.PLAYS_HELP, prog_name)
    if hand is None:
        return None  # Click's "Missing argument" error
    from guandan_cli.cli.plays_listing import PlaysInputError, plays_lines

    try:
        lines = plays_lines(**{**spec.PLAYS_DEFAULTS, **values, spec.PLAYS_ARGUMENT: hand})
    except PlaysInputError as exc:
        return _print(sys.stderr, error_line(exc) + "\n") or BAD_INPUT
    return _print(sys.stdout, "".join(line + "\n" for line in lines))


def _print(stream, text: str) -> int:
    """Write ``text`` and flush: 0, or 1 on a closed pipe (then later flushes stay quiet), as in Typer."""
    try:
        stream.write(text)
        stream.flush()
    except BrokenPipeError:
        sys.stdout = _QuietFlush(sys.stdout)
        sys.stderr = _QuietFlush(sys.stderr)
        return 1
    return 0


class _QuietFlush:
    """An output stream whose ``flush`` ignores a closed pipe (what Click does after one)."""

    def __init__(self, wrapped) -> None:
        self._wrapped = wrapped

    def flush(self) -> None:
        try:
            self._wrapped.flush()
        except BrokenPipeError:
            pass

    def __getattr__(self, name: str):
        return getattr(self._wrapped, name)

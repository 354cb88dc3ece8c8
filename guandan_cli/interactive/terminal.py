"""The terminal: where frames are printed and how the pace is kept (``--delay``, ``--step``, ``q``).

``Screen`` prints text through a rich console in colour (rich markup) or, in plain mode,
as it is, each line wrapped at the terminal's width (at most 100 columns) between words, so
no word or card token is ever cut. ``Pacer`` waits between actions: ``--delay`` seconds (any key skips ahead, ``q``
quits) or, with ``--step``, until Enter. On a terminal single keys are read in cbreak
mode; otherwise lines are read from stdin (end of input quits).
"""

from __future__ import annotations

import os
import select
import shutil
import sys
import time
from typing import TextIO

from guandan_cli.view.text import MAX_WIDTH, columns, hang_of, wrap, wrap_spans


def is_tty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def screen_width(stream: TextIO) -> int:
    """The columns a view may use on ``stream``: the terminal's, at most 100 (100 off a terminal)."""
    if not is_tty(stream):
        return MAX_WIDTH
    try:
        return max(20, min(MAX_WIDTH, os.get_terminal_size(stream.fileno()).columns))
    except (OSError, ValueError, AttributeError):
        return min(MAX_WIDTH, shutil.get_terminal_size((MAX_WIDTH, 24)).columns)


class Screen:
    """Prints frames: rich markup in colour, plain text otherwise; ``clear`` between frames on a TTY.

    Every line is wrapped at ``width`` columns (default: :func:`screen_width`) between words;
    ``hang`` sets where a wrapped line's continuation starts (else under a short label).
    """

    def __init__(
        self, colour: bool, clear: bool = False, file: TextIO | None = None, width: int | None = None
    ) -> None:
        self.colour = colour
        self.clear_between = clear
        self.file = file or sys.stdout
        self.width = width or screen_width(self.file)
        self._console = None
        if colour:
            from rich.console import Console

            self._console = Console(file=self.file, highlight=False, soft_wrap=True)

    def columns(self, text: str) -> int:
        """The columns ``text`` takes on this screen (colour markup takes none)."""
        if self._console is None:
            return columns(text)
        from rich.text import Text

        return columns(Text.from_markup(text).plain)

    def print(self, text: str = "", hang: int | None = None) -> None:
        for line in text.split("\n"):
            self._line(line, hang)
        if self._console is None:
            self.file.flush()

    def _line(self, line: str, hang: int | None) -> None:
        if self._console is None:
            for part in wrap(line, self.width, hang):
                self.file.write(part + "\n")
            return
        from rich.text import Text

        shown = Text.from_markup(line)
        plain = shown.plain
        indent = hang_of(plain, self.width) if hang is None else hang
        for i, (a, b) in enumerate(wrap_spans(plain, self.width, indent)):
            self._console.print(Text(" " * indent) + shown[a:b] if i else shown[a:b])

    def frame(self, text: str) -> None:
        """One whole screen: cleared first on a terminal, else separated by a rule."""
        if self.clear_between and self._console is not None:
            self._console.clear()
        elif self.clear_between:
            self.file.write("\x1b[2J\x1b[H")
        else:
            self.print("-" * 72)
        self.print(text)


def watch_delay(delay: float, given: bool, output_is_terminal: bool) -> float:
    """The pause between actions: ``delay``, or none when the output is no terminal (a file
    or a pipe reads no faster for waiting) unless ``--delay`` was given explicitly.

    >>> watch_delay(1.0, given=False, output_is_terminal=False), watch_delay(1.0, True, False)
    (0.0, 1.0)
    """
    return delay if given or output_is_terminal else 0.0


class Quit(Exception):
    """The viewer pressed q (or the input ended)."""


class Pacer:
    """Waits between actions; raises ``Quit`` on ``q`` or at the end of input."""

    def __init__(self, step: bool, delay: float, stdin: TextIO | None = None) -> None:
        self.step = step
        self.delay = delay
        self.stdin = stdin or sys.stdin
        self.keys = is_tty(self.stdin)
        self._saved = None

    @property
    def legend(self) -> str:
        """The keys, in one line (empty when nothing waits for a key)."""
        if self.step and self.keys:
            return "keys: Enter (or any key) next action · q quit"
        if self.step:
            return "keys: Enter next action · q then Enter quit"
        if self.keys and self.delay > 0:
            return "keys: any key skips ahead · q quit"
        return ""

    def __enter__(self) -> Pacer:
        if self.keys:
            import termios
            import tty

            fd = self.stdin.fileno()
            self._saved = termios.tcgetattr(fd)
            tty.setcbreak(fd)
        return self

    def __exit__(self, *exc) -> None:
        if self._saved is not None:
            import termios

            termios.tcsetattr(self.stdin.fileno(), termios.TCSADRAIN, self._saved)
            self._saved = None

    def drop_typed(self) -> None:
        """Forget the keys pressed so far (while a bot thought: they would skip screens unseen)."""
        if self.keys:
            import termios

            termios.tcflush(self.stdin.fileno(), termios.TCIFLUSH)

    def _key(self, timeout: float | None) -> str | None:
        fd = self.stdin.fileno()
        ready, _, _ = select.select([fd], [], [], timeout)
        if not ready:
            return None
        data = os.read(fd, 32).decode(errors="replace")
        if not data:
            raise Quit
        return data

    def wait(self) -> None:
        """One pause (see the class docstring)."""
        if self.keys:
            key = self._key(None if self.step else self.delay)
            if key is not None and "q" in key.lower():
                raise Quit
            return
        if self.step:
            line = self.stdin.readline()
            if not line or line.strip().lower() == "q":
                raise Quit
            return
        if self.delay > 0:
            time.sleep(self.delay)


__all__ = ["Pacer", "Quit", "Screen", "is_tty", "screen_width", "watch_delay"]

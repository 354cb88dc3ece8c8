"""The terminal: where frames are printed and how the pace is kept (``--delay``, ``--step``, ``q``).

``Screen`` prints text through a rich console in colour (rich markup) or, in plain mode,
as it is. ``Pacer`` waits between actions: ``--delay`` seconds (any key skips ahead, ``q``
quits) or, with ``--step``, until Enter. On a terminal single keys are read in cbreak
mode; otherwise lines are read from stdin (end of input quits).
"""

from __future__ import annotations

import os
import select
import sys
import time
from typing import TextIO


def is_tty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


class Screen:
    """Prints frames: rich markup in colour, plain text otherwise; ``clear`` between frames on a TTY."""

    def __init__(self, colour: bool, clear: bool = False, file: TextIO | None = None) -> None:
        self.colour = colour
        self.clear_between = clear
        self.file = file or sys.stdout
        self._console = None
        if colour:
            from rich.console import Console

            self._console = Console(file=self.file, highlight=False, soft_wrap=True)

    def print(self, text: str = "") -> None:
        if self._console is not None:
            self._console.print(text)
        else:
            self.file.write(text + "\n")
            self.file.flush()

    def frame(self, text: str) -> None:
        """One whole screen: cleared first on a terminal, else separated by a rule."""
        if self.clear_between and self._console is not None:
            self._console.clear()
        elif self.clear_between:
            self.file.write("\x1b[2J\x1b[H")
        else:
            self.print("-" * 72)
        self.print(text)


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


__all__ = ["Pacer", "Quit", "Screen", "is_tty"]

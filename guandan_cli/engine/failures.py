"""Where a bot failed: its exception as a located one-line message and a picklable traceback.

``bot_failure(exc, cls)`` reads the traceback of an exception a bot of class ``cls`` raised
and names the innermost frame in the bot's own file: the file of ``cls``'s module (else of
the nearest base class with a frame in the traceback), else the innermost frame in that
file's folder (a helper module beside the bot), else the innermost frame of all.

>>> class Raiser:
...     def choose_play(self, obs):
...         raise RuntimeError("boom")
>>> try:
...     Raiser().choose_play(None)
... except RuntimeError as exc:
...     failure = bot_failure(exc, Raiser)
>>> failure.error, failure.where.endswith("in choose_play")
('RuntimeError: boom', True)
>>> failure.traceback.splitlines()[0]
'Traceback (most recent call last):'

An exception whose class sets ``where_in_bot = False`` names no frame: a remote client that
broke the protocol, or no person at the terminal, is not a fault of the code's lines.

A ``BotFailure`` crosses to the parent process as its text alone (the exception itself
need not pickle): ``cause()`` is then a ``WorkerTraceback`` holding the formatted
traceback, and in the process where the bot ran, the original exception.
"""

from __future__ import annotations

import os
import sys
import traceback as _traceback
from dataclasses import dataclass, field
from types import TracebackType


class WorkerTraceback(Exception):
    """The formatted traceback of a bot's exception raised in another (worker) process.

    Its text is the whole traceback as the worker formatted it, so ``raise … from`` it
    shows where the bot failed even though the exception object stayed in the worker.
    """

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text

    def __str__(self) -> str:
        return "\n" + self.text.rstrip("\n")


class DecisionTimeout(BaseException):
    """Raised inside a bot that has not answered within the run's per-decision limit
    (``--decision-timeout``; ``runner.supervisor``). A ``BaseException``, so a bot's own
    ``except Exception`` does not swallow it; it names no frame of the bot (``where_in_bot``):
    where a looping bot was when the limit came is chance, and a run's bytes must not be."""

    where_in_bot = False


@dataclass(frozen=True)
class BotFailure:
    """A bot's exception: ``where`` (``mybot.py:17 in choose_play``), ``error``
    (``RuntimeError: boom``), the whole formatted ``traceback``, and in the process where it
    was raised the ``exception`` itself (dropped when the record is pickled)."""

    where: str | None
    error: str
    traceback: str
    exception: BaseException | None = field(default=None, compare=False, repr=False)

    @property
    def line(self) -> str:
        """``mybot.py:17 in choose_play: RuntimeError: boom`` (the error alone without a place)."""
        return f"{self.where}: {self.error}" if self.where else self.error

    def cause(self) -> BaseException:
        """What a failure raised for this one is raised ``from``: the original exception when
        it is at hand, else a ``WorkerTraceback`` with its text."""
        return self.exception if self.exception is not None else WorkerTraceback(self.traceback)

    def __reduce__(self):
        return (BotFailure, (self.where, self.error, self.traceback))


def _frames(tb: TracebackType | None) -> list[tuple[str, int, str]]:
    """``(absolute file, line, function)`` of each frame of ``tb``, outermost first."""
    out = []
    while tb is not None:
        code = tb.tb_frame.f_code
        out.append((os.path.abspath(code.co_filename), tb.tb_lineno, code.co_name))
        tb = tb.tb_next
    return out


def _module_file(cls: type) -> str | None:
    """The absolute ``.py`` file of the module defining ``cls`` (``None`` without one)."""
    module = sys.modules.get(getattr(cls, "__module__", ""))
    path = getattr(module, "__file__", None)
    if not path:
        return None
    if not path.endswith(".py"):  # a compiled module (mypyc): its source beside it
        from importlib.machinery import EXTENSION_SUFFIXES

        suffix = next((s for s in EXTENSION_SUFFIXES if path.endswith(s)), None)
        if suffix is None:
            return None
        path = path[: -len(suffix)] + ".py"
    return os.path.abspath(path)


def _inside(path: str, folder: str) -> str | None:
    """``path`` relative to ``folder`` (``/``-separated) when it lies inside it, else ``None``."""
    try:
        rel = os.path.relpath(path, folder)
    except ValueError:  # another drive
        return None
    return None if rel == os.curdir or rel.startswith(os.pardir) else rel.replace(os.sep, "/")


def _shown(path: str, folder: str | None) -> str:
    """``path`` relative to ``folder`` when inside it, else its file name."""
    rel = _inside(path, folder) if folder is not None else None
    return rel if rel is not None else os.path.basename(path)


def _located(frames: list[tuple[str, int, str]], cls: type | None) -> str | None:
    """``file:line in function`` of the innermost frame in the bot's own file (see the module docstring)."""
    if not frames:
        return None
    classes = cls.__mro__ if cls is not None else ()
    files = list(dict.fromkeys(f for c in classes if c is not object and (f := _module_file(c))))
    folder = os.path.dirname(files[0]) if files else None
    for own in files:
        for path, line, name in reversed(frames):
            if path == own:
                return f"{_shown(path, os.path.dirname(own))}:{line} in {name}"
    for path, line, name in reversed(frames) if folder is not None else ():
        rel = _inside(path, folder)
        if rel is not None and "site-packages" not in rel.split("/"):
            return f"{rel}:{line} in {name}"
    path, line, name = frames[-1]
    return f"{_shown(path, folder)}:{line} in {name}"


def bot_failure(exc: BaseException, cls: type | None = None) -> BotFailure:
    """The located record of ``exc``, raised by a bot of class ``cls`` (see the module docstring)."""
    text = "".join(_traceback.format_exception(type(exc), exc, exc.__traceback__))
    where = _located(_frames(exc.__traceback__), cls) if getattr(exc, "where_in_bot", True) else None
    return BotFailure(where, f"{type(exc).__name__}: {exc}", text, exc)


__all__ = ["BotFailure", "DecisionTimeout", "WorkerTraceback", "bot_failure"]

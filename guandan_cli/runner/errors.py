"""How a run stops: the exceptions of ``simulate``, raised by every layer of the runner.

- ``SimulationInputError`` (a ``ValueError``): bad input, one line naming it; nothing was played.
- ``SimulationError``: a run that stopped while working (a strategy failed with
  ``on_error="stop"``, the engine did, a disk filled up).
- ``SimulationInterrupted`` (a ``KeyboardInterrupt``): Ctrl-C; says how many matches are
  saved and how to resume (built by ``runner.rundir.interruption`` from what is on disk).
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path


class SimulationInputError(ValueError):
    """Bad input to ``simulate``: the message names the problem in one line."""


class SimulationError(RuntimeError):
    """A run that stopped: a strategy failed (with ``on_error="stop"``) or the engine did.

    A bot's exception is the ``__cause__`` (in a worker process: a ``WorkerTraceback`` with
    its formatted traceback) and ``failure`` its located record (``engine.failures``).
    """

    failure = None


class SimulationInterrupted(KeyboardInterrupt):
    """Ctrl-C during ``simulate``: how many matches are saved, and how to resume.

    ``reason`` is the interrupt that stopped the run (a ``KeyboardInterrupt`` subclass
    raised by a strategy, e.g. a server's remote seat gone for good, keeps its type there).

    >>> SimulationInterrupted("runs/x", 152, 2000).resume_hint()
    '152 of 2000 matches saved; resume with: guandan simulate --out runs/x --resume'
    """

    def __init__(
        self, out: str | os.PathLike, saved: int, total: int, reason: KeyboardInterrupt | None = None
    ) -> None:
        self.out = Path(out)
        self.reason = reason
        self.saved = saved
        self.total = total
        super().__init__(self.resume_hint())

    #: the run directory held no run when the interrupt came: nothing was written
    nothing_written = False
    #: the run was complete when the interrupt came (nothing to resume)
    complete = False

    def resume_hint(self) -> str:
        """``152 of 2000 matches saved; resume with: guandan simulate --out runs/x --resume``."""
        if self.nothing_written:
            return f"before the run started: nothing was written to {self.out}"
        if self.complete:
            return f"the run was complete: {self.saved} of {self.total} {self._matches} saved in {self.out}"
        cmd = shlex.join(["guandan", "simulate", "--out", str(self.out), "--resume"])
        return f"{self.saved} of {self.total} {self._matches} saved; resume with: {cmd}"

    @property
    def _matches(self) -> str:
        return "match" if self.total == 1 else "matches"


__all__ = ["SimulationError", "SimulationInputError", "SimulationInterrupted"]

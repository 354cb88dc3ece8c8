"""The runner: seeded task units, backends (multiprocess, Ray) and the run directory.

- :mod:`.simulation` — ``simulate(...)``, the Python API behind ``guandan simulate``, composing:

  - :mod:`.config` — the options checked, the output folder, the run's ``RunConfig`` settled;
  - :mod:`.rundir` — the run directory: what it holds, the lock, recovery, every file written;
  - :mod:`.planning` — the tasks (chunks of matches) that play what is missing;
  - :mod:`.execution` — a backend plays them; results journaled, parts written, progress;

- :mod:`.tasks` — ``run_task((spec, start, stop))`` plays a chunk of matches in a worker;
- :mod:`.backends` — ``local`` (in-process or a spawn ``multiprocess`` pool) and ``ray``;
- :mod:`.run` — ``Run``, to read a run back; :mod:`.errors` — how a run stops;
- :mod:`.supervisor` — the watched worker processes (a decision deadline, a dead worker replaced).

``guandan verify`` and ``guandan replay`` read logs: ``guandan_cli.logreaders``.

Imports no polars (workers import this package).
"""

from __future__ import annotations

import importlib

# names resolved on first use, so a worker importing ``runner.tasks`` loads only what it needs
_LAZY = {
    "Run": "run",
    "open_run": "run",
    "wilson_interval": "run",
    "SimulationError": "errors",
    "SimulationInputError": "errors",
    "parse_strategies": "config",
    "SimulationConfig": "config",
    "simulate": "simulation",
}


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


__all__ = [
    "Run",
    "SimulationConfig",
    "SimulationError",
    "SimulationInputError",
    "open_run",
    "parse_strategies",
    "simulate",
    "wilson_interval",
]

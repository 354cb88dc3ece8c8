"""The runner: seeded task units, backends (multiprocess, Ray) and the run directory.

- :mod:`.tasks` — ``run_task((spec, start, stop))`` plays a chunk of matches in a worker;
- :mod:`.backends` — ``local`` (in-process or a spawn ``multiprocess`` pool) and ``ray``;
- :mod:`.rundir` — manifest, parts, resume, and ``Run`` to read a run back;
- :mod:`.simulation` — ``simulate(...)``, the Python API behind ``guandan simulate``;
- :mod:`.verify` / :mod:`.replay` — ``guandan verify`` and ``guandan replay``.

Imports no polars (workers import this package).
"""

from __future__ import annotations

import importlib

# names resolved on first use, so a worker importing ``runner.tasks`` loads only what it needs
_LAZY = {
    "Run": "rundir",
    "open_run": "rundir",
    "wilson_interval": "rundir",
    "SimulationError": "simulation",
    "SimulationInputError": "simulation",
    "parse_strategies": "simulation",
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
    "SimulationError",
    "SimulationInputError",
    "open_run",
    "parse_strategies",
    "simulate",
    "wilson_interval",
]

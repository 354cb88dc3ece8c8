"""guandan: a simulator and analysis toolkit for Guandan (掼蛋).

The rules engine lives in :mod:`guandan_cli.engine` (pure Python). The Python API
for scripts and notebooks (``simulate``, ``compare``, ``experiment``) is importable from here.
"""

from guandan_cli._version import __version__ as __version__
from guandan_cli.native.compiled import install as _install_compiled_guard

_install_compiled_guard()  # the compiled modules (setup.py) run only if built from their sources


def simulate(*args, **kwargs):
    """Play a seeded run of matches into a run directory; returns the ``Run``.

    The same options as ``guandan simulate``, as keywords or as one ``SimulationConfig``
    (see :func:`guandan_cli.runner.simulation.simulate`); ``run.deals()`` / ``run.scan()`` / ``run.matches()`` give the log as Polars frames.
    Imported lazily, so ``import guandan_cli.engine`` stays free of the runner and Polars.
    """
    from guandan_cli.runner.simulation import simulate as _simulate

    return _simulate(*args, **kwargs)


def __getattr__(name: str):
    """``open_run`` (:func:`guandan_cli.runner.run.open_run`: the ``Run`` stored at a path) and
    ``SimulationConfig`` (``simulate``'s options as one value), imported on first use, so
    ``import guandan_cli.engine`` stays free of the runner."""
    if name == "open_run":
        from guandan_cli.runner.run import open_run

        return open_run
    if name == "SimulationConfig":
        from guandan_cli.runner.config import SimulationConfig

        return SimulationConfig
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def compare(a, b, matches=100, seed=0, **kwargs):
    """Compare strategy ``a`` with ``b`` over duplicate pairs; see :func:`guandan_cli.comparison.compare`.

    Strategies are names, ``module:Class`` / ``file.py:Class`` specs, or classes (a class
    from a notebook cell too). ``duplicate="deal"`` pairs single deals (``setups="fresh"``,
    ``"random"`` or a run directory) instead of matches. Stored runs under ``out`` are
    reused only while the strategies' code and the options are unchanged.
    Returns a ``CompareResult`` (figures, ``verdict()``, per-pair ``pairs`` frame).
    """
    from guandan_cli.comparison import compare as _compare

    return _compare(a, b, matches=matches, seed=seed, **kwargs)


def tournament(strategies, matches=50, seed=0, **kwargs):
    """Round robin of duplicate comparisons with a leaderboard; see :func:`guandan_cli.comparison.tournament`."""
    from guandan_cli.comparison import tournament as _tournament

    return _tournament(strategies, matches=matches, seed=seed, **kwargs)


def experiment(name, deals, **kwargs):
    """Play ``deals`` setups under two rule variants (``tribute``, ``resistance``, ``ruleset``)
    and measure the paired effects; see :func:`guandan_cli.experiments.run_experiment`.

    Returns an ``ExperimentResult`` (``effects`` frame, ``summary()``, both arms' runs).
    """
    from guandan_cli.experiments import run_experiment

    return run_experiment(name, deals, **kwargs)

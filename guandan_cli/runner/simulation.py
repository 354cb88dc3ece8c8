"""``simulate``: play a seeded run of matches into a run directory (resumable, parallel).

>>> from guandan_cli import simulate
>>> run = simulate(matches=4, seed=1, strategies="random", max_deals=2, workers=1,
...                out=getfixture("tmp_path") / "demo", progress=False)
>>> run.counts["matches"], run.state
(4, 'complete')
>>> run.deals().height == run.counts["deals"]
True

``simulate`` composes the runner's layers, top down (docs/architecture.md):

1. ``runner.config`` — the options checked, the output folder, the ``RunConfig`` settled;
2. ``runner.rundir`` — what the folder holds, the lock, what survives of earlier sessions;
3. ``runner.planning`` — the tasks that play the rest;
4. ``runner.execution`` — the tasks played by a backend, each result journaled, parts written.
"""

from __future__ import annotations

from typing import Any

from guandan_cli.runner import config as _config
from guandan_cli.runner import rundir as _rundir
from guandan_cli.runner.config import (
    Request,
    SettledRun,
    SimulationConfig,
    canonical_command,
    check_strategies,
    complete_command,
    parse_strategies,
)
from guandan_cli.runner.errors import SimulationError, SimulationInputError, SimulationInterrupted
from guandan_cli.runner.execution import Execution
from guandan_cli.runner.planning import plan_tasks
from guandan_cli.runner.progress import reporter
from guandan_cli.runner.run import Run
from guandan_cli.runner.rundir import RunDirectory, interruption


def simulate(config: SimulationConfig | int | None = None, **options: Any) -> Run:
    """Play a seeded run of matches into its run directory and return the ``Run``.

    ``config`` is a :class:`SimulationConfig` (what the run is, where, and how this session
    plays it: its docstring lists the options); keyword options are laid over it, or make it
    when none is given: ``simulate(100, seed=1, strategies="greedy,random", out="runs/x")``
    is ``simulate(SimulationConfig(matches=100, seed=1, …))``.

    Each finished task is journaled (fsynced) at once, so a stopped run loses only the
    matches in flight (docs/log-format.md, Durability). Ctrl-C raises
    ``SimulationInterrupted`` (a ``KeyboardInterrupt``) saying how many matches are saved
    and how to resume.
    """
    request = _config.read_options(SimulationConfig.of(config, **options))
    out, required = _config.output_folder(request)
    created = not out.exists()
    try:
        stored = _rundir.inspect(out, required, request.resume, request.force, request.replay_damaged)
        if stored.manifest is not None:
            _config.check_stored(out, stored.manifest, request)
        if stored.complete:
            run = Run(out)  # resume=True on a finished run: nothing to do
            run.already_complete = True
            return run
        settled = _config.settle(request, out, stored.config, stored.matches_in_parts())
        with RunDirectory.open(out, stored) as directory:
            _play(directory, settled, request)
        return Run(out)
    except SimulationInterrupted:
        raise
    except KeyboardInterrupt as exc:  # outside the run loop: what is on disk says what is saved
        raise interruption(out, exc, created=created) from None


def _play(directory: RunDirectory, settled: SettledRun, request: Request) -> None:
    """Recover what the directory holds, plan the rest, record the session and play it."""
    config, session = settled.config, request.session
    directory.recover(config)
    plan = plan_tasks(settled, session, directory.plan, directory.held())
    command = complete_command(session.command, config) if session.command else canonical_command(config)
    directory.begin(settled, command, session, plan.workers, plan.chunk_size)
    unit = "matches" if config.setups is None else "deals"
    report, bar = reporter(
        session.progress, config.matches, config.matches - plan.todo_matches, session.label, unit
    )
    try:
        Execution(directory, plan, session, config.matches, report).run()
    finally:
        if bar is not None:
            bar.close()


__all__ = [
    "SimulationConfig",
    "SimulationError",
    "SimulationInputError",
    "SimulationInterrupted",
    "canonical_command",
    "check_strategies",
    "interruption",
    "parse_strategies",
    "simulate",
]

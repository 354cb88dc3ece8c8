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

import os
from collections.abc import Callable, Sequence

from guandan_cli.runner import config as _config
from guandan_cli.runner import rundir as _rundir
from guandan_cli.runner.config import (
    Request,
    Session,
    SettledRun,
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


def simulate(
    matches: int | None = None,
    *,
    seed: int | None = None,
    strategies: str | Sequence[str] | None = None,
    ruleset: str | None = None,
    max_deals: int | None = None,
    a_fail_limit: int | None = None,
    out: str | os.PathLike | None = None,
    workers: int | None = None,
    compression: str | None = None,
    on_error: str = "stop",
    backend: str = "local",
    ray_address: str | None = None,
    resume: bool = False,
    force: bool = False,
    chunk_size: int | None = None,
    part_size: int | None = None,
    progress: bool | Callable[[int, int], None] = False,
    command: str | None = None,
    setups: str | os.PathLike | None = None,
    tribute: str | None = None,
    label: str | None = None,
    replay_damaged: bool = False,
    decision_timeout: float | None = None,
    max_memory: str | int | None = None,
    bots_log: str | os.PathLike | None = None,
) -> Run:
    """Play ``matches`` seeded matches into the run directory ``out`` and return the ``Run``.

    Options left at ``None`` take their defaults (100 matches, seed 0, ``heuristic`` at
    every seat, ``cgr2022``, no compression, 1000 matches per part, all cores) — or, when
    ``out`` holds an unfinished run, that run's values: rerunning (or ``resume=True``)
    continues it, and gives the same bytes as an uninterrupted run. Options given must
    agree with the stored run (else ``SimulationInputError``; ``force=True`` starts over).

    - ``strategies``: ``"a"`` (every seat), ``"a,b"`` (seats 0/2 and 1/3), ``"a,b,c,d"``
      or a sequence of 1, 2 or 4; names, ``module:Class``, ``file.py:Class`` or classes
      (a class workers cannot import, e.g. from a notebook cell, is sent to them by value).
    - ``workers``: processes (``None``: all cores); ``backend``: ``"local"`` or ``"ray"``.
    - ``compression``: ``"none"``, ``"gzip"`` or ``"zstd"``.
    - ``on_error``: ``"stop"`` (a strategy failure stops the run with ``SimulationError``)
      or ``"record"`` (the match is recorded with its error and the run goes on).
    - ``chunk_size``: matches per task (never changes the output); ``part_size``: matches
      per log part (fixed for a run).
    - ``progress``: ``True`` for a rich progress bar (titled ``label``, default
      ``simulate``), or a callable ``(matches, deals)`` called with the increments after
      each task.
    - ``setups``: play one deal per "match" from a setup source instead of whole matches:
      ``"fresh"``, ``"random"`` or a run directory (see ``guandan_cli.runner.setups``);
      each is logged as a one-deal match (``max_deals`` is 1). ``"paying"`` and
      ``"resisting"`` are the conditioned sources of ``guandan experiment``.
    - ``replay_damaged``: with ``resume``, play again (from their seeds) the complete parts
      whose files no longer have the size and sha256 the manifest records (truncated,
      edited); the damaged files are kept as ``NAME.damaged``. Without it such a run is
      refused in one line naming the parts.
    - ``tribute``: the ruleset's tribute option, ``"on"`` (the rules, default), ``"off"``
      (no tribute or return) or ``"paid"`` (no resistance), for counterfactual experiments.
    - ``decision_timeout``: seconds a bot may take over one decision (default 60, 0: no limit;
      a bot past it fails as if it had raised); ``max_memory``: each worker process's address
      space (``"2G"``; a bot over it fails with ``MemoryError``). A worker that dies or overruns
      is replaced and its match recorded as errored (``runner.supervisor``); what bots print goes to
      the run directory's ``bots.log`` (or to the file ``bots_log``, appended to).

    Each finished task is journaled (fsynced) at once, so a stopped run loses only the
    matches in flight (docs/log-format.md, Durability). Ctrl-C raises
    ``SimulationInterrupted`` (a ``KeyboardInterrupt``) saying how many matches are saved
    and how to resume.
    """
    request = _config.read_options(
        matches=matches,
        seed=seed,
        strategies=strategies,
        ruleset=ruleset,
        max_deals=max_deals,
        a_fail_limit=a_fail_limit,
        compression=compression,
        part_size=part_size,
        setups=setups,
        tribute=tribute,
        out=out,
        resume=resume,
        force=force,
        session=Session(
            workers,
            on_error,
            backend,
            ray_address,
            chunk_size,
            progress,
            command,
            label,
            *_limits(decision_timeout, max_memory),
            None if bots_log is None else str(bots_log),
        ),
    )
    if replay_damaged and not request.resume:
        raise SimulationInputError("replay_damaged (--replay-damaged) goes with resume (--resume)")
    out, required = _config.output_folder(request)
    created = not out.exists()
    try:
        stored = _rundir.inspect(out, required, request.resume, request.force, replay_damaged)
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


def _limits(decision_timeout, max_memory) -> tuple[float, int | None]:
    """The session's per-decision time limit and per-worker memory limit, checked
    (``runner.supervisor``; defaults: ``supervisor.limits_given``)."""
    from guandan_cli.runner import supervisor

    given = supervisor.limits_given()
    try:
        timeout = supervisor.check_decision_timeout(
            given.decision_timeout if decision_timeout is None else decision_timeout,
            "decision_timeout (--decision-timeout)",
        )
        memory = supervisor.parse_memory(
            given.max_memory if max_memory is None else max_memory, "max_memory (--max-memory)"
        )
    except ValueError as exc:
        raise SimulationInputError(str(exc)) from None
    return timeout, memory


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
    "SimulationError",
    "SimulationInputError",
    "SimulationInterrupted",
    "canonical_command",
    "check_strategies",
    "interruption",
    "parse_strategies",
    "simulate",
]

"""Planning: a settled run's tasks, from its config and what its directory already holds.

A run's parts are fixed by its config (``logs.layout.plan_parts``: part ``p`` holds matches
``p*part_size …``); the matches neither in a complete part nor journaled are its *gaps*;
each gap is cut into tasks of ``chunk_size`` consecutive matches, ``(spec, start, stop)``,
which a worker plays with ``runner.tasks.run_task``. Chunking never changes a byte of
the log (match ``i`` is seeded by its index alone).

>>> gaps([(0, 0, 4), (1, 4, 8)], {0: [(0, 4)], 1: [(5, 6)]})
[(1, 4, 5), (1, 6, 8)]
>>> chunk_size_for(100, workers=2, given=None), chunk_size_for(10, workers=2, given=None)
(8, 2)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from guandan_cli.runner.backends import default_workers
from guandan_cli.runner.config import Session, SettledRun
from guandan_cli.runner.tasks import OnError, RunSpec

#: the most matches per task when none is given (a kill loses about workers × this many)
DEFAULT_CHUNK = 8

Span = tuple[int, int, int]  # (part index, first match, stop)


def run_spec(settled: SettledRun, on_error: str) -> RunSpec:
    """What a worker needs to play any match of the run (its ``RunSpec``)."""
    config = settled.config
    return RunSpec(
        run_id=settled.run_id,
        seed=config.seed,
        strategies=config.strategies,
        ruleset=config.ruleset,
        a_fail_limit=config.a_fail_limit,
        max_deals=config.max_deals,
        on_error=OnError(on_error),
        setups=config.setups,
        classes=settled.classes,
        tribute=config.tribute,
    )


def gaps(parts: list[Span], held: dict[int, list[tuple[int, int]]]) -> list[Span]:
    """``(part index, first, stop)`` of each run of matches of ``parts`` not ``held``
    (``held[index]``: the ``(first, stop)`` of the matches a part holds, sorted)."""
    out = []
    for index, start, stop in parts:
        at = start
        for a, b in held.get(index, ()):
            if a > at:
                out.append((index, at, a))
            at = b
        if at < stop:
            out.append((index, at, stop))
    return out


def chunk_size_for(todo: int, workers: int, given: int | None) -> int:
    """Matches per task: ``given``, else about four tasks per worker, at most ``DEFAULT_CHUNK``."""
    if given is not None:
        return given
    return max(1, min(DEFAULT_CHUNK, math.ceil(todo / (workers * 4)))) if todo else 1


@dataclass(frozen=True)
class Plan:
    """The tasks of a session: ``(spec, start, stop)`` each, and the part each task's matches are in."""

    spec: RunSpec
    tasks: list[tuple[RunSpec, int, int]]
    part_of_task: dict[int, int]  # a task's first match -> its part index
    workers: int
    chunk_size: int
    #: the matches this session is to play
    todo_matches: int
    #: strategy classes given as objects, used as they are by an in-process worker
    local_classes: dict[str, type]


def plan_tasks(
    settled: SettledRun, session: Session, parts: list[Span], held: dict[int, list[tuple[int, int]]]
) -> Plan:
    """The tasks that play the run's ``parts`` but what is ``held`` (see ``gaps``), and the
    workers to play them (``session.workers``, else every core; locally never more than tasks)."""
    spec = run_spec(settled, session.on_error)
    todo = gaps(parts, held)
    workers = session.workers or default_workers()
    todo_matches = sum(stop - start for _i, start, stop in todo)
    chunk_size = chunk_size_for(todo_matches, workers, session.chunk_size)
    tasks = []
    part_of_task: dict[int, int] = {}
    for index, start, stop in todo:
        for a in range(start, stop, chunk_size):
            tasks.append((spec, a, min(a + chunk_size, stop)))
            part_of_task[a] = index
    if session.backend == "local":
        workers = max(1, min(workers, len(tasks) or 1))
    return Plan(spec, tasks, part_of_task, workers, chunk_size, todo_matches, settled.local_classes)


__all__ = ["DEFAULT_CHUNK", "Plan", "chunk_size_for", "gaps", "plan_tasks", "run_spec"]

"""Execution: one session's tasks played by a backend, each result made durable as it arrives.

The parent process owns everything but the playing: it opens the backend
(``runner.backends``), hands tasks out through a :class:`TaskWindow` (at most two per worker
ahead of the results saved, so a kill loses at most that much), journals each result as it
arrives (``RunDirectory.journal``), hands a part whose journal covers it to the
:class:`PartWriterThread` (``RunDirectory.finish`` writes its files and the manifest),
reports progress, and on any stop (Ctrl-C, a failure, a full disk) terminates the workers,
finishes the part being written and records how the session ended.

Workers only compute: ``runner.tasks.run_task`` returns a task's lines as bytes, looked up on
the module when the session starts (tests replace it there).
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from pathlib import Path

from guandan_cli.logs.journal import Journal
from guandan_cli.runner import supervisor, tasks
from guandan_cli.runner.backends import BackendError, InProcess, open_backend
from guandan_cli.runner.config import Session
from guandan_cli.runner.errors import SimulationError
from guandan_cli.runner.planning import Plan
from guandan_cli.runner.progress import Report
from guandan_cli.runner.rundir import RunDirectory, interruption, saved_line


def _note(line: str) -> None:
    try:
        sys.stderr.write(f"guandan: note: {line}\n")
        sys.stderr.flush()
    except (OSError, ValueError):  # no stderr to tell
        pass


class TaskWindow:
    """The tasks, handed out at most ``size`` ahead of the results saved (``saved()`` once per
    result): a pool's feeder thread waits here, so a kill loses at most ``size`` tasks.

    ``in_flight`` maps each task handed out and not yet saved (by its first match) to the
    ``time.monotonic()`` it was handed out: what a watchdog would look at.

    >>> w = TaskWindow([(None, 0, 2), (None, 2, 4), (None, 4, 5)], 2)
    >>> it = iter(w)
    >>> next(it)[1], next(it)[1], sorted(w.in_flight)
    (0, 2, [0, 2])
    >>> w.saved(0); next(it)[1], sorted(w.in_flight)
    (4, [2, 4])
    """

    def __init__(self, tasks: Sequence, size: int) -> None:
        self._tasks = tasks
        self._slots = threading.Semaphore(max(1, size))
        self._stopped = False
        self.in_flight: dict[int, float] = {}

    def __iter__(self):
        for task in self._tasks:
            while not self._slots.acquire(timeout=0.1):
                if self._stopped:
                    return
            if self._stopped:
                return
            self.in_flight[task[1]] = time.monotonic()
            yield task

    def saved(self, start: int | None = None) -> None:
        """A result was saved (that of the task starting at match ``start``): one more slot."""
        self.in_flight.pop(start, None)
        self._slots.release()

    def stop(self) -> None:
        self._stopped = True


class PartWriterThread:
    """Writes complete parts from their journals in one background thread.

    Writing a part (two files, three fsyncs and renames, the manifest) takes tens of
    milliseconds; meanwhile the parent goes on journaling the results that arrive, so a
    kill loses no more than the matches in flight. ``pending`` holds the journals of parts
    submitted and not yet written. Parts are written in the order submitted; a part that
    fails is kept in ``pending`` and the next ones are still written. (A plain thread and a
    queue: ``concurrent.futures`` would cost every run its import, with ``logging``.)
    """

    def __init__(self, finish: Callable[[int, Journal], None]) -> None:
        self._finish = finish
        self._queue: deque = deque()
        self._ready = threading.Semaphore(0)
        self._thread: threading.Thread | None = None
        self._failures: list[BaseException] = []
        self.pending: dict[int, Journal] = {}

    def submit(self, index: int, journal: Journal) -> None:
        self.pending[index] = journal
        if self._thread is None:
            # a daemon: the run always waits for it (wait/shutdown); a process that exits
            # anyway leaves at worst a *.tmp file, and the part's journal still holds it
            self._thread = threading.Thread(target=self._loop, name="guandan-part-writer", daemon=True)
            self._thread.start()
        self._queue.append((index, journal))
        self._ready.release()

    def _loop(self) -> None:
        while True:
            self._ready.acquire()
            item = self._queue.popleft()
            if item is None:
                return
            index, journal = item
            try:
                self._finish(index, journal)
                self.pending.pop(index, None)
            except BaseException as exc:  # noqa: BLE001 - handed to the caller by raise_failure
                self._failures.append(exc)

    def raise_failure(self) -> None:
        """Raise the error of a part that could not be written, if any."""
        if self._failures:
            raise self._failures[0]

    def wait(self) -> None:
        """Wait for every part submitted; raise the first failure."""
        self.shutdown()
        self.raise_failure()

    def shutdown(self) -> None:
        """Finish the parts submitted (their failures are left to the caller's error)."""
        if self._thread is not None:
            self._queue.append(None)
            self._ready.release()
            self._thread.join()
            self._thread = None


def _quietly(run: Callable, bots_log: str | None) -> Callable:
    """``run`` with ``sys.stdout`` and ``sys.stderr`` going to ``bots_log`` while it plays."""

    def quiet(task):
        with open(bots_log or os.devnull, "a", encoding="utf-8", errors="replace") as sink:
            with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
                return run(task)

    return quiet


def check_result(res: tasks.TaskResult, on_error: str) -> None:
    """Stop the run on an engine failure, or on a strategy failure with ``on_error="stop"``."""
    if res.fatal is not None and res.source_failure:
        raise SimulationError(res.fatal)
    if res.fatal is not None:
        raise SimulationError(f"engine failure in {res.fatal.splitlines()[0]}")
    if (
        res.errors and on_error == tasks.OnError.STOP
    ):  # the bot's exception (or its worker's traceback) as the cause
        error = SimulationError(
            f"{res.errors[0]} (use --on-error record to record errored matches and go on)"
        )
        error.failure = res.failure
        raise error from (res.failure.cause() if res.failure is not None else None)


class Execution:
    """One session of a run: ``run()`` plays ``plan`` into ``directory`` (see the module docstring).

    ``total``: the run's matches (for the line of a write that failed); ``report``: called
    with ``(matches, deals)`` after each result.
    """

    def __init__(
        self, directory: RunDirectory, plan: Plan, session: Session, total: int, report: Report | None
    ) -> None:
        self.directory = directory
        self.plan = plan
        self.session = session
        self.total = total
        self.report = report
        self.writer = PartWriterThread(directory.finish)
        self.pool = None
        self.window: TaskWindow | None = None
        self.matches = self.deals = 0
        self.state, self.error = "complete", None
        self._person = False  # a seat is a person's (``guandan play``)
        self._t0 = time.monotonic()

    def run(self) -> None:
        """Play every task; the session's end is recorded however it ends (``SimulationError``,
        ``SimulationInterrupted`` on Ctrl-C)."""
        tasks.forget_loaded()
        tasks.LOCAL_CLASSES.update(self.plan.local_classes)
        try:
            self._play()
        except BaseException as exc:
            self._halt()
            raised = self._outcome(exc)
            if raised is None:
                raise
            raise raised from None
        finally:
            self._bots_output()
            self.directory.close_journals(*self.writer.pending.values())
            self.directory.end(self.state, self.error, self.matches, self.deals, time.monotonic() - self._t0)

    def _play(self) -> None:
        directory, plan = self.directory, self.plan
        for index in directory.covered():
            directory.finish(
                index, directory.take(index)
            )  # journaled in full by a session stopped before writing it
        if plan.tasks:
            self._person = tasks.asks_a_person(plan.spec)
            limits = self._limits()
            watched = self.session.backend == "local" and not self.session.in_process
            try:
                if watched:
                    self.pool = supervisor.WatchedPool(plan.workers, limits)
                else:
                    self.pool = open_backend(self.session.backend, plan.workers, self.session.ray_address)
            except BackendError as exc:
                raise SimulationError(str(exc)) from None
            in_process = isinstance(self.pool, InProcess) and not self._person
            here = supervisor.watched_here(limits) if in_process else contextlib.nullcontext()
            with here:
                for res in self._results(self.pool):
                    self._save(res)
                    self._tell_notes()
            self.pool.close()
            self._tell_notes()
        self.writer.wait()

    def _limits(self) -> supervisor.Limits:
        """The session's limits; the bots' output goes to the run directory's ``bots.log``
        (for a game with a person, ``guandan play``, neither: it is their screen and their time)."""
        if self._person:
            return supervisor.Limits(0.0, self.session.max_memory, None)
        return supervisor.Limits(
            self.session.decision_timeout, self.session.max_memory, str(self._bots_log())
        )

    def _bots_log(self) -> Path:
        """Where the bots' output goes: the session's file, else the run directory's ``bots.log``."""
        given = self.session.bots_log
        return Path(given) if given is not None else self.directory.out / supervisor.BOTS_LOG

    def _tell_notes(self) -> None:
        """Print the pool's notes (a worker lost and its match replayed) on stderr, once each."""
        notes = getattr(self.pool, "notes", None)
        while notes:
            _note(notes.pop(0))

    def _bots_output(self) -> None:
        """Say where the bots' output went (an empty ``bots.log`` is removed)."""
        path = self._bots_log()
        try:
            size = path.stat().st_size
        except OSError:
            return
        if size == 0:
            path.unlink(missing_ok=True)
            return
        shown = f"{size / 1e6:.1f} MB" if size >= 100_000 else f"{size} bytes"
        _note(f"the strategies printed {shown}: see {path} (never in this command's output)")

    def _results(self, pool):
        """The tasks' results in completion order: each is durable as soon as it arrives. Tasks are
        fed at most two per worker ahead of the journal, so a kill loses at most that much even
        when the journal's fsyncs lag behind fast workers."""
        streams = pool.streams_tasks
        self.window = TaskWindow(self.plan.tasks, 2 * self.plan.workers if streams else len(self.plan.tasks))
        run = tasks.run_task
        if isinstance(pool, InProcess) and not self._person:  # a bot's output never in the command's
            run = _quietly(run, self._limits().bots_log)
        return pool.imap_unordered(run, self.window if streams else self.plan.tasks)

    def _save(self, res: tasks.TaskResult) -> None:
        """Journal one result, report it, and hand its part to the writer once the part is covered."""
        check_result(res, self.session.on_error)
        directory = self.directory
        index = self.plan.part_of_task[res.start]
        journal = directory.journal(index, res)
        assert self.window is not None
        self.window.saved(res.start)
        self.matches += res.matches
        self.deals += res.deals
        if self.report is not None:
            self.report(res.matches, res.deals)
        if journal.covers(*directory.bounds(index)):
            directory.note_session(self.matches, self.deals, time.monotonic() - self._t0)
            self.writer.submit(index, directory.take(index))
        self.writer.raise_failure()

    def _halt(self) -> None:
        """Stop feeding tasks, stop the workers, finish the part being written."""
        if self.window is not None:
            self.window.stop()  # the pool's feeder thread must not wait for a slot forever
        if self.pool is not None:
            try:
                self.pool.terminate()
            except Exception:  # noqa: BLE001
                pass
        self.writer.shutdown()  # a part being written is finished first

    def _outcome(self, exc: BaseException) -> BaseException | None:
        """Record why the session stopped; the exception to raise instead of ``exc`` (``None``: ``exc``)."""
        out = self.directory.out
        if isinstance(exc, KeyboardInterrupt):
            self.state, self.error = (
                "interrupted",
                "interrupted (rerun the command, or add --resume, to continue)",
            )
            # counted on disk: an entry fsynced just before the interrupt is saved, though
            # the interrupt came before this process noted it
            return interruption(out, exc)
        self.state = "failed"
        self.error = str(exc) if isinstance(exc, SimulationError) else f"{type(exc).__name__}: {exc}"
        if isinstance(exc, OSError):  # a full disk, a folder gone, a read-only mount
            self.error = f"cannot write {exc.filename or out}: {exc.strerror or exc}"
            return SimulationError(f"{self.error}; {saved_line(out, self.total)}")
        return None


__all__ = ["Execution", "PartWriterThread", "TaskWindow", "check_result"]

"""Watched workers: a run never hangs on a bot that dies, sleeps or loops, and a bot's output
never reaches the command's.

Why an executor of its own rather than ``multiprocessing.Pool`` (or ``loky``): a pool shares
one task queue and one result queue, guarded by locks in shared memory, among its workers. A
worker that dies (``os._exit``, SIGKILL from the out-of-memory killer) loses its task without a
word, may die holding a lock, and its replacement cannot tell which matches were lost;
``concurrent.futures``' process pool (and ``loky``) report a dead worker by breaking the whole
pool, so every task in flight is lost, and neither can stop one task that overruns. Here each
worker has its own pipe and a few shared integers (``tasks.POSITION``: the job it runs, its
match, the deals done in it, the seat being asked), and the parent waits on the pipes and the
processes' sentinels at once (``multiprocessing.connection.wait``). So it knows at once which
worker died, in which match and deal, can kill one worker without harming the others, and
replays exactly what was lost:

- a worker that dies in match ``m`` of a task: the task's matches before ``m`` and after it are
  replayed as they were (each match is seeded by the root seed and its index alone, so they give
  the same bytes), and ``m`` itself is replayed alone with each seat's calls named
  (``tasks.run_tracked``). If it dies again there, the match is recorded as errored at that
  seat and deal, its deals before replayed (``tasks.run_cut``), the cause being the signal or
  exit code. If it plays through (a worker killed from outside), its true bytes are kept and a
  note says so.
- a decision that outlives ``--decision-timeout``: a thread in the worker (``DecisionWatch``)
  samples the main thread's stack (no cost on the hot path: nothing is written per decision)
  and raises ``DecisionTimeout`` in the bot, which is recorded like any bot failure. A bot that
  does not give way within the grace after it (stuck in C code, or catching it) is killed by the
  parent, and its match recorded as errored at that seat and deal in the same words.

The watch thread also counts a heartbeat in ``POSITION``; a worker whose heartbeat stops for
longer than the limit and the grace (C code that holds the interpreter's lock) is killed too.
Workers ignore SIGINT, SIGTERM and SIGHUP (the parent handles them and kills the workers), die
with the parent (``PR_SET_PDEATHSIG``), write their standard output and error to the run's
``bots.log``, and may be given an address-space limit (``--max-memory``), so that a bot's
over-allocation is a ``MemoryError``: an errored match.

With one worker and no memory limit the run plays in the calling process (no process to
start): the decision limit is then enforced by the same thread, in Python code only (a bot
stuck in C code, or one that ends the process, ends the run there; use two workers or more).
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from guandan_cli.engine.failures import DecisionTimeout
from guandan_cli.runner import tasks
from guandan_cli.runner.backends import Backend, _started_ignoring_sigint
from guandan_cli.runner.errors import SimulationError

#: seconds a bot may take over one decision unless ``--decision-timeout`` says otherwise
DEFAULT_DECISION_TIMEOUT = 60.0
#: the file of a run directory that holds what its bots printed
BOTS_LOG = "bots.log"
#: the signals that stop a run as Ctrl-C does (the parent's; workers ignore them)
STOP_SIGNALS = tuple(getattr(signal, n) for n in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, n))
#: how often the parent looks at its workers when nothing arrives (seconds)
POLL = 0.2
#: the most times one task's workers may die before the run stops (a machine short of memory)
MAX_LOSSES = 8


@dataclass(frozen=True)
class Limits:
    """What a run's workers may do: seconds per decision (0: no limit), bytes of address space
    per worker (``None``: no limit), and the file their output goes to (``None``: dropped)."""

    decision_timeout: float = DEFAULT_DECISION_TIMEOUT
    max_memory: int | None = None
    bots_log: str | None = None

    @property
    def grace(self) -> float:
        """Seconds after a ``DecisionTimeout`` before its worker is killed."""
        return min(max(1.0, self.decision_timeout / 4), 10.0)


@dataclass(frozen=True)
class GivenLimits:
    """Limits a command gave for the runs it starts (``compare``, ``tournament``,
    ``experiment`` start several): what ``simulate`` uses for an argument left at ``None``."""

    decision_timeout: float | None = None
    max_memory: str | int | None = None


_GIVEN: list[GivenLimits] = [GivenLimits()]


def limits_given() -> GivenLimits:
    """The limits of the innermost ``given_limits`` block (none: the defaults)."""
    return _GIVEN[-1]


@contextlib.contextmanager
def given_limits(
    decision_timeout: float | None = None, max_memory: str | int | None = None
) -> Iterator[None]:
    """Every ``simulate`` in the block takes these limits unless it is given its own.

    >>> with given_limits(decision_timeout=5):
    ...     limits_given().decision_timeout
    5
    """
    _GIVEN.append(GivenLimits(decision_timeout, max_memory))
    try:
        yield
    finally:
        _GIVEN.pop()


_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
#: the least ``--max-memory`` accepted: a worker's interpreter and the engine need about this much
MIN_MEMORY = 256 << 20


def parse_memory(text: str | int | None, option: str = "--max-memory") -> int | None:
    """Bytes from ``2G``, ``1.5G``, ``512M``, ``800000000`` (``None``, ``""``, ``0``: no limit);
    ``ValueError`` naming ``option`` otherwise.

    >>> parse_memory("2G"), parse_memory("512m"), parse_memory(None)
    (2147483648, 536870912, None)
    >>> parse_memory("banana")
    Traceback (most recent call last):
    ...
    ValueError: --max-memory must be a size such as 2G, 512M or 1.5G (bytes; K, M, G, T: powers of 1024), got 'banana'
    """
    if text is None or text == "" or text == 0 or text == "0":
        return None
    m = re.fullmatch(r"\s*(\d+(?:\.\d*)?|\.\d+)\s*([KMGT]?)(?:i?B)?\s*", str(text), re.IGNORECASE)
    if m is None or isinstance(text, bool):
        raise ValueError(
            f"{option} must be a size such as 2G, 512M or 1.5G (bytes; K, M, G, T: powers of 1024), got {text!r}"
        )
    size = int(float(m.group(1)) * _UNITS[m.group(2).upper()])
    if size < MIN_MEMORY:
        raise ValueError(
            f"{option} must be at least 256M (a worker's interpreter and the engine need that much), got {text!r}"
        )
    return size


def check_decision_timeout(seconds: float | None, option: str = "--decision-timeout") -> float:
    """The limit in seconds (``None``: the default); ``ValueError`` naming ``option`` for a
    negative, infinite or not-a-number one.

    >>> check_decision_timeout(None), check_decision_timeout(0)
    (60.0, 0.0)
    """
    if seconds is None:
        return DEFAULT_DECISION_TIMEOUT
    if (
        isinstance(seconds, bool)
        or not isinstance(seconds, int | float)
        or not math.isfinite(seconds)
        or seconds < 0
    ):
        raise ValueError(f"{option} must be a finite number of seconds, 0 for no limit, got {seconds!r}")
    return float(seconds)


# ------------------------------------------------------------------ the decision watch


def _loop_codes() -> dict:
    """The code of each engine loop that asks a seat (and of the loop that makes the players:
    a constructor is watched as a decision), and its local naming the seat asked."""
    from guandan_cli.engine import play
    from guandan_cli.runner import setups, tasks

    seat = {
        tasks.new_players: "seat",
        play.play_deal: "seat",
        play._steps: "seat",  # play_deal's general loop (and watch's), one action per step
        play.start_deal: "seat",
        play._play_by_observations: "seat",
        play._play_by_shortcuts: "seat",
        play._tell: "seat",
        play._announce: "s",
        play.iter_match: "seat",
        setups.play_setup: "seat",
    }
    return {f.__code__: name for f, name in seat.items()}


def decision(frame, codes: dict) -> tuple[tuple, int] | None:
    """``(key, seat)`` of the decision ``frame`` is in (``None``: none): the innermost engine
    loop on its stack, the deal there, its actions so far and the seat asked. The key changes
    with every decision, so one seen twice ``limit`` seconds apart has lasted that long."""
    while frame is not None:
        name = codes.get(frame.f_code)
        if name is not None:
            local = frame.f_locals
            seat, deal = local.get(name), local.get("deal")
            if isinstance(seat, int) and (deal is not None or "cls" in local):  # a deal, or a
                # constructor (``tasks.new_players``)
                if getattr(_player(local, name, seat), "own_decision_timeout", False):
                    return None  # a seat that keeps its own time (a remote client's: protocol/remote.py)
                return (id(frame), id(deal), len(getattr(deal, "actions", ())), seat), seat
        frame = frame.f_back
    return None


_ENGINE = os.sep + os.path.join("guandan_cli", "engine") + os.sep


def _in_bot(frame, codes: dict) -> bool:
    """Whether ``frame`` runs inside a bot's call, not in the engine loop or its helpers (so a
    ``DecisionTimeout`` raised there is the bot's failure): the frame the loop called is the
    bot's, or the engine's ``_answer`` that asks it."""
    below = None
    while frame is not None and frame.f_code not in codes:
        below, frame = frame, frame.f_back
    if below is None:
        return False  # in the loop itself: the decision is over, or not begun
    code = below.f_code
    return code.co_name == "_answer" or _ENGINE not in code.co_filename


def _player(local: dict, name: str, seat: int):
    """The player asked in an engine loop's locals (``None`` if not found)."""
    if name == "s":
        return local.get("p")
    players = local.get("players")
    try:
        return players[seat] if players is not None else None
    except (IndexError, TypeError, KeyError):
        return None


class DecisionWatch:
    """A thread that raises ``DecisionTimeout`` in the main thread's bot once one decision has
    lasted ``limits.decision_timeout`` seconds; ``position`` (a worker's): where it writes its
    heartbeat, the seat of a decision past the limit, and ``STUCK`` once the bot has not given
    way within the grace after it (the parent then kills the worker).

    Its samples cost the played matches nothing: between them, nothing is written."""

    def __init__(self, limits: Limits, position=None) -> None:
        self.limit = limits.decision_timeout
        self.grace = limits.grace
        self.position = position
        self.interval = min(max(self.limit / 8, 0.02), 1.0)
        self._stop = threading.Event()
        self._pending: tuple | None = None
        self._previous = None
        self._thread: threading.Thread | None = None

    def start(self) -> DecisionWatch:
        if self.limit <= 0 or threading.current_thread() is not threading.main_thread():
            return self
        self._codes = _loop_codes()
        self._main = threading.main_thread().ident
        self._previous = signal.signal(signal.SIGUSR1, self._raise)
        self._thread = threading.Thread(target=self._watch, name="guandan-decision-watch", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._thread is None:
            return
        self._stop.set()
        self._thread.join()
        self._thread = None
        signal.signal(signal.SIGUSR1, self._previous or signal.SIG_DFL)

    def __enter__(self) -> DecisionWatch:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def _raise(self, signum, frame) -> None:
        """In the main thread: the decision past its limit, if it is still the one being made."""
        key = self._pending
        found = decision(frame, self._codes)
        if key is not None and found is not None and found[0] == key and _in_bot(frame, self._codes):
            self._pending = None
            raise DecisionTimeout(f"no answer within {self.limit:g} s (--decision-timeout)")

    def _watch(self) -> None:
        seen, since, told = None, 0.0, None
        position = self.position
        while not self._stop.wait(self.interval):
            if position is not None:
                position[tasks.BEAT] += 1
            found = decision(sys._current_frames().get(self._main), self._codes)
            now = time.monotonic()
            if found is None or found[0] != seen:
                seen, since, told = (found[0] if found else None), now, None
                continue
            if told is None and now - since >= self.limit:
                self._pending, told = seen, now
                if position is not None:
                    position[tasks.OVERDUE] = found[1]
                signal.pthread_kill(self._main, signal.SIGUSR1)
            elif told is not None and now - told >= self.grace:
                if position is not None:  # the parent kills this worker
                    position[tasks.OVERDUE] = found[1]
                    position[tasks.STUCK] = 1
                else:  # in the calling process: ask again
                    self._pending, told = seen, now
                    signal.pthread_kill(self._main, signal.SIGUSR1)


@contextlib.contextmanager
def time_limit(seconds: float, what: str) -> Iterator[None]:
    """Raise ``DecisionTimeout`` in the main thread if the block lasts more than ``seconds``
    (0: no limit): for a bot's code that runs in this process outside any decision, such as
    its module's import. Python code only (a block stuck in C code is not interrupted).

    >>> with time_limit(5, "loading"):
    ...     pass
    """
    if seconds <= 0 or threading.current_thread() is not threading.main_thread():
        yield
        return
    done = threading.Event()
    main = threading.main_thread().ident

    def _raise(signum, frame) -> None:
        if not done.is_set():
            raise DecisionTimeout(f"{what}: not done within {seconds:g} s (--decision-timeout)")

    previous = signal.signal(signal.SIGUSR1, _raise)

    def _watch() -> None:
        if not done.wait(seconds):
            signal.pthread_kill(main, signal.SIGUSR1)

    thread = threading.Thread(target=_watch, name="guandan-time-limit", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()
        signal.signal(signal.SIGUSR1, previous)


#: what a bot may raise that is its failure while a run plays in the calling process (a
#: ``KeyboardInterrupt`` there is Ctrl-C) and in a worker (where it can only be the bot's)
IN_PROCESS_FAILURES = (Exception, SystemExit, DecisionTimeout)
WORKER_FAILURES = (Exception, SystemExit, KeyboardInterrupt, DecisionTimeout)


@contextlib.contextmanager
def watched_here(limits: Limits) -> Iterator[None]:
    """While a run plays in this process: the decision watch, and a bot's ``SystemExit``
    counted as its failure (its output is redirected task by task: ``execution._quietly``)."""
    from guandan_cli.engine import play

    failures = play.BOT_FAILURES
    play.BOT_FAILURES = IN_PROCESS_FAILURES
    try:
        with DecisionWatch(limits):
            yield
    finally:
        play.BOT_FAILURES = failures


# ------------------------------------------------------------------ a worker


def _die_with_parent() -> None:
    """Linux: this process gets SIGKILL when its parent dies (a parent killed with -9)."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # pragma: no cover - not Linux
        pass


def worker_main(conn, position, limits: Limits) -> None:
    """A watched worker: run each job ``(id, fn, arg)`` received, send ``(id, "ok", result)`` or
    ``(id, "error", traceback)``; end at ``None`` or when the parent is gone."""
    for signum in STOP_SIGNALS:
        signal.signal(signum, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, set(STOP_SIGNALS))
    _die_with_parent()
    try:
        out = os.open(limits.bots_log or os.devnull, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        os.dup2(out, 1)
        os.dup2(out, 2)
        os.close(out)
        if limits.max_memory:
            import resource

            resource.setrlimit(resource.RLIMIT_AS, (limits.max_memory, limits.max_memory))
        from guandan_cli.engine import play

        play.BOT_FAILURES = WORKER_FAILURES
        tasks.POSITION = position
        DecisionWatch(limits, position).start()
    except BaseException:  # noqa: BLE001 - told to the parent, which stops the run
        import traceback

        conn.send((0, "error", traceback.format_exc()))
        os._exit(1)
    while True:
        try:
            job = conn.recv()
        except (EOFError, OSError):
            break
        if job is None:
            break
        job_id, fn, arg = job
        position[tasks.JOB], position[tasks.MATCH], position[tasks.DEALS] = job_id, -1, 0
        position[tasks.SEAT] = position[tasks.OVERDUE] = -1
        try:
            reply = (job_id, "ok", fn(arg))
        except BaseException:  # noqa: BLE001 - told to the parent, which stops the run
            import traceback

            reply = (job_id, "error", traceback.format_exc())
        position[tasks.JOB] = -1
        try:
            conn.send(reply)
        except (OSError, EOFError):
            break
    sys.stdout.flush()
    os._exit(0)  # no interpreter teardown: nothing to free that the system does not


# ------------------------------------------------------------------ the parent's side


@dataclass(eq=False)
class _Group:
    """An original task ``(spec, start, stop)`` and the results of its pieces by first match."""

    task: tuple
    pieces: dict = field(default_factory=dict)
    ends: dict = field(default_factory=dict)
    losses: int = 0
    done: bool = False

    @property
    def spec(self):
        return self.task[0]


@dataclass(eq=False)
class _Job:
    id: int
    group: _Group
    fn: object
    arg: tuple
    first: int
    end: int
    kind: str  # "run" (matches first … end-1), "tracked" (one match, seats named), "cut"
    attempts: int = 0
    #: a tracked job's reason: how the worker that first played its match was lost
    lost: str | None = None


@dataclass(eq=False)
class _Worker:
    process: object
    conn: object
    position: object
    jobs: deque = field(default_factory=deque)
    beat: int = -1
    beat_seen: float = 0.0


def exit_cause(code: int | None) -> str:
    """``killed by SIGKILL`` or ``exit code 3``: how a worker process ended.

    >>> exit_cause(-9), exit_cause(3)
    ('its worker process was killed by SIGKILL', 'its worker process exited with code 3')
    """
    if code is not None and code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"its worker process was killed by {name}"
    return f"its worker process exited with code {code}"


def merge(task: tuple, parts: list) -> tasks.TaskResult:
    """One result for ``task`` from its pieces' results, in match order."""
    first = parts[0]
    res = tasks.TaskResult(task[1], parts[-1].stop)
    res.deal_lines = b"".join(p.deal_lines for p in parts)
    res.match_lines = b"".join(p.match_lines for p in parts)
    res.deals = sum(p.deals for p in parts)
    res.matches = sum(p.matches for p in parts)
    res.errors = [e for p in parts for e in p.errors]
    res.wins = (sum(p.wins[0] for p in parts), sum(p.wins[1] for p in parts))
    res.capped = sum(p.capped for p in parts)
    res.failure = next((p.failure for p in parts if p.failure is not None), first.failure)
    res.fatal, res.source_failure = parts[-1].fatal, parts[-1].source_failure
    return res


class WatchedPool(Backend):
    """``workers`` watched worker processes (see the module docstring); ``notes``: lines about
    workers lost and replayed, for the caller to print."""

    streams_tasks = True

    def __init__(self, workers: int, limits: Limits) -> None:
        self.limits = limits
        self.notes: list[str] = []
        self._workers: list[_Worker] = []
        self._ids = 0
        self._idle_deaths = 0

        def start() -> None:
            import multiprocessing
            from multiprocessing import resource_tracker

            # the resource tracker unblocks SIGINT in this thread after spawning itself, the
            # first time: start it first (workers are spawned with the stop signals blocked)
            resource_tracker.ensure_running()
            self._ctx = multiprocessing.get_context("spawn")
            for _ in range(workers):
                self._workers.append(self._start_worker())

        try:
            _started_ignoring_sigint(start)
        except BaseException:
            self.terminate()
            raise

    def _start_worker(self) -> _Worker:
        parent, child = self._ctx.Pipe(duplex=True)
        position = self._ctx.RawArray("q", 7)
        process = self._ctx.Process(
            target=worker_main, args=(child, position, self.limits), name="guandan-worker", daemon=True
        )
        # spawned with the stop signals blocked: a Ctrl-C as it starts waits until it ignores them
        # (``worker_main``), and is handled here alone
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, set(STOP_SIGNALS))
        try:
            process.start()
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        child.close()
        return _Worker(process, parent, position)

    # -------------------------------------------------------------- the loop

    def imap_unordered(self, fn, tasks_in: Iterable) -> Iterator[tasks.TaskResult]:
        self._fn = fn
        return self._results(iter(tasks_in))

    def imap(self, fn, tasks_in):  # pragma: no cover - the runner uses imap_unordered
        return map(fn, tasks_in)

    def _job(self, group: _Group, kind: str, first: int, end: int, arg: tuple, fn) -> _Job:
        self._ids += 1
        return _Job(self._ids, group, fn, arg, first, end, kind)

    def _results(self, source: Iterator) -> Iterator[tasks.TaskResult]:
        from multiprocessing.connection import wait

        self._ready: deque[_Job] = deque()
        open_groups = 0
        exhausted = False
        while True:
            # hand out jobs: the replays first, then new tasks (at most two per worker in flight)
            for worker in self._workers:
                while len(worker.jobs) < 2:
                    if self._ready:
                        job = self._ready.popleft()
                    elif not exhausted and open_groups < 2 * len(self._workers):
                        try:
                            task = next(source)
                        except StopIteration:
                            exhausted = True
                            break
                        group = _Group(task)
                        open_groups += 1
                        job = self._job(group, "run", task[1], task[2], task, self._fn)
                    else:
                        break
                    self._send(worker, job)
            if exhausted and open_groups == 0:
                return
            by_handle = {}
            for worker in self._workers:
                by_handle[worker.conn] = worker
                by_handle[worker.process.sentinel] = worker
            for handle in wait(list(by_handle), timeout=POLL):
                worker = by_handle[handle]
                if worker not in self._workers:
                    continue  # already replaced (its pipe and sentinel were both ready)
                for res in self._receive(worker):
                    open_groups -= 1
                    yield res
            for worker in list(self._workers):
                if worker.jobs and self._overran(worker):
                    self._lose(worker, timed_out=True)

    def _send(self, worker: _Worker, job: _Job) -> None:
        worker.jobs.append(job)
        try:
            worker.conn.send((job.id, job.fn, job.arg))
        except OSError:  # it died: found by its sentinel
            pass

    def _receive(self, worker: _Worker) -> Iterator[tasks.TaskResult]:
        """The results ``worker`` sent; if it has died, what it lost is handed out again."""
        while True:
            try:
                if not worker.conn.poll():
                    break
                job_id, status, value = worker.conn.recv()
            except (EOFError, OSError):
                break
            if job_id == 0:  # it could not start
                raise SimulationError(f"a worker process cannot start: {value.strip().splitlines()[-1]}")
            job = worker.jobs.popleft()
            assert job.id == job_id, (job.id, job_id)
            if status == "error":
                raise SimulationError(f"a worker failed: {value.strip().splitlines()[-1]}")
            self._idle_deaths = 0
            done = self._piece(job, value)
            if done is not None:
                yield done
        if not worker.process.is_alive():
            worker.process.join()
            self._lose(worker, timed_out=False)

    def _piece(self, job: _Job, res: tasks.TaskResult) -> tasks.TaskResult | None:
        """Record one job's result; the whole task's once its pieces cover it."""
        group = job.group
        if group.done:
            return None
        if job.kind == "tracked" and job.lost is not None:
            self.notes.append(
                f"match {job.first}: {job.lost}, then played through when replayed: its bytes are kept"
            )
        if len(group.pieces) == 0 and job.first == group.task[1] and job.end == group.task[2]:
            group.done = True
            return res  # the common case: the task in one piece
        group.pieces[job.first] = res
        group.ends[job.first] = job.end
        parts, at, stop = [], group.task[1], group.task[2]
        while at < stop:
            part = group.pieces.get(at)
            if part is None:
                return None
            parts.append(part)
            end = group.ends[at]
            if (
                part.fatal is not None
                or part.stop < end
                or (part.errors and group.spec.on_error == tasks.OnError.STOP)
            ):
                break
            at = end
        group.done = True
        return merge(group.task, parts)

    def _overran(self, worker: _Worker) -> bool:
        """Whether ``worker``'s decision is past its limit and grace (or its heartbeat stopped)."""
        limit = self.limits.decision_timeout
        position = worker.position
        if limit <= 0 or position[tasks.JOB] != worker.jobs[0].id:
            return False
        if position[tasks.STUCK]:
            return True
        now = time.monotonic()
        beat = position[tasks.BEAT]
        if beat != worker.beat:
            worker.beat, worker.beat_seen = beat, now
            return False
        return now - worker.beat_seen > limit + self.limits.grace + 2.0

    def _lose(self, worker: _Worker, timed_out: bool) -> None:
        """``worker`` died (or overran: killed now): replace it, and hand out again what it lost."""
        position = worker.position
        running = worker.jobs[0] if worker.jobs and position[tasks.JOB] == worker.jobs[0].id else None
        seat = position[tasks.SEAT]
        if timed_out and position[tasks.STUCK]:
            seat = position[tasks.OVERDUE]  # the seat the watch found past its limit
        where = (position[tasks.MATCH], position[tasks.DEALS], seat)
        if timed_out:
            worker.process.kill()
            worker.process.join()
        cause = (
            f"DecisionTimeout: no answer within {self.limits.decision_timeout:g} s (--decision-timeout)"
            if timed_out
            else exit_cause(worker.process.exitcode)
        )
        worker.conn.close()
        self._workers.remove(worker)
        self._workers.append(self._start_worker())
        if running is None:
            self._idle_deaths += 1
            if self._idle_deaths > MAX_LOSSES:
                raise SimulationError(f"worker processes keep dying before they play: {cause}")
        queued = [job for job in worker.jobs if job is not running]
        self._ready.extendleft(reversed(queued))  # not started: as they were
        if running is not None and not running.group.done:
            self._replay(running, where, cause, timed_out)

    def _replay(self, job: _Job, where: tuple, cause: str, timed_out: bool) -> None:
        """The jobs that replace ``job``, lost at ``where`` (match, deals done, seat) for ``cause``."""
        group = job.group
        group.losses += 1
        if group.losses > MAX_LOSSES:
            raise SimulationError(
                f"workers died {group.losses} times playing matches {group.task[1]}-{group.task[2] - 1}: "
                f"{cause}"
            )
        spec = group.spec
        match, deals, seat = where
        if not job.first <= match < job.end:
            match, deals, seat = job.first, 0, -1  # before its first match
        seat_or_none = seat if seat >= 0 else None
        if job.kind == "cut":  # the replay of a match's first deals died: try once more
            job.attempts += 1
            if job.attempts > 1:
                raise SimulationError(f"the worker replaying match {job.first} died twice: {cause}")
            self._ready.appendleft(job)
            return
        jobs = []
        if match > job.first:
            jobs.append(self._job(group, "run", job.first, match, (spec, job.first, match), tasks.run_task))
        if job.kind == "tracked" or (timed_out and seat >= 0):
            cut = tasks.Cut(deals, seat_or_none, cause)
            jobs.append(self._job(group, "cut", match, match + 1, (spec, match, cut), tasks.run_cut))
        else:
            tracked = self._job(group, "tracked", match, match + 1, (spec, match), tasks.run_tracked)
            tracked.lost = f"{cause} in deal {deals}"
            jobs.append(tracked)
        if match + 1 < job.end:
            jobs.append(
                self._job(group, "run", match + 1, job.end, (spec, match + 1, job.end), tasks.run_task)
            )
        self._ready.extendleft(reversed(jobs))

    # -------------------------------------------------------------- the end

    def close(self) -> None:
        for worker in self._workers:
            try:
                worker.conn.send(None)
            except OSError:
                pass
        for worker in self._workers:
            worker.process.join(5.0)
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join()
            worker.conn.close()
        self._workers = []

    def terminate(self) -> None:
        for worker in self._workers:
            worker.process.kill()
        for worker in self._workers:
            worker.process.join()
            worker.conn.close()
        self._workers = []


__all__ = [
    "BOTS_LOG",
    "DEFAULT_DECISION_TIMEOUT",
    "DecisionWatch",
    "Limits",
    "WatchedPool",
    "check_decision_timeout",
    "given_limits",
    "limits_given",
    "decision",
    "exit_cause",
    "merge",
    "parse_memory",
    "watched_here",
]

"""Backends: where tasks run. ``imap`` yields task results in task order, ``imap_unordered`` as they finish.

- ``local``: one worker runs the tasks in this process; more use a ``multiprocess`` pool
  with an explicit ``spawn`` context (safe in Jupyter and with threads; the task
  function is importable, so nothing is pickled by value). Workers ignore SIGINT from
  their start (spawned with it blocked, until their initializer ignores it): on Ctrl-C the
  parent alone stops and terminates them.
- ``ray``: ``ray.util.multiprocessing.Pool`` connected to ``ray_address`` (or the
  ``RAY_ADDRESS`` environment variable; a local instance when neither is set). Needs
  the optional extra: ``pip install 'guandan[ray]'``.

Results are identical whatever the backend: a task's output depends only on its matches.
"""

from __future__ import annotations

import ast
import os
import sys
from collections.abc import Callable, Iterable, Iterator

BACKENDS = ("local", "ray")


class BackendError(RuntimeError):
    """A backend that cannot start (e.g. Ray not installed or not reachable)."""


#: the most local worker processes a command starts (each is a process: more exhaust memory)
MAX_WORKERS = 1024
#: the most local workers per core: a run is CPU-bound, so more processes than cores only
#: compete for them (1,000 workers on 2 cores played 2,000 matches in 124 s, 2 in 16 s)
WORKERS_PER_CORE = 4


def default_workers() -> int:
    """All the cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def workers_problem(
    workers: int | None, option: str = "workers (--workers)", cores: int | None = None
) -> str | None:
    """Why ``workers`` local worker processes are too many (``None``: they are not): at most
    ``MAX_WORKERS``, and at most ``WORKERS_PER_CORE`` per core of this machine.

    >>> workers_problem(8, cores=2) is None
    True
    >>> workers_problem(1000, cores=2)
    'workers (--workers) must be at most 8 here (4 per core, 2 cores), got 1000: more processes only compete for the cores, and the results are the same with any number'
    """
    if workers is None:
        return None
    if workers > MAX_WORKERS:
        return f"{option} must be at most {MAX_WORKERS} processes, got {workers}"
    cores = cores or default_workers()
    limit = WORKERS_PER_CORE * cores
    if workers > limit:
        return (
            f"{option} must be at most {limit} here ({WORKERS_PER_CORE} per core, {cores} "
            f"core{'s' if cores != 1 else ''}), got {workers}: more processes only compete for "
            "the cores, and the results are the same with any number"
        )
    return None


def _is_main_test(test: ast.expr) -> bool:
    """``__name__ == "__main__"`` (either way round)."""
    if not isinstance(test, ast.Compare) or len(test.ops) != 1 or not isinstance(test.ops[0], ast.Eq):
        return False
    sides = [test.left, test.comparators[0]]
    names = [x for x in sides if isinstance(x, ast.Name) and x.id == "__name__"]
    consts = [x for x in sides if isinstance(x, ast.Constant) and x.value == "__main__"]
    return len(names) == 1 and len(consts) == 1


def main_without_file() -> str | None:
    """The main script's name when it has no file to run again (``python - < script.py``).

    A spawned worker runs the main script's file first; finding none (``'<stdin>'``) it dies,
    and the pool starts another one forever. ``None`` for a script file, ``python -c``, a
    notebook or an interactive session (no ``__file__``).
    """
    path = getattr(sys.modules.get("__main__"), "__file__", None)
    return path if path and not os.path.isfile(path) else None


def unguarded_main_call() -> str | None:
    """``file:line`` when a script calls us at its top level outside ``if __name__ == "__main__":``.

    Spawned workers import the main script again; such a call would run again in every
    worker, and the pool would restart failing workers forever. ``None`` when the call is
    guarded, or when there is no main script (a notebook, ``python -c``, an interactive
    session).
    """
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if not path or not path.endswith(".py") or not os.path.isfile(path):
        return None
    frame = sys._getframe(1)
    line = None
    while frame is not None:
        if frame.f_code.co_name == "<module>" and os.path.samefile(frame.f_code.co_filename, path):
            line = frame.f_lineno
        frame = frame.f_back
    if line is None:
        return None
    try:
        with open(path, encoding="utf-8") as fh:
            tree = ast.parse(fh.read())
    except (OSError, SyntaxError, ValueError):
        return None
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.If)
            and _is_main_test(node.test)
            and node.lineno <= line <= (node.end_lineno or 0)
        ):
            return None
    return f"{path}:{line}"


class _Done:
    """The handle of a task already run in this process."""

    def __init__(self, value) -> None:
        self._value = value

    def get(self):
        return self._value


class Backend:
    """``imap(fn, tasks)`` in task order, ``imap_unordered`` as they finish; ``close()`` (or ``terminate()``)."""

    #: whether ``imap_unordered`` takes tasks from its iterable as workers need them (a
    #: feeder thread), so the iterable may wait; else it reads the whole iterable at once
    streams_tasks = True

    def imap(self, fn: Callable, tasks: Iterable) -> Iterator:
        return map(fn, tasks)

    def imap_unordered(self, fn: Callable, tasks: Iterable) -> Iterator:
        return map(fn, tasks)

    def submit(self, fn: Callable, task):
        """Start ``fn(task)``; the returned handle's ``get()`` gives its result."""
        return _Done(fn(task))

    def close(self) -> None:
        pass

    def terminate(self) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.close()
        else:
            self.terminate()


class InProcess(Backend):
    """One worker: the tasks run here, one after the other."""


def init_worker() -> None:
    """Pool initializer: ``ignore_sigint``, and a worker that stops skips the interpreter's
    teardown (``exit_without_teardown``)."""
    ignore_sigint()
    exit_without_teardown()


def exit_without_teardown() -> None:
    """End this process, once it is done, before the interpreter frees every module.

    A worker holds the engine's tables and the bots' caches; freeing them took about 85 ms of
    each worker's exit, which ``close()`` waited for at the end of every run (3% of 400
    heuristic matches on 2 workers). A pool worker writes no file and sends its results
    before it stops, and multiprocessing's own exit work has run by then (``Process``
    calls it before the interpreter exits): the standard streams are flushed and the
    process exits 0 from the first exit handler (the last registered run first, so those
    registered later still run; earlier ones, ``logging.shutdown`` among them, do not)."""
    import atexit

    atexit.register(_exit_now)


def _exit_now() -> None:
    import os
    import sys

    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001 - a closed stream: nothing to flush
            pass
    os._exit(0)


def ignore_sigint() -> None:
    """Ctrl-C reaches the whole process group; only the parent handles it.

    The worker starts with SIGINT blocked (see ``_started_ignoring_sigint``): ignoring it
    discards one already pending, and only then is it unblocked."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _block_sigint() -> None:
    """Block SIGINT in the calling thread: the processes it spawns, and the threads it starts,
    begin with SIGINT blocked (a signal mask is inherited across fork and kept across exec)."""
    import signal

    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})


def _started_ignoring_sigint(start):
    """``start()`` with SIGINT blocked in this thread, so the processes it spawns begin with it
    blocked and hold a Ctrl-C until their initializer ignores it (``init_worker``; unblocked
    from their first instruction, a worker would print a ``KeyboardInterrupt`` traceback as
    it imports). A Ctrl-C meanwhile only sets a flag (no ``KeyboardInterrupt`` halfway through
    ``start``) and is delivered to this process's previous handler once ``start`` returns.

    The parent never ignores SIGINT: with SIG_IGN set, a Ctrl-C that the kernel hands to
    another thread (the part writer, a pool thread: any thread not blocking it) would be
    discarded there, and the run would go on as if it never came."""
    import signal
    import threading

    # only the main thread may set a handler (elsewhere a Ctrl-C interrupts the main thread), and
    # only one set from Python can be restored
    in_main = (
        threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGINT) is not None
    )
    caught: list[int] = []
    if in_main:
        previous = signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    mask = (
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        if hasattr(signal, "pthread_sigmask")
        else None
    )
    try:
        return start()
    finally:
        if mask is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)  # runs the flag handler for a held Ctrl-C
        if in_main:
            signal.signal(signal.SIGINT, previous)
            if caught:
                if callable(previous):
                    previous(signal.SIGINT, None)  # Python's default handler raises KeyboardInterrupt
                elif previous == signal.SIG_DFL:
                    signal.raise_signal(signal.SIGINT)


#: seconds ``LocalPool.terminate`` waits for the pool to stop before it kills the workers
TERMINATE_WAIT = 5.0


def _terminate_and_join(pool) -> None:
    pool.terminate()
    pool.join()


class LocalPool(Backend):
    def __init__(self, workers: int) -> None:
        self._pool = None
        self._workers: list = []

        def start() -> None:
            # imported here, inside the window: a Ctrl-C during `import multiprocess` lands in
            # its bare `except:` and surfaces as a ModuleNotFoundError traceback
            import multiprocess
            from multiprocess import resource_tracker

            # the resource tracker, the first time it starts, unblocks SIGINT in this thread
            # after spawning itself: start it now, then block SIGINT again for the workers
            resource_tracker.ensure_running()
            _block_sigint()
            before = set(multiprocess.active_children())
            self._pool = multiprocess.get_context("spawn").Pool(workers, initializer=init_worker)
            self._workers = [p for p in multiprocess.active_children() if p not in before]

        try:
            _started_ignoring_sigint(start)
        except BaseException:  # a Ctrl-C held while the pool started is delivered as it returns
            self.terminate()  # the pool exists: stop it here, the caller never got it
            raise

    def imap(self, fn, tasks):
        return self._pool.imap(fn, tasks, chunksize=1)

    def imap_unordered(self, fn, tasks):
        return self._pool.imap_unordered(fn, tasks, chunksize=1)

    def submit(self, fn, task):
        return self._pool.apply_async(fn, (task,))

    def close(self) -> None:
        self._pool.close()
        self._pool.join()

    def terminate(self) -> None:
        """Stop now: ``Pool.terminate``, and if it is not done within ``TERMINATE_WAIT`` seconds,
        kill the workers (they only compute; this process writes every file).

        ``Pool.terminate`` can deadlock: once its result thread has stopped, a worker that
        finishes a task whose result is larger than a pipe's buffer blocks in mid-send while
        holding the result queue's lock, which ``terminate`` then waits for. Killing that
        worker frees nothing (the lock is shared memory), so ``terminate`` is left to a daemon
        thread that the interpreter does not wait for.
        """
        import threading

        pool, self._pool = self._pool, None
        if pool is None:
            return
        stopper = threading.Thread(target=_terminate_and_join, args=(pool,), daemon=True)
        stopper.start()
        stopper.join(TERMINATE_WAIT)
        if stopper.is_alive():
            for process in self._workers:
                process.kill()
            for process in self._workers:
                process.join(TERMINATE_WAIT)


class RayPool(Backend):
    def __init__(self, workers: int | None, address: str | None) -> None:
        try:
            from ray.util.multiprocessing import Pool
        except ImportError:
            raise BackendError(
                "the ray backend needs Ray: pip install 'guandan[ray]' (or pip install 'ray[default]')"
            ) from None
        address = address or os.environ.get("RAY_ADDRESS") or None
        try:
            self._pool = Pool(processes=workers, ray_address=address)
        except Exception as exc:  # noqa: BLE001 - connection failures come in many types
            where = address or "a local Ray instance"
            raise BackendError(f"cannot start a Ray pool on {where}: {type(exc).__name__}: {exc}") from None

    streams_tasks = False

    def imap(self, fn, tasks):
        return self._pool.imap(fn, list(tasks), chunksize=1)

    def imap_unordered(self, fn, tasks):
        return self._pool.imap_unordered(fn, list(tasks), chunksize=1)

    def close(self) -> None:
        self._pool.close()
        self._pool.join()

    def terminate(self) -> None:
        self._pool.terminate()


def open_backend(name: str, workers: int | None, ray_address: str | None = None) -> Backend:
    """The backend ``name`` with ``workers`` processes (``None``: all cores)."""
    if name == "local":
        workers = workers or default_workers()
        return InProcess() if workers == 1 else LocalPool(workers)
    if name == "ray":
        return RayPool(workers, ray_address)
    raise ValueError(f"unknown backend {name!r}: expected one of {', '.join(BACKENDS)}")


__all__ = ["BACKENDS", "Backend", "BackendError", "default_workers", "open_backend"]

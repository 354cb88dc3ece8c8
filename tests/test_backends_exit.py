"""Pool workers end without the interpreter's teardown (``runner.backends.exit_without_teardown``)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from guandan_cli.runner.backends import LocalPool

CODE = textwrap.dedent(
    """
    import atexit
    from guandan_cli.runner.backends import exit_without_teardown

    class Freed:
        def __del__(self):
            print("freed", flush=True)

    kept = Freed()  # freed only by the interpreter's teardown
    exit_without_teardown()
    atexit.register(print, "a later exit handler still runs")
    print("out, unflushed", end="")
    """
)


def test_the_process_exits_after_later_exit_handlers_with_its_output_flushed_and_nothing_freed():
    proc = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "out, unflusheda later exit handler still runs\n"
    assert proc.stderr == ""


def _square(x: int) -> int:
    return x * x


def test_a_local_pool_still_runs_and_closes():
    with LocalPool(2) as pool:
        assert list(pool.imap(_square, range(10))) == [x * x for x in range(10)]
        workers = list(pool._workers)
    assert workers and all(p.exitcode == 0 for p in workers)

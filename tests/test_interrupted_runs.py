"""An interrupted run as readers and Ctrl-C see it.

Readers (``load``, ``analyze``, ``Run``, ``replay``) see the finished matches of an
unfinished part from its journal (good entries only, in match order), each part from one
source: its files as soon as both exist, else its journal. A Ctrl-C at any phase of
``guandan simulate`` reports what is on disk: the matches a resume keeps, and how to resume.
"""

from __future__ import annotations

import random
import re
import shutil
import sys
import warnings
from pathlib import Path

import polars as pl
import pytest
from click.testing import CliRunner

from guandan_cli import open_run, simulate
from guandan_cli.cli.app import app
from guandan_cli.logs import layout
from guandan_cli.logs.journal import Journal, read_entries
from guandan_cli.logs.layout import journal_path, run_completeness
from guandan_cli.reports import IncompleteRunWarning, load
from guandan_cli.runner import config, execution, rundir, tasks

runner = CliRunner()
N, PART, CHUNK = 30, 10, 2
COMMON = {"seed": 4, "strategies": "random", "max_deals": 2, "part_size": PART, "progress": False}
ARGS = ["simulate", "-n", str(N), "--seed", "4", "-s", "random", "--max-deals", "2", "--part-size", str(PART)]
ARGS += ["-w", "1", "--chunk-size", str(CHUNK), "-q"]


def _bytes(run: Path) -> dict[str, bytes]:
    return {
        p.name: p.read_bytes() for p in sorted(run.iterdir()) if p.name.startswith(("deals-", "matches-"))
    }


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> Path:
    return simulate(N, out=tmp_path_factory.mktemp("ref") / "run", workers=1, **COMMON).path


def _interrupted(out: Path, at: int, monkeypatch) -> None:
    """Play until the task holding match ``at`` (chunks of one match, finishing out of order)."""
    real = tasks.run_task

    def run_task(task):
        if task[1] == at:
            raise KeyboardInterrupt
        return real(task)

    monkeypatch.setattr(tasks, "run_task", run_task)
    with pytest.raises(KeyboardInterrupt):
        simulate(N, out=out, workers=1, chunk_size=1, **COMMON)
    monkeypatch.setattr(tasks, "run_task", real)


def _loaded(run: Path, wanted: list[int]):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IncompleteRunWarning)
        data = load(run)
    text = pl.col("run_id").cast(pl.String)
    keep = pl.col("match").is_in(wanted)
    return [getattr(data, k).with_columns(text).filter(keep).collect() for k in ("deals", "matches")], data


def test_torn_journal_tail_reads_only_whole_verified_entries(tmp_path, reference, monkeypatch):
    out = tmp_path / "run"
    _interrupted(out, 14, monkeypatch)  # part 0 complete, part 1 journaled: matches 10-13
    journal = journal_path(out, 1)
    assert [(e.start, e.stop) for e in read_entries(journal)] == [(10, 11), (11, 12), (12, 13), (13, 14)]
    whole = journal.read_bytes()
    last = read_entries(journal)[-1]
    # a torn last entry (cut inside its payload), then garbage after a good entry with a bad digest
    journal.write_bytes(whole[: last.offset + 5])
    res = runner.invoke(app, ["analyze", str(out), "-r", "match-length", "-f", "json"])
    assert res.exit_code == 0, res.output
    assert res.stderr.splitlines() == [f"{out}: incomplete run: 13 of {N} matches"]
    page = tmp_path / "report.html"
    res = runner.invoke(app, ["analyze", str(out), "-r", "match-length", "--html", str(page)])
    assert res.exit_code == 0 and f"incomplete (interrupted): 13 of {N} matches" in page.read_text()
    got, _ = _loaded(out, list(range(N)))
    expected, _ = _loaded(reference, list(range(13)))
    assert got[1].get_column("match").to_list() == list(range(13))
    assert got[0].equals(expected[0]) and got[1].equals(expected[1])
    flipped = bytearray(whole)
    flipped[read_entries(journal_path(out, 1))[1].offset + 3] ^= 1  # entry 2's payload damaged
    journal.write_bytes(bytes(flipped))
    assert run_completeness(out).matches == 11  # part 0 and the entry before the damage
    assert open_run(out).matches().get_column("match").to_list() == list(range(11))
    # the resumed run is the uninterrupted one
    run = simulate(out=out, resume=True, workers=1, progress=False)
    assert run.complete and _bytes(out) == _bytes(reference)


def test_out_of_order_chunks_are_read_in_match_order_with_their_gaps(tmp_path, reference):
    out = tmp_path / "run"
    real = tasks.run_task
    done: list[int] = []

    def run_task(task):  # chunks 0-9 done; then 18-19 and 12-13 finish, 10-11 is in flight
        if task[1] >= 10 and len(done) >= 7:
            raise KeyboardInterrupt
        done.append(task[1])
        return real(task)

    tasks.run_task = run_task
    try:
        with pytest.raises(KeyboardInterrupt):
            simulate(N, out=out, workers=1, chunk_size=2, **COMMON)
    finally:
        tasks.run_task = real
    # rewrite part 1's journal with entries out of order and a gap (as two workers leave it)
    old = Journal.open(journal_path(out, 1))
    pieces = {e.start: (old.deal_lines(e), old.match_lines(e)) for e in old.entries}
    old.remove()
    assert sorted(pieces) == [10, 12]
    ref_lines = {}
    for kind in ("deals", "matches"):
        for line in (reference / f"{kind}-00001.jsonl").read_bytes().splitlines(keepends=True):
            m = int(re.search(rb'"match":(\d+)', line).group(1))
            ref_lines.setdefault((kind, m), []).append(line)
    j = Journal.open(journal_path(out, 1))
    for a in (18, 12):
        chunk = {k: b"".join(b"".join(ref_lines[(k, m)]) for m in (a, a + 1)) for k in ("deals", "matches")}
        j.append(a, a + 2, chunk["deals"], chunk["matches"], {})
    j.close()
    wanted = [*range(10), 12, 13, 18, 19]
    c = run_completeness(out)
    assert (c.matches, c.journaled_matches, c.describe()) == (14, 4, f"incomplete run: 14 of {N} matches")
    got, data = _loaded(out, wanted)
    expected, _ = _loaded(reference, wanted)
    assert got[1].get_column("match").to_list() == wanted
    assert got[0].equals(expected[0]) and got[1].equals(expected[1])
    assert data.stats.skipped == 0
    # replay and watch find a journaled match; a match not finished is not there
    from guandan_cli.interactive.watch import logged_deals

    res = runner.invoke(app, ["replay", str(out), "--match", "18", "--deal", "1"])
    assert res.exit_code == 0 and res.stdout.startswith(f"{journal_path(out, 1)}[deals]:"), res.output
    deals_18 = expected[0].filter(pl.col("match") == 18).height
    assert len(list(logged_deals(out, 18))) == deals_18
    gone = runner.invoke(app, ["replay", str(out), "--match", "14"])
    assert gone.exit_code == 2 and "no match 14" in gone.stderr


def test_a_part_is_read_once_in_the_window_around_its_finalisation(tmp_path, reference, monkeypatch):
    out = tmp_path / "run"
    _interrupted(out, 14, monkeypatch)
    # after both renames, before the journal is deleted: the part's files, not the journal too
    for kind in ("deals", "matches"):
        shutil.copy(reference / f"{kind}-00001.jsonl", out / f"{kind}-00001.jsonl")
    c = run_completeness(out)
    assert (c.complete_matches, c.journaled_matches, c.matches) == (20, 0, 20)
    assert open_run(out).matches().get_column("match").to_list() == list(range(20))
    # the journal deleted while a reader looks at it: the part is looked for again as files
    (out / "matches-00001.jsonl").unlink()
    real = layout.read_journal

    def finalised_meanwhile(path):
        shutil.copy(reference / "matches-00001.jsonl", out / "matches-00001.jsonl")
        Path(path).unlink()
        return real(path)

    monkeypatch.setattr(layout, "read_journal", finalised_meanwhile)
    c = run_completeness(out)
    assert (c.complete_matches, c.journaled_matches, [p.index for p in c.parts]) == (20, 0, [0, 1])


def test_a_finished_run_reads_as_before(reference):
    c = run_completeness(reference)
    assert c.complete and c.journaled == () and c.matches == N
    assert c.sources("deals") == c.deal_files() and c.sources("matches") == c.match_files()


# ------------------------------------------------------------------ Ctrl-C at every phase


def _saved_line(out: Path) -> str:
    c = run_completeness(out)
    return f"guandan: interrupted: {c.matches} of {N} matches saved; resume with: guandan simulate --out {out} --resume"


def _ctrl_c(monkeypatch, target, name: str, when=lambda *a, **k: True):
    real = getattr(target, name)

    def interrupting(*args, **kwargs):
        if when(*args, **kwargs):
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(target, name, interrupting)


def test_ctrl_c_before_anything_exists_says_nothing_was_written(tmp_path, monkeypatch):
    out = tmp_path / "run"
    _ctrl_c(monkeypatch, config, "check_strategies")  # before the folder is made
    res = runner.invoke(app, [*ARGS, "--out", str(out)])
    assert res.exit_code == 130
    assert res.stderr.splitlines() == [
        f"guandan: interrupted: before the run started: nothing was written to {out}"
    ]
    monkeypatch.undo()
    _ctrl_c(monkeypatch, rundir, "_clear_or_reload")  # the folder made, no manifest yet
    res = runner.invoke(app, [*ARGS, "--out", str(out)])
    assert res.exit_code == 130 and "nothing was written" in res.stderr
    assert not out.exists()  # the empty folder this session made is gone


@pytest.mark.parametrize(
    "phase",
    ["recovery", "pool start", "during", "part writing", "final manifest", "second ctrl-c while saving"],
)
def test_ctrl_c_at_each_phase_reports_what_is_saved_and_resumes(tmp_path, reference, monkeypatch, phase):
    out = tmp_path / "run"
    if phase in (
        "recovery",
        "pool start",
    ):  # a session that stopped at match 14, resumed and interrupted early
        _interrupted(out, 14, monkeypatch)
        target, name = (rundir, "_recover") if phase == "recovery" else (execution, "open_backend")
        _ctrl_c(monkeypatch, target, name)
    elif phase == "during":
        _ctrl_c(monkeypatch, tasks, "run_task", lambda task: task[1] == 22)
    elif phase == "part writing":  # every match journaled; the last part's files not written
        _ctrl_c(monkeypatch, rundir, "_finish_part", lambda out, index, *a: index == 2)
    elif phase == "final manifest":  # every part written; the manifest not yet saying complete
        _ctrl_c(monkeypatch, rundir, "write_manifest", lambda path, m: m.state == "complete")
    else:  # Ctrl-C at match 22, and again while the manifest is saved
        _ctrl_c(monkeypatch, tasks, "run_task", lambda task: task[1] == 22)
        _ctrl_c(monkeypatch, rundir, "write_manifest", lambda path, m: m.state == "interrupted")
    res = runner.invoke(app, [*ARGS, "--out", str(out)])
    assert res.exit_code == 130, res.output
    assert res.stderr.splitlines() == [_saved_line(out)]
    saved = {"recovery": 14, "pool start": 14, "during": 22, "part writing": N, "final manifest": N}
    assert run_completeness(out).matches == saved.get(phase, 22)
    monkeypatch.undo()
    done = runner.invoke(app, [*ARGS[:1], "--out", str(out), "--resume", "-w", "1", "-q"])
    assert done.exit_code == 0, done.output
    assert open_run(out).complete and _bytes(out) == _bytes(reference)
    assert not list(out.glob("*.journal"))


def test_ctrl_c_while_printing_the_summary_says_the_run_is_complete(tmp_path, monkeypatch):
    out = tmp_path / "run"
    _ctrl_c(monkeypatch, rundir.Run, "summary")
    res = runner.invoke(app, [*ARGS[:-1], "--out", str(out)])
    assert res.exit_code == 130
    assert res.stderr.splitlines()[-1] == (
        f"guandan: interrupted: the run was complete: {N} of {N} matches saved in {out}"
    )


#: ``guandan`` in a child process that dumps every thread's stack on SIGABRT (faulthandler)
GUANDAN = [sys.executable, "-X", "faulthandler", "-c", "from guandan_cli.cli.app import main; main()"]


def _stopped(proc, what: str, timeout: float) -> str:
    """The stderr of ``proc`` once it exits within ``timeout`` seconds; else a failure naming
    ``what`` and showing where each of its threads was stuck (its group is killed)."""
    import os
    import signal
    import subprocess

    try:
        return proc.communicate(timeout=timeout)[1].decode()
    except subprocess.TimeoutExpired:
        os.kill(proc.pid, signal.SIGABRT)  # faulthandler prints every thread's stack, then it dies
        try:
            err = proc.communicate(timeout=10)[1].decode()
        except subprocess.TimeoutExpired:
            err = "(no stack dump within 10 s)"
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # its workers too
        except ProcessLookupError:
            pass
        proc.wait(timeout=10)
        pytest.fail(f"{what}: the process did not exit within {timeout:g} s; its stderr:\n{err[-6000:]}")


@pytest.mark.slow
def test_real_ctrl_c_at_random_moments_reports_what_a_resume_keeps(tmp_path):
    """SIGINT to the process group, as a terminal sends it, from start-up to the end of the run."""
    import os
    import signal
    import subprocess
    import time

    rng = random.Random(11)
    seen = set()
    for k in range(10):
        out = tmp_path / f"run{k}"
        cmd = [*GUANDAN, "simulate", "-n", "120", "-s", "random", "--max-deals", "3", "-w", "2"]
        cmd += ["--out", str(out), "-q", "--seed", str(k)]
        proc = subprocess.Popen(cmd, start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            time.sleep(rng.uniform(0.0, 4.0))
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGINT)
            err = _stopped(proc, f"run {k}", 120)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
        lines = err.splitlines()
        if proc.returncode == 0:
            seen.add("finished")
            continue
        assert proc.returncode == 130 and len(lines) == 1, lines
        if (out / "manifest.json").is_file():
            saved = run_completeness(out).matches
            assert lines[0] == (
                f"guandan: interrupted: {saved} of 120 matches saved; resume with: guandan simulate --out {out} --resume"
            ) or lines[0].startswith(f"guandan: interrupted: the run was complete: {saved} of 120"), lines
            seen.add("saved")
        else:
            assert "nothing was written" in lines[0] or lines[0] == "guandan: interrupted", lines
            seen.add("nothing")
    print("\noutcomes:", sorted(seen))


def test_ctrl_c_while_the_workers_start_prints_one_line(tmp_path):
    """SIGINT as the pool starts: workers spawned ignoring it, so none prints a traceback while it imports."""
    import os
    import signal
    import subprocess
    import time

    for k in range(6):
        out = tmp_path / f"run{k}"
        cmd = [*GUANDAN, "simulate", "-n", "200", "-s", "random", "--max-deals", "2", "-w", "2"]
        cmd += ["--part-size", "50", "--out", str(out), "-q"]
        proc = subprocess.Popen(cmd, start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            deadline = time.monotonic() + 60
            while not (out / "manifest.json").is_file() and proc.poll() is None:
                if time.monotonic() > deadline:
                    _stopped(proc, f"run {k}: no manifest 60 s after the start", 0)
                time.sleep(0.002)
            time.sleep(0.06 * k)
            os.killpg(proc.pid, signal.SIGINT)
            err = _stopped(proc, f"run {k}: Ctrl-C {0.06 * k:.2f} s after the manifest appeared", 30)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
        lines = err.splitlines()
        assert proc.returncode in (0, 130) and len(lines) == (proc.returncode == 130), lines[:3] + lines[-2:]
        if lines:
            assert lines[0].startswith(
                f"guandan: interrupted: {run_completeness(out).matches} of 200 matches saved"
            )


def test_ctrl_c_while_the_pool_starts_is_not_lost_to_another_thread():
    """A Ctrl-C while the pool starts, handed by the kernel to another thread (the part writer's,
    a pool thread: any one not blocking SIGINT), still stops the run once the pool has started.
    It was lost there, ignored while the workers were spawned, and the run went on to exit 0."""
    import os
    import select
    import signal
    import threading

    from guandan_cli.runner import backends

    read, write = os.pipe()
    os.set_blocking(write, False)
    previous_fd = signal.set_wakeup_fd(write)  # the C-level handler writes here, in any thread
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    done = []

    def start():
        os.kill(os.getpid(), signal.SIGINT)  # process-directed, as from a terminal
        received, _, _ = select.select([read], [], [], 10)
        done.append(bool(received))  # start runs to its end: no KeyboardInterrupt halfway
        return "started"

    try:
        with pytest.raises(KeyboardInterrupt):
            backends._started_ignoring_sigint(start)
    finally:
        stop.set()
        other.join()
        signal.set_wakeup_fd(previous_fd)
        os.close(read)
        os.close(write)
    assert done == [True]


def test_workers_begin_with_ctrl_c_blocked_or_ignored(tmp_path):
    """Every process the pool spawns (the resource tracker, each worker) holds or ignores SIGINT
    from its first instruction, so a Ctrl-C while it imports prints no traceback. Checked in a
    fresh interpreter (no resource tracker yet: the first start of it unblocks SIGINT in the
    thread that spawns it), through a spawn executable that logs its signal state and runs
    Python."""
    import subprocess

    status = Path("/proc/self/status")
    if not status.is_file():
        pytest.skip("needs /proc")
    log = tmp_path / "spawned.txt"
    wrapper = tmp_path / "python-logging-signals"
    wrapper.write_text(
        f"#!{sys.executable}\nimport os, sys\n"
        "lines = [x for x in open('/proc/self/status') if x.startswith(('SigBlk:', 'SigIgn:'))]\n"
        f"with open({str(log)!r}, 'a') as fh:\n"
        "    fh.write(' '.join(x.split()[1] for x in sorted(lines)) + '\\n')\n"
        "os.execv(sys.executable, [sys.executable, *sys.argv[1:]])\n"
    )
    wrapper.chmod(0o755)
    script = (
        "import multiprocess\n"
        "from guandan_cli.runner import backends\n"
        f"multiprocess.get_context('spawn').set_executable({str(wrapper)!r})\n"
        "pool = backends.LocalPool(2)\n"
        "print(sorted(pool.imap(abs, [-1, -2, -3])))\n"
        "pool.close()\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.split("\n")[0] == "[1, 2, 3]", done.stderr[-3000:]
    sigint = 1 << (2 - 1)
    states = [tuple(int(x, 16) for x in line.split()) for line in log.read_text().splitlines()]
    assert len(states) >= 3  # the resource tracker and two workers
    assert all((blocked | ignored) & sigint for blocked, ignored in states), states


def test_stopping_the_pool_cannot_hang_on_a_big_result(tmp_path, monkeypatch):
    """``Pool.terminate`` waits for the result queue's lock, which a worker holds while blocked
    sending a result larger than a pipe buffer once the pool's result thread has stopped (a
    Ctrl-C of ``simulate`` hung so, once, under load). The window between the two is widened
    here by a pause in the pool's own notifier: ``Pool.terminate`` then hung in 5 runs of 6;
    ``LocalPool.terminate`` kills the workers after ``TERMINATE_WAIT`` seconds instead."""
    import threading
    import time

    from guandan_cli.runner import backends

    (tmp_path / "slow_big_task.py").write_text(
        "import time\nfrom multiprocess import current_process\n\n\ndef run(i):\n"
        "    time.sleep(0.1 if current_process().name.endswith('1') else 0.4)  # finish apart\n"
        "    return b'x' * 300_000\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    import slow_big_task

    monkeypatch.setattr(backends, "TERMINATE_WAIT", 1.0)
    pool = backends.LocalPool(2)
    workers = list(pool._workers)
    assert len(workers) == 2
    results = pool.imap_unordered(slow_big_task.run, range(1000))
    next(results)
    notifier = pool._pool._change_notifier  # multiprocess's Pool internals: the race window
    calls = []

    def slow_put(obj, real_put=notifier.put):
        real_put(obj)
        calls.append(obj)
        if len(calls) == 2:  # between `result_handler._state = TERMINATE` and `outqueue.put(None)`
            time.sleep(1.0)

    notifier.put = slow_put
    stopper = threading.Thread(target=pool.terminate, daemon=True)
    stopper.start()
    stopper.join(30)
    try:
        assert not stopper.is_alive(), "LocalPool.terminate hung"
        assert not any(p.is_alive() for p in workers)
    finally:
        for p in workers:
            p.kill()


def test_ctrl_c_after_the_command_is_over_is_ignored():
    """A Ctrl-C once the work is done (Python's shutdown: here an exit hook that waits) changed
    nothing but the ending: a "KeyboardInterrupt" line, or, late in the shutdown, a silent death
    by SIGINT (exit -2) after a complete run (the flake of the test above). Now it is ignored."""
    import signal
    import subprocess
    import time

    hook = "import atexit, time; atexit.register(time.sleep, 1.0); "
    cmd = [sys.executable, "-c", hook + "from guandan_cli.cli.app import main; main()"]
    proc = subprocess.Popen(
        [*cmd, "plays", "S3", "--level", "2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert proc.stdout.readline().startswith("hand: S3")  # the command's output: its work is done
    time.sleep(0.3)
    proc.send_signal(signal.SIGINT)
    _out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0 and err == "", err

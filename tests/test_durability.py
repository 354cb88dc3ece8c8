"""Durability at the grain of a match: kill -9 at random moments, resume, compare byte for byte.

Each session runs ``guandan simulate`` in its own process group. A tracing bot (a random
bot that notes each match it starts in a file named by ``GUANDAN_TEST_TRACE``) tells
which matches a session started; a match started by a killed session and started again
by the next one was recomputed. Matches in flight at a kill are those being played
(workers × chunk) or finished and not yet journaled by the parent (which writes parts in a
background thread, so it is rarely behind); the bound asserted
is 2 × workers × chunk, plus one chunk when the last journal write is torn on purpose.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from guandan_cli import simulate
from guandan_cli.engine.seeding import derive_seed
from guandan_cli.logs.journal import read_entries
from guandan_cli.logs.layout import journal_path, run_completeness
from guandan_cli.runner.rundir import read_manifest
from guandan_cli.runner.tasks import match_seed

TRACER = """
import os, random
from guandan_cli.strategies.random_bot import RandomStrategy

class Tracer(RandomStrategy):
    name = "tracer"

    def __init__(self, seat, rng=None):
        super().__init__(seat, rng)
        trace = os.environ.get("GUANDAN_TEST_TRACE")
        if seat == 0 and trace:
            probe = random.Random()
            probe.setstate(self.rng.getstate())
            with open(trace, "a") as fh:
                fh.write(f"{probe.getrandbits(64)}\\n")
"""

MATCHES, SEED, PART, WORKERS, CHUNK = 144, 5, 12, 2, 3

# kill -9 the whole process group from inside, at a chosen point
KILL_IN_FINALISATION = """
import os, signal
from guandan_cli.logs import writer
real = writer.PartWriter.commit
def commit(self):
    facts = real(self)
    if self.path.name.startswith("deals-"):  # deals renamed, matches not yet: kill -9
        os.killpg(os.getpgid(0), signal.SIGKILL)
    return facts
writer.PartWriter.commit = commit
"""
TORN_JOURNAL_WRITE = """
import os, signal
from guandan_cli.logs import journal
real = journal.Journal.append
calls = []
def append(self, start, stop, deal_lines, match_lines, facts):
    calls.append(start)
    if len(calls) == 3:  # write half of the entry, then kill -9
        self._fh.write(b"0" * 64 + b' {"start":' + str(start).encode() + deal_lines[: len(deal_lines) // 2])
        self._fh.flush()
        os.killpg(os.getpgid(0), signal.SIGKILL)
    return real(self, start, stop, deal_lines, match_lines, facts)
journal.Journal.append = append
"""


def log_bytes(run_dir: Path) -> dict[str, bytes]:
    return {
        p.name: p.read_bytes() for p in sorted(run_dir.iterdir()) if p.name.startswith(("deals-", "matches-"))
    }


def _session(args: list[str], trace: Path, *, prelude: str = "", kill_after: int | None = None, rng=None):
    """Run the CLI; with ``kill_after``, kill -9 its group once it started that many matches."""
    code = prelude + "\nfrom guandan_cli.cli.app import main\nmain()\n"
    env = os.environ | {"GUANDAN_TEST_TRACE": str(trace)}
    proc = subprocess.Popen(
        [sys.executable, "-c", code, *args],
        start_new_session=True,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        if kill_after is not None:
            deadline = time.monotonic() + 120
            while proc.poll() is None and time.monotonic() < deadline:
                if trace.exists() and len(trace.read_text().split()) >= kill_after:
                    time.sleep(rng.uniform(0, 0.05))
                    break
                time.sleep(0.005)
        else:
            proc.wait(timeout=180)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        else:
            try:
                os.killpg(proc.pid, signal.SIGKILL)  # orphaned workers of a self-killed parent
            except ProcessLookupError:
                pass
        _out, err = proc.communicate()
    return proc.returncode, err.decode()


def _reference_frames(ref) -> dict:
    """What each reader gives of the whole reference run (read once: every kill compares with it)."""
    import polars as pl

    from guandan_cli import open_run
    from guandan_cli.reports import load

    whole = load(ref.path)
    as_text = pl.col("run_id").cast(pl.String)
    frames = {kind: getattr(whole, kind).with_columns(as_text).collect() for kind in ("deals", "matches")}
    reference = open_run(ref.path)
    return {**frames, "run matches": reference.matches(), "run deals": reference.deals()}


def _readers_see_exactly(out: Path, reference: dict, durable: set[int]) -> None:
    """``load``, ``analyze``'s count and the run's scans hold exactly the durable matches, as the reference has them."""
    import warnings

    import polars as pl

    from guandan_cli import open_run
    from guandan_cli.reports import IncompleteRunWarning, load

    wanted = sorted(durable)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IncompleteRunWarning)
        data = load(out)
    assert data.incomplete == [f"{out}: incomplete run: {len(durable)} of {MATCHES} matches"]
    as_text = pl.col("run_id").cast(pl.String)
    for kind in ("deals", "matches"):
        got = getattr(data, kind).with_columns(as_text).collect()
        expected = reference[kind].filter(pl.col("match").is_in(wanted))
        assert got.equals(expected), kind
    run = open_run(out)
    assert run.matches().equals(reference["run matches"].filter(pl.col("match").is_in(wanted)))
    assert run.deals().equals(reference["run deals"].filter(pl.col("match").is_in(wanted)))


def test_kill_9_at_random_moments_recomputes_only_matches_in_flight(tmp_path):
    bot = tmp_path / "tracer.py"
    bot.write_text(TRACER)
    strategies = f"{bot}:Tracer,random"
    marker = {
        random.Random(derive_seed(match_seed(SEED, i), "seat", 0)).getrandbits(64): i for i in range(MATCHES)
    }
    ref = simulate(
        MATCHES,
        seed=SEED,
        strategies=strategies,
        max_deals=4,
        part_size=PART,
        workers=1,
        out=tmp_path / "ref",
        progress=False,
    )
    reference = _reference_frames(ref)
    out = tmp_path / "run"
    args = ["simulate", "-n", str(MATCHES), "--seed", str(SEED), "-s", strategies, "--max-deals", "4"]
    args += ["--part-size", str(PART), "--out", str(out), "-q"]
    rng = random.Random(20261130)
    # (what kills the session, extra matches lost by design)
    plan = [
        ("random", 0),
        ("random", 0),
        ("finalisation", 0),
        ("random", 0),
        ("torn write", CHUNK),
        ("random", 0),
        ("random", 0),
    ]
    started: list[set[int]] = []
    recomputed: list[int] = []
    kinds = []
    for n, (kind, extra) in enumerate(plan):
        trace = tmp_path / f"trace-{n}"
        session_args = [*args, "-w", str(WORKERS), "--chunk-size", str(CHUNK)]
        if kind == "random":
            code, err = _session(session_args, trace, kill_after=rng.randint(2, 16), rng=rng)
        else:
            prelude = KILL_IN_FINALISATION if kind == "finalisation" else TORN_JOURNAL_WRITE
            code, err = _session(session_args, trace, prelude=prelude)
        assert code == -signal.SIGKILL, (kind, code, err)
        manifest = read_manifest(out)
        assert manifest.state == "running"  # a killed run says nothing more
        now = {marker[int(x)] for x in trace.read_text().split()} if trace.exists() else set()
        # readers never see a half-written part
        c = run_completeness(out)
        assert not c.complete
        for f in c.deal_files():
            assert f.with_name(f.name.replace("deals-", "matches-")).is_file()
        # what survived the kill: complete parts, and journaled chunks
        durable = {m for p in c.parts for m in range(p.first_match, p.stop_match)}
        for index in c.missing_parts:
            durable |= {m for e in read_entries(journal_path(out, index)) for m in range(e.start, e.stop)}
        # … and readers see exactly those (one source per part: files, else the journal's good entries)
        _readers_see_exactly(out, reference, durable)
        recomputed.append(len(now - durable))
        started.append(now)
        kinds.append((kind, extra))
    # the last session: one worker, another chunking; it finishes the run
    trace = tmp_path / "trace-last"
    code, err = _session([*args, "-w", "1", "--chunk-size", "3", "--resume"], trace)
    assert code == 0, err
    started.append({marker[int(x)] for x in trace.read_text().split()})

    assert log_bytes(out) == log_bytes(ref.path)
    assert read_manifest(out).counts == ref.manifest.counts
    assert not [p for p in out.iterdir() if p.name.endswith((".tmp", ".journal"))]
    assert set().union(*started) == set(range(MATCHES))
    played = sum(len(s) for s in started)
    assert played - MATCHES == sum(recomputed)
    print("\nrecomputed after each kill:", list(zip([k for k, _e in kinds], recomputed, strict=True)))
    for (kind, extra), r in zip(kinds, recomputed, strict=True):
        assert r <= 2 * WORKERS * CHUNK + extra, (kind, r)


@pytest.mark.parametrize("compression", ["gzip", "zstd"])
def test_journal_then_compressed_part_gives_the_same_bytes(tmp_path, compression):
    """Parts written from a journal across sessions compress to the same bytes."""
    from guandan_cli.runner import tasks

    common = {"seed": 3, "strategies": "random", "max_deals": 3, "part_size": 5, "progress": False}
    ref = simulate(10, out=tmp_path / "ref", workers=1, compression=compression, **common)
    real = tasks.run_task

    def dying(task):
        if task[1] >= 7:
            raise KeyboardInterrupt
        return real(task)

    tasks.run_task = dying
    try:
        with pytest.raises(KeyboardInterrupt) as info:
            simulate(10, out=tmp_path / "run", workers=1, chunk_size=1, compression=compression, **common)
    finally:
        tasks.run_task = real
    assert "7 of 10 matches saved" in str(info.value)
    assert sorted(p.name for p in (tmp_path / "run").iterdir() if "0001" in p.name) == ["part-00001.journal"]
    run = simulate(out=tmp_path / "run", resume=True, workers=1, chunk_size=3, progress=False)
    assert run.complete and log_bytes(run.path) == log_bytes(ref.path)
    assert run.manifest.sessions[-1].matches == 3

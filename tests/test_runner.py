"""The runner: determinism across workers/chunking, resume after a crash or kill -9, errors, Run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from bot_sources import BOOM

from guandan_cli import simulate
from guandan_cli.logs.reader import part_files
from guandan_cli.runner import SimulationError, SimulationInputError, tasks, wilson_interval
from guandan_cli.runner.rundir import read_manifest

SMALL = {"seed": 11, "strategies": "random,greedy", "max_deals": 3, "progress": False}


def log_bytes(run_dir: Path) -> dict[str, bytes]:
    """Every part file's bytes, by name (the manifest excluded)."""
    return {
        p.name: p.read_bytes() for p in sorted(run_dir.iterdir()) if p.name.startswith(("deals-", "matches-"))
    }


def content(run_dir: Path, kind: str) -> bytes:
    from guandan_cli.logs.reader import open_part

    out = b""
    for f in part_files(run_dir, kind):
        with open_part(f) as fh:
            out += fh.read()
    return out


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """An uninterrupted one-worker run: 6 matches, 2 per part."""
    out = tmp_path_factory.mktemp("ref") / "run"
    run = simulate(6, out=out, workers=1, part_size=2, **SMALL)
    return run


def test_reference_run(reference):
    m = reference.manifest
    assert m.state == "complete" and m.counts.matches == 6
    assert [p.name for p in reference.deal_files()] == [
        "deals-00000.jsonl",
        "deals-00001.jsonl",
        "deals-00002.jsonl",
    ]
    assert m.config.strategies == ("random", "greedy", "random", "greedy")
    df = reference.deals()
    assert df.height == m.counts.deals > 6
    assert df["match"].unique().sort().to_list() == list(range(6))
    matches = reference.matches()
    assert matches["deals"].sum() == df.height
    assert sum(m.counts.wins) + m.counts.capped == 6
    assert "team 0 (seats 0,2: random,random)" in reference.summary()


def test_same_bytes_for_any_workers_and_chunking(reference, tmp_path):
    ref = log_bytes(reference.path)
    two = simulate(6, out=tmp_path / "w2", workers=2, part_size=2, chunk_size=1, **SMALL)
    assert log_bytes(two.path) == ref
    chunked = simulate(6, out=tmp_path / "c5", workers=1, part_size=2, chunk_size=5, **SMALL)
    assert log_bytes(chunked.path) == ref
    # another part size splits the same lines differently
    one_part = simulate(6, out=tmp_path / "p1", workers=1, **SMALL)
    assert content(one_part.path, "deals") == content(reference.path, "deals")
    assert content(one_part.path, "matches") == content(reference.path, "matches")


def test_resume_after_a_crash_gives_the_same_bytes(reference, tmp_path, monkeypatch):
    real = tasks.run_task

    def crashing(task):
        if task[1] >= 3:
            raise RuntimeError("simulated crash")
        return real(task)

    monkeypatch.setattr(tasks, "run_task", crashing)
    out = tmp_path / "run"
    with pytest.raises(RuntimeError, match="simulated crash"):
        simulate(6, out=out, workers=1, part_size=2, chunk_size=1, **SMALL)
    m = read_manifest(out)
    assert m.state == "failed" and m.counts.matches == 2
    assert sorted(log_bytes(out)) == ["deals-00000.jsonl", "matches-00000.jsonl"]
    assert not [p for p in out.iterdir() if p.name.endswith(".tmp")]
    monkeypatch.setattr(tasks, "run_task", real)
    run = simulate(6, out=out, workers=1, part_size=2, **SMALL)  # rerunning the command resumes
    assert log_bytes(out) == log_bytes(reference.path)
    assert run.complete and run.counts == reference.counts
    assert len(run.manifest.sessions) == 2


def test_missing_part_and_stray_tmp_are_redone(reference, tmp_path):
    out = tmp_path / "run"
    simulate(6, out=out, workers=1, part_size=2, **SMALL)
    (out / "matches-00001.jsonl").unlink()  # part 1 incomplete
    (out / "deals-00002.jsonl.tmp").write_bytes(b"half a line")
    m = json.loads((out / "manifest.json").read_text())
    m["state"] = "interrupted"
    (out / "manifest.json").write_text(json.dumps(m))
    run = simulate(out=out, resume=True, workers=1, progress=False)  # options from the manifest
    assert log_bytes(out) == log_bytes(reference.path)
    assert run.complete and run.counts == reference.counts


def test_complete_run_is_kept_unless_forced(reference, tmp_path):
    out = tmp_path / "run"
    simulate(3, out=out, workers=1, **SMALL)
    with pytest.raises(SimulationInputError, match="complete run; use --force"):
        simulate(3, out=out, workers=1, **SMALL)
    with pytest.raises(SimulationInputError, match="another configuration: seed"):
        simulate(3, out=out, workers=1, **(SMALL | {"seed": 12}))
    assert simulate(out=out, resume=True, progress=False).complete  # nothing to do
    run = simulate(6, out=out, workers=1, part_size=2, force=True, **SMALL)
    assert log_bytes(run.path) == log_bytes(reference.path)


def test_bad_input(tmp_path):
    with pytest.raises(SimulationInputError, match="unknown strategy 'nobody'"):
        simulate(2, out=tmp_path / "a", strategies="nobody", progress=False)
    with pytest.raises(SimulationInputError, match=r"matches \(--matches\) must be a positive"):
        simulate(0, out=tmp_path / "a", strategies="random", progress=False)
    with pytest.raises(SimulationInputError, match="unknown ruleset 'nope'"):
        simulate(2, out=tmp_path / "a", strategies="random", ruleset="nope", progress=False)
    with pytest.raises(SimulationInputError, match="takes 1 name"):
        simulate(2, out=tmp_path / "a", strategies="random,random,greedy", progress=False)
    (tmp_path / "file").write_text("x")
    with pytest.raises(SimulationInputError, match="not a directory"):
        simulate(2, out=tmp_path / "file", strategies="random", progress=False)
    with pytest.raises(SimulationInputError, match="cannot write"):
        simulate(2, out=tmp_path / "file" / "run", strategies="random", progress=False)
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("mine")
    with pytest.raises(SimulationInputError, match="not a guandan run"):
        simulate(2, out=tmp_path / "other", strategies="random", progress=False, force=True)
    with pytest.raises(SimulationInputError, match="nothing to resume"):
        simulate(2, out=tmp_path / "b", strategies="random", progress=False, resume=True)
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


def test_strategy_errors_stop_or_are_recorded(tmp_path):
    bot = tmp_path / "boom.py"
    bot.write_text(BOOM)
    spec = f"{bot}:Boom,random"
    with pytest.raises(
        SimulationError,
        match=r"match \d+: strategy .* at seat [02] failed in match seed \d+, deal \d+: boom\.py:\d+ in choose_play: RuntimeError: boom",
    ):
        simulate(8, out=tmp_path / "stop", strategies=spec, seed=3, max_deals=3, workers=1, progress=False)
    assert read_manifest(tmp_path / "stop").state == "failed"
    run = simulate(
        8,
        out=tmp_path / "stop",
        strategies=spec,
        seed=3,
        max_deals=3,
        workers=1,
        on_error="record",
        progress=False,
    )
    assert run.complete
    m = run.matches()
    errored = m.filter(m["error"].is_not_null())
    assert errored.height == run.counts["errors"] > 0
    assert errored["winner"].null_count() == errored.height
    assert "RuntimeError: boom" in errored["error"][0] and "seat" in errored["error"][0]
    from guandan_cli.logreaders.verify import verify

    assert verify(run.path).ok


def test_verify_catches_a_tampered_line(reference, tmp_path):
    from guandan_cli.logreaders.verify import verify

    out = tmp_path / "run"
    simulate(6, out=out, workers=1, part_size=2, **SMALL)
    report = verify(out)
    assert report.ok and report.deals == reference.counts["deals"] and report.matches == 6
    path = out / "deals-00001.jsonl"
    lines = path.read_bytes().splitlines(keepends=True)
    rec = json.loads(lines[1])
    # swap two plays' seats: the replay finds an out-of-turn or illegal action
    rec["actions"][0] = "9" + rec["actions"][0][1:]
    lines[1] = (json.dumps(rec, separators=(",", ":"), ensure_ascii=False) + "\n").encode()
    rec2 = json.loads(lines[2])
    rec2["finish_order"] = rec2["finish_order"][::-1]
    lines[2] = (json.dumps(rec2, separators=(",", ":"), ensure_ascii=False) + "\n").encode()
    path.write_bytes(b"".join(lines))
    report = verify(out)
    got = {(Path(p.path).name, p.line) for p in report.problems}
    assert ("deals-00001.jsonl", 2) in got and ("deals-00001.jsonl", 3) in got
    reasons = " | ".join(str(p) for p in report.problems)
    assert "illegal" in reasons and "finish_order" in reasons
    assert "sha256" in reasons


def test_replay_text(reference):
    from guandan_cli.logreaders.replay import find_deal, render_deal

    path, line, rec, prev = find_deal(reference.path, 1, 1)
    assert path.name == "deals-00000.jsonl" and prev is not None and prev.deal == 0
    text = render_deal(rec, prev)
    assert "hands" in text and "seat 3 (team 1, greedy)" in text
    assert "tribute:" in text and "trick 1" in text and "finish:" in text and "goes up" in text
    assert any(s in text for s in "♠♥♣♦")


def test_wilson():
    assert wilson_interval(0, 0) == (0.0, 1.0)
    lo, hi = wilson_interval(10, 10)
    assert hi == 1.0 and 0.69 < lo < 0.73


def test_kill_9_then_rerun_gives_the_same_bytes(tmp_path):
    out = tmp_path / "run"
    args = [
        "simulate",
        "-n",
        "12",
        "--seed",
        "4",
        "-s",
        "random",
        "--max-deals",
        "4",
        "-w",
        "1",
        "--part-size",
        "1",
        "--out",
        str(out),
        "--quiet",
    ]
    cmd = [sys.executable, "-c", "from guandan_cli.cli.app import main; main()", *args]
    proc = subprocess.Popen(cmd, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while (
            not (out / "matches-00001.jsonl").exists() and proc.poll() is None and time.monotonic() < deadline
        ):
            time.sleep(0.01)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    subprocess.run(cmd + ["--resume"], check=True, timeout=120)
    clean = simulate(
        12,
        seed=4,
        strategies="random",
        max_deals=4,
        workers=1,
        part_size=1,
        out=tmp_path / "clean",
        progress=False,
    )
    assert log_bytes(out) == log_bytes(clean.path)
    assert read_manifest(out).state == "complete"


def test_a_run_being_written_is_locked(tmp_path):
    fcntl = pytest.importorskip("fcntl")
    out = tmp_path / "run"
    out.mkdir()
    with open(out / ".lock", "a+b") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        with pytest.raises(SimulationInputError, match="another simulate is writing"):
            simulate(2, out=out, workers=1, **SMALL)
    assert simulate(2, out=out, workers=1, **SMALL).complete


def test_a_complete_run_missing_a_part_is_redone(reference, tmp_path):
    out = tmp_path / "run"
    simulate(6, out=out, workers=1, part_size=2, **SMALL)
    (out / "deals-00002.jsonl").unlink()
    run = simulate(out=out, resume=True, workers=1, progress=False)
    assert run.complete and log_bytes(out) == log_bytes(reference.path)


def test_a_script_without_the_main_guard_gets_a_clear_error(tmp_path):
    """Spawned workers re-import the main script: an unguarded call must fail fast, not loop."""
    import subprocess
    import sys

    call = f'simulate(3, seed=1, strategies="random", max_deals=2, workers=2, out={str(tmp_path / "r")!r})'
    bad = tmp_path / "unguarded.py"
    bad.write_text(f"from guandan_cli import simulate\n{call}\n")
    out = subprocess.run([sys.executable, str(bad)], capture_output=True, text=True, timeout=120)
    assert out.returncode != 0
    assert f"{bad}:2:" in out.stderr and '__name__ == "__main__"' in out.stderr
    good = tmp_path / "guarded.py"
    good.write_text(
        f"from guandan_cli import simulate\n\nif __name__ == '__main__':\n    print({call}.counts['matches'])\n"
    )
    out = subprocess.run([sys.executable, str(good)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "3"


def test_a_script_read_from_stdin_gets_a_clear_error_not_a_loop(tmp_path):
    """``python - < script.py``: workers find no main file to run and the pool restarted them forever."""
    import subprocess
    import sys

    call = f'simulate(3, seed=1, strategies="random", max_deals=2, workers={{}}, out={str(tmp_path / "r")!r})'
    script = (
        "from guandan_cli import simulate\nif __name__ == '__main__':\n    print("
        + call
        + ".counts['matches'])\n"
    )
    out = subprocess.run(
        [sys.executable, "-"], input=script.format(2), capture_output=True, text=True, timeout=120
    )
    assert out.returncode != 0
    assert "<stdin>: simulate() runs worker processes" in out.stderr and "workers=1" in out.stderr
    assert not (tmp_path / "r").exists()
    out = subprocess.run(
        [sys.executable, "-"], input=script.format(1), capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0 and out.stdout.strip() == "3", out.stderr


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"out": 5}, r"out must be a path \(the run's folder\), got 5"),
        ({"workers": "2"}, r"workers \(--workers\) must be a positive whole number, got '2'"),
    ],
)
def test_simulate_names_an_argument_of_the_wrong_type(tmp_path, monkeypatch, kwargs, message):
    """QA: ``simulate(out=5)`` raised os.fspath's "expected str, bytes or os.PathLike object,
    not int"; ``workers="2"`` a bare comparison TypeError."""
    from guandan_cli.runner.simulation import SimulationInputError

    monkeypatch.chdir(tmp_path)
    with pytest.raises(SimulationInputError, match=message):
        simulate(2, seed=1, strategies="random", **{"out": tmp_path / "r", **kwargs})
    assert list(tmp_path.iterdir()) == []


def test_an_unreadable_setups_source_is_named_not_an_engine_failure(tmp_path):
    """QA: ``compare … --duplicate deal --setups RUN`` with a cut zstd part in RUN said
    "engine failure in match 0 (seed …): LogLineError: …"; it is the source that failed."""
    from guandan_cli.runner.simulation import SimulationError

    source = tmp_path / "source"
    simulate(4, seed=2, strategies="random", part_size=2, compression="zstd", workers=1, out=source)
    part = source / "deals-00000.jsonl.zst"
    part.write_bytes(part.read_bytes()[:-40])
    with pytest.raises(SimulationError) as info:
        simulate(2, seed=1, strategies="random", setups=source, workers=1, out=tmp_path / "run")
    text = str(info.value)
    assert text.startswith(f"setups {source}: {part}:"), text
    assert "engine failure" not in text and "ended before the end of its zstd frame" in text

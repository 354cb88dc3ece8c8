"""A run's life on the command line: Ctrl-C, resume, a complete run, incomplete runs read, verify."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest
from click.testing import CliRunner

from guandan_cli import simulate
from guandan_cli.cli.app import app
from guandan_cli.runner import tasks

runner = CliRunner()
SMALL = {"seed": 2, "strategies": "random", "max_deals": 1, "progress": False}


def _interrupt_at(monkeypatch, match: int) -> None:
    """Make the task holding match ``match`` raise KeyboardInterrupt (as Ctrl-C would)."""
    real = tasks.run_task

    def run_task(task):
        if task[1] <= match < task[2]:
            raise KeyboardInterrupt
        return real(task)

    monkeypatch.setattr(tasks, "run_task", run_task)


@pytest.fixture(scope="module")
def interrupted_run(tmp_path_factory):
    """300 matches in parts of 100, stopped at match 130; the next part caught between its renames."""
    out = tmp_path_factory.mktemp("inc") / "run"
    with pytest.MonkeyPatch.context() as mp:
        _interrupt_at(mp, 130)
        with pytest.raises(KeyboardInterrupt, match="130 of 300 matches saved"):
            simulate(300, out=out, workers=1, part_size=100, chunk_size=10, **SMALL)
    # a crash between the two renames of part 1 leaves its deals file alone: half a part
    (out / "deals-00001.jsonl").write_bytes(b'{"v":1,"run_id":"half a li')
    return out


def test_analyze_says_incomplete_and_reads_every_finished_match(interrupted_run):
    res = runner.invoke(app, ["analyze", str(interrupted_run), "-r", "jiefeng", "-f", "json"])
    assert res.exit_code == 0, res.output
    assert f"{interrupted_run}: incomplete run: 130 of 300 matches" in res.stderr.splitlines()
    out = json.loads(res.stdout)
    meta = out["metadata"]
    assert meta["incomplete"] == [f"{interrupted_run}: incomplete run: 130 of 300 matches"]
    assert meta["runs"][0] | {"run": None} == {
        "run": None,
        "state": "interrupted",
        "complete": False,
        "matches": 130,
        "journaled_matches": 30,
        "total_matches": 300,
    }
    # one deal per match: part 0, and part 1's 30 journaled matches (not its half-written deals file)
    assert out["jiefeng"][0]["deals"] == 130
    table = runner.invoke(app, ["analyze", str(interrupted_run), "-r", "jiefeng"])
    assert table.exit_code == 0 and "incomplete run: 130 of 300 matches" in table.stderr


def test_load_warns_and_the_run_layer_tells(interrupted_run):
    from guandan_cli import open_run
    from guandan_cli.reports import IncompleteRunWarning, load

    with pytest.warns(IncompleteRunWarning, match="incomplete run: 130 of 300 matches"):
        data = load(interrupted_run)
    assert data.incomplete == [f"{interrupted_run}: incomplete run: 130 of 300 matches"]
    assert data.deals.collect().get_column("match").to_list() == list(range(130))
    c = open_run(interrupted_run).completeness()
    assert (c.complete, c.matches, c.total_matches, c.missing_parts) == (False, 130, 300, (1, 2))
    assert (c.complete_matches, c.journaled_matches) == (100, 30)
    assert [p.name for p in c.deal_files()] == ["deals-00000.jsonl"]
    assert [s.name for s in c.sources("deals")] == ["deals-00000.jsonl", "part-00001.journal[deals]"]
    assert open_run(interrupted_run).deals().height == 130
    ver = runner.invoke(app, ["verify", str(interrupted_run), "-q", "-w", "1"])  # complete parts only
    assert ver.exit_code == 0 and "verified 100 deals and 100 matches in 2 files: ok" in ver.stdout
    assert "not the 30 journaled matches of unfinished parts" in ver.stderr


def test_resume_then_a_complete_run_says_so_in_one_line(interrupted_run, tmp_path):
    import shutil

    out = tmp_path / "run"
    shutil.copytree(interrupted_run, out)
    res = runner.invoke(app, ["simulate", "--out", str(out), "--resume", "-w", "1", "-q"])
    assert res.exit_code == 0, res.output
    again = runner.invoke(app, ["simulate", "--out", str(out), "--resume", "-w", "1"])
    assert again.exit_code == 0, again.output
    assert again.stdout.splitlines() == [
        f"{out}: run already complete (300 matches, 300 deals); nothing to do"
    ]
    assert again.stderr == ""
    from guandan_cli.reports import IncompleteRunWarning, load

    with warnings.catch_warnings():
        warnings.simplefilter("error", IncompleteRunWarning)  # a complete run: no warning
        data = load(out)
    assert data.incomplete == [] and data.completeness[0].complete


def test_default_out_names_the_ruleset(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    base = ["simulate", "-n", "2", "-s", "random", "--max-deals", "1", "-w", "1", "-q"]
    for ruleset in ("cgr2022", "jiangsu2017"):
        res = runner.invoke(app, [*base, "--ruleset", ruleset])
        assert res.exit_code == 0, res.output
    assert sorted(p.name for p in (tmp_path / "runs").iterdir()) == [
        "random-cgr2022-s0-n2-d1",
        "random-jiangsu2017-s0-n2-d1",
    ]


def _interrupted_capped_run(monkeypatch, out: list[str]) -> None:
    """`simulate -n 6 --seed 5 --max-deals 3 --part-size 2` stopped at match 2 (2 of 6 saved)."""
    args = ["simulate", "-n", "6", "--seed", "5", "-s", "random", "--max-deals", "3", "--part-size", "2"]
    with monkeypatch.context() as mp:
        _interrupt_at(mp, 2)
        res = runner.invoke(app, [*args, *out, "-w", "1", "--chunk-size", "1", "-q"])
    assert res.exit_code == 130 and "2 of 6 matches saved" in res.stderr, res.output


def test_a_default_out_run_without_max_deals_does_not_continue_a_capped_one(tmp_path, monkeypatch):
    """QA: the default folder left out --max-deals, so `simulate -n 6 --seed 5` continued a
    stopped capped run (all capped, exit 0). A run of 3 deals at most can win no match (a
    team climbs at most 3 levels a deal, 12 from 2 to A); without the cap all 6 finish."""
    monkeypatch.chdir(tmp_path)
    _interrupted_capped_run(monkeypatch, [])
    res = runner.invoke(app, ["simulate", "-n", "6", "--seed", "5", "-s", "random", "-w", "1", "-q"])
    assert res.exit_code == 0, res.output
    assert sorted(p.name for p in (tmp_path / "runs").iterdir()) == [
        "random-cgr2022-s5-n6",
        "random-cgr2022-s5-n6-d3",
    ]
    uncapped = json.loads((tmp_path / "runs" / "random-cgr2022-s5-n6" / "manifest.json").read_text())
    assert uncapped["config"]["max_deals"] is None and uncapped["counts"]["capped"] == 0
    capped = json.loads((tmp_path / "runs" / "random-cgr2022-s5-n6-d3" / "manifest.json").read_text())
    assert capped["state"] != "complete"  # left as it was: 2 of 6


def test_a_capped_run_under_an_older_default_name_is_another_configuration(tmp_path, monkeypatch):
    """A run stored under the name an earlier version gave it (without -d3) is refused, as an
    explicit --max-deals change would be, instead of being continued."""
    monkeypatch.chdir(tmp_path)
    _interrupted_capped_run(monkeypatch, ["--out", "runs/random-cgr2022-s5-n6"])
    res = runner.invoke(app, ["simulate", "-n", "6", "--seed", "5", "-s", "random", "-w", "1", "-q"])
    assert res.exit_code == 2, res.output
    assert res.stderr.splitlines() == [
        "guandan: error: output runs/random-cgr2022-s5-n6 holds a run with another configuration: "
        "max_deals 3 (now not set); use --force to start over or another --out"
    ]


def test_the_manifest_command_reproduces_a_resumed_run(tmp_path, monkeypatch):
    """`--resume` alone takes every value from the stored run: the recorded command names them."""
    out = tmp_path / "run"
    _interrupted_capped_run(monkeypatch, ["--out", str(out)])
    res = runner.invoke(app, ["simulate", "--out", str(out), "--resume", "-w", "1", "-q"])
    assert res.exit_code == 0, res.output
    command = json.loads((out / "manifest.json").read_text())["command"].split()
    for option, value in (("--matches", "6"), ("--seed", "5"), ("--max-deals", "3"), ("--part-size", "2")):
        assert command[command.index(option) + 1] == value, option
    assert command[command.index("--strategies") + 1] == "random,random,random,random"


def test_ctrl_c_in_process_exits_130_with_one_line(tmp_path, monkeypatch):
    _interrupt_at(monkeypatch, 3)
    out = tmp_path / "run"
    args = ["simulate", "-n", "6", "-s", "random", "--max-deals", "1", "-w", "1", "--chunk-size", "1"]
    res = runner.invoke(app, [*args, "--out", str(out), "-q"])
    assert res.exit_code == 130
    assert res.stderr.splitlines() == [
        f"guandan: interrupted: 3 of 6 matches saved; resume with: guandan simulate --out {out} --resume"
    ]


def test_ctrl_c_on_a_pool_exits_130_with_one_line_then_resumes(tmp_path):
    """A real SIGINT to the process group, as a terminal sends it: workers stay silent."""
    out = tmp_path / "run"
    args = ["simulate", "-n", "1500", "-s", "random", "--max-deals", "2", "-w", "2", "--chunk-size", "2"]
    args += ["--part-size", "50", "--out", str(out), "-q"]
    cmd = [sys.executable, "-c", "from guandan_cli.cli.app import main; main()", *args]
    proc = subprocess.Popen(cmd, start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while not list(out.glob("part-*.journal")) and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        os.killpg(proc.pid, signal.SIGINT)
        _stdout, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    lines = stderr.decode().splitlines()
    assert proc.returncode == 130, stderr.decode()
    assert len(lines) == 1 and lines[0].startswith("guandan: interrupted: "), lines
    assert lines[0].endswith(f"resume with: guandan simulate --out {out} --resume")
    assert json.loads((out / "manifest.json").read_text())["state"] == "interrupted"
    from guandan_cli.logs.layout import run_completeness

    saved = run_completeness(out).matches  # what a resume keeps, and what analyze counts
    assert lines[0].startswith(f"guandan: interrupted: {saved} of 1500 matches saved;"), (lines, saved)
    done = subprocess.run([*cmd[:3], "simulate", "--out", str(out), "--resume", "-q"], capture_output=True)
    assert done.returncode == 0, done.stderr


def _tampered(tmp_path: Path) -> Path:
    out = tmp_path / "run"
    simulate(40, out=out, seed=9, strategies="random", max_deals=3, workers=1, part_size=20, progress=False)
    path = out / "deals-00001.jsonl"
    lines = path.read_bytes().splitlines(keepends=True)
    lines[5] = lines[5].replace(b'"upgrade":', b'"upgrade":1', 1)
    lines[30] = b'{"v":1,"broken\n'
    lines[40] = lines[40].replace(b'"deal":', b'"deal":9', 1)
    path.write_bytes(b"".join(lines))
    return out


def test_verify_with_workers_gives_the_same_report_in_order(tmp_path, monkeypatch):
    from guandan_cli.logreaders import verify as verify_module

    out = _tampered(tmp_path)
    monkeypatch.setattr(verify_module, "CHUNK_DEALS", 7)  # many chunks
    seen: list[int] = []
    one = verify_module.verify(out, workers=1)
    two = verify_module.verify(out, workers=2, progress=seen.append)
    assert [str(p) for p in two.problems] == [str(p) for p in one.problems]
    assert (two.deals, two.matches, two.files) == (one.deals, one.matches, one.files)
    assert sum(seen) == two.deals and len(seen) > 5
    reasons = "\n".join(str(p) for p in one.problems)
    assert "deals-00001.jsonl:6: match" in reasons and "upgrade is 1" in reasons
    assert "deals-00001.jsonl:31: not valid JSON" in reasons
    assert "deals-00001.jsonl:41:" in reasons and "sha256" in reasons


def test_verify_cli_shows_a_bar_and_its_throughput(tmp_path):
    out = tmp_path / "run"
    simulate(4, out=out, **SMALL, workers=1)
    res = runner.invoke(app, ["verify", str(out), "-w", "2"])
    assert res.exit_code == 0, res.output
    assert "verify" in res.stderr and "4/4" in res.stderr  # the progress bar
    assert "verified 4 deals and 4 matches in 2 files: ok" in res.stdout
    assert "deals/s, 2 workers)" in res.stdout
    alone = runner.invoke(app, ["verify", str(out / "deals-00000.jsonl"), "-q"])  # brings its matches part
    assert alone.exit_code == 0 and "verified 4 deals and 4 matches in 2 files: ok" in alone.stdout
    bad = runner.invoke(app, ["verify", str(out), "-w", "0"])
    assert bad.exit_code == 2 and "--workers must be a positive whole number" in bad.stderr


def test_a_changed_strategy_is_shown_as_typed(tmp_path):
    from guandan_cli.runner.simulation import SimulationInputError, simulate

    simulate(2, strategies="random", max_deals=1, out=tmp_path / "r", workers=1)
    with pytest.raises(SimulationInputError) as caught:
        simulate(2, strategies="greedy,random", max_deals=1, out=tmp_path / "r", workers=1, resume=True)
    assert "strategies random,random,random,random (now greedy,random,greedy,random);" in str(caught.value)

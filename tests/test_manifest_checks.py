"""A hand-edited or damaged manifest is refused in one line naming the file and the field.

Before, a missing ``config`` was a ``KeyError`` traceback, a negative ``matches`` gave empty
reports with exit 0, and a changed ``matches`` on a complete run said "already complete".
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from guandan_cli.cli.app import app
from guandan_cli.logs.layout import MAX_MATCHES, plan_parts, plan_problem, space_problem
from guandan_cli.runner.simulation import SimulationInputError, simulate

runner = CliRunner()


@pytest.fixture(scope="module")
def manifest_text(tmp_path_factory):
    out = tmp_path_factory.mktemp("m") / "run"
    simulate(4, strategies="random", max_deals=2, out=out, workers=1)
    return (out / "manifest.json").read_text()


EDITS = {
    "no config": (lambda d: d.pop("config"), "no config"),
    "config not an object": (lambda d: d.update(config="x"), "no config"),
    "unknown ruleset": (
        lambda d: d["config"].update(ruleset="house"),
        "config.ruleset must be one of cgr2022",
    ),
    "negative matches": (lambda d: d["config"].update(matches=-3), "config.matches must be a positive"),
    "more matches": (lambda d: d["config"].update(matches=7), "part 0 holds matches 0..3, but config (7"),
    "fewer matches": (lambda d: d["config"].update(matches=2), "part 0 holds matches 0..3, but config (2"),
    "huge matches": (lambda d: d["config"].update(matches=10**20), f"at most {MAX_MATCHES} matches"),
    "part size zero": (lambda d: d["config"].update(part_size=0), "config.part_size must be a positive"),
    "unknown compression": (lambda d: d["config"].update(compression="lz"), "config.compression must be"),
    "bad state": (lambda d: d.update(state=5), "state must be one of"),
    "part moved": (lambda d: d["parts"][0].update(index=3), "part 3 holds matches 0..3"),
    "seed not a number": (
        lambda d: d["config"].update(seed="abc"),
        "config.seed must be a whole number, got 'abc'",
    ),
    "seed a bool": (lambda d: d["config"].update(seed=True), "config.seed must be a whole number, got True"),
    "seed a float": (lambda d: d["config"].update(seed=1.5), "config.seed must be a whole number, got 1.5"),
    "max_deals zero": (
        lambda d: d["config"].update(max_deals=0),
        "config.max_deals must be null or a positive",
    ),
    "a_fail_limit text": (
        lambda d: d["config"].update(a_fail_limit="3"),
        "config.a_fail_limit must be null or a positive",
    ),
    "three strategies": (
        lambda d: d["config"].update(strategies=["random"] * 3),
        "config.strategies must be a list of 4 strategy names",
    ),
    "strategies text": (
        lambda d: d["config"].update(strategies="random"),
        "config.strategies must be a list of 4 strategy names",
    ),
}


@pytest.mark.parametrize("name", list(EDITS))
def test_edited_manifest_is_one_line_naming_the_field(tmp_path, manifest_text, name):
    edit, expected = EDITS[name]
    data = json.loads(manifest_text)
    edit(data)
    out = tmp_path / "run"
    out.mkdir()
    (out / "manifest.json").write_text(json.dumps(data))
    for args in (
        ["simulate", "--resume", "--out", str(out), "-q"],
        ["analyze", str(out), "--report", "bombs"],
    ):
        result = runner.invoke(app, args)
        err = result.stderr.strip().splitlines()
        assert result.exit_code == 2, (args, result.output)
        assert len(err) == 1 and err[0].startswith("guandan: error: ") and "manifest.json: " in err[0], err
        assert expected in err[0], err


def test_plan_limits_are_checked_before_planning():
    with pytest.raises(ValueError, match="at most 100000 parts"):
        plan_parts(10**6, 1)
    with pytest.raises(ValueError, match="matches in one run"):
        plan_parts(10**20, 1000)
    assert plan_problem(MAX_MATCHES, 1000) is None
    assert len(plan_parts(2500, 1000)) == 3


def test_simulate_refuses_absurd_sizes_before_any_work(tmp_path):
    with pytest.raises(SimulationInputError, match="matches in one run"):
        simulate(10**20, strategies="random", out=tmp_path / "a", workers=1)
    with pytest.raises(SimulationInputError, match="at most 1024 processes"):
        simulate(10, strategies="random", out=tmp_path / "b", workers=100_000)
    with pytest.raises(SimulationInputError, match="raise --part-size to at least 3"):
        simulate(200_001, strategies="random", out=tmp_path / "c", part_size=2, workers=1)
    assert not any(tmp_path.iterdir())


def _free_bytes(monkeypatch, free: int) -> None:
    """Pretend the disk has ``free`` bytes left (the space check asks ``shutil.disk_usage``)."""
    import shutil as shutil_module

    real = shutil_module.disk_usage
    monkeypatch.setattr("guandan_cli.logs.layout.shutil.disk_usage", lambda p: real(p)._replace(free=free))


def test_space_floor_counts_deals_and_compression(monkeypatch):
    # the floor: 5 deals a match (fewer under --max-deals) of 2000 B plain or 250 B compressed
    _free_bytes(monkeypatch, 10_000_000)
    assert space_problem(".", 1000) is None
    assert space_problem(".", 1001) is not None
    assert space_problem(".", 8000, compression="zstd") is None
    assert space_problem(".", 8001, compression="gzip") is not None
    assert space_problem(".", 2500, max_deals=2) is None
    assert space_problem(".", 2501, max_deals=2) is not None
    message = space_problem(".", 10**12, compression="gzip")
    assert message.startswith("the logs of 1000000000000 matches take at least 1.2 PB (5 deals of 250 B")
    assert "but 10.0 MB are free on " in message and "--compression" not in message


def test_simulate_refuses_a_run_the_disk_cannot_hold(tmp_path, monkeypatch):
    _free_bytes(monkeypatch, 1_000_000)  # 100 matches at the floor
    result = runner.invoke(app, ["simulate", "-n", "101", "-s", "random", "-o", str(tmp_path / "r"), "-q"])
    err = result.stderr.strip().splitlines()
    assert result.exit_code == 2 and len(err) == 1, result.output
    assert "the logs of 101 matches take at least 1.0 MB" in err[0] and "1.0 MB are free" in err[0]
    assert "--compression zstd" in err[0]
    assert not (tmp_path / "r").exists()
    # what is already stored does not count again on --resume
    simulate(4, strategies="random", max_deals=2, out=tmp_path / "s", workers=1, part_size=2)
    manifest = json.loads((tmp_path / "s" / "manifest.json").read_text())
    manifest["state"] = "interrupted"
    manifest["config"]["matches"] = 6
    manifest["parts"] = manifest["parts"][:1]
    (tmp_path / "s" / "manifest.json").write_text(json.dumps(manifest))
    _free_bytes(monkeypatch, 4 * 2 * 2000)  # 4 matches of 2 deals: the 4 not stored fit
    run = simulate(strategies="random", max_deals=2, out=tmp_path / "s", workers=1, resume=True)
    assert run.manifest.state == "complete"
    _free_bytes(monkeypatch, 4 * 2 * 2000 - 1)
    with pytest.raises(SimulationInputError, match="the logs of 4 matches"):  # --force: all count
        simulate(4, strategies="random", max_deals=2, out=tmp_path / "s", workers=1, force=True)


def test_compare_checks_both_runs_and_counts_pairs(tmp_path, monkeypatch):
    _free_bytes(monkeypatch, 1_000_000)
    # 60 pairs are 120 matches, more than 100 at the floor: refused before the first run
    result = runner.invoke(app, ["compare", "random", "greedy", "-n", "60", "-o", str(tmp_path / "c"), "-q"])
    err = result.stderr.strip().splitlines()
    assert result.exit_code == 2 and len(err) == 1, result.output
    assert "60 pairs (-n) in 2 runs: the logs of 120 matches" in err[0]
    assert not (tmp_path / "c").exists()
    result = runner.invoke(
        app, ["tournament", "random", "greedy", "heuristic", "-n", "20", "-o", str(tmp_path / "t")]
    )
    assert result.exit_code == 2 and "20 pairs (-n) in 6 runs: the logs of 120 matches" in result.stderr
    assert "--compression" not in err[0]  # compare has no such option
    result = runner.invoke(app, ["experiment", "tribute", "--deals", "600", "-o", str(tmp_path / "e")])
    assert result.exit_code == 2, result.output
    assert result.stderr.strip() == (
        "guandan: error: 600 deals (--deals) in 2 arms: the logs of 1200 matches take at least 2.4 MB "
        f"(1 deal of 2000 B per match at the fewest), but 1.0 MB are free on {tmp_path}: "
        "play fewer matches or write to a larger disk"
    )
    result = runner.invoke(app, ["experiment", "tribute", "--deals", str(MAX_MATCHES + 1)])
    assert (
        result.exit_code == 2 and f"at most {MAX_MATCHES} deals (--deals) in one experiment" in result.stderr
    )
    result = runner.invoke(app, ["compare", "random", "greedy", "-n", str(MAX_MATCHES + 1), "-q"])
    assert result.exit_code == 2
    assert (
        f"at most {MAX_MATCHES} pairs (-n/--matches) in one comparison, got {MAX_MATCHES + 1}"
        in result.stderr
    )


def test_an_empty_out_is_not_the_current_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SimulationInputError, match="out: an empty path"):
        simulate(1, strategies="random", out="", workers=1)
    assert not any(tmp_path.iterdir())


def test_resuming_a_relative_file_strategy_elsewhere_names_the_folder(tmp_path, monkeypatch):
    (tmp_path / "proj" / "bots").mkdir(parents=True)
    (tmp_path / "proj" / "bots" / "b.py").write_text(
        "from guandan_cli.strategies.random_bot import RandomStrategy as B\n"
    )
    monkeypatch.chdir(tmp_path / "proj")
    simulate(3, strategies="bots/b.py:B", max_deals=2, out=tmp_path / "run", workers=1)
    path = tmp_path / "run" / "manifest.json"
    manifest = json.loads(path.read_text())
    assert manifest["started_in"] == str(tmp_path / "proj")
    manifest["state"] = "interrupted"
    path.write_text(json.dumps(manifest))
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SimulationInputError) as caught:
        simulate(out=tmp_path / "run", resume=True, workers=1)
    assert str(caught.value) == (
        f"strategy 'bots/b.py:B': no file bots/b.py (the run was started in {tmp_path / 'proj'}, "
        "and bots/b.py is read relative to the current folder: resume from there)"
    )
    monkeypatch.chdir(tmp_path / "proj")
    assert simulate(out=tmp_path / "run", resume=True, workers=1).manifest.state == "complete"


def test_force_starts_over_on_a_damaged_run_only(tmp_path):
    out = tmp_path / "run"
    simulate(3, strategies="random", max_deals=2, out=out, workers=1)
    manifest = json.loads((out / "manifest.json").read_text())
    del manifest["config"]
    (out / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(SimulationInputError, match="no config.*; use --force to start over or another --out"):
        simulate(3, strategies="random", max_deals=2, out=out, workers=1)
    (out / "notes.txt").write_text("mine")
    run = simulate(3, strategies="greedy", max_deals=2, out=out, workers=1, force=True)
    assert run.manifest.state == "complete" and run.manifest.config.strategies[0] == "greedy"
    assert (out / "notes.txt").read_text() == "mine"  # only the run's own files were wiped
    # a folder whose manifest.json is someone else's is never wiped, even with --force
    other = tmp_path / "other"
    other.mkdir()
    (other / "manifest.json").write_text('{"name": "a web app"}')
    with pytest.raises(SimulationInputError, match="; choose another --out"):
        simulate(3, strategies="random", out=other, workers=1, force=True)
    assert (other / "manifest.json").read_text() == '{"name": "a web app"}'


def test_a_full_disk_stops_the_run_in_one_line_and_it_resumes(tmp_path, monkeypatch):
    import errno

    from guandan_cli.logs.journal import Journal
    from guandan_cli.runner.simulation import SimulationError

    reference = simulate(12, strategies="random", max_deals=2, out=tmp_path / "ref", workers=1, part_size=4)
    real_append, calls = Journal.append, []

    def append(self, *args, **kwargs):
        calls.append(1)
        if len(calls) == 7:  # the disk fills during the 7th match
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_append(self, *args, **kwargs)

    monkeypatch.setattr(Journal, "append", append)
    out = tmp_path / "run"
    with pytest.raises(SimulationError) as caught:
        simulate(12, strategies="random", max_deals=2, out=out, workers=1, part_size=4, chunk_size=1)
    message = str(caught.value)
    assert message.startswith(f"cannot write {out}: No space left on device; ")
    assert message.endswith(" of 12 matches are saved: make room, then rerun with --resume")
    saved = int(message.split("; ")[1].split()[0])
    assert 4 <= saved <= 6
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["state"] == "failed" and "No space left on device" in manifest["error"]
    monkeypatch.setattr(Journal, "append", real_append)
    run = simulate(out=out, resume=True, workers=1)
    assert run.manifest.state == "complete"
    for name in ("deals-00000.jsonl", "deals-00001.jsonl", "deals-00002.jsonl"):
        assert (out / name).read_bytes() == (reference.path / name).read_bytes()


def test_a_setups_source_that_is_unfinished_says_so(tmp_path):
    from guandan_cli.runner.identity import setups_problem

    simulate(3, strategies="random", max_deals=2, out=tmp_path / "src", workers=1, part_size=2)
    path = tmp_path / "src" / "manifest.json"
    manifest = json.loads(path.read_text())
    have = manifest["counts"]["deals"]
    assert setups_problem(str(tmp_path / "src"), have, None) is None
    assert setups_problem(str(tmp_path / "src"), have + 1, None).endswith(
        f"the run holds {have} deals, fewer than the {have + 1} setups asked"
    )
    manifest["state"] = "interrupted"
    path.write_text(json.dumps(manifest))
    assert (
        f"holds {have} deals in complete parts (an unfinished run: resume it first), fewer"
        in setups_problem(str(tmp_path / "src"), have + 1, None)
    )


def test_verify_notes_part_files_that_are_not_parts_of_the_run(tmp_path):
    """QA: part files outside the run's plan (a part copied in from a longer run, one renamed
    to another index) were passed over by verify and analyze without a word: "ok"."""
    import shutil

    run, longer = tmp_path / "run", tmp_path / "longer"
    simulate(4, seed=3, strategies="random", part_size=2, workers=1, out=run)
    simulate(6, seed=3, strategies="random", part_size=2, workers=1, out=longer)
    for name in ("deals-00002.jsonl", "matches-00002.jsonl"):
        shutil.copy(longer / name, run / name)
    res = runner.invoke(app, ["verify", str(run), "-q", "-w", "1"])
    assert res.exit_code == 0, res.output
    assert (
        f"note: {run}: deals-00002.jsonl, matches-00002.jsonl are not read: the run's 4 matches "
        "are parts 0..1" in res.stderr
    ), res.stderr

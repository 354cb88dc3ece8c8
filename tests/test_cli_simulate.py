"""`guandan simulate`, `verify`, `replay` on the command line: bad input is one line, no traceback."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from guandan_cli.cli.app import app

runner = CliRunner()
BASE = ["simulate", "-n", "3", "--seed", "2", "-s", "random,greedy", "--max-deals", "2", "-w", "1", "-q"]


def one_line_error(result, code: int = 2) -> str:
    assert result.exit_code == code, result.output
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit)
    err = result.stderr.strip()
    assert "Traceback" not in result.output and len(err.splitlines()) == 1, err
    assert err.startswith("guandan: error: ")
    return err


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["-s", "nobody"], "unknown strategy 'nobody'"),
        (["-n", "0"], "matches (--matches) must be a positive whole number, got 0"),
        (["-w", "-1"], "workers (--workers) must be a positive"),
        (["--max-deals", "0"], "max_deals (--max-deals) must be a positive"),
        (["--ruleset", "nope"], "unknown ruleset 'nope'"),
        (["--compression", "rar"], "unknown compression 'rar'"),
        (["--on-error", "ignore"], "unknown on-error mode 'ignore'"),
        (["-s", "a,b,c"], "takes 1 name"),
    ],
)
def test_bad_input_is_one_line(tmp_path, extra, message):
    result = runner.invoke(app, [*BASE, "--out", str(tmp_path / "run"), *extra])
    assert message in one_line_error(result)
    assert not (tmp_path / "run").exists()


def test_unwritable_and_existing_output(tmp_path):
    (tmp_path / "f").write_text("x")
    err = one_line_error(runner.invoke(app, [*BASE, "--out", str(tmp_path / "f" / "run")]))
    assert "cannot write to output" in err
    out = str(tmp_path / "run")
    ok = runner.invoke(app, [*BASE, "--out", out])
    assert ok.exit_code == 0, ok.output
    err = one_line_error(runner.invoke(app, [*BASE, "--out", out]))
    assert "complete run; use --force" in err
    assert runner.invoke(app, [*BASE, "--out", out, "--force"]).exit_code == 0


def test_simulate_summary_verify_and_replay(tmp_path):
    out = tmp_path / "run"
    args = [a for a in BASE if a != "-q"]
    result = runner.invoke(app, [*args, "--out", str(out), "--compression", "zstd"])
    assert result.exit_code == 0, result.output
    text = result.stdout
    for word in ("matches", "deals/s", "team 0 (seats 0,2: random,random)", "95% CI", str(out)):
        assert word in text
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["command"].startswith("guandan ") and manifest["config"]["compression"] == "zstd"
    assert manifest["strategies"] == {"0": "random", "1": "greedy", "2": "random", "3": "greedy"}
    assert manifest["started_at"] and manifest["ended_at"] and manifest["package_version"]

    ver = runner.invoke(app, ["verify", str(out)])
    assert ver.exit_code == 0 and ": ok" in ver.stdout

    rep = runner.invoke(app, ["replay", str(out), "--match", "0", "--deal", "1"])
    assert rep.exit_code == 0, rep.output
    assert "tribute:" in rep.stdout and "trick 1" in rep.stdout and "finish:" in rep.stdout
    missing = runner.invoke(app, ["replay", str(out), "--match", "0", "--deal", "7"])
    assert "has no deal 7" in one_line_error(missing)


@pytest.mark.parametrize(("compression", "shown"), [("none", "uncompressed"), ("gzip", "gzip")])
def test_summary_names_the_compression_in_words(tmp_path, compression, shown):
    args = [a for a in BASE if a != "-q"]
    result = runner.invoke(app, [*args, "--out", str(tmp_path / "run"), "--compression", compression])
    assert result.exit_code == 0, result.output
    log_line = next(line for line in result.stdout.splitlines() if line.startswith("log "))
    assert log_line.endswith(f"(1 part(s), {shown})"), log_line


def test_verify_reports_file_and_line(tmp_path):
    out = tmp_path / "run"
    assert runner.invoke(app, [*BASE, "--out", str(out)]).exit_code == 0
    path = out / "deals-00000.jsonl"
    lines = path.read_bytes().splitlines(keepends=True)
    lines[0] = lines[0].replace(b'"upgrade":', b'"upgrade":1', 1)  # 3 -> 13 or 2 -> 12, still an int
    path.write_bytes(b"".join(lines))
    result = runner.invoke(app, ["verify", str(out)])
    assert result.exit_code == 1
    assert f"{path}:1: match 0 deal 0: upgrade is 1" in result.stdout

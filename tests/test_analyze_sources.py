"""What `analyze` reads: a Parquet copy only while it is the run's own, one line for a damaged read."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from guandan_cli.cli.app import app
from guandan_cli.reports import fresh_parquet, load
from guandan_cli.reports.loading import convert_to_parquet
from guandan_cli.runner.rundir import run_files

runner = CliRunner()


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


def simulate(out: Path, n: int, seed: int, strategy: str = "random", *extra) -> Path:
    res = invoke(
        "simulate", "-n", n, "--seed", seed, "-s", strategy, "--max-deals", 3, "-w", 1, "--part-size", 2,
        "-q", "-o", out, *extra,
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    return out


@pytest.fixture(scope="module")
def run6(tmp_path_factory) -> Path:
    """A simulated run of 6 matches in 3 parts (do not modify)."""
    return simulate(tmp_path_factory.mktemp("src") / "run", 6, 5)


@pytest.fixture
def run_copy(run6, tmp_path) -> Path:
    return Path(shutil.copytree(run6, tmp_path / "run"))


def _matches(res) -> int:
    rows = json.loads(res.stdout)["match-length"]
    return rows[0]["matches"] if rows else 0


def test_force_removes_the_parquet_copies(run_copy):
    convert_to_parquet(run_copy)
    assert {p.name for p in run_files(run_copy)} >= {"deals.parquet", "matches.parquet"}
    simulate(run_copy, 4, 1, "greedy", "--force")
    assert not (run_copy / "deals.parquet").exists() and not (run_copy / "matches.parquet").exists()


def test_a_copy_of_another_run_is_not_read(run_copy, tmp_path):
    """The QA case: a run wiped by --force and stopped before its first part, the old copy left."""
    convert_to_parquet(run_copy)
    old = json.loads((run_copy / "manifest.json").read_text())
    for f in run_copy.iterdir():
        if f.name.endswith(".jsonl"):
            f.unlink()
    new = old | {"run_id": "0123456789abcdef", "state": "interrupted", "parts": []}
    (run_copy / "manifest.json").write_text(json.dumps(new))
    assert fresh_parquet(run_copy, "deals") is None and fresh_parquet(run_copy, "matches") is None
    res = invoke("analyze", run_copy, "-r", "match-length", "-f", "json")
    assert res.exit_code == 0, res.output
    assert _matches(res) == 0  # not the 6 matches of the copy
    assert f"{run_copy / 'deals.parquet'}: out of date" in res.stderr


def test_a_copy_made_before_a_part_was_added_is_not_read(run6, tmp_path):
    """A run resumed (or a part restored) after --to-parquet: the copy lacks its new matches."""
    run = Path(shutil.copytree(run6, tmp_path / "run"))
    (run / "deals-00002.jsonl").rename(tmp_path / "d2")
    (run / "matches-00002.jsonl").rename(tmp_path / "m2")
    convert_to_parquet(run)
    assert fresh_parquet(run, "deals") == run / "deals.parquet"
    (tmp_path / "d2").rename(run / "deals-00002.jsonl")
    (tmp_path / "m2").rename(run / "matches-00002.jsonl")
    assert fresh_parquet(run, "deals") is None
    res = invoke("analyze", run, "-r", "match-length", "-f", "json")
    assert res.exit_code == 0, res.output
    assert _matches(res) == 6


def test_a_part_rewritten_with_the_same_size_makes_the_copy_stale(run_copy):
    convert_to_parquet(run_copy)
    part = run_copy / "deals-00001.jsonl"
    data = part.read_bytes()
    part.write_bytes(data.replace(b'"v":', b'"v":', 1))  # same bytes, new mtime: still fresh
    os.utime(part, ns=(0, 10**18))
    assert fresh_parquet(run_copy, "deals") == run_copy / "deals.parquet"
    part.write_bytes(data[:-2] + b" \n")  # other bytes, same size
    os.utime(part, ns=(0, 2 * 10**18))
    assert fresh_parquet(run_copy, "deals") is None


def test_a_copied_run_keeps_its_copy_fresh(run6, tmp_path):
    run = Path(shutil.copytree(run6, tmp_path / "a"))
    convert_to_parquet(run)
    copy = Path(shutil.copytree(run, tmp_path / "b", copy_function=shutil.copyfile))  # new mtimes
    assert fresh_parquet(copy, "deals") == copy / "deals.parquet"


def test_a_copy_without_the_record_is_not_read(run_copy):
    import polars as pl

    convert_to_parquet(run_copy)
    pq = run_copy / "deals.parquet"
    pl.read_parquet(pq).write_parquet(pq)  # as an older guandan wrote it: no record of its sources
    assert fresh_parquet(run_copy, "deals") is None
    assert any("no record of the parts" in n for n in load(run_copy).notices)


@pytest.mark.parametrize("damage", ["garbage", "truncated"])
def test_an_unreadable_parquet_copy_falls_back_to_the_parts(run_copy, damage):
    convert_to_parquet(run_copy)
    pq = run_copy / "deals.parquet"
    pq.write_bytes(b"not parquet\n" if damage == "garbage" else pq.read_bytes()[:2000])
    res = invoke("analyze", run_copy, "-r", "match-length", "-f", "json")
    assert res.exit_code == 0, res.output
    assert _matches(res) == 6
    assert f"{pq}: not a readable Parquet file" in res.stderr and "Traceback" not in res.output


def test_a_parquet_copy_damaged_inside_is_one_line(run_copy):
    convert_to_parquet(run_copy)
    pq = run_copy / "deals.parquet"
    data = bytearray(pq.read_bytes())
    for i in range(8, len(data) // 2, 3):  # the data pages; the footer (at the end) stays readable
        data[i] ^= 0x5A
    pq.write_bytes(bytes(data))
    res = invoke("analyze", run_copy, "-r", "match-length,bombs")
    assert res.exit_code == 1, res.output
    err = res.stderr.strip()
    assert len(err.splitlines()) == 1 and err.startswith("guandan: error: reading ")
    assert str(pq) in err and "--to-parquet" in err


@pytest.mark.parametrize(
    ("damage", "line", "reason"),
    [
        ("garbage", 2, "not valid JSON"),
        ("truncated", None, "truncated line"),
        ("not-utf8", None, "not UTF-8"),
    ],
)
def test_no_check_names_the_bad_line(run_copy, damage, line, reason):
    part = run_copy / "deals-00001.jsonl"
    lines = part.read_bytes().splitlines(keepends=True)
    if damage == "garbage":
        lines[1] = b"{garbage\n"
    elif damage == "truncated":
        lines[-1] = lines[-1][:-20]
    else:
        lines.append(b"\xff\xfe\n")
    part.write_bytes(b"".join(lines))
    line = line or len(lines)
    res = invoke("analyze", run_copy, "--no-check", "-r", "match-length")
    assert res.exit_code == 1, res.output
    err = res.stderr.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in res.output
    assert err.startswith(f"guandan: error: {part}:{line}: {reason}"), err
    assert "--no-check" in err and "verify" in err


# ---------------------------------------------------------------- lines of another run or part


def _lines_of_match(part: Path, match: int) -> bytes:
    return b"".join(
        x for x in part.read_bytes().splitlines(keepends=True) if f'"match":{match},'.encode() in x
    )


def test_a_line_of_another_run_is_named(run_copy, tmp_path):
    other = simulate(tmp_path / "other", 2, 77)
    part = run_copy / "deals-00002.jsonl"
    lines = len(part.read_bytes().splitlines())
    with open(part, "ab") as fh:
        fh.write(_lines_of_match(other / "deals-00000.jsonl", 0).replace(b'"match":0,', b'"match":5,'))
    with open(run_copy / "matches-00002.jsonl", "ab") as fh:
        fh.write(_lines_of_match(other / "matches-00000.jsonl", 0).replace(b'"match":0,', b'"match":5,'))
    res = invoke("analyze", run_copy, "-r", "match-length")
    assert res.exit_code == 1, res.output
    other_id = json.loads((other / "manifest.json").read_text())["run_id"]
    run_id = json.loads((run_copy / "manifest.json").read_text())["run_id"]
    assert res.stderr.strip() == (
        f'guandan: error: {part}:{lines + 1}: run_id "{other_id}" is not this run\'s ("{run_id}", in its manifest)'
    )


@pytest.mark.parametrize("match", [1, 6, 123])  # another part's match; past config.matches
def test_a_match_outside_its_part_is_named(run_copy, match):
    part = run_copy / "deals-00002.jsonl"
    lines = len(part.read_bytes().splitlines())
    src = _lines_of_match(run_copy / "deals-00000.jsonl", 1)
    with open(part, "ab") as fh:
        fh.write(src.replace(b'"match":1,', f'"match":{match},'.encode()))
    res = invoke("analyze", run_copy, "-r", "match-length")
    assert res.exit_code == 1, res.output
    assert res.stderr.strip() == (
        f"guandan: error: {part}:{lines + 1}: match {match} is not in this part, which holds matches 4..5"
    )
    skipped = invoke("analyze", run_copy, "-r", "match-length", "--skip-bad", "-f", "json")
    assert skipped.exit_code == 0 and _matches(skipped) == 6
    assert f"skipped {len(src.splitlines())} bad line(s)" in skipped.stderr

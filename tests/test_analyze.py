"""`guandan analyze`: every format, plots, Parquet, and bad lines (named, or skipped and counted)."""

from __future__ import annotations

import csv
import io
import json
import os
import shutil

import polars as pl
import pytest
from click.testing import CliRunner
from polars.testing import assert_frame_equal
from report_fixtures import small_run  # noqa: F401  (fixture)

from guandan_cli.cli.app import app
from guandan_cli.reports import REPORTS, LogLineError, fresh_parquet, load, run_report
from guandan_cli.reports.loading import convert_to_parquet

runner = CliRunner()


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


def _rounded(value):
    """``value`` with floats rounded to 9 digits (sums in another order differ in the last bits)."""
    if isinstance(value, float):
        return round(value, 9)
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_rounded(v) for v in value]
    return value


@pytest.fixture
def run_copy(small_run, tmp_path):  # noqa: F811
    dst = tmp_path / "run"
    shutil.copytree(small_run, dst)
    return dst


def test_table_all_reports(small_run):  # noqa: F811
    res = invoke("analyze", small_run)
    assert res.exit_code == 0, res.output
    for name in REPORTS:
        assert f"{name}: " in res.stdout
    assert "[95% CI]" in res.stdout


def test_markdown(small_run):  # noqa: F811
    res = invoke("analyze", small_run, "--report", "tribute", "--format", "markdown")
    assert res.exit_code == 0, res.output
    assert res.stdout.startswith("## tribute: ")
    assert "| ruleset |" in res.stdout and "|---" in res.stdout


def test_csv_single_report_matches_api(small_run):  # noqa: F811
    res = invoke("analyze", small_run, "-r", "partners", "-f", "csv")
    assert res.exit_code == 0, res.output
    got = pl.read_csv(io.StringIO(res.stdout))
    data = load(small_run)
    want = run_report("partners", data.deals, data.matches)
    assert_frame_equal(got, want, check_dtypes=False, check_exact=False)


def test_csv_several_reports_are_labelled(small_run):  # noqa: F811
    res = invoke("analyze", small_run, "-r", "jiefeng,bombs", "-f", "csv")
    assert res.exit_code == 0, res.output
    assert res.stdout.startswith("# jiefeng\n") and "\n# bombs\n" in res.stdout
    header = next(csv.reader(io.StringIO(res.stdout.split("\n", 1)[1])))
    assert header[:3] == ["ruleset", "deals", "total"]


def test_json_all(small_run):  # noqa: F811
    res = invoke("analyze", small_run, "--format", "json")
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert list(out) == ["metadata", *REPORTS]
    assert out["metadata"] == {"runs": [], "incomplete": []}  # no manifest: loose parts
    assert {"win_rate", "win_rate_lo", "win_rate_hi"} <= set(out["tribute"][0])


def test_by_grouping(small_run):  # noqa: F811
    res = invoke("analyze", small_run, "-r", "strategy-deals", "--by", "strategy,seat", "-f", "json")
    assert res.exit_code == 0, res.output
    rows = json.loads(res.stdout)["strategy-deals"]
    assert [(r["strategy"], r["seat"]) for r in rows] == [
        ("greedy", 0),
        ("greedy", 2),
        ("random", 1),
        ("random", 3),
    ]


def test_plots_png_every_report(small_run, tmp_path):  # noqa: F811
    res = invoke("analyze", small_run, "--plots", tmp_path / "plots", "-f", "csv")
    assert res.exit_code == 0, res.output
    for name in REPORTS:
        png = tmp_path / "plots" / f"{name}.png"
        assert png.is_file() and png.stat().st_size > 1000, name
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plots_svg(small_run, tmp_path):  # noqa: F811
    res = invoke("analyze", small_run, "-r", "bombs", "--plots", tmp_path, "--plot-format", "svg")
    assert res.exit_code == 0, res.output
    svg = tmp_path / "bombs.svg"
    assert svg.stat().st_size > 0 and "<svg" in svg.read_text()


def test_unknown_report_is_a_usage_error(small_run):  # noqa: F811
    res = invoke("analyze", small_run, "-r", "nope")
    assert res.exit_code == 2
    assert "unknown report" in res.output
    # "all" is a valid name inside a list too: the error names only the unknown ones
    res = invoke("analyze", small_run, "-r", "all,nope,bombs,nah")
    assert res.exit_code == 2
    assert ": unknown reports 'nope', 'nah'; choose from" in res.output
    res = invoke("analyze", small_run, "-r", "bombs,all", "--format", "csv")
    assert res.exit_code == 0, res.output
    assert res.output == invoke("analyze", small_run, "-r", "all", "--format", "csv").output


def _corrupt(run, line_no: int, text: str | None = None) -> str:
    path = run / "deals-00000.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[line_no - 1] = text if text is not None else lines[line_no - 1][:57] + "\n"
    path.write_text("".join(lines), encoding="utf-8")
    return str(path)


def test_corrupt_line_names_file_and_line(run_copy):
    path = _corrupt(run_copy, 3)
    res = invoke("analyze", run_copy, "-r", "jiefeng")
    assert res.exit_code == 1
    assert f"{path}:3:" in res.output


def test_truncated_last_line(run_copy):
    path = run_copy / "deals-00000.jsonl"
    n = len(path.read_text(encoding="utf-8").splitlines())
    with open(path, "a", encoding="utf-8") as f:
        f.write('{"v":1,"run_id":"test-run","match":9')
    res = invoke("analyze", run_copy, "-r", "jiefeng")
    assert res.exit_code == 1
    assert f"{path}:{n + 1}:" in res.output and "truncated" in res.output


def test_skip_bad_counts(run_copy):
    _corrupt(run_copy, 2)
    _corrupt(run_copy, 5, '{"v": 1}\n')
    total = len((run_copy / "deals-00000.jsonl").read_text().splitlines())
    res = invoke("analyze", run_copy, "-r", "jiefeng", "-f", "json", "--skip-bad")
    assert res.exit_code == 0, res.output
    assert "skipped 2 bad line(s)" in res.stderr
    assert json.loads(res.stdout)["jiefeng"][0]["deals"] == total - 2


def test_load_api_raises_log_line_error(run_copy):
    _corrupt(run_copy, 4)
    with pytest.raises(LogLineError) as info:
        load(run_copy)
    assert info.value.line == 4 and info.value.path.endswith("deals-00000.jsonl")
    assert load(run_copy, skip_bad=True).skipped == 1


def test_to_parquet_then_reports_read_it(run_copy):
    before = invoke("analyze", run_copy, "-f", "json").stdout
    res = invoke("analyze", run_copy, "--to-parquet")
    assert res.exit_code == 0, res.output
    assert res.stdout == ""
    assert fresh_parquet(run_copy, "deals") == run_copy / "deals.parquet"
    assert fresh_parquet(run_copy, "matches") == run_copy / "matches.parquet"
    # break the JSONL keeping its size and mtime (what the copy's record looks at first):
    # Parquet is read, so no error
    part = run_copy / "deals-00000.jsonl"
    st = part.stat()
    part.write_bytes(b"x" * st.st_size)
    os.utime(part, ns=(st.st_atime_ns, st.st_mtime_ns))
    after = invoke("analyze", run_copy, "-f", "json")
    assert after.exit_code == 0, after.output
    assert _rounded(json.loads(after.stdout)) == _rounded(json.loads(before))


def test_to_parquet_of_a_folder_of_runs_converts_each_run(small_run, tmp_path):  # noqa: F811
    """QA: ``analyze FOLDER --to-parquet`` (a folder holding runs, which analyze reads as
    its runs) wrote FOLDER/deals.parquet pooling them, a copy no reader ever uses."""
    folder = tmp_path / "runs"
    shutil.copytree(small_run, folder / "a")
    res = invoke("analyze", folder, "--to-parquet")
    assert res.exit_code == 0, res.output
    assert not (folder / "deals.parquet").exists() and not (folder / "matches.parquet").exists()
    assert fresh_parquet(folder / "a", "deals") == folder / "a" / "deals.parquet"
    assert f"wrote {folder / 'a' / 'deals.parquet'}" in res.stderr


def test_to_parquet_of_a_part_file_is_refused_before_any_note(small_run):  # noqa: F811
    """QA: ``analyze RUN/deals-00000.jsonl --to-parquet`` printed "note: match-length,
    strategy-matches left out …" and then refused the part file."""
    res = invoke("analyze", small_run / "deals-00000.jsonl", "--to-parquet")
    assert res.exit_code == 2
    assert res.stderr.splitlines() == [
        f"guandan: error: --to-parquet {small_run / 'deals-00000.jsonl'}: not a run directory "
        "(it writes RUN/deals.parquet and RUN/matches.parquet)"
    ]


def test_stale_parquet_is_ignored(run_copy):
    convert_to_parquet(run_copy)
    part = run_copy / "deals-00000.jsonl"
    part.write_bytes(part.read_bytes()[:-2] + b" \n")  # other bytes, same size, newer than the copy
    import os

    st = (run_copy / "deals.parquet").stat()
    os.utime(part, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    assert fresh_parquet(run_copy, "deals") is None


def test_two_runs_are_pooled(small_run, run_copy):  # noqa: F811
    one = json.loads(invoke("analyze", small_run, "-r", "jiefeng", "-f", "json").stdout)["jiefeng"][0]
    two = json.loads(invoke("analyze", small_run, run_copy, "-r", "jiefeng", "-f", "json").stdout)["jiefeng"][
        0
    ]
    assert two["deals"] == 2 * one["deals"] and two["total"] == 2 * one["total"]


def test_parquet_and_jsonl_runs_pool(small_run, run_copy):  # noqa: F811
    convert_to_parquet(run_copy)
    one = json.loads(invoke("analyze", small_run, "-r", "bombs", "-f", "json").stdout)["bombs"]
    two = json.loads(invoke("analyze", small_run, run_copy, "-r", "bombs", "-f", "json").stdout)["bombs"]
    assert [r["bombs"] * 2 for r in one] == [r["bombs"] for r in two]


def test_tables_fit_100_columns_and_wide_shows_every_column(small_run):  # noqa: F811
    import re

    from guandan_cli.reports.tables import display_width, readable_columns

    res = invoke("analyze", small_run, "--by", "strategy,seat")
    assert res.exit_code == 0, res.output
    assert max(display_width(line) for line in res.stdout.splitlines()) <= 100
    assert re.search(r"\d\.\d\d+ \[\d\.\d\d+, \d\.\d\d+\]", res.stdout)
    assert "hidden: " in res.stdout and "(--wide shows every column)" in res.stdout
    wide = invoke("analyze", small_run, "--by", "strategy,seat", "--wide")
    assert wide.exit_code == 0, wide.output
    assert "hidden: " not in wide.stdout and max(display_width(x) for x in wide.stdout.splitlines()) > 100
    data = load(small_run)
    blocks = wide.stdout.split("\n\n")
    for name in REPORTS:
        df = run_report(
            name, data.deals, data.matches, by=("strategy", "seat") if REPORTS[name].groupable else None
        )
        header = blocks[blocks.index(next(b for b in blocks if b.startswith(f"{name}: "))) + 1].splitlines()[
            0
        ]
        assert header.split() == [c.name for c in readable_columns(df)], name


def test_abbreviated_headers_have_a_legend(small_run):  # noqa: F811
    from guandan_cli.reports.tables import readable_columns

    res = invoke("analyze", small_run, "-r", "first-leader")
    assert res.exit_code == 0, res.output
    _title, table, notes = res.stdout.split("\n\n")[:3]
    header = table.splitlines()[0].split()
    legend = dict(item.split(": ", 1) for item in notes.replace("\n", " ").split("; ")[:-1])
    data = load(small_run)
    names = [c.name for c in readable_columns(run_report("first-leader", data.deals))]
    assert legend and all(full in names and len(short) < len(full) for short, full in legend.items())
    assert [legend.get(h, h) for h in header] == [n for n in names if n in [legend.get(h, h) for h in header]]
    assert all(legend.get(h, h) in names for h in header)


def test_what_load_returns_stays_valid_on_its_own(small_run):  # noqa: F811
    """README: ``tribute_effect(load("runs/demo").deals)`` (the loader object is dropped at once)."""
    import gc

    from guandan_cli.reports import tribute_effect

    expected = run_report("tribute", load(small_run).deals, None)
    deals = load(small_run).deals  # the RunData is garbage now
    gc.collect()
    assert_frame_equal(tribute_effect(deals), expected)
    assert_frame_equal(tribute_effect(load(small_run).deals), expected)


def test_load_takes_a_list_of_part_files(small_run):  # noqa: F811
    parts = sorted(small_run.glob("*-00000.jsonl"))
    data = load(parts)
    assert data.deals.collect().height == load(small_run).deals.collect().height
    assert data.matches.collect().height == len((small_run / "matches-00000.jsonl").read_text().splitlines())

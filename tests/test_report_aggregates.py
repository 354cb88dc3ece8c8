"""Reports as mergeable aggregates print what the whole-frame reports printed.

The oracle is the report functions as they were before (``tests/reports_oracle``, each over
every record of the runs at once, through ``load``); ``analyze`` now reduces chunks of parts
in worker processes and merges their partials. Its output must be the same bytes, in JSON
and as a table, whatever the part layout and the number of workers.
"""

from __future__ import annotations

import importlib

import pytest
from click.testing import CliRunner

from guandan_cli.cli.app import app
from guandan_cli.reports import REPORTS, load
from guandan_cli.reports import analysis as an
from guandan_cli.reports.reduce import reduce_runs

ORACLE = {
    "tribute": ("tribute", "tribute_effect"),
    "tribute-card": ("tribute", "tribute_card"),
    "first-leader": ("tribute", "first_leader"),
    "bombs": ("bombs", "bombs"),
    "bombs-by-player": ("bombs", "bombs_by_player"),
    "winner-bombs": ("bombs", "winner_bombs"),
    "partners": ("partners", "partners"),
    "double-down": ("double_down", "double_down"),
    "deal-length": ("deal_length", "deal_length"),
    "match-length": ("matches", "match_length"),
    "levels": ("matches", "level_progression"),
    "wilds": ("wilds", "wild_use"),
    "jiefeng": ("jiefeng", "jiefeng"),
    "strategy-deals": ("winrates", "strategy_deals"),
    "strategy-matches": ("winrates", "strategy_matches"),
}


def oracle_results(runs, by=None) -> dict:
    data = load(*runs)
    out = {}
    for name, (module, function) in ORACLE.items():
        old = getattr(importlib.import_module(f"reports_oracle.{module}"), function)
        frame = data.matches if REPORTS[name].source == "matches" else data.deals
        out[name] = old(frame, by=by) if by is not None and REPORTS[name].groupable else old(frame)
    return out, data


def simulate(out, *args) -> str:
    result = CliRunner().invoke(app, ["simulate", "-q", "-w", "1", "-o", str(out), *args])
    assert result.exit_code == 0, result.output
    return str(out)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Three runs of different part layouts: parts of 7, 13 and 30 matches, one compressed."""
    root = tmp_path_factory.mktemp("aggregates")
    return [
        simulate(root / "a", "-n", "60", "-s", "greedy,random", "--part-size", "7", "--max-deals", "12"),
        simulate(
            root / "b", "-n", "40", "-s", "random", "--ruleset", "jiangsu2017", "--part-size", "13",
            "--max-deals", "20", "--seed", "5",
        ),
        simulate(
            root / "c", "-n", "30", "-s", "greedy,random,random,greedy", "--part-size", "30",
            "--compression", "zstd", "--max-deals", "15", "--seed", "9",
        ),
    ]  # fmt: skip


def analyze(*args) -> str:
    result = CliRunner().invoke(app, ["analyze", *args])
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.mark.parametrize("workers", ["1", "2"])
def test_analyze_prints_what_the_whole_frame_reports_printed(runs, workers, monkeypatch):
    import guandan_cli.reports.reduce as reduce

    monkeypatch.setattr(reduce, "IN_PROCESS_BYTES", 0)  # worker processes even for small runs
    expected, data = oracle_results(runs)
    titles = {n: REPORTS[n].title for n in expected}
    meta = an.metadata(data)
    for fmt in ("json", "table"):
        got = analyze(*runs, "--format", fmt, "--workers", workers)
        assert got == an.render(expected, fmt, titles, metadata=meta) + "\n", fmt


@pytest.mark.parametrize("by", [("seat",), ("strategy", "seat")])
def test_groupings_match_the_oracle(runs, by):
    expected, _ = oracle_results(runs, by=by)
    names = [n for n in REPORTS if REPORTS[n].groupable]
    got = reduce_runs(runs, names, by, workers=1).results
    for name in names:
        assert got[name].equals(expected[name], null_equal=True), name


def test_any_split_of_the_parts_gives_the_same_tables(runs, monkeypatch):
    """One part per chunk, then every run's parts in one chunk: the same frames, bit for bit."""
    import guandan_cli.reports.reduce as reduce

    names = list(REPORTS)
    monkeypatch.setattr(reduce, "MIN_CHUNK_PARTS", 1)
    monkeypatch.setattr(reduce, "CHUNKS_PER_WORKER", 1000)
    fine = reduce_runs(runs, names, workers=1).results
    monkeypatch.setattr(reduce, "MIN_CHUNK_PARTS", 10_000)
    monkeypatch.setattr(reduce, "MAX_CHUNK_PARTS", 10_000)
    monkeypatch.setattr(reduce, "BLOCK_ROWS", 50)  # many blocks within a chunk
    coarse = reduce_runs(runs, names, workers=1).results
    for name in names:
        assert fine[name].equals(coarse[name], null_equal=True), name


def test_a_bad_line_in_a_later_chunk_is_named(runs, tmp_path, monkeypatch):
    """The checks run per chunk: a corrupt line still stops analyze naming file and line."""
    import shutil

    import guandan_cli.reports.reduce as reduce

    run = tmp_path / "a"
    shutil.copytree(runs[0], run)
    part = sorted(run.glob("deals-*.jsonl"))[-1]
    lines = part.read_bytes().splitlines(keepends=True)
    lines[1] = lines[1].replace(b'"upgrade":', b'"upgrade":7,"x":', 1)
    part.write_bytes(b"".join(lines))
    monkeypatch.setattr(reduce, "IN_PROCESS_BYTES", 0)
    result = CliRunner().invoke(app, ["analyze", str(run), "--workers", "2", "--format", "json"])
    assert result.exit_code == 1
    assert f"{part}:2:" in result.output


def test_partials_merge_to_the_partial_of_the_whole(runs):
    """Each report's partial of two halves, merged, is the partial of the whole (same rows)."""
    data = load(*runs)
    deals = data.deals.collect()
    half = deals.height // 2
    for name, report in REPORTS.items():
        if report.source != "deals":
            continue
        agg = report.aggregate
        whole = agg.partial(deals.lazy())
        merged = agg.merge([agg.partial(deals.head(half).lazy()), agg.partial(deals.tail(-half).lazy())])
        for a, b in zip(whole, merged):
            keys = [c for c, t in a.schema.items() if not t.is_numeric() or c in ("power", "deal", "value")]
            assert a.sort(keys).equals(b.sort(keys), null_equal=True), name

"""``load()``'s fast path gives what the full decode and checks give.

``load`` reads deal lines without decoding ``hands`` and ``actions`` (their checks read
their JSON text), and does not match the lines of a part against the line pattern again
when the part's size and sha256 are those its run's manifest records. These tests compare
it with the full path (every field decoded, every line pattern-matched, heavy columns
dropped after): same records, same reports, same verdicts on bad lines, on real runs
(several parts, gzip, zstd, an interrupted run with journaled matches, a run without a
manifest), and a part changed after it was written is checked line by line again.
"""

from __future__ import annotations

import importlib
import json
import shutil
import warnings
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal
from report_fixtures import write_run
from test_invariants import dumps, edited, write

from guandan_cli import simulate
from guandan_cli.logs import invariants, reader
from guandan_cli.logs.reader import HEAVY_FIELDS, LogLineError, ScanStats
from guandan_cli.reports import REPORTS, IncompleteRunWarning, load, run_report
from guandan_cli.reports.loading import HEAVY_DEAL_COLUMNS, RUN_ID_CATEGORICAL
from guandan_cli.runner import tasks

simulate_module = importlib.import_module("guandan_cli.runner.simulation")
COMMON = {"seed": 3, "strategies": "greedy,random", "max_deals": 4, "part_size": 4, "workers": 1}


def full_path(run: Path) -> tuple[pl.LazyFrame, pl.LazyFrame]:
    """Deals and matches as the loader read them before: all decoded and pattern-matched, then
    slimmed; block by block, as the loader keeps them (float sums then add in the same order)."""
    out = []
    for kind in ("deals", "matches"):
        frames = list(reader.checked_frames(reader.sources(run, kind), kind, trust_written=False))
        frames = [f.drop(HEAVY_DEAL_COLUMNS) if kind == "deals" else f for f in frames]
        out.append(pl.concat([f.lazy().with_columns(RUN_ID_CATEGORICAL) for f in frames]))
    return out[0], out[1]


def fast_path(run: Path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IncompleteRunWarning)
        return load(run)


def assert_same_as_full_path(run: Path) -> None:
    data = fast_path(run)
    deals, matches = full_path(run)
    assert_frame_equal(data.deals.collect(), deals.collect(), check_exact=True)
    assert_frame_equal(data.matches.collect(), matches.collect(), check_exact=True)
    assert data.deals.collect().height and data.matches.collect().height
    for name in REPORTS:
        new, old = run_report(name, data.deals, data.matches), run_report(name, deals, matches)
        # exact but for float rounding: a report's group-bys feed rows to the next one in an order
        # Polars' threads decide, so a sum of floats may differ in its last bit from one call to the next
        assert_frame_equal(new, old, rel_tol=1e-12, abs_tol=0)
        integers = [c for c, t in new.schema.items() if not t.is_float()]
        assert new.select(integers).equals(old.select(integers)), name


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("runs")
    out = {c: simulate(12, out=root / c, compression=c, **COMMON).path for c in ("none", "gzip", "zstd")}
    out["no manifest"] = write_run(root / "bare", matches=3, max_deals=5)
    return out


@pytest.mark.parametrize("name", ["none", "gzip", "zstd", "no manifest"])
def test_reports_equal_the_full_paths(runs, name):
    assert_same_as_full_path(runs[name])


def test_an_interrupted_runs_journaled_matches_read_the_same(tmp_path, monkeypatch):
    real = tasks.run_task

    def run_task(task):
        if task[1] == 6:
            raise KeyboardInterrupt
        return real(task)

    monkeypatch.setattr(tasks, "run_task", run_task)
    with pytest.raises(KeyboardInterrupt):
        simulate(12, out=tmp_path / "run", chunk_size=1, **COMMON)
    monkeypatch.setattr(tasks, "run_task", real)
    data = fast_path(tmp_path / "run")
    assert [c.journaled_matches for c in data.completeness] == [2]  # part 0 complete, matches 4-5 journaled
    assert data.matches.collect().get_column("match").to_list() == list(range(6))
    assert_same_as_full_path(tmp_path / "run")


def test_written_parts_are_not_pattern_matched_again(runs, monkeypatch):
    calls: list[str] = []
    real = reader.line_pattern
    monkeypatch.setattr(reader, "line_pattern", lambda kind: calls.append(kind) or real(kind))
    load(runs["none"])
    assert calls == []  # every part's digest is the manifest's
    load(runs["no manifest"])
    assert set(calls) == {"deals", "matches"}


def test_a_part_changed_after_it_was_written_is_checked_line_by_line(runs, tmp_path):
    run = Path(shutil.copytree(runs["none"], tmp_path / "run"))
    part = run / "deals-00001.jsonl"
    lines = part.read_text().splitlines()
    # valid JSON that Polars' lenient decoder would read as 3; the strict check names it
    lines[2] = lines[2].replace('"upgrade":3,', '"upgrade":3.0,').replace('"upgrade":2,', '"upgrade":2.0,')
    lines[2] = lines[2].replace('"upgrade":1,', '"upgrade":1.0,')
    part.write_text("\n".join(lines) + "\n")
    with pytest.raises(LogLineError) as info:
        load(run)
    assert (info.value.path, info.value.line) == (str(part), 3)
    assert "upgrade" in info.value.reason


@pytest.fixture(scope="module")
def lines():
    from report_fixtures import generate_lines

    return generate_lines(matches=3, max_deals=6, root=5, strategies=["random"] * 4)


def _odd_lines(deals: list[str]) -> list[str]:
    """Deal lines with bad and unusual ones: the light path must give the full path's verdicts."""
    record = json.loads(deals[1])
    hands = [h.split() for h in record["hands"]]
    third_copy = [list(h) for h in hands]
    third_copy[2][0] = third_copy[0][0]
    face = record["hands"][0][0]  # written as a \u escape: valid JSON, the same hand
    escaped = dumps(record).replace('"hands":["' + face, f'"hands":["\\u{ord(face):04x}', 1)
    assert escaped != dumps(record) and json.loads(escaped) == record
    actions = record["actions"]
    out = list(deals)
    out[1] = escaped
    out = edited(out, 2, hands=[" ".join(h[:26]) for h in hands])  # 26 cards
    out = edited(out, 3, hands=[" ".join(h) for h in third_copy])  # not two decks
    out = edited(out, 4, hands=record["hands"][:3])  # three hands
    out = edited(out, 5, actions=actions[1:])  # one action short, another seat leads
    out = edited(out, 6, actions=[])
    out = edited(out, 7, actions=["0"] + actions[1:])
    out = edited(out, 8, actions=['0 pass "quoted"'] + actions[1:])  # a backslash in the line
    out = edited(out, 9, strategies=["贪心", "random", "贪心", "random"])  # not ASCII
    out[10] = out[10].replace(",", ", ")  # valid JSON in another layout
    out[11] = out[11][:-40]  # not JSON
    return out


@pytest.mark.parametrize("chunk_bytes", [reader.CHUNK_BYTES, 3000])
def test_bad_and_unusual_lines_get_the_full_paths_verdicts(tmp_path, lines, chunk_bytes, monkeypatch):
    deals, matches = lines
    run = write(tmp_path / "run", _odd_lines(deals), matches)
    parts = reader.part_files(run, "deals")
    verdicts = []
    strict: list[bytes] = []
    real = reader.check_line
    monkeypatch.setattr(reader, "check_line", lambda raw, kind: strict.append(raw) or real(raw, kind))
    for without in ((), HEAVY_DEAL_COLUMNS):
        stats = ScanStats()
        strict.clear()
        frames = reader.checked_frames(
            parts, "deals", skip_bad=True, stats=stats, without=without, chunk_bytes=chunk_bytes
        )
        frame = pl.concat(list(frames)).drop(HEAVY_DEAL_COLUMNS, strict=False)
        verdicts.append((frame, [(b.line, b.reason) for b in stats.bad]))
        assert len(strict) == 2  # only the lines in another layout go line by line, escapes or not
    (full, full_bad), (light, light_bad) = verdicts
    assert light_bad == full_bad
    assert {line for line, _ in full_bad} >= {3, 4, 5, 6, 7, 8, 12}
    assert 2 not in {line for line, _ in full_bad}  # the escaped hand is a good hand
    assert light.equals(full) and light.height == len(deals) - len(full_bad)
    with pytest.raises(LogLineError) as a:
        list(reader.checked_frames(parts, "deals"))
    with pytest.raises(LogLineError) as b:
        list(reader.checked_frames(parts, "deals", without=HEAVY_FIELDS))
    assert str(a.value) == str(b.value)


def test_the_light_rules_are_the_full_rules_less_two_presence_checks():
    schema = reader.schema_of("deals")
    full = invariants.rules_for("deals", schema)
    light_columns = [c for c in schema if c not in HEAVY_FIELDS] + list(invariants.HEAVY_HELPERS)
    light = invariants.rules_for("deals", light_columns)
    # a line reaches the checks only with hands and actions present (pattern, check_line or the writer)
    kept = {c.message for c in light.rows}
    dropped = [c.message for c in full.rows if c.message not in kept]
    assert dropped == ["field 'hands' is missing or null", "field 'actions' is missing or null"]
    assert [c.message for c in light.sequence] == [c.message for c in full.sequence]
    assert len(light.rows) == len(full.rows) - 2


def test_sequence_checks_give_the_same_verdicts_whatever_the_blocks(tmp_path, lines):
    """Rows are compared with the row before them in their block, a block's first row with the
    previous block's last: the verdicts do not depend on where the blocks are cut."""
    deals, matches = lines
    second = [i for i, line in enumerate(deals) if json.loads(line)["deal"] == 2]
    edits = edited(deals, second[0], deal=3)  # a deal index skipped
    edits = edited(edits, second[1], levels_before=["A", "A"])  # not the previous deal's levels_after
    run = write(tmp_path / "run", edits, matches)
    parts = reader.part_files(run, "deals")
    verdicts = []
    for chunk_bytes in (reader.CHUNK_BYTES, 5000, 100):
        stats = ScanStats()
        frames = reader.checked_frames(
            parts, "deals", skip_bad=True, stats=stats, chunk_bytes=chunk_bytes, without=HEAVY_FIELDS
        )
        verdicts.append((pl.concat(list(frames)), [(b.line, b.reason) for b in stats.bad]))
    assert {line for line, _ in verdicts[0][1]} >= {second[0] + 1, second[1] + 1}
    for frame, bad in verdicts[1:]:
        assert bad == verdicts[0][1] and frame.equals(verdicts[0][0])


@pytest.mark.parametrize("name", ["gzip", "zstd"])
def test_compressed_parts_hashed_then_read_are_closed(runs, name):
    import gc

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ResourceWarning)
        load(runs[name])
        gc.collect()
    assert not [w for w in caught if issubclass(w.category, ResourceWarning)]

"""The log writer and reader: JSON lines, atomic parts, compression, the strict line checker."""

from __future__ import annotations

import gzip
import json

import pytest

from guandan_cli.logs import reader, schema, writer
from guandan_cli.logs.reader import LogLineError, ScanStats, check_file, part_files, scan_deals, scan_matches
from guandan_cli.logs.writer import PartWriter, dumps_line, part_name
from guandan_cli.runner.tasks import RunSpec, play_match


@pytest.fixture(scope="module")
def sample():
    """Deal and match lines of three short matches (random and greedy bots)."""
    spec = RunSpec("test", 5, ("random", "greedy", "random", "greedy"), max_deals=3)
    deals, matches = [], []
    for i in range(3):
        lines, mline, _facts = play_match(spec, i)
        deals += lines
        matches.append(mline)
    return deals, matches


def write_part(d, kind, index, lines, compression="none"):
    w = PartWriter(d / part_name(kind, index, compression), compression)
    for line in lines:
        w.write(line)
    return w.commit()


def test_record_keys_follow_the_declared_schema(sample):
    deals, matches = sample
    rec = json.loads(deals[0])
    assert list(rec) == [f for f, _k in schema.DEAL_FIELDS] == list(schema.deal_schema())
    mrec = json.loads(matches[0])
    assert list(mrec) == [f for f, _k in schema.MATCH_FIELDS] == list(schema.match_schema())
    assert rec["v"] == schema.SCHEMA_VERSION
    assert dumps_line(rec) == deals[0]


def test_part_writer_is_atomic_and_abortable(tmp_path):
    w = PartWriter(tmp_path / "deals-00000.jsonl")
    w.write(b'{"a":1}\n')
    assert [p.name for p in tmp_path.iterdir()] == ["deals-00000.jsonl.tmp"]
    with pytest.raises(reader.LogReadError, match="no deals parts"):
        part_files(tmp_path, "deals")  # a part being written is no part
    facts = w.commit()
    assert facts["lines"] == 1 and facts["file"] == "deals-00000.jsonl"
    assert [p.name for p in tmp_path.iterdir()] == ["deals-00000.jsonl"]
    w2 = PartWriter(tmp_path / "deals-00001.jsonl")
    w2.write(b"x\n")
    w2.abort()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["deals-00000.jsonl"]


@pytest.mark.parametrize("compression", ["gzip", "zstd"])
def test_compressed_bytes_do_not_depend_on_how_writes_are_split(tmp_path, sample, compression, monkeypatch):
    deals, _ = sample
    monkeypatch.setattr(writer, "BLOCK", 4096)  # several blocks per part
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir(), b.mkdir()
    write_part(a, "deals", 0, deals, compression)
    write_part(b, "deals", 0, [b"".join(deals[:2]), b"".join(deals[2:5]), b"".join(deals[5:])], compression)
    name = part_name("deals", 0, compression)
    assert (a / name).read_bytes() == (b / name).read_bytes()
    with reader.open_part(a / name) as fh:
        assert fh.read() == b"".join(deals)
    if compression == "gzip":
        assert (a / name).read_bytes()[4:8] == b"\0\0\0\0"  # mtime 0
        assert gzip.decompress((a / name).read_bytes()) == b"".join(deals)


@pytest.mark.parametrize("compression", ["none", "gzip", "zstd"])
def test_scan_reads_all_parts_with_the_declared_schema(tmp_path, sample, compression):
    deals, matches = sample
    tmp_path = tmp_path / "runs" / "one"
    tmp_path.mkdir(parents=True)
    half = len(deals) // 2
    write_part(tmp_path, "deals", 0, deals[:half], compression)
    write_part(tmp_path, "deals", 1, deals[half:], compression)
    write_part(tmp_path, "matches", 0, matches, compression)
    (tmp_path / "deals-00002.jsonl.tmp").write_bytes(b"garbage")  # a part being written: ignored
    df = scan_deals(tmp_path).collect()
    assert df.height == len(deals)
    assert df.schema == schema.deal_schema()
    assert df["deal_seed"].to_list() == [json.loads(x)["deal_seed"] for x in deals]
    m = scan_matches(tmp_path).collect()
    assert m.height == 3 and m.schema == schema.match_schema()
    # a directory of runs: one level down
    assert scan_deals(tmp_path.parent, check=False).collect().height == len(deals)


def test_checker_names_file_and_line_of_corrupt_and_truncated_lines(tmp_path, sample):
    deals, _ = sample
    bad = list(deals)
    bad[1] = b'{"v":1,"oops"\n'
    rec = json.loads(deals[2])
    del rec["hands"]
    bad[2] = dumps_line(rec)
    bad[3] = deals[3].replace(b'"v":%d' % schema.SCHEMA_VERSION, b'"v":99')
    bad[-1] = deals[-1][:50]  # truncated: no newline at the end
    path = tmp_path / "deals-00000.jsonl"
    path.write_bytes(b"".join(bad))
    check = check_file(path)
    got = [(b.line, b.reason.split(" ")[0]) for b in check.bad]
    assert got == [(2, "not"), (3, "not"), (4, "schema"), (len(deals), "truncated")]
    assert "missing hands" in check.bad[1].reason
    with pytest.raises(LogLineError) as err:
        scan_deals(tmp_path)
    assert str(err.value).startswith(f"{path}:2: not valid JSON")
    stats = ScanStats()
    df = scan_deals(tmp_path, skip_bad=True, stats=stats).collect()
    assert stats.skipped == 4 and df.height == len(deals) - 4
    assert [b.line for b in stats.bad] == [2, 3, 4, len(deals)]


@pytest.mark.parametrize("compression", ["gzip", "zstd"])
@pytest.mark.parametrize("keep", [0.5, 0.98])
def test_truncated_compressed_part_is_reported(tmp_path, sample, compression, keep):
    """A cut compressed part is an error, never a shorter part (zstd read a cut frame as empty)."""
    deals, _ = sample
    write_part(tmp_path, "deals", 0, deals, compression)
    path = tmp_path / part_name("deals", 0, compression)
    data = path.read_bytes()
    path.write_bytes(data[: int(len(data) * keep)])
    check = check_file(path)
    assert not check.ok
    assert "unreadable" in check.bad[-1].reason or "truncated" in check.bad[-1].reason
    with pytest.raises(LogLineError):
        scan_deals(path)


def test_part_files_errors(tmp_path):
    with pytest.raises(reader.LogReadError, match="no such file"):
        part_files(tmp_path / "nope", "deals")
    with pytest.raises(reader.LogReadError, match="no deals parts"):
        part_files(tmp_path, "deals")


def test_log_format_doc_covers_every_field_and_its_examples_are_valid():
    from pathlib import Path

    doc = (Path(__file__).resolve().parent.parent / "docs" / "log-format.md").read_text(encoding="utf-8")
    for name, _kinds in schema.DEAL_FIELDS + schema.MATCH_FIELDS:
        assert f"`{name}" in doc, name
    blocks = [b.split("```", 1)[0].strip() for b in doc.split("```json\n")[1:]]
    assert len(blocks) == 2
    deal, reason = reader.check_line((blocks[0] + "\n").encode(), "deals")
    assert reason is None and deal["v"] == schema.SCHEMA_VERSION
    match, reason = reader.check_line((blocks[1] + "\n").encode(), "matches")
    assert reason is None and match["match"] == deal["match"]


def test_importing_the_engine_and_the_runner_tasks_loads_no_polars():
    import subprocess
    import sys

    code = "import sys, guandan_cli, guandan_cli.engine, guandan_cli.runner.tasks; print('polars' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize(
    "raw, reason",
    [
        (b"\n", "a blank line"),
        (b"  \r\n", "a blank line"),
        (b'\xff\xfe{"v": 2}\n', "not UTF-8 text (byte 0xff at column 1)"),
        (b'{"v": "\xe9"}\n', "not UTF-8 text (byte 0xe9 at column 8)"),
        (b"{oops}\n", "not valid JSON (Expecting property name"),
        (b"[1]\n", "not a JSON object but list"),
    ],
)
def test_bad_lines_are_named_by_what_is_wrong(raw, reason):
    record, why = reader.check_line(raw, "deals")
    assert record is None and why.startswith(reason), why


def test_blank_and_binary_lines_in_a_run_name_file_and_line(tmp_path):
    from click.testing import CliRunner

    from guandan_cli.cli.app import app
    from guandan_cli.runner.simulation import simulate

    run = simulate(3, strategies="random", max_deals=2, out=tmp_path / "r", workers=1).path
    part = run / "deals-00000.jsonl"
    lines = part.read_bytes().count(b"\n")
    for extra, reason in ((b"\n\n", "a blank line"), (b"\xff\xfe{}\n", "not UTF-8 text")):
        damaged = tmp_path / "d" / "deals-00000.jsonl"
        damaged.parent.mkdir(exist_ok=True)
        damaged.write_bytes(part.read_bytes() + extra)
        result = CliRunner().invoke(app, ["analyze", str(damaged), "--report", "bombs"])
        assert result.exit_code != 0
        assert f"{damaged}:{lines + 1}: {reason}" in result.stderr, result.stderr

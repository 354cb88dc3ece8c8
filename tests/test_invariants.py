"""Impossible records refused on load: vectorised invariants, named by file and line, or skipped and counted.

Each bad line is hand-made from a real record (one field changed); real runs of every
kind (bots, rulesets, a_fail_limit, capped, errored matches, compressed parts, a match
split across parts) must pass untouched.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from bot_sources import BOOM
from click.testing import CliRunner
from report_fixtures import generate_lines

from guandan_cli.cli.app import app
from guandan_cli.logs import reader
from guandan_cli.logs.reader import LogLineError, ScanStats
from guandan_cli.reports import load


def write(directory: Path, deals: list[str], matches: list[str], compression: str = "none") -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    for kind, lines in (("deals", deals), ("matches", matches)):
        text = "".join(line + "\n" for line in lines).encode()
        if compression == "gzip":
            (directory / f"{kind}-00000.jsonl.gz").write_bytes(gzip.compress(text))
        else:
            (directory / f"{kind}-00000.jsonl").write_bytes(text)
    return directory


@pytest.fixture(scope="module")
def lines():
    """Deal and match lines of 4 matches (random self-play), up to 8 deals each."""
    return generate_lines(matches=4, max_deals=8, root=3, strategies=["random"] * 4)


def dumps(record: dict) -> str:
    return json.dumps(record, separators=(",", ":"), ensure_ascii=False)


def edited(lines: list[str], index: int, **changes) -> list[str]:
    out = list(lines)
    record = json.loads(out[index])
    for key, value in changes.items():
        if "__" in key:
            outer, inner = key.split("__")
            record[outer] = dict(record[outer], **{inner: value})
        else:
            record[key] = value
    out[index] = dumps(record)
    return out


def first_error(tmp_path: Path, deals: list[str], matches: list[str]) -> LogLineError:
    run = write(tmp_path / "run", deals, matches)
    with pytest.raises(LogLineError) as info:
        load(run)
    return info.value


def a_deal(lines, predicate) -> int:
    deals, _ = lines
    return next(i for i, line in enumerate(deals) if predicate(json.loads(line)))


# ------------------------------------------------------------------ real runs pass


@pytest.mark.parametrize(
    "options",
    [
        {"strategies": ["random"] * 4},
        {"strategies": ["greedy", "random"] * 2, "ruleset": "jiangsu2017"},
        {"strategies": ["random"] * 4, "ruleset": "jiangsu2017", "max_deals": 30},
    ],
)
def test_real_runs_pass(tmp_path, options):
    deals, matches = generate_lines(matches=3, root=7, **{"max_deals": 40, **options})
    run = write(tmp_path / "run", deals, matches)
    data = load(run)
    assert data.deals.collect().height == len(deals) and data.skipped == 0


def test_a_fail_limit_errored_matches_and_compression_pass(tmp_path):
    from guandan_cli.runner.tasks import RunSpec, play_match

    bot = tmp_path / "boom.py"
    bot.write_text(BOOM)
    deals, matches = [], []
    for strategies, a_fail in (((f"{bot}:Boom", "random") * 2, None), (("random",) * 4, 1)):
        spec = RunSpec("r", 11, strategies, max_deals=60, a_fail_limit=a_fail, on_error="record")
        for i in range(3):
            lines, mline, _facts = play_match(spec, i + 10 * len(matches))
            deals += [x.decode().rstrip("\n") for x in lines]
            matches.append(mline.decode().rstrip("\n"))
    records = [json.loads(m) for m in matches]
    assert any(r["error"] for r in records), "the run should hold an errored match"
    run = write(tmp_path / "run", deals, matches, compression="gzip")
    data = load(run)
    assert data.deals.collect().height == len(deals)
    assert data.matches.collect().height == len(matches)


def test_a_match_split_across_parts_passes(tmp_path, lines):
    deals, matches = lines
    run = tmp_path / "run"
    run.mkdir()
    (run / "deals-00000.jsonl").write_text("".join(x + "\n" for x in deals[:3]))
    (run / "deals-00001.jsonl").write_text("".join(x + "\n" for x in deals[3:]))
    (run / "matches-00000.jsonl").write_text("".join(x + "\n" for x in matches))
    assert load(run).deals.collect().height == len(deals)


def test_valid_json_in_another_layout_is_read_like_the_writers(tmp_path, lines):
    deals, matches = lines
    spaced = list(deals)
    spaced[2] = json.dumps(json.loads(deals[2]), indent=None)  # ", " and ": " separators
    plain = load(write(tmp_path / "a", deals, matches)).deals.collect()
    other = load(write(tmp_path / "b", spaced, matches)).deals.collect()
    assert other.equals(plain)


# ------------------------------------------------------------------ impossible records refused


@pytest.mark.parametrize(
    ("pick", "changes", "reason"),
    [
        (lambda r: True, {"upgrade": 7}, "upgrade 7 is not 1, 2 or 3"),
        (lambda r: True, {"finish_order": [0, 0, 1, 2]}, "finish_order [0,0,1,2] is not a permutation"),
        (lambda r: r["upgrade"] == 3, {"upgrade": 2}, "upgrade 2 does not follow finish_order"),
        (lambda r: not r["double_down"], {"double_down": True}, "double_down true does not follow"),
        (lambda r: True, {"winner_team": None}, "field 'winner_team' is null"),
        (lambda r: r["deal"] > 0, {"level": "Z"}, "levels out of range"),
        (lambda r: r["deal"] > 0, {"level_team": None}, "level_team null in deal"),
        (lambda r: True, {"v": 3}, "schema version 3"),
        (lambda r: True, {"ruleset": "poker"}, "unknown ruleset"),
        (lambda r: r["deal"] == 0, {"tribute__kind": "single"}, 'tribute kind "single" in deal 0'),
        (lambda r: True, {"first_leader": 4}, "first_leader 4 is not a seat"),
        (lambda r: not r["match_over"], {"match_winner": 0}, "match_winner 0 disagrees"),
        (lambda r: not r["match_over"], {"capped": True}, "a match is over exactly when won or capped"),
        (lambda r: True, {"derived__tricks": 0}, "at least 1 trick"),
    ],
)
def test_impossible_deal_records_are_named_by_file_and_line(tmp_path, lines, pick, changes, reason):
    deals, matches = lines
    index = a_deal(lines, pick)
    error = first_error(tmp_path, edited(deals, index, **changes), matches)
    assert error.path.endswith("deals-00000.jsonl") and error.line == index + 1
    assert reason in error.reason, error.reason


def test_levels_after_must_follow_the_upgrade(tmp_path, lines):
    deals, matches = lines
    index = a_deal(lines, lambda r: "A" not in r["levels_before"] and r["deal"] > 0)
    record = json.loads(deals[index])
    wrong = list(record["levels_after"])
    w = record["winner_team"]
    wrong[w] = record["levels_before"][w]  # the winner did not go up
    error = first_error(tmp_path, edited(deals, index, levels_after=wrong), matches)
    assert error.line == index + 1 and "levels_after" in error.reason


def test_hands_must_be_two_full_decks_of_27_card_hands(tmp_path, lines):
    deals, matches = lines
    record = json.loads(deals[0])
    short = [h for h in record["hands"]]
    short[1] = " ".join(short[1].split()[:26])
    error = first_error(tmp_path, edited(deals, 0, hands=short), matches)
    assert error.line == 1 and "4 hands of 27 cards" in error.reason
    # 27 cards each, but a third copy of a card (and one card missing)
    hands = [h.split() for h in record["hands"]]
    hands[2][0] = hands[0][0]
    error = first_error(tmp_path, edited(deals, 0, hands=[" ".join(h) for h in hands]), matches)
    assert error.line == 1 and "two full decks" in error.reason


def test_deal_indices_are_contiguous_within_a_match(tmp_path, lines):
    deals, matches = lines
    index = a_deal(lines, lambda r: r["deal"] == 2)
    gap = deals[:index] + deals[index + 1 :]  # deal 2 missing: deal 3 follows deal 1
    error = first_error(tmp_path, gap, matches)
    assert error.line == index + 1 and "follows its deal 1" in error.reason
    start = a_deal(lines, lambda r: r["match"] == 1 and r["deal"] == 0)
    error = first_error(tmp_path, deals[:start] + deals[start + 1 :], matches)
    assert error.line == start + 1 and "starts at deal 1" in error.reason


def test_levels_carry_over_from_one_deal_to_the_next(tmp_path, lines):
    deals, matches = lines
    index = a_deal(lines, lambda r: r["deal"] == 1)
    error = first_error(tmp_path, edited(deals, index, levels_before=["K", "K"], level="K"), matches)
    assert error.line == index + 1
    assert "levels_before" in error.reason


def test_impossible_match_records(tmp_path, lines):
    deals, matches = lines
    record = json.loads(matches[1])
    bad = list(matches)
    bad[1] = dumps(dict(record, winner=1, capped=False, final_levels=["3", "5"]))
    error = first_error(tmp_path, deals, bad)
    assert error.path.endswith("matches-00000.jsonl") and error.line == 2
    assert "winner 1 disagrees with final_levels" in error.reason


def test_strict_json_kinds_are_kept(tmp_path, lines):
    deals, matches = lines
    for text, reason in (
        (deals[0].replace('"upgrade":', '"upgrade":2.0,"x":', 1), "unknown x"),
        (deals[0][:-1] + ',"extra":1}', "unknown extra"),
        (
            deals[0].replace('"capped":false', '"capped":0', 1).replace('"capped":true', '"capped":1', 1),
            "capped",
        ),
    ):
        error = first_error(tmp_path, [text, *deals[1:]], matches)
        assert error.line == 1 and reason in error.reason, error.reason


def test_skip_bad_leaves_out_and_counts_every_bad_line(tmp_path, lines):
    deals, matches = lines
    bad = edited(deals, 1, upgrade=7)
    bad = edited(bad, 4, finish_order=[0, 0, 1, 2])
    bad[6] = bad[6][:40]  # corrupt JSON
    run = write(tmp_path / "run", bad, matches)
    data = load(run, skip_bad=True)
    assert data.skipped == 3
    assert sorted(b.line for b in data.stats.bad) == [2, 5, 7]
    assert data.deals.collect().height == len(deals) - 3
    res = CliRunner().invoke(app, ["analyze", str(run), "-r", "jiefeng", "--skip-bad", "-f", "json"])
    assert res.exit_code == 0, res.output
    assert "skipped 3 bad line(s)" in res.stderr
    assert json.loads(res.stdout)["jiefeng"][0]["deals"] == len(deals) - 3


def test_analyze_names_the_impossible_line_and_exits_1(tmp_path, lines):
    deals, matches = lines
    run = write(tmp_path / "run", edited(deals, 3, upgrade=7), matches)
    res = CliRunner().invoke(app, ["analyze", str(run), "-r", "jiefeng"])
    assert res.exit_code == 1
    assert res.stderr.splitlines() == [
        f"guandan: error: {run / 'deals-00000.jsonl'}:4: upgrade 7 is not 1, 2 or 3"
    ]


def test_every_check_applies_to_a_full_record():
    from guandan_cli.logs import invariants

    for kind in ("deals", "matches"):
        full = invariants.rules_for(kind)
        kept = invariants.rules_for(kind, reader.schema_of(kind))
        assert (len(kept.rows), len(kept.sequence), len(kept.computed)) == (
            len(full.rows),
            len(full.sequence),
            len(full.computed),
        )


def test_scan_checks_too_and_blocks_are_located_whatever_the_chunk_size(tmp_path, lines):
    deals, matches = lines
    run = write(tmp_path / "run", edited(deals, 9, upgrade=7), matches)
    with pytest.raises(LogLineError, match=r"deals-00000.jsonl:10: upgrade 7"):
        reader.scan_deals(run)
    for chunk in (100, 5000):  # a block of less than one line, of a few lines
        stats = ScanStats()
        frames = list(
            reader.checked_frames(
                reader.part_files(run, "deals"), "deals", skip_bad=True, stats=stats, chunk_bytes=chunk
            )
        )
        assert [b.line for b in stats.bad] == [10]
        assert sum(f.height for f in frames) == len(deals) - 1

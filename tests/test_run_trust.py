"""Nothing a run did not write is accepted (issue 26, findings 5-8).

- ``--resume`` refuses a journal of another run (its identity: run_id, config digest, the
  run directory's instance, part) and a journal entry resealed around a record that is not
  valid (``S3DH3``) or whose facts its records contradict, in one line each; a journal of
  an earlier version (no identity) is checked, kept and said so.
- ``verify`` checks every count of the manifest against the records.
- ``analyze`` refuses a part whose sha256 is not the manifest's (or with ``--skip-bad``
  leaves it out with a note), and a match record its last deal line contradicts.
- ``--resume`` of a complete run whose part was truncated says so, and
  ``--replay-damaged`` plays it again to the same bytes.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from guandan_cli import simulate
from guandan_cli.cli.app import app
from guandan_cli.logs.journal import MAGIC, read_journal
from guandan_cli.logs.layout import journal_path
from guandan_cli.runner import tasks

runner = CliRunner()
N, PART = 20, 10
CAPPED = {"strategies": "random", "max_deals": 2, "part_size": PART, "progress": False, "workers": 1}


def _parts(run: Path) -> dict[str, bytes]:
    return {
        p.name: p.read_bytes()
        for p in sorted(run.iterdir())
        if p.name.startswith(("deals-", "matches-")) and not p.name.endswith(".damaged")
    }


def _interrupted(out: Path, seed: int, at: int) -> Path:
    """A run of ``N`` matches stopped at match ``at``: part 0 complete, part 1 journaled up to ``at``."""
    real = tasks.run_task

    def run_task(task):
        if task[1] <= at < task[2]:
            raise KeyboardInterrupt
        return real(task)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(tasks, "run_task", run_task)
        with pytest.raises(KeyboardInterrupt):
            simulate(N, seed=seed, out=out, chunk_size=2, **CAPPED)
    assert journal_path(out, 1).is_file()
    return out


@pytest.fixture(scope="module")
def stopped(tmp_path_factory) -> dict[str, Path]:
    """Seed 11 stopped at match 18, the same again in another folder, seed 12 likewise, seed 11 whole."""
    base = tmp_path_factory.mktemp("stopped")
    return {
        "s11": _interrupted(base / "s11", 11, 18),
        "s11_elsewhere": _interrupted(base / "s11b", 11, 18),
        "s12": _interrupted(base / "s12", 12, 18),
        "whole": simulate(N, seed=11, out=base / "whole", **CAPPED).path,
    }


def _copy(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst)
    return dst


def _resume(out: Path, *more: str):
    return runner.invoke(app, ["simulate", "--out", str(out), "--resume", "-w", "1", "-q", *more])


def _reseal(path: Path, edit) -> None:
    """Rewrite the journal at ``path`` with ``edit(header, deals, matches)`` applied to its first
    entry and every digest recomputed (valid digests, as a hand or a bug could leave them)."""
    data, entries = read_journal(path)
    out = bytearray(data[: entries[0].entry_offset])
    for n, e in enumerate(entries):
        header = json.loads(data[e.entry_offset : e.offset - 1].split(b" ", 1)[1])
        deals = data[e.offset : e.offset + e.deal_bytes]
        matches = data[e.offset + e.deal_bytes : e.offset + e.deal_bytes + e.match_bytes]
        if n == 0:
            header, deals, matches = edit(header, deals, matches)
            header |= {"deal_bytes": len(deals), "match_bytes": len(matches)}
        head = json.dumps(header, separators=(",", ":")).encode()
        digest = hashlib.sha256(head + b"\n" + deals + matches).hexdigest().encode()
        out += digest + b" " + head + b"\n" + deals + matches
    path.write_bytes(bytes(out))


# ------------------------------------------------------------------ finding 5: journals


def test_a_journal_of_another_run_is_refused_in_one_line(stopped, tmp_path):
    out = _copy(stopped["s11"], tmp_path / "run")
    shutil.copy(journal_path(stopped["s12"], 1), journal_path(out, 1))  # valid digests, seed 12
    res = _resume(out)
    assert res.exit_code == 2, res.output
    lines = res.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        f"guandan: error: {journal_path(out, 1)}: not this run's journal: its run_id is "
    )
    assert "(another run's journal)" in lines[0] and "delete it to play its matches again" in lines[0]
    assert not (out / "deals-00001.jsonl").exists()  # nothing finalised
    assert json.loads((out / "manifest.json").read_text())["state"] != "complete"


def test_a_journal_of_the_same_config_in_another_folder_is_refused(stopped, tmp_path):
    out = _copy(stopped["s11"], tmp_path / "run")
    shutil.copy(journal_path(stopped["s11_elsewhere"], 1), journal_path(out, 1))
    res = _resume(out)
    assert res.exit_code == 2 and "(written in another run directory)" in res.stderr, res.output


def test_another_part_s_journal_is_refused(stopped, tmp_path):
    out = _copy(stopped["s11"], tmp_path / "run")
    path = journal_path(out, 1)
    path.write_bytes(path.read_bytes().replace(b'"part":1}', b'"part":0}', 1))  # as if part 0's
    res = _resume(out)
    assert res.exit_code == 2, res.output
    assert "its part is 0, this run's is 1 (another part's journal)" in res.stderr, res.output


def test_a_resealed_entry_with_a_malformed_card_is_refused(stopped, tmp_path):
    out = _copy(stopped["s11"], tmp_path / "run")

    def bad_card(header, deals, matches):
        first = deals.index(b'"hands":["') + len(b'"hands":["')
        return header, deals[:first] + b"S3DH3 " + deals[first + 3 :], matches  # a token replaced

    _reseal(journal_path(out, 1), bad_card)
    res = _resume(out)
    assert res.exit_code == 2, res.output
    lines = res.stderr.splitlines()
    assert (
        len(lines) == 1
        and f"{journal_path(out, 1)}: not what this run wrote: entry 1 (matches 10..11): " in lines[0]
    )
    assert f"{journal_path(out, 1)}[deals]:1: hands are not 4 hands of 27 cards" in lines[0]
    assert not (out / "deals-00001.jsonl").exists()
    assert "deals-00001.jsonl" not in json.dumps(json.loads((out / "manifest.json").read_text())["parts"])


@pytest.mark.parametrize(
    ("edit", "said"),
    [
        (
            lambda h, d, m: (h | {"wins": [2, 0]}, d, m),
            "its header says wins [2, 0], its records give [0, 0]",
        ),
        (lambda h, d, m: (h | {"deals": 1}, d, m), "its header says deals 1, its records give 4"),
        (
            lambda h, d, m: (h, d, m.replace(b'"deals":2,', b'"deals":1,', 1)),
            "match 10: its match record says 1 deals, the journal has 2",
        ),
    ],
)
def test_a_resealed_entry_whose_facts_its_records_contradict_is_refused(stopped, tmp_path, edit, said):
    out = _copy(stopped["s11"], tmp_path / "run")
    _reseal(journal_path(out, 1), edit)
    res = _resume(out)
    assert res.exit_code == 2, res.output
    assert "not what this run wrote: entry 1 (matches 10..11): " in res.stderr
    assert said in res.stderr, res.stderr


def test_a_journal_of_an_earlier_version_is_checked_kept_and_said(stopped, tmp_path):
    out = _copy(stopped["s11"], tmp_path / "run")
    path = journal_path(out, 1)
    data = path.read_bytes()
    path.write_bytes(MAGIC + data[data.index(b"\n") + 1 :])  # format 1: no identity
    res = _resume(out)
    assert res.exit_code == 0, res.output
    assert res.stderr.splitlines() == [
        f"note: {path}: written by an earlier guandan without the run's identity; its 8 matches "
        "were checked as records and kept"
    ]
    assert _parts(out) == _parts(stopped["whole"])


def test_a_resumed_run_is_the_uninterrupted_one(stopped, tmp_path):
    out = _copy(stopped["s11"], tmp_path / "run")
    res = _resume(out)
    assert res.exit_code == 0 and res.stderr == "", res.output
    assert _parts(out) == _parts(stopped["whole"])
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["instance"] == json.loads((stopped["s11"] / "manifest.json").read_text())["instance"]


# ------------------------------------------------------------------ finding 6: verify's counts


@pytest.fixture(scope="module")
def decided(tmp_path_factory) -> Path:
    """12 matches played to the end (winners, levels), in parts of 6."""
    return simulate(
        12, seed=5, strategies="random", part_size=6, workers=1, out=tmp_path_factory.mktemp("d") / "run"
    ).path


def _edit_manifest(run: Path, change) -> dict:
    manifest = json.loads((run / "manifest.json").read_text())
    change(manifest)
    (run / "manifest.json").write_text(json.dumps(manifest))
    return manifest


@pytest.mark.parametrize(
    "field",
    ["counts.wins", "counts.matches", "parts[].wins", "parts[].deals", "parts[].matches", "counts.deals"],
)
def test_verify_checks_every_count_of_the_manifest(decided, tmp_path, field):
    run = _copy(decided, tmp_path / "run")
    truth = json.loads((run / "manifest.json").read_text())
    counts, part = truth["counts"], truth["parts"][1]
    edits = {
        "counts.wins": (
            lambda m: m["counts"].update(wins=[12, 0]),
            f"counts.wins is [12, 0], the records give {counts['wins']}",
        ),
        "counts.matches": (
            lambda m: m["counts"].update(matches=13),
            "counts.matches is 13, the records give 12",
        ),
        "counts.deals": (
            lambda m: m["counts"].update(deals=1),
            f"counts.deals is 1, the records give {counts['deals']}",
        ),
        "parts[].wins": (
            lambda m: m["parts"][1].update(wins=[6, 0]),
            f"parts[1].wins is [6, 0], the records give {part['wins']}",
        ),
        "parts[].deals": (
            lambda m: m["parts"][1].update(deals=3),
            f"parts[1].deals is 3, the records give {part['deals']}",
        ),
        "parts[].matches": (
            lambda m: m["parts"][1].update(matches=5),
            "parts[1].matches is 5, the records give 6",
        ),
    }
    change, line = edits[field]
    _edit_manifest(run, change)
    res = runner.invoke(app, ["verify", str(run), "-q", "-w", "1"])
    assert res.exit_code == 1, res.output
    assert res.stdout.splitlines()[:-1] == [f"{run / 'manifest.json'}: {line}"]


def test_verify_of_an_intact_run_finds_every_count_right(decided):
    res = runner.invoke(app, ["verify", str(decided), "-q", "-w", "1"])
    assert res.exit_code == 0 and res.stdout.rstrip().endswith(")") and ": ok" in res.stdout, res.output


# ------------------------------------------------------------------ finding 7: analyze


def _drop_match(run: Path, match: int) -> None:
    """Remove every line of ``match`` from its part (both kinds): each line left is valid, the bytes changed."""
    for kind in ("deals", "matches"):
        f = run / f"{kind}-00001.jsonl"
        f.write_text(
            "".join(x for x in f.read_text().splitlines(keepends=True) if f'"match":{match},' not in x)
        )


def test_analyze_refuses_a_part_whose_sha256_is_not_the_manifest_s(decided, tmp_path):
    run = _copy(decided, tmp_path / "run")
    _drop_match(run, 8)
    res = runner.invoke(app, ["analyze", str(run), "-r", "match-length"])
    assert res.exit_code == 1, res.output
    lines = res.stderr.splitlines()
    want = json.loads((run / "manifest.json").read_text())["parts"][1]["deals_file"]["sha256"]
    got = hashlib.sha256((run / "deals-00001.jsonl").read_bytes()).hexdigest()
    assert lines == [
        f"guandan: error: {run / 'deals-00001.jsonl'}: changed since it was written: its sha256 is {got}, "
        f"the manifest records {want} (and 1 more part); guandan verify {run} names what changed "
        "(or analyze --skip-bad leaves it out)"
    ]


def test_analyze_skip_bad_leaves_a_changed_part_out_with_a_note(decided, tmp_path):
    run = _copy(decided, tmp_path / "run")
    _drop_match(run, 8)
    res = runner.invoke(app, ["analyze", str(run), "-r", "match-length", "--skip-bad", "-f", "json"])
    assert res.exit_code == 0, res.output
    notes = [x for x in res.stderr.splitlines() if x.startswith("note:")]
    assert [n.split(":")[1].strip() for n in notes] == [
        str(run / "deals-00001.jsonl"),
        str(run / "matches-00001.jsonl"),
    ]
    assert all("left out (--skip-bad), matches 6..11: its sha256" in n for n in notes)
    lengths = json.loads(res.stdout)["match-length"]
    assert [row["matches"] for row in lengths if row["status"] == "all"] == [6]  # part 0 only


def _edit_record(run: Path, line: int, change) -> None:
    f = run / "matches-00000.jsonl"
    lines = f.read_text().splitlines(keepends=True)
    rec = json.loads(lines[line - 1])
    change(rec)
    lines[line - 1] = json.dumps(rec, separators=(",", ":")) + "\n"
    f.write_text("".join(lines))


def _flip_winner(rec):
    rec["winner"] = 1 - rec["winner"]
    rec["final_levels"] = rec["final_levels"][::-1]  # still consistent on its own: the winner at A+


def _swap_levels(rec):
    loser = 1 - rec["winner"]
    rec["final_levels"][loser] = "K" if rec["final_levels"][loser] != "K" else "Q"


@pytest.mark.parametrize(("change", "said"), [(_flip_winner, "winner is"), (_swap_levels, "final_levels is")])
def test_analyze_cross_checks_a_match_record_with_its_last_deal(decided, tmp_path, change, said):
    run = _copy(decided, tmp_path / "run")
    _edit_record(run, 3, change)
    res = runner.invoke(app, ["analyze", str(run), "-r", "match-length"])
    assert res.exit_code == 1, res.output
    lines = res.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        f"guandan: error: {run / 'matches-00000.jsonl'}:3: match 2: "
    )
    assert said in lines[0] and "its last deal (deal " in lines[0]


# ------------------------------------------------------------------ finding 8: a complete run's parts


def test_resume_of_a_complete_run_with_a_truncated_part_says_so_and_replays_it(stopped, tmp_path):
    out = _copy(stopped["whole"], tmp_path / "run")
    part = out / "deals-00001.jsonl"
    size = part.stat().st_size
    with open(part, "r+b") as fh:
        fh.truncate(1000)
    res = _resume(out)
    assert res.exit_code == 2, res.output
    assert res.stderr.splitlines() == [
        f"guandan: error: {out}: 1 complete part no longer matches the manifest (part 1: "
        f"deals-00001.jsonl truncated (1000 bytes, the manifest records {size})); play it again from "
        f"the seeds with: guandan simulate --out {out} --resume --replay-damaged (the damaged files are "
        "kept as NAME.damaged)"
    ]
    res = _resume(out, "--replay-damaged")
    assert res.exit_code == 0, res.output
    assert _parts(out) == _parts(stopped["whole"])
    assert (out / "deals-00001.jsonl.damaged").stat().st_size == 1000
    res = runner.invoke(app, ["simulate", "--out", str(out), "--resume", "-w", "1"])
    assert res.exit_code == 0 and "already complete" in res.output, res.output


def test_resume_of_a_complete_run_with_an_edited_part_names_it(stopped, tmp_path):
    out = _copy(stopped["whole"], tmp_path / "run")
    part = out / "matches-00000.jsonl"
    part.write_bytes(part.read_bytes().replace(b'"capped":true', b'"capped":True', 1))  # same size
    res = _resume(out)
    assert res.exit_code == 2 and "part 0: matches-00000.jsonl changed (sha256 " in res.stderr, res.output


def test_replay_damaged_goes_with_resume(tmp_path):
    res = runner.invoke(app, ["simulate", "--out", str(tmp_path / "x"), "--replay-damaged", "-q"])
    assert res.exit_code == 2
    assert res.stderr.splitlines() == [
        "guandan: error: replay_damaged (--replay-damaged) goes with resume (--resume)"
    ]


def test_resume_of_a_complete_run_missing_a_part_says_so_and_plays_it_again(stopped, tmp_path):
    out = _copy(stopped["whole"], tmp_path / "run")
    (out / "matches-00001.jsonl").unlink()
    res = _resume(out)
    assert res.exit_code == 0, res.output
    assert res.stderr.splitlines() == [
        f"note: {out}: part 1 listed in the manifest is missing (matches-00001.jsonl): playing it again from the seeds"
    ]
    assert _parts(out) == _parts(stopped["whole"])

"""A run whose deal lines and match records disagree is refused by analyze, not reported on.

A deals part cut short by hand (whole lines removed, so every line left is valid) or
emptied used to give match reports over all matches and deal reports over fewer, with
exit 0 and no word.
"""

from __future__ import annotations

import json
import shutil

import pytest
from click.testing import CliRunner
from report_fixtures import small_run  # noqa: F401  (fixture)

from guandan_cli.cli.app import app
from guandan_cli.reports import LogMismatchError, load

runner = CliRunner()


def _cut(run, keep: int) -> tuple[int, int]:
    """Keep the first ``keep`` deal lines; the (match, its deal count) of the first match cut."""
    part = run / "deals-00000.jsonl"
    lines = part.read_text().splitlines(keepends=True)
    part.write_text("".join(lines[:keep]))
    first_cut = json.loads(lines[keep])["match"]
    records = [json.loads(x) for x in (run / "matches-00000.jsonl").read_text().splitlines()]
    return first_cut, next(r["deals"] for r in records if r["match"] == first_cut)


@pytest.mark.parametrize("keep", [0, 3])
def test_a_deals_part_cut_short_is_a_failure_naming_run_and_match(small_run, tmp_path, keep):  # noqa: F811
    run = tmp_path / "run"
    shutil.copytree(small_run, run)
    match, said = _cut(run, keep)
    with pytest.raises(LogMismatchError, match=rf"{run}: match {match}: its match record says {said} deals"):
        load(run)
    res = runner.invoke(app, ["analyze", str(run)])
    assert res.exit_code == 1, res.output
    lines = res.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"guandan: error: {run}: match {match}: "), lines


def test_an_intact_run_and_deal_parts_alone_are_accepted(small_run):  # noqa: F811
    assert load(small_run).matches.collect().height == 4
    assert load(small_run / "deals-00000.jsonl").deals.collect().height > 4


def test_a_run_of_a_newer_schema_is_refused_in_one_line(small_run, tmp_path):  # noqa: F811
    from guandan_cli import simulate

    run = simulate(2, seed=1, strategies="random", max_deals=2, workers=1, out=tmp_path / "r")
    manifest = json.loads((run.path / "manifest.json").read_text())
    manifest["schema_version"] = 9
    (run.path / "manifest.json").write_text(json.dumps(manifest))
    for command in ("analyze", "verify"):
        res = runner.invoke(app, [command, str(run.path)])
        lines = res.stderr.splitlines()
        assert (
            res.exit_code == 2
            and len(lines) == 1
            and "log schema 9 was written by a newer guandan" in lines[0]
        )


def test_verify_with_nothing_complete_says_so_instead_of_ok(tmp_path):
    """A run stopped before its first part was complete: nothing is verified, and verify says so."""
    from guandan_cli import simulate

    run = simulate(3, seed=1, strategies="random", max_deals=2, workers=1, out=tmp_path / "r")
    for f in run.path.glob("*-00000.jsonl"):
        f.unlink()  # as if the run had stopped before writing its only part:
    manifest = json.loads((run.path / "manifest.json").read_text())  # which it then does not list
    (run.path / "manifest.json").write_text(json.dumps(manifest | {"state": "interrupted", "parts": []}))
    res = runner.invoke(app, ["verify", str(run.path), "-q"])
    lines = res.stderr.splitlines()
    assert res.exit_code == 1 and len(lines) == 1 and "nothing to verify" in lines[0], res.output

"""`verify` and `analyze` read every listed part once: a part gone is a problem, a run given twice counts once."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from guandan_cli.cli.app import app
from guandan_cli.logreaders.verify import ALONE, verify
from guandan_cli.reports import load

runner = CliRunner()


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


@pytest.fixture(scope="module")
def run6(tmp_path_factory) -> Path:
    """A simulated run of 6 matches in 3 parts (do not modify)."""
    out = tmp_path_factory.mktemp("src") / "run"
    res = invoke(
        "simulate", "-n", 6, "--seed", 5, "-s", "random", "--max-deals", 3, "-w", 1, "--part-size", 2, "-q",
        "-o", out,
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    return out


@pytest.fixture
def run_copy(run6, tmp_path) -> Path:
    return Path(shutil.copytree(run6, tmp_path / "run"))


def _manifest(run: Path) -> dict:
    return json.loads((run / "manifest.json").read_text())


def test_a_listed_part_gone_is_a_problem(run_copy):
    (run_copy / "deals-00001.jsonl").unlink()
    report = verify(run_copy)
    assert [str(p) for p in report.problems] == [
        f"{run_copy}: part 1 listed in the manifest is missing: deals-00001.jsonl"
    ]
    res = invoke("verify", run_copy, "-w", 1)
    assert res.exit_code == 1 and "part 1 listed in the manifest is missing: deals-00001.jsonl" in res.output


def test_a_folder_in_a_listed_part_s_place_is_a_problem(run_copy):
    (run_copy / "matches-00002.jsonl").unlink()
    (run_copy / "matches-00002.jsonl").mkdir()
    problems = [str(p) for p in verify(run_copy).problems]
    assert problems == [f"{run_copy}: part 2 listed in the manifest is not a file: matches-00002.jsonl"]


def test_every_part_gone_is_a_problem_each(run_copy):
    for f in run_copy.glob("*.jsonl"):
        f.unlink()
    problems = verify(run_copy).problems
    assert len(problems) == 6 and all("listed in the manifest is missing" in p.reason for p in problems)


def test_a_part_given_alone_does_not_ask_for_the_others(run_copy):
    report = verify(run_copy / "deals-00001.jsonl")
    assert report.ok and report.matches == 2


def test_a_run_given_twice_is_verified_once(run6):
    once = verify(run6)
    for paths in ([run6, run6], [run6, f"{run6}/"], [run6, run6 / "deals-00001.jsonl"], [run6.parent, run6]):
        twice = verify(paths)
        assert twice.ok, paths
        assert (twice.matches, twice.deals, twice.files) == (once.matches, once.deals, once.files), paths


def _matches(res) -> int:
    return json.loads(res.stdout)["match-length"][0]["matches"]


def test_analyze_reads_a_run_given_twice_once(run6):
    one = invoke("analyze", run6, "-r", "match-length", "-f", "json")
    assert _matches(one) == 6
    for args in ([run6, run6], [run6, f"{run6}/"], [run6, run6 / "deals-00001.jsonl"], [run6.parent, run6]):
        res = invoke("analyze", *args, "-r", "match-length", "-f", "json")
        assert res.exit_code == 0, res.output
        assert _matches(res) == 6, args
    assert load(run6, run6).deals.collect().height == load(run6).deals.collect().height


def test_analyze_refuses_two_copies_of_one_run(run6, tmp_path):
    copy = shutil.copytree(run6, tmp_path / "copy")
    res = invoke("analyze", run6, copy, "-r", "match-length")
    assert res.exit_code == 2
    err = res.stderr.strip()
    assert len(err.splitlines()) == 1
    assert err.startswith(
        f"guandan: error: {run6} and {copy} hold the same run (run_id {_manifest(run6)['run_id']})"
    )


def test_parts_without_a_manifest_say_the_sha256_checks_were_skipped(tmp_path):
    """QA: parts copied without their manifest verified "ok" with no word that nothing was
    compared with a sha256. One note on stderr; the exit code is still 0."""
    run_copy = tmp_path / "run"  # not capped: no option read from the lines, so no second note
    assert invoke("simulate", "-n", 2, "-s", "random", "-w", 1, "-q", "-o", run_copy).exit_code == 0
    (run_copy / "manifest.json").unlink()
    for given in (run_copy, run_copy / "deals-00000.jsonl"):
        res = invoke("verify", given, "-q", "-w", 1)
        assert res.exit_code == 0, res.output
        assert res.stdout.splitlines()[-1].startswith("verified ") and ": ok" in res.stdout
        assert res.stderr.splitlines() == [
            f"note: no manifest in {run_copy}: sha256 checks skipped "
            "(and the lines' run_id, seeds and strategies are not checked against one)"
        ]
    assert verify(run_copy).no_manifest == [str(run_copy)]


_NOTE = "sha256 checks skipped (and the lines' run_id, seeds and strategies are not checked against one)"


def test_a_capped_run_without_its_manifest_verifies_ok(run_copy):
    """QA: a run capped by --max-deals, verified without its manifest, had two problems on each
    capped deal (match_over, capped: the replay knew no cap). The cap is read from the capped
    deals (deal 2 capped: max_deals 3) and said in the note."""
    (run_copy / "manifest.json").unlink()
    res = invoke("verify", run_copy, "-q", "-w", 1)
    assert res.exit_code == 0, res.output
    assert res.stdout.splitlines()[-1].startswith("verified 18 deals and 6 matches") and ": ok" in res.stdout
    assert res.stderr.splitlines() == [
        f"note: no manifest in {run_copy}: {_NOTE}",
        f"note: no manifest in {run_copy}: replayed with max_deals 3 (from its capped deals)",
    ]
    assert verify(run_copy).inferred == {str(run_copy): {"max_deals": 3}}


def test_an_a_fail_limit_run_without_its_manifest_verifies_ok(tmp_path):
    """The same for --a-fail-limit: a level sent back to 2 was a problem on levels_after."""
    run = tmp_path / "run"
    args = ("simulate", "-n", 2, "--seed", 1, "-s", "random", "--a-fail-limit", 1, "--max-deals", 12, "-w", 1)
    assert invoke(*args, "-q", "-o", run).exit_code == 0
    (run / "manifest.json").unlink()
    report = verify(run)
    assert report.ok, [str(p) for p in report.problems]
    assert report.inferred == {str(run): {"max_deals": 12, "a_fail_limit": 1}}
    res = invoke("verify", run, "-q", "-w", 1)
    assert res.exit_code == 0, res.output
    assert res.stderr.splitlines()[-1] == (
        f"note: no manifest in {run}: replayed with max_deals 12 (from its capped deals), "
        "a_fail_limit 1 (from its levels sent back to 2 at A)"
    )


def test_a_wrong_cap_is_still_a_problem_without_a_manifest(run_copy):
    """The cap is the one most capped deals give: a deal capped too early, or a capped deal
    edited to uncapped, is reported against it (and the match record against its last deal)."""
    (run_copy / "manifest.json").unlink()
    part = run_copy / "deals-00000.jsonl"
    lines = part.read_text().splitlines(keepends=True)
    assert '"deal":2,' in lines[2] and '"capped":true' in lines[2]
    assert '"deal":0,' in lines[3] and '"capped":false' in lines[3]
    lines[2] = lines[2].replace('"capped":true', '"capped":false')
    lines[3] = lines[3].replace('"capped":false', '"capped":true')
    part.write_text("".join(lines))
    report = verify(run_copy)
    assert [str(p) for p in report.problems] == [
        f"{part}:3: match 0 deal 2: capped is False, the replay gives True",
        f"{part}:4: match 1 deal 0: capped is True, the replay gives False",
        f"{run_copy / 'matches-00000.jsonl'}:1: match 0: capped is True, the last deal gives False",
    ]
    assert report.inferred == {str(run_copy): {"max_deals": 3}}


@pytest.mark.parametrize(
    ("experiment", "arm", "options"),
    [
        ("tribute", "with-tribute", {}),
        ("tribute", "without-tribute", {}),  # tribute off: no tribute in any line, none rebuilt
        ("resistance", "resisted", {}),
        ("resistance", "paid", {"tribute": "paid"}),
    ],
)
def test_an_experiment_arm_without_its_manifest_verifies_ok(tmp_path, experiment, arm, options):
    """A setups run (an experiment's arm) without its manifest: every deal was checked as deal 0
    of a fresh match (level_team, tribute, illegal payments), and a paid arm's tribute as
    resisted. Its deals are replayed each on its own, with tribute paid where a side holding
    both HR paid."""
    out = tmp_path / "exp"
    assert invoke("experiment", experiment, "-n", 4, "-s", "random", "-w", 1, "-q", "-o", out).exit_code == 0
    run = out / arm
    (run / "manifest.json").unlink()
    report = verify(run)
    assert report.ok, [str(p) for p in report.problems]
    assert report.inferred == {str(run): {"max_deals": 1, "setups": ALONE, **options}}
    res = invoke("verify", run, "-q", "-w", 1)
    assert res.exit_code == 0, res.output
    assert (
        "each deal on its own (its matches are single deals from set situations: a setups run)"
        in (res.stderr.splitlines()[-1])
    )


def test_a_run_with_its_manifest_has_no_such_note(run6):
    res = invoke("verify", run6, "-q", "-w", 1)
    assert res.exit_code == 0 and "no manifest" not in res.output


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory) -> tuple[Path, Path]:
    """Two uncapped runs of 2 matches, seeds 1 and 2 (do not modify)."""
    base = tmp_path_factory.mktemp("two")
    for seed in (1, 2):
        res = invoke(
            "simulate", "-n", 2, "--seed", seed, "-s", "random", "-w", 1, "-q", "-o", base / f"s{seed}"
        )
        assert res.exit_code == 0, res.output
    return base / "s1", base / "s2"


def test_another_run_s_manifest_is_one_problem_naming_both_run_ids(two_runs, tmp_path):
    """QA: verifying parts beside another run's manifest printed about three problems per line
    (run_id, match seed, strategies), plus each match record and sha256, all saying the same."""
    mine, other = two_runs
    run = Path(shutil.copytree(mine, tmp_path / "run"))
    shutil.copy(other / "manifest.json", run / "manifest.json")
    res = invoke("verify", run, "-q", "-w", 1)
    assert res.exit_code == 1, res.output
    *problems, verdict = res.stdout.splitlines()
    assert len(problems) == 1 and ": 1 problem(s)" in verdict, res.stdout
    want = f"{run / 'manifest.json'}: another run's manifest: its run_id {_manifest(other)['run_id']!r} is not the log's {_manifest(mine)['run_id']!r}"
    assert problems[0].startswith(want), problems[0]
    assert "its seed 2 gives none of the log's match seeds, on all " in problems[0]
    assert problems[0].endswith("(on every deal line, the match records, the parts' sha256) are not listed")
    # --max-problems still counts every problem: here the one
    res = invoke("verify", run, "-q", "-w", 1, "--max-problems", 0)
    assert (
        res.exit_code == 1
        and res.stdout.splitlines()[0].startswith("verified ")
        and "1 problem(s)" in res.stdout
    )
    assert "… and 1 more" in res.stderr


def test_a_hand_edited_seed_is_one_problem(two_runs, tmp_path):
    run = Path(shutil.copytree(two_runs[0], tmp_path / "run"))
    data = _manifest(run)
    data["config"]["seed"] = 7
    (run / "manifest.json").write_text(json.dumps(data))
    problems = verify(run).problems
    assert len(problems) == 1, problems
    assert str(problems[0]).startswith(
        f"{run / 'manifest.json'}: a manifest that does not fit the log: its seed 7 gives none of the log's match seeds"
    )


def test_one_line_from_another_run_is_still_that_line_s_problem(two_runs, tmp_path):
    """Only a disagreement on every deal line is the manifest's: one odd line is reported as before."""
    run = Path(shutil.copytree(two_runs[0], tmp_path / "run"))
    part = run / "deals-00000.jsonl"
    lines = part.read_text().splitlines(keepends=True)
    rec = json.loads(lines[1])
    rec["run_id"] = "0123456789abcdef"
    lines[1] = json.dumps(rec, separators=(",", ":")) + "\n"
    part.write_text("".join(lines))
    shown = [str(p) for p in verify(run).problems]
    assert (
        f"{part}:2: match 0 deal 1: run_id '0123456789abcdef' is not the manifest's {_manifest(run)['run_id']!r}"
        in shown
    )
    assert f"{part}: content differs from the sha256 in the manifest" in shown
    assert not any("manifest.json" in p for p in shown), shown

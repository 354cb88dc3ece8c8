"""Counterfactual experiments: the engine's tribute option, conditioned setups, paired runs.

The self-check: with tribute switched off in both arms the paired effect is exactly 0.
"""

from __future__ import annotations

import json
from collections import Counter

import polars as pl
import pytest
from click.testing import CliRunner

from guandan_cli.cli.app import app
from guandan_cli.engine.cards import HR
from guandan_cli.engine.deal import Deal
from guandan_cli.engine.rules import get_ruleset
from guandan_cli.experiments import Arm, Experiment, paired_effects, run_experiment
from guandan_cli.logreaders.verify import verify
from guandan_cli.logs.reader import read_deals
from guandan_cli.runner.setups import paying_setup, resisting_setup, source_setup

CGR = get_ruleset("cgr2022")


# ---------------------------------------------------------------- engine option


def test_tribute_off_skips_tribute_and_the_previous_first_leads():
    for i in range(20):
        setup = paying_setup(3, i, get_ruleset("cgr2022", tribute="off")).setup
        deal = Deal(setup)
        assert deal.tribute_kind == "none" and deal.phase == "play"
        assert deal.leader == setup.previous[0][0]
        assert [len(h) for h in deal.hands] == [27] * 4


def test_tribute_paid_ignores_resistance():
    for i in range(20):
        setup = resisting_setup(3, i, get_ruleset("cgr2022", tribute="paid")).setup
        deal = Deal(setup)
        assert deal.tribute_kind in ("single", "double")
        payers = [deal.to_move] if deal.tribute_kind == "single" else None
        if payers:  # a single payer holding both big jokers must pay one of them
            assert deal.legal_actions() == [HR]


def test_unknown_tribute_mode():
    with pytest.raises(ValueError, match="unknown tribute mode 'maybe': valid modes are on, off, paid"):
        get_ruleset("cgr2022", tribute="maybe")


# ---------------------------------------------------------------- conditioned setups


def test_conditioned_sources_give_the_outcome_they_name():
    kinds = Counter()
    for i in range(200):
        paying = Deal(paying_setup(5, i, CGR).setup)
        resisting = Deal(resisting_setup(5, i, CGR).setup)
        assert paying.tribute_kind in ("single", "double")
        assert resisting.tribute_kind == "resisted"
        kinds[paying.tribute_kind] += 1
    # uniform over the 24 previous orders given a paid tribute: a double-down 8 in 24
    assert 45 <= kinds["double"] <= 90, kinds
    assert source_setup("paying", 5, 7, CGR) == paying_setup(5, 7, CGR)
    with pytest.raises(ValueError, match="unknown setup source 'nope'"):
        source_setup("nope", 5, 7, CGR)


# ---------------------------------------------------------------- paired statistics


def test_paired_effects_against_a_hand_computation():
    a = pl.DataFrame(
        {"match": [0, 1, 2, 3], "win": [1, 1, 0, 1], "upgrade": [3, 1, 0, 2], "first_out": [1, 0, 0, 1]}
    )
    b = pl.DataFrame(
        {"match": [3, 2, 1, 0], "win": [0, 0, 1, 1], "upgrade": [0, 0, 2, 3], "first_out": [0, 0, 0, 1]}
    )
    df = paired_effects(a, b)
    win = df.row(0, named=True)
    # differences by match: win 0,0,0,1 -> mean 0.25, sd 0.5, half-width t(3)·0.5/2 = 3.182·0.25
    # = 0.80 (Student's t for 4 pairs, t = 3.1824): [-0.546, 1.046], clipped to what a win
    # difference can be (at most 1), not to the differences seen (0 and 1)
    assert (win["metric"], win["pairs"], win["differ"]) == ("win", 4, 1)
    assert win["effect"] == pytest.approx(0.25)
    assert win["effect_lo"] == pytest.approx(0.25 - 3.182446 * 0.25, abs=1e-5)
    assert win["effect_hi"] == 1.0
    upgrade = df.row(1, named=True)  # differences 0, -1, 0, 2
    assert upgrade["effect"] == pytest.approx(0.25) and upgrade["differ"] == 2
    assert upgrade["a"] == pytest.approx(1.5) and upgrade["b"] == pytest.approx(1.25)


# ---------------------------------------------------------------- runs


def test_self_check_tribute_off_in_both_arms_gives_exactly_zero(tmp_path):
    both_off = Experiment(
        "self-check", "paying", Arm("off-1", tribute="off"), Arm("off-2", tribute="off"), ""
    )
    res = run_experiment(both_off, 16, strategies="greedy,random", seed=4, out=tmp_path, workers=1)
    assert res.effects["pairs"].to_list() == [16] * 3
    assert res.effects["effect"].to_list() == [0.0] * 3
    assert res.effects["effect_lo"].to_list() == [0.0] * 3 and res.effects["effect_hi"].to_list() == [0.0] * 3
    assert res.effects["differ"].to_list() == [0] * 3
    assert set(res.by_kind["effect"].to_list()) == {0.0} and set(res.by_kind["differ"].to_list()) == {0}


@pytest.fixture(scope="module")
def tribute_experiment(tmp_path_factory):
    out = tmp_path_factory.mktemp("experiment") / "tribute"
    return run_experiment("tribute", 16, strategies="greedy,random", seed=4, out=out, workers=1)


def test_each_arm_is_a_run_that_verifies_and_plays_the_same_hands(tribute_experiment):
    res = tribute_experiment
    a_dir, b_dir = (res.out / arm.name for arm in res.arms)
    for d in (a_dir, b_dir):
        report = verify([d])
        assert report.ok and report.deals == 16, [str(p) for p in report.problems[:3]]
    a, b = read_deals(a_dir), read_deals(b_dir)
    assert a["hands"].to_list() == b["hands"].to_list()
    assert a["levels_before"].to_list() == b["levels_before"].to_list()
    assert set(a["tribute"].struct.field("kind")) <= {"single", "double"}
    assert set(b["tribute"].struct.field("kind")) == {"none"}
    # the effects are those of the logged deals
    won = (a["winner_team"] == a["level_team"]).cast(pl.Int64) - (b["winner_team"] == b["level_team"]).cast(
        pl.Int64
    )
    assert res.effects.row(0, named=True)["effect"] == pytest.approx(won.mean())
    assert res.effects["differ"][0] == int((won != 0).sum())
    # within kinds: the setups split by the tribute kind of arm A, each effect its own mean
    kinds = res.by_kind.filter(pl.col("metric") == "win")
    assert set(kinds["kind"]) <= {"single", "double"} and kinds["pairs"].sum() == 16
    single = (a["tribute"].struct.field("kind") == "single").to_list()
    if any(single):
        want = won.filter(pl.Series(single)).mean()
        assert kinds.filter(pl.col("kind") == "single")["effect"][0] == pytest.approx(want)
    saved = json.loads((res.out / "effects.json").read_text(encoding="utf-8"))
    assert saved["arms"]["B"]["tribute"] == "off" and saved["effects"][0]["metric"] == "win"
    assert (res.out / "effect.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_rerun_reuses_the_arms_and_a_tampered_line_is_caught(tribute_experiment, tmp_path):
    import shutil

    res = tribute_experiment
    again = run_experiment("tribute", 16, strategies="greedy,random", seed=4, out=res.out, workers=1)
    assert again.effects.equals(res.effects)
    arm = tmp_path / "arm"
    shutil.copytree(res.out / res.arms[1].name, arm)
    part = arm / "deals-00000.jsonl"
    lines = part.read_text(encoding="utf-8").splitlines(keepends=True)
    rec = json.loads(lines[3])
    rec["levels_before"] = ["2", "2"]
    lines[3] = json.dumps(rec, ensure_ascii=False, separators=(",", ":")) + "\n"
    part.write_text("".join(lines), encoding="utf-8")
    reasons = [p.reason for p in verify([arm]).problems]
    assert any("levels_before" in r for r in reasons), reasons


def test_resistance_and_ruleset_arms(tmp_path):
    res = run_experiment("resistance", 6, strategies="greedy", seed=2, out=tmp_path / "r", workers=1)
    a, b = (read_deals(res.out / arm.name) for arm in res.arms)
    assert set(a["tribute"].struct.field("kind")) == {"resisted"}
    assert set(b["tribute"].struct.field("kind")) <= {"single", "double"}
    assert verify([res.out / "paid"]).ok
    res = run_experiment("ruleset", 6, strategies="greedy", seed=2, out=tmp_path / "s", workers=1)
    a, b = (read_deals(res.out / arm.name) for arm in res.arms)
    assert set(a["ruleset"]) == {"cgr2022"} and set(b["ruleset"]) == {"jiangsu2017"}
    assert a["hands"].to_list() == b["hands"].to_list()


runner = CliRunner()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nope"], "unknown experiment 'nope': choose from tribute, resistance, ruleset"),
        (["tribute", "--deals", "0"], "--deals must be a positive whole number, got 0"),
        (["tribute", "-s", "nobody"], "unknown strategy 'nobody'"),
        (["tribute", "--ruleset", "bogus"], "unknown ruleset 'bogus'"),
    ],
)
def test_cli_bad_input_is_one_line(tmp_path, args, message):
    res = runner.invoke(app, ["experiment", *args, "--out", str(tmp_path / "x"), "-q"])
    assert res.exit_code == 2, res.output
    err = res.stderr.strip()
    assert len(err.splitlines()) == 1 and err.startswith("guandan: error: ") and message in err, err
    assert not (tmp_path / "x").exists()


def test_cli_prints_the_effects(tmp_path):
    res = runner.invoke(
        app,
        [
            "experiment",
            "tribute",
            "--deals",
            "4",
            "-s",
            "greedy",
            "--out",
            str(tmp_path / "e"),
            "-w",
            "1",
            "-q",
        ],
    )
    assert res.exit_code == 0, res.output
    assert (
        "experiment tribute" in res.stdout
        and "A − B [95% CI]" in res.stdout
        and "setups   4 (paying)" in res.stdout
    )

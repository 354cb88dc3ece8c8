"""Deal-level duplicates: each deal setup played twice with the teams swapped (issue 10)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

import guandan_cli
from guandan_cli import compare, simulate
from guandan_cli.cli.app import app
from guandan_cli.logreaders.verify import verify

SMALL = dict(seed=3, workers=1, duplicate="deal")


@pytest.mark.parametrize(
    ("bot", "setups"), [("heuristic", "random"), ("greedy", "fresh"), ("random", "random")]
)
def test_self_comparison_is_exactly_zero(tmp_path, bot, setups):
    res = compare(bot, bot, matches=5, setups=setups, out=tmp_path, **SMALL)
    assert res.deals == 10
    assert res.pairs["a_level_gain"].to_list() == [0] * 5
    assert res.level_gain == 0.0 and res.level_gain_ci == (0.0, 0.0)
    assert res.deal_rate == 0.5 and res.deal_ci == (0.5, 0.5)
    assert res.first_out_rate == 0.5 and res.first_out_ci == (0.5, 0.5)
    assert res.verdict().startswith(f"{bot} ≈ {bot}: +0.00 levels/deal [0.00, 0.00], deals 50% [50, 50]")


@pytest.mark.parametrize("setups", ["fresh", "random"])
def test_swapping_a_and_b_negates_the_result_exactly(tmp_path, setups):
    ab = compare("greedy", "random", matches=8, setups=setups, out=tmp_path, **SMALL)
    ba = compare("random", "greedy", matches=8, setups=setups, out=tmp_path, **SMALL)
    assert ab.level_gain != 0
    assert ba.pairs["a_level_gain"].to_list() == [-g for g in ab.pairs["a_level_gain"].to_list()]
    assert ba.level_gain == -ab.level_gain
    assert ba.level_gain_ci == (-ab.level_gain_ci[1], -ab.level_gain_ci[0])
    assert ba.deal_wins == ab.deals - ab.deal_wins and ba.first_outs == ab.deals - ab.first_outs
    # the same two deals per setup, played once each: compare(B, A)'s runs are compare(A, B)'s swapped
    assert ba.runs[0].deals()["actions"].to_list() == ab.runs[1].deals()["actions"].to_list()


def test_each_pair_is_one_setup_played_with_the_teams_swapped(tmp_path):
    res = guandan_cli.compare("greedy", "random", matches=6, setups="random", out=tmp_path, **SMALL)
    run_ab, run_ba = res.runs
    d1, d2 = run_ab.deals().sort("match"), run_ba.deals().sort("match")
    assert d1.height == d2.height == 6
    # the same cards, levels and tribute situation; A's team at seats 0/2, then at 1/3
    for col in ("hands", "levels_before", "level_team", "level"):
        assert d1[col].to_list() == d2[col].to_list()
    assert d1["tribute"].struct.field("kind").to_list() == d2["tribute"].struct.field("kind").to_list()
    assert set(d1["level"].to_list()) != {"2"}
    assert d1["strategies"][0].to_list() == ["greedy", "random", "greedy", "random"]
    assert d2["strategies"][0].to_list() == ["random", "greedy", "random", "greedy"]
    wins = sum(w == 0 for w in d1["winner_team"]) + sum(w == 1 for w in d2["winner_team"])
    gain = sum(u if w == 0 else -u for w, u in zip(d1["winner_team"], d1["upgrade"]))
    gain += sum(u if w == 1 else -u for w, u in zip(d2["winner_team"], d2["upgrade"]))
    assert res.deal_wins == wins and res.level_gain == gain / 12
    firsts = sum(o[0] % 2 == 0 for o in d1["finish_order"]) + sum(o[0] % 2 == 1 for o in d2["finish_order"])
    assert res.first_outs == firsts


def test_setups_from_a_run_directory_and_fresh_ones_verify(tmp_path):
    source = simulate(3, seed=8, strategies="greedy", max_deals=4, workers=1, out=tmp_path / "selfplay")
    res = compare("greedy", "random", matches=10, setups=source.path, out=tmp_path, **SMALL)
    src = source.deals()  # log order: match, deal
    got = res.runs[0].deals().sort("match")
    assert got["hands"].to_list() == src["hands"].to_list()[:10]
    assert got["levels_before"].to_list() == src["levels_before"].to_list()[:10]
    fresh = compare("greedy", "random", matches=4, setups="fresh", out=tmp_path, **SMALL)
    assert verify(fresh.runs[0].path).ok and verify(fresh.runs[1].path).ok


def test_cli_deal_mode(tmp_path):
    runner = CliRunner()
    args = [*"compare greedy random -n 4 --duplicate deal -w 1".split(), "--out", str(tmp_path)]
    r = runner.invoke(app, args + ["--setups", "random", "-q"])
    assert r.exit_code == 0, r.output
    assert "greedy vs random: 4 deal pairs (random setups) = 8 deals" in r.output
    assert "levels/deal" in r.output and "first out" in r.output
    r = runner.invoke(app, args + ["--setups", "random", "-q"])
    assert "reusing the stored results" in r.output
    for bad, message in (
        (["--setups", str(tmp_path / "none")], "expected 'fresh', 'random' or a run directory"),
        (["--max-deals", "2"], "--max-deals does not go with --duplicate deal"),
        (["--unpaired"], "--unpaired does not go with --duplicate deal"),
    ):
        r = runner.invoke(app, args + bad + ["-q"])
        assert r.exit_code == 2 and r.output.count("\n") == 1 and message in r.output, r.output


def test_setups_runs_of_every_source_verify(tmp_path):
    source = simulate(4, seed=2, strategies="greedy,random", max_deals=5, workers=1, out=tmp_path / "src")
    for setups in ("random", source.path):
        res = compare("greedy", "random", matches=12, setups=setups, out=tmp_path, **SMALL)
        for run in res.runs:
            report = verify(run.path)
            assert report.ok, [str(p) for p in report.problems[:3]]
            assert report.deals == 12
    kinds = set(res.runs[0].deals()["tribute"].struct.field("kind").to_list())
    assert "single" in kinds or "double" in kinds


def test_a_setups_run_is_byte_identical_whatever_the_workers(tmp_path):
    logs = []
    for workers, chunk in ((1, None), (2, 1)):
        out = tmp_path / f"w{workers}"
        simulate(
            7, seed=5, strategies="greedy,random", setups="random", workers=workers, chunk_size=chunk, out=out
        )
        logs.append({p.name: p.read_bytes() for p in sorted(out.glob("*.jsonl"))})
    assert logs[0] == logs[1] and len(logs[0]) == 2


def test_a_replaced_setup_source_is_noticed(tmp_path):
    src = tmp_path / "selfplay"
    simulate(3, seed=8, strategies="greedy", max_deals=4, workers=1, out=src)
    said: list[str] = []
    first = compare("greedy", "random", matches=6, setups=src, out=tmp_path, notify=said.append, **SMALL)
    first_hands = first.runs[0].deals()["hands"].to_list()
    simulate(3, seed=9, strategies="greedy", max_deals=4, workers=1, out=src, force=True)  # other deals
    again = compare("greedy", "random", matches=6, setups=src, out=tmp_path, notify=said.append, **SMALL)
    assert said == [
        f"the setups' source run {src} changed since {first.runs[0].path.parent} was written: recomputing"
    ]
    assert again.runs[0].deals()["hands"].to_list() != first_hands
    from guandan_cli.runner import SimulationInputError

    simulate(3, seed=10, strategies="greedy", max_deals=4, workers=1, out=src, force=True)
    with pytest.raises(SimulationInputError, match="source run .* changed since"):
        simulate(out=again.runs[0].path, resume=True)

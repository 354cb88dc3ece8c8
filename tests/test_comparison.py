"""Duplicate comparisons and tournaments (issue 7)."""

import math

import polars as pl
import pytest
from typer.testing import CliRunner

from guandan_cli import compare, tournament
from guandan_cli.cli.app import app
from guandan_cli.comparison import strategy_spec
from guandan_cli.stats import bootstrap_ratio_interval, wilson_interval
from strategies.greedy import GreedyStrategy
from strategies.registry import load_strategy


class LeadHighest(GreedyStrategy):
    """A test bot addressed by module:Class."""

    name = "lead_highest"

    def choose_play(self, obs):
        if obs.top is None:
            return obs.legal_actions[-1]
        return super().choose_play(obs)


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    out = tmp_path_factory.mktemp("cmp")
    return compare("greedy", "random", matches=6, seed=5, max_deals=4, workers=1, out=out)


def test_both_seatings_see_the_same_cards(result):
    ab, ba = result.runs
    d1 = ab.deals().filter(pl.col("deal") == 0).sort("match")
    d2 = ba.deals().filter(pl.col("deal") == 0).sort("match")
    assert d1["hands"].to_list() == d2["hands"].to_list()
    assert d1["strategies"][0].to_list() == ["greedy", "random", "greedy", "random"]
    assert d2["strategies"][0].to_list() == ["random", "greedy", "random", "greedy"]


def test_figures_match_the_logs(result):
    ab, ba = result.runs
    wins = deals = gain = 0
    for run, a_team in ((ab, 0), (ba, 1)):
        for rec in run.deals().iter_rows(named=True):
            deals += 1
            if rec["winner_team"] == a_team:
                wins += 1
                gain += rec["upgrade"]
            else:
                gain -= rec["upgrade"]
    assert result.deals == deals
    assert result.deal_wins == wins
    assert math.isclose(result.level_gain, gain / deals)
    lo, hi = result.level_gain_ci
    assert lo <= result.level_gain <= hi
    match_wins = sum(1 for run, t in ((ab, 0), (ba, 1)) for w in run.matches()["winner"].to_list() if w == t)
    assert result.match_wins == match_wins
    assert result.pairs.height == 6
    assert result.pairs["match"].to_list() == list(range(6))


def test_verdict_format(result):
    v = result.verdict()
    assert v.startswith("greedy > random: +") and "levels/deal [" in v and "matches " in v


def test_same_seed_same_result(tmp_path, result):
    again = compare("greedy", "random", matches=6, seed=5, max_deals=4, workers=2, out=tmp_path)
    assert again.pairs.equals(result.pairs)
    assert again.level_gain_ci == result.level_gain_ci


def test_strategy_classes_and_specs(tmp_path):
    assert strategy_spec("greedy") == "greedy"
    spec = strategy_spec(LeadHighest)
    assert spec.endswith(":LeadHighest")
    assert load_strategy(spec).__qualname__ == "LeadHighest"
    res = compare(LeadHighest, "random", matches=2, seed=1, max_deals=3, workers=2, out=tmp_path)
    assert res.a == "lead_highest"
    local = type("Local", (GreedyStrategy,), {"__module__": "__main__"})
    assert strategy_spec(local) == "__main__:Local"  # sent to workers by value


def test_unpaired_uses_other_cards(tmp_path):
    res = compare("greedy", "random", matches=2, seed=5, max_deals=2, workers=1, out=tmp_path, paired=False)
    ab, ba = res.runs
    h1 = ab.deals().filter(pl.col("deal") == 0)["hands"].to_list()
    h2 = ba.deals().filter(pl.col("deal") == 0)["hands"].to_list()
    assert h1 != h2


def test_tournament(tmp_path):
    res = tournament(
        ["greedy", "random", "lead_highest_x"][:2], matches=3, seed=2, max_deals=3, workers=1, out=tmp_path
    )
    lb = res.leaderboard
    assert lb["rank"].to_list() == [1, 2]
    assert lb["ordinal"].to_list() == sorted(lb["ordinal"].to_list(), reverse=True)
    m = res.matrix
    g_vs_r = m.filter(pl.col("strategy") == "greedy")["random"][0]
    r_vs_g = m.filter(pl.col("strategy") == "random")["greedy"][0]
    r = res.results[("greedy", "random")]
    assert math.isclose(g_vs_r + r_vs_g, 1 - r.match_unfinished / r.games)
    fig = res.plot(tmp_path / "m.png")
    assert (tmp_path / "m.png").stat().st_size > 1000
    assert fig.axes[0].get_title()


def test_cli_compare_and_errors(tmp_path):
    runner = CliRunner()
    r = runner.invoke(
        app,
        [
            "compare",
            "greedy",
            "random",
            "-n",
            "2",
            "--max-deals",
            "2",
            "--workers",
            "1",
            "--out",
            str(tmp_path),
            "-q",
        ],
    )
    assert r.exit_code == 0, r.output
    assert "greedy" in r.output and "levels/deal" in r.output
    r = runner.invoke(app, ["compare", "nosuch", "random", "-n", "2", "--out", str(tmp_path / "x"), "-q"])
    assert r.exit_code != 0
    assert "unknown strategy 'nosuch'" in r.output and "Traceback" not in r.output


def test_intervals_against_known_values():
    # Wilson interval for 8/10 at 95%: (0.4902, 0.9433) (Wilson 1927; e.g. Newcombe 1998 table)
    lo, hi = wilson_interval(8, 10)
    assert round(lo, 4) == 0.4902 and round(hi, 4) == 0.9433
    # a constant ratio has a degenerate bootstrap interval
    assert bootstrap_ratio_interval([2, 4, 6], [1, 2, 3]) == (2.0, 2.0)


@pytest.mark.parametrize("bot", ["greedy", "heuristic"])
def test_a_bot_against_itself_cancels_exactly_in_duplicate(tmp_path, bot):
    """Seat rngs derive from (match seed, seat), so the swapped game is the same game:
    every pair's level gains cancel and each pair's two matches split one win."""
    res = compare(bot, bot, matches=4, seed=9, max_deals=5, workers=1, out=tmp_path)
    assert res.pairs["a_level_gain"].to_list() == [0, 0, 0, 0]
    assert res.level_gain == 0.0 and res.level_gain_ci == (0.0, 0.0)
    for row in res.pairs.iter_rows(named=True):
        if row["a_match_seats02"] is not None:
            assert row["a_match_seats02"] + row["a_match_seats13"] == 1.0

"""Duplicate comparisons and tournaments (issue 7)."""

import math

import polars as pl
import pytest
from click.testing import CliRunner
from guandan_cli.strategies.greedy import GreedyStrategy
from guandan_cli.strategies.registry import load_strategy

from guandan_cli import compare, tournament
from guandan_cli.cli.app import app
from guandan_cli.comparison import (
    CompareResult,
    pair_units,
    strategy_spec,
    summarise_tournament,
    unit_intervals,
)
from guandan_cli.stats import bootstrap_ratio_interval, wilson_interval


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
    # no match is decided (see below): all draws, so a tie at rank 1 in the order given, not
    # an order on the noise in σ (test_tournament_tables has a decided board's order)
    assert lb["rank"].to_list() == [1, 1] and lb["strategy"].to_list() == ["greedy", "random"]
    assert res.decided == 0 and "the strategies tie at rank 1" in res.report()
    m = res.matrix
    g_vs_r = m.filter(pl.col("strategy") == "greedy")["random"][0]
    r_vs_g = m.filter(pl.col("strategy") == "random")["greedy"][0]
    r = res.results[("greedy", "random")]
    # 3 deals climb at most 9 levels, short of the 12 from 2 to A: no match is decided, so
    # neither side has a match win rate (not 0% both ways)
    assert r.decided == 0 and r.match_unfinished == r.games
    assert g_vs_r is None and r_vs_g is None
    fig = res.plot(tmp_path / "m.png")
    assert (tmp_path / "m.png").stat().st_size > 1000
    assert fig.axes[0].get_title()


def test_cli_compare_and_errors(tmp_path):
    runner = CliRunner()
    r = runner.invoke(
        app, [*"compare greedy random -n 2 --max-deals 2 --workers 1 -q".split(), "--out", str(tmp_path)]
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


def _pairs(seats02: list, seats13: list, deals: list[int], deal_wins: list[int]) -> pl.DataFrame:
    n = len(seats02)
    return pl.DataFrame(
        {
            "match": list(range(n)),
            "a_match_seats02": seats02,
            "a_match_seats13": seats13,
            "deals": deals,
            "a_deal_wins": deal_wins,
            "a_first_outs": deal_wins,
            "a_level_gain": [2 * w - d for w, d in zip(deal_wins, deals)],
        },
        schema_overrides={"a_match_seats02": pl.Float64, "a_match_seats13": pl.Float64},
    )


def test_match_intervals_take_the_pair_as_the_unit():
    """A won both matches of all 10 pairs: 10 independent units all at 1, so the exact
    Clopper-Pearson interval of 10 successes in 10 trials, (0.025^(1/10), 1) = (0.6915, 1),
    not Wilson's over 20 matches (0.8389, 1)."""
    units = pair_units(_pairs([1.0] * 10, [1.0] * 10, [8] * 10, [8] * 10))
    _, iv = unit_intervals(units, seed=3)
    lo, hi = iv["match"]
    assert round(lo, 4) == 0.6915 and hi == 1.0
    assert round(iv["deal"][0], 4) == 0.6915  # the deals of a pair are one unit too, not 80 deals


def test_deal_interval_resamples_pairs_not_deals():
    """Two pairs, one whose 10 deals A all won and one whose 10 it all lost: a resample of
    2 pairs holds both (rate 1/2), twice the first (1) or twice the second (0), and with 2
    units the expanded percentile interval takes the extremes: [0, 1]. Treating the 20
    deals as independent (Wilson 10 of 20) would give about [0.30, 0.70]."""
    units = pair_units(_pairs([1.0, 0.0], [1.0, 0.0], [10, 10], [10, 0]))
    _, iv = unit_intervals(units, seed=1)
    assert iv["deal"] == (0.0, 1.0)
    assert iv["match"] == (0.0, 1.0)


def test_undecided_matches_are_left_out_of_the_match_interval():
    """Pairs with capped matches (None) count only their decided ones; a pair with none is no unit."""
    units = pair_units(_pairs([1.0, None, 1.0, None], [None, None, 1.0, 1.0], [4] * 4, [2] * 4))
    assert units["a_wins"].to_list() == [1.0, 0.0, 2.0, 1.0]
    assert units["decided"].to_list() == [1, 0, 2, 1]
    _, iv = unit_intervals(units)
    lo, hi = iv["match"]  # 3 units, all at rate 1: (0.025^(1/3), 1)
    assert math.isclose(lo, 0.025 ** (1 / 3)) and hi == 1.0


def test_capped_matches_are_no_losses_in_compare(tmp_path):
    """With at most 2 deals a match cannot be won (a team climbs at most 3 levels a deal, 2 → A
    is 12 levels), so every match is capped: no match win rate, not 0%."""
    res = compare("greedy", "random", matches=2, seed=4, max_deals=2, workers=1, out=tmp_path, notify=None)
    assert (res.match_wins, res.match_losses, res.match_unfinished) == (0, 0, 4)
    assert math.isnan(res.match_rate)
    assert "matches – (none of 4 decided)" in res.verdict()
    row = res.table().filter(pl.col("measure") == "match win rate").row(0, named=True)
    assert row["n"] == 0 and math.isnan(row["value"])


def test_tournament_rates_leave_undecided_matches_out():
    """x won 1 and lost 1 of the decided matches; the 2 capped ones are no loss for either."""
    pairs = _pairs([1.0, None], [0.0, None], [5, 5], [3, 2])
    res = CompareResult(
        a="x", b="y", matches=2, seed=0, paired=True, pairs=pairs, match_wins=1, match_losses=1,
        match_unfinished=2, deal_wins=5, deals=10, level_gain=0.0, level_gain_ci=(-1.0, 1.0),
    )  # fmt: skip
    t = summarise_tournament(["x", "y"], {("x", "y"): res})
    assert t.matrix.filter(pl.col("strategy") == "x")["y"][0] == 0.5
    assert t.matrix.filter(pl.col("strategy") == "y")["x"][0] == 0.5
    lb = {r["strategy"]: r for r in t.leaderboard.iter_rows(named=True)}
    assert (lb["x"]["wins"], lb["x"]["games"], lb["x"]["undecided"]) == (1, 2, 2)
    assert lb["x"]["win_rate"] == 0.5
    capped = _pairs([None], [None], [2], [1])
    res0 = CompareResult(
        a="x", b="y", matches=1, seed=0, paired=True, pairs=capped, match_wins=0, match_losses=0,
        match_unfinished=2, deal_wins=1, deals=2, level_gain=0.0, level_gain_ci=(-1.0, 1.0),
    )  # fmt: skip
    text = summarise_tournament(["x", "y"], {("x", "y"): res0}).report()
    assert "0%" not in text and "0/0" in text and "x 2" in text and "y 2" in text


def test_a_bot_against_itself_has_exact_match_and_deal_rates(tmp_path):
    """Docs: a strategy against itself in duplicate gives exactly 50% [50, 50]: each pair's
    two matches are one game seen from both sides."""
    res = compare("greedy", "greedy", matches=2, seed=9, workers=1, out=tmp_path, notify=None)
    assert res.match_ci == (0.5, 0.5) and res.deal_ci == (0.5, 0.5)
    assert "matches 50% [50, 50], deals 50% [50, 50]" in res.verdict()


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda o: compare("random", "greedy", matches=2, setups="random", out=o), ValueError,
         "setups 'random' goes with duplicate='deal'"),
        (lambda o: compare("random", "greedy", matches="5", out=o), TypeError,
         r"matches \(-n/--matches\) must be a positive whole number, got '5'"),
        (lambda o: compare("random", "greedy", matches=2, bootstrap=0, out=o), ValueError,
         "bootstrap must be a positive whole number of resamples, got 0"),
        (lambda o: tournament(["random", "greedy"], matches="5", out=o), TypeError,
         r"matches \(-n/--matches\) must be a positive whole number, got '5'"),
        (lambda o: tournament(["random", "greedy"], matches=2, setups="random", out=o), ValueError,
         "setups 'random' goes with duplicate='deal'"),
        (lambda o: tournament("random,greedy", matches=2, out=o), TypeError,
         "strategies: a list of strategies, got the string 'random,greedy'"),
    ],
)  # fmt: skip
def test_api_refuses_bad_options_before_playing(tmp_path, call, error, message):
    """The API's bad options are one clear error naming the option, before any match is
    played (setups without deal mode was ignored; a text count or bootstrap=0 raised a
    bare TypeError/IndexError, the latter after playing every match)."""
    with pytest.raises(error, match=message):
        call(tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_tournament_plot_marks_pairings_without_a_decided_game(tmp_path):
    """QA: with every match capped the heat map was blank (no cell, no word); the table's
    ``–`` is written in each cell without a decided game, and the rates in the others."""
    res = tournament(["random", "greedy"], matches=1, max_deals=1, workers=1, out=tmp_path, notify=None)
    fig = res.plot()
    texts = sorted(t.get_text() for t in fig.axes[0].texts)
    assert texts == ["–", "–"], texts

"""Tournament output people can read: fixed-width tables within 80 columns (issue 10)."""

from __future__ import annotations

from pathlib import Path

import polars as pl
from click.testing import CliRunner

from guandan_cli.cli.app import app
from guandan_cli.comparison import CompareResult, summarise_tournament

GOLDEN = Path(__file__).parent / "golden" / "tournament_80.txt"


def _result(a: str, b: str, seats02: list, seats13: list, gains: list[int]) -> CompareResult:
    """A pairing's result from per-pair match outcomes (1 A won, 0 B won, None capped)."""
    n = len(seats02)
    pairs = pl.DataFrame(
        {
            "match": list(range(n)),
            "a_match_seats02": seats02,
            "a_match_seats13": seats13,
            "deals": [10] * n,
            "a_deal_wins": [5 + g // 2 for g in gains],
            "a_first_outs": [5] * n,
            "a_level_gain": gains,
        },
        schema_overrides={"a_match_seats02": pl.Float64, "a_match_seats13": pl.Float64},
    )
    outcomes = seats02 + seats13
    wins = sum(1 for o in outcomes if o == 1.0)
    losses = sum(1 for o in outcomes if o == 0.0)
    gain = sum(gains) / (10 * n)
    return CompareResult(
        a=a, b=b, matches=n, seed=0, paired=True, pairs=pairs, match_wins=wins, match_losses=losses,
        match_unfinished=2 * n - wins - losses, deal_wins=int(pairs["a_deal_wins"].sum()), deals=10 * n,
        level_gain=gain, level_gain_ci=(gain - 0.25, gain + 0.25),
    )  # fmt: skip


def test_tournament_report_matches_the_golden_text():
    names = ["heuristic", "greedy", "a_rather_long_bot_name"]
    results = {
        ("heuristic", "greedy"): _result(
            "heuristic", "greedy", [1.0, 1.0, 1.0, 0.0], [1.0, 1.0, None, 1.0], [6, 4, 2, -2]
        ),
        ("heuristic", "a_rather_long_bot_name"): _result(
            "heuristic", "a_rather_long_bot_name", [1.0, 0.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0], [3, 1, 5, 2]
        ),
        ("greedy", "a_rather_long_bot_name"): _result(
            "greedy", "a_rather_long_bot_name", [0.0, 1.0, 0.0, None], [1.0, 0.0, 0.0, 0.0], [-1, 1, -3, 0]
        ),
    }
    text = summarise_tournament(names, results).report()
    assert all(len(line) <= 80 for line in text.splitlines()), max(text.splitlines(), key=len)
    assert "null" not in text and "f64" not in text
    assert text + "\n" == GOLDEN.read_text(encoding="utf-8")


def test_tournament_cli_prints_tables_within_80_columns(tmp_path):
    r = CliRunner().invoke(
        app, [*"tournament greedy random -n 2 --max-deals 2 -w 1 -q".split(), "--out", str(tmp_path)]
    )
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    assert lines[0].startswith("leaderboard: openskill PlackettLuce")
    assert all(len(line) <= 80 for line in lines)
    for junk in ("null", "shape:", "│", "f64", "dtype"):
        assert junk not in r.output
    assert any(line.split()[:2] == ["1", "greedy"] or line.split()[:2] == ["1", "random"] for line in lines)


def test_a_tournament_with_no_decided_match_ranks_everyone_tied():
    """QA: with every match capped, all games are draws and the board was ordered on the
    noise the order of the draws leaves in σ (random 1st, heuristic 3rd, all at μ 25.0)."""
    names = ["heuristic", "greedy", "random"]
    capped = [None, None]
    results = {
        (a, b): _result(a, b, capped, capped, [2, 0])
        for a, b in (("heuristic", "greedy"), ("heuristic", "random"), ("greedy", "random"))
    }
    res = summarise_tournament(names, results)
    assert res.decided == 0
    assert res.leaderboard["rank"].to_list() == [1, 1, 1]
    assert res.leaderboard["strategy"].to_list() == names  # the order given
    text = res.report()
    assert all(len(line) <= 80 for line in text.splitlines())
    assert (
        "no match was decided (all capped or errored):\n  the strategies tie at rank 1, in the order given"
        in text
    )
    assert [line.split()[:2] for line in text.splitlines()[3:6]] == [["1", n] for n in names]


def test_one_decided_match_ranks_as_before():
    names = ["heuristic", "greedy"]
    res = summarise_tournament(
        names, {("heuristic", "greedy"): _result("heuristic", "greedy", [None], [1.0], [2])}
    )
    assert res.decided == 1 and res.leaderboard["rank"].to_list() == [1, 2]
    assert "tie at rank 1" not in res.report()

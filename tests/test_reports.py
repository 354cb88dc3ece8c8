"""Reports against hand-computed answers on a handful of hand-built records."""

from __future__ import annotations

import math

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from guandan_cli.logs.schema import deal_schema, match_schema
from guandan_cli.reports import (
    REPORTS,
    bombs,
    bombs_by_player,
    deal_length,
    double_down,
    first_leader,
    jiefeng,
    level_progression,
    match_length,
    partners,
    run_report,
    slim_deals,
    strategy_deals,
    strategy_matches,
    tribute_card,
    tribute_effect,
    wild_use,
    winner_bombs,
)
from guandan_cli.reports.stats import mean_ci, wilson

STRATS = ["greedy", "random", "greedy", "random"]


def _bomb(seat, cls, opp):
    return {"seat": seat, "class": cls, "key": "5", "opp_min_cards": opp, "lead": False}


def deal(
    match,
    index,
    *,
    kind,
    first_leader,
    finish,
    upgrade,
    level="2",
    level_team=None,
    payments=(),
    bombs=(),
    wilds=(),
    tricks=10,
    jiefeng=0,
    levels_before=("2", "2"),
):
    winner_team = finish[0] % 2
    return {
        "v": 1,
        "run_id": "r",
        "match": match,
        "match_seed": 1,
        "deal": index,
        "deal_seed": 2,
        "ruleset": "cgr2022",
        "strategies": STRATS,
        "level_team": level_team,
        "level": level,
        "levels_before": list(levels_before),
        "levels_after": ["2", "2"],
        "hands": ["", "", "", ""],
        "tribute": {
            "kind": kind,
            "resisted_by": [],
            "payments": [{"from": f, "to": t, "card": c} for f, t, c in payments],
            "returns": [],
        },
        "first_leader": first_leader,
        "actions": ["0 pass"] * (3 * tricks),  # plays + passes
        "finish_order": list(finish),
        "double_down": upgrade == 3,
        "upgrade": upgrade,
        "winner_team": winner_team,
        "match_over": False,
        "match_winner": None,
        "capped": False,
        "derived": {
            "tricks": tricks,
            "plays": 2 * tricks,
            "passes": tricks,
            "jiefeng": jiefeng,
            "bombs": [_bomb(*b) for b in bombs],
            "wild_plays": [{"seat": s, "type": t, "wilds": w} for s, t, w in wilds],
        },
    }


# A: no tribute, leader 1, team 1 double-down
# B: single (HR at level 5) to team 1, payer 0 leads, team 0 wins +2
# C: no tribute, leader 2, team 1 wins +1
# D: double (S3 = level card at level 3, SA) to team 1, team 1 double-down
# E: resisted, receiving team 1, leader 3, team 0 wins +1
RECORDS = [
    deal(
        0,
        0,
        kind="none",
        first_leader=1,
        finish=[1, 3, 0, 2],
        upgrade=3,
        bombs=[(1, "4", 10), (0, "sf", 3)],
        wilds=[(1, "straight", 1)],
        tricks=10,
    ),
    deal(
        0,
        1,
        kind="single",
        level="5",
        level_team=1,
        payments=[(0, 1, "HR")],
        first_leader=0,
        finish=[0, 1, 2, 3],
        upgrade=2,
        bombs=[(0, "4", 5), (2, "joker", 2)],
        wilds=[(0, "bomb", 2)],
        jiefeng=1,
        tricks=12,
        levels_before=("2", "5"),
    ),
    deal(1, 0, kind="none", first_leader=2, finish=[3, 0, 1, 2], upgrade=1, tricks=14),
    deal(
        1,
        1,
        kind="double",
        level="3",
        level_team=1,
        payments=[(0, 3, "S3"), (2, 1, "SA")],
        first_leader=0,
        finish=[1, 3, 2, 0],
        upgrade=3,
        bombs=[(1, "5", 4)],
        jiefeng=2,
        tricks=16,
        levels_before=("2", "3"),
    ),
    deal(
        1,
        2,
        kind="resisted",
        level="A",
        level_team=1,
        first_leader=3,
        finish=[2, 1, 3, 0],
        upgrade=1,
        tricks=18,
        levels_before=("2", "A"),
    ),
]

MATCHES = [
    {
        "v": 1,
        "run_id": "r",
        "match": 0,
        "match_seed": 1,
        "ruleset": "cgr2022",
        "strategies": STRATS,
        "deals": 2,
        "final_levels": ["2", "5"],
        "winner": None,
        "capped": True,
        "error": None,
    },
    {
        "v": 1,
        "run_id": "r",
        "match": 1,
        "match_seed": 2,
        "ruleset": "cgr2022",
        "strategies": STRATS,
        "deals": 3,
        "final_levels": ["2", "A+"],
        "winner": 1,
        "capped": False,
        "error": None,
    },
    {
        "v": 1,
        "run_id": "r",
        "match": 2,
        "match_seed": 3,
        "ruleset": "cgr2022",
        "strategies": STRATS,
        "deals": 4,
        "final_levels": ["2", "2"],
        "winner": None,
        "capped": False,
        "error": "boom",
    },
]


@pytest.fixture
def deals() -> pl.LazyFrame:
    return pl.DataFrame(RECORDS, schema=deal_schema()).lazy()


@pytest.fixture
def matches() -> pl.LazyFrame:
    return pl.DataFrame(MATCHES, schema=match_schema()).lazy()


def rows(df: pl.DataFrame, *keys: str) -> dict:
    return {tuple(r[k] for k in keys) if len(keys) > 1 else r[keys[0]]: r for r in df.to_dicts()}


def close(a, b):
    return a == pytest.approx(b, abs=1e-12)


def check_rate(row, name, k, n):
    assert close(row[name], k / n)
    lo, hi = wilson(k, n)
    assert close(row[f"{name}_lo"], lo) and close(row[f"{name}_hi"], hi)


def check_mean(row, name, values):
    m, lo, hi = mean_ci(values)
    assert close(row[name], m)
    if lo is None:
        assert row[f"{name}_lo"] is None
    else:
        assert close(row[f"{name}_lo"], lo) and close(row[f"{name}_hi"], hi)


# ---------------------------------------------------------------- stats


def test_wilson_known_values():
    lo, hi = wilson(5, 10)
    assert (round(lo, 4), round(hi, 4)) == (0.2366, 0.7634)
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == 1.0
    assert wilson(0, 0) == (None, None)


def test_mean_ci_formula():
    m, lo, hi = mean_ci([1.0, 2.0, 3.0, 4.0])
    half = 1.959963984540054 * math.sqrt(5 / 3) / 2
    assert m == 2.5 and close(lo, 2.5 - half) and close(hi, 2.5 + half)
    assert mean_ci([7.0]) == (7.0, None, None)


# ---------------------------------------------------------------- tribute


def test_tribute_effect(deals):
    df = tribute_effect(deals)
    assert df.select("kind", "side").rows() == [
        ("none", "leading"),
        ("none", "other"),
        ("single", "receiving"),
        ("single", "paying"),
        ("double", "receiving"),
        ("double", "paying"),
        ("resisted", "receiving"),
        ("resisted", "paying"),
    ]
    r = rows(df, "kind", "side")
    check_rate(r["none", "leading"], "win_rate", 1, 2)
    check_mean(r["none", "leading"], "mean_upgrade", [3, 0])
    check_mean(r["none", "other"], "mean_upgrade", [0, 1])
    check_rate(r["single", "receiving"], "win_rate", 0, 1)
    check_rate(r["single", "paying"], "win_rate", 1, 1)
    assert r["single", "paying"]["mean_upgrade"] == 2 and r["single", "paying"]["mean_upgrade_lo"] is None
    assert r["double", "receiving"]["wins"] == 1 and r["double", "receiving"]["mean_upgrade"] == 3
    assert r["resisted", "paying"]["wins"] == 1 and r["resisted", "paying"]["mean_upgrade"] == 1
    assert r["resisted", "receiving"]["mean_upgrade"] == 0


def test_tribute_card(deals):
    df = tribute_card(deals)
    assert df.select("kind", "power", "card", "payments", "receiver_wins").rows() == [
        ("single", 17, "HR", 1, 0),
        ("double", 14, "A", 1, 1),
        ("double", 15, "level", 1, 1),
    ]
    r = rows(df, "card")
    check_rate(r["A"], "share", 1, 2)
    check_rate(r["HR"], "receiver_win_rate", 0, 1)


def test_tribute_card_plot_runs_by_power(deals):
    from guandan_cli.reports.plots import figure_for

    df = tribute_card(deals)  # rows: single HR, then double A and level
    fig = figure_for("tribute-card", df)
    for ax in fig.axes:
        assert [t.get_text() for t in ax.get_xticklabels()] == ["A", "level", "HR"]
    two = pl.concat([df, df.with_columns(ruleset=pl.lit("jiangsu2017"))])
    ticks = [t.get_text() for t in figure_for("tribute-card", two).axes[0].get_xticklabels()]
    assert ticks == [f"{r} {c}" for r in ("cgr2022", "jiangsu2017") for c in ("A", "level", "HR")]


def test_first_leader(deals):
    df = first_leader(deals)
    assert df["kind"].to_list() == ["none", "single", "double", "resisted", "all"]
    r = rows(df, "kind")
    check_rate(r["none"], "team_win_rate", 1, 2)
    check_rate(r["none"], "first_out_rate", 1, 2)
    check_rate(r["single"], "team_win_rate", 1, 1)
    assert r["double"]["team_wins"] == 0 and r["resisted"]["team_wins"] == 0
    check_rate(r["all"], "team_win_rate", 2, 5)
    check_rate(r["all"], "first_out_rate", 2, 5)
    check_mean(r["all"], "mean_upgrade", [3, 2, 0, 0, 0])


# ---------------------------------------------------------------- bombs


def test_bombs_by_class(deals):
    df = bombs(deals)
    assert df["class"].to_list() == ["4", "5", "sf", "6", "7", "8", "9", "10", "joker", "all"]
    r = rows(df, "class")
    assert (r["4"]["bombs"], r["4"]["deals_with"], r["4"]["near_out"]) == (2, 2, 1)
    check_mean(r["4"], "per_deal", [1, 1, 0, 0, 0])
    assert close(r["4"]["per_seat"], 0.4 / 4) and close(r["4"]["per_seat_hi"], r["4"]["per_deal_hi"] / 4)
    check_rate(r["4"], "deals_with_rate", 2, 5)
    check_rate(r["4"], "near_out_rate", 1, 2)
    assert r["6"]["bombs"] == 0 and r["6"]["near_out_rate"] is None
    check_mean(r["all"], "per_deal", [2, 2, 0, 1, 0])
    check_rate(r["all"], "deals_with_rate", 3, 5)
    check_rate(r["all"], "near_out_rate", 4, 5)
    for cls in ("5", "sf", "joker"):
        assert r[cls]["bombs"] == 1 and r[cls]["near_out"] == 1


def test_bombs_by_player(deals):
    df = bombs_by_player(deals)
    r = rows(df, "strategy")
    assert df["strategy"].to_list() == ["greedy", "random"]
    assert (r["greedy"]["seat_deals"], r["greedy"]["bombs"], r["greedy"]["near_out"]) == (10, 3, 3)
    check_mean(r["greedy"], "per_seat_deal", [1, 0, 0, 0, 0, 1, 1, 0, 0, 0])
    assert (r["random"]["bombs"], r["random"]["near_out"]) == (2, 1)
    by_seat = rows(bombs_by_player(deals, by=("seat",)), "seat")
    assert [by_seat[s]["bombs"] for s in range(4)] == [2, 2, 1, 0]


def test_winner_bombs(deals):
    df = winner_bombs(deals)
    assert df["who"].to_list() == ["first_out", "winning_team", "losing_team", "sole_bombing_team_won"]
    r = rows(df, "who")
    check_rate(r["first_out"], "rate", 3, 5)
    check_rate(r["winning_team"], "rate", 3, 5)
    check_rate(r["losing_team"], "rate", 1, 5)
    check_rate(r["sole_bombing_team_won"], "rate", 2, 2)


# ---------------------------------------------------------------- partners, double-down


def test_partners(deals):
    df = partners(deals)
    assert df.select("strategy", "partner_place", "upgrade", "deals", "count").rows() == [
        ("greedy", 2, 3, 2, 0),
        ("greedy", 3, 2, 2, 1),
        ("greedy", 4, 1, 2, 1),
        ("random", 2, 3, 3, 2),
        ("random", 3, 2, 3, 0),
        ("random", 4, 1, 3, 1),
    ]
    check_rate(rows(df, "strategy", "partner_place")["random", 2], "rate", 2, 3)
    by_seat = partners(deals, by=("strategy", "seat"))
    assert by_seat.filter(partner_place=2).select("strategy", "seat", "deals", "count").rows() == [
        ("greedy", 0, 1, 0),
        ("greedy", 2, 1, 0),
        ("random", 1, 2, 2),
        ("random", 3, 1, 0),
    ]


def test_double_down(deals):
    df = double_down(deals)
    assert df["team_strategy"].to_list() == ["all", "greedy", "random"]
    r = rows(df, "team_strategy")
    # the all row counts team-deals too: 2 double-downs in 5 deals are 2 of 10 team-deals,
    # with the deals' interval halved (one trial a deal)
    lo, hi = wilson(2, 5)
    assert r["all"]["team_deals"] == 10 and r["all"]["achieved"] == r["all"]["suffered"] == 2
    for name in ("achieved_rate", "suffered_rate"):
        assert close(r["all"][name], 0.2)
        assert close(r["all"][f"{name}_lo"], lo / 2) and close(r["all"][f"{name}_hi"], hi / 2)
    assert close(r["all"]["achieved_rate"], (r["greedy"]["achieved"] + r["random"]["achieved"]) / 10)
    check_rate(r["greedy"], "suffered_rate", 2, 5)
    assert r["greedy"]["achieved"] == 0 and r["random"]["achieved"] == 2 and r["random"]["team_deals"] == 5


# ---------------------------------------------------------------- lengths and levels


def test_deal_length(deals):
    df = deal_length(deals)
    assert df["metric"].to_list() == ["tricks", "plays", "passes", "actions"]
    r = rows(df, "metric")
    check_mean(r["tricks"], "mean", [10, 12, 14, 16, 18])
    assert (r["tricks"]["median"], r["tricks"]["min"], r["tricks"]["max"]) == (14, 10, 18)
    check_mean(r["actions"], "mean", [30, 36, 42, 48, 54])  # plays + passes = 3 * tricks here
    # the slim frame (no actions list) gives the same answer
    assert deal_length(slim_deals(deals)).equals(df)


def test_match_length(matches):
    df = match_length(matches)
    assert df["status"].to_list() == ["all", "won", "capped", "error"]
    r = rows(df, "status")
    check_mean(r["all"], "mean_deals", [2, 3, 4])
    check_rate(r["won"], "share", 1, 3)
    assert (r["capped"]["mean_deals"], r["error"]["max"]) == (2, 4)


def test_level_progression(deals):
    df = level_progression(deals)
    assert df["deal"].to_list() == [0, 1, 2]
    r = rows(df, "deal")
    check_mean(r[0], "mean_level", [2, 2])
    check_mean(r[1], "mean_level", [5, 3])
    assert r[2]["mean_level"] == 14 and r[2]["at_a"] == 1 and r[2]["matches"] == 1
    check_mean(r[1], "mean_top_level", [5, 3])


# ---------------------------------------------------------------- wilds, jiefeng, win rates


def test_wild_use(deals):
    df = wild_use(deals)
    assert df["type"].to_list() == ["straight", "bomb", "all"]
    r = rows(df, "type")
    check_rate(r["straight"], "share", 1, 2)
    check_rate(r["all"], "deals_with_rate", 2, 5)
    check_mean(r["all"], "per_deal", [1, 1, 0, 0, 0])
    assert (r["all"]["wilds"], r["all"]["mean_wilds"], r["all"]["two_wild_plays"]) == (3, 1.5, 1)


def test_jiefeng(deals):
    r = jiefeng(deals).row(0, named=True)
    assert (r["total"], r["deals_with"]) == (3, 2)
    check_rate(r, "deals_with_rate", 2, 5)
    check_mean(r, "per_deal", [0, 1, 0, 2, 0])
    assert close(r["per_100_tricks"], 300 / 70)


def test_strategy_deals(deals):
    df = strategy_deals(deals)
    r = rows(df, "strategy")
    check_rate(r["greedy"], "win_rate", 2, 5)
    check_rate(r["random"], "win_rate", 3, 5)
    assert r["greedy"]["first_out"] == 2
    check_mean(r["greedy"], "mean_gain", [0, 2, 0, 0, 1])
    check_mean(r["random"], "mean_gain", [3, 0, 1, 3, 0])
    seats = strategy_deals(deals, by=("seat",))
    assert seats.select("strategy", "seat", "deals", "wins", "first_out").rows() == [
        ("greedy", 0, 5, 2, 1),
        ("greedy", 2, 5, 2, 1),
        ("random", 1, 5, 3, 2),
        ("random", 3, 5, 3, 1),
    ]


def test_strategy_matches(matches):
    df = strategy_matches(matches)
    assert df.select("strategy", "matches", "decided", "wins", "undecided").rows() == [
        ("greedy", 3, 1, 0, 2),
        ("random", 3, 1, 1, 2),
    ]
    check_rate(rows(df, "strategy")["random"], "win_rate", 1, 1)


def test_mirrored_strategy_is_one_observation_per_team():
    recs = [dict(RECORDS[0], strategies=["greedy"] * 4)]
    r = strategy_deals(pl.DataFrame(recs, schema=deal_schema()).lazy()).row(0, named=True)
    assert (r["deals"], r["wins"], r["win_rate"]) == (2, 1, 0.5)


def test_every_report_runs_and_is_sorted(deals, matches):
    for name in REPORTS:
        df = run_report(name, deals, matches)
        assert isinstance(df, pl.DataFrame) and df.height > 0, name
        again = run_report(name, deals.collect().sample(fraction=1.0, shuffle=True, seed=3).lazy(), matches)
        assert_frame_equal(again, df, check_exact=False, rel_tol=1e-9)


def test_empty_frames_give_empty_reports():
    empty_d = pl.LazyFrame(schema=deal_schema())
    empty_m = pl.LazyFrame(schema=match_schema())
    for name in REPORTS:
        df = run_report(name, empty_d, empty_m)
        assert df.height == 0 or name == "bombs", name


def test_unknown_report_and_grouping(deals):
    with pytest.raises(ValueError, match="unknown report"):
        run_report("nope", deals)
    with pytest.raises(ValueError, match="unknown grouping"):
        partners(deals, by=("colour",))


def test_wilson_expression_agrees_with_the_scalar_interval():
    import polars as pl

    from guandan_cli.reports.stats import wilson_exprs
    from guandan_cli.stats import wilson_interval

    ks, ns = [], []
    for n in (1, 2, 7, 50, 401):
        for k in sorted({0, 1, n // 3, n // 2, n - 1, n}):
            ks.append(k)
            ns.append(n)
    df = pl.DataFrame({"k": ks, "n": ns}).select(wilson_exprs(pl.col("k"), pl.col("n"), "r"))
    for k, n, lo, hi in zip(ks, ns, df["r_lo"], df["r_hi"]):
        elo, ehi = wilson_interval(k, n)
        assert abs(lo - elo) < 1e-12 and abs(hi - ehi) < 1e-12


def test_mean_intervals_stay_within_the_values_range():
    import polars as pl

    from guandan_cli.reports.stats import mean_ci, mean_ci_aggs

    values = [0, 0, 0, 0, 3]  # mean 0.6, sd 1.34: the plain interval would start below 0
    m, lo, hi = mean_ci(values)
    assert m == 0.6 and lo == 0.0 and 0.6 < hi < 3
    row = pl.DataFrame({"x": values}).select(mean_ci_aggs(pl.col("x"), "m")).row(0, named=True)
    assert row["m"] == m and row["m_lo"] == lo and abs(row["m_hi"] - hi) < 1e-12
    assert pl.DataFrame({"x": [2]}).select(mean_ci_aggs(pl.col("x"), "m")).row(0) == (2.0, None, None)


def test_grouping_given_as_a_string(deals):
    """``by="seat"`` is one grouping and ``"strategy,seat"`` two, as on the command line (a
    string was split into letters: ``unknown grouping 's'``)."""
    assert_frame_equal(partners(deals, by="seat"), partners(deals, by=("seat",)))
    assert_frame_equal(run_report("partners", deals, by="seat"), partners(deals, by=("seat",)))
    both = ("strategy", "seat")
    assert_frame_equal(
        run_report("strategy-deals", deals, by="strategy,seat"), strategy_deals(deals, by=both)
    )
    with pytest.raises(ValueError, match="unknown grouping 'colour'"):
        run_report("partners", deals, by="colour")


@pytest.mark.parametrize("bad", [5, None, [5], b"runs/x"])
def test_load_names_a_run_that_is_not_a_path(bad):
    """QA: ``load(5)`` raised "'int' object is not iterable"."""
    from guandan_cli.reports import load

    with pytest.raises(
        TypeError,
        match=r"load\(\): .* is not a path \(a run directory, a part file or a list of part files\)",
    ):
        load(bad)


def test_run_report_names_a_run_data_given_for_its_frames(deals, matches):
    """QA: ``run_report("bombs", load(run))`` raised "'RunData' object has no attribute
    'group_by'"; an eager DataFrame raised "has no attribute 'collect'"."""
    from guandan_cli.reports import RunData

    data = RunData.__new__(RunData)
    with pytest.raises(TypeError, match=r"deals: a RunData, not a frame: pass data\.deals and data\.matches"):
        run_report("bombs", data)
    with pytest.raises(TypeError, match="matches: a str, not a frame"):
        run_report("match-length", deals, "runs/x")
    assert_frame_equal(run_report("bombs", deals.collect()), run_report("bombs", deals))
    assert_frame_equal(
        run_report("match-length", None, matches.collect()), run_report("match-length", None, matches)
    )

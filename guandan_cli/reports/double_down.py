"""Double-down (双下) rate: how often a team's two players finish 1st and 2nd.

Counted per team and deal, grouped by the team's strategies (``greedy`` when both
seats play it, ``greedy+random`` for a mixed team, lower seat first).
"""

from __future__ import annotations

import polars as pl

from ._common import team_label
from .aggregate import Aggregate, Partial
from .stats import wilson_exprs


def _double_down_partial(deals: pl.LazyFrame) -> Partial:
    base = deals.select("ruleset", "strategies", "winner_team", "double_down")
    teams = pl.concat([base.with_columns(team=pl.lit(t, dtype=pl.Int32)) for t in (0, 1)]).with_columns(
        team_strategy=team_label(pl.col("strategies"), pl.col("team")),
        achieved=pl.col("double_down") & (pl.col("winner_team") == pl.col("team")),
        suffered=pl.col("double_down") & (pl.col("winner_team") != pl.col("team")),
    )
    per_team = teams.group_by("ruleset", "team_strategy").agg(
        team_deals=pl.len().cast(pl.Int64),
        achieved=pl.col("achieved").sum().cast(pl.Int64),
        suffered=pl.col("suffered").sum().cast(pl.Int64),
    )
    overall = base.group_by("ruleset").agg(
        deals=pl.len().cast(pl.Int64), achieved=pl.col("double_down").sum().cast(pl.Int64)
    )
    return tuple(pl.collect_all([per_team, overall]))


def _double_down_final(per_team: pl.DataFrame, overall: pl.DataFrame) -> pl.DataFrame:
    overall = (
        overall.with_columns(team_strategy=pl.lit("all"))
        .with_columns(*wilson_exprs(pl.col("achieved"), pl.col("deals"), "achieved_rate"))
        .with_columns(
            pl.col("achieved_rate", "achieved_rate_lo", "achieved_rate_hi") / 2,
            team_deals=2 * pl.col("deals"),
            suffered=pl.col("achieved"),
        )
        .with_columns(
            suffered_rate=pl.col("achieved_rate"),
            suffered_rate_lo=pl.col("achieved_rate_lo"),
            suffered_rate_hi=pl.col("achieved_rate_hi"),
        )
        .drop("deals")
    )
    per_team = per_team.with_columns(
        *wilson_exprs(pl.col("achieved"), pl.col("team_deals"), "achieved_rate"),
        *wilson_exprs(pl.col("suffered"), pl.col("team_deals"), "suffered_rate"),
    )
    out = pl.concat([overall, per_team], how="diagonal").select(
        "ruleset",
        "team_strategy",
        "team_deals",
        "achieved",
        "achieved_rate",
        "achieved_rate_lo",
        "achieved_rate_hi",
        "suffered",
        "suffered_rate",
        "suffered_rate_lo",
        "suffered_rate_hi",
    )
    return out.sort(["ruleset", pl.col("team_strategy") != "all", "team_strategy"])


DOUBLE_DOWN = Aggregate(
    _double_down_partial, _double_down_final, keys=(("ruleset", "team_strategy"), ("ruleset",))
)


def double_down(deals: pl.LazyFrame) -> pl.DataFrame:
    """Double-downs achieved and suffered, by ruleset and team strategies (plus ``all``).

    Columns: ruleset, team_strategy, team_deals, achieved, achieved_rate(+CI) (this
    team finished 1st and 2nd), suffered, suffered_rate(+CI). Every row counts
    team-deals: the ``all`` row pools both teams of every deal (team_deals = 2 × deals;
    achieved = suffered = double-downs), so its rates are half the share of deals that
    end in a double-down. Its interval is that share's Wilson interval over deals, halved
    (the two team-deals of a deal are one trial: exactly one of them achieves a
    double-down when there is one). Sorted by ruleset then team_strategy with ``all`` first.
    """
    return DOUBLE_DOWN(deals)

"""Match length (deals per match) and level progression through a match."""

from __future__ import annotations

import polars as pl

from guandan_cli.reports._common import level_number
from guandan_cli.reports.stats import mean_ci_aggs, wilson_exprs

STATUS_ORDER = ("all", "won", "capped", "error")


def match_length(matches: pl.LazyFrame) -> pl.DataFrame:
    """Deals per match by ruleset and status (``all``, ``won``, ``capped``, ``error``).

    A match is ``won`` when it has a winner, ``capped`` when it hit ``max_deals``,
    ``error`` when a strategy failed. Columns: ruleset, status, matches, share(+CI) of
    the ruleset's matches, mean_deals(+CI), median, min, max. Sorted by ruleset, status.
    """
    base = matches.select(
        "ruleset",
        "deals",
        status=pl.when(pl.col("error").is_not_null())
        .then(pl.lit("error"))
        .when(pl.col("winner").is_not_null())
        .then(pl.lit("won"))
        .when(pl.col("capped"))
        .then(pl.lit("capped"))
        .otherwise(pl.lit("unfinished")),
    )
    both = pl.concat([base.with_columns(status=pl.lit("all")), base])
    out = (
        both.group_by("ruleset", "status")
        .agg(
            *mean_ci_aggs(pl.col("deals"), "mean_deals"),
            matches=pl.len().cast(pl.Int64),
            median=pl.col("deals").median().cast(pl.Float64),
            min=pl.col("deals").min().cast(pl.Int64),
            max=pl.col("deals").max().cast(pl.Int64),
        )
        .with_columns(total=pl.col("matches").filter(pl.col("status") == "all").first().over("ruleset"))
        .with_columns(wilson_exprs(pl.col("matches"), pl.col("total"), "share"))
        .select(
            "ruleset",
            "status",
            "matches",
            "share",
            "share_lo",
            "share_hi",
            "mean_deals",
            "mean_deals_lo",
            "mean_deals_hi",
            "median",
            "min",
            "max",
        )
        .collect()
    )
    order = {s: i for i, s in enumerate(STATUS_ORDER)}
    return (
        out.with_columns(o=pl.col("status").replace_strict(order, default=len(order), return_dtype=pl.Int32))
        .sort("ruleset", "o", "status")
        .drop("o")
    )


def level_progression(deals: pl.LazyFrame) -> pl.DataFrame:
    """Levels through a match, by ruleset and deal index (0 = a match's first deal).

    Columns: ruleset, deal, matches (matches that reached this deal), mean_level(+CI)
    (the level the deal is played at, 2…14 for 2…A), mean_top_level(+CI) (the higher
    team's level before the deal), at_a, at_a_rate(+CI) (deals played at A).
    Sorted by ruleset, deal.
    """
    base = deals.select(
        "ruleset",
        "deal",
        level=level_number(pl.col("level")),
        top=pl.max_horizontal(
            level_number(pl.col("levels_before").list.get(0)),
            level_number(pl.col("levels_before").list.get(1)),
        ),
    )
    out = (
        base.group_by("ruleset", "deal")
        .agg(
            *mean_ci_aggs(pl.col("level"), "mean_level"),
            *mean_ci_aggs(pl.col("top"), "mean_top_level"),
            matches=pl.len().cast(pl.Int64),
            at_a=(pl.col("level") == 14).sum().cast(pl.Int64),
        )
        .with_columns(wilson_exprs(pl.col("at_a"), pl.col("matches"), "at_a_rate"))
        .collect()
    )
    return out.sort("ruleset", "deal")

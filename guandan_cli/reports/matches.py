"""Match length (deals per match) and level progression through a match."""

from __future__ import annotations

import polars as pl

from ._common import level_number
from .aggregate import Aggregate, Partial, histogram_summary, mean_ci_from_moments, moments
from .stats import wilson_exprs

STATUS_ORDER = ("all", "won", "capped", "error")


def _match_length_partial(matches: pl.LazyFrame) -> Partial:
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
    hist = both.group_by("ruleset", "status", pl.col("deals").cast(pl.Int64).alias("value")).agg(
        n=pl.len().cast(pl.Int64)
    )
    return (hist.collect(),)


def _match_length_final(hist: pl.DataFrame) -> pl.DataFrame:
    out = (
        histogram_summary(hist, ["ruleset", "status"])
        .rename({"deals": "matches"})
        .with_columns(*mean_ci_from_moments("x", "mean_deals"))
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
            min="x_min",
            max="x_max",
        )
    )
    order = {s: i for i, s in enumerate(STATUS_ORDER)}
    return (
        out.with_columns(o=pl.col("status").replace_strict(order, default=len(order), return_dtype=pl.Int32))
        .sort("ruleset", "o", "status")
        .drop("o")
    )


MATCH_LENGTH = Aggregate(_match_length_partial, _match_length_final, keys=(("ruleset", "status", "value"),))


def match_length(matches: pl.LazyFrame) -> pl.DataFrame:
    """Deals per match by ruleset and status (``all``, ``won``, ``capped``, ``error``).

    A match is ``won`` when it has a winner, ``capped`` when it hit ``max_deals``,
    ``error`` when a strategy failed. Columns: ruleset, status, matches, share(+CI) of
    the ruleset's matches, mean_deals(+CI), median, min, max. Sorted by ruleset, status.
    """
    return MATCH_LENGTH(matches)


def _levels_partial(deals: pl.LazyFrame) -> Partial:
    base = deals.select(
        "ruleset",
        "deal",
        level=level_number(pl.col("level")),
        top=pl.max_horizontal(
            level_number(pl.col("levels_before").list.get(0)),
            level_number(pl.col("levels_before").list.get(1)),
        ),
    )
    table = base.group_by("ruleset", "deal").agg(
        *moments(pl.col("level"), "level"),
        *moments(pl.col("top"), "top"),
        matches=pl.len().cast(pl.Int64),
        at_a=(pl.col("level") == 14).sum().cast(pl.Int64),
    )
    return (table.collect(),)


def _levels_final(table: pl.DataFrame) -> pl.DataFrame:
    out = (
        table.with_columns(
            *mean_ci_from_moments("level", "mean_level"), *mean_ci_from_moments("top", "mean_top_level")
        )
        .select(
            "ruleset",
            "deal",
            "mean_level",
            "mean_level_lo",
            "mean_level_hi",
            "mean_top_level",
            "mean_top_level_lo",
            "mean_top_level_hi",
            "matches",
            "at_a",
        )
        .with_columns(wilson_exprs(pl.col("at_a"), pl.col("matches"), "at_a_rate"))
    )
    return out.sort("ruleset", "deal")


LEVELS = Aggregate(_levels_partial, _levels_final, keys=(("ruleset", "deal"),))


def level_progression(deals: pl.LazyFrame) -> pl.DataFrame:
    """Levels through a match, by ruleset and deal index (0 = a match's first deal).

    Columns: ruleset, deal, matches (matches that reached this deal), mean_level(+CI)
    (the level the deal is played at, 2…14 for 2…A), mean_top_level(+CI) (the higher
    team's level before the deal), at_a, at_a_rate(+CI) (deals played at A).
    Sorted by ruleset, deal.
    """
    return LEVELS(deals)

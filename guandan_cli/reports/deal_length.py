"""Deal length: tricks, plays, passes and actions per deal."""

from __future__ import annotations

import polars as pl

from .aggregate import Aggregate, Partial, histogram_summary, mean_ci_from_moments

METRICS = ("tricks", "plays", "passes", "actions")


def _deal_length_partial(deals: pl.LazyFrame) -> Partial:
    d = pl.col("derived")
    base = deals.select(
        "ruleset",
        tricks=d.struct.field("tricks"),
        plays=d.struct.field("plays"),
        passes=d.struct.field("passes"),
        actions=(d.struct.field("plays") + d.struct.field("passes")).cast(pl.Int32),
    )
    frames = [
        base.group_by("ruleset", pl.col(m).cast(pl.Int64).alias("value"))
        .agg(n=pl.len().cast(pl.Int64))
        .select("ruleset", metric=pl.lit(m), value="value", n="n")
        for m in METRICS
    ]
    return (pl.concat(frames).collect(),)


def _deal_length_final(hist: pl.DataFrame) -> pl.DataFrame:
    order = {m: i for i, m in enumerate(METRICS)}
    out = histogram_summary(hist, ["ruleset", "metric"]).with_columns(*mean_ci_from_moments("x", "mean"))
    out = out.with_columns(order=pl.col("metric").replace_strict(order, return_dtype=pl.Int32))
    cols = ["ruleset", "metric", "deals", "mean", "mean_lo", "mean_hi", "median", "p90", "min", "max"]
    return out.rename({"x_min": "min", "x_max": "max"}).sort("ruleset", "order").select(cols)


DEAL_LENGTH = Aggregate(_deal_length_partial, _deal_length_final, keys=(("ruleset", "metric", "value"),))


def deal_length(deals: pl.LazyFrame) -> pl.DataFrame:
    """Per ruleset and metric (tricks, plays, passes, actions = plays + passes).

    Columns: ruleset, metric, deals, mean(+CI), median, p90, min, max. ``actions`` is
    plays + passes, the length of a record's ``actions`` list (which holds exactly the
    plays and passes), so the heavy list itself is never read. Sorted by ruleset then
    metric in that order.
    """
    return DEAL_LENGTH(deals)

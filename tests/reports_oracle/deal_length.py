"""Deal length: tricks, plays, passes and actions per deal."""

from __future__ import annotations

import polars as pl

from guandan_cli.reports.stats import mean_ci_aggs

METRICS = ("tricks", "plays", "passes", "actions")


def deal_length(deals: pl.LazyFrame) -> pl.DataFrame:
    """Per ruleset and metric (tricks, plays, passes, actions = plays + passes).

    Columns: ruleset, metric, deals, mean(+CI), median, p90, min, max. ``actions`` is
    plays + passes, the length of a record's ``actions`` list (which holds exactly the
    plays and passes), so the heavy list itself is never read. Sorted by ruleset then
    metric in that order.
    """
    d = pl.col("derived")
    base = deals.select(
        "ruleset",
        tricks=d.struct.field("tricks"),
        plays=d.struct.field("plays"),
        passes=d.struct.field("passes"),
        actions=(d.struct.field("plays") + d.struct.field("passes")).cast(pl.Int32),
    )
    frames = []
    for i, m in enumerate(METRICS):
        x = pl.col(m)
        frames.append(
            base.group_by("ruleset").agg(
                *mean_ci_aggs(x, "mean"),
                metric=pl.lit(m),
                order=pl.lit(i),
                deals=pl.len().cast(pl.Int64),
                median=x.median().cast(pl.Float64),
                p90=x.quantile(0.9, interpolation="nearest").cast(pl.Float64),
                min=x.min().cast(pl.Int64),
                max=x.max().cast(pl.Int64),
            )
        )
    cols = ["ruleset", "metric", "deals", "mean", "mean_lo", "mean_hi", "median", "p90", "min", "max"]
    return pl.concat(frames).collect().sort("ruleset", "order").select(cols)

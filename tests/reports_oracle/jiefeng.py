"""接风 (jiefeng) frequency: a finisher's unbeaten last play hands the lead to the partner.

Counted as each ruleset defines 接风 (``derived.jiefeng``, see docs/log-format.md):
``cgr2022`` after any finisher's last play, ``jiangsu2017`` only after 上游's. Deals
logged under schema version 1 with ``jiangsu2017`` counted more than that; they are left
out of this report.
"""

from __future__ import annotations

import polars as pl

from guandan_cli.reports.stats import mean_ci_aggs, wilson_exprs


def jiefeng(deals: pl.LazyFrame) -> pl.DataFrame:
    """接风 per ruleset: deals, total, deals_with, deals_with_rate(+CI), per_deal(+CI),
    per_100_tricks. Sorted by ruleset."""
    d = pl.col("derived")
    if "v" in deals.collect_schema().names():
        deals = deals.filter(~((pl.col("v") == 1) & (pl.col("ruleset") == "jiangsu2017")))
    out = (
        deals.select("ruleset", j=d.struct.field("jiefeng"), t=d.struct.field("tricks"))
        .group_by("ruleset")
        .agg(
            *mean_ci_aggs(pl.col("j"), "per_deal", counts=True),
            deals=pl.len().cast(pl.Int64),
            total=pl.col("j").sum().cast(pl.Int64),
            deals_with=(pl.col("j") > 0).sum().cast(pl.Int64),
            tricks=pl.col("t").sum().cast(pl.Int64),
        )
        .with_columns(
            *wilson_exprs(pl.col("deals_with"), pl.col("deals"), "deals_with_rate"),
            per_100_tricks=100 * pl.col("total") / pl.col("tricks"),
        )
        .select(
            "ruleset",
            "deals",
            "total",
            "deals_with",
            "deals_with_rate",
            "deals_with_rate_lo",
            "deals_with_rate_hi",
            "per_deal",
            "per_deal_lo",
            "per_deal_hi",
            "per_100_tricks",
        )
        .collect()
    )
    return out.sort("ruleset")

"""Wild-card (逢人配) use: how often the ♥ level cards are played, and in which combinations."""

from __future__ import annotations

import polars as pl

from ._common import DEAL_ID, TYPE_ORDER, sort_by_order
from .aggregate import Aggregate, Partial
from .stats import mean_ci_from_sums, wilson_exprs

ORDER = (*TYPE_ORDER, "all")


def _wild_use_partial(deals: pl.LazyFrame) -> Partial:
    totals = deals.group_by("ruleset").agg(deals=pl.len().cast(pl.Int64))
    w = (
        deals.select(*DEAL_ID, "ruleset", wp=pl.col("derived").struct.field("wild_plays"))
        .explode("wp")
        .filter(pl.col("wp").is_not_null())
        .with_columns(type=pl.col("wp").struct.field("type"), wilds=pl.col("wp").struct.field("wilds"))
    )
    w = pl.concat([w, w.with_columns(type=pl.lit("all"))])
    per_deal = w.group_by(*DEAL_ID, "ruleset", "type").agg(
        n=pl.len().cast(pl.Int64),
        wilds=pl.col("wilds").sum().cast(pl.Int64),
        two=(pl.col("wilds") >= 2).sum(),
    )
    agg = per_deal.group_by("ruleset", "type").agg(
        plays=pl.col("n").sum(),
        sq=(pl.col("n") ** 2).sum(),
        deals_with=pl.len().cast(pl.Int64),
        wilds=pl.col("wilds").sum(),
        two_wild_plays=pl.col("two").sum().cast(pl.Int64),
    )
    return tuple(pl.collect_all([totals, agg]))


def _wild_use_final(totals: pl.DataFrame, agg: pl.DataFrame) -> pl.DataFrame:
    out = (
        agg.join(totals, on="ruleset")
        .with_columns(all_plays=pl.col("plays").filter(pl.col("type") == "all").first().over("ruleset"))
        .with_columns(
            *wilson_exprs(pl.col("plays"), pl.col("all_plays"), "share"),
            *mean_ci_from_sums(pl.col("plays"), pl.col("sq"), pl.col("deals"), "per_deal"),
            *wilson_exprs(pl.col("deals_with"), pl.col("deals"), "deals_with_rate"),
            mean_wilds=pl.col("wilds") / pl.col("plays"),
        )
        .select(
            "ruleset",
            "type",
            "deals",
            "plays",
            "share",
            "share_lo",
            "share_hi",
            "per_deal",
            "per_deal_lo",
            "per_deal_hi",
            "deals_with",
            "deals_with_rate",
            "deals_with_rate_lo",
            "deals_with_rate_hi",
            "wilds",
            "mean_wilds",
            "two_wild_plays",
        )
    )
    return sort_by_order(out, ["ruleset", "type"], {"type": ORDER})


WILD_USE = Aggregate(_wild_use_partial, _wild_use_final, keys=(("ruleset",), ("ruleset", "type")))


def wild_use(deals: pl.LazyFrame) -> pl.DataFrame:
    """Plays containing wild cards, by ruleset and combination type (plus ``all``).

    Columns: ruleset, type, deals, plays (plays of this type holding ≥ 1 wild),
    share(+CI) of all wild plays, per_deal(+CI), deals_with, deals_with_rate(+CI)
    (deals with ≥ 1 such play), wilds (wild cards used), mean_wilds (per play),
    two_wild_plays. Types with no wild play are left out. Sorted by ruleset and type
    (single, pair, …, straight_flush, all).
    """
    return WILD_USE(deals)

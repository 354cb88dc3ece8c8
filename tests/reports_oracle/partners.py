"""Partner finishing rates: given 上游, where does the partner finish?

Partner 2nd is a double-down (双下, upgrade +3), 3rd gives +2, last gives +1, so the
deal's ``upgrade`` tells the partner's place. Grouped by the 上游's strategy and/or
seat (``by``) within each ruleset.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from guandan_cli.reports._common import check_by
from guandan_cli.reports.stats import wilson_exprs


def partners(deals: pl.LazyFrame, by: Sequence[str] | str = ("strategy",)) -> pl.DataFrame:
    """Partner's finishing place given 上游, by ruleset and ``by`` (of the 上游).

    Columns: ruleset, *by, partner_place (2, 3, 4), upgrade (3, 2, 1), deals (deals
    with such a 上游), count, rate(+CI). Sorted by ruleset, ``by``, partner_place.
    """
    by = check_by(by)
    first = pl.col("finish_order").list.get(0)
    base = deals.select(
        "ruleset",
        "upgrade",
        seat=first,
        strategy=pl.col("strategies").list.get(first.cast(pl.Int64)),
    )
    out = (
        base.group_by("ruleset", *by)
        .agg(
            deals=pl.len().cast(pl.Int64),
            p2=(pl.col("upgrade") == 3).sum().cast(pl.Int64),
            p3=(pl.col("upgrade") == 2).sum().cast(pl.Int64),
            p4=(pl.col("upgrade") == 1).sum().cast(pl.Int64),
        )
        .unpivot(
            index=["ruleset", *by, "deals"], on=["p2", "p3", "p4"], variable_name="place", value_name="count"
        )
        .with_columns(partner_place=pl.col("place").str.slice(1).cast(pl.Int32))
        .with_columns(upgrade=(5 - pl.col("partner_place")).cast(pl.Int32))
        .with_columns(wilson_exprs(pl.col("count"), pl.col("deals"), "rate"))
        .select("ruleset", *by, "partner_place", "upgrade", "deals", "count", "rate", "rate_lo", "rate_hi")
        .collect()
    )
    return out.sort(["ruleset", *by, "partner_place"])

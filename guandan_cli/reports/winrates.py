"""Strategy win rates, by deal and by match.

A strategy's deal-win rate counts, for each deal, each team on which it holds at least
one seat once (so a team of two ``greedy`` seats is one observation, not two): the
team wins when its player is 上游. With ``by=("strategy", "seat")`` the unit is a seat.
When both teams play the same strategy its rate is 0.5 by construction.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from ._common import DEAL_ID, check_by, seat_rows
from .aggregate import Aggregate, Partial, mean_ci_from_moments, moments
from .stats import wilson_exprs


def _by_with_strategy(by: Sequence[str] | str) -> list[str]:
    by = check_by(by) or ["strategy"]
    return by if "strategy" in by else ["strategy", *by]


def _strategy_deals_partial(deals: pl.LazyFrame, by: Sequence[str] | str = ("strategy",)) -> Partial:
    by = _by_with_strategy(by)
    rows = seat_rows(deals, extra=["winner_team", "upgrade", "finish_order"]).with_columns(
        won=pl.col("winner_team") == pl.col("team"),
        first=pl.col("finish_order").list.get(0) == pl.col("seat"),
    )
    unit = [*DEAL_ID, "ruleset", "team", "strategy"] + (["seat"] if "seat" in by else [])
    rows = rows.group_by(unit).agg(
        won=pl.col("won").first(), first=pl.col("first").any(), upgrade=pl.col("upgrade").first()
    )
    rows = rows.with_columns(gain=pl.when(pl.col("won")).then(pl.col("upgrade")).otherwise(0))
    table = rows.group_by("ruleset", *by).agg(
        *moments(pl.col("gain"), "gain"),
        deals=pl.len().cast(pl.Int64),
        wins=pl.col("won").sum().cast(pl.Int64),
        first_out=pl.col("first").sum().cast(pl.Int64),
    )
    return (table.collect(),)


def _strategy_deals_final(table: pl.DataFrame, by: Sequence[str] | str = ("strategy",)) -> pl.DataFrame:
    by = _by_with_strategy(by)
    out = (
        table.with_columns(*mean_ci_from_moments("gain", "mean_gain", counts=True))
        .with_columns(
            *wilson_exprs(pl.col("wins"), pl.col("deals"), "win_rate"),
            *wilson_exprs(pl.col("first_out"), pl.col("deals"), "first_out_rate"),
        )
        .select(
            "ruleset",
            *by,
            "deals",
            "wins",
            "win_rate",
            "win_rate_lo",
            "win_rate_hi",
            "first_out",
            "first_out_rate",
            "first_out_rate_lo",
            "first_out_rate_hi",
            "mean_gain",
            "mean_gain_lo",
            "mean_gain_hi",
        )
    )
    return out.sort(["ruleset", *by])


STRATEGY_DEALS = Aggregate(_strategy_deals_partial, _strategy_deals_final, keys=(("ruleset", "by"),))


def strategy_deals(deals: pl.LazyFrame, by: Sequence[str] | str = ("strategy",)) -> pl.DataFrame:
    """Deal-win rate per ruleset and strategy (and seat if in ``by``).

    Columns: ruleset, *by, deals (team-deals or seat-deals), wins, win_rate(+CI),
    first_out (the strategy's own seat was 上游), first_out_rate(+CI),
    mean_gain(+CI) (levels gained per deal: the upgrade when winning, else 0).
    Sorted by ruleset then ``by``.
    """
    return STRATEGY_DEALS(deals, by=by)


def _strategy_matches_partial(matches: pl.LazyFrame) -> Partial:
    rows = (
        matches.select("run_id", "match", "ruleset", "strategies", "winner")
        .with_columns(seat=pl.lit([0, 1, 2, 3], dtype=pl.List(pl.Int32)))
        .explode("seat")
        .with_columns(
            team=(pl.col("seat") % 2).cast(pl.Int32),
            strategy=pl.col("strategies").list.get(pl.col("seat").cast(pl.Int64)),
        )
        .unique(["run_id", "match", "team", "strategy"])
        .with_columns(decided=pl.col("winner").is_not_null(), won=pl.col("winner") == pl.col("team"))
    )
    table = rows.group_by("ruleset", "strategy").agg(
        matches=pl.len().cast(pl.Int64),
        decided=pl.col("decided").sum().cast(pl.Int64),
        wins=pl.col("won").fill_null(False).sum().cast(pl.Int64),
    )
    return (table.collect(),)


def _strategy_matches_final(table: pl.DataFrame) -> pl.DataFrame:
    out = table.with_columns(
        *wilson_exprs(pl.col("wins"), pl.col("decided"), "win_rate"),
        undecided=pl.col("matches") - pl.col("decided"),
    )
    return out.sort("ruleset", "strategy")


STRATEGY_MATCHES = Aggregate(
    _strategy_matches_partial, _strategy_matches_final, keys=(("ruleset", "strategy"),)
)


def strategy_matches(matches: pl.LazyFrame) -> pl.DataFrame:
    """Match-win rate per ruleset and strategy (one observation per team and match).

    Columns: ruleset, strategy, matches, decided (matches with a winner), wins,
    win_rate(+CI) over decided matches, undecided (capped or errored). Sorted by
    ruleset, strategy.
    """
    return STRATEGY_MATCHES(matches)

"""Bomb frequency (炸弹): how often bombs are played, by whom, and whether bombing wins.

- :func:`bombs` — per ruleset and bomb class (``4``, ``5``, ``sf``, ``6``…``10``,
  ``joker``, and ``all``): bombs per deal and per seat (+CI), the share of deals
  with at least one, and the share played while an opponent held ≤ 5 cards.
- :func:`bombs_by_player` — bombs per seat-deal by strategy and/or seat.
- :func:`winner_bombs` — how often the deal's winner (上游, its team) bombed.

Bomb facts come from ``derived.bombs`` (seat, class, key, opp_min_cards, lead);
``opp_min_cards`` is the smaller card count of the bomber's opponents still in play.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from ._common import BOMB_CLASS_ORDER, DEAL_ID, check_by, seat_rows, sort_by_order
from .aggregate import Aggregate, Partial
from .stats import mean_ci_from_sums, wilson_exprs

#: "an opponent is about to go out": at most this many cards
OPP_THRESHOLD = 5
CLASS_ORDER = (*BOMB_CLASS_ORDER, "all")


def _exploded(deals: pl.LazyFrame) -> pl.LazyFrame:
    return (
        deals.select(*DEAL_ID, "ruleset", "strategies", bomb=pl.col("derived").struct.field("bombs"))
        .explode("bomb")
        .filter(pl.col("bomb").is_not_null())
        .with_columns(
            seat=pl.col("bomb").struct.field("seat"),
            cls=pl.col("bomb").struct.field("class"),
            near_out=pl.col("bomb").struct.field("opp_min_cards").fill_null(99) <= OPP_THRESHOLD,
        )
    )


def _bombs_partial(deals: pl.LazyFrame) -> Partial:
    totals = deals.group_by("ruleset").agg(deals=pl.len().cast(pl.Int64))
    b = _exploded(deals)
    b = pl.concat([b, b.with_columns(cls=pl.lit("all"))])
    per_deal = b.group_by(*DEAL_ID, "ruleset", "cls").agg(
        n=pl.len().cast(pl.Int64), near=pl.col("near_out").sum().cast(pl.Int64)
    )
    agg = per_deal.group_by("ruleset", "cls").agg(
        bombs=pl.col("n").sum(),
        sq=(pl.col("n") ** 2).sum(),
        deals_with=pl.len().cast(pl.Int64),
        near_out=pl.col("near").sum(),
    )
    return tuple(pl.collect_all([totals, agg]))


def _bombs_final(totals: pl.DataFrame, agg: pl.DataFrame) -> pl.DataFrame:
    classes = pl.DataFrame({"cls": list(CLASS_ORDER)})
    grid = totals.join(classes, how="cross").join(agg, on=["ruleset", "cls"], how="left")
    out = (
        grid.with_columns(pl.col("bombs", "sq", "deals_with", "near_out").fill_null(0))
        .with_columns(
            *mean_ci_from_sums(pl.col("bombs"), pl.col("sq"), pl.col("deals"), "per_deal"),
            *wilson_exprs(pl.col("deals_with"), pl.col("deals"), "deals_with_rate"),
            *wilson_exprs(pl.col("near_out"), pl.col("bombs"), "near_out_rate"),
        )
        .with_columns(
            per_seat=pl.col("per_deal") / 4,
            per_seat_lo=pl.col("per_deal_lo") / 4,
            per_seat_hi=pl.col("per_deal_hi") / 4,
        )
        .rename({"cls": "class"})
        .select(
            "ruleset",
            "class",
            "deals",
            "bombs",
            "per_deal",
            "per_deal_lo",
            "per_deal_hi",
            "per_seat",
            "per_seat_lo",
            "per_seat_hi",
            "deals_with",
            "deals_with_rate",
            "deals_with_rate_lo",
            "deals_with_rate_hi",
            "near_out",
            "near_out_rate",
            "near_out_rate_lo",
            "near_out_rate_hi",
        )
    )
    return sort_by_order(out, ["ruleset", "class"], {"class": CLASS_ORDER})


BOMBS = Aggregate(_bombs_partial, _bombs_final, keys=(("ruleset",), ("ruleset", "cls")))


def bombs(deals: pl.LazyFrame) -> pl.DataFrame:
    """Bombs by ruleset and class (plus ``all``).

    Columns: ruleset, class, deals, bombs, per_deal(+CI), per_seat(+CI) (per_deal / 4),
    deals_with, deals_with_rate(+CI) (share of deals with ≥ 1 such bomb),
    near_out, near_out_rate(+CI) (share of these bombs played while an opponent held
    ≤ 5 cards). Sorted by ruleset and class (4, 5, sf, 6…10, joker, all).
    """
    return BOMBS(deals)


def _bombs_by_player_partial(deals: pl.LazyFrame, by: Sequence[str] | str = ("strategy",)) -> Partial:
    by = check_by(by)
    seats = seat_rows(deals)
    counts = (
        _exploded(deals)
        .group_by(*DEAL_ID, "seat")
        .agg(n=pl.len().cast(pl.Int64), near=pl.col("near_out").sum().cast(pl.Int64))
    )
    rows = seats.join(counts, on=[*DEAL_ID, "seat"], how="left").with_columns(
        pl.col("n", "near").fill_null(0)
    )
    table = rows.group_by("ruleset", *by).agg(
        seat_deals=pl.len().cast(pl.Int64),
        bombs=pl.col("n").sum(),
        sq=(pl.col("n") ** 2).sum(),
        near_out=pl.col("near").sum(),
    )
    return (table.collect(),)


def _bombs_by_player_final(table: pl.DataFrame, by: Sequence[str] | str = ("strategy",)) -> pl.DataFrame:
    by = check_by(by)
    out = table.with_columns(
        *mean_ci_from_sums(pl.col("bombs"), pl.col("sq"), pl.col("seat_deals"), "per_seat_deal"),
        *wilson_exprs(pl.col("near_out"), pl.col("bombs"), "near_out_rate"),
    ).drop("sq")
    return out.sort(["ruleset", *by])


BOMBS_BY_PLAYER = Aggregate(_bombs_by_player_partial, _bombs_by_player_final, keys=(("ruleset", "by"),))


def bombs_by_player(deals: pl.LazyFrame, by: Sequence[str] | str = ("strategy",)) -> pl.DataFrame:
    """Bombs per seat-deal grouped by ``by`` (``strategy`` and/or ``seat``) and ruleset.

    Columns: ruleset, *by, seat_deals, bombs, per_seat_deal(+CI), near_out,
    near_out_rate(+CI). Sorted by ruleset then ``by``.
    """
    return BOMBS_BY_PLAYER(deals, by=by)


WHO_ORDER = ("first_out", "winning_team", "losing_team", "sole_bombing_team_won")


def _winner_bombs_partial(deals: pl.LazyFrame) -> Partial:
    base = deals.select(
        "ruleset",
        first=pl.col("finish_order").list.get(0),
        wt=pl.col("winner_team"),
        seats=pl.col("derived").struct.field("bombs").list.eval(pl.element().struct.field("seat")),
    ).with_columns(
        b_first=pl.col("seats").list.contains(pl.col("first")),
        b_win=pl.col("seats").list.eval(pl.element() % 2).list.contains(pl.col("wt")),
        b_lose=pl.col("seats").list.eval(pl.element() % 2).list.contains(1 - pl.col("wt")),
    )
    sole = pl.col("b_win") != pl.col("b_lose")
    table = base.group_by("ruleset").agg(
        n=pl.len().cast(pl.Int64),
        first_out=pl.col("b_first").sum().cast(pl.Int64),
        winning_team=pl.col("b_win").sum().cast(pl.Int64),
        losing_team=pl.col("b_lose").sum().cast(pl.Int64),
        sole_n=sole.sum().cast(pl.Int64),
        sole_bombing_team_won=(sole & pl.col("b_win")).sum().cast(pl.Int64),
    )
    return (table.collect(),)


def _winner_bombs_final(table: pl.DataFrame) -> pl.DataFrame:
    out = (
        table.unpivot(
            index=["ruleset", "n", "sole_n"],
            on=list(WHO_ORDER),
            variable_name="who",
            value_name="count",
        )
        .with_columns(
            deals=pl.when(pl.col("who") == "sole_bombing_team_won")
            .then(pl.col("sole_n"))
            .otherwise(pl.col("n"))
        )
        .with_columns(wilson_exprs(pl.col("count"), pl.col("deals"), "rate"))
        .select("ruleset", "who", "deals", "count", "rate", "rate_lo", "rate_hi")
    )
    return sort_by_order(out, ["ruleset", "who"], {"who": WHO_ORDER})


WINNER_BOMBS = Aggregate(_winner_bombs_partial, _winner_bombs_final, keys=(("ruleset",),))


def winner_bombs(deals: pl.LazyFrame) -> pl.DataFrame:
    """How often the deal's winner bombed, by ruleset.

    Rows (``who``): ``first_out`` (上游 played ≥ 1 bomb), ``winning_team`` (上游's
    team did), ``losing_team`` (the other team did), and ``sole_bombing_team_won``
    (among deals where exactly one team bombed, that team won). Columns: deals (the
    denominator), count, rate(+CI). Sorted by ruleset and that order.
    """
    return WINNER_BOMBS(deals)

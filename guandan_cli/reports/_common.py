"""Helpers shared by report modules (orderings, ids, labels)."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

#: identifies a deal across runs
DEAL_ID = ("run_id", "match", "deal")

KIND_ORDER = ("none", "single", "double", "resisted")
BOMB_CLASS_ORDER = ("4", "5", "sf", "6", "7", "8", "9", "10", "joker")
TYPE_ORDER = (
    "single",
    "pair",
    "triple",
    "full_house",
    "straight",
    "tube",
    "plate",
    "bomb",
    "straight_flush",
    "joker_bomb",
)
RANK_TOKENS = "23456789TJQKA"
#: level tokens to numbers: 2..14 for 2..A, 15 for A+ (a won match)
LEVEL_NUMBER = {tok: i + 2 for i, tok in enumerate(RANK_TOKENS)} | {"A+": 15}

GROUPINGS = ("strategy", "seat")


def order_index(col: str, order: Sequence[str]) -> pl.Expr:
    """An integer sort key for ``col`` following ``order`` (unknown values last)."""
    return pl.col(col).replace_strict(
        list(order), list(range(len(order))), default=len(order), return_dtype=pl.Int32
    )


def sort_by_order(df: pl.DataFrame, keys: Sequence[str], orders: dict[str, Sequence[str]]) -> pl.DataFrame:
    """Sort by ``keys``; keys in ``orders`` follow their given order, others sort naturally."""
    tmp = []
    exprs = []
    for k in keys:
        if k in orders:
            name = f"__order_{k}"
            exprs.append(order_index(k, orders[k]).alias(name))
            tmp.append(name)
        else:
            tmp.append(k)
    out = df.with_columns(exprs) if exprs else df
    return out.sort(tmp, nulls_last=True).drop([t for t in tmp if t.startswith("__order_")])


def check_by(by: Sequence[str] | str) -> list[str]:
    if isinstance(by, str):  # "seat" or "strategy,seat", as --by takes it (not its letters)
        by = [b.strip() for b in by.split(",")]
    by = list(dict.fromkeys(by))  # a grouping named twice counts once (polars refuses a key twice)
    for b in by:
        if b not in GROUPINGS:
            raise ValueError(f"unknown grouping {b!r}: choose from {', '.join(GROUPINGS)}")
    return by


def level_number(expr: pl.Expr) -> pl.Expr:
    """A level token (``2``…``A``, ``A+``) as a number 2…15."""
    return expr.replace_strict(LEVEL_NUMBER, return_dtype=pl.Int32, default=None)


def team_label(strategies: pl.Expr, team: pl.Expr) -> pl.Expr:
    """The strategies of a team's seats: ``greedy`` when both play it, else ``a+b`` (lower seat first)."""
    a = strategies.list.get(team.cast(pl.Int64))
    b = strategies.list.get(team.cast(pl.Int64) + 2)
    return pl.when(a == b).then(a).otherwise(pl.concat_str([a, b], separator="+"))


def seat_rows(deals: pl.LazyFrame, extra: Sequence[str] = ()) -> pl.LazyFrame:
    """One row per (deal, seat) with ``seat``, ``team`` and ``strategy`` added."""
    return (
        deals.select([*DEAL_ID, "ruleset", "strategies", *extra])
        .with_columns(seat=pl.lit([0, 1, 2, 3], dtype=pl.List(pl.Int32)))
        .explode("seat")
        .with_columns(
            team=(pl.col("seat") % 2).cast(pl.Int32),
            strategy=pl.col("strategies").list.get(pl.col("seat").cast(pl.Int64)),
        )
        .drop("strategies")
    )

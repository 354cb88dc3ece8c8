"""Reports as mergeable aggregates: partial → merge → finalise.

A report reads its records once per part (or chunk) into a *partial*: one or more small
tables of group keys and additive columns (counts, sums, sums of squares of whole
numbers, exact histograms of small integers). Partials of any split of the records merge
into the partial of the whole (:meth:`Aggregate.merge`: rows with equal keys are added;
a column named ``*_min`` keeps the smallest, ``*_max`` the largest). The report's table
is then *finalised* from the merged partial: every rate, mean and interval comes from
merged counts and sums, so the table is the same whatever the split. All sums are of
whole numbers (exact in any order), which is what makes the floats identical too.

>>> import polars as pl
>>> agg = Aggregate(lambda f: (f.group_by("g").agg(n=pl.len().cast(pl.Int64)).collect(),),
...                 lambda t: t.sort("g"), keys=(("g",),))
>>> whole = pl.LazyFrame({"g": [1, 1, 2]})
>>> agg.merge([agg.partial(whole.slice(0, 1)), agg.partial(whole.slice(1))])[0].sort("g").rows()
[(1, 2), (2, 1)]
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import polars as pl

from ._common import GROUPINGS
from .stats import ZERO_COUNT_UPPER, Z

Partial = tuple[pl.DataFrame, ...]


def _merge_table(frames: Sequence[pl.DataFrame], keys: Sequence[str]) -> pl.DataFrame:
    """Rows of ``frames`` (one schema) with equal ``keys`` added: sums, ``*_min``, ``*_max``."""
    first = frames[0]
    frames = [f for f in frames if f.height > 0]
    if len(frames) <= 1:
        return frames[0] if frames else first
    aggs = [
        pl.col(c).min() if c.endswith("_min") else pl.col(c).max() if c.endswith("_max") else pl.col(c).sum()
        for c in first.columns
        if c not in keys
    ]
    merged = pl.concat(frames, how="vertical").group_by(list(keys)).agg(aggs)
    return merged.select(first.columns).cast(first.schema)


@dataclass(frozen=True)
class Aggregate:
    """A report as ``partial`` (frame → small tables), merge, and ``finalise`` (tables → report).

    ``keys`` names the key columns of each table ``partial`` returns (``by`` stands for
    the grouping columns it holds: ``strategy``, ``seat``); every other column is added when merging (``*_min``/``*_max`` keep
    the extreme).
    """

    partial: Callable[..., Partial]
    finalise: Callable[..., pl.DataFrame]
    keys: tuple[tuple[str, ...], ...]

    def merge(self, partials: Iterable[Partial]) -> Partial:
        """The partial of the union of the records the ``partials`` were made from."""
        partials = list(partials)
        tables = []
        for i, keys in enumerate(self.keys):
            frames = [p[i] for p in partials]
            grouping = [c for c in frames[0].columns if c in GROUPINGS]  # what "by" stands for
            names = [k for key in keys for k in (grouping if key == "by" else [key])]
            tables.append(_merge_table(frames, names))
        return tuple(tables)

    def __call__(self, frame: pl.LazyFrame, **options) -> pl.DataFrame:
        """The report over ``frame`` in one piece: ``finalise(partial(frame))``."""
        return self.finalise(*self.partial(frame, **options), **options)


def moments(x: pl.Expr, name: str) -> list[pl.Expr]:
    """Aggregations of whole numbers ``x`` that a mean and its interval are finalised from."""
    x = x.cast(pl.Int64)
    return [
        x.count().cast(pl.Int64).alias(f"{name}_n"),
        x.sum().alias(f"{name}_s"),
        (x * x).sum().alias(f"{name}_q"),
        x.min().alias(f"{name}_min"),
        x.max().alias(f"{name}_max"),
    ]


def moment_columns(name: str) -> list[str]:
    return [f"{name}_{s}" for s in ("n", "s", "q", "min", "max")]


def mean_ci_from_moments(name: str, out: str, counts: bool = False, z: float = Z) -> list[pl.Expr]:
    """``out``, ``out_lo``, ``out_hi`` from :func:`moments` ``name``: the same numbers
    :func:`~guandan_cli.reports.stats.mean_ci_aggs` gives over the values themselves."""
    n = pl.col(f"{name}_n").cast(pl.Float64)
    lo_v, hi_v = pl.col(f"{name}_min").cast(pl.Float64), pl.col(f"{name}_max").cast(pl.Float64)
    mean = pl.col(f"{name}_s").cast(pl.Float64) / n
    var = pl.max_horizontal((pl.col(f"{name}_q").cast(pl.Float64) - n * mean * mean) / (n - 1), pl.lit(0.0))
    half = z * var.sqrt() / n.sqrt()
    hi = pl.min_horizontal(mean + half, hi_v)
    if counts:
        hi = pl.when(hi_v == 0).then(ZERO_COUNT_UPPER / n).otherwise(hi)
    several = pl.col(f"{name}_n") > 1
    return [
        mean.alias(out),
        pl.when(several).then(pl.max_horizontal(mean - half, lo_v)).alias(f"{out}_lo"),
        pl.when(several).then(hi).alias(f"{out}_hi"),
    ]


def histogram_summary(hist: pl.DataFrame, keys: Sequence[str], z: float = Z) -> pl.DataFrame:
    """Per ``keys`` of a histogram (``value``, ``n``): deals (all rows), the moments of the
    non-null values, and their median and 90th percentile as Polars computes them
    (``median``: linear; ``p90``: ``quantile(0.9, "nearest")``)."""
    rows = []
    for key, group in hist.group_by(list(keys), maintain_order=True):
        values = group.filter(pl.col("value").is_not_null()).sort("value")
        vals, counts = values["value"].to_list(), values["n"].to_list()
        total = sum(counts)
        row = dict(zip(keys, key)) | {"deals": int(group["n"].sum())}
        row |= {"median": _at(vals, counts, (total - 1) / 2), "p90": None}
        if total:
            row["p90"] = float(_nth(vals, counts, math.floor((total - 1) * 0.9 + 0.5)))
        row |= {
            "x_n": total,
            "x_s": sum(v * c for v, c in zip(vals, counts)),
            "x_q": sum(v * v * c for v, c in zip(vals, counts)),
            "x_min": vals[0] if vals else None,
            "x_max": vals[-1] if vals else None,
        }
        rows.append(row)
    schema = {k: hist.schema[k] for k in keys} | {
        "deals": pl.Int64,
        "median": pl.Float64,
        "p90": pl.Float64,
        **dict.fromkeys(("x_n", "x_s", "x_q", "x_min", "x_max"), pl.Int64),
    }
    return pl.DataFrame(rows, schema=schema, orient="row")


def _nth(vals: list[int], counts: list[int], index: int) -> int:
    """The ``index``-th (0-based) of the sorted values a histogram holds."""
    seen = 0
    for v, c in zip(vals, counts):
        seen += c
        if index < seen:
            return v
    raise IndexError(index)


def _at(vals: list[int], counts: list[int], position: float) -> float | None:
    """The value at fractional ``position`` of the sorted values, interpolated linearly."""
    if not vals:
        return None
    lo, hi = math.floor(position), math.ceil(position)
    a, b = _nth(vals, counts, lo), _nth(vals, counts, hi)
    return float(a + (b - a) * (position - lo))


__all__ = ["Aggregate", "Partial", "histogram_summary", "mean_ci_from_moments", "moment_columns", "moments"]

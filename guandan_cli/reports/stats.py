"""Confidence intervals used by every report (95 %).

Rates use the Wilson score interval; means use ``mean ± 1.96·sd/√n`` (sample sd,
``n - 1`` in the denominator). Both come in two forms: plain functions on numbers,
and Polars expressions so a report can compute them inside a lazy query.

>>> lo, hi = wilson(5, 10)
>>> round(lo, 4), round(hi, 4)
(0.2366, 0.7634)
>>> wilson(0, 0)
(None, None)
>>> m, lo, hi = mean_ci([1, 2, 3, 4])
>>> m, round(lo, 4), round(hi, 4)
(2.5, 1.2348, 3.7652)
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import polars as pl

from guandan_cli.stats import wilson_interval

#: the two-sided 95 % normal quantile
Z = 1.959963984540054
#: ``-ln(0.025)``: the 95 % upper bound (two-sided) of a Poisson mean when 0 events were seen
ZERO_COUNT_UPPER = -math.log(0.025)


def wilson(k: int, n: int, z: float = Z) -> tuple[float | None, float | None]:
    """Wilson score interval of ``k`` successes in ``n`` trials; ``(None, None)`` when ``n == 0``.

    The one scalar implementation is :func:`guandan_cli.stats.wilson_interval`; this form
    only says "no data" with nulls, as report frames do.
    """
    if n <= 0:
        return (None, None)
    return wilson_interval(k, n, z)


def mean_ci(values: Sequence[float], z: float = Z) -> tuple[float | None, float | None, float | None]:
    """``(mean, lo, hi)`` with ``mean ± z·sd/√n`` clipped to the values' range; ``None`` below two values."""
    n = len(values)
    if n == 0:
        return (None, None, None)
    m = sum(values) / n
    if n < 2:
        return (m, None, None)
    sd = math.sqrt(sum((v - m) ** 2 for v in values) / (n - 1))
    half = z * sd / math.sqrt(n)
    return (m, max(m - half, min(values)), min(m + half, max(values)))


def wilson_exprs(k: pl.Expr, n: pl.Expr, name: str, z: float = Z) -> list[pl.Expr]:
    """``name``, ``name_lo``, ``name_hi``: the rate ``k / n`` and its Wilson interval (null when n = 0)."""
    k = k.cast(pl.Float64)
    n = n.cast(pl.Float64)
    ok = n > 0
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * (p * (1 - p) / n + z * z / (4 * n * n)).sqrt() / denom
    return [
        pl.when(ok).then(p).alias(name),
        pl.when(ok & (k <= 0))
        .then(0.0)
        .when(ok)
        .then(pl.max_horizontal(centre - half, pl.lit(0.0)))
        .alias(f"{name}_lo"),
        pl.when(ok & (k >= n))
        .then(1.0)
        .when(ok)
        .then(pl.min_horizontal(centre + half, pl.lit(1.0)))
        .alias(f"{name}_hi"),
    ]


def mean_ci_aggs(x: pl.Expr, name: str, z: float = Z, counts: bool = False) -> list[pl.Expr]:
    """Aggregations ``name``, ``name_lo``, ``name_hi`` (mean ± z·sd/√n) for use in ``group_by().agg``.

    The values are whole numbers (counts, levels): the results are the same on every run.

    The interval is clipped to the values' range: a mean cannot lie outside it. With
    ``counts`` (values ≥ 0 that could have been larger: levels gained, 接风 per deal), a
    sample of zeros gets the upper end ``-ln(0.025)/n`` as in :func:`mean_ci_from_sums`,
    not ``[0, 0]``.

    >>> frame = pl.DataFrame({"g": [0, 0, 0, 0]})
    >>> frame.select(mean_ci_aggs(pl.col("g"), "m")).rows()
    [(0.0, 0.0, 0.0)]
    >>> [round(v, 4) for v in frame.select(mean_ci_aggs(pl.col("g"), "m", counts=True)).row(0)]
    [0.0, 0.0, 0.9222]
    """
    # from the sums, not x.std(): polars (2.x) merges a group's partial std in an order that
    # varies from run to run, and the last digits of two identical `analyze` calls differed;
    # the sums of the whole numbers every report passes here are exact in any order
    x = x.cast(pl.Float64)
    n = x.count().cast(pl.Float64)
    mean = x.sum() / n
    var = pl.max_horizontal(((x * x).sum() - n * mean * mean) / (n - 1), pl.lit(0.0))
    half = z * var.sqrt() / n.sqrt()
    hi = pl.min_horizontal(mean + half, x.max())
    if counts:
        hi = pl.when(x.max() == 0).then(ZERO_COUNT_UPPER / n).otherwise(hi)
    return [
        mean.alias(name),
        pl.when(x.count() > 1).then(pl.max_horizontal(mean - half, x.min())).alias(f"{name}_lo"),
        pl.when(x.count() > 1).then(hi).alias(f"{name}_hi"),
    ]


def mean_ci_from_sums(s: pl.Expr, q: pl.Expr, n: pl.Expr, name: str, z: float = Z) -> list[pl.Expr]:
    """Mean and interval from ``n`` values given their sum ``s`` and sum of squares ``q``.

    Used where most values are zero and never materialised (e.g. bombs of a class per deal);
    the values are counts, so the interval is clipped at 0. When every value is 0 the sample
    has no spread and ``mean ± z·sd/√n`` would claim ``[0, 0]``, certainty from a finite
    sample; the upper end is then the exact Poisson bound for no event in ``n`` draws,
    ``-ln(0.025) / n`` (≈ 3.69 / n; the counterpart of the Wilson bound of a rate of 0).

    >>> frame = pl.DataFrame({"s": [0, 5], "q": [0, 5], "n": [100, 100]})
    >>> rows = frame.select(mean_ci_from_sums(pl.col("s"), pl.col("q"), pl.col("n"), "x")).rows()
    >>> [tuple(round(v, 4) for v in row) for row in rows]
    [(0.0, 0.0, 0.0369), (0.05, 0.0071, 0.0929)]
    """
    s = s.cast(pl.Float64)
    q = q.cast(pl.Float64)
    n = n.cast(pl.Float64)
    mean = s / n
    var = pl.max_horizontal((q - n * mean * mean) / (n - 1), pl.lit(0.0))
    half = z * var.sqrt() / n.sqrt()
    return [
        pl.when(n > 0).then(mean).alias(name),
        pl.when(n > 1).then(pl.max_horizontal(mean - half, pl.lit(0.0))).alias(f"{name}_lo"),
        pl.when((n > 1) & (s == 0))
        .then(ZERO_COUNT_UPPER / n)
        .when(n > 1)
        .then(mean + half)
        .alias(f"{name}_hi"),
    ]


__all__ = ["Z", "mean_ci", "mean_ci_aggs", "mean_ci_from_sums", "wilson", "wilson_exprs"]

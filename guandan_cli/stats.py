"""Statistics for comparisons: Wilson intervals for rates, seeded bootstrap for means.

The bootstrap intervals are *expanded* percentile intervals (Hesterberg 2015, "What
teachers should know about the bootstrap", §4.2): the plain percentile interval is too
narrow for few units (from 1 unit it has zero width, from 3 it spans little more than
their range), so the tail probability is shrunk until its normal quantile equals
``sqrt(n / (n - 1)) · t(n - 1)``. With hundreds of units the two agree; from one unit
there is no interval (``nan``).

When every unit has the same value the bootstrap has no spread to resample and its
interval has zero width. For a value known to lie in ``[low, high]`` (a level gain per
deal in [−3, 3], a rate in [0, 1]) the interval is then the exact one of
:func:`agreeing_units_interval`, which at a bound is the Clopper–Pearson interval of
"every unit at the bound" mapped to the value's scale.

>>> lo, hi = wilson_interval(78, 100)
>>> round(lo, 3), round(hi, 3)
(0.689, 0.85)
>>> lo, hi = bootstrap_mean_interval([1.0, 2.0, 3.0, 4.0], seed=1)
>>> lo < 2.5 < hi
True
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from statistics import NormalDist

Z95 = 1.959963984540054


def t_quantile(p: float, df: int) -> float:
    """The ``p`` quantile (``p`` ≥ 0.5) of Student's t with ``df`` degrees of freedom.

    The density is integrated (Simpson's rule) and the quantile found by bisection;
    four decimals agree with printed tables.

    >>> round(t_quantile(0.975, 1), 3), round(t_quantile(0.975, 2), 3), round(t_quantile(0.975, 30), 3)
    (12.706, 4.303, 2.042)
    """
    log_c = math.lgamma((df + 1) / 2) - math.lgamma(df / 2) - 0.5 * math.log(df * math.pi)

    def cdf(x: float, steps: int = 400) -> float:
        h = x / steps
        dens = [math.exp(log_c - (df + 1) / 2 * math.log1p((i * h) ** 2 / df)) for i in range(steps + 1)]
        area = h / 3 * (dens[0] + dens[-1] + 4 * sum(dens[1:-1:2]) + 2 * sum(dens[2:-1:2]))
        return 0.5 + area

    lo, hi = 0.0, 1.0
    while cdf(hi) < p:
        lo, hi = hi, hi * 2
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if cdf(mid) < p else (lo, mid)
    return (lo + hi) / 2


def expanded_tail(n: int, level: float = 0.95) -> float:
    """The one-sided tail probability the expanded percentile interval uses for ``n`` units.

    >>> round(expanded_tail(1000), 4)  # many units: the plain 2.5 %
    0.0248
    >>> expanded_tail(3) < 1e-6  # three units: the extremes of the resamples
    True
    """
    alpha = (1 - level) / 2
    z = math.sqrt(n / (n - 1)) * t_quantile(1 - alpha, n - 1)
    return NormalDist().cdf(-z)


def _percentiles(values: list[float], tail: float) -> tuple[float, float]:
    values.sort()
    last = len(values) - 1
    return values[int(math.floor(tail * last))], values[int(math.ceil((1 - tail) * last))]


def wilson_interval(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a binomial rate (95% by default); ``(0, 1)`` when ``n == 0``.

    >>> lo, hi = wilson_interval(50, 100)
    >>> round(lo, 3), round(hi, 3)
    (0.404, 0.596)
    """
    if n <= 0:
        return (0.0, 1.0)
    p = successes / n
    z2 = z * z
    denom = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
    lo = 0.0 if successes <= 0 else max(0.0, centre - half)
    hi = 1.0 if successes >= n else min(1.0, centre + half)
    return (lo, hi)


def agreeing_units_interval(
    value: float, n: int, low: float, high: float, level: float = 0.95
) -> tuple[float, float]:
    """Exact interval of the mean of a variable bounded in ``[low, high]`` when all ``n``
    independent units took the same ``value``.

    A variable in ``[low, high]`` with mean ``μ`` is at least ``value`` with probability at
    most ``(μ − low) / (value − low)`` (Markov's inequality on ``X − low``), so ``n`` units
    all at ``value`` or above have probability at most that to the ``n``-th power. Means
    for which it is below ``α/2`` are rejected: ``μ ≥ low + (value − low)·(α/2)^(1/n)``,
    and symmetrically ``μ ≤ high − (high − value)·(α/2)^(1/n)``. At ``value == high``
    this is the Clopper–Pearson bound for ``n`` successes in ``n`` trials, ``(α/2)^(1/n)``
    (about ``1 − 3.7/n``, the rule of three at 97.5% one-sided), mapped to the scale;
    it is attained by a variable taking only ``low`` and ``high``, so no narrower
    interval holds for every bounded variable.

    >>> lo, hi = agreeing_units_interval(1.0, 10, 0.0, 1.0)  # 10 of 10: Clopper-Pearson [0.6915, 1]
    >>> round(lo, 4), hi
    (0.6915, 1.0)
    >>> lo, hi = agreeing_units_interval(3.0, 200, -3.0, 3.0)  # 200 pairs, each +3 levels/deal
    >>> round(lo, 2), hi
    (2.89, 3.0)
    """
    if not low <= value <= high or n < 1:
        raise ValueError(f"need low <= value <= high and n >= 1, got {value} in [{low}, {high}], n={n}")
    shrink = ((1 - level) / 2) ** (1 / n)
    return (low + (value - low) * shrink, high - (high - value) * shrink)


def _agreeing(numerators: Sequence[float], denominators: Sequence[float]) -> tuple[float, int] | None:
    """The common ratio and the number of units when every unit (``den > 0``) has the same one."""
    ratios = {num / den for num, den in zip(numerators, denominators) if den}
    if len(ratios) != 1:
        return None
    return ratios.pop(), sum(1 for den in denominators if den)


def bootstrap_mean_interval(
    values: Sequence[float],
    resamples: int = 2000,
    seed: int = 0,
    level: float = 0.95,
    bounds: tuple[float, float] | None = None,
) -> tuple[float, float]:
    """Expanded percentile bootstrap interval of a mean (resampling the given units), seeded;
    ``nan`` from fewer than 2 units. With ``bounds``, the values' range, units that all
    agree get :func:`agreeing_units_interval` instead of a zero-width interval.

    >>> bootstrap_mean_interval([1.0, 1.0, 1.0]), bootstrap_mean_interval([1.0] * 3, bounds=(0, 1))[1]
    ((1.0, 1.0), 1.0)
    """
    n = len(values)
    if n < 2:
        return (math.nan, math.nan)
    if bounds is not None and (same := _agreeing(values, [1] * n)) is not None:
        return agreeing_units_interval(*same, *bounds, level)
    rng = random.Random(seed)
    vals = list(values)
    means = []
    choices = rng.choices
    for _ in range(resamples):
        sample = choices(vals, k=n)
        means.append(sum(sample) / n)
    return _percentiles(means, expanded_tail(n, level))


def bootstrap_ratio_interval(
    numerators: Sequence[float],
    denominators: Sequence[float],
    resamples: int = 2000,
    seed: int = 0,
    level: float = 0.95,
    bounds: tuple[float, float] | None = None,
) -> tuple[float, float]:
    """Expanded percentile bootstrap interval of ``Σnum / Σden``, resampling units (e.g. seed
    pairs); ``nan`` from fewer than 2 units. With ``bounds``, the range of each unit's
    ratio, units that all have the same ratio get :func:`agreeing_units_interval` (over the
    units with ``den > 0``) instead of a zero-width interval.

    >>> lo, hi = bootstrap_ratio_interval([1, 2, 3, 4], [2, 2, 2, 2], seed=1)
    >>> lo <= 1.25 <= hi
    True
    """
    n = len(numerators)
    if n < 2:  # one unit says nothing about the spread
        return (math.nan, math.nan)
    if bounds is not None and (same := _agreeing(numerators, denominators)) is not None:
        return agreeing_units_interval(*same, *bounds, level)
    rng = random.Random(seed)
    idx = range(n)
    ratios = []
    for _ in range(resamples):
        pick = rng.choices(idx, k=n)
        den = sum(denominators[i] for i in pick)
        ratios.append(sum(numerators[i] for i in pick) / den if den else math.nan)
    return _percentiles(ratios, expanded_tail(n, level))

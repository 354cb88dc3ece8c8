"""Statistics for comparisons: Wilson intervals for rates, seeded bootstrap for means.

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

Z95 = 1.959963984540054


def wilson_interval(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a binomial rate; (nan, nan) when n == 0."""
    if n <= 0:
        return (math.nan, math.nan)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def bootstrap_mean_interval(
    values: Sequence[float], resamples: int = 2000, seed: int = 0, level: float = 0.95
) -> tuple[float, float]:
    """Percentile bootstrap interval of a mean (resampling the given units), seeded."""
    n = len(values)
    if n == 0:
        return (math.nan, math.nan)
    if n == 1:
        return (values[0], values[0])
    rng = random.Random(seed)
    vals = list(values)
    means = []
    choices = rng.choices
    for _ in range(resamples):
        sample = choices(vals, k=n)
        means.append(sum(sample) / n)
    means.sort()
    alpha = (1 - level) / 2
    lo = means[int(math.floor(alpha * (resamples - 1)))]
    hi = means[int(math.ceil((1 - alpha) * (resamples - 1)))]
    return (lo, hi)


def bootstrap_ratio_interval(
    numerators: Sequence[float],
    denominators: Sequence[float],
    resamples: int = 2000,
    seed: int = 0,
    level: float = 0.95,
) -> tuple[float, float]:
    """Percentile bootstrap interval of ``Σnum / Σden``, resampling units (e.g. seed pairs).

    >>> lo, hi = bootstrap_ratio_interval([1, 2, 3, 4], [2, 2, 2, 2], seed=1)
    >>> lo <= 1.25 <= hi
    True
    """
    n = len(numerators)
    if n == 0:
        return (math.nan, math.nan)
    rng = random.Random(seed)
    idx = range(n)
    ratios = []
    for _ in range(resamples):
        pick = rng.choices(idx, k=n)
        den = sum(denominators[i] for i in pick)
        ratios.append(sum(numerators[i] for i in pick) / den if den else math.nan)
    ratios.sort()
    alpha = (1 - level) / 2
    return (
        ratios[int(math.floor(alpha * (resamples - 1)))],
        ratios[int(math.ceil((1 - alpha) * (resamples - 1)))],
    )

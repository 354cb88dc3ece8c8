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

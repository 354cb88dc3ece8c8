"""What a review asks of an evaluator, and how it turns the answers into a loss with an interval.

The evaluation contract (the search bot's, issue 27): ``evaluate(obs, actions=None)`` returns
one :class:`ActionValue` per action, in levels for the seat's team (+3..−3 per deal), every
listed action evaluated on the same sampled worlds, chance from the evaluator's injected
``random.Random``, the budget a count of worlds. An :class:`EvaluatorMaker` builds one from
``(seat, rng, worlds)``.

A review needs a paired interval for ``best − played``. The search's values (and the stand-in's,
:class:`PairedActionValue`) carry the paired difference against the first action evaluated;
for an evaluator whose values do not, the review asks world by world and pairs the
differences itself (:func:`paired_difference`).

>>> d = paired_difference([1.0, 0.0, 2.0], [0.0, 0.0, 1.0])
>>> d.mean, round(d.low, 3), round(d.high, 3)
(0.6666666666666666, -0.768, 2.101)
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Protocol

from guandan_cli.engine.observation import Observation
from guandan_cli.stats import t_quantile


@lru_cache(maxsize=256)
def _t975(df: int) -> float:
    """Student's t 0.975 quantile (``stats.t_quantile`` integrates the density: worth keeping)."""
    return t_quantile(0.975, df)


@dataclass(frozen=True)
class ActionValue:
    """One action's value in levels for the seat's team: the mean over ``n`` worlds and its 95% interval."""

    action: object
    mean: float
    low: float
    high: float
    n: int


@dataclass(frozen=True)
class PairedActionValue(ActionValue):
    """An ``ActionValue`` with its paired difference against the first action evaluated (the same
    worlds): ``gain`` and its 95% interval ``gain_low``..``gain_high`` (as the search's values)."""

    gain: float
    gain_low: float
    gain_high: float


class Evaluator(Protocol):
    """The search bot's evaluation API (``SearchStrategy.evaluate``)."""

    def evaluate(self, obs: Observation, actions: Sequence[object] | None = None) -> list: ...


class EvaluatorMaker(Protocol):
    """Builds an evaluator for ``seat`` with its own ``rng`` and a budget of ``worlds``."""

    def __call__(self, seat: int, rng: random.Random, worlds: int) -> Evaluator: ...


@dataclass(frozen=True)
class Difference:
    """A paired mean difference over ``n`` units and its 95% t interval (``nan`` from one unit)."""

    mean: float
    low: float
    high: float
    n: int

    @property
    def excludes_zero(self) -> bool:
        return self.low > 0 or self.high < 0


def paired_difference(a: Sequence[float], b: Sequence[float]) -> Difference:
    """``mean(a − b)`` over paired units with Student's t 95% interval.

    All differences equal (an exact endgame, say): the interval is that one point.

    >>> paired_difference([2.0, 2.0], [1.0, 1.0])
    Difference(mean=1.0, low=1.0, high=1.0, n=2)
    """
    if len(a) != len(b) or not a:
        raise ValueError(f"paired values need the same non-zero length, got {len(a)} and {len(b)}")
    diffs = [x - y for x, y in zip(a, b)]
    n = len(diffs)
    mean = math.fsum(diffs) / n
    if n == 1:
        return Difference(mean, math.nan, math.nan, 1)
    var = math.fsum((d - mean) ** 2 for d in diffs) / (n - 1)
    half = _t975(n - 1) * math.sqrt(var / n)
    return Difference(mean, mean - half, mean + half, n)


def mean_interval(values: Sequence[float]) -> tuple[float, float, float]:
    """``(mean, low, high)``: the mean of ``values`` and its 95% t interval (``nan`` from one value)."""
    n = len(values)
    mean = math.fsum(values) / n
    if n == 1:
        return mean, math.nan, math.nan
    var = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    half = _t975(n - 1) * math.sqrt(var / n)
    return mean, mean - half, mean + half


__all__ = [
    "ActionValue",
    "PairedActionValue",
    "Difference",
    "Evaluator",
    "EvaluatorMaker",
    "mean_interval",
    "paired_difference",
]

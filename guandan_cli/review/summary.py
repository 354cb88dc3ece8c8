"""A seat's reviewed decisions summed up: accuracy, counts by severity, loss, and the evaluation graph.

**Severity** of a decision, from its loss L (best − played, levels for the seat's team) and the
95% interval of the paired loss: an *inaccuracy* when L ≥ 0.1, a *mistake* when L ≥ 0.25 (the
review's mistake threshold), a *blunder* when L ≥ 1 (a whole level, the smallest upgrade) — each
only when the claim is clear: the interval's low end is above 0, or the values are exact (the
two-seat race solved). A loss of 0.1 or more whose interval reaches 0 is *unclear*: the sampled
worlds cannot tell it from noise. A review's own label (``review.core.Label``: ok, unclear,
mistake, after its close calls got more worlds) decides what is unclear and what is a mistake;
the loss only grades it (a mistake of a whole level is a blunder; a clear loss of 0.1 on an ok
play is an inaccuracy).

**Accuracy** of a decision is ``100 · 2^(−L / 0.25)`` with L clamped at 0: 100% for the best play,
50% for a loss of a quarter level (the mistake threshold), 6% for a whole level; a deal's or a
match's accuracy is the mean over the seat's reviewed decisions (as lichess averages per-move
accuracy derived from win-probability loss; here the loss is in expected levels).

>>> from types import SimpleNamespace as R
>>> rs = [R(seat=0, strategy="human", index=i, loss=x, loss_low=lo, exact=False, played_value=v)
...       for i, (x, lo, v) in enumerate([(0.0, 0.0, 1.0), (0.3, 0.1, 0.5), (0.12, -0.1, 0.4), (1.5, 0.9, -1.0)])]
>>> s = seat_summary(rs)
>>> s.decisions, s.mistakes, s.blunders, s.unclear, round(s.accuracy, 1), s.total_loss
(4, 1, 1, 1, 54.2, 1.92)
>>> s.graph
((0, 1.0), (1, 0.5), (2, 0.4), (3, -1.0))
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

#: the loss (levels) from which a clear loss counts as an inaccuracy, a mistake, a blunder
INACCURACY_LOSS = 0.1
MISTAKE_LOSS = 0.25
BLUNDER_LOSS = 1.0
#: the loss that halves a decision's accuracy
HALF_ACCURACY_LOSS = 0.25


class Severity(StrEnum):
    """How bad a reviewed decision was (see the module docstring)."""

    GOOD = "good"
    UNCLEAR = "unclear"
    INACCURACY = "inaccuracy"
    MISTAKE = "mistake"
    BLUNDER = "blunder"


class Reviewed(Protocol):
    """What a summary reads of a reviewed decision (``review.core.DecisionReview`` has it)."""

    seat: int
    strategy: str
    index: int
    loss: float
    loss_low: float
    exact: bool
    played_value: float


def severity(r: Reviewed) -> Severity:
    """The decision's severity: its loss, and whether the loss is clear (module docstring). A
    review's own verdict (``label``: ok, unclear, mistake; ``review.core``) decides what is
    unclear and what is a mistake; the loss grades a mistake (a blunder from a whole level)
    and an ok play (an inaccuracy from 0.1 levels, when clear)."""
    loss = r.loss
    label = getattr(r, "label", None)
    if label == "unclear":
        return Severity.UNCLEAR
    if label == "mistake":
        return Severity.BLUNDER if loss >= BLUNDER_LOSS else Severity.MISTAKE
    if math.isnan(loss) or loss < INACCURACY_LOSS:
        return Severity.GOOD
    clear = r.exact or r.loss_low > 0
    if label == "ok":
        return Severity.INACCURACY if clear else Severity.GOOD
    if not clear:
        return Severity.UNCLEAR
    if loss >= BLUNDER_LOSS:
        return Severity.BLUNDER
    return Severity.MISTAKE if loss >= MISTAKE_LOSS else Severity.INACCURACY


def accuracy(loss: float) -> float:
    """One decision's accuracy in percent (module docstring).

    >>> accuracy(0.0), accuracy(0.25), accuracy(-0.3), round(accuracy(1.0), 2)
    (100.0, 50.0, 100.0, 6.25)
    """
    return 100.0 * 2.0 ** (-max(0.0 if math.isnan(loss) else loss, 0.0) / HALF_ACCURACY_LOSS)


@dataclass(frozen=True)
class SeatSummary:
    """One seat's reviewed decisions of a deal (or of a match) summed up."""

    seat: int
    strategy: str
    decisions: int
    accuracy: float
    inaccuracies: int
    mistakes: int
    blunders: int
    unclear: int
    total_loss: float
    #: ``(decision index, expected levels for the seat's team after the play made)``, in order
    graph: tuple[tuple[int, float], ...]

    @property
    def mean_loss(self) -> float:
        return self.total_loss / self.decisions if self.decisions else 0.0

    def as_dict(self) -> dict:
        """The ``summary`` object of ``review --format json``."""
        return {
            "seat": self.seat,
            "strategy": self.strategy,
            "decisions": self.decisions,
            "accuracy": round(self.accuracy, 1),
            "inaccuracies": self.inaccuracies,
            "mistakes": self.mistakes,
            "blunders": self.blunders,
            "unclear": self.unclear,
            "total_loss": round(self.total_loss, 4),
            "mean_loss": round(self.mean_loss, 4),
            "graph": [[i, round(v, 4)] for i, v in self.graph],
        }


def seat_summary(reviews: Sequence[Reviewed]) -> SeatSummary:
    """The summary of one seat's reviews (all of the same seat, in deal order; at least one)."""
    if not reviews:
        raise ValueError("a summary needs at least one reviewed decision")
    counts = {s: 0 for s in Severity}
    for r in reviews:
        counts[severity(r)] += 1
    losses = [max(r.loss, 0.0) for r in reviews if not math.isnan(r.loss)]
    return SeatSummary(
        seat=reviews[0].seat,
        strategy=reviews[0].strategy,
        decisions=len(reviews),
        accuracy=sum(accuracy(r.loss) for r in reviews) / len(reviews),
        inaccuracies=counts[Severity.INACCURACY],
        mistakes=counts[Severity.MISTAKE],
        blunders=counts[Severity.BLUNDER],
        unclear=counts[Severity.UNCLEAR],
        total_loss=round(sum(losses), 10),
        graph=tuple((r.index, r.played_value) for r in reviews),
    )


def summaries(reviews: Sequence[Reviewed]) -> list[SeatSummary]:
    """One summary per seat reviewed, by seat."""
    return [
        seat_summary([r for r in reviews if r.seat == seat]) for seat in sorted({r.seat for r in reviews})
    ]


def summary_text(s: SeatSummary, names: Sequence[str], scope: str = "") -> str:
    """``seat 2 (human), deal 0: accuracy 84% · 1 mistake, 2 inaccuracies (1 unclear) · loss 0.80
    levels (0.042 per decision) · ▁▂▃▅▆``: one seat's summary as one line."""
    counts = [(s.blunders, "blunder", "blunders"), (s.mistakes, "mistake", "mistakes")]
    counts.append((s.inaccuracies, "inaccuracy", "inaccuracies"))
    flags = ", ".join(f"{n} {one if n == 1 else many}" for n, one, many in counts if n) or "no mistake"
    unclear = f" ({s.unclear} unclear)" if s.unclear else ""
    where = f", {scope}" if scope else ""
    return (
        f"seat {s.seat} ({names[s.seat]}){where}: accuracy {s.accuracy:.0f}% over {s.decisions} "
        f"decision{'s' if s.decisions != 1 else ''} · {flags}{unclear} · loss {s.total_loss:.2f} levels "
        f"({s.mean_loss:.3f} per decision) · {sparkline([v for _, v in s.graph])}"
    )


SPARKS = "▁▂▃▄▅▆▇█"


def sparkline(values: Sequence[float], low: float = -3.0, high: float = 3.0) -> str:
    """The values as one line of block characters on a fixed scale (``low``..``high`` levels: a
    deal's result lies in −3..+3), so that two deals' lines compare.

    >>> sparkline([-3, 0, 3])
    '▁▅█'
    """
    span = len(SPARKS) - 1
    out = []
    for v in values:
        x = min(max((v - low) / (high - low), 0.0), 1.0)
        out.append(SPARKS[round(x * span)])
    return "".join(out)


__all__ = [
    "BLUNDER_LOSS",
    "INACCURACY_LOSS",
    "MISTAKE_LOSS",
    "SeatSummary",
    "Severity",
    "accuracy",
    "seat_summary",
    "severity",
    "sparkline",
    "summaries",
    "summary_text",
]

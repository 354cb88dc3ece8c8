"""``guandan review``: what was the best play here? Each decision of a logged deal valued from
the deciding seat's view, the loss of the action played, mistakes flagged; a replay page.

Python API: :func:`review` returns the decisions as a Polars frame (one row per decision,
the columns of ``guandan review --format json``).

>>> import guandan_cli, tempfile
>>> run = guandan_cli.simulate(1, seed=2, strategies="greedy", max_deals=1, workers=1,
...                            out=tempfile.mkdtemp() + "/run", progress=False)
>>> df = review(run.path, match=0, deal=0, seats=[0], worlds=2)
>>> df.columns[:6], df["seat"].unique().to_list()
(['match', 'deal', 'seat', 'strategy', 'index', 'context'], [0])
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass

from .core import (
    DEFAULT_WORLDS,
    MISTAKE_THRESHOLD,
    DecisionReview,
    Label,
    review_deal,
    review_decision,
    summary,
)
from .walk import LoggedDeal, ReviewInputError, ReviewRecordError, decisions, load_deal


@dataclass(frozen=True)
class ReviewOptions:
    """How a review values the decisions: ``worlds`` per decision (the budget), the ``seed`` of
    those worlds, the loss ``threshold`` of a mistake (levels), the ``evaluator`` (``search`` or a
    ``search:...`` spec: its other options)."""

    worlds: int = DEFAULT_WORLDS
    seed: int = 0
    threshold: float = MISTAKE_THRESHOLD
    evaluator: str = "search"


def review(
    run: str | os.PathLike,
    match: int = 0,
    deal: int | None = None,
    seats: Iterable[int] | None = None,
    *,
    workers: int = 1,
    **options,
):
    """The review of deal ``deal`` of match ``match`` of ``run`` as a Polars frame (one row per
    decision); ``options`` are the fields of :class:`ReviewOptions` (``worlds``, ``seed``,
    ``threshold``, ``evaluator``), ``workers`` the processes the decisions are spread over."""
    import polars as pl

    from .evaluators import evaluator_maker

    how = ReviewOptions(**options)
    logged = load_deal(run, match, deal)
    maker, _ = evaluator_maker(logged.setup.rules, how.evaluator)
    chosen = sorted(set(range(4) if seats is None else seats))
    rows = [
        r.as_dict()
        for r in review_deal(
            logged, maker, chosen, worlds=how.worlds, seed=how.seed, threshold=how.threshold, workers=workers
        )
    ]
    return pl.DataFrame(rows, schema=_schema(), strict=False)


def _schema():
    import polars as pl

    alt = pl.Struct(
        {
            "action": pl.String,
            "mean": pl.Float64,
            "low": pl.Float64,
            "high": pl.Float64,
            "n": pl.Int64,
            "exact": pl.Boolean,
            "loss": pl.Float64,
            "loss_low": pl.Float64,
            "loss_high": pl.Float64,
            "first_out": pl.Float64,
            "double_for": pl.Float64,
            "double_against": pl.Float64,
            "reason": pl.String,
        }
    )
    return {
        "match": pl.Int64,
        "deal": pl.Int64,
        "seat": pl.Int64,
        "strategy": pl.String,
        "index": pl.Int64,
        "context": pl.String,
        "lead": pl.Boolean,
        "top": pl.String,
        "cards": pl.Int64,
        "played": pl.String,
        "played_value": pl.Float64,
        "best": pl.String,
        "best_value": pl.Float64,
        "loss": pl.Float64,
        "loss_low": pl.Float64,
        "loss_high": pl.Float64,
        "mistake": pl.Boolean,
        "label": pl.String,
        "worlds": pl.Int64,
        "loss_worlds": pl.Int64,
        "reason": pl.String,
        "then_played": pl.List(pl.Struct({"seat": pl.Int64, "action": pl.String})),
        "then_best": pl.List(pl.Struct({"seat": pl.Int64, "action": pl.String})),
        "exact": pl.Boolean,
        "alternatives": pl.List(alt),
    }


def __getattr__(name: str):
    if name == "FRAME_SCHEMA":  # built on first use: importing the package needs no Polars
        return _schema()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "ReviewOptions",
    "DEFAULT_WORLDS",
    "MISTAKE_THRESHOLD",
    "DecisionReview",
    "Label",
    "LoggedDeal",
    "ReviewInputError",
    "ReviewRecordError",
    "decisions",
    "load_deal",
    "review",
    "review_deal",
    "review_decision",
    "summary",
]

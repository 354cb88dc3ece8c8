"""Reviewing decisions: each one's alternatives valued from the deciding seat's view, the loss
of the action played against the best, and whether it was a mistake.

For one decision the evaluator is asked for the action played and its own candidates (the
played action explicitly, and first: it may not be among them), all on the same worlds, drawn
by an ``rng`` seeded from the review's ``seed``, the match seed, the deal and the action's
index, so the values do not depend on the number of workers nor on which other seats or
decisions are reviewed. ``loss`` = best − played (levels), with the 95% interval of the
paired differences over the worlds (:func:`paired_values`). A decision is a **mistake** when
that interval excludes 0 and ``loss >= threshold`` (``MISTAKE_THRESHOLD`` levels by default).

>>> from guandan_cli.review.values import ActionValue
>>> class Fixed:  # an evaluator that knows: pass is worth 1, anything else 0
...     def __init__(self, seat, rng, worlds): self.rng = rng
...     def evaluate(self, obs, actions=None):
...         return [ActionValue(a, float(a[0] == "pass") + self.rng.random() / 10, 0, 0, 1) for a in actions]
...     def candidates(self, obs): return list(obs.legal_actions)[-2:]
>>> import random
>>> from guandan_cli.engine import deal_hands
>>> from guandan_cli.engine.deal import DealSetup
>>> from guandan_cli.review.walk import LoggedDeal, decisions
>>> logged = LoggedDeal.played(DealSetup(hands=deal_hands(random.Random(4)), level=0, first_leader=0), ["greedy"] * 4)
>>> d = next(x for x in decisions(logged, [1]) if x.played[0] != "pass")
>>> r = review_decision(d, logged, Fixed, worlds=8)
>>> r.best[0], r.mistake, 0.8 < r.loss < 1.2
('pass', True, True)
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from guandan_cli.engine.deal import action_text
from guandan_cli.engine.seeding import derive_seed

from .values import Difference, EvaluatorMaker, mean_interval, paired_difference
from .walk import Decision, LoggedDeal, decisions

#: a decision is a mistake when its loss's interval excludes 0 and the loss is at least this
#: many levels (a quarter of the smallest upgrade: below it the values' noise and the
#: selection of the best among several candidates make "mistakes" of good plays; docs/review.md)
MISTAKE_THRESHOLD = 0.25
#: worlds per decision by default (every action valued on each)
DEFAULT_WORLDS = 32


@dataclass(frozen=True)
class Alternative:
    """One action's value (levels for the seat's team) and its 95% interval over ``n`` batches."""

    action: object
    mean: float
    low: float
    high: float
    n: int

    @property
    def text(self) -> str:
        return action_text(self.action)


@dataclass(frozen=True)
class DecisionReview:
    """The review of one decision (see the module docstring); ``alternatives`` best first."""

    match: int
    deal: int
    seat: int
    strategy: str
    index: int
    lead: bool
    top: object | None
    top_owner: int
    cards: int
    played: object
    played_value: float
    best: object
    best_value: float
    loss: float
    loss_low: float
    loss_high: float
    mistake: bool
    alternatives: tuple[Alternative, ...]
    worlds: int

    @property
    def context(self) -> str:
        """``lead`` or ``on seat 3's pair 7 (opponent)``, and the cards the seat held."""
        if self.lead:
            where = "lead"
        else:
            who = "partner" if self.top_owner == self.seat ^ 2 else "opponent"
            top = self.top
            key = "10" if top.key == "T" else top.key
            where = f"on seat {self.top_owner}'s {top.type.replace('_', ' ')} {key} ({who})"
        return f"{where}, {self.cards} cards"

    def as_dict(self) -> dict:
        """The JSON object of ``review --format json``."""
        return {
            "match": self.match,
            "deal": self.deal,
            "seat": self.seat,
            "strategy": self.strategy,
            "index": self.index,
            "context": self.context,
            "lead": self.lead,
            "top": None if self.top is None else action_text(self.top),
            "cards": self.cards,
            "played": action_text(self.played),
            "played_value": self.played_value,
            "best": action_text(self.best),
            "best_value": self.best_value,
            "loss": self.loss,
            "loss_low": self.loss_low,
            "loss_high": self.loss_high,
            "mistake": self.mistake,
            "worlds": self.worlds,
            "alternatives": [
                {"action": a.text, "mean": a.mean, "low": a.low, "high": a.high, "n": a.n}
                for a in self.alternatives
            ],
        }


def candidates_of(evaluator: object, obs) -> list:
    """The evaluator's own candidates for ``obs`` (its ``candidates(obs)``), else the stand-in's."""
    own = getattr(evaluator, "candidates", None)
    if callable(own):  # (the search bot's ``candidates`` is its cap, a number)
        return list(own(obs))
    from guandan_cli.strategies.heuristic import HeuristicStrategy

    from .rollouts import default_candidates

    return default_candidates(obs, HeuristicStrategy(obs.seat, random.Random(0)).choose_play(obs))


def _in_order(values: list, acts: list, index: int) -> list:
    """The evaluator's values in the order of ``acts`` (each action must have one)."""
    by_action = {v.action: v for v in values}
    missing = [a for a in acts if a not in by_action]
    if missing:
        raise RuntimeError(f"the evaluator gave no value for {action_text(missing[0])!r} at action {index}")
    return [by_action[a] for a in acts]


def paired_values(
    obs, acts: list, maker: EvaluatorMaker, worlds: int, unit: tuple
) -> tuple[list[Alternative], list[Difference]]:
    """Each action's value and its paired difference against ``acts[0]`` (the action played).

    One call of ``evaluate`` on ``worlds`` worlds when the evaluator gives paired gains
    against the first action (``gain``, ``gain_low``, ``gain_high``: the search's and the
    stand-in's values); else the actions are valued world by world (one call per world, each
    with its own derived ``rng``) and the differences paired here.
    """
    evaluator = maker(obs.seat, random.Random(derive_seed("review", *unit)), worlds)
    values = _in_order(evaluator.evaluate(obs, acts), acts, unit[-1])
    if all(hasattr(v, "gain_low") for v in values):
        alts = [
            Alternative(a, float(v.mean), float(v.low), float(v.high), int(v.n)) for a, v in zip(acts, values)
        ]
        gains = [Difference(float(v.gain), float(v.gain_low), float(v.gain_high), int(v.n)) for v in values]
        return alts, gains
    means: list[list[float]] = [[] for _ in acts]
    for w in range(worlds):
        one = maker(obs.seat, random.Random(derive_seed("review", *unit, w)), 1)
        for i, v in enumerate(_in_order(one.evaluate(obs, acts), acts, unit[-1])):
            means[i].append(float(v.mean))
    alts = [Alternative(a, *mean_interval(ms), len(ms)) for a, ms in zip(acts, means)]
    return alts, [paired_difference(ms, means[0]) for ms in means]


def review_decision(
    decision: Decision,
    logged: LoggedDeal,
    maker: EvaluatorMaker,
    *,
    worlds: int = DEFAULT_WORLDS,
    seed: int = 0,
    threshold: float = MISTAKE_THRESHOLD,
) -> DecisionReview:
    """Value ``decision``'s alternatives from its seat's observation and compare the action played."""
    obs, played = decision.obs, decision.played
    unit = (seed, logged.match_seed, logged.deal, decision.index)
    first = maker(obs.seat, random.Random(derive_seed("review", *unit, "candidates")), 1)
    acts = [played] + [a for a in candidates_of(first, obs) if a != played]
    alts, gains = paired_values(obs, acts, maker, worlds, unit)
    # best first; ties keep the played action (index 0) ahead, then the evaluator's order
    order = sorted(range(len(alts)), key=lambda i: -alts[i].mean)
    best = order[0]
    diff = gains[best]
    return DecisionReview(
        match=logged.match,
        deal=logged.deal,
        seat=obs.seat,
        strategy=logged.names[obs.seat],
        index=decision.index,
        lead=obs.top is None,
        top=obs.top,
        top_owner=obs.top_owner,
        cards=len(obs.hand),
        played=played,
        played_value=alts[0].mean,
        best=alts[best].action,
        best_value=alts[best].mean,
        loss=diff.mean,
        loss_low=diff.low,
        loss_high=diff.high,
        mistake=best != 0 and diff.low > 0 and diff.mean >= threshold,
        alternatives=tuple(alts[i] for i in order),
        worlds=worlds,
    )


@dataclass(frozen=True)
class _Task:
    decision: Decision
    logged: LoggedDeal
    maker: EvaluatorMaker
    worlds: int
    seed: int
    threshold: float


def _run_task(task: _Task) -> DecisionReview:
    return review_decision(
        task.decision, task.logged, task.maker, worlds=task.worlds, seed=task.seed, threshold=task.threshold
    )


def review_deal(
    logged: LoggedDeal,
    maker: EvaluatorMaker,
    seats: Iterable[int] = range(4),
    *,
    worlds: int = DEFAULT_WORLDS,
    seed: int = 0,
    threshold: float = MISTAKE_THRESHOLD,
    workers: int = 1,
) -> Iterator[DecisionReview]:
    """The reviews of ``seats``' decisions in ``logged``, in deal order (as they are done).

    ``workers`` > 1 spreads the decisions over processes; the reviews are the same.
    """
    from guandan_cli.runner.backends import open_backend

    slim = LoggedDeal(
        logged.setup,
        logged.actions,
        logged.names,
        logged.match,
        logged.deal,
        logged.match_seed,
        logged.deal_seed,
    )
    tasks = [_Task(d, slim, maker, worlds, seed, threshold) for d in decisions(logged, seats)]
    if workers <= 1 or len(tasks) <= 1:
        for t in tasks:
            yield _run_task(t)
        return
    backend = open_backend("local", min(workers, len(tasks)))
    try:
        yield from backend.imap(_run_task, tasks)
    except BaseException:
        backend.terminate()
        raise
    else:
        backend.close()


def summary(reviews: Sequence[DecisionReview]) -> list[dict]:
    """Per seat reviewed: ``seat``, ``strategy``, ``decisions``, ``mistakes``, ``total_loss``, ``mean_loss``."""
    out = []
    for seat in sorted({r.seat for r in reviews}):
        mine = [r for r in reviews if r.seat == seat]
        total = sum(r.loss for r in mine)
        out.append(
            {
                "seat": seat,
                "strategy": mine[0].strategy,
                "decisions": len(mine),
                "mistakes": sum(r.mistake for r in mine),
                "total_loss": total,
                "mean_loss": total / len(mine),
            }
        )
    return out


__all__ = [
    "DEFAULT_WORLDS",
    "MISTAKE_THRESHOLD",
    "Alternative",
    "DecisionReview",
    "review_deal",
    "review_decision",
    "summary",
]

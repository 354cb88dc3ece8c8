"""Reviewing decisions: each one's alternatives valued from the deciding seat's view, the loss
of the action played against the best, and whether it was a mistake.

For one decision the evaluator is asked for the action played and its own candidates (the
played action explicitly, and first: it may not be among them), all on the same worlds, drawn
by an ``rng`` seeded from the review's ``seed`` and the position itself (the seat's
observation: ``world_rng``), so the values do not depend on the number of workers, on which
other seats, decisions or deals are reviewed, nor on how the position was reached (a hint
there, ``guandan play --hint search``, values the same actions on the same worlds). ``loss`` = best − played (levels), with the 95% interval of the
paired differences over the worlds (:func:`paired_values`). A decision is a **mistake** when
that interval excludes 0 and ``loss >= threshold`` (``MISTAKE_THRESHOLD`` levels by default).

>>> from guandan_cli.strategies.search import ActionValue
>>> class Fixed:  # an evaluator that knows: pass is worth 1 more than anything else
...     def __init__(self, seat, rng, worlds): pass
...     def evaluate(self, obs, actions):
...         v = [float(a[0] == "pass") for a in actions]
...         return [ActionValue(a, x, x, x, 8, x - v[0], x - v[0] - 0.1, x - v[0] + 0.1) for a, x in zip(actions, v)]
...     def candidates(self, obs): return list(obs.legal_actions)[-2:]
>>> import random
>>> from guandan_cli.engine import deal_hands
>>> from guandan_cli.engine.deal import DealSetup
>>> from guandan_cli.review.walk import LoggedDeal, decisions
>>> logged = LoggedDeal.played(DealSetup(hands=deal_hands(random.Random(4)), level=0, first_leader=0), ["greedy"] * 4)
>>> d = next(x for x in decisions(logged, [1]) if x.played[0] != "pass")
>>> r = review_decision(d, logged, Fixed, worlds=8)
>>> r.best[0], r.mistake, r.loss
('pass', True, 1.0)
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace

from guandan_cli.engine.deal import PASS, action_text
from guandan_cli.view.text import plural

from .evaluators import EvaluatorMaker
from .walk import Decision, LoggedDeal, decisions

#: a decision is a mistake when its loss's interval excludes 0 and the loss is at least this
#: many levels (a quarter of the smallest upgrade: below it the values' noise and the
#: selection of the best among several candidates make "mistakes" of good plays; docs/review.md)
MISTAKE_THRESHOLD = 0.25
#: worlds per decision by default (every action valued on each)
DEFAULT_WORLDS = 32


@dataclass(frozen=True)
class Alternative:
    """One action's value (levels for the seat's team) and its 95% interval over ``n`` worlds;
    ``exact``: the value of the two-seat race solved (``ActionValue.exact``), no interval."""

    action: object
    mean: float
    low: float
    high: float
    n: int
    exact: bool = False

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
    #: every value is exact (two seats left, the race solved: ``ActionValue.exact``)
    exact: bool = False

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
        return f"{where}, {plural(self.cards, 'card')}"

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
            "exact": self.exact,
            "alternatives": [
                {"action": a.text, "mean": a.mean, "low": a.low, "high": a.high, "n": a.n, "exact": a.exact}
                for a in self.alternatives
            ],
        }


def _in_order(values: list, acts: list, index: int) -> list:
    """The evaluator's values in the order of ``acts`` (each action must have one, with its paired gain)."""
    by_action = {v.action: v for v in values}
    missing = [a for a in acts if a not in by_action]
    if missing:
        raise RuntimeError(f"the evaluator gave no value for {action_text(missing[0])!r} at action {index}")
    return [by_action[a] for a in acts]


def paired_values(
    obs, acts: list, maker: EvaluatorMaker, worlds: int, seed: int, index: int
) -> tuple[list[Alternative], list]:
    """Each action's value (an :class:`Alternative`) and its paired gain against ``acts[0]`` (the
    action played) as ``(gain, gain_low, gain_high)``: one ``evaluate`` on ``worlds`` worlds drawn
    by an ``rng`` seeded from the position and ``seed`` (``world_rng``: a hint at this position
    draws the same worlds)."""
    from guandan_cli.strategies.search.bot import world_rng

    evaluator = maker(obs.seat, world_rng(obs, seed), worlds)
    values = _in_order(evaluator.evaluate(obs, acts), acts, index)
    alts = [
        Alternative(a, float(v.mean), float(v.low), float(v.high), int(v.n), bool(getattr(v, "exact", False)))
        for a, v in zip(acts, values)
    ]
    return alts, [(float(v.gain), float(v.gain_low), float(v.gain_high)) for v in values]


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
    first = maker(obs.seat, random.Random(0), 1)  # (listing the candidates draws nothing)
    acts = [played] + [a for a in first.candidates(obs) if a != played]
    alts, gains = paired_values(obs, acts, maker, worlds, seed, decision.index)
    # best first; ties keep the played action (index 0) ahead, then the evaluator's order
    order = sorted(range(len(alts)), key=lambda i: -alts[i].mean)
    best = order[0]
    loss, loss_low, loss_high = gains[best]
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
        loss=loss,
        loss_low=loss_low,
        loss_high=loss_high,
        mistake=best != 0 and loss_low > 0 and loss >= threshold,
        alternatives=tuple(alts[i] for i in order),
        worlds=worlds,
        exact=all(a.exact for a in alts),
    )


@dataclass(frozen=True)
class _Task:
    """One decision to review in a worker: ``seat``'s at play-phase action ``index`` of ``logged``."""

    index: int
    seat: int
    logged: LoggedDeal
    maker: EvaluatorMaker
    worlds: int
    seed: int
    threshold: float


def _run_task(task: _Task) -> DecisionReview:
    """The review of the task's decision, its observation rebuilt here from the deal: an
    observation does not survive pickling whole (``PASS`` comes back a copy, and the engine
    and the bots tell a pass by ``is PASS``)."""
    logged = task.logged
    logged = replace(logged, actions=tuple((s, PASS if a == PASS else a) for s, a in logged.actions))
    decision = next(d for d in decisions(logged, [task.seat]) if d.index == task.index)
    return review_decision(
        decision, logged, task.maker, worlds=task.worlds, seed=task.seed, threshold=task.threshold
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
    found = list(decisions(logged, seats))
    if workers <= 1 or len(found) <= 1:
        for d in found:
            yield review_decision(d, logged, maker, worlds=worlds, seed=seed, threshold=threshold)
        return
    tasks = [_Task(d.index, d.seat, slim, maker, worlds, seed, threshold) for d in found]
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

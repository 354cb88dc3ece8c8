"""Reviewing decisions: each one's alternatives valued from the deciding seat's view, the loss
of the action played against the best, and whether it was a mistake.

For one decision the evaluator is asked for the action played and its own candidates (the
played action explicitly, and first: it may not be among them), all on the same worlds, drawn
by an ``rng`` seeded from the review's ``seed`` and the position itself (the seat's
observation: ``world_rng``), so the values do not depend on the number of workers, on which
other seats, decisions or deals are reviewed, nor on how the position was reached (a hint
there, ``guandan play --hint search``, values the same actions on the same worlds).

An alternative's **loss** is its paired gain over the action played (levels), with the 95%
interval of the per-world differences (:func:`paired_values`). **Close calls**: while no
alternative's loss interval lies at or above the threshold (``MISTAKE_THRESHOLD`` levels by
default) and some alternative that has looked better than the play made still holds it in
its interval, the play made and those alternatives alone are played on in fresh worlds, up to
``CLOSE_CALL_FACTOR`` × the worlds (:func:`settle_close_calls`). The verdict
(:func:`judged`): a **mistake** when an alternative's loss interval lies at or above the
threshold, **unclear** when one that has looked better still holds it, else **ok**; ``best`` is the
alternative the play made is measured against (``loss`` = its value − the play made's).

>>> from guandan_cli.strategies.search import ActionValue
>>> class Fixed:  # an evaluator that knows: pass is worth 1 more than anything else
...     def __init__(self, seat, rng, worlds): pass
...     def evaluate(self, obs, actions, worlds=8):
...         v = [float(a[0] == "pass") for a in actions]
...         return [ActionValue(a, x, x, x, worlds, x - v[0], x - v[0] - 0.1, x - v[0] + 0.1) for a, x in zip(actions, v)]
...     def candidates(self, obs): return list(obs.legal_actions)[-2:]
>>> import random
>>> from guandan_cli.engine import deal_hands
>>> from guandan_cli.engine.deal import DealSetup
>>> from guandan_cli.review.walk import LoggedDeal, decisions
>>> logged = LoggedDeal.played(DealSetup(hands=deal_hands(random.Random(4)), level=0, first_leader=0), ["greedy"] * 4)
>>> d = next(x for x in decisions(logged, [1]) if x.played[0] != "pass")
>>> r = review_decision(d, logged, Fixed, worlds=8)
>>> r.best[0], r.label, r.loss, r.loss_worlds  # a mistake, claimed on 4 times the worlds
('pass', <Label.MISTAKE: 'mistake'>, 1.0, 32)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum

from guandan_cli.engine.deal import PASS, action_text
from guandan_cli.view.text import plural

from .evaluators import EvaluatorMaker
from .walk import Decision, LoggedDeal, decisions

#: a decision is a mistake when an alternative's loss interval lies at or above this many levels
#: (a quarter of the smallest upgrade: below it the values' noise and the selection of the best
#: among several candidates make "mistakes" of good plays; docs/review.md)
MISTAKE_THRESHOLD = 0.25
#: worlds per decision by default (every action valued on each)
DEFAULT_WORLDS = 32
#: a close call (the loss's interval holds the threshold) is played on, by the play made and the
#: best alone, up to this many times the decision's worlds before it is called unclear
CLOSE_CALL_FACTOR = 16
#: a mistake is claimed only on at least this many times the decision's worlds: an interval of
#: the few worlds that picked the alternative is too often too narrow (docs/review.md)
CLAIM_FACTOR = 4
#: the two-sided 95% normal quantile
Z95 = 1.959963984540054
#: the loss's interval is looked at up to five times (32, 64, 128, 256, 512 worlds: a close call's
#: worlds double), so its bound is Pocock's for five looks at 95% overall, not the one-look 1.96:
#: with a bound of 1.96 at every look, a lucky early look made a claim another seed did not
#: repeat (docs/review.md, "The method", 5, and "Stability")
LOOK_Z = 2.413


class Label(StrEnum):
    """A decision's verdict: the play made is fine, a mistake, or the worlds could not tell."""

    OK = "ok"
    UNCLEAR = "unclear"
    MISTAKE = "mistake"


@dataclass(frozen=True)
class Alternative:
    """One action's value (levels for the seat's team) and its 95% interval over ``n`` worlds;
    ``exact``: the value of the two-seat race solved (``ActionValue.exact``), no interval;
    ``outcomes``: the worlds' outcomes, counts of −3..+3 levels (``ActionValue.outcomes``)."""

    action: object
    mean: float
    low: float
    high: float
    n: int
    exact: bool = False
    outcomes: tuple[int, ...] = ()
    #: the paired gain over the play made (levels) with its 95% interval, over this one's worlds
    loss: float = 0.0
    loss_low: float = 0.0
    loss_high: float = 0.0
    #: what the move does to the hand, by the heuristic's plan (``reasons.move_facts``)
    reason: str = ""

    @property
    def text(self) -> str:
        return action_text(self.action)

    @property
    def first_out(self) -> float:
        """The share of worlds in which the seat's team went out first (won the deal)."""
        return sum(self.outcomes[4:]) / max(1, sum(self.outcomes))

    @property
    def double_for(self) -> float:
        """The share of worlds that ended in a double-down (双下) for the seat's team."""
        return self.outcomes[6] / max(1, sum(self.outcomes)) if self.outcomes else 0.0

    @property
    def double_against(self) -> float:
        """The share of worlds that ended in a double-down against the seat's team."""
        return self.outcomes[0] / max(1, sum(self.outcomes)) if self.outcomes else 0.0

    def as_dict(self) -> dict:
        out = {"action": self.text, "mean": self.mean, "low": self.low, "high": self.high, "n": self.n}
        out.update(exact=self.exact, loss=self.loss, loss_low=self.loss_low, loss_high=self.loss_high)
        out["reason"] = self.reason
        if self.outcomes:
            out["first_out"] = self.first_out
            out["double_for"] = self.double_for
            out["double_against"] = self.double_against
        return out


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
    #: the verdict (``mistake`` is ``label == Label.MISTAKE``)
    label: Label = Label.OK
    #: the worlds the loss was measured on (more than ``worlds`` after a close call)
    loss_worlds: int = 0
    #: the play made against the best in plain words (``reasons.reason``)
    reason: str = ""
    #: the next plays ``(seat, action)`` after the play made and after the best, in one world
    #: (the first of the decision's; empty when the best is the play made)
    then_played: tuple = ()
    then_best: tuple = ()
    #: the trick the decision belongs to, from 1 (``walk.Decision.trick``)
    trick: int = 0

    @property
    def context(self) -> str:
        """``lead`` or ``on seat 3's pair 7 (opponent)`` (``reasons.move_name``), and the cards the seat held."""
        if self.lead:
            where = "lead"
        else:
            from .reasons import move_name

            who = "partner" if self.top_owner == self.seat ^ 2 else "opponent"
            where = f"on seat {self.top_owner}'s {move_name(self.top)} ({who})"
        return f"{where}, {plural(self.cards, 'card')}"

    def as_dict(self) -> dict:
        """The JSON object of ``review --format json``."""
        return {
            "match": self.match,
            "deal": self.deal,
            "seat": self.seat,
            "strategy": self.strategy,
            "index": self.index,
            "trick": self.trick,
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
            "label": str(self.label),
            "worlds": self.worlds,
            "loss_worlds": self.loss_worlds,
            "reason": self.reason,
            "then_played": [{"seat": seat, "action": action_text(a)} for seat, a in self.then_played],
            "then_best": [{"seat": seat, "action": action_text(a)} for seat, a in self.then_best],
            "exact": self.exact,
            "alternatives": [a.as_dict() for a in self.alternatives],
        }


def _in_order(values: list, acts: list, index: int) -> list:
    """The evaluator's values in the order of ``acts`` (each action must have one, with its paired gain)."""
    by_action = {v.action: v for v in values}
    missing = [a for a in acts if a not in by_action]
    if missing:
        raise RuntimeError(f"the evaluator gave no value for {action_text(missing[0])!r} at action {index}")
    return [by_action[a] for a in acts]


def paired_values(
    evaluator, obs, acts: list, index: int, worlds: int | None = None
) -> tuple[list[Alternative], list]:
    """Each action's value (an :class:`Alternative`) and its paired gain against ``acts[0]`` (the
    action played) as ``(gain, gain_low, gain_high)``: one ``evaluate`` on the evaluator's worlds
    (``worlds`` more of them when given: the evaluator's generator goes on)."""
    values = evaluator.evaluate(obs, acts) if worlds is None else evaluator.evaluate(obs, acts, worlds=worlds)
    values = _in_order(values, acts, index)
    alts = [
        Alternative(
            a,
            float(v.mean),
            float(v.low),
            float(v.high),
            int(v.n),
            bool(getattr(v, "exact", False)),
            tuple(getattr(v, "outcomes", ())),
        )
        for a, v in zip(acts, values)
    ]
    return alts, [(float(v.gain), float(v.gain_low), float(v.gain_high)) for v in values]


@dataclass(frozen=True)
class Moments:
    """Running sums of a sample (``n``, the sum, the sum of squares): means and 95% intervals
    of worlds drawn in several batches, each known by its mean and interval."""

    n: int
    total: float
    squares: float

    @classmethod
    def of(cls, n: int, mean: float, low: float, high: float) -> Moments:
        """The sums of ``n`` values with this ``mean`` and normal 95% interval ``low``..``high``."""
        se = (high - low) / (2 * Z95) if n > 1 and not math.isnan(high - low) else 0.0
        return cls(n, mean * n, (n - 1) * n * se * se + n * mean * mean)

    def __add__(self, other: Moments) -> Moments:
        return Moments(self.n + other.n, self.total + other.total, self.squares + other.squares)

    @property
    def interval(self) -> tuple[float, float, float]:
        """The mean and its 95% interval (``nan`` for fewer than 2 values)."""
        return self.interval_at(Z95)

    def interval_at(self, z: float) -> tuple[float, float, float]:
        """The mean and the interval of ``z`` standard errors about it."""
        m = self.total / self.n
        if self.n < 2:
            return m, math.nan, math.nan
        se = math.sqrt(max(0.0, self.squares - self.n * m * m) / (self.n - 1) / self.n)
        return m, m - z * se, m + z * se


def _extended(alt: Alternative, more: Alternative) -> Alternative:
    """``alt``'s value over its worlds and ``more``'s."""
    m, low, high = (
        Moments.of(alt.n, alt.mean, alt.low, alt.high) + Moments.of(more.n, more.mean, more.low, more.high)
    ).interval
    outcomes = tuple(x + y for x, y in zip(alt.outcomes, more.outcomes))
    return replace(alt, mean=m, low=low, high=high, n=alt.n + more.n, outcomes=outcomes)


def _pending(
    losses: list[tuple[float, float, float]],
    worlds: list[int],
    among: Iterable[int],
    threshold: float,
    claim: int,
) -> list[int]:
    """The alternatives of ``among`` not yet settled: the loss's interval still holds
    ``threshold``, or lies above it on fewer than ``claim`` worlds (a claim needs that many)."""
    return [
        i
        for i in among
        if losses[i][1] < threshold <= losses[i][2] or (threshold <= losses[i][1] and worlds[i] < claim)
    ]


def _claims(
    losses: list[tuple[float, float, float]], worlds: list[int], threshold: float, claim: int
) -> list[int]:
    """The alternatives clearly ``threshold`` better than the play made, on ``claim`` worlds or more."""
    return [i for i, (_m, low, _h) in enumerate(losses) if i and low >= threshold and worlds[i] >= claim]


def settle_close_calls(
    evaluator,
    obs,
    alts: list[Alternative],
    gains: list,
    limits: tuple[int, int],
    threshold: float,
    index: int,
) -> tuple[list[Alternative], list[tuple[float, float, float]], set[int]]:
    """Close calls played on. An alternative that looks better than the play made (a loss above
    0) becomes a challenger; while no alternative is clearly a ``threshold`` better than the play
    made (its loss's interval at or above it, on at least ``claim`` worlds) and some challenger
    is not settled (its interval holds the threshold, or lies above it on fewer worlds), the play
    made and those challengers alone are played on fresh worlds, doubling at each look, up to ``cap`` worlds
    for the play made (``limits`` = ``(claim, cap)``). The alternatives, each one's loss (the mean
    paired gain over the play made and its 95% interval) over every world it was played in, and
    the challengers."""
    claim, cap = limits
    alts = list(alts)
    losses = [Moments.of(a.n, *g) for a, g in zip(alts, gains)]
    entered: set[int] = set()
    while True:
        intervals = [m.interval_at(LOOK_Z) for m in losses]
        worlds = [a.n for a in alts]
        entered |= {i for i in range(1, len(alts)) if intervals[i][0] > 0}
        alive = _pending(intervals, worlds, sorted(entered), threshold, claim)
        if alts[0].n >= cap or not alive or _claims(intervals, worlds, threshold, claim):
            return alts, intervals, entered
        acts = [alts[0].action] + [alts[i].action for i in alive]
        # the worlds double at each look (a few looks: the bound LOOK_Z holds for five)
        more, more_gains = paired_values(evaluator, obs, acts, index, min(alts[0].n, cap - alts[0].n))
        alts[0] = _extended(alts[0], more[0])
        for j, i in enumerate(alive, 1):
            alts[i] = _extended(alts[i], more[j])
            losses[i] = losses[i] + Moments.of(more[j].n, *more_gains[j])


def judged(
    losses: list[tuple[float, float, float]],
    worlds: list[int],
    challengers: Iterable[int],
    threshold: float,
    claim: int = 0,
) -> tuple[Label, int]:
    """The verdict and the alternative the play made is measured against (0: the play made):
    a mistake when some alternative's loss interval lies at or above ``threshold`` over at least
    ``claim`` worlds (the largest such loss), unclear while a challenger is not settled (the
    largest such loss, if above 0), else ok (the alternative with the largest loss, if above 0)."""
    clear = _claims(losses, worlds, threshold, claim)
    if clear:
        return Label.MISTAKE, max(clear, key=lambda i: losses[i][0])
    open_ = _pending(losses, worlds, challengers, threshold, claim)
    if open_:
        top = max(open_, key=lambda i: losses[i][0])
        return Label.UNCLEAR, (top if losses[top][0] > 0 else 0)
    top = max(range(len(losses)), key=lambda i: (losses[i][0], i == 0))
    return Label.OK, (top if losses[top][0] > 0 else 0)


def review_decision(
    decision: Decision,
    logged: LoggedDeal,
    maker: EvaluatorMaker,
    *,
    worlds: int = DEFAULT_WORLDS,
    seed: int = 0,
    threshold: float = MISTAKE_THRESHOLD,
    cap: int | None = None,
) -> DecisionReview:
    """Value ``decision``'s alternatives from its seat's observation and compare the action played;
    a close call is played on up to ``cap`` worlds (default ``CLOSE_CALL_FACTOR`` × ``worlds``)."""
    from guandan_cli.strategies.search.bot import world_rng

    obs, played = decision.obs, decision.played
    evaluator = maker(obs.seat, world_rng(obs, seed), worlds)
    acts = [played] + [a for a in evaluator.candidates(obs) if a != played]
    alts, gains = paired_values(evaluator, obs, acts, decision.index)
    exact = all(a.exact for a in alts)
    cap = CLOSE_CALL_FACTOR * worlds if cap is None else cap
    claim = 0 if exact else min(CLAIM_FACTOR * worlds, cap)
    if exact:
        losses, entered = [tuple(g) for g in gains], set()
    else:
        alts, losses, entered = settle_close_calls(
            evaluator, obs, alts, gains, (claim, cap), threshold, decision.index
        )
    alts = [replace(a, loss=m, loss_low=low, loss_high=high) for a, (m, low, high) in zip(alts, losses)]
    label, best = judged(losses, [a.n for a in alts], entered, threshold, claim)
    alts, why = _with_reasons(obs, alts, best)
    follow = getattr(evaluator, "continuation", None)
    then = [tuple(follow(obs, alts[i].action, seed)) for i in (0, best)] if follow and best else [(), ()]
    loss, loss_low, loss_high = losses[best] if best else (0.0, 0.0, 0.0)
    # the one the play made is measured against first, then by value (ties: the evaluator's order)
    order = [best] + sorted((i for i in range(len(alts)) if i != best), key=lambda i: -alts[i].mean)
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
        mistake=label == Label.MISTAKE,
        alternatives=tuple(alts[i] for i in order),
        worlds=worlds,
        exact=exact,
        label=label,
        loss_worlds=alts[best].n,
        reason=why,
        then_played=then[0],
        then_best=then[1],
        trick=decision.trick,
    )


def _with_reasons(obs, alts: list[Alternative], best: int) -> tuple[list[Alternative], str]:
    """Each alternative with what it does to the hand, and the line contrasting the play made
    (``alts[0]``) with ``alts[best]`` (``reasons``)."""
    from .reasons import move_facts, reason

    partner_top = obs.top is not None and obs.top_owner == obs.seat ^ 2
    hand = tuple(obs.hand)
    alts = [replace(a, reason=move_facts(hand, obs.level, a.action, partner_top).text) for a in alts]
    return alts, reason(hand, obs.level, alts[0].action, alts[best].action, partner_top)


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
    """Per seat reviewed: ``seat``, ``strategy``, ``decisions``, ``mistakes``, ``unclear``, ``total_loss``,
    ``mean_loss``."""
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
                "unclear": sum(r.label == Label.UNCLEAR for r in mine),
                "total_loss": total,
                "mean_loss": total / len(mine),
            }
        )
    return out


__all__ = [
    "DEFAULT_WORLDS",
    "CLAIM_FACTOR",
    "CLOSE_CALL_FACTOR",
    "Label",
    "MISTAKE_THRESHOLD",
    "judged",
    "Alternative",
    "DecisionReview",
    "review_deal",
    "review_decision",
    "summary",
]

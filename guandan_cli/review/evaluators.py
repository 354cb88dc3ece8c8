"""What values a review's actions: the ``search`` strategy's ``evaluate`` (issue 27).

An evaluator is made per decision by an :class:`EvaluatorMaker` from ``(seat, rng, worlds)``
and answers two questions: ``candidates(obs)``, the actions worth valuing at ``obs`` (those the
search would race: the heuristic's move first), and ``evaluate(obs, actions, worlds=None)``, one
``ActionValue`` per action on the same ``worlds`` worlds drawn by ``rng`` (as many more as asked,
the generator going on: a close call's further worlds), with the paired gain
against the first action and its 95% interval (``guandan_cli.strategies.search.ActionValue``).

>>> maker, described = evaluator_maker()
>>> described
'search (determinized heuristic rollouts)'
>>> import random
>>> from guandan_cli.engine import deal_hands
>>> from guandan_cli.engine.deal import Deal, DealSetup
>>> from guandan_cli.engine.observation import observe
>>> obs = observe(Deal(DealSetup(hands=deal_hands(random.Random(1)), level=0, first_leader=2)), 2)
>>> ev = maker(2, random.Random(0), 2)
>>> acts = ev.candidates(obs)
>>> [v.n for v in ev.evaluate(obs, acts)] == [2] * len(acts)
True
"""

from __future__ import annotations

import functools
import random
from collections.abc import Sequence
from typing import Protocol

from guandan_cli.engine.observation import Observation
from guandan_cli.engine.rules import Ruleset


class Evaluator(Protocol):
    """What a review asks of an evaluator (see the module docstring)."""

    def candidates(self, obs: Observation) -> list: ...

    def evaluate(self, obs: Observation, actions: Sequence[object], worlds: int | None = None) -> list: ...


class EvaluatorMaker(Protocol):
    """Builds an evaluator for ``seat`` with its own ``rng`` and a budget of ``worlds``."""

    def __call__(self, seat: int, rng: random.Random, worlds: int) -> Evaluator: ...


class SearchEvaluator:
    """``SearchStrategy.evaluate`` with its candidates listed (``candidates(obs)``: the ones its
    ``evaluate(obs)`` values by default), so that a review can put the played action first."""

    def __init__(
        self, seat: int, rng: random.Random, worlds: int, rules: Ruleset | None = None, spec: str = "search"
    ) -> None:
        from guandan_cli.strategies.registry import load_strategy

        options: dict[str, object] = {"worlds": worlds}
        if rules is not None:
            options["rules"] = rules.name
        self.bot = load_strategy(spec)(seat, rng, **options)
        self.rng = rng

    def candidates(self, obs: Observation) -> list:
        return self.bot.candidates_at(obs)

    def evaluate(self, obs: Observation, actions: Sequence[object], worlds: int | None = None) -> list:
        return self.bot.evaluate(obs, actions, worlds=worlds, rng=self.rng)

    def continuation(self, obs: Observation, action: object, seed: int = 0) -> list:
        """The next plays after ``action`` in the first world of an evaluation at ``seed``."""
        return self.bot.continuation(obs, action, seed=seed)


def _search(
    seat: int, rng: random.Random, worlds: int, *, rules: Ruleset | None = None, spec: str = "search"
) -> SearchEvaluator:
    return SearchEvaluator(seat, rng, worlds, rules, spec)


def evaluator_maker(rules: Ruleset | None = None, spec: str = "search") -> tuple[EvaluatorMaker, str]:
    """``(maker, description)``: the search (``spec``: ``search`` or a ``search:...`` spec, its
    other options; the review sets ``worlds``) in the ruleset ``rules`` (default: the search's).

    A spec that is not a search raises ``ValueError`` naming it.
    """
    from guandan_cli.strategies.registry import load_strategy
    from guandan_cli.strategies.search import SearchStrategy

    cls = load_strategy(spec)
    if not (isinstance(cls, type) and issubclass(cls, SearchStrategy)):
        raise ValueError(f"the evaluator must be search or a search:... spec, got {spec!r}")
    options = "" if spec == "search" else f", {spec}"
    maker = functools.partial(_search, rules=rules, spec=spec)
    return maker, f"search (determinized heuristic rollouts{options})"


__all__ = ["Evaluator", "EvaluatorMaker", "SearchEvaluator", "evaluator_maker"]

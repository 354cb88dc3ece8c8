"""Which evaluator values a review's actions: the search bot's, or the rollout stand-in.

``search`` is ``guandan_cli.strategies.search.SearchStrategy.evaluate`` (issue 27);
``rollout`` is :class:`~guandan_cli.review.rollouts.RolloutEvaluator`, the same method
without the search's refinements. By default a review uses ``search`` when it is installed.

>>> evaluator_maker("rollout")[1]
'heuristic rollouts (the stand-in for search)'
"""

from __future__ import annotations

import functools
import importlib.util
import random

from guandan_cli.engine.rules import Ruleset

from .rollouts import RolloutEvaluator

EVALUATORS = ("search", "rollout")


def search_available() -> bool:
    """Whether the search bot (``guandan_cli.strategies.search``) is installed."""
    try:
        return importlib.util.find_spec("guandan_cli.strategies.search") is not None
    except ImportError:  # pragma: no cover
        return False


def _rollout(seat: int, rng: random.Random, worlds: int, *, rules: Ruleset | None = None) -> RolloutEvaluator:
    return RolloutEvaluator(seat, rng, worlds, rules)


class SearchEvaluator:
    """The search bot's ``evaluate`` with its candidates listed (``candidates(obs)``: the ones its
    ``evaluate(obs)`` would value), so that a review can put the played action first."""

    def __init__(self, seat: int, rng: random.Random, worlds: int, rules: Ruleset | None = None) -> None:
        from guandan_cli.strategies.search import SearchStrategy

        options: dict[str, object] = {"worlds": worlds}
        if rules is not None:
            options["rules"] = rules.name
        self.bot = SearchStrategy(seat, rng, **options)

    def candidates(self, obs) -> list:
        from guandan_cli.strategies.heuristic import HeuristicStrategy
        from guandan_cli.strategies.search import candidate_actions

        fresh = HeuristicStrategy(obs.seat)
        fresh.start_deal(0, obs)
        return candidate_actions(obs, fresh.choose_play(obs), self.bot.candidates)

    def evaluate(self, obs, actions=None) -> list:
        return self.bot.evaluate(obs, actions)


def _search(seat: int, rng: random.Random, worlds: int, *, rules: Ruleset | None = None) -> SearchEvaluator:
    return SearchEvaluator(seat, rng, worlds, rules)


def evaluator_maker(name: str | None = None, rules: Ruleset | None = None) -> tuple:
    """``(maker, description)`` for evaluator ``name`` (``None``: search if installed, else rollout)."""
    if name is None:
        name = "search" if search_available() else "rollout"
    if name == "search":
        if not search_available():
            raise ValueError(
                "the search evaluator needs guandan_cli.strategies.search, which is not installed"
            )
        return functools.partial(_search, rules=rules), "search (determinized heuristic rollouts)"
    if name == "rollout":
        return functools.partial(_rollout, rules=rules), "heuristic rollouts (the stand-in for search)"
    raise ValueError(f"unknown evaluator {name!r}: expected one of {', '.join(EVALUATORS)}")


__all__ = ["EVALUATORS", "evaluator_maker", "search_available"]

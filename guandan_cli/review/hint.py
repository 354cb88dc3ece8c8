"""``guandan play --hint search``: the ``?`` answer with every candidate's value.

>>> import random
>>> from guandan_cli.engine import deal_hands
>>> from guandan_cli.engine.deal import Deal, DealSetup
>>> from guandan_cli.engine.observation import observe
>>> from guandan_cli.view.table import Style
>>> obs = observe(Deal(DealSetup(hands=deal_hands(random.Random(1)), level=0, first_leader=2)), 2)
>>> lines = valued_hint(obs, Style.plain(), worlds=2)
>>> lines[0].startswith("suggestion: ") and "levels" in lines[0]
True
"""

from __future__ import annotations

import random

from guandan_cli.engine.rules import Ruleset
from guandan_cli.view.table import Style

from .core import DEFAULT_WORLDS
from .evaluators import evaluator_maker
from .text import action_label, signed


def valued_hint(
    obs,
    style: Style,
    *,
    worlds: int = DEFAULT_WORLDS,
    rules: Ruleset | None = None,
    evaluator: object = None,
    shown: int = 6,
    seed: int = 0,
) -> list[str]:
    """The best candidate for ``obs`` (a play-phase observation of the seat to move) with its value
    in levels for the seat's team, then the other candidates' values, best first.

    ``evaluator``: a search player (its own budget and candidates: ``play --hint search:...``);
    ``None``: the default search at ``worlds`` worlds in the ruleset ``rules``. The worlds come
    from a seed derived from the position and ``seed`` (the search's ``world_rng``): ``?`` asked
    twice says the same, and a review at the same ``--seed`` and budget values the same actions
    the same."""
    if evaluator is None:
        maker, described = evaluator_maker(rules)
        values = maker(obs.seat, random.Random(0), worlds).bot.evaluate(obs, seed=seed)
    else:
        values = evaluator.evaluate(obs, seed=seed)
        described = getattr(evaluator, "name", type(evaluator).__name__)
    values = sorted(values, key=lambda v: -v.mean)  # the search's candidates, the heuristic's first
    best, rest = values[0], values[1:]
    how = (
        "exact: two seats left, the race solved"
        if getattr(best, "exact", False)
        else f"[{signed(best.low)}, {signed(best.high)}] over {best.n} worlds"
    )
    lines = [
        f"suggestion: {action_label(best.action, obs.level, style)}  ({signed(best.mean)} levels, {how}; "
        f"{described})"
    ]
    if rest:
        others = " · ".join(
            f"{action_label(v.action, obs.level, style)} {signed(v.mean)}" for v in rest[:shown]
        )
        more = f" · and {len(rest) - shown} more" if len(rest) > shown else ""
        lines.append(f"  others: {others}{more}")
    return lines


__all__ = ["valued_hint"]

"""``guandan play --hint search``: the ``?`` answer with every candidate's value.

>>> import random
>>> from guandan_cli.engine import deal_hands
>>> from guandan_cli.engine.deal import Deal, DealSetup
>>> from guandan_cli.engine.observation import observe
>>> from guandan_cli.view.table import Style
>>> obs = observe(Deal(DealSetup(hands=deal_hands(random.Random(1)), level=0, first_leader=2)), 2)
>>> lines = valued_hint(obs, Style.plain(), worlds=2, evaluator="rollout")
>>> lines[0].startswith("suggestion: ") and "levels" in lines[0]
True
"""

from __future__ import annotations

import random

from guandan_cli.engine.rules import Ruleset
from guandan_cli.engine.seeding import derive_seed
from guandan_cli.view.table import Style

from .core import DEFAULT_WORLDS, candidates_of
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
) -> list[str]:
    """The best candidate for ``obs`` (a play-phase observation of the seat to move) with its value
    in levels for the seat's team, then the other candidates' values, best first.

    ``evaluator``: an object with ``evaluate(obs, actions)`` (a search player), or the name of
    one (``search``, ``rollout``; ``None``: search if installed)."""
    if evaluator is None or isinstance(evaluator, str):
        maker, described = evaluator_maker(evaluator, rules)
        rng = random.Random(derive_seed("hint", obs.seat, len(obs.events), tuple(obs.hand)))
        ev = maker(obs.seat, rng, worlds)
    else:
        ev, described = evaluator, getattr(evaluator, "name", type(evaluator).__name__)
    listed = candidates_of(ev, obs) if callable(getattr(ev, "candidates", None)) else None
    values = sorted(ev.evaluate(obs, listed), key=lambda v: -v.mean)  # None: its own candidates
    best, rest = values[0], values[1:]
    lines = [
        f"suggestion: {action_label(best.action, obs.level, style)}  ({signed(best.mean)} levels, "
        f"[{signed(best.low)}, {signed(best.high)}] over {best.n} worlds; {described})"
    ]
    if rest:
        others = " · ".join(
            f"{action_label(v.action, obs.level, style)} {signed(v.mean)}" for v in rest[:shown]
        )
        more = f" · and {len(rest) - shown} more" if len(rest) > shown else ""
        lines.append(f"  others: {others}{more}")
    return lines


__all__ = ["valued_hint"]

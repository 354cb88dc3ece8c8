"""From a logged deal record back to engine objects: its ``DealSetup`` and its actions.

Used by ``guandan verify`` and ``guandan replay``. ``prev`` is the previous deal record of
the same match (``None`` for deal 0): its finish order and double-down decide tribute.
"""

from __future__ import annotations

from guandan_cli.engine.cards import level_index, parse_cards
from guandan_cli.engine.combos import Combo
from guandan_cli.engine.deal import PASS, DealSetup
from guandan_cli.engine.rules import Ruleset


def record_setup(rec: dict, prev: dict | None, rules: Ruleset) -> DealSetup:
    """The ``DealSetup`` a deal record describes (hands, levels, level team, previous deal)."""
    previous = None if prev is None else (tuple(prev["finish_order"]), bool(prev["double_down"]))
    return _setup(rec, previous, rules)


def _setup(rec: dict, previous: tuple | None, rules: Ruleset) -> DealSetup:
    """The ``DealSetup`` of ``rec`` given the previous deal's (finish order, double-down)."""
    levels = tuple(level_index(x) for x in rec["levels_before"])
    lt = rec["level_team"]
    return DealSetup(
        hands=tuple(tuple(sorted(parse_cards(h))) for h in rec["hands"]),
        level=levels[lt] if lt is not None else 0,
        levels=(levels[0], levels[1]),
        level_team=lt,
        previous=previous,
        first_leader=rec["first_leader"] if previous is None else None,
        rules=rules,
    )


def _previous_from_tribute(rec: dict) -> tuple[tuple[int, ...], bool] | None:
    """A previous (finish order, double-down) that gives the record's tribute situation.

    Only the first finisher, the last (single tribute) and double-down decide tribute, so
    the two middle places are chosen to keep double-down as logged.
    """
    trib = rec["tribute"]
    kind = trib["kind"]
    if kind == "none":
        return None
    if kind == "double" or (kind == "resisted" and len(trib["resisted_by"]) == 2):
        first = trib["returns"][0]["from"] if kind == "double" else rec["first_leader"]
        return (first, first ^ 2, (first + 1) % 4, (first + 3) % 4), True
    if kind == "single":
        first, last = trib["payments"][0]["to"], trib["payments"][0]["from"]
    else:  # resisted single: the previous 上游 leads
        first, last = rec["first_leader"], trib["resisted_by"][0]
    middle = [s for s in range(4) if s not in (first, last)]
    middle.sort(key=lambda s: s == first ^ 2)  # an opponent second: no double-down
    return (first, middle[0], middle[1], last), False


def record_setup_alone(rec: dict, rules: Ruleset) -> DealSetup:
    """The ``DealSetup`` of a deal record read on its own (a deal played from a setup source).

    The previous deal is not in the log, so its finish order is rebuilt from the record's
    tribute (``_previous_from_tribute``): equivalent for everything the deal's play depends on.
    """
    return _setup(rec, _previous_from_tribute(rec), rules)


def parse_action(text: str, i: int = 0) -> tuple[int, object]:
    """``"2 pass"`` or ``"0 pair:7 S7 D7"`` as ``(seat, PASS | Combo)``."""
    if not isinstance(text, str):  # a hand-edited log: a number, null or a list
        raise ValueError(f"action {i} {text!r}: expected a string 'SEAT pass' or 'SEAT type:key cards'")
    seat_s, _, rest = text.partition(" ")
    try:
        seat = int(seat_s)
    except ValueError:
        raise ValueError(f"action {i} {text!r}: expected 'SEAT pass' or 'SEAT type:key cards'") from None
    if rest == "pass":
        return seat, PASS
    try:
        return seat, Combo.from_text(rest)
    except ValueError as exc:
        raise ValueError(f"action {i}: {exc}") from None


def record_actions(rec: dict) -> list[tuple[int, object]]:
    """Every action of the deal in order: tribute cards, return cards, then plays and passes."""
    trib = rec["tribute"]
    actions: list = [(p["from"], parse_cards(p["card"])[0]) for p in trib["payments"]]
    actions += [(r["from"], parse_cards(r["card"])[0]) for r in trib["returns"]]
    actions += [parse_action(a, i) for i, a in enumerate(rec["actions"])]
    return actions


__all__ = ["parse_action", "record_actions", "record_setup", "record_setup_alone"]

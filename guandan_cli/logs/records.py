"""A logged deal line as a value, and back to engine objects: its ``DealSetup`` and its actions.

:meth:`DealRecord.parse` turns the JSON object of a deal line (as the reader's line check
let it through: the fields there, of their JSON kinds) into a frozen :class:`DealRecord`,
checking once what the engine needs of it (seats, levels, cards, actions); a value that does
not fit is one :class:`RecordError` naming the file, the line and the field. ``replay``,
``watch``, ``review``, ``verify`` and the setups of a run directory read deals this way;
``verify`` also compares a line with the one its replay rebuilds, field by field
(:meth:`DealRecord.differences`: on the JSON, so that a hand-edited value shows as written).

``prev`` is the previous deal of the same match (``None`` for deal 0): its finish order and
double-down decide tribute.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import partial

from guandan_cli.engine.cards import level_index, parse_cards
from guandan_cli.engine.combos import Combo
from guandan_cli.engine.deal import PASS, Deal, DealSetup
from guandan_cli.engine.match import LEVEL_TOKENS
from guandan_cli.engine.rules import Ruleset, get_ruleset


class RecordError(ValueError):
    """A log line whose values do not make a deal or match: ``source:line: why`` (``field``: which)."""

    def __init__(self, source: object, line: int, field: str, why: str) -> None:
        self.source, self.line, self.field, self.why = str(source), line, field, why
        super().__init__(f"{source}:{line}: {why}")

    @property
    def where(self) -> str:
        """``file:line`` of the record."""
        return f"{self.source}:{self.line}"


def _seat(v: object) -> bool:
    return type(v) is int and 0 <= v <= 3


@dataclass(frozen=True)
class Transfer:
    """A tribute card paid, or a card returned: from seat ``giver`` to seat ``receiver``."""

    giver: int
    receiver: int
    card: int


@dataclass(frozen=True)
class TributeRecord:
    """The ``tribute`` block of a deal line."""

    kind: str
    resisted_by: tuple[int, ...]
    payments: tuple[Transfer, ...]
    returns: tuple[Transfer, ...]


@dataclass(frozen=True)
class LogLine:
    """What every record of a log holds first: where it is (``source:line``), its schema
    version, its run and its match."""

    source: str
    line: int
    version: int
    run_id: str
    match: int
    match_seed: int
    #: the JSON object the record was parsed from (for :meth:`DealRecord.differences`)
    raw: Mapping = field(default_factory=dict, compare=False, repr=False, kw_only=True)

    @property
    def where(self) -> str:
        """``file:line`` of the record."""
        return f"{self.source}:{self.line}"

    def error(self, field: str, why: str) -> RecordError:
        """A ``RecordError`` of this record."""
        return RecordError(self.source, self.line, field, why)


def record_place(data: Mapping) -> tuple[int, int | None]:
    """``(match, deal)`` of a line's JSON object (``deal`` None for a match line), as the
    reader's line check let it through: what names a line that does not parse."""
    return data["match"], data.get("deal")


@dataclass(frozen=True)
class DealRecord(LogLine):
    """One deal line of a log, checked (see the module docstring)."""

    deal: int
    deal_seed: int
    ruleset: str
    strategies: tuple[str, str, str, str]
    level_team: int | None
    level: str
    levels_before: tuple[str, str]
    levels_after: tuple[str, str]
    hands: tuple[tuple[int, ...], ...]
    tribute: TributeRecord
    first_leader: int
    #: the play phase's actions, ``(seat, PASS | Combo)``, in order
    plays: tuple[tuple[int, object], ...]
    finish_order: tuple[int, ...]
    double_down: bool
    upgrade: int
    winner_team: int
    match_over: bool
    match_winner: int | None
    capped: bool
    #: the ``derived`` block (tricks, passes, bombs…: docs/log-format.md)
    derived: Mapping[str, object]

    @classmethod
    def parse(cls, data: Mapping, source: object = "<record>", line: int = 0) -> DealRecord:
        """The deal of a line's JSON object (``RecordError`` naming the first field that does not fit)."""

        bad = partial(RecordError, source, line)  # bad(field, why)
        names = data["strategies"]
        if len(names) != 4 or not all(isinstance(n, str) for n in names):
            raise bad("strategies", f"strategies {names!r} are not 4 names (seats 0-3)")
        if data["level_team"] not in (None, 0, 1):
            raise bad("level_team", f"level_team {data['level_team']!r} is not 0, 1 or null")
        if not _seat(data["first_leader"]):
            raise bad("first_leader", f"first_leader {data['first_leader']!r} is not a seat 0-3")
        levels = {key: _levels(data[key], key, bad) for key in ("levels_before", "levels_after")}
        try:
            hands = tuple(tuple(sorted(parse_cards(h))) for h in data["hands"])
        except (ValueError, TypeError, AttributeError) as exc:
            raise bad("hands", f"hands: {exc}") from None
        order = data["finish_order"]
        if not all(_seat(s) for s in order):
            raise bad("finish_order", f"finish_order {order!r} holds a value that is not a seat 0-3")
        tribute = _tribute(data["tribute"], bad)
        plays = []
        for i, a in enumerate(data["actions"]):
            try:
                plays.append(parse_action(a, i))
            except ValueError as exc:
                raise bad("actions", str(exc)) from None
        return cls(
            str(source), line, data["v"], data["run_id"], data["match"], data["match_seed"], data["deal"],
            data["deal_seed"], data["ruleset"], (names[0], names[1], names[2], names[3]), data["level_team"],
            data["level"], levels["levels_before"], levels["levels_after"], hands, tribute,
            data["first_leader"], tuple(plays), tuple(order), data["double_down"], data["upgrade"],
            data["winner_team"], data["match_over"], data["match_winner"], data["capped"], data["derived"],
            raw=data,
        )  # fmt: skip

    def actions(self) -> list[tuple[int, object]]:
        """Every action of the deal in order: tribute cards, return cards, then plays and passes."""
        t = self.tribute
        return [
            *((p.giver, p.card) for p in t.payments),
            *((r.giver, r.card) for r in t.returns),
            *self.plays,
        ]

    def rules(
        self, a_fail_limit: int | None = None, max_deals: int | None = None, tribute: str | None = None
    ):
        """The ruleset the deal was played under, with its run's options (``RecordError`` for an unknown one)."""
        try:
            return get_ruleset(self.ruleset, a_fail_limit=a_fail_limit, max_deals=max_deals, tribute=tribute)
        except ValueError as exc:
            raise self.error("ruleset", str(exc)) from None

    def setup(self, prev: DealRecord | None, rules: Ruleset, *, check: bool = True) -> DealSetup:
        """The ``DealSetup`` the record describes (hands, levels, level team, the previous deal's
        finish order and double-down); ``RecordError`` when they make no deal (``check=False``:
        not checked, for a caller that replays it and reports the engine's own error)."""
        previous = None if prev is None else (prev.finish_order, prev.double_down)
        return self._setup(previous, rules, check)

    def setup_alone(self, rules: Ruleset, *, check: bool = True) -> DealSetup:
        """The ``DealSetup`` of the record read on its own (a deal played from a setup source).

        The previous deal is not in the log, so its finish order is rebuilt from the record's
        tribute (``_previous_from_tribute``): equivalent for everything the deal's play depends on.
        """
        t = self.tribute
        try:
            previous = _previous_from_tribute(t, self.first_leader)
        except IndexError as exc:
            raise self.error("tribute", f"tribute {t.kind} without its payments or returns ({exc})") from None
        return self._setup(previous, rules, check)

    def differences(self, rebuilt: Mapping, keys: Iterable[str]) -> list[str]:
        """What of ``keys`` the line holds otherwise than ``rebuilt`` (the JSON record its replay
        gives): ``"upgrade is 3, the replay gives 2"``, a block's fields one by one."""
        out = []
        for k in keys:
            mine, want = self.raw.get(k), rebuilt.get(k)
            if mine == want:
                continue
            if isinstance(want, dict) and isinstance(mine, dict):
                out += [
                    f"{k}.{s} is {_short(mine.get(s))}, the replay gives {_short(want[s])}"
                    for s in want
                    if mine.get(s) != want[s]
                ]
            else:
                out.append(f"{k} is {_short(mine)}, the replay gives {_short(want)}")
        return out

    def _setup(self, previous: tuple | None, rules: Ruleset, check: bool) -> DealSetup:
        lt = self.level_team
        try:
            levels = tuple(level_index(x) for x in self.levels_before)
            setup = DealSetup(
                hands=self.hands,
                level=levels[lt] if lt is not None else 0,
                levels=(levels[0], levels[1]),
                level_team=lt,
                previous=previous,
                first_leader=self.first_leader if previous is None else None,
                rules=rules,
            )
            if check:
                Deal(setup)  # the engine's checks of a setup: faces, level, previous finish order
        except ValueError as exc:
            raise self.error("setup", str(exc)) from None
        return setup


@dataclass(frozen=True)
class MatchRecord(LogLine):
    """One match line of a log (the match's summary), checked."""

    ruleset: str
    strategies: tuple[str, ...]
    deals: int
    final_levels: tuple[str, str]
    winner: int | None
    capped: bool
    error: str | None

    @classmethod
    def parse(cls, data: Mapping, source: object = "<record>", line: int = 0) -> MatchRecord:
        """The match of a line's JSON object (``RecordError`` naming the first field that does not fit)."""

        bad = partial(RecordError, source, line)  # bad(field, why)
        if data["winner"] not in (None, 0, 1):
            raise bad("winner", f"winner {data['winner']!r} is not 0, 1 or null")
        levels = _levels(data["final_levels"], "final_levels", bad)
        return cls(
            str(source), line, data["v"], data["run_id"], data["match"], data["match_seed"], data["ruleset"],
            tuple(data["strategies"]), data["deals"], (levels[0], levels[1]), data["winner"], data["capped"],
            data["error"], raw=data,
        )  # fmt: skip


def _levels(pair: object, field: str, bad) -> tuple[str, str]:
    """The two teams' level tokens of ``field`` (``2``…``A``, or ``A+`` once a team has won)."""
    if not (isinstance(pair, list) and len(pair) == 2 and all(x in LEVEL_TOKENS for x in pair)):
        raise bad(field, f"{field} {pair!r} is not 2 levels (each one of {' '.join(LEVEL_TOKENS)})")
    return pair[0], pair[1]


def _tribute(data: Mapping, bad) -> TributeRecord:
    """The ``tribute`` block as a value (``bad(field, why)`` makes the error)."""
    try:
        kind = data["kind"]
        resisted = tuple(data["resisted_by"])
        moves = [
            tuple(Transfer(m["from"], m["to"], parse_cards(m["card"])[0]) for m in data[key])
            for key in ("payments", "returns")
        ]
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
        raise bad("tribute", f"tribute {data!r:.80}: {type(exc).__name__}: {exc}") from None
    if not isinstance(kind, str) or not all(_seat(s) for s in resisted):
        raise bad("tribute", f"tribute kind {kind!r} or resisted_by {list(resisted)!r} is not valid")
    if not all(_seat(m.giver) and _seat(m.receiver) for ms in moves for m in ms):
        raise bad("tribute", "a tribute payment or return names a seat that is not 0-3")
    return TributeRecord(kind, resisted, moves[0], moves[1])


def _short(v: object) -> str:
    """``repr(v)``, cut to 80 characters."""
    s = repr(v)
    return s if len(s) <= 80 else s[:77] + "..."


def _previous_from_tribute(t: TributeRecord, first_leader: int) -> tuple[tuple[int, ...], bool] | None:
    """A previous (finish order, double-down) that gives the record's tribute situation.

    Only the first finisher, the last (single tribute) and double-down decide tribute, so
    the two middle places are chosen to keep double-down as logged.
    """
    kind = t.kind
    if kind == "none":
        return None
    if kind == "double" or (kind == "resisted" and len(t.resisted_by) == 2):
        first = t.returns[0].giver if kind == "double" else first_leader
        return (first, first ^ 2, (first + 1) % 4, (first + 3) % 4), True
    if kind == "single":
        first, last = t.payments[0].receiver, t.payments[0].giver
    else:  # resisted single: the previous 上游 leads
        first, last = first_leader, t.resisted_by[0]
    middle = [s for s in range(4) if s not in (first, last)]
    middle.sort(key=lambda s: s == first ^ 2)  # an opponent second: no double-down
    return (first, middle[0], middle[1], last), False


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


__all__ = [
    "DealRecord",
    "MatchRecord",
    "RecordError",
    "Transfer",
    "TributeRecord",
    "parse_action",
    "record_place",
]

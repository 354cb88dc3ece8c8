"""A player's leaks: the reviewed mistakes of many deals gathered by kind (``review --summary``).

Each decision the review did not call good (an inaccuracy, a mistake or a blunder:
``review.summary.severity``) is given one kind, from what the play made and the best
alternative do to the hand (``review.reasons.move_facts``, the heuristic's plan of it), in
this order: the play made **broke a bomb** the best keeps; it **beat the partner** where the
best let the partner's play stand; it **passed** where a play was better; it **played a bomb**
where the best plays none; it **spent control cards** (jokers, the ♥ wild, level cards) the
best keeps; it **left more groups** (turns to go out) than the best; else **other**.
For each kind: how many, the loss in all, and the worst example.

>>> def facts(move, broken=(), spent=(), groups=5, bomb=False, partner=False):
...     return MoveFacts(move, bomb, broken, (), spent, groups, partner, False)
>>> leak_kind(facts("straight A–5", broken=("your bomb of 4s",)), facts("pair 3"))
'broke a bomb'
>>> leak_kind(facts("pass"), facts("single K")), leak_kind(facts("single 9", groups=6), facts("pair 9"))
('passed where a play was better', 'left more groups to play')
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .reasons import MoveFacts, move_facts
from .summary import Severity, severity

KINDS = (
    "broke a bomb",
    "beat the partner",
    "passed where a play was better",
    "played a bomb too soon",
    "spent control cards",
    "left more groups to play",
    "other",
)


def leak_kind(played: MoveFacts, best: MoveFacts) -> str:
    """The kind of a mistake from the facts of the play made and of the best (module docstring)."""
    if played.broken and not best.broken:
        return KINDS[0]
    if played.beats_partner and not best.beats_partner:
        return KINDS[1]
    if played.move == "pass" and best.move != "pass":
        return KINDS[2]
    if played.plays_bomb and not best.plays_bomb:
        return KINDS[3]
    if len(played.spent) > len(best.spent):
        return KINDS[4]
    if played.groups > best.groups:
        return KINDS[5]
    return KINDS[6]


@dataclass(frozen=True)
class Leak:
    """One kind of mistake over the reviewed deals: how many, the loss in all, the worst one."""

    kind: str
    count: int
    total_loss: float
    worst: str  # where, what was played, the best, the loss

    def as_dict(self) -> dict:
        return {
            "kind": self.kind,
            "count": self.count,
            "total_loss": round(self.total_loss, 4),
            "worst": self.worst,
        }


def leaks(flagged: Iterable[tuple[object, object, object]]) -> list[Leak]:
    """The leaks of ``(deal, decision, review)`` triples (a ``LoggedDeal``, the ``Decision`` with
    the seat's observation, its ``DecisionReview``): the decisions not called good, by kind,
    the costliest kind first."""
    found: dict[str, list[tuple[float, str]]] = {}
    for logged, decision, r in flagged:
        if severity(r) in (Severity.GOOD, Severity.UNCLEAR):
            continue
        obs = decision.obs
        partner_top = obs.top is not None and obs.top_owner == obs.partner
        played = move_facts(obs.hand, obs.level, r.played, partner_top)
        best = move_facts(obs.hand, obs.level, r.best, partner_top)
        where = f"match {logged.match} deal {logged.deal} #{r.index}: {played.move} instead of {best.move}"
        found.setdefault(leak_kind(played, best), []).append((r.loss, f"{where} (loss {r.loss:.2f})"))
    out = [Leak(kind, len(items), sum(x for x, _ in items), max(items)[1]) for kind, items in found.items()]
    return sorted(out, key=lambda leak: (-leak.total_loss, KINDS.index(leak.kind)))


def leak_lines(found: Sequence[Leak], seat: int, name: str, deals: int) -> list[str]:
    """The leaks as text: a title line, then one line per kind."""
    if not found:
        return [f"seat {seat} ({name}) over {deals} deal{'s' if deals != 1 else ''}: no clear mistake"]
    lines = [
        f"seat {seat} ({name}) over {deals} deal{'s' if deals != 1 else ''}: mistakes by kind, costliest first"
    ]
    for leak in found:
        lines.append(
            f"  {leak.kind}: {leak.count}, {leak.total_loss:.2f} levels in all · worst: {leak.worst}"
        )
    return lines


__all__ = ["KINDS", "Leak", "leak_kind", "leak_lines", "leaks"]

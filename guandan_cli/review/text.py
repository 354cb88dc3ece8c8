"""The review as terminal lines: a header, one line per decision, a summary per seat.

>>> signed(0.5), signed(-1.25), signed(float("nan"))
('+0.50', '-1.25', 'n/a')
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from guandan_cli.engine.combos import Combo
from guandan_cli.engine.match import level_token
from guandan_cli.view.names import strategy_names
from guandan_cli.view.table import Style, play_text

from .core import DecisionReview, summary
from .walk import LoggedDeal


def signed(x: float) -> str:
    return "n/a" if math.isnan(x) else f"{x:+.2f}"


def action_label(action: object, level: int, style: Style) -> str:
    """``pass`` or ``pair 7 ♠7 ♦7`` (wilds marked with what they stand for)."""
    if isinstance(action, Combo) and action[0] != "pass":
        return " ".join(play_text(action, level, style).split())
    return "pass"


def header_lines(logged: LoggedDeal, evaluator: str, worlds: int, seats: Sequence[int]) -> list[str]:
    s = logged.setup
    readable = strategy_names(logged.names)
    who = ", ".join(f"seat {i} {readable[n]}" for i, n in enumerate(logged.names))
    return [
        f"{logged.where}" if logged.where else "(a deal played now)",
        f"match {logged.match} (seed {logged.match_seed})  deal {logged.deal}  ruleset {s.rules.name}  "
        f"level {level_token(s.level)}  ({who})",
        f"values: {evaluator}, {worlds} worlds per action, from each seat's own view; "
        f"reviewing seat{'s' if len(seats) != 1 else ''} {', '.join(map(str, seats))}",
    ]


def decision_line(r: DecisionReview, level: int, style: Style) -> str:
    """One decision, numbered by trick and play: who decided on what; then the play made and its
    value, the best and the loss; when the best was another play, why, the odds and what followed.
    """
    label = {"mistake": "   MISTAKE", "unclear": "   unclear"}.get(r.label, "")
    head = f"trick {r.trick:>2}, play {r.index:>3} · seat {r.seat} {r.context}{' (exact)' if r.exact else ''}"
    played = f"played {action_label(r.played, level, style)} {signed(r.played_value)}"
    if r.best == r.played:  # unclear all the same when a challenger's interval still holds the threshold
        return f"{head} · {played}, the best{label}"
    interval = "" if math.isnan(r.loss_low) or r.exact else f" [{signed(r.loss_low)}, {signed(r.loss_high)}]"
    if interval and r.loss_worlds > r.worlds:
        interval += f" over {r.loss_worlds} worlds"
    best = f"best {action_label(r.best, level, style)} {signed(r.best_value)}"
    lines = [head + label, f"      {played} · {best} · loss {r.loss:.2f}{interval}"]
    lines += [f"      why: {r.reason}", f"      for the team: {odds_text(r)}"]
    if r.then_played or r.then_best:
        lines.append(f"      then, in one world (seat: play): after it {_plays(r.then_played)}")
        lines.append(f"                                       after the best {_plays(r.then_best)}")
    return "\n".join(lines)


def _plays(plays: Sequence) -> str:
    """``1: pair 9, 2: pass, …`` (seat: play; the deal over: ``end``)."""
    from .reasons import move_name

    return ", ".join(f"{seat}: {move_name(a)}" for seat, a in plays) or "end"


def _percent(x: float) -> str:
    return f"{100 * x:.0f}%"


def odds_text(r: DecisionReview) -> str:
    """``played → out first 45%, double-down 9% for / 12% against; best → …`` (the shares of the
    worlds' outcomes for the seat's team)."""
    parts = []
    for name, action in (("played", r.played), ("best", r.best)):
        a = next(x for x in r.alternatives if x.action == action)
        if not a.outcomes:
            continue
        parts.append(
            f"{name} → out first {_percent(a.first_out)}, double-down {_percent(a.double_for)} for"
            f" / {_percent(a.double_against)} against"
        )
    return "; ".join(parts) or "n/a"


def summary_lines(reviews: Sequence[DecisionReview], seats: Sequence[int], names: Sequence[str]) -> list[str]:
    rows = {row["seat"]: row for row in summary(reviews)}
    readable = strategy_names(names)
    out = []
    for seat in seats:
        row = rows.get(seat)
        if row is None:
            out.append(f"seat {seat} ({readable[names[seat]]}): no decision with a choice to review")
            continue
        n, m, u = row["decisions"], row["mistakes"], row["unclear"]
        out.append(
            f"seat {seat} ({readable[row['strategy']]}): {n} decision{'s' if n != 1 else ''} reviewed, "
            f"{m} mistake{'s' if m != 1 else ''}, {u} unclear, loss {row['total_loss']:.2f} levels in all, "
            f"{row['mean_loss']:.3f} per decision"
        )
    return out


__all__ = ["action_label", "decision_line", "header_lines", "odds_text", "signed", "summary_lines"]

"""The review of a deal of ``guandan play`` as soon as it ends, made while the game goes on.

When a deal ends the person's decisions in it are reviewed in a background thread (the deal is
rebuilt from the saved answers: :func:`~guandan_cli.interactive.saved_game.saved_deal`), with the
values ``guandan review`` gives them (same budget, same seed: the same numbers). ``r`` at the
deal's end shows the review (waiting for it if need be); otherwise its one-line verdict is
printed before the next question once it is ready.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

from guandan_cli.review.summary import SeatSummary, seat_summary, sparkline
from guandan_cli.view.table import Style


@dataclass(frozen=True)
class DealVerdict:
    """A deal's review for the person's seat: the summary, and the lines ``r`` prints."""

    deal: int
    summary: SeatSummary | None
    lines: tuple[str, ...]
    error: str | None = None

    @property
    def line(self) -> str:
        """``deal 2: accuracy 84% · 1 mistake, 2 inaccuracies · 0.80 levels lost over 19 decisions``."""
        if self.error is not None:
            return f"deal {self.deal}: no review ({self.error})"
        s = self.summary
        if s is None:
            return f"deal {self.deal}: no decision of yours had a choice"
        return f"deal {self.deal}: {verdict_words(s)}"


def verdict_words(s: SeatSummary) -> str:
    """``accuracy 84% · 1 blunder, 2 mistakes, 1 inaccuracy (3 unclear) · 0.80 levels lost over 19 decisions``."""
    counts = [
        (s.blunders, "blunder"),
        (s.mistakes, "mistake"),
        (s.inaccuracies, "inaccuracy"),
    ]
    plurals = {"blunder": "blunders", "mistake": "mistakes", "inaccuracy": "inaccuracies"}
    named = [f"{n} {word if n == 1 else plurals[word]}" for n, word in counts if n]
    flags = ", ".join(named) or "no mistake"
    unclear = f" ({s.unclear} unclear)" if s.unclear else ""
    return (
        f"accuracy {s.accuracy:.0f}% · {flags}{unclear} · {s.total_loss:.2f} levels lost over "
        f"{s.decisions} decision{'s' if s.decisions != 1 else ''}"
    )


def review_saved_deal(
    out: Path, seat: int, deal: int, style: Style, worlds: int | None = None
) -> DealVerdict:
    """Review ``seat``'s decisions in deal ``deal`` of the game saved in ``out``."""
    from guandan_cli.review import DEFAULT_WORLDS, ReviewInputError, load_deal
    from guandan_cli.review.core import review_deal
    from guandan_cli.review.evaluators import evaluator_maker
    from guandan_cli.review.text import decision_line

    from .saved_game import saved_deal

    try:
        logged = saved_deal(out, 0, deal) or load_deal(out, 0, deal)
    except ReviewInputError as exc:
        return DealVerdict(deal, None, (), error=str(exc))
    maker, _described = evaluator_maker(logged.setup.rules)
    reviews = list(review_deal(logged, maker, [seat], worlds=worlds or DEFAULT_WORLDS))
    if not reviews:
        return DealVerdict(deal, None, ())
    summary = seat_summary(reviews)
    level = logged.setup.level
    lines = [decision_line(r, level, style) for r in reviews]
    graph = sparkline([v for _, v in summary.graph])
    lines += [
        "",
        f"deal {deal}: {verdict_words(summary)}",
        f"expected levels for your team, decision by decision: {graph}",
    ]
    where = f"guandan review {out} --deal {deal} --seat {seat}"
    lines.append(f"the same review, with a page: {where} --html deal{deal}.html")
    return DealVerdict(deal, summary, tuple(lines))


class DealReviewer:
    """Reviews ended deals of one game in background threads, one deal at a time."""

    def __init__(self, out: Path, seat: int, style: Style, worlds: int | None = None) -> None:
        self.out = out
        self.seat = seat
        self.style = style
        self.worlds = worlds
        self._threads: dict[int, threading.Thread] = {}
        self._verdicts: dict[int, DealVerdict] = {}
        self._lock = threading.Lock()  # one review at a time: each takes the cores it can get
        self._told: set[int] = set()

    def start(self, deal: int) -> None:
        """Begin reviewing ``deal`` (it has ended and its answers are saved)."""
        if deal in self._threads:
            return
        thread = threading.Thread(target=self._review, args=(deal,), name=f"review-deal-{deal}", daemon=True)
        self._threads[deal] = thread
        thread.start()

    def _review(self, deal: int) -> None:
        with self._lock:
            try:
                verdict = review_saved_deal(self.out, self.seat, deal, self.style, self.worlds)
            except Exception as exc:  # noqa: BLE001 - a review that fails must not stop the game
                verdict = DealVerdict(deal, None, (), error=f"{type(exc).__name__}: {exc}")
            self._verdicts[deal] = verdict

    def verdict(self, deal: int) -> DealVerdict:
        """The verdict of ``deal``, waiting for its review to finish."""
        self.start(deal)
        self._threads[deal].join()
        self._told.add(deal)
        return self._verdicts[deal]

    def running(self) -> bool:
        """Whether a review is still being made."""
        return any(t.is_alive() for t in self._threads.values())

    def remaining_lines(self) -> list[str]:
        """The one-line verdicts not shown yet, waiting for the reviews still running."""
        for thread in list(self._threads.values()):
            thread.join()
        return self.ready_lines()

    def ready_lines(self) -> list[str]:
        """One-line verdicts of the deals reviewed since last asked, not yet shown."""
        out = []
        for deal in sorted(self._verdicts):
            if deal not in self._told:
                self._told.add(deal)
                out.append(
                    self._verdicts[deal].line
                    + f" (guandan review {self.out} --deal {deal} --seat {self.seat})"
                )
        return out


__all__ = ["DealReviewer", "DealVerdict", "review_saved_deal", "verdict_words"]

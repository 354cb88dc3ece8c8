"""A game of ``guandan table``: ``guandan play``'s game, with the person's seat in a browser.

The match is played by ``interactive.play.play_game`` (the runner, the journal of answers, the
resume), with a :class:`~guandan_cli.web.seat.WebSeat` in place of the terminal and a
:class:`~guandan_cli.web.server.TableServer` serving it. Each ended deal's review page is made
in the background as soon as the deal ends (while the next one is played), from the same code as
``guandan review --html`` (the person's seat, the default budget), and served on request.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from guandan_cli.interactive.play import GameSpec, play_game
from guandan_cli.interactive.seat import Journal
from guandan_cli.interactive.terminal import Screen
from guandan_cli.view.table import Style

from .seat import WebSeat
from .server import TableServer


def review_page(out: Path, seat: int, deal: int, worlds: int | None = None) -> str:
    """The review page (``review --html``) of ``seat``'s decisions in deal ``deal`` of the game in
    ``out``, finished or not (``LookupError`` when that deal has not ended)."""
    from guandan_cli.interactive.saved_game import saved_deal
    from guandan_cli.review import DEFAULT_WORLDS, MISTAKE_THRESHOLD, ReviewInputError, load_deal
    from guandan_cli.review.core import review_deal
    from guandan_cli.review.evaluators import evaluator_maker
    from guandan_cli.review.page import deal_data, render_page

    try:
        logged = saved_deal(out, 0, deal) or load_deal(out, 0, deal)
    except ReviewInputError as exc:
        raise LookupError(str(exc)) from None
    maker, described = evaluator_maker(logged.setup.rules)
    reviews = list(review_deal(logged, maker, [seat], worlds=worlds or DEFAULT_WORLDS))
    data = deal_data(logged, reviews, evaluator=described, threshold=MISTAKE_THRESHOLD)
    return render_page([data], title=f"guandan review · deal {deal} · seat {seat}")


class Table:
    """One game at the web table: made with its options, then :meth:`play`."""

    def __init__(
        self,
        game: GameSpec,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        delay: float = 0.5,
        on_ready: Callable[[str], None] = lambda url: None,
    ) -> None:
        self.game = game
        self.host = host
        self.port = port
        self.delay = delay
        self.on_ready = on_ready
        self.seat: WebSeat | None = None
        #: the match is over (its log is complete)
        self.over = False
        self.server: TableServer | None = None

    def _make_seat(self, journal: Journal) -> WebSeat:
        from guandan_cli.engine.rules import get_ruleset

        game = self.game
        rules = get_ruleset(game.ruleset, a_fail_limit=game.a_fail_limit, max_deals=game.max_deals)
        names = ["you" if s == game.seat else n for s, n in enumerate(game.strategies)]
        self.seat = WebSeat(game.seat, names, journal, hint=game.hint, rules=rules, delay=self.delay)
        self.server = TableServer(
            self.seat,
            self.host,
            self.port,
            lambda deal, worlds: review_page(game.out, game.seat, deal, worlds),
        )
        server = self.server
        # each ended deal's review is made at once, in the background, while the next deal is played
        self.seat.listeners.append(lambda m: m["type"] == "deal_over" and server.prepare_review(m["deal"]))
        self.on_ready(server.start())
        return self.seat

    def play(self, *, resume: bool):
        """Play (or continue) the game; returns the runner's ``Run``. The server stays up until
        :meth:`close` (the ended deals' reviews are still there after the match)."""
        screen = Screen(False)
        run = play_game(
            self.game, resume=resume, screen=screen, style=Style.plain(), delay=0, make_seat=self._make_seat
        )
        self.over = True  # before the page hears it: a Ctrl-C from now on ends a finished game
        if self.seat is not None:
            self.seat.publish({"type": "match_over"})
        return run

    def close(self) -> None:
        if self.server is not None:
            self.server.stop()


__all__ = ["Table", "review_page"]

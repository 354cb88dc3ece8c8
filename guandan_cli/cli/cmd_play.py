"""`guandan play`: take a seat yourself against bots; the match is written as a run directory."""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import click

from guandan_cli.cli.errors import check_delay, fail, interrupted
from guandan_cli.cli.game_options import (
    DealReview,
    GameOptions,
    Hint,
    check_room,
    game_spec,
)
from guandan_cli.cli.options import TracebackOption, run_failed
from guandan_cli.cli.parameters import Option


@dataclass(frozen=True)
class PlayOptions:
    """``guandan play``'s options after the game's, in the order ``--help`` lists them."""

    delay: Annotated[float, Option("--delay", help="Seconds to pause after each bot action.")] = 0.5
    plain: Annotated[
        bool, Option("--plain", help="Letters S H C D and no colour (automatic when not a terminal).")
    ] = False
    hint: Hint = "heuristic"
    deal_review: DealReview = True
    traceback: TracebackOption = False


def play(ctx: click.Context, options: GameOptions, given: PlayOptions) -> None:
    """Play one match at --seat against bots: answer with cards (S3 H4 D4), a menu number, p to pass,
    ? for a suggestion, h for the menu, t for the table. q (or Ctrl-C) saves every answer; --resume continues."""
    import sys

    from guandan_cli.interactive.play import (
        PlayInputError,
        play_game,
        saved_line,
        stop_reason,
    )
    from guandan_cli.interactive.terminal import Screen, is_tty
    from guandan_cli.runner.simulation import SimulationError, SimulationInputError
    from guandan_cli.view.table import Style

    check_delay(given.delay)
    game = game_spec(ctx, options, hint=given.hint, deal_review=given.deal_review)
    check_room(game.out, game.max_deals)

    colour = not given.plain and is_tty(sys.stdout)
    style = Style(symbols=colour, colour=colour)
    screen = Screen(colour)
    screen.print(f"guandan play: seed {game.seed}, you are seat {game.seat}; the game is saved in {game.out}")
    reviewer = None
    if game.deal_review:  # each deal of the person's reviewed as it ends (r shows it)
        from guandan_cli.interactive.deal_review import DealReviewer

        reviewer = DealReviewer(game.out, game.seat, style)
    try:
        run = play_game(
            game, resume=options.resume, screen=screen, style=style, delay=given.delay, reviewer=reviewer
        )
    except (PlayInputError, SimulationInputError) as exc:
        fail(exc)
    except SimulationError as exc:
        run_failed(exc, given.traceback)
    except KeyboardInterrupt as exc:
        why = stop_reason(exc)
        if why == "q":  # an ordinary stop: exit 0
            screen.print(saved_line(game))
            return
        interrupted(f"{why}; every answer is saved: guandan play --resume --out {game.out}")
    _summary(run.path if hasattr(run, "path") else game.out, game.seat, screen, style)


def _summary(out: Path, seat: int, screen, style) -> None:
    """The last deal's end, where the log is and how to look back at it."""
    from guandan_cli.logreaders.replay import record_end_lines
    from guandan_cli.logs.reader import iter_records, part_files
    from guandan_cli.logs.records import DealRecord

    last = None
    for f in part_files(out, "deals"):
        for line, rec in iter_records(f, "deals"):
            last = (rec, f, line)
    if last is not None:
        for text in record_end_lines(DealRecord.parse(*last)):
            screen.print(text)
    where = shlex.quote(str(out))
    screen.print(
        f"the match is written to {out}: guandan review {where} --deal N --seat {seat} (your decisions valued);"
        f" guandan replay {where} --deal N; guandan verify {where}"
    )

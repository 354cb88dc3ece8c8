"""`guandan play`: take a seat yourself against bots; the match is written as a run directory."""

from __future__ import annotations

import shlex
from dataclasses import replace
from pathlib import Path
from typing import Annotated

import click

from guandan_cli.cli.errors import check_delay, fail, given_options, interrupted
from guandan_cli.cli.options import TracebackOption, run_failed
from guandan_cli.cli.parameters import Option


def play(
    ctx: click.Context,
    seat: Annotated[int, Option("--seat", help="Your seat, 0-3 (your partner sits at seat+2).")] = 0,
    strategies: Annotated[
        str, Option("--strategies", "-s", help="The bots: one name (all three) or partner,opponents.")
    ] = "heuristic",
    seed: Annotated[int | None, Option("--seed", help="Match seed (default: a fresh one, printed).")] = None,
    ruleset: Annotated[str, Option("--ruleset", help="Ruleset (cgr2022 or jiangsu2017).")] = "cgr2022",
    max_deals: Annotated[
        int | None, Option("--max-deals", help="End the match after this many deals.")
    ] = None,
    a_fail_limit: Annotated[
        int | None, Option("--a-fail-limit", help="Back to 2 after this many failures at A.")
    ] = None,
    out: Annotated[
        Path | None, Option("--out", "-o", help="Run directory (default runs/play-sSEED-seatN).")
    ] = None,
    resume: Annotated[bool, Option("--resume", help="Continue the unfinished game in --out.")] = False,
    delay: Annotated[float, Option("--delay", help="Seconds to pause after each bot action.")] = 0.5,
    plain: Annotated[
        bool, Option("--plain", help="Letters S H C D and no colour (automatic when not a terminal).")
    ] = False,
    hint: Annotated[
        str,
        Option(
            "--hint",
            help="The bot whose answer ? suggests (search, or a search:... spec: with each candidate's value); "
            "a resumed game keeps its own unless given (default: heuristic).",
            show_default=False,
        ),
    ] = "heuristic",
    traceback: TracebackOption = False,
) -> None:
    """Play one match at --seat against bots: answer with cards (S3 H4 D4), a menu number, p to pass,
    ? for a suggestion, h for the menu, t for the table. q (or Ctrl-C) saves every answer; --resume continues."""
    import sys

    from guandan_cli.interactive.play import PlayInputError, play_game, saved_line, stop_reason
    from guandan_cli.interactive.terminal import Screen, is_tty
    from guandan_cli.logs.layout import space_problem
    from guandan_cli.runner.simulation import SimulationError, SimulationInputError
    from guandan_cli.view.table import Style

    check_delay(delay)
    hint = hint.strip()
    for option, value in (("--max-deals", max_deals), ("--a-fail-limit", a_fail_limit)):
        if value is not None and value < 1:  # named as typed (get_ruleset names the Python argument)
            fail(f"{option} must be a positive whole number, got {value}")
    hint_given = bool(given_options(ctx, ("hint",)))
    try:
        if hint_given or not resume:
            _check_hint(hint)
        if resume:
            game = _resumed_game(ctx, out, hint if hint_given else None)
        else:
            game = _new_game(seat, strategies, seed, out, ruleset, max_deals, a_fail_limit, hint)
    except (PlayInputError, SimulationInputError, ValueError) as exc:
        fail(exc)
    problem = space_problem(game.out, 1, game.max_deals, suggest_compression=False)
    if problem is not None:  # before the opening line and the first question
        fail(problem.replace("play fewer matches or write", "make room or write"))

    colour = not plain and is_tty(sys.stdout)
    style = Style(symbols=colour, colour=colour)
    screen = Screen(colour)
    screen.print(f"guandan play: seed {game.seed}, you are seat {game.seat}; the game is saved in {game.out}")
    try:
        run = play_game(game, resume=resume, screen=screen, style=style, delay=delay)
    except (PlayInputError, SimulationInputError) as exc:
        fail(exc)
    except SimulationError as exc:
        run_failed(exc, traceback)
    except KeyboardInterrupt as exc:
        why = stop_reason(exc)
        if why == "q":  # an ordinary stop: exit 0
            screen.print(saved_line(game))
            return
        interrupted(f"{why}; every answer is saved: guandan play --resume --out {game.out}")
    _summary(run.path if hasattr(run, "path") else game.out, game.seat, screen, style)


def _resumed_game(ctx: click.Context, out: Path | None, hint: str | None):
    """The game stored in ``out`` (with ``hint`` if given), the options given checked against it."""
    from guandan_cli.interactive.play import check_resume_options, stored_game

    if out is None:
        fail("--resume needs --out, the directory of the game to continue")
    game = stored_game(out)
    game = replace(game, hint=hint) if hint is not None else game
    _check_hint(game.hint)
    check_resume_options(
        game, given_options(ctx, ("seat", "seed", "strategies", "ruleset", "max_deals", "a_fail_limit"))
    )
    return game


def _new_game(seat, strategies, seed, out, ruleset, max_deals, a_fail_limit, hint):
    """A new game of the options (a seed drawn when none is given; ``runs/play-sSEED-seatN`` by default)."""
    import secrets

    from guandan_cli.engine.rules import get_ruleset
    from guandan_cli.interactive.play import GameSpec, check_new_game, seat_strategies
    from guandan_cli.runner.simulation import check_strategies

    four = seat_strategies(seat, strategies)
    check_strategies([s for s in four if s != "human"])
    if seed is None:
        seed = secrets.randbelow(1_000_000)
    out = out or Path("runs") / f"play-s{seed}-seat{seat}"
    check_new_game(out)
    get_ruleset(ruleset, a_fail_limit=a_fail_limit, max_deals=max_deals)
    return GameSpec(out, seat, four, seed, ruleset, max_deals, a_fail_limit, hint)


def _check_hint(hint: str) -> None:
    """Refuse a ``--hint`` (given, or kept by a resumed game) that names no bot."""
    from guandan_cli.interactive.play import PlayInputError
    from guandan_cli.runner.simulation import SimulationInputError, check_strategies

    if hint == "human":
        raise PlayInputError("--hint names the bot whose answer ? suggests, not a person's seat")
    try:
        check_strategies([hint])
    except SimulationInputError as exc:
        raise PlayInputError(f"--hint: {exc}") from None


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

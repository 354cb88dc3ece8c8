"""The options of a game with a person at one seat, shared by ``guandan play`` (the terminal) and
``guandan table`` (the browser): the same options, the same checks, the same saved game."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Annotated

import click

from guandan_cli.cli.errors import fail, given_options
from guandan_cli.cli.parameters import Option

Seat = Annotated[int, Option("--seat", help="Your seat, 0-3 (your partner sits at seat+2).")]
Bots = Annotated[
    str, Option("--strategies", "-s", help="The bots: one name (all three) or partner,opponents.")
]
GameSeed = Annotated[int | None, Option("--seed", help="Match seed (default: a fresh one, printed).")]
GameRuleset = Annotated[str, Option("--ruleset", help="Ruleset (cgr2022 or jiangsu2017).")]
GameMaxDeals = Annotated[int | None, Option("--max-deals", help="End the match after this many deals.")]
GameAFailLimit = Annotated[
    int | None, Option("--a-fail-limit", help="Back to 2 after this many failures at A.")
]
GameOut = Annotated[Path | None, Option("--out", "-o", help="Run directory (default runs/play-sSEED-seatN).")]
Resume = Annotated[bool, Option("--resume", help="Continue the unfinished game in --out.")]
Hint = Annotated[
    str,
    Option(
        "--hint",
        help="The bot whose answer ? suggests (search, or a search:... spec: with each candidate's value); "
        "a resumed game keeps its own unless given (default: heuristic).",
        show_default=False,
    ),
]

DealReview = Annotated[
    bool,
    Option(
        "--deal-review/--no-deal-review",
        help="Review your decisions of each deal as it ends (r shows it; a resumed game keeps its own).",
    ),
]


@dataclass(frozen=True)
class GameOptions:
    """The game's options that ``play`` and ``table`` share, in the order ``--help`` lists them."""

    seat: Seat = 0
    strategies: Bots = "heuristic"
    seed: GameSeed = None
    ruleset: GameRuleset = "cgr2022"
    max_deals: GameMaxDeals = None
    a_fail_limit: GameAFailLimit = None
    out: GameOut = None
    resume: Resume = False


def game_spec(ctx: click.Context, given: GameOptions, *, hint: str, deal_review: bool = True):
    """The game to play (``GameSpec``): a new one from the options, or with ``resume`` the one saved
    in ``out`` (options given again must agree with it; ``--hint`` replaces its own). Bad input
    exits 2 with one line."""
    from guandan_cli.engine.rules import get_ruleset
    from guandan_cli.interactive.play import (
        GameSpec,
        PlayInputError,
        check_new_game,
        check_resume_options,
        seat_strategies,
        stored_game,
    )
    from guandan_cli.runner.simulation import SimulationInputError, check_strategies

    seat, strategies, seed, out, resume = given.seat, given.strategies, given.seed, given.out, given.resume
    ruleset, max_deals, a_fail_limit = given.ruleset, given.max_deals, given.a_fail_limit
    hint = hint.strip()
    for option, value in (("--max-deals", max_deals), ("--a-fail-limit", a_fail_limit)):
        if value is not None and value < 1:  # named as typed (get_ruleset names the Python argument)
            fail(f"{option} must be a positive whole number, got {value}")
    hint_given = bool(given_options(ctx, ("hint",)))
    try:
        if hint_given or not resume:
            check_hint(hint)
        if resume:
            if out is None:
                fail("--resume needs --out, the directory of the game to continue")
            game = stored_game(out)
            game = replace(game, hint=hint) if hint_given else game
            if given_options(ctx, ("deal_review",)):
                game = replace(game, deal_review=deal_review)
            check_hint(game.hint)
            check_resume_options(
                game,
                given_options(ctx, ("seat", "seed", "strategies", "ruleset", "max_deals", "a_fail_limit")),
            )
            return game
        four = seat_strategies(seat, strategies)
        check_strategies([s for s in four if s != "human"])
        if seed is None:
            seed = secrets.randbelow(1_000_000)
        out = out or Path("runs") / f"play-s{seed}-seat{seat}"
        check_new_game(out)
        get_ruleset(ruleset, a_fail_limit=a_fail_limit, max_deals=max_deals)
        return GameSpec(out, seat, four, seed, ruleset, max_deals, a_fail_limit, hint, deal_review)
    except (PlayInputError, SimulationInputError, ValueError) as exc:
        fail(exc)


def check_hint(hint: str) -> None:
    """Refuse a ``--hint`` (given, or kept by a resumed game) that names no bot."""
    from guandan_cli.interactive.play import PlayInputError
    from guandan_cli.runner.simulation import SimulationInputError, check_strategies

    if hint == "human":
        raise PlayInputError("--hint names the bot whose answer ? suggests, not a person's seat")
    try:
        check_strategies([hint])
    except SimulationInputError as exc:
        raise PlayInputError(f"--hint: {exc}") from None


def check_room(out: Path, max_deals: int | None) -> None:
    """Refuse (exit 2) a game whose folder's disk has no room for its log."""
    from guandan_cli.logs.layout import space_problem

    problem = space_problem(out, 1, max_deals, suggest_compression=False)
    if problem is not None:  # before the opening line and the first question
        fail(problem.replace("play fewer matches or write", "make room or write"))


__all__ = [
    "Bots",
    "DealReview",
    "GameOut",
    "GameSeed",
    "Hint",
    "Resume",
    "Seat",
    "check_hint",
    "check_room",
    "game_spec",
]

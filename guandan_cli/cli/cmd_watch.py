"""`guandan watch`: a match shown trick by trick, played now by bots or replayed from a run."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import click

from guandan_cli.cli.errors import FAILURE, check_delay, fail, given_options, interrupted
from guandan_cli.cli.parameters import Argument, Option

_HTML_HELP = (
    "Write the match as one self-contained HTML replay page (no network) to this file instead of showing it."
)


@dataclass(frozen=True)
class WatchCommand:
    """``guandan watch``'s arguments and options, in the order ``--help`` lists them."""

    run: Annotated[
        Path | None,
        Argument(help="A run directory to watch a logged match from (else bots play now).", metavar="RUN"),
    ] = None
    match: Annotated[int, Option("--match", "-m", help="Match index in RUN.")] = 0
    seed: Annotated[int, Option("--seed", help="Seed of the match played now (match 0 of that run).")] = 0
    strategies: Annotated[
        str, Option("--strategies", "-s", help="Bots: 1 name, 2 (seats 0/2, 1/3) or 4.")
    ] = "heuristic"
    ruleset: Annotated[str, Option("--ruleset", help="Ruleset (cgr2022 or jiangsu2017).")] = "cgr2022"
    max_deals: Annotated[int | None, Option("--max-deals", help="End the match after this many deals.")] = (
        None
    )
    delay: Annotated[
        float,
        Option("--delay", help="Seconds between actions (a key skips ahead; none when not a terminal)."),
    ] = 1.0
    step: Annotated[bool, Option("--step", help="Wait for Enter between actions.")] = False
    seat: Annotated[int, Option("--seat", help="The seat whose hand is shown (at the bottom).")] = 0
    open_hands: Annotated[bool, Option("--open", help="Show all four hands face up.")] = False
    plain: Annotated[
        bool, Option("--plain", help="Letters S H C D and no colour (automatic when not a terminal).")
    ] = False
    html: Annotated[Path | None, Option("--html", help=_HTML_HELP, show_default=False)] = None


def watch(ctx: click.Context, given: WatchCommand) -> None:
    """Watch one match action by action: the table, each play and its declaration (wilds marked),
    passes, 接风, tribute and return, the finish and the level change. q quits."""
    import sys

    from guandan_cli.engine.deal import IllegalActionError
    from guandan_cli.engine.play import StrategyError
    from guandan_cli.interactive.terminal import Pacer, Quit, Screen, is_tty, watch_delay
    from guandan_cli.interactive.watch import frames, live_frames
    from guandan_cli.logs.reader import LogReadError
    from guandan_cli.view.table import Style

    _check_options(ctx, given.run, given.match, given.seat, given.delay, given.max_deals, given.html)
    deals, four = _deals(given.run, given.match, given.seed, given.strategies, given.ruleset, given.max_deals)
    if given.html is not None:
        _write_page(given.html, deals, given.run)
        return
    tty = is_tty(sys.stdout)
    delay = watch_delay(given.delay, bool(given_options(ctx, ("delay",))), tty)
    colour = not given.plain and tty
    style = Style(symbols=colour, colour=colour)
    screen = Screen(colour, clear=tty)
    shown = None
    check = f"; check the log with: guandan verify {given.run}" if given.run is not None else ""
    try:
        with Pacer(given.step, delay) as pacer:
            if four is not None:  # played now, one action at a time
                for frame in live_frames(
                    given.seed,
                    four,
                    given.ruleset,
                    given.max_deals,
                    style,
                    given.seat,
                    given.open_hands,
                    pacer.legend,
                ):
                    screen.frame(frame.text)
                    if frame.after_thinking:
                        pacer.drop_typed()  # keys pressed while a bot thought skip nothing
                    if frame.wait:
                        pacer.wait()
            for shown in deals if four is None else ():
                for text in frames(
                    shown, style, seat=given.seat, open_hands=given.open_hands, legend=pacer.legend
                ):
                    screen.frame(text)
                    pacer.wait()
    except Quit:
        screen.print("(quit)")
    except (StrategyError, IllegalActionError, LogReadError) as exc:
        where = f"{shown.where}: " if isinstance(exc, IllegalActionError) and shown and shown.where else ""
        fail(f"{where}{exc}{check}", FAILURE)
    except KeyboardInterrupt:
        interrupted()


def _check_options(ctx, run: Path | None, match: int, seat: int, delay: float, max_deals, html) -> None:
    """Refuse a bad option, or one of a match played now given with RUN (one line, exit 2)."""
    if not 0 <= seat <= 3:
        fail(f"--seat must be 0, 1, 2 or 3, got {seat}")
    check_delay(delay)
    if match < 0:
        fail(f"--match must be 0 or more, got {match}")
    live_only = given_options(ctx, ("seed", "strategies", "ruleset", "max_deals"))
    if run is not None and live_only:
        fail(
            f"{', '.join(live_only)} {'is' if len(live_only) == 1 else 'are'} for a match played now; "
            f"watching {run} replays its log as it was played"
        )
    if run is None and match != 0:
        fail("--match picks a match of RUN; a match played now is match 0 of --seed")
    if max_deals is not None and max_deals < 1:
        fail(f"--max-deals must be a positive whole number, got {max_deals}")
    if html is not None:
        from guandan_cli.cli.html_page import check_html_file

        check_html_file(html)


def _deals(run: Path | None, match: int, seed: int, strategies: str, ruleset: str, max_deals):
    """``(deals, strategies)``: match ``match`` of RUN (its first deal read, so a bad run or match
    is refused before anything is shown; strategies ``None``), else match 0 of ``seed`` played now
    by the bots (the four strategies: the terminal plays it lazily, ``live_frames``)."""
    import itertools

    from guandan_cli.interactive.watch import WatchInputError, live_deals, logged_deals
    from guandan_cli.logs.reader import LogLineError
    from guandan_cli.runner.simulation import SimulationInputError, check_strategies, parse_strategies

    try:
        if run is not None:
            deals = logged_deals(run, match)
            first = next(deals)  # checks the run and the match before anything is shown
            return itertools.chain([first], deals), None
        four = parse_strategies(strategies)
        if "human" in four:
            raise SimulationInputError("watch shows bots; to play a seat yourself use `guandan play`")
        check_strategies(four)
        from guandan_cli.engine.rules import get_ruleset

        get_ruleset(ruleset, max_deals=max_deals)
        return live_deals(seed, four, ruleset, max_deals), four
    except LogLineError as exc:  # the log is corrupt: a failure while working, not bad input
        fail(f"{exc}; check the log with: guandan verify {run}", FAILURE)
    except (WatchInputError, SimulationInputError, ValueError) as exc:
        fail(exc)
    except StopIteration:
        fail(f"--match {match}: no deals in {run}")


def _write_page(html: Path, deals, run: Path | None) -> None:
    """The watched match as the replay page (``guandan_cli.review.page``), every deal of it."""
    from guandan_cli.cli.html_page import write_page
    from guandan_cli.engine.deal import IllegalActionError
    from guandan_cli.engine.play import StrategyError
    from guandan_cli.logs.reader import LogReadError
    from guandan_cli.review.page import deal_data, render_page
    from guandan_cli.review.walk import UnfinishedDealError, check_replays

    check = f"; check the log with: guandan verify {run}" if run is not None else ""
    pages, shown = [], None
    try:
        for shown in deals:
            check_replays(shown)
            pages.append(deal_data(shown))
    except KeyboardInterrupt:
        interrupted("nothing was written")
    except (StrategyError, IllegalActionError, LogReadError) as exc:
        where = f"{shown.where}: " if isinstance(exc, IllegalActionError) and shown and shown.where else ""
        fail(f"{where}{exc}{check}", FAILURE)
    except UnfinishedDealError as exc:
        if run is None or shown is None or not shown.where:
            raise  # a deal played now always ends: a bug, shown as one
        fail(f"{shown.where}: cannot show this deal: {exc}{check}", FAILURE)
    first = pages[0]["label"].split(" · ")[0]
    write_page(
        html,
        render_page(
            pages, title=f"guandan watch · {first} · {len(pages)} deal{'s' if len(pages) != 1 else ''}"
        ),
    )

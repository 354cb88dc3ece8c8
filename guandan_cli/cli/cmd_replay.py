"""`guandan replay`: show one logged deal as a person reads it."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import click

from guandan_cli.cli.errors import FAILURE, fail
from guandan_cli.cli.html_page import HELP as HTML_HELP
from guandan_cli.cli.options import DealIndex, LoggedRun, MatchIndex
from guandan_cli.cli.parameters import Option


def replay(
    run: LoggedRun,
    match: MatchIndex = 0,
    deal: DealIndex = None,
    symbols: Annotated[
        bool | None,
        Option(help="Suit symbols ♠♥♣♦, else S H C D (default: symbols on a terminal).", show_default=False),
    ] = None,
    plain: Annotated[
        bool, Option("--plain", help="Letters S H C D and no colour (automatic when not a terminal).")
    ] = False,
    html: Annotated[Path | None, Option("--html", help=HTML_HELP, show_default=False)] = None,
) -> None:
    """Replay deal DEAL of match MATCH: hands, tribute and return, tricks, finish order, upgrade."""
    from guandan_cli.engine.deal import IllegalActionError
    from guandan_cli.logreaders.replay import DealNotFound, find_deal, render_deal
    from guandan_cli.logs.manifest import RunFolder
    from guandan_cli.logs.reader import LogLineError, LogReadError
    from guandan_cli.logs.records import RecordError

    if html is not None:
        from guandan_cli.cli.html_page import check_html_file

        check_html_file(html)
    try:
        folder = RunFolder.read(run)
        path, line, rec, prev = find_deal(folder, match, deal)
    except LogLineError as exc:  # the log is corrupt
        fail(exc, FAILURE)
    except RecordError as exc:  # a line edited by hand: an action, a seat or a card that is none
        fail(f"{exc.where}: cannot replay this deal: {exc.why}", FAILURE)
    except (DealNotFound, LogReadError, ValueError) as exc:  # no such run, match or deal
        fail(exc)
    import sys

    from guandan_cli.interactive.terminal import Screen, is_tty
    from guandan_cli.view.table import Style

    colour = not plain and is_tty(sys.stdout)
    style = Style(symbols=colour if symbols is None else symbols and not plain, colour=colour)
    try:
        text = render_deal(rec, prev, style=style, options=folder.options)
    except IllegalActionError as exc:  # the logged actions do not replay
        fail(f"{path}:{line}: {exc}", FAILURE)
    except RecordError as exc:  # a line edited by hand: a hand of three S3, an unknown ruleset…
        fail(f"{exc.where}: cannot replay this deal: {exc.why}", FAILURE)
    click.echo(f"{path}:{line}")
    Screen(colour, width=1000).print(text)  # the view wraps the hands itself
    if html is not None:
        from guandan_cli.cli.html_page import write_page
        from guandan_cli.review.page import deal_data, render_page
        from guandan_cli.review.walk import logged_from_record

        logged = logged_from_record(rec, prev, folder.options)
        write_page(
            html,
            render_page([deal_data(logged)], title=f"guandan replay · match {rec.match} · deal {rec.deal}"),
        )

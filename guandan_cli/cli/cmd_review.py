"""`guandan review`: each decision of a logged deal valued from the deciding seat's view."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import click

from guandan_cli.cli.errors import FAILURE, fail, interrupted
from guandan_cli.cli.html_page import HELP as HTML_HELP
from guandan_cli.cli.options import DealIndex, LoggedRun, MatchIndex
from guandan_cli.cli.parameters import Option

#: the most worlds per action a review takes (more is hours per deal)
MAX_WORLDS = 100_000


def review(
    run: LoggedRun,
    match: MatchIndex = 0,
    deal: DealIndex = None,
    seat: Annotated[
        list[int] | None,
        Option(
            "--seat", help="A seat to review, 0-3 (repeat for more; default: every seat).", show_default=False
        ),
    ] = None,
    worlds: Annotated[
        int | None,
        Option("--worlds", help="Sampled worlds per decision (default: 32).", show_default=False),
    ] = None,
    workers: Annotated[
        int, Option("--workers", "-w", help="Processes to spread the decisions over (same output).")
    ] = 1,
    seed: Annotated[int, Option("--seed", help="Seed of the sampled worlds.")] = 0,
    fmt: Annotated[str, Option("--format", "-f", help="text, or json (one object per decision).")] = "text",
    html: Annotated[Path | None, Option("--html", help=HTML_HELP, show_default=False)] = None,
    symbols: Annotated[
        bool | None,
        Option(help="Suit symbols ♠♥♣♦, else S H C D (default: symbols on a terminal).", show_default=False),
    ] = None,
    plain: Annotated[
        bool, Option("--plain", help="Letters S H C D (automatic when not a terminal).")
    ] = False,
) -> None:
    """Review deal DEAL of match MATCH: at each decision of the chosen seats, the value of the play
    made and of its alternatives (levels for the seat's team, from that seat's view only), the loss
    against the best with its interval, and a label: MISTAKE (an alternative's loss interval lies at
    or above 0.25 levels), unclear (more worlds could not tell) or none (docs/review.md)."""
    import json
    import math

    from guandan_cli.cli.html_page import check_html_file, write_page
    from guandan_cli.logs.reader import LogLineError
    from guandan_cli.review import (
        DEFAULT_WORLDS,
        MISTAKE_THRESHOLD,
        ReviewInputError,
        ReviewRecordError,
        load_deal,
    )
    from guandan_cli.runner.backends import workers_problem

    seats = sorted(set(seat)) if seat else [0, 1, 2, 3]
    bad = [s for s in seats if not 0 <= s <= 3]
    if bad:
        fail(f"--seat must be 0, 1, 2 or 3, got {bad[0]}")
    worlds = DEFAULT_WORLDS if worlds is None else worlds
    if not 2 <= worlds <= MAX_WORLDS:
        fail(f"--worlds must be from 2 (an interval needs two) to {MAX_WORLDS}, got {worlds}")
    if workers < 1:
        fail(f"--workers must be a positive whole number, got {workers}")
    problem = workers_problem(workers, "--workers")  # each is a process: more compete for the cores
    if problem is not None:
        fail(problem)
    if match < 0:
        fail(f"--match must be 0 or more, got {match}")
    if fmt not in ("text", "json"):
        fail(f"--format must be text or json, got {fmt!r}")
    if html is not None:
        check_html_file(html)
    try:
        logged = load_deal(run, match, deal)
    except LogLineError as exc:  # the log is corrupt
        fail(exc, FAILURE)
    except ReviewInputError as exc:  # no such run, match or deal
        fail(exc)
    except ReviewRecordError as exc:  # the record does not replay: an unknown ruleset, edited actions
        fail(exc, FAILURE)

    from guandan_cli.review.core import review_deal
    from guandan_cli.review.evaluators import evaluator_maker
    from guandan_cli.review.text import decision_line, header_lines, summary_lines
    from guandan_cli.view.table import Style

    maker, described = evaluator_maker(logged.setup.rules)
    import sys

    from guandan_cli.interactive.terminal import is_tty

    shown = is_tty(sys.stdout) and not plain
    style = Style(symbols=shown if symbols is None else symbols and not plain, colour=False)
    if fmt == "text":
        for line in header_lines(logged, described, worlds, seats):
            click.echo(line)
    reviews = []
    try:
        for r in review_deal(logged, maker, seats, worlds=worlds, seed=seed, workers=workers):
            reviews.append(r)
            if fmt == "json":
                row = {
                    k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in r.as_dict().items()
                }
                click.echo(json.dumps(row, ensure_ascii=False))
            else:
                click.echo(decision_line(r, logged.setup.level, style))
    except KeyboardInterrupt:
        n = len(reviews)
        interrupted(
            f"stopped after {n} decision{'s' if n != 1 else ''}"
            + (f"; {html} was not written" if html else "")
        )
    if fmt == "text":
        click.echo("")
        for line in summary_lines(reviews, seats, logged.names):
            click.echo(line)
    if html is not None:
        from guandan_cli.review.page import deal_data, render_page

        data = deal_data(logged, reviews, evaluator=described, threshold=MISTAKE_THRESHOLD)
        write_page(
            html, render_page([data], title=f"guandan review · match {logged.match} · deal {logged.deal}")
        )

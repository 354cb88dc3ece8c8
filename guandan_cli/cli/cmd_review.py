"""`guandan review`: each decision of a logged deal valued from the deciding seat's view."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import click

from guandan_cli.cli.errors import FAILURE, fail, interrupted
from guandan_cli.cli.html_page import HELP as HTML_HELP
from guandan_cli.cli.options import DealIndex, LoggedRun, MatchIndex
from guandan_cli.cli.parameters import Option

#: the most worlds per action a review takes (more is hours per deal)
MAX_WORLDS = 100_000


@dataclass(frozen=True)
class ReviewCommand:
    """``guandan review``'s arguments and options, in the order ``--help`` lists them."""

    run: LoggedRun
    match: MatchIndex = 0
    deal: DealIndex = None
    seat: Annotated[
        list[int] | None,
        Option(
            "--seat", help="A seat to review, 0-3 (repeat for more; default: every seat).", show_default=False
        ),
    ] = None
    worlds: Annotated[
        int | None,
        Option("--worlds", help="Sampled worlds per decision (default: 32).", show_default=False),
    ] = None
    workers: Annotated[
        int, Option("--workers", "-w", help="Processes to spread the decisions over (same output).")
    ] = 1
    seed: Annotated[int, Option("--seed", help="Seed of the sampled worlds.")] = 0
    fmt: Annotated[str, Option("--format", "-f", help="text, or json (one object per decision).")] = "text"
    html: Annotated[Path | None, Option("--html", help=HTML_HELP, show_default=False)] = None
    symbols: Annotated[
        bool | None,
        Option(help="Suit symbols ♠♥♣♦, else S H C D (default: symbols on a terminal).", show_default=False),
    ] = None
    plain: Annotated[bool, Option("--plain", help="Letters S H C D (automatic when not a terminal).")] = False
    leaks: Annotated[
        bool,
        Option(
            "--summary",
            help="After the review, each seat's mistakes over the reviewed deals gathered by kind "
            "(bomb broken, partner beaten, a pass where a play was better, …): counts, loss, worst example.",
        ),
    ] = False


def review(given: ReviewCommand) -> None:
    """Review the decisions of the chosen seats in deal DEAL of match MATCH (every deal of the match
    that has ended when --deal is left out, a game that play saved included): the value of the play
    made and of its alternatives (levels for the seat's team, from that seat's view only), the loss
    against the best with its interval, a label: MISTAKE (an alternative's loss interval lies at
    or above 0.25 levels), unclear (more worlds could not tell) or none (docs/review.md), and each
    seat's summary per deal and per match (accuracy, inaccuracies, mistakes, blunders, the
    evaluation graph)."""
    from guandan_cli.review.evaluators import evaluator_maker

    seats, worlds = _checked_options(
        given.seat, given.worlds, given.workers, given.match, given.fmt, given.html
    )
    deals = _loaded(given.run, given.match, given.deal)
    maker, described = evaluator_maker(deals[0].setup.rules)
    style = _style(given.symbols, given.plain)
    pages, everything = [], []
    for n, logged in enumerate(deals):
        if given.fmt == "text":
            _header(logged, described, worlds, seats, first=n == 0)
        reviews = _reviewed(logged, maker, seats, worlds, style, given)
        _summaries(reviews, seats, logged, given.fmt, scope=f"deal {logged.deal}")
        everything += reviews
        pages.append((logged, reviews))
    if len(deals) > 1:
        _summaries(
            everything,
            seats,
            deals[0],
            given.fmt,
            scope=f"match {given.match}, {len(deals)} deals",
            whole=True,
        )
    if given.leaks:
        _leaks(pages, seats, given.fmt)
    if given.html is not None:
        _write_html(given.html, pages, described)


def _leaks(pages: list, seats: list[int], fmt: str) -> None:
    """Each seat's mistakes over the reviewed deals, by kind (``review.leaks``)."""
    import json

    from guandan_cli.review.leaks import leak_lines, leaks
    from guandan_cli.review.walk import decisions
    from guandan_cli.view.names import strategy_names

    for seat in seats:
        triples = []
        for logged, reviews in pages:
            found = {d.index: d for d in decisions(logged, [seat])}
            triples += [(logged, found[r.index], r) for r in reviews if r.seat == seat]
        names = pages[0][0].names
        kinds = leaks(triples)
        if fmt == "json":
            click.echo(
                json.dumps(
                    {"leaks": {"seat": seat, "deals": len(pages), "kinds": [k.as_dict() for k in kinds]}},
                    ensure_ascii=False,
                )
            )
            continue
        click.echo("")
        for line in leak_lines(kinds, seat, strategy_names(names)[names[seat]], len(pages)):
            click.echo(line)


def _header(logged, described: str, worlds: int, seats: list[int], first: bool) -> None:
    """The deal's header lines (the budget line only before the first deal)."""
    from guandan_cli.review.text import header_lines

    lines = header_lines(logged, described, worlds, seats)
    if not first:
        click.echo("")
    for line in lines if first else lines[:2]:
        click.echo(line)


def _summaries(reviews: list, seats: list[int], logged, fmt: str, scope: str, whole: bool = False) -> None:
    """Each seat's summary of ``reviews`` (a deal's, or with ``whole`` the match's): lines after the
    decisions, or one ``{"summary": …}`` object per seat."""
    import json

    from guandan_cli.review.summary import summaries, summary_text
    from guandan_cli.review.text import summary_lines
    from guandan_cli.view.names import strategy_names

    found = summaries(reviews)
    if fmt == "json":
        for s in found:
            where = {"match": logged.match, "deal": None if whole else logged.deal}
            click.echo(json.dumps({"summary": {**where, **s.as_dict()}}, ensure_ascii=False))
        return
    click.echo("")
    if not whole:
        for line in summary_lines(reviews, seats, logged.names):
            click.echo(line)
    readable = strategy_names(logged.names)
    names = [readable[name] for name in logged.names]
    for s in found:
        click.echo(summary_text(s, names, scope))


def _write_html(html: Path, pages: list, described: str) -> None:
    """The review page: every reviewed deal, stepping through each."""
    from guandan_cli.cli.html_page import write_page
    from guandan_cli.review import MISTAKE_THRESHOLD
    from guandan_cli.review.page import deal_data, render_page

    data = [
        deal_data(logged, reviews, evaluator=described, threshold=MISTAKE_THRESHOLD)
        for logged, reviews in pages
    ]
    first = pages[0][0]
    which = f"deal {first.deal}" if len(pages) == 1 else f"{len(pages)} deals"
    write_page(html, render_page(data, title=f"guandan review · match {first.match} · {which}"))


def _checked_options(
    seat: list[int] | None, worlds: int | None, workers: int, match: int, fmt: str, html: Path | None
) -> tuple[list[int], int]:
    """``(seats, worlds)`` once every option is checked (one line and exit 2 for a bad one)."""
    from guandan_cli.cli.html_page import check_html_file
    from guandan_cli.review import DEFAULT_WORLDS
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
    return seats, worlds


def _loaded(run: Path, match: int, deal: int | None) -> list:
    """The deals to review: deal ``deal``, or every deal of the match that has ended (a corrupt or
    unreplayable line: exit 1; no such run, match or deal: exit 2)."""
    from guandan_cli.logs.reader import LogLineError
    from guandan_cli.review import ReviewInputError, ReviewRecordError, load_deal
    from guandan_cli.review.walk import load_match

    try:
        return [load_deal(run, match, deal)] if deal is not None else load_match(run, match)
    except LogLineError as exc:  # the log is corrupt
        fail(exc, FAILURE)
    except ReviewInputError as exc:  # no such run, match or deal: or a game whose match goes on
        return _saved_deals(run, match, deal) or fail(exc)
    except ReviewRecordError as exc:  # the record does not replay: an unknown ruleset, edited actions
        fail(exc, FAILURE)


def _style(symbols: bool | None, plain: bool):
    """Suit symbols on a terminal (unless ``--plain``), never colour."""
    import sys

    from guandan_cli.interactive.terminal import is_tty
    from guandan_cli.view.table import Style

    shown = is_tty(sys.stdout) and not plain
    return Style(symbols=shown if symbols is None else symbols and not plain, colour=False)


def _reviewed(logged, maker, seats, worlds, style, given: ReviewCommand) -> list:
    """Each decision reviewed and printed as it comes (a line, or a JSON object); Ctrl-C: exit 130
    (``given``: the command's seed, workers, format and --html)."""
    seed, workers, fmt, html = given.seed, given.workers, given.fmt, given.html
    import json
    import math

    from guandan_cli.review.core import review_deal
    from guandan_cli.review.text import decision_line

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
    return reviews


def _saved_deals(run: Path, match: int, deal: int | None) -> list:
    """The finished deals (or deal ``deal``) of a game ``play`` saved before its match ended (empty:
    not such a game)."""
    from guandan_cli.interactive.saved_game import saved_deal, saved_deals
    from guandan_cli.review import ReviewInputError

    try:
        if deal is not None:
            found = saved_deal(run, match, deal)
            return [found] if found is not None else []
        return saved_deals(run, match)
    except ReviewInputError as exc:
        fail(exc)

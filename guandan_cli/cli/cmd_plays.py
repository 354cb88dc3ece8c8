"""`guandan plays`: list the legal plays of a hand.

The listing itself is :func:`guandan_cli.cli.plays_listing.plays_lines`.
"""

from __future__ import annotations

from typing import Annotated

import click

from guandan_cli.cli.errors import fail
from guandan_cli.cli.parameters import Argument, Option


def plays(
    hand: Annotated[str, Argument(help="Cards, e.g. 'S3 H4 D4 C5 S5 H2'.", metavar="HAND")],
    level: Annotated[str, Option("--level", "-l", help="The deal's level, 2..A.")] = "2",
    top: Annotated[str | None, Option("--top", "-t", help="The play to beat, as 'type:key cards'.")] = None,
    every: Annotated[bool, Option("--all", help="Every card multiset, not one per declaration.")] = False,
    symbols: Annotated[bool, Option("--symbols", help="Show suit symbols.")] = False,
) -> None:
    """List what HAND can play at LEVEL (leading, or beating --top)."""
    from guandan_cli.cli.plays_listing import PlaysInputError, plays_lines

    try:
        lines = plays_lines(hand, level, top, every, symbols)
    except PlaysInputError as exc:
        fail(exc)
    for line in lines:
        click.echo(line)

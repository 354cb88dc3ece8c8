"""`guandan rules`: print the rules the engine implements (docs/rules.md), whole or one section.

On a terminal the Markdown is rendered by rich (imported here only, so that start-up stays
short); otherwise it is printed as it is. The document and its sections are read by
:mod:`guandan_cli.rules_text` (standard library only).
"""

from __future__ import annotations

import sys
from typing import Annotated

import click

from guandan_cli.cli.errors import FAILURE, fail
from guandan_cli.cli.parameters import Argument

#: the widest a rendered page gets on a terminal (the views of replay/watch/play keep to it too)
MAX_WIDTH = 100


def rules(
    section: Annotated[
        str | None,
        Argument(
            help="A section number, e.g. 10 (tribute and return) or 4.2; all of them when not given.",
            metavar="SECTION",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Print the rules the engine implements (docs/rules.md), or one SECTION of them."""
    from guandan_cli.rules_text import find_section, normalize, outline, read_document, sections

    try:
        text = read_document()
    except OSError as exc:
        fail(exc, FAILURE)
    if section is not None:
        found = find_section(text, section)
        if found is None:
            number = normalize(section)
            what = "not a section number" if number is None else f"the rules have no section {number}"
            fail(f"SECTION {section!r}: {what}; the sections are {outline(sections(text))}")
        text = found.text
    _show(text)


def _is_terminal() -> bool:
    try:
        return sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False


def _show(markdown: str) -> None:
    """``markdown`` rendered by rich on a terminal, as it is otherwise."""
    if not _is_terminal():
        click.echo(markdown.rstrip("\n"))
        return
    from rich.console import Console
    from rich.markdown import Markdown

    console = Console(highlight=False)
    console.width = min(console.width, MAX_WIDTH)
    console.print(Markdown(markdown))

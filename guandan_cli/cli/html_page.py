"""The ``--html FILE`` option of ``review``, ``replay`` and ``watch``: checked before any work,
written atomically (``reports.html.write_html``), one line for each problem."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from guandan_cli.cli.errors import FAILURE, fail

HELP = "Also write the deal as one self-contained HTML replay page (no network) to this file."


def check_html_file(html: Path) -> None:
    """Refuse (exit 2) a page file that could not be written, before any work (as ``analyze --html``)."""
    if html.is_dir():
        fail(f"--html {html} is a directory; give the file to write, e.g. {html / 'deal.html'}")
    if not html.parent.is_dir():
        fail(f"--html {html}: the directory {html.parent} does not exist")
    if html.exists() and not os.access(html, os.W_OK):
        fail(f"--html {html}: the file cannot be overwritten")
    try:
        with tempfile.NamedTemporaryFile(dir=html.parent, prefix=".guandan-probe-"):
            pass
    except OSError as exc:
        fail(f"--html {html}: cannot write into {html.parent} ({exc.strerror or exc})")


def write_page(html: Path, page: str) -> None:
    """Write ``page`` to ``html`` (a partial file never takes the name) and say so on stderr."""
    import click

    from guandan_cli.reports.html import write_html

    try:
        write_html(html, page)
    except OSError as exc:
        fail(f"cannot write --html {html}: {exc.strerror or exc}", FAILURE)
    click.echo(f"wrote {html}", err=True)

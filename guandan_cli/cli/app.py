"""The `guandan` Typer app. Each command lives in its own module and registers here."""

from __future__ import annotations

from typing import Annotated

import typer

from guandan_cli import __version__
from guandan_cli.cli.errors import OneLineErrors

app = typer.Typer(
    name="guandan",
    help="Simulate and analyse Guandan (掼蛋) deals played by bots.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    cls=OneLineErrors,  # usage errors as one `guandan: error:` line, exit 2
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"guandan {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """Simulate and analyse Guandan (掼蛋) deals played by bots."""


def _register() -> None:
    from guandan_cli.cli import (  # noqa: F401  # noqa: F401
        cmd_analyze,
        cmd_bench,
        cmd_compare,  # noqa: F401
        cmd_plays,
        cmd_replay,
        cmd_simulate,
        cmd_verify,
    )


_register()


def main() -> None:
    app()

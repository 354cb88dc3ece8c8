"""Every ``guandan`` command, as one Click group: :data:`app`.

Each ``cmd_*`` module defines its command as a plain function whose parameters are
``Annotated`` options (:mod:`guandan_cli.cli.parameters` turns them into Click's);
:data:`COMMANDS` lists them. Start-up stays short because each command imports its heavy
libraries (polars, rich, the runner) inside its body: ``guandan --help`` and
``guandan plays …`` import none of them (``tests/test_startup_imports.py``).
"""

from __future__ import annotations

from typing import Annotated

import click

from guandan_cli._version import __version__
from guandan_cli.cli import (
    cmd_analyze,
    cmd_bench,
    cmd_compare,
    cmd_experiment,
    cmd_play,
    cmd_plays,
    cmd_replay,
    cmd_review,
    cmd_rules,
    cmd_serve,
    cmd_simulate,
    cmd_table,
    cmd_verify,
    cmd_watch,
)
from guandan_cli.cli.errors import OneLineErrors
from guandan_cli.cli.parameters import Option, command, parameters

#: what ``guandan --help`` says first
SUMMARY = "Simulate and analyse Guandan (掼蛋) deals played by bots."


def _version(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    if value and not ctx.resilient_parsing:
        click.echo(f"guandan {__version__}")
        ctx.exit()


def _root(
    version: Annotated[
        bool, Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """Simulate and analyse Guandan (掼蛋) deals played by bots."""


#: every command, by the function that runs it (``guandan --help`` lists them in the order of
#: ``errors.COMMAND_ORDER``); each ``cmd_*`` module defines them as plain functions
COMMANDS = (
    cmd_simulate.simulate,
    cmd_analyze.analyze,
    cmd_verify.verify,
    cmd_compare.compare,
    cmd_compare.tournament,
    cmd_experiment.experiment,
    cmd_play.play,
    cmd_table.table,
    cmd_watch.watch,
    cmd_replay.replay,
    cmd_review.review,
    cmd_plays.plays,
    cmd_rules.rules,
    cmd_serve.serve,
    cmd_serve.connect,
    cmd_bench.bench,
)

app = OneLineErrors(
    "guandan",
    help=SUMMARY,
    params=parameters(_root)[0],
    no_args_is_help=True,
)
for _function in COMMANDS:
    app.add_command(command(_function))

"""`guandan experiment`: play the same deal setups under two rule variants; paired effects."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import click

from guandan_cli.cli.errors import fail
from guandan_cli.cli.options import (
    DecisionTimeoutOption,
    MaxMemoryOption,
    Quiet,
    TracebackOption,
    Workers,
    reported,
    run_limits,
)
from guandan_cli.cli.parameters import Argument, Option


@dataclass(frozen=True)
class ExperimentCommand:
    """``guandan experiment``'s arguments and options, in the order ``--help`` lists them."""

    name: Annotated[
        str, Argument(help="tribute, resistance or ruleset.", show_default=False, metavar="EXPERIMENT")
    ]
    deals: Annotated[int, Option("--deals", "-n", help="Setups to play (each twice).")] = 1000
    strategies: Annotated[
        str,
        Option(
            "--strategies",
            "-s",
            help="One name (every seat), two (seats 0/2 and 1/3) or four, comma-separated.",
        ),
    ] = "heuristic"
    seed: Annotated[int, Option(help="Root seed of the setups.")] = 0
    ruleset: Annotated[str, Option(help="Ruleset of the tribute and resistance experiments.")] = "cgr2022"
    out: Annotated[
        Path | None,
        Option(
            "--out",
            "-o",
            help="Output directory (default: runs/experiment-NAME-sSEED-nDEALS).",
            show_default=False,
        ),
    ] = None
    workers: Workers = None
    force: Annotated[bool, Option("--force", help="Start over, replacing the arms' runs.")] = False
    decision_timeout: DecisionTimeoutOption = None
    max_memory: MaxMemoryOption = None
    quiet: Quiet = False
    traceback: TracebackOption = False


def experiment(given: ExperimentCommand) -> None:
    """Play each sampled deal setup twice, by the same bots with the same hands, under two rule
    variants, and print the paired effect on the receiving side (95% intervals).

    tribute: with vs without tribute and return (setups whose tribute is paid).
    resistance: resisted vs paid anyway (setups whose tribute is resisted).
    ruleset: cgr2022 vs jiangsu2017 (any tribute situation).
    Each arm is an ordinary run directory under OUT (guandan analyze / verify read it);
    OUT/effects.json holds the effects and OUT/effect.png plots them.
    """
    from guandan_cli.experiments import ExperimentInputError, run_experiment

    if given.deals < 1:
        fail(f"--deals must be a positive whole number, got {given.deals}")
    if given.workers is not None and given.workers < 1:
        fail(f"--workers must be a positive whole number, got {given.workers}")
    with (
        run_limits(given.decision_timeout, given.max_memory),
        reported(
            bad_input=(ExperimentInputError,),
            interrupt="rerun the same command to continue",
            traceback=given.traceback,
        ),
    ):
        result = run_experiment(
            given.name,
            given.deals,
            strategies=given.strategies,
            seed=given.seed,
            ruleset=given.ruleset,
            out=given.out,
            workers=given.workers,
            force=given.force,
            progress=not given.quiet,
        )
    click.echo(result.summary())
    click.echo(f"wrote effects.json and effect.png in {result.out}/", err=True)

"""`guandan simulate`: play a seeded run of matches into a run directory (see guandan_cli.runner)."""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import click

from guandan_cli.cli.errors import interrupted
from guandan_cli.cli.options import (
    AFailLimit,
    DecisionTimeoutOption,
    Encoding,
    MaxDeals,
    MaxMemoryOption,
    Quiet,
    Ruleset,
    TracebackOption,
    Workers,
    command_line,
    reported,
    run_interrupt_hint,
)
from guandan_cli.cli.parameters import Option

if TYPE_CHECKING:
    from guandan_cli.runner.config import SimulationConfig

Matches = Annotated[
    int | None,
    Option("--matches", "-n", help="Matches to play (default: 100).", show_default=False),
]
Seed = Annotated[int | None, Option(help="Root seed (default: 0).", show_default=False)]
Strategies = Annotated[
    str | None,
    Option(
        "--strategies",
        "-s",
        help="One name (every seat), two (seats 0/2 and 1/3) or four (seats 0-3), comma-separated; "
        "built-ins, plugins, module:Class or file.py:Class (default: heuristic).",
        show_default=False,
    ),
]
Out = Annotated[
    Path | None,
    Option(
        "--out",
        "-o",
        help="Run directory (default: runs/STRATEGIES-RULESET-sSEED-nMATCHES, then -dMAX_DEALS, -aA_FAIL_LIMIT, -setups_…, -tribute_… when set).",
        show_default=False,
    ),
]
Compression = Annotated[str | None, Option(help="none, gzip or zstd (default: none).", show_default=False)]
OnError = Annotated[
    str,
    Option(help="stop: a failing strategy stops the run; record: record the match as errored, go on."),
]
Resume = Annotated[bool, Option(help="Continue the unfinished run in --out.")]
Force = Annotated[bool, Option(help="Overwrite the run in --out, complete or not.")]
Backend = Annotated[str, Option(help="local, or ray (needs the ray extra: pip install 'guandan[ray]').")]
RayAddress = Annotated[
    str | None, Option(help="Ray cluster address (default: RAY_ADDRESS, else a local Ray).")
]
ChunkSize = Annotated[
    int | None,
    Option(
        help="Matches per task (never changes the log; a kill loses about workers × this many) (default: up to 8)."
    ),
]
PartSize = Annotated[int | None, Option(help="Matches per log part (default: 1000).", show_default=False)]

ReplayDamaged = Annotated[
    bool,
    Option(
        "--replay-damaged",
        help="With --resume: play again from their seeds the complete parts that no longer match the "
        "manifest (truncated, edited); the damaged files are kept as NAME.damaged.",
    ),
]


@dataclass(frozen=True)
class SimulateOptions:
    """``guandan simulate``'s options, in the order ``--help`` lists them."""

    matches: Matches = None
    seed: Seed = None
    strategies: Strategies = None
    ruleset: Ruleset = None
    workers: Workers = None
    out: Out = None
    max_deals: MaxDeals = None
    a_fail_limit: AFailLimit = None
    compression: Compression = None
    on_error: OnError = "stop"
    decision_timeout: DecisionTimeoutOption = None
    max_memory: MaxMemoryOption = None
    resume: Resume = False
    force: Force = False
    quiet: Quiet = False
    backend: Backend = "local"
    ray_address: RayAddress = None
    chunk_size: ChunkSize = None
    part_size: PartSize = None
    encoding: Encoding = None
    traceback: TracebackOption = False
    replay_damaged: ReplayDamaged = False

    def config(self, ctx: click.Context) -> SimulationConfig:
        """The run these options ask for (the command line recorded as given, a progress bar
        unless ``--quiet``), the ONNX encoding applied to the strategies."""
        from guandan_cli.runner.config import SimulationConfig
        from guandan_cli.strategies.onnx_model import apply_encoding

        shared = {f.name for f in fields(SimulationConfig)}
        given = {f.name: getattr(self, f.name) for f in fields(self) if f.name in shared}
        if self.encoding is not None:
            with reported(bad_input=(ValueError,)):
                given["strategies"] = ",".join(
                    apply_encoding((self.strategies or "").split(","), self.encoding)
                )
        return SimulationConfig(**given, progress=not self.quiet, command=command_line(ctx))


def simulate(ctx: click.Context, options: SimulateOptions) -> None:
    """Play seeded matches between bots; write a resumable, deterministic JSON Lines log."""
    from guandan_cli.runner.errors import SimulationInputError
    from guandan_cli.runner.rundir import interruption
    from guandan_cli.runner.simulation import simulate as run_simulation

    config = options.config(ctx)
    quiet = options.quiet
    with reported(
        bad_input=(SimulationInputError,), interrupt=run_interrupt_hint, traceback=options.traceback
    ):
        run = run_simulation(config)
    try:
        text = run.closing_text(quiet)
        if text is not None:
            click.echo(text)
    except KeyboardInterrupt:  # while printing the summary: the run is written
        interrupted(interruption(run.path).resume_hint())

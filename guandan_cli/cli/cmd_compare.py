"""`guandan compare` and `guandan tournament`: duplicate-pair strategy comparisons."""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path
from typing import Annotated

import click

from guandan_cli.cli.errors import FAILURE, check_output_file, fail
from guandan_cli.cli.options import (
    CountOnError,
    DecisionTimeoutOption,
    Duplicate,
    Encoding,
    MaxDeals,
    MaxMemoryOption,
    PoolWorkers,
    Quiet,
    RootSeed,
    Ruleset,
    Setups,
    TracebackOption,
    notice,
    reported,
    run_limits,
)
from guandan_cli.cli.parameters import Argument, Option

RESUME_HINT = "rerun the same command to continue where it stopped"


def _check_choice(name: str, value: str, choices: tuple[str, ...]) -> None:
    if value not in choices:
        fail(f"unknown {name} {value!r}: expected one of {', '.join(choices)}")


def _check_options(duplicate: str, on_error: str, max_deals: int | None, setups: str) -> None:
    """The options compare and tournament share, checked before any match is played."""
    from guandan_cli.comparison import DUPLICATE_MODES
    from guandan_cli.runner.tasks import ON_ERROR

    _check_choice("--duplicate mode", duplicate, DUPLICATE_MODES)
    _check_choice("--on-error mode", on_error, ON_ERROR)
    _check_mode_options(duplicate, max_deals, setups)


def _check_mode_options(duplicate: str, max_deals: int | None, setups: str) -> None:
    if duplicate == "deal" and max_deals is not None:
        fail("--max-deals does not go with --duplicate deal: each pair is one deal")
    if duplicate == "match" and setups != "fresh":
        fail(f"--setups {setups} goes with --duplicate deal (match-level pairs play whole matches)")


@dataclass(frozen=True)
class CompareCommand:
    """``guandan compare``'s arguments and options, in the order ``--help`` lists them."""

    a: Annotated[str, Argument(help="Strategy A: a name, module:Class or file.py:Class.", metavar="A")]
    b: Annotated[str, Argument(help="Strategy B.", metavar="B")]
    matches: Annotated[
        int, Option("--matches", "-n", help="Duplicate pairs (each is 2 matches, or 2 deals).")
    ] = 100
    seed: RootSeed = 0
    workers: PoolWorkers = None
    out: Annotated[Path, Option("--out", "-o", help="Folder for the two runs' logs.")] = Path("runs/compare")
    ruleset: Ruleset = "cgr2022"
    max_deals: MaxDeals = None
    duplicate: Duplicate = "match"
    setups: Setups = "fresh"
    unpaired: Annotated[bool, Option(help="Use other seeds for the swapped seating (for contrast).")] = False
    force: Annotated[
        bool, Option(help="Recompute even when stored logs under --out match this comparison.")
    ] = False
    on_error: CountOnError = "stop"
    decision_timeout: DecisionTimeoutOption = None
    max_memory: MaxMemoryOption = None
    quiet: Quiet = False
    encoding: Encoding = None
    traceback: TracebackOption = False


def _run_options(given: CompareCommand | TournamentCommand) -> dict[str, object]:
    """The options of ``comparison.compare``/``tournament`` the command line gives (by name, as
    ``CompareOptions`` calls them), with a progress bar unless ``--quiet``."""
    from guandan_cli.comparison import CompareOptions

    shared = {f.name for f in fields(CompareOptions)} & {f.name for f in fields(given)}
    return {name: getattr(given, name) for name in shared} | {"progress": not given.quiet}


def compare(given: CompareCommand) -> None:
    """Compare A with B over duplicate pairs: each seed (or deal) played twice with the teams swapped.

    Stored logs under --out are reused only while both strategies' code, the seeds and the options are unchanged (a line on stderr says which); otherwise they are recomputed.
    """
    from guandan_cli.comparison import compare as run_compare
    from guandan_cli.strategies.onnx_model import apply_encoding

    _check_options(given.duplicate, given.on_error, given.max_deals, given.setups)
    if given.duplicate == "deal" and given.unpaired:
        fail("--unpaired does not go with --duplicate deal: deal pairs share their setup by construction")
    with (
        run_limits(given.decision_timeout, given.max_memory),
        reported(bad_input=(ValueError, RuntimeError), interrupt=RESUME_HINT, traceback=given.traceback),
    ):
        a, b = apply_encoding([given.a.strip(), given.b.strip()], given.encoding)  # " heuristic" is heuristic
        res = run_compare(
            a, b, out=given.out, paired=not given.unpaired, notify=notice, **_run_options(given)
        )
    click.echo(res.describe())
    if res.duplicate == "match":
        click.echo(
            f"  matches won by {res.a}: {res.match_wins}, by {res.b}: {res.match_losses}, "
            f"unfinished: {res.match_unfinished}"
        )
    click.echo(res.verdict())
    click.echo(f"logs: {res.runs[0].path} and {res.runs[1].path}")


@dataclass(frozen=True)
class TournamentCommand:
    """``guandan tournament``'s arguments and options, in the order ``--help`` lists them."""

    strategies: Annotated[list[str], Argument(help="Two or more strategies.", metavar="STRATEGIES")]
    matches: Annotated[int, Option("--matches", "-n", help="Duplicate pairs per pairing.")] = 50
    seed: RootSeed = 0
    workers: PoolWorkers = None
    out: Annotated[Path, Option("--out", "-o", help="Folder for the runs' logs.")] = Path("runs/tournament")
    ruleset: Ruleset = "cgr2022"
    max_deals: MaxDeals = None
    duplicate: Duplicate = "match"
    setups: Setups = "fresh"
    force: Annotated[
        bool, Option(help="Recompute even when stored logs under --out match this tournament.")
    ] = False
    on_error: CountOnError = "stop"
    decision_timeout: DecisionTimeoutOption = None
    max_memory: MaxMemoryOption = None
    plot: Annotated[Path | None, Option(help="Write the win-rate matrix plot here (.png or .svg).")] = None
    quiet: Quiet = False
    encoding: Encoding = None
    traceback: TracebackOption = False


def tournament(given: TournamentCommand) -> None:
    """Round robin of duplicate pairs: a leaderboard (openskill rating) and a win-rate matrix."""
    from guandan_cli.comparison import tournament as run_tournament
    from guandan_cli.strategies.onnx_model import apply_encoding

    _check_options(given.duplicate, given.on_error, given.max_deals, given.setups)
    plot = given.plot
    if plot is not None:  # before the tournament runs, not after
        check_output_file(plot, "--plot", (".png", ".svg", ".pdf"))
    with (
        run_limits(given.decision_timeout, given.max_memory),
        reported(bad_input=(ValueError, RuntimeError), interrupt=RESUME_HINT, traceback=given.traceback),
    ):
        strategies = apply_encoding([s.strip() for s in given.strategies], given.encoding)
        res = run_tournament(strategies, out=given.out, notify=notice, **_run_options(given))
    click.echo(res.report())
    if plot is not None:
        try:
            plot.parent.mkdir(parents=True, exist_ok=True)
            res.plot(plot)
        except OSError as exc:
            fail(f"--plot {plot}: cannot write the plot ({exc})", FAILURE)
        click.echo(f"plot: {plot}")

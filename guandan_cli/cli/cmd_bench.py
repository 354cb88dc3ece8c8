"""`guandan bench`: rerunnable speed figures — legal plays (µs per call) and deals per second."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

import click

from guandan_cli.cli.errors import fail
from guandan_cli.cli.parameters import Option


@dataclass(frozen=True)
class BenchCommand:
    """``guandan bench``'s arguments and options, in the order ``--help`` lists them."""

    positions: Annotated[int, Option(help="Seeded positions per legal-plays figure.")] = 2000
    seed: Annotated[int, Option(help="Seed of the position set and of the bench runs.")] = 1
    legal: Annotated[bool, Option(help="Time legal_plays.")] = True
    deals: Annotated[
        bool,
        Option(help="Time deals/s of self-play (random, and heuristic or greedy), and the search line."),
    ] = True
    matches: Annotated[int, Option("--matches", "-n", help="Matches per deals/s figure.")] = 40
    workers: Annotated[
        int | None,
        Option(
            "--workers", "-w", help="Workers of the parallel figure (default: all cores).", show_default=False
        ),
    ] = None
    startup: Annotated[bool, Option(help="Time the start-up of guandan --help and plays.")] = True
    parallel_matches: Annotated[
        int, Option(help="Heuristic matches of the 1-worker vs all-workers figure (0: skip).")
    ] = 400
    strategies: Annotated[
        str | None,
        Option(
            help="Comma-separated bots to time (default: random and heuristic (else greedy)).",
            show_default=False,
        ),
    ] = None
    search_positions: Annotated[
        int, Option(help="Seeded decisions of the search line, after the deals/s ones (0: skip it).")
    ] = 12
    search: Annotated[str, Option(help="The search spec the search line times.")] = "search"


def bench(given: BenchCommand) -> None:
    """Print median µs per legal_plays call, start-up times, and deals/s with one worker and with all."""
    from guandan_cli.bench import bench_deal_lines, bench_legal_plays, bench_search_lines, bench_startup_lines

    for option, value, least in (
        ("--positions", given.positions, 1),
        ("--matches", given.matches, 1),
        ("--workers", given.workers, 1),
        ("--parallel-matches", given.parallel_matches, 0),
        ("--search-positions", given.search_positions, 0),
    ):
        if value is not None and value < least:
            fail(f"{option} must be {'positive' if least else '0 or more'}, got {value}")
    if not (given.legal or given.startup or given.deals):
        fail("nothing to time: --no-legal, --no-startup and --no-deals leave no figure")
    if given.strategies is not None and not given.deals:
        fail("--strategies names the bots of the self-play figures: drop it or --no-deals")
    names, search = _checked_bots(given.strategies, given.search, given.deals, bool(given.search_positions))
    from guandan_cli.native.compiled import describe

    click.echo(f"hot modules: {describe()}")  # what the figures below ran
    if given.legal:
        for line in bench_legal_plays(positions=given.positions, seed=given.seed):
            click.echo(line)
    if given.startup:
        for line in bench_startup_lines():
            click.echo(line)
    if given.deals:
        lines = bench_deal_lines(
            names,
            workers=given.workers,
            matches=given.matches,
            seed=given.seed,
            parallel_matches=given.parallel_matches,
        )
        for line in lines:
            click.echo(line)
    if given.deals and given.search_positions:
        for line in bench_search_lines(search, positions=given.search_positions, seed=given.seed):
            click.echo(line)


def _checked_bots(
    strategies: str | None, search: str, deals: bool, searched: bool
) -> tuple[list | None, str]:
    """``(the bots to time, the search spec)``, each checked before any figure takes its time."""
    # a bot named twice is timed once (as a report named twice in analyze)
    names = list(dict.fromkeys(s.strip() for s in strategies.split(","))) if strategies else None
    if deals and names:
        from guandan_cli.runner.simulation import SimulationInputError, check_strategies

        try:
            check_strategies(names)
        except SimulationInputError as exc:
            fail(f"--strategies: {exc}")
    search = search.strip()
    if deals and searched:
        from guandan_cli.strategies.registry import UnknownStrategyError, load_strategy
        from guandan_cli.strategies.search import SearchStrategy

        try:
            cls = load_strategy(search)
        except UnknownStrategyError as exc:
            fail(f"--search: {exc}")
        if not issubclass(cls, SearchStrategy):
            fail(f"--search: {search!r} is not a search strategy (give search or search:OPTION=VALUE+...)")
    return names, search

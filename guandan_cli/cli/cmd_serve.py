"""`guandan serve` and `guandan connect`: the NJUPT competition protocol (see docs/protocol.md)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import click

from guandan_cli.cli.errors import FAILURE, fail, interrupted
from guandan_cli.cli.options import AFailLimit, MaxDeals, Ruleset, command_line, reported
from guandan_cli.cli.parameters import Argument, Option

EXTRA_HINT = "the competition protocol needs websockets: pip install 'guandan[protocol]'"


def _need_websockets() -> None:
    try:
        import websockets  # noqa: F401
    except ImportError:
        fail(EXTRA_HINT)


def _say(text: str) -> None:
    click.echo(f"guandan serve: {text}", err=True)


@dataclass(frozen=True)
class ServeCommand:
    """``guandan serve``'s arguments and options, in the order ``--help`` lists them."""

    strategies: Annotated[
        str,
        Option(
            "--strategies",
            "-s",
            help="Seats 0-3 like simulate's --strategies; 'remote' marks the seats clients play "
            "(taken in connection order).",
        ),
    ] = "remote"
    matches: Annotated[int, Option("--matches", "-n", help="Matches to play.")] = 1
    seed: Annotated[int, Option(help="Root seed (the same deals as simulate with it).")] = 0
    out: Annotated[Path, Option("--out", "-o", help="Run directory to write.")] = Path("runs/serve")
    host: Annotated[str, Option(help="Address to listen on.")] = "127.0.0.1"
    port: Annotated[int, Option(help="Port (23456 is what competition clients use; 0: any free).")] = 23456
    ruleset: Ruleset = "cgr2022"
    max_deals: MaxDeals = None
    a_fail_limit: AFailLimit = None
    timeout: Annotated[float, Option(help="Seconds a client may take per decision.")] = 30.0
    reconnect_wait: Annotated[
        float, Option(help="Seconds an empty remote seat is kept before the run stops (resumable).")
    ] = 60.0
    connect_wait: Annotated[
        float | None, Option(help="Seconds to wait for the first clients (default: forever).")
    ] = None
    listing: Annotated[
        str,
        Option(
            help="ruleset: list every play the ruleset allows; platform: like the NJUPT platform, "
            "no straight flush completed by a wild card."
        ),
    ] = "ruleset"


def serve(ctx: click.Context, given: ServeCommand) -> None:
    """Run a competition server: remote clients (NJUPT platform protocol) play against our bots."""
    for name, value in (
        ("--matches", given.matches),
        ("--timeout", given.timeout),
        ("--reconnect-wait", given.reconnect_wait),
    ):
        if value <= 0:
            fail(f"{name} must be positive, got {value}")
    if given.connect_wait is not None and given.connect_wait <= 0:
        fail(f"--connect-wait must be positive (or left out: wait forever), got {given.connect_wait}")
    if (
        given.max_deals is not None
        and given.max_deals < 1
        or given.a_fail_limit is not None
        and given.a_fail_limit < 1
    ):
        fail("--max-deals and --a-fail-limit must be positive numbers of deals")
    if not 0 <= given.port <= 65535:
        fail(f"--port must be 0..65535, got {given.port}")
    if given.listing not in ("ruleset", "platform"):
        fail(f"unknown --listing {given.listing!r}: expected ruleset or platform")
    _need_websockets()
    from guandan_cli.protocol.server import ServeError, ServeFailure
    from guandan_cli.protocol.server import serve as run_server
    from guandan_cli.runner.errors import SimulationInputError

    command = command_line(ctx)
    resumable = "rerun the same command, with the same clients, to continue the run"
    with reported(
        bad_input=(ServeError, SimulationInputError), failures=(ServeFailure,), interrupt=resumable
    ):
        res = run_server(
            strategies=given.strategies,
            matches=given.matches,
            seed=given.seed,
            out=given.out,
            host=given.host,
            port=given.port,
            ruleset=given.ruleset,
            max_deals=given.max_deals,
            a_fail_limit=given.a_fail_limit,
            timeout=given.timeout,
            reconnect_wait=given.reconnect_wait,
            connect_wait=given.connect_wait,
            wild_straight_flush=given.listing == "ruleset",
            say=_say,
            command=command,
        )
    if res.stopped is not None:
        fail(
            f"{res.stopped}; the run in {given.out} stopped and is resumable: rerun the same command", FAILURE
        )
    click.echo(res.run.summary())


def connect(
    url: Annotated[str, Argument(help="Server address, ws://HOST:PORT/game/NAME.", metavar="URL")],
    strategy: Annotated[
        str, Option("--strategy", "-s", help="Built-in name, plugin, module:Class or file.py:Class.")
    ] = "heuristic",
    seed: Annotated[int, Option(help="Seed of the strategy's random generator.")] = 0,
    retry_for: Annotated[
        float, Option(help="Seconds to keep reconnecting when the server goes away.")
    ] = 10.0,
    quiet: Annotated[bool, Option("--quiet", "-q", help="Only errors.")] = False,
) -> None:
    """Play one seat on a competition server (NJUPT platform protocol) with one of our strategies."""
    if not url.startswith(("ws://", "wss://")):
        fail(f"bad server address {url!r}: expected ws://HOST:PORT/game/NAME")
    import re
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    try:
        _ = parts.port  # reading it checks it: a port out of range or not a number raises
    except ValueError as exc:
        fail(f"bad server address {url!r}: {exc}; expected ws://HOST:PORT/game/NAME")
    if not parts.hostname:
        fail(f"bad server address {url!r}: no host; expected ws://HOST:PORT/game/NAME")
    # the game's path: a server (ours, the competition platform's) seats only /game/NAME; any
    # other is refused there, and would be reported as a server that is unreachable
    if not re.fullmatch(r"/game/[^/]+", parts.path):
        what = f"not {parts.path!r}" if parts.path else "none given"
        fail(
            f"bad server address {url!r}: the path must be /game/NAME ({what}); expected ws://HOST:PORT/game/NAME"
        )
    if retry_for < 0:
        fail(f"--retry-for must be 0 or more, got {retry_for}")
    _need_websockets()
    from guandan_cli.protocol.client import ClientError, run_client
    from guandan_cli.strategies.registry import load_strategy

    try:
        cls = load_strategy(strategy)
    except Exception as exc:  # noqa: BLE001 - a bad spec, one line
        fail(exc)

    def say(text: str) -> None:
        if not quiet or text.startswith("warning"):
            click.echo(f"guandan connect: {text}", err=True)

    try:
        import asyncio  # here, not at import: every command's start-up would pay for it

        result = asyncio.run(run_client(url, cls, seed=seed, retry_for=retry_for, say=say))
    except ClientError as exc:
        fail(exc, FAILURE)
    except KeyboardInterrupt:
        interrupted()
    if not quiet:
        click.echo(f"series over: my team won {result.get('victoryNum')}, draws {result.get('draws')}")

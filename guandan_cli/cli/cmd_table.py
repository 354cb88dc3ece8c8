"""`guandan table`: take a seat yourself against bots in the browser (``play``'s game, a web page)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

import click

from guandan_cli.cli.errors import check_delay, fail, interrupted
from guandan_cli.cli.game_options import (
    GameOptions,
    Hint,
    check_room,
    game_spec,
)
from guandan_cli.cli.options import TracebackOption, run_failed
from guandan_cli.cli.parameters import Option

#: the line printed when --host makes the table reachable from other machines
EXPOSED = (
    "note: --host {host} lets anyone who can reach this machine on port {port} see your hand and play "
    "your seat (no password); the default 127.0.0.1 keeps the table on this machine"
)


@dataclass(frozen=True)
class TableOptions:
    """``guandan table``'s options after the game's, in the order ``--help`` lists them."""

    hint: Hint = "heuristic"
    port: Annotated[int, Option("--port", help="Port to serve the table on (0: a free one).")] = 0
    host: Annotated[str, Option("--host", help="Address to listen on (127.0.0.1: this machine only).")] = (
        "127.0.0.1"
    )
    open_browser: Annotated[
        bool, Option("--open/--no-open", help="Open the table in the default browser.")
    ] = True
    delay: Annotated[float, Option("--delay", help="Seconds to pause after each bot action.")] = 0.8
    traceback: TracebackOption = False


def table(ctx: click.Context, options: GameOptions, given: TableOptions) -> None:
    """Play one match at --seat against bots in your browser: the table, your hand to click, hints,
    and each deal's review when it ends. The game is saved as `play` saves it (--resume continues)."""
    check_delay(given.delay)
    if not 0 <= given.port <= 65535:
        fail(f"--port must be 0..65535, got {given.port}")
    try:
        import websockets  # noqa: F401 - the server's stack
    except ImportError:
        fail("guandan table needs the websockets package: pip install websockets")
    game = game_spec(ctx, options, hint=given.hint)
    check_room(game.out, game.max_deals)
    _serve(game, options.resume, given)


def _serve(game, resume: bool, given: TableOptions) -> None:
    """Play the game at the web table; after the match the table stays up for the reviews until Ctrl-C."""
    host, port, open_browser, delay, traceback = (
        given.host,
        given.port,
        given.open_browser,
        given.delay,
        given.traceback,
    )
    import shlex
    import threading

    from guandan_cli.interactive.play import PlayInputError
    from guandan_cli.runner.simulation import SimulationError, SimulationInputError
    from guandan_cli.web.game import Table
    from guandan_cli.web.server import TableServerError

    def ready(url: str) -> None:
        click.echo(
            f"guandan table: seed {game.seed}, you are seat {game.seat}; the game is saved in {game.out}"
        )
        click.echo(f"the table: {url}  (Ctrl-C saves and stops)")
        if host not in ("127.0.0.1", "localhost", "::1"):
            click.echo(EXPOSED.format(host=host, port=url.rsplit(":", 1)[1].rstrip("/")))
        if open_browser:
            import webbrowser

            threading.Thread(target=webbrowser.open, args=(url,), daemon=True).start()

    resume_line = f"every answer is saved: guandan table --resume --out {shlex.quote(str(game.out))}"
    web = Table(game, host=host, port=port, delay=delay, on_ready=ready)
    try:
        web.play(resume=resume)
        click.echo(
            f"the match is over and written to {game.out}; the table stays up for the reviews (Ctrl-C ends)"
        )
        threading.Event().wait()
    except TableServerError as exc:
        fail(exc)
    except (PlayInputError, SimulationInputError) as exc:
        fail(exc)
    except SimulationError as exc:
        run_failed(exc, traceback)
    except KeyboardInterrupt:
        if not web.over:
            interrupted(resume_line)
    finally:
        web.close()

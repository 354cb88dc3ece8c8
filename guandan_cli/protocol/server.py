"""``guandan serve``: a competition server speaking the NJUPT platform's protocol (2020 dialect).

Clients connect to ``ws://HOST:PORT/game/NAME`` and take the ``remote`` seats in connection
order; local strategies play the other seats. Once every remote seat is taken, the usual
runner plays the matches in this process (one worker, one match per task and per log
part), so the run directory is an ordinary one (``analyze``, ``replay``, ``verify``). The
WebSocket server runs in a background thread with its own asyncio loop; remote seats
(``remote.RemoteSeat``) talk to it through thread-safe queues.

Besides the run's own files the directory gets ``serve-seats.jsonl``: per match the
decision timeout, each seat's connection (or strategy), its decisions and the seconds
it took, and the error that ended the match if any.
"""

from __future__ import annotations

import asyncio
import functools
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from guandan_cli.ws_thread import WebSocketThread

from . import remote
from .remote import (
    CLOSED,
    MESSAGE_TOO_BIG,
    MODULE,
    NAME_PATTERN,
    POLICY_VIOLATION,
    UNSUPPORTED_DATA,
    Connection,
    Hub,
    Refused,
    SeatsGone,
)

REMOTE = "remote"
SEATS_FILE = "serve-seats.jsonl"
PATH_PATTERN = re.compile(r"/game/(.+)")
#: the largest frame a client may send, in bytes: an answer is ``{"actIndex": k}`` (under 30
#: bytes); larger frames close the connection with 1009 (docs/protocol.md)
MAX_FRAME = 2**16
#: frames websockets holds for a connection beyond the one waiting to be read (it stops
#: reading the socket above that); with ``MAX_FRAME`` a client's unread frames take about
#: (MAX_QUEUE + 2) x MAX_FRAME = 384 KiB of the server's memory
MAX_QUEUE = 4
#: seconds a closing handshake may take before the connection is dropped
CLOSE_TIMEOUT = 2.0


class ServeError(RuntimeError):
    """Bad input found before serving (a bad seat spec or ruleset, an unusable port or output)."""


class ServeFailure(ServeError):
    """The server started but could not play (nobody connected in time)."""


@dataclass
class ServeResult:
    """What a finished (or stopped) serve did."""

    run: object  # guandan_cli.runner.Run
    names: dict[int, str]
    stopped: str | None = None  # why the run stopped early (resumable), or None


class _WebSocketThread(WebSocketThread):
    """The competition's WebSocket server in a daemon thread; ``port`` once started."""

    error_type = ServeError

    def __init__(self, hub: Hub, host: str, port: int) -> None:
        super().__init__(
            host, port, "guandan-serve-ws", ping_interval=None, max_size=MAX_FRAME, max_queue=MAX_QUEUE,
            close_timeout=CLOSE_TIMEOUT,
        )  # fmt: skip
        self.hub = hub

    def start(self) -> int:
        return self.listen()

    async def _handle(self, ws) -> None:
        m = PATH_PATTERN.fullmatch(ws.request.path)
        if m is None or not NAME_PATTERN.fullmatch(m.group(1)):
            await ws.close(1008, "connect to /game/NAME (NAME: letters, digits, _ . -)")
            return
        outbox: asyncio.Queue = asyncio.Queue()
        taken = asyncio.Event()
        conn = Connection(
            m.group(1),
            lambda item: self.loop.call_soon_threadsafe(outbox.put_nowait, item),
            lambda: self.loop.call_soon_threadsafe(taken.set),
        )
        seat = self.hub.attach(conn)
        if seat is None:
            await ws.close(1013, f"no free seat for {conn.name}")
            return
        self.hub.say(f"seat {seat}: {conn.name} connected")
        writer = asyncio.ensure_future(self._write(ws, outbox))
        try:
            await self._read(ws, conn, taken)
        finally:
            conn.inbox.put(CLOSED)
            if self.hub.detach(conn) is not None and not self.hub.started:
                self.hub.say(
                    f"seat {seat}: {conn.name} left before the series started; the seat is free again"
                )
            if not writer.done():  # after a close code another thread queued (Connection.close)
                await asyncio.sleep(0)
                outbox.put_nowait(None)
                try:
                    await asyncio.wait_for(writer, CLOSE_TIMEOUT + 1)
                except Exception:  # noqa: BLE001
                    writer.cancel()

    async def _read(self, ws, conn: Connection, taken: asyncio.Event) -> None:
        """The client's frames into ``conn``'s inbox, one at a time: the next is read once the
        runner has taken the last (so unread frames wait in the transport, bounded by
        ``MAX_QUEUE``). Before the series starts any frame is refused at once (nothing was asked)."""
        from websockets.exceptions import ConnectionClosed

        while not conn.closed:
            try:
                frame = await ws.recv()
            except ConnectionClosed as exc:
                if exc.sent is not None and exc.sent.code == MESSAGE_TOO_BIG:
                    item = Refused(_over_size(exc.sent.reason), MESSAGE_TOO_BIG)
                    if not self.hub.refuse_early(conn, item.what):
                        conn.inbox.put(item)
                return
            except Exception:  # noqa: BLE001 - a broken connection is a disconnect
                return
            if isinstance(frame, str):
                item = frame
                early = f"sent {remote._shown(frame)}"
            else:
                what = f"sent a binary frame ({len(frame)} bytes): the protocol's frames are JSON text"
                item, early = Refused(what, UNSUPPORTED_DATA), what
            if self.hub.refuse_early(conn, early):
                code = item.code if isinstance(item, Refused) else POLICY_VIOLATION
                await ws.close(code, remote.close_reason(f"{early} before the series started"))
                return
            conn.inbox.put(item)
            await taken.wait()
            taken.clear()

    async def _write(self, ws, outbox: asyncio.Queue) -> None:
        while True:
            item = await outbox.get()
            if item is None or isinstance(item, tuple):
                await ws.close(*(item or ()))
                return
            try:
                await ws.send(item)
            except Exception:  # noqa: BLE001 - the reader sees the disconnect
                return


def _over_size(reason: str) -> str:
    """What a client did whose frame websockets refused as too big (``reason``: its close reason).

    >>> _over_size("frame with 70000 bytes exceeds limit of 65536 bytes")
    'sent a frame of 70000 bytes, over the 65536-byte limit'
    """
    size = re.match(r"frame with (\d+) bytes", reason)
    return f"sent a frame{f' of {size.group(1)} bytes,' if size else ''} over the {MAX_FRAME}-byte limit"


def parse_seats(spec: str | Sequence[str]) -> list[str]:
    """Four seat specs (``a``, ``a,b`` or ``a,b,c,d`` like ``--strategies``), ``remote`` marking remote seats."""
    from guandan_cli.runner.simulation import parse_strategies

    return list(parse_strategies(spec))


def _stored_changes(
    recorded,
    seats: Sequence[str],
    remote_seats: list[int],
    wanted,
) -> list[str]:
    """How a stored run (``recorded``, its ``PartialConfig``) differs from the one asked for
    (``wanted``), one phrase each (the remote seats' connection names aside: they are known
    when the clients come)."""
    out = [f"{k} {was!r} (now {now!r})" for k, was, now in wanted.differences(recorded)]
    stored = [str(s) for s in recorded.strategies or ()]
    remote_stored = [i for i, s in enumerate(stored) if s.startswith(f"{MODULE}:")]
    if (
        len(stored) != 4
        or remote_stored != remote_seats
        or any(stored[i] != seats[i] for i in range(4) if i not in remote_seats)
    ):
        shown = ",".join("remote" if s.startswith(f"{MODULE}:") else s for s in stored)
        out.append(f"strategies {shown} (now {','.join(seats)})")
    return out


@dataclass(frozen=True)
class ServeConfig:
    """What a competition serves: the seats (``remote`` for a client's), the run's options,
    where it listens and how long it waits (see :func:`serve`)."""

    strategies: str | Sequence[str]
    matches: int
    seed: int
    out: str | Path
    host: str = "127.0.0.1"
    port: int = 23456
    ruleset: str = "cgr2022"
    max_deals: int | None = None
    a_fail_limit: int | None = None
    timeout: float = 30.0
    reconnect_wait: float = 60.0
    connect_wait: float | None = None
    wild_straight_flush: bool = True
    command: str | None = None


def serve(
    config: ServeConfig | None = None,
    *,
    say: Callable[[str], None] = print,
    on_listening: Callable[[int], None] | None = None,
    **options: Any,
) -> ServeResult:
    """Serve ``matches`` matches to remote clients; see the module docstring. ``config`` is a
    :class:`ServeConfig`, or its fields are given as keywords (laid over ``config`` if both).

    ``timeout``: seconds a client may take per decision; ``reconnect_wait``: seconds an empty
    remote seat is kept before the run stops (resumable); ``connect_wait``: seconds to wait
    for the first clients (``None``: forever). ``on_listening(port)`` is called once the
    socket is bound (port 0 picks a free one).
    """
    from guandan_cli.logs.manifest import PartialConfig

    config = replace(config, **options) if config is not None else ServeConfig(**options)
    seats = parse_seats(config.strategies)
    remote_seats = _checked_seats(seats, config.ruleset, config.a_fail_limit, config.max_deals)
    out = Path(config.out)
    wanted = PartialConfig.of(
        matches=config.matches,
        seed=config.seed,
        ruleset=config.ruleset,
        max_deals=config.max_deals,
        a_fail_limit=config.a_fail_limit,
    )
    done = _stored_matches(out, seats, remote_seats, wanted)
    from guandan_cli.logs.layout import space_problem

    problem = space_problem(
        out, config.matches - done, config.max_deals, suggest_compression=False
    )  # before clients wait
    if problem is not None:
        raise ServeError(problem)
    hub = Hub(
        {s: None for s in remote_seats},
        config.timeout,
        config.reconnect_wait,
        config.wild_straight_flush,
        say,
    )
    ws_thread = _WebSocketThread(hub, config.host, config.port)
    bound = ws_thread.start()
    if on_listening is not None:
        on_listening(bound)
    say(
        f"listening on ws://{config.host}:{bound}/game/NAME for {len(remote_seats)} client(s): seats {remote_seats}"
    )
    play = functools.partial(
        _play,
        config.matches,
        seed=config.seed,
        ruleset=config.ruleset,
        max_deals=config.max_deals,
        a_fail_limit=config.a_fail_limit,
        out=out,
        command=config.command,
    )
    try:
        return _serve_series(hub, out, seats, remote_seats, config.connect_wait, say, config.matches, play)
    finally:
        remote.HUB = None
        with hub.cond:
            hub.stopping = True
        for _s, conn in hub.connected():
            conn.close()
        ws_thread.stop()


def _checked_seats(
    seats: list[str], ruleset: str, a_fail_limit: int | None, max_deals: int | None
) -> list[int]:
    """The remote seats; the local seats' strategies load and the ruleset takes the options (else ``ServeError``)."""
    from guandan_cli.engine.rules import get_ruleset
    from guandan_cli.strategies.registry import load_strategy

    for s in dict.fromkeys(x for x in seats if x != REMOTE):
        try:
            load_strategy(s)
        except Exception as exc:  # noqa: BLE001 - named in one line
            raise ServeError(str(exc)) from None
    remote_seats = [s for s, name in enumerate(seats) if name == REMOTE]
    if not remote_seats:
        raise ServeError(
            "no seat is 'remote': mark the seats clients play, e.g. --strategies heuristic,remote"
        )
    try:
        get_ruleset(ruleset, a_fail_limit=a_fail_limit, max_deals=max_deals)
    except ValueError as exc:
        raise ServeError(str(exc)) from None
    return remote_seats


def _stored_matches(out: Path, seats: list[str], remote_seats: list[int], wanted) -> int:
    """The matches a stored run in ``out`` holds (0 for none); ``ServeError`` when ``out`` is
    no place for this run (a file, a folder of other things, a complete or another run)."""
    from guandan_cli.runner.run import Run

    if out.exists() and (not out.is_dir() or (any(out.iterdir()) and not (out / "manifest.json").is_file())):
        raise ServeError(
            f"output {out} exists and is not an empty directory or a guandan run; choose another --out"
        )
    if not (out / "manifest.json").is_file():
        return 0
    try:
        stored = Run(out)
        state, done = stored.state, stored.totals.matches or 0
    except Exception as exc:  # noqa: BLE001 - a damaged manifest, one line
        raise ServeError(f"output {out} holds an unreadable run ({exc}); choose another --out") from None
    if state == "complete":
        raise ServeError(f"output {out} holds a complete run; choose another --out")
    changes = _stored_changes(stored.manifest.recorded, seats, remote_seats, wanted)
    if changes:  # found now, not once the clients have come
        raise ServeError(
            f"output {out} holds a run with another configuration: {', '.join(changes)}; choose another --out"
        )
    return done


def _play(matches: int, *, strategies: list[str], progress, **options):
    """``simulate`` as a server plays: in this process, one match per task and per part, a
    client's failure recorded as an errored match."""
    from guandan_cli.runner.simulation import simulate

    return simulate(
        matches,
        strategies=strategies,
        workers=1,
        on_error="record",
        chunk_size=1,
        part_size=1,
        progress=progress,
        **options,
    )


def _serve_series(
    hub: Hub,
    out: Path,
    seats: list[str],
    remote_seats: list[int],
    connect_wait: float | None,
    say: Callable[[str], None],
    matches: int,
    play: Callable,
) -> ServeResult:
    """Once the clients have come, the matches played (``play``: ``_play`` with the run's
    options); the clients told the result."""
    from guandan_cli.runner.run import Run
    from guandan_cli.runner.simulation import SimulationInterrupted

    if not hub.wait_all(connect_wait):
        taken = sum(c is not None for c in hub.conns.values())
        raise ServeFailure(
            f"{taken} of {len(remote_seats)} remote seats were taken within {connect_wait:g} s"
        )
    names = {s: hub.names[s] for s in remote_seats}
    specs = [remote.register(names[s]) if s in names else seats[s] for s in range(4)]
    try:
        hub.match_index = (Run(out).totals.matches or 0) if (out / "manifest.json").is_file() else 0
    except Exception:  # noqa: BLE001 - not a run yet: simulate says why
        hub.match_index = 0
    remote.HUB = hub
    stopped = None
    try:
        run = play(strategies=specs, progress=_MatchDone(out, hub, specs, names, matches, say))
    except SimulationInterrupted as exc:
        if not isinstance(exc.reason, SeatsGone):
            raise
        stopped = str(exc.reason)
        run = Run(out)
    if stopped is None:
        _send_results(hub, run)
    return ServeResult(run, names, stopped)


class _MatchDone:
    """``simulate``'s progress callback: after each match, the seat times written, a line said,
    the clients told (``gameOver``)."""

    def __init__(
        self, out: Path, hub: Hub, specs: list[str], names: dict[int, str], matches: int, say
    ) -> None:
        self.out, self.hub, self.specs, self.names, self.matches, self.say = (
            out,
            hub,
            specs,
            names,
            matches,
            say,
        )

    def __call__(self, _matches: int, deals: int) -> None:
        hub = self.hub
        _write_seat_times(self.out, hub, self.specs, self.names)
        self.say(
            f"match {hub.match_index} done ({hub.match_index + 1} of {self.matches}: "
            f"{deals} deals{', errored' if hub.error else ''})"
        )
        for _s, conn in hub.connected():
            conn.send(
                {
                    "type": "notify",
                    "stage": "gameOver",
                    "curTimes": hub.match_index + 1,
                    "settingTimes": self.matches,
                }
            )
        hub.match_index += 1


def _send_results(hub: Hub, run) -> None:
    """The series' result to every client still connected (``gameResult``)."""
    wins = run.totals.wins or (0, 0)
    for s, conn in hub.connected():
        conn.send(
            {
                "type": "notify",
                "stage": "gameResult",
                "victoryNum": wins[s & 1],
                "draws": (run.totals.matches or 0) - sum(wins),
            }
        )


def _write_seat_times(out: Path, hub: Hub, specs: list[str], names: dict[int, str]) -> None:
    line = {
        "match_index": hub.match_index,
        "timeout": hub.timeout,
        "seats": [
            {
                "seat": s,
                "connection": names.get(s),
                "strategy": specs[s],
                "decisions": hub.decisions[s],
                "seconds": round(hub.seconds[s], 4),
            }
            for s in range(4)
        ],
        "error": hub.error,
    }
    with open(out / SEATS_FILE, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(line) + "\n")


__all__ = ["REMOTE", "SEATS_FILE", "ServeError", "ServeFailure", "ServeResult", "parse_seats", "serve"]

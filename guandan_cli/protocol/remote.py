"""Remote seats: players whose decisions come from a competition client over a WebSocket.

The server (``guandan serve``) runs the usual runner in-process with one worker; a remote
seat's strategy spec is ``guandan_cli.protocol.remote:NAME`` where ``NAME`` is the
client's connection name (``ws://HOST:PORT/game/NAME``), so the run's manifest and logs
name the seat by its connection. Each ``RemoteSeat`` sends its client the platform's
messages (``beginning``, ``act``, ``notify``) and turns the ``actIndex`` answer into our
action. A client that misbehaves raises ``RemoteSeatError`` (the match is recorded as
errored); a seat left empty past the reconnection limit raises ``SeatsGone``, which stops
the run (interrupted, resumable).
"""

from __future__ import annotations

import json
import queue
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from guandan_cli.engine.deal import PASS, PLAY, RETURN, TRIBUTE
from guandan_cli.engine.observation import Observation

from .translate import (
    NO_MOVE,
    action_list,
    back_move,
    card_token,
    level_token,
    sort_by_power,
    to_move,
    tribute_move,
)

NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
MODULE = "guandan_cli.protocol.remote"
#: put in a connection's inbox when the client has gone
CLOSED = object()
#: close codes (RFC 6455): a protocol fault, a binary frame, a frame over ``MAX_FRAME``
POLICY_VIOLATION, UNSUPPORTED_DATA, MESSAGE_TOO_BIG = 1008, 1003, 1009


@dataclass(frozen=True)
class Refused:
    """Put in a connection's inbox in place of a frame the transport refused (binary, over-size).

    >>> Refused("sent a binary frame (3 bytes): frames are JSON text", UNSUPPORTED_DATA).code
    1003
    """

    what: str  # what the client did, as the fault line says it
    code: int  # the close code it is disconnected with


class RemoteSeatError(RuntimeError):
    """A remote client that broke the protocol (its match ends, recorded as errored)."""

    #: the client is at fault, not a line of this code (``engine.failures``)
    where_in_bot = False


class SeatsGone(KeyboardInterrupt):
    """No client took an empty remote seat in time: the run stops, resumable (like Ctrl-C)."""


def spec_for(name: str) -> str:
    """The strategy spec of the remote seat played by connection ``name``."""
    return f"{MODULE}:{name}"


class Connection:
    """One client's WebSocket as seen from the runner thread: an inbox and a thread-safe ``send``.

    The inbox holds at most one unread frame (besides ``CLOSED``): the WebSocket thread reads
    the next one only once ``take`` has taken it (``taken`` tells it), so a client that sends
    while nothing reads is held back by the transport, not buffered here.
    """

    def __init__(
        self,
        name: str,
        send: Callable[[str | tuple[int, str]], None],
        taken: Callable[[], None] = lambda: None,
    ) -> None:
        self.name = name
        self.inbox: queue.Queue = queue.Queue()
        self._send = send
        self._taken = taken
        self.closed = False

    def send(self, message: dict) -> None:
        if not self.closed:
            self._send(json.dumps(message, ensure_ascii=False))

    def take(self, timeout: float | None = 0):
        """The next thing the client sent (a text frame, a ``Refused`` or ``CLOSED``), waiting
        up to ``timeout`` seconds (0: not at all, ``None``: forever); ``queue.Empty`` if none."""
        item = self.inbox.get_nowait() if timeout == 0 else self.inbox.get(timeout=timeout)
        self._taken()
        return item

    def close(self, code: int = 1000, reason: str = "") -> None:
        """Close the connection with ``code`` once what was sent has gone out."""
        if not self.closed:
            # the close frame is queued before ``closed`` is seen: a reader that sees it then
            # queues its own end (``None``) after this code, never before (server._handle)
            self._send((code, close_reason(reason)))
            self.closed = True
            self._taken()  # the WebSocket thread stops waiting for a take


def close_reason(text: str, limit: int = 123) -> str:
    """``text`` cut to fit a close frame's reason (at most 123 bytes of UTF-8).

    >>> close_reason("x" * 200)[-3:], len(close_reason("é" * 100).encode())
    ('...', 123)
    """
    data = text.encode()
    if len(data) <= limit:
        return text
    return data[: limit - 3].decode(errors="ignore") + "..."


class Hub:
    """The table's seats: which connection plays each remote seat, limits and per-match timing."""

    def __init__(
        self,
        remote_seats: dict[int, str | None],
        timeout: float,
        reconnect_wait: float,
        wild_straight_flush: bool = True,
        say: Callable[[str], None] = print,
    ) -> None:
        self.names = dict(remote_seats)  # seat -> connection name (None until first connection)
        self.conns: dict[int, Connection | None] = {s: None for s in remote_seats}
        self.timeout = timeout
        self.reconnect_wait = reconnect_wait
        self.wild_straight_flush = wild_straight_flush
        self.say = say
        self.cond = threading.Condition()
        self.match_index = 0
        self.seconds = [0.0] * 4
        self.decisions = [0] * 4
        self.error: str | None = None
        self._clock = time.monotonic()
        self.stopping = False
        self.started = False  # every remote seat was taken once: the seats' names are fixed

    # --- called from the WebSocket thread
    def attach(self, conn: Connection) -> int | None:
        """Seat a new connection: the first empty remote seat that is free or kept for its name."""
        with self.cond:
            if self.stopping:
                return None
            for seat in sorted(self.conns):
                if self.conns[seat] is None and self.names[seat] in (None, conn.name):
                    if self.names[seat] is None and conn.name in self.names.values():
                        continue  # a name plays one seat
                    self.names[seat] = conn.name
                    self.conns[seat] = conn
                    self.cond.notify_all()
                    return seat
            return None

    def detach(self, conn: Connection) -> int | None:
        """Empty the connection's seat; before the series starts the seat is free again (any
        name may take it). The seat, if it had one."""
        with self.cond:
            left = None
            for seat, c in self.conns.items():
                if c is conn:
                    self.conns[seat] = None
                    left = seat
                    if not self.started:
                        self.names[seat] = None
            conn.closed = True
            self.cond.notify_all()
            return left

    def refuse_early(self, conn: Connection, what: str) -> bool:
        """Before the series starts nothing is asked, so any frame is a fault: the client's
        seat freed and one line said (True); False once the series has started."""
        with self.cond:
            if self.started:
                return False
            seat = self.detach(conn)
        self.say(
            f"seat {seat}: {conn.name} {what} before the series started: disconnected, the seat is free again"
        )
        return True

    # --- called from the runner thread
    def wait_all(self, limit: float) -> bool:
        """Wait until every remote seat has a connection (at most ``limit`` seconds)."""
        with self.cond:
            ok = self.cond.wait_for(lambda: all(c is not None for c in self.conns.values()), limit)
            self.started = self.started or ok
            return ok

    def connection(self, seat: int) -> Connection:
        """The seat's connection, waiting up to ``reconnect_wait`` for a client to take it."""
        with self.cond:
            if self.conns[seat] is None:
                self.say(
                    f"seat {seat} ({self.names[seat]}) is empty: waiting up to {self.reconnect_wait:g} s for it to reconnect"
                )
            ok = self.cond.wait_for(lambda: self.conns[seat] is not None, self.reconnect_wait)
            if not ok:
                raise SeatsGone(
                    f"seat {seat} ({self.names[seat]}) did not reconnect within {self.reconnect_wait:g} s"
                )
            return self.conns[seat]  # type: ignore[return-value]

    def connected(self) -> list[tuple[int, Connection]]:
        with self.cond:
            return [(s, c) for s, c in sorted(self.conns.items()) if c is not None and not c.closed]

    def fail(self, seat: int, conn: Connection, what: str, code: int = POLICY_VIOLATION) -> RemoteSeatError:
        """Record a client's fault, say it in one line, close its connection with ``code``
        (``what`` as the reason); the error to raise."""
        text = f"seat {seat} ({conn.name}) {what}"
        if self.error is None:
            self.error = text
            self.say(f"match {self.match_index}: {text}; the match is recorded as errored")
        conn.close(code, what)
        self.detach(conn)
        return RemoteSeatError(text)

    def tick(self, seat: int) -> None:
        """Charge the time since the previous action to ``seat`` (the seat that just acted)."""
        now = time.monotonic()
        self.seconds[seat] += now - self._clock
        self.decisions[seat] += 1
        self._clock = now

    def start_match(self) -> None:
        self.seconds = [0.0] * 4
        self.decisions = [0] * 4
        self.error = None
        self._clock = time.monotonic()


_CLASSES: dict[str, type] = {}
#: the hub of the server running in this process (set by ``guandan serve``)
HUB: Hub | None = None


def register(name: str) -> str:
    """Make ``remote:NAME`` loadable in this process (a class per connection name); its spec."""
    if not NAME_PATTERN.fullmatch(name):
        raise ValueError(f"bad connection name {name!r}: letters, digits, _ . - (at most 64)")
    if name not in _CLASSES:
        _CLASSES[name] = type(f"RemoteSeat[{name}]", (RemoteSeat,), {"name": f"remote:{name}"})
    return spec_for(name)


def __getattr__(name: str) -> type:
    """The class of a registered connection name (so specs name the connection)."""
    cls = _CLASSES.get(name)
    if cls is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return cls


class RemoteSeat:
    """A seat whose decisions come from a competition client (see the module docstring)."""

    name = "remote"
    #: its client's time is kept by ``serve --timeout`` (and the reconnect wait), not by the
    #: runner's ``--decision-timeout`` (``runner.supervisor.decision``)
    own_decision_timeout = True

    def __init__(self, seat: int, rng=None) -> None:
        if HUB is None:
            raise RuntimeError("a remote seat plays only inside `guandan serve`")
        self.hub = HUB
        self.seat = seat
        self.conn: Connection | None = None
        self.previous = None  # the previous deal's result
        self.level = 0
        self.levels = (0, 0)
        self.counts = [27, 27, 27, 27]
        self.top_move: list = list(NO_MOVE)
        self.top_owner = -1
        self.areas: list = [None, None, None, None]
        self.timer = seat == min(self.hub.conns)  # one remote seat keeps the per-seat clock

    # ------------------------------------------------------------------ helpers
    def _check_quiet(self) -> Connection:
        """The seat's connection, checked: anything the client sent when nothing was asked
        is a reply to nothing (or what the transport refused, or its disconnect)."""
        conn = self.conn
        if conn is None:
            raise RemoteSeatError(f"seat {self.seat} has no connection")
        try:
            item = conn.take(0)
        except queue.Empty:
            if conn.closed:
                raise self.hub.fail(self.seat, conn, "disconnected") from None
            return conn
        raise self._fault(conn, item, asked=False)

    def _fault(self, conn: Connection, item: object, asked: bool) -> RemoteSeatError:
        """The fault of a client whose inbox held ``item`` (``CLOSED``, a ``Refused`` or, when
        nothing was ``asked``, any frame)."""
        if item is CLOSED:
            return self.hub.fail(
                self.seat, conn, "disconnected while asked to act" if asked else "disconnected"
            )
        if isinstance(item, Refused):
            return self.hub.fail(self.seat, conn, item.what, item.code)
        return self.hub.fail(self.seat, conn, f"sent {_shown(item)} when no action was asked")

    def _send(self, message: dict) -> None:
        self._check_quiet().send(message)

    # ------------------------------------------------------------------ deal start
    def start_deal(self, deal_index: int, obs: Observation) -> None:
        if deal_index == 0:
            self.conn = self.hub.connection(self.seat)
            if self.timer:
                self.hub.start_match()
        self.level = obs.level
        self.levels = obs.levels
        self.counts = list(obs.card_counts)
        self.top_move, self.top_owner = list(NO_MOVE), -1
        self.areas = [None, None, None, None]
        self._send(
            {
                "type": "notify",
                "stage": "beginning",
                "handCards": [card_token(f) for f in sort_by_power(obs.hand, obs.level)],
                "myPos": self.seat,
            }
        )
        if obs.tribute_kind == "resisted" and self.previous is not None:
            order, double_down = self.previous.finish_order, self.previous.double_down
            payers = [(order[0] + 1) % 4, (order[0] + 3) % 4] if double_down else [order[3]]
            self._send(
                {"type": "notify", "stage": "anti-tribute", "antiNums": len(payers), "antiPos": payers}
            )

    # ------------------------------------------------------------------ decisions
    def choose_play(self, obs: Observation):
        listed = action_list(obs.hand, obs.level, obs.top, self.hub.wild_straight_flush)
        return listed[self._ask(obs, "play", [to_move(c) for c in listed])]

    def choose_tribute(self, obs: Observation) -> int:
        listed = list(obs.legal_actions)
        return listed[self._ask(obs, "tribute", [tribute_move(f) for f in listed])]

    def choose_return(self, obs: Observation) -> int:
        listed = list(obs.legal_actions)
        return listed[self._ask(obs, "back", [back_move(f) for f in listed])]

    def _ask(self, obs: Observation, stage: str, moves: list) -> int:
        team = self.seat & 1
        leading = obs.top is None
        message = {
            "type": "act",
            "handCards": [card_token(f) for f in sort_by_power(obs.hand, obs.level)],
            "publicInfo": [{"rest": obs.card_counts[s], "playArea": self.areas[s]} for s in range(4)],
            "selfRank": level_token(min(obs.levels[team], 12)),
            "oppoRank": level_token(min(obs.levels[1 - team], 12)),
            "curRank": level_token(obs.level),
            "stage": stage,
            "curPos": -1 if leading or stage != "play" else self.last_pos,
            "curAction": list(NO_MOVE) if leading or stage != "play" else self.last_move,
            "greaterPos": -1 if leading or stage != "play" else self.top_owner,
            "greaterAction": list(NO_MOVE) if leading or stage != "play" else self.top_move,
            "actionList": moves,
            "indexRange": len(moves) - 1,
        }
        conn = self._check_quiet()
        conn.send(message)
        try:
            frame = conn.take(self.hub.timeout)
        except queue.Empty:
            raise self.hub.fail(self.seat, conn, f"gave no answer within {self.hub.timeout:g} s") from None
        if not isinstance(frame, str):
            raise self._fault(conn, frame, asked=True)
        answer = self._read_answer(conn, frame)
        index = answer.get("actIndex") if isinstance(answer, dict) else None
        if not isinstance(index, int) or isinstance(index, bool):
            raise self.hub.fail(self.seat, conn, f"sent {_shown(frame)} without an integer actIndex")
        if not 0 <= index < len(moves):
            raise self.hub.fail(self.seat, conn, f"sent actIndex {index}, outside 0..{len(moves) - 1}")
        return index

    def _read_answer(self, conn: Connection, frame: str) -> object:
        """``frame`` read as JSON, else the client's fault raised."""
        try:
            return json.loads(frame)
        except json.JSONDecodeError:
            what = f"sent a non-JSON frame {_shown(frame)}"
        except RecursionError:
            what = f"sent JSON nested too deeply to read ({len(frame)} characters: {_shown(frame, 30)})"
        except ValueError as exc:  # e.g. an integer of more digits than Python converts
            what = f"sent JSON this server cannot read ({exc}): {_shown(frame, 30)}"
        raise self.hub.fail(self.seat, conn, what)

    # ------------------------------------------------------------------ public events
    last_pos = -1
    last_move: list = list(NO_MOVE)

    def on_public_events(self, seat: int, events: tuple, end) -> None:
        if self.timer:
            self.hub.tick(seat)
        tributes = [[e.seat, e.to, card_token(e.card)] for e in events if e.kind == TRIBUTE]
        returns = [[e.seat, e.to, card_token(e.card)] for e in events if e.kind == RETURN]
        for e in events:
            if e.kind in (TRIBUTE, RETURN):
                self.counts[e.seat] -= 1
                self.counts[e.to] += 1
        if tributes:
            self._send({"type": "notify", "stage": "tribute", "result": tributes})
        if returns:
            self._send({"type": "notify", "stage": "back", "result": returns})
        for e in events:
            if e.kind == PLAY:
                if e.lead:
                    self.areas = [None, None, None, None]
                move = to_move(e.combo)
                self.counts[e.seat] -= len(e.combo.cards)
                self.top_move, self.top_owner = move, e.seat
            elif e.kind == "pass":
                move = to_move(PASS)
            else:
                continue
            self.areas[e.seat] = move
            self.last_pos, self.last_move = e.seat, move
            self._send(
                {
                    "type": "notify",
                    "stage": "play",
                    "curPos": e.seat,
                    "curAction": move,
                    "greaterPos": self.top_owner,
                    "greaterAction": self.top_move,
                }
            )
        if end is not None:
            self.previous = end.result
            self._send(
                {
                    "type": "notify",
                    "stage": "episodeOver",
                    "order": list(end.result.finish_order),
                    "curRank": level_token(self.level),
                    "restCards": [
                        [s, [card_token(f) for f in sort_by_power(h, self.level)]]
                        for s, h in enumerate(end.hands)
                        if h
                    ],
                }
            )


def _shown(frame: object, limit: int = 60) -> str:
    text = repr(frame)
    return text if len(text) <= limit else text[: limit - 3] + "..."


__all__ = [
    "CLOSED",
    "Connection",
    "Hub",
    "Refused",
    "RemoteSeat",
    "RemoteSeatError",
    "SeatsGone",
    "register",
    "spec_for",
]

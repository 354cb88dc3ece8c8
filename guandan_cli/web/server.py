"""The web table's server: the page's files over HTTP and the game over one WebSocket (``/ws``).

It runs in a daemon thread with its own asyncio loop (websockets' asyncio server; plain HTTP
requests are answered by its ``process_request`` hook), while the game runs in the main thread.
``GET /`` is the table page, ``/static/NAME`` its script and style (shipped in the wheel, no
build step, nothing loaded from the internet), ``/review/N`` the review page of deal N once it
has ended (``guandan review --html``'s page, made on first request). A connecting browser gets
the latest state and the open question, then every message as it is published.
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
from collections.abc import Callable
from importlib import resources
from pathlib import Path

from guandan_cli.ws_thread import WebSocketThread

from .seat import WebSeat

#: the largest frame a browser may send (an answer is a few card tokens)
MAX_FRAME = 2**14
STATIC_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
}
#: the longest a request may take (a deal's review page is made on first request: seconds)
REVIEW_SECONDS = 600
REVIEW_PATH = re.compile(r"/review/(\d+)")


class TableServerError(RuntimeError):
    """The server could not start (the address is taken or not ours)."""


def static_file(name: str) -> bytes | None:
    """A file of the page (``index.html``, ``table.js``, ``table.css``), or ``None``."""
    if not re.fullmatch(r"[a-z]+\.(html|js|css)", name):
        return None
    item = resources.files("guandan_cli.web").joinpath("static").joinpath(name)
    return item.read_bytes() if item.is_file() else None


class TableServer(WebSocketThread):
    """Serve ``seat``'s table on ``host:port`` (0: a free port) until :meth:`stop`.

    ``review_page(deal, worlds)`` makes the review page of an ended deal (HTML text; ``worlds``
    ``None`` for the review's default budget, else ``/review/N?worlds=K``: quicker and rougher),
    or raises ``LookupError`` when that deal has not ended."""

    error_type = TableServerError

    def __init__(
        self, seat: WebSeat, host: str, port: int, review_page: Callable[[int, int | None], str]
    ) -> None:
        super().__init__(
            host,
            port,
            "guandan-table",
            process_request=self._http,
            max_size=MAX_FRAME,
            ping_interval=None,
            # an HTTP request is answered inside the opening handshake, and a review page takes
            # seconds to make: websockets' 10 s handshake limit dropped slow ones unanswered
            open_timeout=REVIEW_SECONDS + 30,
        )
        self.seat = seat
        self.review_page = review_page
        self._reviews: dict[tuple[int, int | None], str] = {}
        self._review_lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}/"

    def start(self) -> str:
        """Listen, and return the page's address."""
        self.listen()
        return self.url

    # ------------------------------------------------------------ HTTP

    async def _http(self, connection, request):
        """Answer a plain HTTP request (``None`` lets a WebSocket handshake on ``/ws`` go on)."""
        path = request.path.split("?")[0]
        if path == "/ws":
            return None
        if path == "/":
            return _response(200, static_file("index.html") or b"", ".html")
        if path.startswith("/static/"):
            body = static_file(path[len("/static/") :])
            if body is not None:
                return _response(200, body, Path(path).suffix)
        m = REVIEW_PATH.fullmatch(path)
        if m is not None:
            deal, worlds = int(m.group(1)), _worlds(request.path)
            try:
                page = await asyncio.to_thread(self._review, deal, worlds)
            except LookupError as exc:
                return _response(404, str(exc).encode(), ".txt")
            return _response(200, page.encode(), ".html")
        return _response(404, f"no page {path}".encode(), ".txt")

    def prepare_review(self, deal: int) -> None:
        """Start making deal ``deal``'s review page now (a daemon thread), so that it is ready
        when the person asks for it; a failure is left for the request to report."""

        def make() -> None:
            try:
                self._review(deal, None)
            except Exception:  # noqa: BLE001 - the request made later says what went wrong
                pass

        threading.Thread(target=make, name=f"guandan-review-{deal}", daemon=True).start()

    def _review(self, deal: int, worlds: int | None) -> str:
        with self._review_lock:  # one review at a time: it takes the cores
            if (deal, worlds) not in self._reviews:
                self._reviews[deal, worlds] = self.review_page(deal, worlds)
            return self._reviews[deal, worlds]

    # ------------------------------------------------------------ the game's messages

    async def _handle(self, ws) -> None:
        outbox: asyncio.Queue = asyncio.Queue()

        def listen(message: dict) -> None:
            self.loop.call_soon_threadsafe(outbox.put_nowait, message)

        with self.seat.lock:
            self.seat.listeners.append(listen)
        outbox.put_nowait(
            {"type": "hello", "seat": self.seat.seat, "names": self.seat.names, "hint": self.seat.hint}
        )
        for message in self.seat.snapshot():
            outbox.put_nowait(message)
        writer = asyncio.ensure_future(self._write(ws, outbox))
        try:
            await self._read(ws, outbox)
        finally:
            with self.seat.lock:
                self.seat.listeners.remove(listen)
            writer.cancel()

    async def _read(self, ws, outbox: asyncio.Queue) -> None:
        from websockets.exceptions import ConnectionClosed

        while True:
            try:
                frame = await ws.recv()
            except ConnectionClosed:
                return
            try:
                message = json.loads(frame)
            except (TypeError, ValueError):
                outbox.put_nowait({"type": "refused", "message": "a message is one JSON object"})
                continue
            if not isinstance(message, dict):
                outbox.put_nowait({"type": "refused", "message": "a message is one JSON object"})
            elif message.get("type") == "check":
                outbox.put_nowait(self.seat.check(str(message.get("text", ""))))
            else:
                self.seat.inbox.put(message)

    async def _write(self, ws, outbox: asyncio.Queue) -> None:
        while True:
            message = await outbox.get()
            try:
                await ws.send(json.dumps(message, ensure_ascii=False))
            except Exception:  # noqa: BLE001 - the reader sees the disconnect
                return


def _worlds(path: str) -> int | None:
    """``K`` of a ``?worlds=K`` query (2..32), else ``None`` (the review's default budget).

    >>> _worlds("/review/0?worlds=4"), _worlds("/review/0"), _worlds("/review/0?worlds=x")
    (4, None, None)
    """
    m = re.search(r"[?&]worlds=(\d+)", path)
    return min(max(int(m.group(1)), 2), 32) if m else None


def _response(status: int, body: bytes, suffix: str):
    from websockets.datastructures import Headers
    from websockets.http11 import Response

    reason = {200: "OK", 404: "Not Found"}[status]
    kind = STATIC_TYPES.get(suffix, "text/plain; charset=utf-8")
    headers = Headers(
        [("Content-Type", kind), ("Content-Length", str(len(body))), ("Cache-Control", "no-store")]
    )
    return Response(status, reason, headers, body)


__all__ = ["TableServer", "TableServerError", "static_file"]

"""An asyncio WebSocket server in a daemon thread: the browser table's (``web/server.py``) and
the competition server's (``protocol/server.py``). Imports websockets only when it serves."""

from __future__ import annotations

import asyncio
import threading
from typing import Any


class WebSocketThread:
    """Serve :meth:`_handle` on ``host:port`` (0: a free port, ``port`` once started) in a
    daemon thread named ``name`` until :meth:`stop`; ``serve_options`` go to websockets' ``serve``."""

    #: the error :meth:`start` raises when the server cannot listen
    error_type: type[Exception] = RuntimeError

    def __init__(self, host: str, port: int, name: str, **serve_options: Any) -> None:
        self.host = host
        self.port = port
        self.serve_options = serve_options
        self.loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._stop: asyncio.Future | None = None
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._main, name=name, daemon=True)

    def listen(self) -> int:
        """Start serving, and return the port (``error_type`` when it cannot listen)."""
        self.thread.start()
        self._ready.wait()
        if self.error is not None:
            raise self.error_type(f"cannot listen on {self.host}:{self.port}: {self.error}")
        return self.port

    def stop(self) -> None:
        if self._stop is not None and not self._stop.done():
            self.loop.call_soon_threadsafe(self._stop.set_result, None)
        self.thread.join(timeout=5)

    def _main(self) -> None:
        asyncio.set_event_loop(self.loop)
        try:
            self.loop.run_until_complete(self._serve())
        except BaseException as exc:  # noqa: BLE001 - reported by listen()
            self.error = exc
            self._ready.set()

    async def _serve(self) -> None:
        from websockets.asyncio.server import serve

        self._stop = self.loop.create_future()
        async with serve(self._handle, self.host, self.port, **self.serve_options) as server:
            self.port = next(iter(server.sockets)).getsockname()[1]
            self._ready.set()
            await self._stop

    async def _handle(self, ws) -> None:
        raise NotImplementedError


__all__ = ["WebSocketThread"]

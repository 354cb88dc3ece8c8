"""Measure what a flooding client costs `guandan serve` (issue 26, finding 9): rerunnable.

Starts ``guandan serve -s heuristic,remote`` on a free 127.0.0.1 port (two remote seats),
connects one client that sends ``--count`` text frames of ``--size`` bytes as fast as the
server lets it (never reading), and prints the server's resident memory before and after
(``VmRSS``, and the peak ``VmHWM``, from /proc), the frames the client got out (uncompressed, so the bytes on the wire are the
frames' own), and how
the connection ended. By default the flood comes before the series starts (the finding's
case); ``--during-play`` first seats a client that never answers (seat 1), and the
flooder (seat 3) floods once seat 0 has played, while the server waits on seat 1
(``--timeout`` 60) and nothing reads the flood.

    .venv/bin/python scripts/serve_flood.py --count 100 --size 4000000
    .venv/bin/python scripts/serve_flood.py --count 10000 --size 65000 --during-play
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path


def _memory_kib(pid: int) -> dict[str, int]:
    text = Path(f"/proc/{pid}/status").read_text()
    return {k: int(v) for k, v in re.findall(r"^(VmRSS|VmHWM):\s+(\d+) kB", text, re.M)}


async def _silent(url: str, started: asyncio.Event) -> None:
    """A client that reads everything and never answers."""
    from websockets.asyncio.client import connect

    async with connect(url, ping_interval=None, max_size=None) as ws:
        async for _frame in ws:
            started.set()


async def _flood(
    url: str, count: int, size: int, seconds: float, during_play: bool, measure: Callable[[], dict]
) -> tuple[int, str, dict]:
    """Flood ``url``; the frames sent, how it ended, and ``measure()`` taken 1 s after the
    flood, connection still as the flood left it."""
    from websockets.asyncio.client import connect
    from websockets.exceptions import ConnectionClosed

    frame = "x" * size
    sent = 0
    ended = f"still open after {seconds:g} s"
    after: dict | None = None
    silent = None
    if during_play:
        started = asyncio.Event()
        silent = asyncio.ensure_future(_silent(url.replace("/flood", "/silent"), started))
        await asyncio.sleep(0.5)
    try:
        async with connect(url, ping_interval=None, max_size=None, close_timeout=1, compression=None) as ws:
            while during_play:  # play until seat 0 has played: the server then asks seat 1 (silent)
                msg = json.loads(await ws.recv())
                if msg["type"] == "act":
                    await ws.send(json.dumps({"actIndex": 0}))
                elif msg["stage"] == "play" and msg["curPos"] == 0:
                    break
            deadline = asyncio.get_running_loop().time() + seconds
            try:
                for _ in range(count):
                    left = deadline - asyncio.get_running_loop().time()
                    await asyncio.wait_for(ws.send(frame), max(left, 0.01))
                    sent += 1
                ended = "all sent, connection open"
            except TimeoutError:
                ended = f"blocked (server not reading) after {seconds:g} s"
            except ConnectionClosed as exc:
                rcvd = exc.rcvd
                ended = f"closed by the server: {rcvd.code} {rcvd.reason!r}" if rcvd else "closed"
            await asyncio.sleep(1.0)  # the server's own lines about the flood
            after = measure()
            ws.transport.abort()  # a blocked flood would wait for the server to read on
            await asyncio.sleep(0.1)
    except ConnectionClosed as exc:
        ended = f"closed: {exc}"
    if silent is not None:
        silent.cancel()
    return sent, ended, after or measure()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--size", type=int, default=4_000_000, help="bytes per frame")
    ap.add_argument("--seconds", type=float, default=20.0, help="longest the flood may take")
    ap.add_argument("--during-play", action="store_true", help="flood during a match, not before")
    args = ap.parse_args(argv)
    guandan = str(Path(sys.executable).with_name("guandan"))
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [
            guandan,
            "serve",
            "-s",
            "heuristic,remote",
            "--port",
            "0",
            "-o",
            f"{tmp}/run",
            "--timeout",
            "60",
        ]
        proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True)
        try:
            assert proc.stderr is not None
            line = proc.stderr.readline()
            port = re.search(r"ws://127\.0\.0\.1:(\d+)/", line)
            if port is None:
                print(f"serve did not say where it listens: {line!r}", file=sys.stderr)
                return 1
            time.sleep(0.5)
            before = _memory_kib(proc.pid)
            url = f"ws://127.0.0.1:{port.group(1)}/game/flood"
            measure = functools.partial(_memory_kib, proc.pid)
            flood = _flood(url, args.count, args.size, args.seconds, args.during_play, measure)
            sent, ended, after = asyncio.run(flood)
        finally:
            proc.terminate()
            said = proc.communicate(timeout=10)[1]
    for line in said.splitlines():
        print(f"  serve said: {line}")
    mib = 1024
    when = "during play" if args.during_play else "before the series"
    print(
        f"{args.count} x {args.size} B frames {when}: {sent} sent, {ended}; server RSS "
        f"{before['VmRSS'] / mib:.0f} -> {after['VmRSS'] / mib:.0f} MiB (peak {after['VmHWM'] / mib:.0f} MiB)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Start `guandan table` as a person would (a subprocess) and talk to it over its WebSocket."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

GUANDAN = [sys.executable, "-c", "from guandan_cli.cli.app import main; main()"]


class TableProcess:
    """``guandan table ARGS --no-open --port 0``, its address read from its first lines."""

    def __init__(self, args: list[str], cwd: Path) -> None:
        self.proc = subprocess.Popen(
            [*GUANDAN, "table", *args, "--no-open", "--port", "0", "--delay", "0"],
            cwd=str(cwd),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
        self.lines: list[str] = []
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                raise AssertionError(f"guandan table ended: {self.proc.stderr.read()}")
            self.lines.append(line)
            m = re.search(r"the table: (http://\S+)", line)
            if m:
                self.url = m.group(1)
                self.ws_url = self.url.replace("http://", "ws://") + "ws"
                return
        raise AssertionError(f"no address printed: {self.lines}")

    def stop(self, sig: int = signal.SIGINT) -> tuple[int, str, str]:
        """Signal the server and return its exit code, the rest of its output and its errors."""
        self.proc.send_signal(sig)
        out, err = self.proc.communicate(timeout=30)
        return self.proc.returncode, out, err


def play_over_websocket(ws_url: str, until: str = "deal_over", answers: int | None = None) -> list[dict]:
    """Answer every question with the first legal option (its cards typed back; the first
    declaration when asked which) until a message of type ``until`` or ``answers`` answers;
    returns every message received."""
    from websockets.sync.client import connect

    got: list[dict] = []
    sent = 0
    with connect(ws_url) as ws:
        while True:
            message = json.loads(ws.recv(timeout=60))
            got.append(message)
            if message["type"] == until or (
                answers is not None and sent >= answers and message["type"] == "ask"
            ):
                return got
            if message["type"] == "ask":
                option = message["options"][0]
                text = " ".join(c["token"] for c in option["cards"])
                ws.send(json.dumps({"type": "answer", "text": text}))
                sent += 1
            elif message["type"] == "which":
                ws.send(json.dumps({"type": "which", "index": 1}))

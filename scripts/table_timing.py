"""How long the web table makes a person wait: a bot's move, a hint, a deal's review page.

Starts ``guandan table`` (``--delay 0``: the bots' own time only) as a person would, answers
every question over its WebSocket with the first legal option, and prints:

- the time from an answer to the next question (the three bots' moves in between), median
  and 90th percentile;
- the time of a hint (``--hint``: the bot whose advice ``H`` shows), median and 90th percentile;
- the time of deal 0's review page (``/review/0``, the review's default budget), once.

Usage::

    python scripts/table_timing.py --bots heuristic --hint search --deals 1
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request


def _quantiles(xs: list[float]) -> str:
    if not xs:
        return "none"
    xs = sorted(xs)
    p90 = xs[min(len(xs) - 1, int(0.9 * len(xs)))]
    return f"median {statistics.median(xs) * 1000:.0f} ms, 90% {p90 * 1000:.0f} ms, n={len(xs)}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bots", default="heuristic")
    parser.add_argument("--hint", default="search")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--hints", type=int, default=8, help="hints to time (the first questions)")
    args = parser.parse_args()
    from websockets.sync.client import connect

    out = os.path.join(tempfile.mkdtemp(), "g")
    proc = subprocess.Popen(
        [sys.executable, "-c", "from guandan_cli.cli.app import main; main()", "table", "--no-open", "--port", "0",
         "--delay", "0", "-s", args.bots, "--hint", args.hint, "--seed", str(args.seed), "--max-deals", "1", "--out", out],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    url = None
    while url is None:
        line = proc.stdout.readline()
        if not line:
            raise SystemExit(proc.stderr.read())
        m = re.search(r"the table: (http://\S+)", line)
        url = m.group(1) if m else None
    moves, hints = [], []
    try:
        with connect(url.replace("http://", "ws://") + "ws") as ws:
            sent = None
            while True:
                m = json.loads(ws.recv(timeout=600))
                if m["type"] == "match_over":
                    break
                if m["type"] != "ask":
                    continue
                if sent is not None:
                    moves.append(time.monotonic() - sent)
                if len(hints) < args.hints and m["phase"] == "play":
                    t0 = time.monotonic()
                    ws.send(json.dumps({"type": "hint"}))
                    while json.loads(ws.recv(timeout=600))["type"] != "hint":
                        pass
                    hints.append(time.monotonic() - t0)
                text = " ".join(c["token"] for c in m["options"][0]["cards"])
                ws.send(json.dumps({"type": "answer", "text": text}))
                sent = time.monotonic()
        t0 = time.monotonic()
        with urllib.request.urlopen(url + "review/0", timeout=1200) as page:
            page.read()
        review = time.monotonic() - t0
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    print(f"bots {args.bots}, hint {args.hint}, seed {args.seed}, load {os.getloadavg()[0]:.1f}")
    print(f"answer -> next question: {_quantiles(moves)}")
    print(f"hint ({args.hint}): {_quantiles(hints)}")
    print(f"review page of deal 0 (default budget): {review:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

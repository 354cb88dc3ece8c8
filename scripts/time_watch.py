"""Time ``guandan watch`` of a whole match written to a file (issue 30: it waited its 1 s delay
per action there, 7 min 28 s for this match; now it does not pause off a terminal).

    python scripts/time_watch.py            # 3 runs of the README's command, median printed
    python scripts/time_watch.py --seed 2 --strategies heuristic --repeat 5

Each run is ``guandan watch --seed S -s STRATEGIES --plain > FILE`` (stdout a file, stdin
/dev/null); it prints each wall time, the median, and the frames and lines written.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--strategies", default="heuristic,greedy")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    guandan = shutil.which("guandan") or str(Path(sys.executable).with_name("guandan"))
    argv = [guandan, "watch", "--seed", str(args.seed), "-s", args.strategies, "--plain"]
    times = []
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "watch.txt"
        for _ in range(args.repeat):
            with out.open("w") as fh:
                t0 = time.perf_counter()
                subprocess.run(argv, stdout=fh, stdin=subprocess.DEVNULL, check=True)
                times.append(time.perf_counter() - t0)
            print(f"{times[-1]:.2f} s")
        text = out.read_text(encoding="utf-8")
    frames = text.count("\n" + "-" * 72 + "\n") + text.startswith("-" * 72)
    print(f"median {statistics.median(times):.2f} s over {len(times)} runs of: {' '.join(argv[1:])} > FILE")
    print(f"{frames} frames, {text.count(chr(10))} lines, {len(text.encode())} bytes")


if __name__ == "__main__":
    main()

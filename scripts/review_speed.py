#!/usr/bin/env python
"""How long `guandan review` takes for one seat of one deal, on one core (the issue's target: <= 10 s).

Plays ``--deals`` first deals of heuristic matches, then reviews seat 0 of each at ``--worlds``
(default: review's) in this process and prints the CPU seconds per deal (median, max) and
per decision.

    python scripts/review_speed.py                  # 10 deals at the default budget
    python scripts/review_speed.py --deals 5 --worlds 64
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import guandan_cli  # noqa: E402
from guandan_cli.review import DEFAULT_WORLDS, load_deal, review_deal  # noqa: E402
from guandan_cli.review.evaluators import evaluator_maker  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=10)
    parser.add_argument("--worlds", type=int, default=DEFAULT_WORLDS)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--strategies", default="heuristic")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        run = Path(tmp) / "run"
        guandan_cli.simulate(
            args.deals,
            seed=args.seed,
            strategies=args.strategies,
            max_deals=1,
            workers=1,
            out=run,
            progress=False,
        )
        maker, described = evaluator_maker()
        seconds, decisions = [], 0
        for m in range(args.deals):
            logged = load_deal(run, m, 0)
            t0 = time.process_time()
            n = sum(1 for _ in review_deal(logged, maker, [0], worlds=args.worlds))
            seconds.append(time.process_time() - t0)
            decisions += n
            print(f"match {m}: {n} decisions in {seconds[-1]:.2f} s", file=sys.stderr)
    print(
        f"{described}, {args.worlds} worlds: {args.deals} deals (seat 0), {decisions} decisions; "
        f"per deal median {statistics.median(seconds):.2f} s, max {max(seconds):.2f} s; "
        f"per decision {sum(seconds) / decisions:.3f} s (CPU)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

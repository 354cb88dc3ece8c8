#!/usr/bin/env python
"""Strength and speed of the `search` strategy: the budget curve, the field, the speed.

Every figure is a deal-level duplicate comparison (``guandan compare A B --duplicate deal
--setups random``: each pair is one random deal setup played twice with the teams
swapped), so luck of the cards cancels within a pair; intervals are compare's (bootstrap
over pairs, 95%). Runs are stored under ``--out`` and reused while the code is the same,
so an interrupted measurement resumes where it stopped (rerun the same command).

    python scripts/search_strength.py --curve 8,16,32 --pairs 100     # deal share and levels/deal per budget
    python scripts/search_strength.py --field --pairs 100             # search and heuristic vs greedy and random
    python scripts/search_strength.py --target --pairs 300            # the issue's figure: search vs heuristic
    python scripts/search_strength.py --speed 40                      # s/decision per budget, rollouts/s

Targets (issue #27): ``search`` wins >= 58% of deals against ``heuristic`` with the 95%
interval above 50% (>= 300 pairs); median <= 0.3 s per decision on one core at the
default budget; rollouts/s within 2x of the heuristic's self-play deals/s; against
``greedy`` and ``random`` it gains more levels per deal than ``heuristic`` does.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from guandan_cli.bench import bench_deals, bench_search_lines  # noqa: E402
from guandan_cli.comparison import compare  # noqa: E402


def budget_spec(worlds: int) -> str:
    """The spec of the search strategy with ``worlds`` worlds (the default budget: ``search``).

    >>> budget_spec(16)
    'search:worlds=16'
    """
    from guandan_cli.strategies.search import SearchStrategy

    return "search" if worlds == SearchStrategy.worlds else f"search:worlds={worlds}"


def row(a: str, b: str, pairs: int, seed: int, workers: int, out: str) -> str:
    """One comparison as a table row: deal share and levels/deal with their intervals."""
    r = compare(a, b, pairs, seed, workers=workers, out=out, duplicate="deal", setups="random")
    lo, hi = r.deal_ci
    glo, ghi = r.level_gain_ci
    return (
        f"| {a} | {b} | {pairs} | {r.deal_rate:.1%} [{lo:.1%}, {hi:.1%}] "
        f"| {r.level_gain:+.2f} [{glo:+.2f}, {ghi:+.2f}] |"
    )


HEADER = "| A | B | deal pairs | A's deals [95%] | levels/deal [95%] |\n|---|---|---|---|---|"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--curve", default="", help="comma-separated worlds budgets, each vs heuristic")
    ap.add_argument("--field", action="store_true", help="search and heuristic vs greedy and random")
    ap.add_argument("--target", action="store_true", help="search (default budget) vs heuristic")
    ap.add_argument("--speed", type=int, default=0, help="seeded decisions per budget for the speed figures")
    ap.add_argument("--pairs", type=int, default=100, help="deal pairs per comparison")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--out", default="runs/search-strength", help="where the comparisons' runs are kept")
    args = ap.parse_args(argv)
    if not (args.curve or args.field or args.target or args.speed):
        ap.error("nothing to measure: give --curve, --field, --target or --speed")
    budgets = [int(w) for w in args.curve.split(",") if w.strip()]
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"load average {load:.2f} on {os.cpu_count()} cores; seed {args.seed}; {args.pairs} pairs each")
    rows = []
    if args.target:
        rows.append(row("search", "heuristic", args.pairs, args.seed, args.workers, args.out))
    for w in budgets:
        rows.append(row(budget_spec(w), "heuristic", args.pairs, args.seed, args.workers, args.out))
    if args.field:
        for a in ("search", "heuristic"):
            for b in ("greedy", "random"):
                rows.append(row(a, b, args.pairs, args.seed, args.workers, args.out))
    if rows:
        print(HEADER)
        for line in rows:
            print(line, flush=True)
    if args.speed:
        for w in budgets or [None]:
            spec = "search" if w is None else budget_spec(w)
            for line in bench_search_lines(spec, positions=args.speed, seed=1):
                print(line, flush=True)
        h = bench_deals("heuristic", 1, 40, 1)
        print(f"heuristic self-play: {h['deals'] / h['cpu_seconds']:.0f} deals per CPU-second (logging on)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

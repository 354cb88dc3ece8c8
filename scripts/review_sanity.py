#!/usr/bin/env python
"""Sanity of review's values: the mean loss per decision should rank random > greedy > heuristic >= search.

For each strategy X, ``--deals`` first deals of matches (``simulate -s X,heuristic
--max-deals 1``: X at seats 0 and 2) are played from the same seeds, so strategy X and strategy
Y are dealt the same cards in deal i. Seat 0's decisions are reviewed (``guandan_cli.review``,
``--worlds`` per decision). Per strategy: decisions, mistakes, mean loss per decision (total
loss / decisions) with a 95% bootstrap interval over deals; per neighbouring pair the gap
(X − Y) with a paired bootstrap interval (deals resampled together).

    python scripts/review_sanity.py                                  # 100 deals, all strategies
    python scripts/review_sanity.py --deals 20 --worlds 8 --jobs 2   # a quick look
    python scripts/review_sanity.py --out /tmp/sanity                # runs and reviews kept there

Results are written to ``OUT/results.json`` (per deal: strategy, decisions, mistakes, loss).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import guandan_cli  # noqa: E402
from guandan_cli.review.evaluators import search_available  # noqa: E402

ORDER = ("random", "greedy", "heuristic", "search")


def review_one(args: tuple[str, int, int, int, str | None]) -> dict:
    """Seat 0's review of deal 0 of match ``match`` of ``run``: decisions, mistakes, total loss."""
    from guandan_cli.review import review

    run, match, worlds, seed, evaluator = args
    df = review(run, match=match, deal=0, seats=[0], worlds=worlds, seed=seed, evaluator=evaluator)
    return {
        "match": match,
        "decisions": df.height,
        "mistakes": int(df["mistake"].sum()) if df.height else 0,
        "loss": float(df["loss"].sum()) if df.height else 0.0,
    }


def ratio(rows: list[dict], idx: list[int]) -> float:
    n = sum(rows[i]["decisions"] for i in idx)
    return sum(rows[i]["loss"] for i in idx) / n if n else float("nan")


def bootstrap(stat, n: int, resamples: int, seed: int) -> tuple[float, float]:
    """A 95% percentile interval of ``stat(indices)`` over ``resamples`` resamples of ``n`` deals."""
    rng = random.Random(seed)
    values = sorted(stat([rng.randrange(n) for _ in range(n)]) for _ in range(resamples))
    return values[int(0.025 * resamples)], values[int(0.975 * resamples) - 1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--worlds", type=int, default=None, help="worlds per decision (default: review's)")
    parser.add_argument("--strategies", default=",".join(ORDER))
    parser.add_argument("--seed", type=int, default=2028)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--evaluator", default=None, help="search or rollout (default: search if installed)")
    parser.add_argument("--out", type=Path, default=Path("runs/review-sanity"))
    parser.add_argument("--resamples", type=int, default=4000)
    args = parser.parse_args()
    from guandan_cli.review import DEFAULT_WORLDS

    worlds = args.worlds or DEFAULT_WORLDS
    names = [s for s in args.strategies.split(",") if s != "search" or search_available()]
    if len(names) < len(args.strategies.split(",")):
        print("search is not installed: left out", file=sys.stderr)
    args.out.mkdir(parents=True, exist_ok=True)
    results: dict[str, list[dict]] = {}
    for name in names:
        t0 = time.monotonic()
        run = args.out / f"{name}-s{args.seed}-n{args.deals}"
        guandan_cli.simulate(
            args.deals,
            seed=args.seed,
            strategies=f"{name},heuristic",
            max_deals=1,
            workers=args.jobs,
            out=run,
            progress=False,
            resume=run.exists(),
        )
        tasks = [(str(run), m, worlds, args.seed, args.evaluator) for m in range(args.deals)]
        if args.jobs > 1:
            with ProcessPoolExecutor(args.jobs) as pool:
                rows = list(pool.map(review_one, tasks))
        else:
            rows = [review_one(t) for t in tasks]
        results[name] = rows
        n = sum(r["decisions"] for r in rows)
        print(
            f"{name}: {args.deals} deals, {n} decisions reviewed in {time.monotonic() - t0:.0f} s",
            file=sys.stderr,
        )
    (args.out / "results.json").write_text(
        json.dumps({"worlds": worlds, "seed": args.seed, "results": results})
    )

    print(
        f"seat 0's decisions, {args.deals} deals (first deals, X at seats 0/2 vs heuristic), {worlds} worlds"
    )
    print(f"{'strategy':<10} {'decisions':>9} {'mistakes':>9} {'mean loss/decision':>19}  95% interval")
    for name in names:
        rows = results[name]
        all_idx = list(range(len(rows)))
        lo, hi = bootstrap(lambda idx, rows=rows: ratio(rows, idx), len(rows), args.resamples, args.seed)
        dec = sum(r["decisions"] for r in rows)
        mis = sum(r["mistakes"] for r in rows)
        print(f"{name:<10} {dec:>9} {mis:>9} {ratio(rows, all_idx):>19.4f}  [{lo:.4f}, {hi:.4f}]")
    print()
    print("gap (mean loss per decision, paired by deal)")
    for a, b in zip(names, names[1:]):
        ra, rb = results[a], results[b]
        gap = ratio(ra, list(range(len(ra)))) - ratio(rb, list(range(len(rb))))
        lo, hi = bootstrap(
            lambda idx, ra=ra, rb=rb: ratio(ra, idx) - ratio(rb, idx), len(ra), args.resamples, args.seed
        )
        verdict = "above 0" if lo > 0 else "below 0" if hi < 0 else "includes 0"
        print(f"{a} - {b}: {gap:+.4f}  [{lo:+.4f}, {hi:+.4f}]  ({verdict})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

#!/usr/bin/env python
"""Sanity of review's values: the mean loss per decision should rank random > greedy > heuristic >= search.

Each deal seats all four strategies at one table (``simulate -s A,B,C,D --max-deals 1``: seat i
plays the i-th name), cycling through the 24 seatings so that every strategy sits at every
seat, with every partner, equally often; every seat of every deal is reviewed
(``guandan_cli.review``, ``--worlds`` per decision), each seat's own decisions by the seat's own
view. Per strategy: decisions, mistakes, the mean loss per decision (total loss / decisions)
with a 95% bootstrap interval over deals; per neighbouring pair the gap (X − Y) with a paired
bootstrap interval (the four strategies of a deal resampled together).

    python scripts/review_sanity.py                                  # 120 deals (5 per seating)
    python scripts/review_sanity.py --deals 100 --worlds 8           # 4 or 5 per seating
    python scripts/review_sanity.py --deals 24 --worlds 8 --jobs 2   # a quick look
    nice -n 10 python scripts/review_sanity.py --out /tmp/sanity     # runs and reviews kept there

Each deal's review is appended to ``OUT/reviews.jsonl`` as it ends (a rerun skips those done;
``--report`` prints the table from what is there).
"""

from __future__ import annotations

import argparse
import itertools
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

ORDER = ("random", "greedy", "heuristic", "search")


def review_one(args: tuple[str, int, int, int, int]) -> dict:
    """Every seat's review of deal 0 of match ``match`` of run ``run``: per strategy decisions, mistakes, loss."""
    from guandan_cli.review import review

    run, seating, match, worlds, seed = args
    t0 = time.process_time()
    df = review(run, match=match, deal=0, worlds=worlds, seed=seed)
    per = {}
    for seat in range(4):
        mine = df.filter(df["seat"] == seat)
        name = mine["strategy"][0] if mine.height else None
        if name is not None:
            per[name] = {
                "seat": seat,
                "decisions": mine.height,
                "mistakes": int(mine["mistake"].sum()),
                "loss": float(mine["loss"].sum()),
            }
    return {"seating": seating, "match": match, "cpu": time.process_time() - t0, "strategies": per}


def seating_reviews(job: tuple) -> list[dict]:
    """Simulate one seating's deals (one process; a stopped run resumes) and review those not done."""
    run, k, seating, count, worlds, seed, done = job
    if not any(Path(run).glob("deals-*.jsonl")):  # played already (its first ``count`` matches are read)
        guandan_cli.simulate(
            count,
            seed=seed + k,
            strategies=",".join(seating),
            max_deals=1,
            workers=1,
            out=run,
            progress=False,
            resume=Path(run).exists(),
        )
    return [review_one((run, k, m, worlds, seed)) for m in range(count) if (k, m) not in done]


def ratio(rows: list[dict], name: str, idx) -> float:
    n = sum(rows[i]["strategies"].get(name, {}).get("decisions", 0) for i in idx)
    loss = sum(rows[i]["strategies"].get(name, {}).get("loss", 0.0) for i in idx)
    return loss / n if n else float("nan")


def bootstrap(stat, n: int, resamples: int, seed: int) -> tuple[float, float]:
    """A 95% percentile interval of ``stat(indices)`` over ``resamples`` resamples of ``n`` deals."""
    rng = random.Random(seed)
    values = sorted(stat([rng.randrange(n) for _ in range(n)]) for _ in range(resamples))
    return values[int(0.025 * resamples)], values[int(0.975 * resamples) - 1]


def report(rows: list[dict], names: list[str], worlds: int, resamples: int, seed: int) -> None:
    everything = range(len(rows))
    print(f"{len(rows)} deals, every seat reviewed, {worlds} worlds per decision (search's evaluate)")
    print(f"{'strategy':<10} {'decisions':>9} {'mistakes':>9} {'mean loss/decision':>19}  95% interval")
    for name in names:
        lo, hi = bootstrap(lambda idx, name=name: ratio(rows, name, idx), len(rows), resamples, seed)
        dec = sum(r["strategies"].get(name, {}).get("decisions", 0) for r in rows)
        mis = sum(r["strategies"].get(name, {}).get("mistakes", 0) for r in rows)
        print(f"{name:<10} {dec:>9} {mis:>9} {ratio(rows, name, everything):>19.4f}  [{lo:.4f}, {hi:.4f}]")
    print()
    print("gap (mean loss per decision, paired by deal)")
    for a, b in zip(names, names[1:]):
        gap = ratio(rows, a, everything) - ratio(rows, b, everything)
        lo, hi = bootstrap(
            lambda idx, a=a, b=b: ratio(rows, a, idx) - ratio(rows, b, idx), len(rows), resamples, seed
        )
        verdict = "above 0" if lo > 0 else "below 0" if hi < 0 else "includes 0"
        print(f"{a} - {b}: {gap:+.4f}  [{lo:+.4f}, {hi:+.4f}]  ({verdict})")
    cpu = sorted(r["cpu"] for r in rows)
    print(f"\nCPU per deal reviewed (4 seats): median {cpu[len(cpu) // 2]:.1f} s, max {cpu[-1]:.1f} s")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--deals",
        type=int,
        default=120,
        help="deals (a multiple of 24 seats all evenly; else the first seatings play one more)",
    )
    parser.add_argument("--worlds", type=int, default=None, help="worlds per decision (default: review's)")
    parser.add_argument("--strategies", default=",".join(ORDER), help="four names, best expected last")
    parser.add_argument("--seed", type=int, default=2028)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--out", type=Path, default=Path("runs/review-sanity"))
    parser.add_argument("--resamples", type=int, default=4000)
    parser.add_argument("--report", action="store_true", help="only print the table of the reviews done")
    parser.add_argument(
        "--seatings", default=None, help="only these seatings, e.g. 19-23 (a second process on the same OUT)"
    )
    args = parser.parse_args()
    from guandan_cli.review import DEFAULT_WORLDS

    worlds = args.worlds or DEFAULT_WORLDS
    names = args.strategies.split(",")
    if len(names) != 4 or len(set(names)) != 4:
        parser.error("--strategies needs four different names")
    seatings = list(itertools.permutations(names))
    base, extra = divmod(args.deals, len(seatings))  # the first ``extra`` seatings play one more
    args.out.mkdir(parents=True, exist_ok=True)
    done_file = args.out / "reviews.jsonl"
    rows = [json.loads(x) for x in done_file.read_text().splitlines()] if done_file.exists() else []
    rows = list({(r["seating"], r["match"]): r for r in rows}.values())  # two processes may both review one
    lo, hi = (int(x) for x in args.seatings.split("-")) if args.seatings else (0, len(seatings) - 1)
    if not args.report:
        done = {(r["seating"], r["match"]) for r in rows}
        jobs = []
        for k, seating in enumerate(seatings):
            count = base + (k < extra)
            if lo <= k <= hi and count > 0 and any((k, m) not in done for m in range(count)):
                jobs.append(
                    (
                        str(args.out / f"seating{k:02d}-s{args.seed}"),
                        k,
                        seating,
                        count,
                        worlds,
                        args.seed,
                        done,
                    )
                )
        t0 = time.monotonic()
        with done_file.open("a") as f:
            pool = ProcessPoolExecutor(args.jobs) if args.jobs > 1 else None
            results = pool.map(seating_reviews, jobs) if pool is not None else map(seating_reviews, jobs)
            for i, found in enumerate(results, 1):
                for row in found:
                    f.write(json.dumps(row) + "\n")
                    rows.append(row)
                f.flush()
                print(f"{i}/{len(jobs)} seatings reviewed, {time.monotonic() - t0:.0f} s", file=sys.stderr)
            if pool is not None:
                pool.shutdown()
    report(rows, names, worlds, args.resamples, args.seed)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

#!/usr/bin/env python
"""Does a review's verdict survive a change of seed? Flags and labels under two ``--seed`` values.

Plays ``--deals`` deals of heuristic self-play (``simulate -s heuristic --max-deals 1``, one deal
per match, the matches' own seeds), reviews every seat of every deal at ``--worlds`` (the
default budget) once with each of the two ``--seeds``, and prints:

- of the decisions flagged (labelled ``mistake``) under either seed, the share flagged under
  both (the issue's target: at least 80%);
- the share of all decisions that get the same label (ok, unclear, mistake) under both seeds
  (target: at least 97%);
- the labels' counts, and the CPU seconds of one deal's review (four seats, one seed):
  median and max.

    python scripts/review_agreement.py --deals 50 --jobs 2 --out /tmp/agree
    python scripts/review_agreement.py --out /tmp/agree --report     # the figures of what is done

Each deal's reviews are appended to ``OUT/reviews.jsonl`` as they end (a rerun skips the deals
done, so a stopped run goes on where it stopped).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def review_one(job: tuple[str, int, int, int]) -> dict:
    """Every seat's review of match ``match``'s deal under ``seed``: the labels and the CPU time."""
    from guandan_cli.review import load_deal, review_deal
    from guandan_cli.review.evaluators import evaluator_maker

    run, match, worlds, seed = job
    t0 = time.process_time()
    logged = load_deal(run, match, 0)
    maker, _ = evaluator_maker(logged.setup.rules)
    rows = [
        [r.index, r.seat, str(r.label), round(r.loss, 4), r.loss_worlds]
        for r in review_deal(logged, maker, range(4), worlds=worlds, seed=seed)
    ]
    return {"match": match, "seed": seed, "cpu": time.process_time() - t0, "rows": rows}


def report(lines: list[dict], seeds: tuple[int, int], worlds: int) -> None:
    by = {(x["match"], x["seed"]): x for x in lines}
    matches = sorted({m for m, s in by if all((m, t) in by for t in seeds)})
    a_seed, b_seed = seeds
    both = either = same = total = 0
    labels: Counter = Counter()
    longer = 0
    for m in matches:
        a = {(r[0], r[1]): r for r in by[(m, a_seed)]["rows"]}
        b = {(r[0], r[1]): r for r in by[(m, b_seed)]["rows"]}
        assert a.keys() == b.keys(), f"match {m}: the two reviews hold different decisions"
        for key in a:
            la, lb = a[key][2], b[key][2]
            total += 1
            same += la == lb
            flagged = (la == "mistake", lb == "mistake")
            both += all(flagged)
            either += any(flagged)
            labels[(la, lb)] += 1
            longer += (a[key][4] > worlds) + (b[key][4] > worlds)
    cpu = [by[(m, s)]["cpu"] for m in matches for s in seeds]
    print(
        f"{len(matches)} deals of heuristic self-play, every seat reviewed under --seed {a_seed} and --seed {b_seed}"
    )
    print(f"decisions: {total}")
    if not total:
        return
    print(
        f"flagged under either seed: {either}; under both: {both} "
        f"({100 * both / max(1, either):.1f}% of the flags survive the change of seed; target >= 80%)"
    )
    print(f"same label under both seeds: {same} ({100 * same / total:.2f}% of the decisions; target >= 97%)")
    names = ("ok", "unclear", "mistake")
    print(f"labels (rows: seed {a_seed}, columns: seed {b_seed}):")
    print("           " + "".join(f"{n:>9}" for n in names))
    for la in names:
        print(f"  {la:<9}" + "".join(f"{labels[(la, lb)]:>9}" for lb in names))
    print(
        f"reviews given more worlds than the first {worlds} (close calls), over both seeds: {longer} of {2 * total}"
    )
    print(
        f"CPU seconds per deal reviewed (4 seats, one seed): median {statistics.median(cpu):.1f}, "
        f"max {max(cpu):.1f} ({len(cpu)} reviews)"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deals", type=int, default=50)
    ap.add_argument("--worlds", type=int, default=32)
    ap.add_argument("--seeds", type=int, nargs=2, default=(1, 2))
    ap.add_argument("--run-seed", type=int, default=0, help="seed of the self-play run")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", type=Path, default=Path("/tmp/review-agreement"))
    ap.add_argument(
        "--report", action="store_true", help="print the figures of the reviews done, review nothing"
    )
    args = ap.parse_args()
    seeds = tuple(args.seeds)
    store = args.out / "reviews.jsonl"
    done = [json.loads(x) for x in store.read_text().splitlines()] if store.exists() else []
    if not args.report:
        import guandan_cli

        run = args.out / "run"
        if not run.exists():
            guandan_cli.simulate(
                args.deals,
                seed=args.run_seed,
                strategies="heuristic",
                max_deals=1,
                workers=1,
                out=run,
                progress=False,
            )
        have = {(x["match"], x["seed"]) for x in done}
        jobs = [(str(run), m, args.worlds, s) for m in range(args.deals) for s in seeds if (m, s) not in have]
        with ProcessPoolExecutor(args.jobs) as pool, store.open("a") as out:
            for line in pool.map(review_one, jobs):
                out.write(json.dumps(line) + "\n")
                out.flush()
                done.append(line)
    report(done, seeds, args.worlds)


if __name__ == "__main__":
    main()

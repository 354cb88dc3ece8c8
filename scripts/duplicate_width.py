#!/usr/bin/env python
"""Interval widths of match-level vs deal-level duplicates at equal CPU time (issue 10).

For each pairing, ``compare`` runs once per mode on one core (``workers=1``, so the
process CPU time is the comparison's): match-level with ``--match-pairs`` seed pairs,
deal-level with ``--deal-pairs`` setup pairs (``--setups``, fresh by default). Widths of
95% intervals shrink as 1/√n, so each deal-level width is rescaled to the match-level
run's CPU time: ``w_deal × √(t_deal / t_match)``. Also printed: how many deals (and how
much CPU time) deal-level needs for the match-level width, as a share of match-level's.

    python scripts/duplicate_width.py                      # both pairings, default sizes
    python scripts/duplicate_width.py --match-pairs 60 --deal-pairs 600 --setups random

Pairings: (a) the example bot ``examples/compare_my_bot.py:PairFirst`` vs ``greedy``;
(b) ``heuristic`` vs ``scripts/weak_heuristic.py:NoEarlyBombs`` (never bombs before an
opponent is near out). The figures are measured, never asserted: no timed test.
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from guandan_cli.comparison import compare  # noqa: E402
from guandan_cli.stats import bootstrap_ratio_interval  # noqa: E402

PAIRINGS = {
    "a": (str(ROOT / "examples/compare_my_bot.py") + ":PairFirst", "greedy"),
    "b": ("heuristic", str(ROOT / "scripts/weak_heuristic.py") + ":NoEarlyBombs"),
}


def measure(a: str, b: str, mode: str, pairs: int, seed: int, setups: str, out: Path) -> dict:
    t0 = time.process_time()
    w0 = time.perf_counter()
    res = compare(
        a,
        b,
        matches=pairs,
        seed=seed,
        workers=1,
        out=out,
        duplicate=mode,
        setups=setups,
        force=True,
        notify=None,
    )
    cpu = time.process_time() - t0
    wall = time.perf_counter() - w0
    p = res.pairs
    deals = p["deals"].to_list()
    glo, ghi = res.level_gain_ci
    # the deal win rate's interval resampling pairs, in both modes
    dlo, dhi = bootstrap_ratio_interval(p["a_deal_wins"].to_list(), deals, seed=seed)
    pairing = None
    if mode == "deal":  # variance of a pair's sum against two independent deals' (1 = no gain)
        import statistics

        g = []
        for run, team in zip(res.runs, (0, 1)):
            d = run.deals().sort("match")
            g.append([u if w == team else -u for w, u in zip(d["winner_team"], d["upgrade"])])
        sums = [x + y for x, y in zip(*g)]
        pairing = statistics.pvariance(sums) / (statistics.pvariance(g[0]) + statistics.pvariance(g[1]))
    return {
        "pairing": pairing,
        "mode": mode,
        "pairs": pairs,
        "deals": res.deals,
        "cpu": cpu,
        "wall": wall,
        "gain": res.level_gain,
        "gain_width": ghi - glo,
        "deal_rate": res.deal_rate,
        "deal_width": dhi - dlo,
        "verdict": res.verdict(),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pairings", default="a,b", help="a (example bot vs greedy), b (heuristic vs weakened)")
    ap.add_argument("--match-pairs", type=int, default=40, help="match-level seed pairs (default 40)")
    ap.add_argument("--deal-pairs", type=int, default=400, help="deal-level setup pairs (default 400)")
    ap.add_argument("--setups", default="fresh", help="deal-level setup source: fresh, random or a run dir")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    print(
        f"match-level: {args.match_pairs} seed pairs; deal-level: {args.deal_pairs} {args.setups} setup pairs; one core"
    )
    with tempfile.TemporaryDirectory(prefix="guandan-width-") as tmp:
        for key in args.pairings.split(","):
            a, b = PAIRINGS[key]
            m = measure(a, b, "match", args.match_pairs, args.seed, args.setups, Path(tmp))
            d = measure(a, b, "deal", args.deal_pairs, args.seed, args.setups, Path(tmp))
            print(f"\n({key}) {Path(a).name} vs {Path(b).name}")
            for r in (m, d):
                print(
                    f"  {r['mode']:>5}-level: {r['deals']:>5} deals in {r['cpu']:6.1f} s CPU ({r['wall']:.1f} s wall): "
                    f"level gain {r['gain']:+.3f}/deal, 95% width {r['gain_width']:.3f}; "
                    f"deal win {r['deal_rate']:.1%}, width {r['deal_width']:.3f}"
                )
                print(f"      {r['verdict']}")
            print(
                f"  deal pairs vs unpaired deals: a pair's level-gain variance is {d['pairing']:.2f}x "
                "that of two independent deals: deal pairs need that share of the deals unpaired deals need"
            )
            scale = math.sqrt(d["cpu"] / m["cpu"])
            for what in ("gain_width", "deal_width"):
                wd_equal = d[what] * scale
                deals_needed = d["deals"] * (d[what] / m[what]) ** 2
                cpu_needed = d["cpu"] * (d[what] / m[what]) ** 2
                name = "level gain" if what == "gain_width" else "deal win rate"
                print(
                    f"  {name}: width at equal CPU time {m[what]:.3f} (match) vs {wd_equal:.3f} (deal) = "
                    f"{wd_equal / m[what]:.2f}x; deal-level needs {deals_needed / m['deals']:.2f}x the deals "
                    f"and {cpu_needed / m['cpu']:.2f}x the CPU time for the same width"
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())

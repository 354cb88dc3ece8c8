#!/usr/bin/env python
"""Measure bot strength and speed: match win rates with Wilson 95% intervals, and deals/s.

Each pairing ``A:B`` plays ``--matches`` full matches on the same seeds: half with A at
seats 0/2 and half with A at seats 1/3 (seed ``i`` is played both ways). A match capped
by ``--max-deals`` counts as not won. Then ``--speed-deals`` deals of A-vs-A self-play
are timed on one core (process CPU time; wall time shown beside it).

    python scripts/strength.py                       # heuristic vs random and vs greedy, 400 each
    python scripts/strength.py --pairings heuristic:greedy --matches 1000 --jobs 2
    python scripts/strength.py --check               # exit 1 if a target is missed

Targets (issue #4): heuristic wins >= 95% vs random and >= 70% vs greedy (the lower end of
the interval is shown too), heuristic self-play >= 50 deals/s on one core.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from guandan_cli.strategies import make_players  # noqa: E402

from guandan_cli.engine.match import Match  # noqa: E402
from guandan_cli.engine.play import iter_match  # noqa: E402
from guandan_cli.engine.rules import get_ruleset  # noqa: E402
from guandan_cli.stats import wilson_interval  # noqa: E402

TARGETS = {("heuristic", "random"): 0.95, ("heuristic", "greedy"): 0.70}
SPEED_TARGET = 50.0


def play_one(args: tuple[str, str, int, int, int, str]) -> tuple[int, int, int, int, int]:
    """(A seats' team won?, capped?, deals, deals A won, seconds*1000) of one match."""
    a, b, seed, a_team, max_deals, rules = args
    names = [a, b, a, b] if a_team == 0 else [b, a, b, a]
    match = Match(seed, get_ruleset(rules, max_deals=max_deals))
    t0 = time.process_time()
    deals = won = 0
    for played in iter_match(match, make_players(names, seed)):
        deals += 1
        won += played.deal.result.winner_team == a_team
    ms = int((time.process_time() - t0) * 1000)
    return int(match.winner == a_team), int(match.capped), deals, won, ms


def run_pairing(a: str, b: str, matches: int, seed: int, jobs: int, max_deals: int, rules: str) -> dict:
    half = matches // 2
    tasks = [(a, b, seed + i, team, max_deals, rules) for i in range(half) for team in (0, 1)]
    if jobs > 1:
        with ProcessPoolExecutor(jobs) as pool:
            results = list(pool.map(play_one, tasks, chunksize=4))
    else:
        results = [play_one(t) for t in tasks]
    n = len(results)
    wins = sum(r[0] for r in results)
    by_seats = [sum(r[0] for r, t in zip(results, tasks) if t[3] == team) for team in (0, 1)]
    lo, hi = wilson_interval(wins, n)
    deals = sum(r[2] for r in results)
    dwon = sum(r[3] for r in results)
    dlo, dhi = wilson_interval(dwon, deals)
    return {
        "a": a,
        "b": b,
        "matches": n,
        "wins": wins,
        "rate": wins / n if n else 0.0,
        "ci": (lo, hi),
        "by_seats": by_seats,
        "capped": sum(r[1] for r in results),
        "deals": deals,
        "deals_won": dwon,
        "deal_ci": (dlo, dhi),
        "cpu_s": sum(r[4] for r in results) / 1000,
    }


class _Timed:
    """Wraps a player to time its decisions (thread CPU time, so other processes do not count)."""

    def __init__(self, inner, times: list[float]) -> None:
        self.inner = inner
        self.seat = inner.seat
        self.name = inner.name
        self.times = times

    def start_deal(self, deal_index, obs):
        return self.inner.start_deal(deal_index, obs)

    def _timed(self, fn, obs):
        t0 = time.thread_time()
        out = fn(obs)
        self.times.append(time.thread_time() - t0)
        return out

    def choose_tribute(self, obs):
        return self._timed(self.inner.choose_tribute, obs)

    def choose_return(self, obs):
        return self._timed(self.inner.choose_return, obs)

    def choose_play(self, obs):
        return self._timed(self.inner.choose_play, obs)


def speed(name: str, deals: int, seed: int, rules: str) -> dict:
    """Self-play deals per second of ``name`` on this (single) process, and decision times."""
    done = 0
    cpu0, wall0 = time.process_time(), time.perf_counter()
    i = 0
    while done < deals:
        match = Match(seed + 100_000 + i, get_ruleset(rules))
        for _ in iter_match(match, make_players([name] * 4, match.seed)):
            done += 1
            if done >= deals:
                break
        i += 1
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    # decision times, on a separate (shorter) run so the wrapper does not slow the figure above
    times: list[float] = []
    match = Match(seed + 200_000, get_ruleset(rules, max_deals=max(1, deals // 10)))
    players = [_Timed(p, times) for p in make_players([name] * 4, match.seed)]
    for _ in iter_match(match, players):
        pass
    times.sort()
    return {
        "deals": done,
        "cpu_s": cpu,
        "wall_s": wall,
        "per_s_cpu": done / cpu if cpu else float("inf"),
        "per_s_wall": done / wall if wall else float("inf"),
        "decisions": len(times),
        "mean_ms": 1000 * sum(times) / len(times) if times else 0.0,
        "p99_ms": 1000 * times[int(0.99 * (len(times) - 1))] if times else 0.0,
        "max_ms": 1000 * times[-1] if times else 0.0,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pairings", default="heuristic:random,heuristic:greedy", help="A:B,A:B,...")
    ap.add_argument("--matches", type=int, default=400, help="matches per pairing (even; half each seating)")
    ap.add_argument("--seed", type=int, default=0, help="first match seed")
    ap.add_argument("--jobs", type=int, default=1, help="worker processes for the matches")
    ap.add_argument("--max-deals", type=int, default=1000, help="cap per match (a capped match is not a win)")
    ap.add_argument("--rules", default="cgr2022")
    ap.add_argument("--speed-deals", type=int, default=300, help="self-play deals to time (0: skip)")
    ap.add_argument("--speed-bot", default="heuristic")
    ap.add_argument("--check", action="store_true", help="exit 1 if a target of issue #4 is missed")
    args = ap.parse_args(argv)

    ok = True
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"load average {load:.2f} on {os.cpu_count()} cores; rules {args.rules}; seeds {args.seed}..")
    for pairing in filter(None, (p.strip() for p in args.pairings.split(","))):
        a, _, b = pairing.partition(":")
        r = run_pairing(a, b, args.matches, args.seed, args.jobs, args.max_deals, args.rules)
        lo, hi = r["ci"]
        dlo, dhi = r["deal_ci"]
        target = TARGETS.get((a, b))
        verdict = ""
        if target is not None:
            met = r["rate"] >= target
            ok &= met
            verdict = f"  target >= {target:.0%}: {'met' if met else 'MISSED'} (interval low end {lo:.1%})"
        print(
            f"{a} vs {b}: {r['wins']}/{r['matches']} matches won = {r['rate']:.1%} "
            f"[95% Wilson {lo:.1%}-{hi:.1%}]; at seats 0/2 {r['by_seats'][0]}/{r['matches'] // 2}, "
            f"at 1/3 {r['by_seats'][1]}/{r['matches'] // 2}; capped {r['capped']}"
        )
        print(
            f"    deals won {r['deals_won']}/{r['deals']} = {r['deals_won'] / max(1, r['deals']):.1%} "
            f"[{dlo:.1%}-{dhi:.1%}]; {r['cpu_s']:.1f} s CPU{verdict}"
        )
    if args.speed_deals > 0:
        s = speed(args.speed_bot, args.speed_deals, args.seed, args.rules)
        met = s["per_s_cpu"] >= SPEED_TARGET
        if args.speed_bot == "heuristic":
            ok &= met
        print(
            f"{args.speed_bot} self-play: {s['deals']} deals, {s['per_s_cpu']:.1f} deals/s on one core "
            f"(CPU time; {s['per_s_wall']:.1f}/s wall); target >= {SPEED_TARGET:.0f}: {'met' if met else 'MISSED'}"
        )
        print(
            f"    decisions: {s['decisions']} timed, mean {s['mean_ms']:.3f} ms, "
            f"p99 {s['p99_ms']:.2f} ms, max {s['max_ms']:.2f} ms"
        )
    return 0 if ok or not args.check else 1


if __name__ == "__main__":
    sys.exit(main())

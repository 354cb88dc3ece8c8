#!/usr/bin/env python
"""A per-decision proxy of the `search` bot's strength: record value matrices, replay rules on them.

A full strength figure (``guandan compare search heuristic --duplicate deal``) costs about
an hour of both cores per 300 pairs, too much to tune the race's options by. This proxy
takes decisions of heuristic self-play on random setups (``bench.searchable_decisions``, as
the bench's search line does) and records, per decision:

- the *true* value of each candidate (``candidate_actions``, the heuristic's move first):
  the deal played out from that position in the real world (the hands as they are), the
  heuristic at every seat, in levels for the deciding team;
- a *matrix* of sampled values: the same candidates played out in ``--worlds`` worlds
  drawn as the bot draws them (``worlds.Knowledge``, from the seat's observation only).

``--replay`` then runs the bot's own race (``SearchStrategy._race``, its options given as a
``search:`` spec) on the recorded matrices, the worlds taken in a random order (``--repeats``
orders per decision), and prints per spec the mean true gain per decision of the move the
race picks over the heuristic's move, with its standard error over decisions, the rollouts
per decision it spent, and the paired difference from the first spec. A rule that spends
more worlds than recorded is refused.

    python scripts/search_proxy.py --record runs/proxy/a.jsonl --decisions 300 --seed 1
    python scripts/search_proxy.py --replay runs/proxy/a.jsonl search search:worlds=64
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from guandan_cli.strategies.registry import load_strategy  # noqa: E402
from guandan_cli.strategies.search import SearchStrategy, candidate_actions  # noqa: E402
from guandan_cli.strategies.search.rollout import Rollouts  # noqa: E402
from guandan_cli.strategies.search.worlds import Knowledge  # noqa: E402

from guandan_cli.bench import searchable_decisions  # noqa: E402


def record(path: Path, count: int, seed: int, worlds: int, every: int) -> None:
    rollouts = Rollouts()
    rng = random.Random(seed)
    started = time.process_time()
    with path.open("w", encoding="utf-8") as out:
        for done, (obs, choice, hands) in enumerate(searchable_decisions(seed, every)):
            if done >= count:
                break
            cands = candidate_actions(obs, choice, 8)
            truth = rollouts.world_setup(obs, hands)
            knowledge = Knowledge.of(obs)
            row = {
                "true": [rollouts.value(obs, truth, a) for a in cands],
                "determined": knowledge.determined,
                "matrix": [[] for _ in cands],
            }
            for _ in range(1 if knowledge.determined else worlds):
                setup = rollouts.world_setup(obs, knowledge.sample(rng))
                for i, a in enumerate(cands):
                    row["matrix"][i].append(rollouts.value(obs, setup, a))
            out.write(json.dumps(row) + "\n")
            out.flush()
            if done % 20 == 0:
                print(f"{done + 1} decisions, {time.process_time() - started:.0f} s", flush=True)


class _Worlds:
    """Stands in for the bot's world draws: the recorded worlds' indexes, in a given order."""

    def __init__(self, order: list[int], determined: bool) -> None:
        self.order = order
        self.drawn = 0
        self.knowledge = type("K", (), {"determined": determined})()

    def __call__(self) -> int:
        self.drawn += 1
        return self.order[self.drawn - 1]


class _Matrix:
    """Stands in for the rollouts: a recorded value, counting the lookups."""

    def __init__(self, matrix: list[list[int]]) -> None:
        self.matrix = matrix
        self.count = 0

    def value(self, obs: object, world: int, action: int) -> int:
        self.count += 1
        return self.matrix[action][world]


def replay(path: Path, specs: list[str], repeats: int, seed: int, target: str) -> None:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    rows = [r for r in rows if not r["determined"]]
    width = min(len(r["matrix"][0]) for r in rows)
    results = []
    for spec in specs:
        cls = load_strategy(spec)
        most = max(cls.worlds, cls.duel)
        if most > width - (width // 4 if target == "heldout" else 0):
            sys.exit(f"search_proxy: {spec} spends up to {most} worlds, too many of the {width} in {path}")
        bot: SearchStrategy = cls(0, random.Random(0))
        rng = random.Random(seed)
        gains, cost = [], []
        for row in rows:
            cands = list(range(len(row["true"])))[: cls.candidates]
            g = c = 0.0
            for _ in range(repeats):
                order = rng.sample(range(width), width)
                matrix = _Matrix(row["matrix"])
                worlds = _Worlds(order, False)
                bot.rollouts = matrix
                bot._sampler = lambda obs, r, _w=worlds: _w
                pick = bot._race(None, cands)
                if target == "true":
                    g += row["true"][pick] - row["true"][0]
                else:  # the mean over the worlds the race did not draw
                    rest = order[worlds.drawn :]
                    g += sum(row["matrix"][pick][w] - row["matrix"][0][w] for w in rest) / len(rest)
                c += matrix.count
            gains.append(g / repeats)
            cost.append(c / repeats)
        results.append((spec, gains, cost))
    base = results[0][1]
    n = len(rows)
    print(f"{n} decisions (of {path}), {repeats} world orders each, {width} worlds recorded, target {target}")
    for spec, gains, cost in results:
        m, se = _mean_se(gains)
        dm, dse = _mean_se([a - b for a, b in zip(gains, base)])
        print(
            f"{spec:40s} gain {m:+.4f} ± {se:.4f}  vs first {dm:+.4f} ± {dse:.4f}"
            f"  rollouts/decision {sum(cost) / n:.0f} (median {sorted(cost)[n // 2]:.0f})"
        )


def _mean_se(xs: list[float]) -> tuple[float, float]:
    m = sum(xs) / len(xs)
    var = sum((x - m) ** 2 for x in xs) / max(1, len(xs) - 1)
    return m, math.sqrt(var / len(xs))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--record", type=Path, help="write value matrices to this JSON Lines file")
    ap.add_argument("--decisions", type=int, default=200)
    ap.add_argument("--worlds", type=int, default=128, help="sampled worlds per decision")
    ap.add_argument("--every", type=int, default=3, help="take every n-th searchable decision")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--replay", type=Path, nargs="+", help="a matrices file, then search specs")
    ap.add_argument("--repeats", type=int, default=20, help="world orders per decision (replay)")
    ap.add_argument(
        "--target",
        choices=("true", "heldout"),
        default="true",
        help="gain measured in the true world, or over the recorded worlds the race did not draw",
    )
    ns = ap.parse_args(argv)
    if ns.record:
        ns.record.parent.mkdir(parents=True, exist_ok=True)
        record(ns.record, ns.decisions, ns.seed, ns.worlds, ns.every)
    elif ns.replay:
        path, *specs = ns.replay
        replay(path, [str(s) for s in specs] or ["search"], ns.repeats, ns.seed, ns.target)
    else:
        ap.error("give --record FILE or --replay FILE SPEC...")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

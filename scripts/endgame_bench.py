"""How fast the two-seat race solver decides real end games (guandan_cli/engine/endgame.py).

Plays random deals with the heuristic at all four seats until exactly two seats hold cards
(random levels and first leaders, the two rulesets in turn), then solves that position: its
value (``Solver.wins``, what a decision needs first) and, with ``--moves``, every legal move
(``solve``). Prints, by the number of cards in the smaller hand, the positions, how many ran
past the node budget, the median, 90th percentile and largest CPU time (of this process: other
load on the machine changes it less than the time elapsed) and node count, and the
share decided within smaller budgets (the search is deterministic: the same nodes whatever
the budget, until it runs out).

    python scripts/endgame_bench.py --deals 300 --budget 200000 --within 25000 50000 100000
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from guandan_cli.strategies.heuristic import HeuristicStrategy
from guandan_cli.strategies.search.endgame import BudgetExceeded, Position, Solver, solve

from guandan_cli.engine import deal_hands
from guandan_cli.engine.deal import Deal, DealSetup
from guandan_cli.engine.observation import observe
from guandan_cli.engine.rules import get_ruleset

BUCKETS = ((1, 4), (5, 8), (9, 12), (13, 16), (17, 27))


def two_seat_positions(deals: int, seed: int):
    """The first two-seat position of each of ``deals`` heuristic deals that reach one."""
    for i in range(deals):
        rng = random.Random(seed * 1_000_003 + i)
        rules = get_ruleset(("cgr2022", "jiangsu2017")[i % 2])
        setup = DealSetup(
            hands=deal_hands(rng), level=rng.randrange(13), first_leader=rng.randrange(4), rules=rules
        )
        deal = Deal(setup)
        players = [HeuristicStrategy(s) for s in range(4)]
        for p in players:
            p.start_deal(0, observe(deal, p.seat))
        while deal.phase != "over" and len(deal.finished) < 2:
            s = deal.to_move
            deal.apply(players[s].choose_play(observe(deal, s)))
        position = Position.of_deal(deal)
        if position is not None:
            yield position


def measure(position: Position, budget: int, moves: bool) -> tuple[float, int, bool]:
    """(seconds, nodes, exceeded) of one position's value, or of all its moves with ``moves``."""
    start = time.process_time()
    if moves:
        result = solve(position, budget)
        return time.process_time() - start, result.nodes, result.exceeded
    solver = Solver(position.level, budget)
    try:
        solver.wins(*position.state())
        exceeded = False
    except BudgetExceeded:
        exceeded = True
    return time.process_time() - start, solver.nodes, exceeded


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--budget", type=int, default=200_000, help="node budget per position")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--moves", action="store_true", help="solve every legal move, not only the value")
    parser.add_argument(
        "--within",
        type=int,
        nargs="*",
        default=[25_000, 50_000, 100_000],
        help="budgets to report shares for",
    )
    args = parser.parse_args()
    rows: dict[tuple[int, int], list[tuple[float, int, bool]]] = {b: [] for b in BUCKETS}
    for position in two_seat_positions(args.deals, args.seed):
        small = min(map(len, position.hands))
        bucket = next(b for b in BUCKETS if b[0] <= small <= b[1])
        rows[bucket].append(measure(position, args.budget, args.moves))
    what = "every move" if args.moves else "the value"
    print(f"{what}, node budget {args.budget:,}, {args.deals} deals (seed {args.seed})")
    shares = "".join(f" {f'≤{b // 1000}k':>6}" for b in args.within)
    print(
        f"{'smaller hand':>12} {'n':>4} {'over':>4}  {'time median/p90/max (s)':>26}  {'nodes median/p90/max':>24} "
        f"{shares}"
    )
    for (lo, hi), xs in rows.items():
        if not xs:
            continue
        ts = [x[0] for x in xs]
        ns = [x[1] for x in xs]
        over = sum(x[2] for x in xs)
        print(
            f"{lo:>5}..{hi:<5} {len(xs):>4} {over:>4}  "
            f"{statistics.median(ts):>8.3f} {pct(ts, 0.9):>8.3f} {max(ts):>8.3f}  "
            f"{statistics.median(ns):>8.0f} {pct(ns, 0.9):>8.0f} {max(ns):>8.0f} "
            + "".join(f" {sum(n <= b for n in ns) / len(ns):>6.0%}" for b in args.within)
        )


if __name__ == "__main__":
    main()

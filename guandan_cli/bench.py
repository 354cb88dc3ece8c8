"""Benchmarks behind `guandan bench`: fixed seeded positions, median per call.

Figures: ``legal_plays`` lead/follow medians; start-up of ``guandan --help``,
``guandan plays`` and ``guandan simulate --help`` (whole processes, against the targets
of :data:`STARTUP_COMMANDS`, with the heavy modules each imported); self-play deals/s with one worker, logging on;
a parallel run (1 worker vs N) of the heuristic. To compare two versions of the code
side by side on a noisy machine, use ``scripts/bench_vs.py BASE_COMMIT``.
"""

from __future__ import annotations

import itertools
import random
import statistics
import time
from collections.abc import Iterator

from guandan_cli.engine import deal_hands, legal_plays


def _median_us(fn, args_list) -> float:
    times = []
    clock = time.perf_counter_ns
    for args in args_list:
        t0 = clock()
        fn(*args)
        times.append(clock() - t0)
    return statistics.median(times) / 1000.0


def legal_play_positions(positions: int, seed: int) -> tuple[list, list]:
    """Seeded positions: (hand, level) to lead from, and (hand, level, top) to follow."""
    rng = random.Random(seed)
    lead, follow = [], []
    for _ in range(positions):
        hands = deal_hands(rng)
        level = rng.randrange(13)
        lead.append((hands[0], level))
        tops = legal_plays(hands[1], level)
        follow.append((hands[0], level, rng.choice(tops)))
    return lead, follow


def bench_legal_plays(positions: int = 2000, seed: int = 1) -> Iterator[str]:
    lead, follow = legal_play_positions(positions, seed)
    _median_us(legal_plays, lead[:100])  # warm up
    lead_us = _median_us(legal_plays, lead)
    follow_us = _median_us(legal_plays, follow)
    n_lead = statistics.mean(len(legal_plays(*a)) for a in lead)
    n_follow = statistics.mean(len(legal_plays(*a)) for a in follow)
    yield f"legal_plays lead   (27 cards): median {lead_us:8.1f} µs  ({n_lead:.0f} plays on average, {positions} positions)"
    yield f"legal_plays follow (27 cards): median {follow_us:8.1f} µs  ({n_follow:.1f} plays on average, {positions} positions)"


def self_play_strategy() -> str:
    """``heuristic`` when it is importable, else ``greedy`` (the bench's second bot)."""
    from guandan_cli.strategies.registry import load_strategy

    try:
        load_strategy("heuristic")
    except Exception:  # noqa: BLE001 - not written yet, or broken: bench what exists
        return "greedy"
    return "heuristic"


def bench_deals(
    strategy: str = "random",
    workers: int = 1,
    matches: int = 40,
    seed: int = 1,
    max_deals: int | None = None,
    compression: str = "none",
) -> dict:
    """Deals per second of self-play by ``strategy`` through ``simulate`` (logging on).

    The run goes to a temporary directory; the time includes starting the workers.
    Returns ``strategy``, ``workers``, ``matches``, ``deals``, ``seconds``, ``deals_per_s``
    and ``cpu_seconds`` (this process and its finished workers: on a shared machine,
    ``deals / cpu_seconds`` is the throughput of one dedicated core).
    """
    import tempfile

    from guandan_cli.runner.simulation import simulate

    cpu0 = _cpu_seconds()
    with tempfile.TemporaryDirectory(prefix="guandan-bench-") as tmp:
        t0 = time.perf_counter()
        run = simulate(
            matches,
            seed=seed,
            strategies=strategy,
            workers=workers,
            max_deals=max_deals,
            compression=compression,
            out=f"{tmp}/run",
            progress=False,
        )
        seconds = time.perf_counter() - t0
        deals = run.counts["deals"]
    cpu = _cpu_seconds() - cpu0
    return {
        "strategy": strategy,
        "workers": workers,
        "matches": matches,
        "deals": deals,
        "seconds": seconds,
        "deals_per_s": deals / seconds if seconds > 0 else float("nan"),
        "cpu_seconds": cpu,
    }


def _cpu_seconds() -> float:
    """CPU time of this process plus its waited-for children (0 where unsupported)."""
    try:
        import resource
    except ImportError:  # pragma: no cover - not POSIX
        return 0.0
    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        ru = resource.getrusage(who)
        total += ru.ru_utime + ru.ru_stime
    return total


def bench_deal_lines(
    strategies: list[str] | None = None,
    workers: int | None = None,
    matches: int = 40,
    seed: int = 1,
    parallel_matches: int = 400,
) -> Iterator[str]:
    """Lines of ``guandan bench``: deals/s of each strategy with one worker, then the
    heuristic (else greedy) on ``parallel_matches`` matches with one worker and with ``workers``
    (skipped when ``parallel_matches`` is 0 or only one worker is available)."""
    from guandan_cli.runner.backends import default_workers

    workers = workers or default_workers()
    for strategy in strategies or ["random", self_play_strategy()]:
        one = bench_deals(strategy, 1, matches, seed)
        yield (
            f"deals/s {strategy:<10} 1 worker : {one['deals_per_s']:7.1f}"
            f"  ({one['deals']} deals in {one['seconds']:.1f} s, logging on;"
            f" {one['deals'] / one['cpu_seconds']:.1f} per CPU-second)"
        )
    if parallel_matches and workers > 1:
        strategy = self_play_strategy()
        one = bench_deals(strategy, 1, parallel_matches, seed)
        many = bench_deals(strategy, workers, parallel_matches, seed)
        speedup = many["deals_per_s"] / one["deals_per_s"]
        yield (
            f"parallel {strategy} x{parallel_matches} matches: 1 worker {one['deals_per_s']:.1f} deals/s,"
            f" {workers} workers {many['deals_per_s']:.1f} deals/s: speedup {speedup:.2f}x"
            f"  ({many['deals'] / many['cpu_seconds']:.1f} per CPU-second with {workers})"
        )


#: what the ``guandan`` console script runs
_CLI = "import sys; sys.argv[0] = 'guandan'; from guandan_cli.cli.app import main; sys.exit(main())"
#: the packages a quick command should not import (each costs more than the whole command)
HEAVY_MODULES = ("polars", "matplotlib", "numpy", "pydantic", "guandan_cli.runner")
#: the same, then says on stderr which of ``HEAVY_MODULES`` it imported
_CLI_PROBE = (
    "import atexit, sys\n"
    f"atexit.register(lambda: print(','.join(m for m in {HEAVY_MODULES!r} if m in sys.modules), file=sys.stderr))\n"
    + _CLI
)

#: the start-up figures: label, arguments of ``guandan``, the target in seconds (issue 36) or None
STARTUP_COMMANDS = (
    ("guandan --help", ["--help"], 0.25),
    ("guandan plays HAND", ["plays", "S3 H4 D4 C5 S5 H2 SB", "--level", "3"], 0.20),
    ("guandan simulate --help", ["simulate", "--help"], None),
)


def _heavy_imports(argv: list[str]) -> str:
    """The heavy modules that ``guandan ARGV`` imported, or "none"."""
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-c", _CLI_PROBE, *argv], capture_output=True, text=True)
    lines = proc.stderr.strip().splitlines()
    return (lines[-1] if lines else "") or "none"


def bench_startup_lines(repetitions: int = 5) -> Iterator[str]:
    """Median start-up (wall and CPU ms) of whole ``guandan`` processes, as the console script runs
    them, against the target where there is one, and the heavy modules each imported (none
    expected: commands import Polars, the runner and the rest inside their bodies)."""
    import resource
    import subprocess
    import sys

    for label, argv, target in STARTUP_COMMANDS:
        walls, cpus = [], []
        for _ in range(repetitions):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-c", _CLI, *argv], capture_output=True, check=True)
            walls.append(time.perf_counter() - t0)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        wall = statistics.median(walls)
        verdict = (
            ""
            if target is None
            else f" (target {target * 1000:.0f}: {'met' if wall <= target else 'MISSED'})"
        )
        yield (
            f"start-up {label}: median {wall * 1000:6.1f} ms wall{verdict},"
            f" {statistics.median(cpus) * 1000:6.1f} ms CPU ({repetitions} runs); heavy imports: {_heavy_imports(argv)}"
        )


def search_positions(count: int, seed: int) -> list:
    """``count`` play decisions worth searching (a choice among candidates), taken from
    heuristic self-play on random setups (every third such decision of a deal)."""
    return [obs for obs, _action, _hands in itertools.islice(searchable_decisions(seed), count)]


def searchable_decisions(seed: int, every: int = 3) -> Iterator[tuple]:
    """``(observation, the heuristic's move, the four hands)`` at every ``every``-th decision
    of a deal that the search would search (a choice among candidates: not a play that goes
    out, not a forced pass), in heuristic self-play of random setups ``seed``, 0, 1, ..."""
    from guandan_cli.engine.deal import PLAY, Deal
    from guandan_cli.engine.observation import observe
    from guandan_cli.engine.rules import get_ruleset
    from guandan_cli.runner.setups import random_setup
    from guandan_cli.strategies.heuristic import HeuristicStrategy
    from guandan_cli.strategies.search import candidate_actions

    rules = get_ruleset("cgr2022")
    for index in itertools.count():
        deal = Deal(random_setup(seed, index, rules).setup)
        players = [HeuristicStrategy(s) for s in range(4)]
        k = 0
        while deal.phase != "over":
            s = deal.to_move
            obs = observe(deal, s)
            p = players[s]
            if deal.phase != PLAY:
                deal.apply(p.choose_tribute(obs) if deal.phase == "tribute" else p.choose_return(obs))
                continue
            action = p.choose_play(obs)
            forced = obs.top is not None and obs.only_legal_action() is not None
            if len(action[2]) < len(obs.hand) and not forced and len(candidate_actions(obs, action, 8)) > 1:
                k += 1
                if k % every == 0:
                    yield obs, action, tuple(tuple(h) for h in deal.hands)
            deal.apply(action)


def bench_search_lines(spec: str = "search", positions: int = 20, seed: int = 1) -> Iterator[str]:
    """The ``search`` line of ``guandan bench``: CPU seconds per decision (median) at
    ``positions`` seeded decisions, decisions/s and rollouts/s (rollouts of the position's
    deal played out by the heuristic, about half a deal each)."""
    from guandan_cli.strategies.registry import load_strategy

    cls = load_strategy(spec)
    obs_list = search_positions(positions, seed)
    times = []
    rollouts = 0
    clock = time.process_time
    for i, obs in enumerate(obs_list):
        bot = cls(obs.seat, random.Random(seed * 1000 + i))
        t0 = clock()
        bot.choose_play(obs)
        times.append(clock() - t0)
        rollouts += bot.rollouts.count
    total = sum(times)
    yield (
        f"search {spec}: median {statistics.median(times):.3f} s per decision (CPU), "
        f"{len(times) / total:.1f} decisions/s, {rollouts / total:.0f} rollouts/s "
        f"({rollouts / len(times):.0f} rollouts per decision, {len(times)} positions)"
    )

"""Side-by-side speed of two versions of the code: a base commit against the working tree.

The base commit is exported (``git archive``) into a temporary folder; both codes then run
under the same Python (this one), each in fresh child processes with ``PYTHONPATH`` set to
its folder and a neutral working directory, interleaved (base, new, new, base, …) for
``--reps`` repetitions, because a shared machine is noisy. Printed: the median of each
figure per code and the ratio new/base (for times, base/new: above 1 means faster).

Figures:

- ``random`` / ``heuristic`` self-play deals/s, one worker, logging on (``simulate`` into a
  temporary run directory; wall clock, and per CPU-second, which load disturbs less);
- start-up of ``guandan --help`` and ``guandan plays …`` (a whole process, wall and CPU);
- ``legal_plays`` lead and follow medians (µs per call, 27-card hands, seeded positions);
- with ``--parallel``: ``heuristic`` on ``--parallel-matches`` matches, 2 workers vs 1.

Both codes' deal logs are compared too (same seed → same records expected, compared without
``v`` and ``derived.jiefeng``, which schema 2 changed on purpose, and ``run_id``).

Usage::

    python scripts/bench_vs.py 4ecb364                 # 5 repetitions
    python scripts/bench_vs.py 4ecb364 --reps 3 --parallel --parallel-matches 400
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: run in a child: ``python -c DRIVER '{"what": ..., ...}'``; prints one JSON object
DRIVER = r"""
import hashlib, json, resource, sys, tempfile, time
from pathlib import Path
args = json.loads(sys.argv[1])
what = args["what"]

def cpu():
    t = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        ru = resource.getrusage(who)
        t += ru.ru_utime + ru.ru_stime
    return t

if what == "deals":
    from guandan_cli import simulate
    with tempfile.TemporaryDirectory() as tmp:
        c0, t0 = cpu(), time.perf_counter()
        run = simulate(args["matches"], seed=args["seed"], strategies=args["strategy"],
                       workers=args["workers"], out=Path(tmp) / "run", progress=False)
        wall, cpus = time.perf_counter() - t0, cpu() - c0
        deals = run.counts["deals"]
        h = hashlib.sha256()
        for p in sorted((Path(tmp) / "run").glob("deals-*.jsonl")):
            for line in p.read_bytes().splitlines():
                # the decisions, not the schema: schema 2 changed "v" and derived.jiefeng on
                # purpose (tests/test_record_digests.py pins the exact bytes)
                rec = json.loads(line)
                rec.pop("v", None)
                rec.get("derived", {}).pop("jiefeng", None)
                rec.pop("run_id", None)
                h.update(json.dumps(rec, sort_keys=True).encode())
    print(json.dumps({"deals": deals, "wall": wall, "cpu": cpus, "digest": h.hexdigest()}))
elif what == "legal":
    import random, statistics
    from guandan_cli.engine import deal_hands, legal_plays
    rng = random.Random(args["seed"])
    lead, follow = [], []
    for _ in range(args["positions"]):
        hands = deal_hands(rng)
        level = rng.randrange(13)
        lead.append((hands[0], level))
        follow.append((hands[0], level, rng.choice(legal_plays(hands[1], level))))
    clock = time.perf_counter_ns
    def median_us(cases):
        times = []
        for a in cases:
            t0 = clock()
            legal_plays(*a)
            times.append(clock() - t0)
        return statistics.median(times) / 1000.0
    median_us(lead[:200])
    lead_us, follow_us = median_us(lead), median_us(follow)
    h = hashlib.sha256()
    for a in lead + follow:
        h.update(repr([tuple(c) for c in legal_plays(*a)]).encode())
    print(json.dumps({"lead_us": lead_us, "follow_us": follow_us, "digest": h.hexdigest()}))
"""

#: the console script ``guandan`` does exactly this
CLI = "import sys; sys.argv[0] = 'guandan'; from guandan_cli.cli.app import main; sys.exit(main())"


class Code:
    """One version of the code: a folder put first on ``PYTHONPATH``."""

    def __init__(self, label: str, root: Path, cwd: Path) -> None:
        self.label = label
        self.root = root
        self.cwd = cwd
        self.env = dict(os.environ, PYTHONPATH=str(root), PYTHONDONTWRITEBYTECODE="")
        self.env.pop("PYTHONSTARTUP", None)

    def run(self, argv: list[str]) -> tuple[subprocess.CompletedProcess, float, float]:
        """Run ``python argv``: (completed process, wall seconds, CPU seconds of the child)."""
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, *argv], cwd=self.cwd, env=self.env, capture_output=True, text=True
        )
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        if proc.returncode != 0:
            shown = "the bench driver" if argv[0] == "-c" else " ".join(argv)
            raise SystemExit(f"{self.label}: {shown} failed ({argv[-1]}):\n{proc.stderr[-2000:]}")
        return proc, wall, cpu

    def driver(self, **args) -> dict:
        proc, _wall, _cpu = self.run(["-c", DRIVER, json.dumps(args)])
        return json.loads(proc.stdout.strip().splitlines()[-1])


def export(commit: str, dest: Path) -> None:
    """The tree of ``commit`` in ``dest`` (``git archive``: no worktree left behind).

    Since 0f06454 the folder ``strategies/`` is installed as ``guandan_cli.strategies``
    (setup.py's package-dir mapping): an export gets a ``guandan_cli/strategies`` link to it,
    else its ``guandan_cli.strategies`` would be this tree's (an editable install's mapping),
    mixed with the export's files. An export runs its sources (no compiled module).
    """
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", commit], capture_output=True, check=False)
    if archive.returncode != 0:
        raise SystemExit(f"cannot export commit {commit!r}: {archive.stderr.decode().strip()}")
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive.stdout, check=True)
    mapped = dest / "guandan_cli" / "strategies"
    if (dest / "strategies").is_dir() and not mapped.exists():
        mapped.symlink_to(Path("..") / "strategies")


def measure(code: Code, opts, samples: dict, digests: dict) -> None:
    """One repetition of every figure for ``code``, appended to ``samples[figure][label]``."""

    def add(name: str, value: float) -> None:
        samples.setdefault(name, {}).setdefault(code.label, []).append(value)

    for strategy, matches in (("random", opts.random_matches), ("heuristic", opts.heuristic_matches)):
        if "deals" not in opts.only:
            break
        r = code.driver(what="deals", strategy=strategy, matches=matches, seed=opts.seed, workers=1)
        add(f"{strategy} deals/s (1 worker, wall)", r["deals"] / r["wall"])
        add(f"{strategy} deals/CPU-s (1 worker)", r["deals"] / r["cpu"])
        digests.setdefault(f"{strategy} deal log", []).append(r["digest"])
    for name, argv in (
        ("start-up guandan --help", ["--help"]),
        ("start-up guandan plays", ["plays", "S3 H4 D4 C5 S5 H2 SB", "--level", "3"]),
    ):
        if "startup" not in opts.only:
            break
        _proc, wall, cpu = code.run(["-c", CLI, *argv])
        add(f"{name} (ms, wall)", wall * 1000)
        add(f"{name} (ms, CPU)", cpu * 1000)
    if "legal" in opts.only:
        r = code.driver(what="legal", positions=opts.positions, seed=opts.seed)
        add("legal_plays lead (µs median)", r["lead_us"])
        add("legal_plays follow (µs median)", r["follow_us"])
        digests.setdefault("legal_plays output", []).append(r["digest"])
    if opts.parallel:
        walls = {}
        for workers in (1, 2):
            r = code.driver(
                what="deals",
                strategy="heuristic",
                matches=opts.parallel_matches,
                seed=opts.seed,
                workers=workers,
            )
            walls[workers] = r["wall"]
            digests.setdefault(f"heuristic x{opts.parallel_matches} deal log", []).append(r["digest"])
        add(f"2 workers vs 1, {opts.parallel_matches} heuristic matches (x)", walls[1] / walls[2])


#: figures where smaller is better (times)
def _lower_is_better(name: str) -> bool:
    return "ms" in name or "µs" in name


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("base", help="the base commit (e.g. 4ecb364)")
    ap.add_argument("--new", default=None, help="a commit for the new side (default: the working tree)")
    ap.add_argument("--reps", type=int, default=5, help="repetitions of every figure per code (default 5)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--random-matches", type=int, default=40)
    ap.add_argument("--heuristic-matches", type=int, default=20)
    ap.add_argument("--positions", type=int, default=2000, help="legal_plays positions (default 2000)")
    ap.add_argument("--parallel", action="store_true", help="also time 2 workers vs 1 (heuristic)")
    ap.add_argument("--parallel-matches", type=int, default=400)
    ap.add_argument(
        "--only",
        default="deals,startup,legal",
        help="figure groups to time, comma-separated: deals, startup, legal (default: all three)",
    )
    opts = ap.parse_args(argv)
    opts.only = {x.strip() for x in opts.only.split(",")}
    if not opts.only <= {"deals", "startup", "legal"}:
        ap.error(f"--only takes deals, startup and/or legal, got {sorted(opts.only)}")
    if opts.reps < 1:
        ap.error("--reps must be at least 1")

    with tempfile.TemporaryDirectory(prefix="guandan-bench-vs-") as tmp:
        tmp = Path(tmp)
        (tmp / "base").mkdir()
        (tmp / "cwd").mkdir()
        export(opts.base, tmp / "base")
        if opts.new:
            (tmp / "new").mkdir()
            export(opts.new, tmp / "new")
            new_root = tmp / "new"
        else:
            new_root = ROOT
        base = Code(f"base {opts.base}", tmp / "base", tmp / "cwd")
        new = Code(f"new {opts.new or 'tree'}", new_root, tmp / "cwd")
        print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
        samples: dict[str, dict[str, list[float]]] = {}
        digests: dict[str, list[str]] = {}
        t0 = time.monotonic()
        for rep in range(opts.reps):
            order = (base, new) if rep % 2 == 0 else (new, base)
            for code in order:
                measure(code, opts, samples, digests)
            print(f"  repetition {rep + 1}/{opts.reps} done ({time.monotonic() - t0:.0f} s)", flush=True)
        print(f"load average after:  {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        print()
        width = max(len(n) for n in samples)
        print(f"{'figure':<{width}}  {'base':>10}  {'new':>10}  {'speed-up':>8}   (medians of {opts.reps})")
        for name, by in samples.items():
            b = statistics.median(by[base.label])
            n = statistics.median(by[new.label])
            ratio = b / n if _lower_is_better(name) else n / b
            print(f"{name:<{width}}  {b:10.2f}  {n:10.2f}  {ratio:7.2f}x")
        print()
        for name, found in digests.items():
            same = len(set(found)) == 1
            print(f"{name}: {'identical' if same else 'DIFFERENT'} in all {len(found)} runs of both codes")
    return 0


if __name__ == "__main__":
    sys.exit(main())

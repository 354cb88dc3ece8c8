"""Fuzz at scale: seeded runs over every configuration axis, each verified deal by deal.

Each batch is one ``guandan simulate`` run (the real command, as a user runs it) followed by
``guandan verify`` of its directory, which replays every logged deal through the engine and
checks every record and count. A batch's configuration cycles through both rulesets, the
built-in bots in several seatings, ``--a-fail-limit``, ``--max-deals`` and the three
compressions, so that a long fuzz covers every combination many times.

Every finished batch is appended to a ledger (JSON Lines): its seed, configuration, deals,
matches, seconds and verify's verdict. The figure to report is the ledger's total, which
later runs add to: start them with another ``--first-seed`` (a seed already in the ledger is
refused, so no deal is counted twice). A batch that fails to verify keeps its run directory
for inspection; a passing one is deleted.

    python scripts/fuzz_runs.py --deals 2000000 --first-seed 0          # ~30 min on 2 cores
    python scripts/fuzz_runs.py --deals 500000 --first-seed 100000      # adds to the ledger
    python scripts/fuzz_runs.py --summary                                # the ledger's totals
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

#: the axes a batch's configuration is taken from (cycled with co-prime lengths, so that
#: every combination comes round): seatings of the built-in bots, rulesets, options
SEATINGS = (
    "random",
    "greedy",
    "heuristic",
    "heuristic,random",
    "greedy,heuristic",
    "random,greedy,heuristic,greedy",
)
RULESETS = ("cgr2022", "jiangsu2017")
A_FAIL_LIMITS = (None, 1, 3)
MAX_DEALS = (None, 7, 30, 2, 12)
COMPRESSIONS = ("none", "gzip", "zstd", "none", "zstd", "gzip", "none")


def batch_config(index: int) -> dict:
    """The configuration of batch ``index`` (a pure function of it)."""
    return {
        "strategies": SEATINGS[index % len(SEATINGS)],
        "ruleset": RULESETS[index % len(RULESETS)],
        "a_fail_limit": A_FAIL_LIMITS[index % len(A_FAIL_LIMITS)],
        "max_deals": MAX_DEALS[index % len(MAX_DEALS)],
        "compression": COMPRESSIONS[index % len(COMPRESSIONS)],
    }


def simulate_args(seed: int, config: dict, matches: int, out: Path, workers: int | None) -> list[str]:
    args = ["simulate", "-n", str(matches), "--seed", str(seed), "-s", config["strategies"]]
    args += ["--ruleset", config["ruleset"], "--compression", config["compression"], "--out", str(out), "-q"]
    if config["a_fail_limit"] is not None:
        args += ["--a-fail-limit", str(config["a_fail_limit"])]
    if config["max_deals"] is not None:
        args += ["--max-deals", str(config["max_deals"])]
    if workers:
        args += ["-w", str(workers)]
    return args


def guandan(args: list[str]) -> subprocess.CompletedProcess:
    exe = shutil.which("guandan") or sys.exit(
        "fuzz_runs: the guandan command is not on PATH (pip install -e .)"
    )
    return subprocess.run([exe, *args], capture_output=True, text=True)


def run_batch(seed: int, matches: int, root: Path, workers: int | None) -> dict:
    """Simulate and verify one batch; its ledger entry."""
    config = batch_config(seed)
    out = root / f"batch-{seed}"
    shutil.rmtree(out, ignore_errors=True)
    started = time.perf_counter()
    sim = guandan(simulate_args(seed, config, matches, out, workers))
    entry: dict = {"seed": seed, "matches": matches, **config}
    if sim.returncode != 0:
        return {
            **entry,
            "deals": 0,
            "ok": False,
            "failure": f"simulate exit {sim.returncode}: {sim.stderr[-2000:]}",
        }
    counts = json.loads((out / "manifest.json").read_text(encoding="utf-8"))["counts"]
    ver = guandan(["verify", str(out)] + (["-w", str(workers)] if workers else []))
    ok = ver.returncode == 0 and ": ok" in ver.stdout
    entry.update(deals=counts["deals"], ok=ok, seconds=round(time.perf_counter() - started, 2))
    if not ok:
        entry["failure"] = f"verify exit {ver.returncode}: {(ver.stdout + ver.stderr)[-4000:]}"
    else:
        shutil.rmtree(out, ignore_errors=True)
    return entry


def read_ledger(path: Path) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def summary(entries: list[dict]) -> str:
    deals = sum(e["deals"] for e in entries)
    bad = [e for e in entries if not e["ok"]]
    seeds = sorted(e["seed"] for e in entries)
    span = f"seeds {seeds[0]}..{seeds[-1]}" if seeds else "no batches"
    by_ruleset = {r: sum(e["deals"] for e in entries if e["ruleset"] == r) for r in RULESETS}
    lines = [
        f"ledger: {len(entries)} batches ({span}), {deals:,} deals verified, {len(bad)} failed",
        "  by ruleset: " + ", ".join(f"{r} {n:,}" for r, n in by_ruleset.items()),
    ]
    lines += [
        f"  FAILED seed {e['seed']}: {e['failure'].splitlines()[-1] if e['failure'] else ''}" for e in bad
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--deals", type=int, default=100_000, help="stop once this run has verified this many deals"
    )
    ap.add_argument(
        "--first-seed", type=int, default=0, help="seed (and configuration index) of the first batch"
    )
    ap.add_argument("--matches", type=int, default=400, help="matches per batch")
    ap.add_argument(
        "--workers", type=int, default=None, help="workers for simulate and verify (default: all cores)"
    )
    ap.add_argument(
        "--out", type=Path, default=Path("runs/fuzz"), help="folder for the batches and the ledger"
    )
    ap.add_argument("--summary", action="store_true", help="print the ledger's totals and stop")
    ns = ap.parse_args(argv)
    ns.out.mkdir(parents=True, exist_ok=True)
    ledger = ns.out / "ledger.jsonl"
    entries = read_ledger(ledger)
    if ns.summary:
        print(summary(entries))
        return 0 if all(e["ok"] for e in entries) else 1
    used = {e["seed"] for e in entries}
    done = 0
    for seed in itertools.count(ns.first_seed):
        if done >= ns.deals:
            break
        if seed in used:
            sys.exit(f"fuzz_runs: seed {seed} is already in {ledger}: start with another --first-seed")
        entry = run_batch(seed, ns.matches, ns.out, ns.workers)
        with ledger.open("a", encoding="utf-8") as f:
            f.write(json.dumps(entry, sort_keys=True) + "\n")
            f.flush()
            os.fsync(f.fileno())
        entries.append(entry)
        done += entry["deals"]
        state = "ok" if entry["ok"] else "FAILED"
        print(f"seed {seed}: {entry['deals']:,} deals {state}  (this run {done:,}/{ns.deals:,})", flush=True)
    print(summary(entries))
    return 0 if all(e["ok"] for e in entries) else 1


if __name__ == "__main__":
    raise SystemExit(main())

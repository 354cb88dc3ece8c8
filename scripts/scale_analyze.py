"""Scale check for `guandan analyze`: every report over a large run, wall time and peak RSS.

A large run is made by replicating a small real one: ``guandan simulate`` plays a
source run (or ``--source DIR`` names one), then its matches are copied over and over
with new match indices (and the match's ``match_seed`` perturbed accordingly) until
``--deals`` deal lines are written, in parts of 1000 matches named as ``simulate`` names
them. Every copied match is a real match, so the load-time invariant checks (finish
order, upgrade, levels, contiguous deals …) hold for every line, as in a simulated run.

The run directory is what ``simulate`` leaves: the parts are written by the same
``PartWriter`` and a ``manifest.json`` records each part file's size and sha256 (the
loader reads a part whose digest is the manifest's without matching its lines against
the line pattern again; it decodes and checks every record either way).

Then, each in a fresh child process (wall time; CPU time, user + system, which a
loaded machine inflates less; peak RSS, ``ru_maxrss``; all the child's own; and the
1-minute load average before and after, since the machine may be shared):

1. ``analyze`` — ``guandan analyze RUN --report all --format json`` straight from the
   JSONL parts, exactly as a user runs it by default (checks, load, every report,
   rendering); ``--repeat N`` measures it N times;
2. ``convert`` — ``--to-parquet`` (optional, ``--parquet``);
3. ``parquet`` — every report again, now reading Parquet (optional, ``--parquet``).

Usage::

    python scripts/scale_analyze.py --deals 1000000 --dir /tmp/big --keep   # make and measure
    python scripts/scale_analyze.py --run /tmp/big --repeat 3               # measure an existing run
    python scripts/scale_analyze.py --deals 10000000 --compression zstd     # 10 M deals on a small disk
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# the repository root, so `strategies` imports even when the editable install predates it
sys.path.insert(0, str(ROOT))

_MATCH_FIELD = re.compile(rb'"match":(\d+),"match_seed":(\d+),')


def _source_run(directory: Path, matches: int, seed: int) -> Path:
    """Play a small real run with ``guandan simulate`` (random vs greedy, uncapped)."""
    subprocess.run(
        [sys.executable, "-c", "import sys; from guandan_cli.cli.app import app; app(sys.argv[1:])"]
        + [
            "simulate",
            "-n",
            str(matches),
            "--seed",
            str(seed),
            "-s",
            "greedy,random",
            "-o",
            str(directory),
            "-q",
        ],
        check=True,
        cwd=ROOT,
    )
    return directory


def _matches_of(run: Path) -> list[tuple[list[bytes], bytes]]:
    """(deal lines, match line) of every match of ``run``, in match order."""
    from guandan_cli.logs.reader import open_part, part_files

    deals: dict[int, list[bytes]] = {}
    for part in part_files(run, "deals"):
        with open_part(part) as fh:
            for line in fh:
                index = int(_MATCH_FIELD.search(line).group(1))
                deals.setdefault(index, []).append(line)
    out = []
    for part in part_files(run, "matches"):
        with open_part(part) as fh:
            for line in fh:
                index = int(_MATCH_FIELD.search(line).group(1))
                out.append((deals.get(index, []), line))
    return out


def _renumber(line: bytes, index: int) -> bytes:
    """``line`` with its match index set to ``index`` (and a match seed that differs per copy)."""

    def sub(m: re.Match) -> bytes:
        seed = (int(m.group(2)) + index * 0x9E3779B97F4A7C15) % (1 << 63)
        return b'"match":%d,"match_seed":%d,' % (index, seed)

    return _MATCH_FIELD.sub(sub, line, count=1)


def _match_facts(line: bytes) -> dict:
    """The manifest's per-part facts of one match record."""
    record = json.loads(line)
    winner = record["winner"]
    return {
        "deals": record["deals"],
        "errors": int(record["error"] is not None),
        "capped": int(bool(record["capped"])),
        "wins": [int(winner == 0), int(winner == 1)],
    }


def synthesize(
    directory: Path, n_deals: int, source: Path, part_size: int = 1000, compression: str = "none"
) -> tuple[int, int]:
    """Write whole copies of ``source``'s matches into ``directory`` until ``n_deals`` deals.

    Returns (deals, matches) written. The directory is what ``simulate`` leaves: parts of
    ``part_size`` matches written by the same ``PartWriter`` (each under a temporary name,
    then renamed), and a ``manifest.json`` (the source's, with this run's matches, counts
    and parts, each part file's size and sha256 among them).
    """
    from guandan_cli.logs.layout import MANIFEST, part_paths
    from guandan_cli.logs.manifest import (
        FileEntry,
        Manifest,
        PartEntry,
        PartialConfig,
        RunConfig,
        RunFolder,
        RunState,
        Totals,
    )
    from guandan_cli.logs.writer import PartWriter, atomic_write_bytes

    pool = [(lines, mline, _match_facts(mline)) for lines, mline in _matches_of(source) if lines]
    if not pool:
        raise SystemExit(f"{source}: no deals to replicate")
    base = RunFolder.read(source).manifest or Manifest(RunState.COMPLETE, RunConfig(), PartialConfig())
    directory.mkdir(parents=True, exist_ok=True)
    parts: list[PartEntry] = []
    written = index = part = 0
    while written < n_deals:
        deal_lines: list[bytes] = []
        match_lines: list[bytes] = []
        facts = {"deals": 0, "errors": 0, "capped": 0, "wins": [0, 0]}
        first = index
        for _ in range(part_size):
            if written >= n_deals:
                break
            lines, mline, one = pool[index % len(pool)]
            deal_lines += [_renumber(line, index) for line in lines]
            match_lines.append(_renumber(mline, index))
            for key in ("deals", "errors", "capped"):
                facts[key] += one[key]
            facts["wins"] = [a + b for a, b in zip(facts["wins"], one["wins"])]
            written += len(lines)
            index += 1
        files = []
        for path, data in zip(part_paths(directory, part, compression), (deal_lines, match_lines)):
            writer = PartWriter(path, compression)
            writer.write(b"".join(data))
            files.append(FileEntry(**writer.commit()))
        wins = (facts["wins"][0], facts["wins"][1])
        parts.append(
            PartEntry(
                part,
                first,
                index,
                index - first,
                facts["deals"],
                facts["errors"],
                facts["capped"],
                wins,
                *files,
            )
        )
        part += 1
    config = replace(base.config, matches=index, part_size=part_size, compression=compression)
    manifest = replace(
        base,
        config=config,
        recorded=PartialConfig.recorded({"config": config.to_dict()}),
        state=RunState.COMPLETE,
        counts=Totals.of_parts(parts, len(parts)),
        parts=tuple(parts),
        keys=tuple(dict.fromkeys((*base.keys, "format", "config", "state", "counts", "parts"))),
    )
    atomic_write_bytes(directory / MANIFEST, json.dumps(manifest.to_dict(), indent=1).encode())
    return written, index


def _peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def child(phase: str, directory: Path) -> None:
    """One measured phase, run in its own process; prints a JSON line of figures."""
    load_before = os.getloadavg()[0]
    t0 = time.perf_counter()
    if phase == "analyze":
        from guandan_cli.cli.app import app

        try:
            app(["analyze", str(directory), "--report", "all", "--format", "json"], standalone_mode=False)
        except SystemExit as exc:  # an error: the figures are meaningless
            if exc.code:
                raise
        rows = None
    elif phase == "convert":
        from guandan_cli.reports import convert_to_parquet

        convert_to_parquet(directory)
        rows = None
    else:  # analyze again, now that the run holds fresh Parquet copies
        from guandan_cli.cli.app import app

        app(["analyze", str(directory), "--report", "all", "--format", "json"], standalone_mode=False)
        rows = None
    wall = time.perf_counter() - t0
    usage = resource.getrusage(resource.RUSAGE_SELF)
    workers = resource.getrusage(resource.RUSAGE_CHILDREN)  # analyze's worker processes
    figures = {
        "phase": phase,
        "deals": rows,
        "wall_s": round(wall, 1),
        "cpu_s": round(usage.ru_utime + usage.ru_stime + workers.ru_utime + workers.ru_stime, 1),
        "peak_rss_mib": round(_peak_mib(), 1),
        # the largest worker's peak: the processes' total stays below parent + workers × this
        "worker_peak_rss_mib": round(workers.ru_maxrss / 1024, 1),
        "load_avg": [round(load_before, 2), round(os.getloadavg()[0], 2)],
    }
    print(json.dumps(figures), file=sys.stderr)


def measure(directory: Path, phases: list[str], repeat: int = 1) -> None:
    for phase in [p for p in phases for _ in range(repeat if p == "analyze" else 1)]:
        out = subprocess.run(
            [sys.executable, __file__, "--phase", phase, "--run", str(directory)],
            capture_output=True,
            text=True,
        )
        if out.returncode != 0:
            raise SystemExit(f"phase {phase} failed:\n{out.stderr}")
        print(out.stderr.strip().splitlines()[-1], flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deals", type=int, default=1_000_000, help="deal lines to synthesize")
    ap.add_argument("--dir", type=Path, default=None, help="where to write the run (default: a temp dir)")
    ap.add_argument("--keep", action="store_true", help="keep the synthesized run")
    ap.add_argument("--source", type=Path, default=None, help="run to replicate (default: simulate one)")
    ap.add_argument("--source-matches", type=int, default=300, help="matches of the simulated source run")
    ap.add_argument("--run", type=Path, default=None, help="measure this existing run (no synthesis)")
    ap.add_argument("--parquet", action="store_true", help="also time --to-parquet and reports from Parquet")
    ap.add_argument("--repeat", type=int, default=1, help="measure analyze this many times")
    ap.add_argument(
        "--compression",
        default="none",
        help="parts as simulate writes them: none, gzip or zstd (10 M deals: zstd)",
    )
    ap.add_argument("--phase", choices=["analyze", "convert", "parquet"], help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.phase:
        child(args.phase, args.run)
        return
    phases = ["analyze"] + (["convert", "parquet"] if args.parquet else [])
    if args.run is not None:
        measure(args.run, phases, args.repeat)
        return
    scratch = Path(tempfile.mkdtemp(prefix="guandan-scale-"))
    directory = args.dir or scratch / "run"
    try:
        t0 = time.perf_counter()
        source = args.source or _source_run(scratch / "source", args.source_matches, seed=12345)
        deals, matches = synthesize(directory, args.deals, source, compression=args.compression)
        size = sum(p.stat().st_size for p in directory.glob("*.jsonl*"))
        print(
            f"synthesized {deals:,} deals in {matches:,} matches ({size / 2**30:.2f} GiB of parts, "
            f"{args.compression}; {size / 2**30 / deals * 1e6:.2f} GiB per million deals) "
            f"from {source} in {time.perf_counter() - t0:.1f}s",
            flush=True,
        )
        measure(directory, phases, args.repeat)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        if args.dir is not None and not args.keep:
            shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    main()

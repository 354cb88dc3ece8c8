"""Scale check for `guandan analyze`: N synthetic deal lines, every report, wall time and peak RSS.

Synthesizes a run quickly by replicating real deal records (a small pool played
in-process by the engine) with varied match and deal indices, written as JSONL parts
like the runner's. Then, each in a fresh child process so peak RSS is its own:

1. ``jsonl``   — check every line, load, run every report (what ``guandan analyze`` does);
2. ``convert`` — write deals.parquet / matches.parquet once (``--to-parquet``);
3. ``parquet`` — run every report again, now reading Parquet.

Usage::

    python scripts/scale_analyze.py --deals 1000000            # keeps nothing
    python scripts/scale_analyze.py --deals 100000 --dir /tmp/s --keep

Peak RSS is ``resource.getrusage(RUSAGE_SELF).ru_maxrss`` of the child (Linux: KiB).
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# the repository root, so `strategies` imports even when the editable install predates it
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def _pool(matches: int, max_deals: int) -> list[dict]:
    """Real deal records (greedy vs random), played by the runner's own ``play_match``."""
    from guandan_cli.runner.tasks import RunSpec, play_match

    spec = RunSpec("scale", 12345, ("greedy", "random", "greedy", "random"), max_deals=max_deals)
    return [json.loads(line) for i in range(matches) for line in play_match(spec, i)[0]]


def _template(record: dict, keys: tuple[str, ...]) -> list[str]:
    """The record's JSON line split around the values of ``keys`` (filled in later)."""
    rec = dict(record)
    for k in keys:
        rec[k] = f"@@{k}@@"
    text = json.dumps(rec, separators=(",", ":"), ensure_ascii=False)
    pieces = []
    for k in keys:
        head, text = text.split(f'"@@{k}@@"', 1)
        pieces.append(head)
    pieces.append(text)
    return pieces


def synthesize(directory: Path, n_deals: int, deals_per_match: int = 10, part_lines: int = 100_000) -> None:
    """Write ``n_deals`` deal lines (and their match lines) into ``directory`` as JSONL parts."""
    from guandan_cli.logs.schema import match_record

    directory.mkdir(parents=True, exist_ok=True)
    pool = _pool(matches=24, max_deals=12)
    templates = [_template(r, ("match", "deal")) for r in pool]
    mrec = match_record(
        run_id="scale",
        match_index=0,
        match_seed=1,
        strategies=["greedy", "random", "greedy", "random"],
        ruleset="cgr2022",
        deals=deals_per_match,
        final_levels=(0, 5),
        winner=None,
        capped=True,
    )
    mtemplate = _template(mrec, ("match",))
    written = 0
    part = 0
    while written < n_deals:
        count = min(part_lines, n_deals - written)
        lines = []
        mlines = []
        for i in range(written, written + count):
            match, deal = divmod(i, deals_per_match)
            a, b, c = templates[i % len(templates)]
            lines.append(f"{a}{match}{b}{deal}{c}\n")
            if deal == deals_per_match - 1 or i == n_deals - 1:
                x, y = mtemplate
                mlines.append(f"{x}{match}{y}\n")
        (directory / f"deals-{part:05d}.jsonl").write_text("".join(lines), encoding="utf-8")
        (directory / f"matches-{part:05d}.jsonl").write_text("".join(mlines), encoding="utf-8")
        written += count
        part += 1


def _peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def child(phase: str, directory: Path) -> None:
    """One measured phase, run in its own process; prints a JSON line of figures."""
    t0 = time.perf_counter()
    if phase == "convert":
        from guandan_cli.reports import convert_to_parquet

        convert_to_parquet(directory)
        rows = None
        load_s = time.perf_counter() - t0
    else:
        from guandan_cli.reports import REPORTS, load, run_report

        data = load(directory)
        load_s = time.perf_counter() - t0
        rows = data.deals.select(__import__("polars").len()).collect().item()
        for name in REPORTS:
            run_report(name, data.deals, data.matches)
    wall = time.perf_counter() - t0
    print(
        json.dumps(
            {
                "phase": phase,
                "deals": rows,
                "load_s": round(load_s, 1),
                "wall_s": round(wall, 1),
                "peak_rss_mib": round(_peak_mib(), 1),
            }
        )
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deals", type=int, default=1_000_000)
    ap.add_argument("--dir", type=Path, default=None, help="where to write the run (default: a temp dir)")
    ap.add_argument("--keep", action="store_true", help="keep the synthesized run")
    ap.add_argument("--phase", choices=["jsonl", "convert", "parquet"], help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.phase:
        child(args.phase, args.dir)
        return
    directory = args.dir or Path(tempfile.mkdtemp(prefix="guandan-scale-")) / "run"
    try:
        t0 = time.perf_counter()
        synthesize(directory, args.deals)
        size = sum(p.stat().st_size for p in directory.glob("*.jsonl"))
        print(
            f"synthesized {args.deals:,} deals ({size / 2**30:.2f} GiB JSONL) in {time.perf_counter() - t0:.1f}s"
        )
        for phase in ("jsonl", "convert", "parquet"):
            out = subprocess.run(
                [sys.executable, __file__, "--phase", phase, "--dir", str(directory)],
                check=True,
                capture_output=True,
                text=True,
            )
            print(out.stdout.strip(), flush=True)
    finally:
        if not args.keep:
            shutil.rmtree(directory.parent if args.dir is None else directory, ignore_errors=True)


if __name__ == "__main__":
    main()

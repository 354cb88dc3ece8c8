"""Reading runs for reports: lazy scans, Parquet copies, checked loading.

Log parts are found and checked by :mod:`guandan_cli.logs.reader` (the strict line
checker: a corrupt or truncated line is a :class:`LogLineError` naming file and line;
with ``skip_bad=True`` such lines are left out and counted). This module adds:

- Parquet: :func:`convert_to_parquet` writes ``deals.parquet`` and ``matches.parquet``
  into a run directory once; every reader here then uses them instead of the JSONL
  parts while no part is newer (:func:`fresh_parquet`).
- :func:`scan_deals` / :func:`scan_matches`: lazy frames over one or more runs.
- :func:`load`: checks every line, then parses the deal columns reports use (hands,
  actions and seeds dropped; see :func:`slim_deals`) once, in bounded chunks spooled to
  temporary Parquet, so many reports can run over a large run without re-reading JSON.
"""

from __future__ import annotations

import io
import os
import tempfile
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from guandan_cli.logs import reader
from guandan_cli.logs.layout import Completeness, read_manifest, run_completeness
from guandan_cli.logs.reader import LogLineError, LogReadError, ScanStats
from guandan_cli.logs.schema import deal_schema, match_schema

KINDS = ("deals", "matches")


def _schema(kind: str) -> dict:
    return deal_schema() if kind == "deals" else match_schema()


#: columns dropped by :func:`slim_deals` (large, and no report needs them)
HEAVY_DEAL_COLUMNS = ("hands", "actions", "match_seed", "deal_seed")


def parquet_path(run: str | os.PathLike, kind: str) -> Path:
    """Where :func:`convert_to_parquet` writes ``kind`` (``deals``/``matches``) for ``run``."""
    return Path(run) / f"{kind}.parquet"


def fresh_parquet(run: str | os.PathLike, kind: str) -> Path | None:
    """``run``'s Parquet copy of ``kind`` if it exists and no JSONL part is newer, else None."""
    pq = parquet_path(run, kind)
    if not pq.is_file():
        return None
    try:
        files = reader.part_files(run, kind)
    except LogReadError:
        files = []
    newest = max((p.stat().st_mtime_ns for p in files), default=0)
    return pq if pq.stat().st_mtime_ns >= newest else None


def _scan(runs, kind: str, check: bool, skip_bad: bool, stats: ScanStats | None) -> pl.LazyFrame:
    if not runs:
        raise ValueError("no run given")
    frames = []
    for run in runs:
        pq = fresh_parquet(run, kind) if Path(run).is_dir() else None
        if pq is not None:
            frames.append(pl.scan_parquet(pq))
        else:
            scan = reader.scan_deals if kind == "deals" else reader.scan_matches
            frames.append(scan(run, check=check, skip_bad=skip_bad, stats=stats))
    return frames[0] if len(frames) == 1 else pl.concat(frames, how="vertical")


def scan_deals(
    *runs: str | os.PathLike, check: bool = True, skip_bad: bool = False, stats: ScanStats | None = None
) -> pl.LazyFrame:
    """Lazy deal records of one or more runs (each run's Parquet copy when fresh).

    ``check``, ``skip_bad`` and ``stats`` are those of
    :func:`guandan_cli.logs.reader.scan_deals` (they do not apply to Parquet, which was
    checked when written).
    """
    return _scan(runs, "deals", check, skip_bad, stats)


def scan_matches(
    *runs: str | os.PathLike, check: bool = True, skip_bad: bool = False, stats: ScanStats | None = None
) -> pl.LazyFrame:
    """Lazy match records of one or more runs (see :func:`scan_deals`)."""
    return _scan(runs, "matches", check, skip_bad, stats)


def slim_deals(deals: pl.LazyFrame) -> pl.LazyFrame:
    """The deal columns reports use: everything but hands, actions and seeds."""
    names = deals.collect_schema().names()
    return deals.drop([c for c in HEAVY_DEAL_COLUMNS if c in names])


class IncompleteRunWarning(UserWarning):
    """A run loaded before it finished: reports cover its complete parts only."""


def completeness_of(*runs: str | os.PathLike) -> list[Completeness]:
    """The :class:`~guandan_cli.logs.layout.Completeness` of each run directory among ``runs``.

    A directory of run directories gives one entry per run in it; part files and
    directories without a manifest give none.
    """
    out = []
    for run in runs:
        path = Path(run)
        if not path.is_dir():
            continue
        dirs = (
            [path] if (path / "manifest.json").is_file() else sorted(q for q in path.iterdir() if q.is_dir())
        )
        for d in dirs:
            try:
                manifest = read_manifest(d)
                if manifest is not None:
                    out.append(run_completeness(d, manifest))
            except ValueError as exc:
                raise LogReadError(str(exc)) from None
    return out


@dataclass
class RunData:
    """Checked logs of one or more runs, ready for reports.

    ``deals`` and ``matches`` are lazy scans of Parquet: the runs' own copies when
    fresh, else checked, slimmed chunks spooled into a temporary directory that lives
    as long as this object.
    """

    deals: pl.LazyFrame
    matches: pl.LazyFrame
    stats: ScanStats = field(default_factory=ScanStats)
    spool: tempfile.TemporaryDirectory | None = field(default=None, repr=False)
    #: each run directory's completeness (reports cover complete parts only)
    completeness: list[Completeness] = field(default_factory=list)

    @property
    def incomplete(self) -> list[str]:
        """``PATH: incomplete run: 100 of 300 matches`` for each run loaded before it finished."""
        return [f"{c.path}: {c.describe()}" for c in self.completeness if not c.complete]

    @property
    def skipped(self) -> int:
        """How many bad lines ``skip_bad`` left out."""
        return self.stats.skipped


#: bytes of JSON lines parsed at a time by :func:`load`
CHUNK_BYTES = 32 << 20


def _read_part(path: Path, kind: str, check: bool, skip_bad: bool, stats: ScanStats, prepare, spool) -> None:
    """Parse one part in chunks of about ``CHUNK_BYTES``, spooling each prepared chunk.

    Polars holds a whole JSONL file (several times its size) while parsing it, and a
    parsed frame keeps its input buffer alive, so each chunk is written to a Parquet
    file by ``spool`` and dropped: memory stays bounded whatever the size of the run.
    Bad lines are found by the strict checker first, then raise or are left out.
    """
    bad_lines: set[int] = set()
    if check:
        result = reader.check_file(path, kind, max_bad=None if skip_bad else 1)
        stats.files += 1
        stats.lines += result.lines
        if result.bad:
            if not skip_bad:
                b = result.bad[0]
                raise LogLineError(b.path, b.line, b.reason)
            stats.skipped += len(result.bad)
            stats.bad.extend(result.bad)
            bad_lines = {b.line for b in result.bad}
    schema = _schema(kind)
    buf: list[bytes] = []
    size = 0

    def flush() -> None:
        nonlocal buf, size
        if buf:
            spool(prepare(pl.read_ndjson(io.BytesIO(b"".join(buf)), schema=schema).lazy()))
        buf, size = [], 0

    fh = reader.open_part(path)
    try:
        for number, raw in enumerate(fh, start=1):
            if number in bad_lines:
                continue
            buf.append(raw if raw.endswith(b"\n") else raw + b"\n")
            size += len(raw)
            if size >= CHUNK_BYTES:
                flush()
    except Exception:  # an unreadable compressed tail: the checker reported it
        if not (check and skip_bad):
            raise
    finally:
        fh.close()
    flush()


def _collect(runs, kind: str, check: bool, skip_bad: bool, stats: ScanStats, tmp: Path) -> pl.LazyFrame:
    prepare = slim_deals if kind == "deals" else (lambda lf: lf)
    files: list[Path] = []

    def spool(lf: pl.LazyFrame) -> None:
        path = tmp / f"{kind}-{len(files):06d}.parquet"
        lf.sink_parquet(path)
        files.append(path)

    frames: list[pl.LazyFrame] = []
    for run in runs:
        if Path(run).is_dir() and fresh_parquet(run, kind) is not None:
            frames.append(prepare(pl.scan_parquet(parquet_path(run, kind))))
            continue
        start = len(files)
        for part in reader.part_files(run, kind):
            _read_part(part, kind, check, skip_bad, stats, prepare, spool)
        if len(files) > start:
            frames.append(pl.scan_parquet(files[start:]))
    if not frames:
        return prepare(pl.LazyFrame(schema=_schema(kind)))
    return frames[0] if len(frames) == 1 else pl.concat(frames, how="vertical")


def load(*runs: str | os.PathLike, skip_bad: bool = False, check: bool = True) -> RunData:
    """Check and load runs for reporting; deals are slimmed (see :func:`slim_deals`).

    Raises :class:`LogLineError` (``path:line: reason``) at the first bad line unless
    ``skip_bad``; then bad lines are left out and counted in ``RunData.stats``.
    ``check=False`` skips the Python line check (Polars' own errors still stop a bad run).
    Only complete parts are read: a run stopped before it finished gives an
    :class:`IncompleteRunWarning` (``PATH: incomplete run: 100 of 300 matches``) and
    ``RunData.incomplete`` / ``RunData.completeness`` say the same.
    Lines are parsed in chunks of ``CHUNK_BYTES`` and spooled to temporary Parquet, so
    peak memory is a few times the chunk size whatever the size of the run; reports
    then read only the columns they need.
    """
    if not runs:
        raise ValueError("no run given")
    completeness = completeness_of(*runs)
    for c in completeness:
        if not c.complete:
            warnings.warn(f"{c.path}: {c.describe()}", IncompleteRunWarning, stacklevel=2)
    stats = ScanStats()
    spool = tempfile.TemporaryDirectory(prefix="guandan-analyze-")
    tmp = Path(spool.name)
    try:
        deals = _collect(runs, "deals", check, skip_bad, stats, tmp)
        matches = _collect(runs, "matches", check, skip_bad, stats, tmp)
    except BaseException:
        spool.cleanup()
        raise
    return RunData(deals, matches, stats, spool, completeness)


def convert_to_parquet(
    run: str | os.PathLike, *, skip_bad: bool = False, stats: ScanStats | None = None
) -> list[Path]:
    """Write ``deals.parquet`` and ``matches.parquet`` into the run directory ``run``.

    Every line is checked first (bad lines raise, or are skipped with ``skip_bad``);
    lines are parsed in bounded chunks, as in :func:`load`. Each file is written under
    a temporary name and renamed, so a reader never sees half a file. Returns the
    paths written.
    """
    run = Path(run)
    if not run.is_dir():
        raise LogReadError(f"{run}: not a run directory")
    stats = stats if stats is not None else ScanStats()
    written = []
    for kind in KINDS:
        files = reader.part_files(run, kind)
        if not files:
            continue
        target = parquet_path(run, kind)
        tmp_target = target.with_name(target.name + ".tmp")
        with tempfile.TemporaryDirectory(prefix="guandan-convert-") as tmp:
            chunks: list[Path] = []

            def spool(lf: pl.LazyFrame, chunks=chunks, tmp=tmp) -> None:
                path = Path(tmp) / f"{len(chunks):06d}.parquet"
                lf.sink_parquet(path)
                chunks.append(path)

            for part in files:
                _read_part(part, kind, True, skip_bad, stats, lambda lf: lf, spool)
            try:
                if chunks:
                    pl.scan_parquet(chunks).sink_parquet(tmp_target)
                else:
                    pl.DataFrame(schema=_schema(kind)).write_parquet(tmp_target)
                os.replace(tmp_target, target)
            finally:
                tmp_target.unlink(missing_ok=True)
        written.append(target)
    return written


__all__ = [
    "IncompleteRunWarning",
    "LogLineError",
    "LogReadError",
    "RunData",
    "ScanStats",
    "completeness_of",
    "convert_to_parquet",
    "fresh_parquet",
    "load",
    "parquet_path",
    "scan_deals",
    "scan_matches",
    "slim_deals",
]

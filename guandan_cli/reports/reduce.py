"""Reports over runs of any size: partials per chunk of parts, in worker processes, merged.

:func:`reduce_runs` splits the runs into :class:`Chunk` s (consecutive parts of one run, or
row ranges of a fresh Parquet copy), has the backend's workers read each chunk with every
load-time check (:func:`reduce_chunk`: a bad line is an error naming file and line, as in
:func:`~guandan_cli.reports.loading.load`) and reduce it to the partials of the reports
asked (:mod:`.aggregate`) plus a one-row-per-match summary for the checks between deals and
match records; the partials are merged in chunk order and finalised. A worker holds one
block of records at a time, so memory does not grow with the run.

The checks between consecutive lines carry across parts: a chunk that starts within a
run also reads the part before it (its records are checked, not counted), so the first
line of the chunk is compared with the line before it, as a single reader would.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from guandan_cli.logs import reader
from guandan_cli.logs.reader import ScanStats

from . import loading

#: rows reduced at a time inside a worker (each block's partials are merged as it goes)
BLOCK_ROWS = 100_000
#: chunks per worker, at least: enough for an even share of the work
CHUNKS_PER_WORKER = 4
#: the fewest parts in a chunk that starts within a run (it reads the part before it too)
MIN_CHUNK_PARTS = 8
#: the most: a worker's memory does not depend on the run's size
MAX_CHUNK_PARTS = 32
#: runs smaller than this (JSONL bytes) are reduced in this process: starting workers costs more
IN_PROCESS_BYTES = 64 << 20


@dataclass(frozen=True)
class Chunk:
    """Work for one worker: ``files`` (consecutive parts of one run, ``warmup`` the part
    read before them for the checks between lines) or rows ``[offset, offset+rows)`` of
    the Parquet copy ``parquet``."""

    kind: str
    files: tuple = ()
    warmup: object = None
    parquet: Path | None = None
    offset: int = 0
    rows: int = 0


@dataclass(frozen=True)
class Job:
    """What every chunk is reduced to: the reports (``name``, grouping) and how lines are read."""

    names: tuple[str, ...]
    by: tuple[str, ...] | None
    check: bool
    skip_bad: bool
    summarise: bool  # keep what the checks between deals and match records need
    left_out: tuple[tuple[str, int, int], ...] = ()  # matches left out (--skip-bad, changed parts)


@dataclass
class ChunkResult:
    partials: dict[str, tuple[pl.DataFrame, ...]]
    summary: pl.DataFrame | None
    stats: ScanStats
    #: a read error as ``(class, arguments)``: raised again in the parent (``LogLineError``
    #: takes three arguments, which pickling an exception would lose)
    error: tuple[type, tuple] | None = None


@dataclass
class Reduction(loading.ReadFacts):
    """The finalised reports, and what reading the runs found (as :class:`~.loading.RunData` says it)."""

    results: dict[str, pl.DataFrame]


def _reports(job: Job, kind: str):
    from . import REPORTS

    return [(n, REPORTS[n]) for n in job.names if REPORTS[n].source == kind]


def _options(report, job: Job) -> dict:
    return {"by": job.by} if report.groupable and job.by is not None else {}


def _blocks(chunk: Chunk, job: Job, stats: ScanStats) -> Iterator[pl.DataFrame]:
    """The chunk's checked records, a block at a time (the warm-up part's left out)."""
    if chunk.parquet is not None:
        scan = pl.scan_parquet(chunk.parquet).slice(chunk.offset, chunk.rows)
        frame = scan.with_columns(loading.RUN_ID_CATEGORICAL)
        yield (loading.slim_deals(frame) if chunk.kind == "deals" else frame).collect()
        return
    heavy = loading.HEAVY_DEAL_COLUMNS if chunk.kind == "deals" else ()
    files = ([chunk.warmup] if chunk.warmup is not None else []) + list(chunk.files)
    frames = reader.checked_frames(
        files, chunk.kind, check=job.check, skip_bad=job.skip_bad, stats=stats, without=heavy
    )
    for frame in frames:
        if chunk.warmup is not None and str(chunk.warmup) not in stats.part_lines:
            continue  # the part before the chunk: read for the checks between lines only
        yield frame.with_columns(loading.RUN_ID_CATEGORICAL)


def _without_warmup(stats: ScanStats, warmup) -> ScanStats:
    """``stats`` less what reading the warm-up part added (its own chunk counts it)."""
    if warmup is None:
        return stats
    key = str(warmup)
    bad = [b for b in stats.bad if b.path != key]
    lines = stats.part_lines.pop(key, 0)
    stats.changed.pop(key, None)
    return ScanStats(
        files=stats.files - 1,
        lines=stats.lines - lines,
        skipped=stats.skipped - (len(stats.bad) - len(bad)),
        bad=bad,
        part_lines=stats.part_lines,
        changed=stats.changed,
    )


def reduce_chunk(task: tuple[Chunk, Job]) -> ChunkResult:
    """Read one chunk with every check and reduce it to partials (top-level: workers import it)."""
    try:
        return _reduce_chunk(*task)
    except reader.LogLineError as exc:
        return ChunkResult({}, None, ScanStats(), (type(exc), (exc.path, exc.line, exc.reason)))
    except reader.LogReadError as exc:
        return ChunkResult({}, None, ScanStats(), (type(exc), (str(exc),)))


def _reduce_chunk(chunk: Chunk, job: Job) -> ChunkResult:
    reports = _reports(job, chunk.kind)
    stats = ScanStats()
    keep = loading.keep_filter(job.left_out)
    partials: dict[str, list] = {name: [] for name, _ in reports}
    summaries: list[pl.DataFrame] = []
    pending: list[pl.DataFrame] = []

    def reduce(frames: list[pl.DataFrame]) -> None:
        lazy = pl.concat(frames, how="vertical").lazy()
        if keep is not None:
            lazy = lazy.filter(keep)
        for name, report in reports:
            options = _options(report, job)
            part = report.aggregate.partial(lazy, **options)
            partials[name] = [report.aggregate.merge([*partials[name], part])]
        if job.summarise:
            summary = loading.match_summary(lazy) if chunk.kind == "deals" else _match_records(lazy)
            summaries.append(summary.collect())

    rows = 0
    for frame in _blocks(chunk, job, stats):
        pending.append(frame)
        rows += frame.height
        if rows >= BLOCK_ROWS:
            reduce(pending)
            pending, rows = [], 0
    if pending:
        reduce(pending)
    summary = None
    if summaries:
        merge = loading.merge_match_summaries if chunk.kind == "deals" else pl.concat
        summary = merge(summaries)
    return ChunkResult(
        {n: p[0] for n, p in partials.items() if p}, summary, _without_warmup(stats, chunk.warmup)
    )


def _match_records(matches: pl.LazyFrame) -> pl.LazyFrame:
    """What the checks between deals and match records read of the match records."""
    return matches.select(
        pl.col("run_id").cast(pl.String), "match", "deals", "final_levels", "winner", "capped", "error"
    )


def _file_chunks(kind: str, files: Sequence, size: int, check: bool) -> Iterator[Chunk]:
    """Consecutive parts of one run, ``size`` at a time; with ``check``, each chunk after the
    first reads the part before it for the checks between lines."""
    for start in range(0, len(files), size):
        warmup = files[start - 1] if start > 0 and check else None
        yield Chunk(kind, tuple(files[start : start + size]), warmup=warmup)


def _bytes(chunks: Sequence[Chunk]) -> int:
    """The bytes the chunks' parts hold (a Parquet copy counts as large)."""
    total = 0
    for chunk in chunks:
        if chunk.parquet is not None:
            return IN_PROCESS_BYTES
        total += sum(f.stat().st_size for f in chunk.files if isinstance(f, Path) and f.is_file())
    return total


def _parquet_chunks(kind: str, pq: Path, size: int) -> Iterator[Chunk]:
    rows = pl.scan_parquet(pq).select(pl.len()).collect().item()
    for offset in range(0, max(rows, 1), size):
        yield Chunk(kind, parquet=pq, offset=offset, rows=size)


def plan(
    runs: Sequence, kind: str, workers: int, completeness, notices: list[str], check: bool = True
) -> list[Chunk]:
    """The chunks of ``kind`` of ``runs`` (as :func:`~.loading.distinct_runs` gives them), in order."""
    sources: list[tuple[str, object]] = []
    for run in runs:
        if not isinstance(run, str | os.PathLike):  # a list of part files, of both kinds
            sources.append(("files", [Path(p) for p in run if reader.kind_of(p) == kind]))
            continue
        if Path(run).is_file() and reader.kind_of(run) != kind:
            continue
        if Path(run).is_dir():
            pq, notice = loading.parquet_status(run, kind)
            if notice is not None:
                notices.append(notice)
            if pq is not None:
                sources.append(("parquet", pq))
                continue
        sources.append(("files", reader.sources(run, kind, completeness=completeness)))
    parts = sum(len(s) for k, s in sources if k == "files")
    size = min(MAX_CHUNK_PARTS, max(MIN_CHUNK_PARTS, -(-parts // (workers * CHUNKS_PER_WORKER))))
    chunks: list[Chunk] = []
    for how, source in sources:
        if how == "parquet":
            chunks.extend(_parquet_chunks(kind, source, BLOCK_ROWS))
        else:
            chunks.extend(_file_chunks(kind, source, size, check))
    return chunks


@dataclass
class _Totals:
    """What the chunks' results add up to, folded in as they come (partials merged as they pile up)."""

    names: Sequence[str]
    stats: ScanStats = field(default_factory=ScanStats)
    partials: dict[str, list] = field(default_factory=dict)
    summaries: dict[str, list[pl.DataFrame]] = field(default_factory=lambda: {"deals": [], "matches": []})

    def add(self, chunk: Chunk, result: ChunkResult) -> None:
        from . import REPORTS

        for key in ("files", "lines", "skipped"):
            setattr(self.stats, key, getattr(self.stats, key) + getattr(result.stats, key))
        self.stats.bad.extend(result.stats.bad)
        self.stats.part_lines.update(result.stats.part_lines)
        self.stats.changed.update(result.stats.changed)
        for name, partial in result.partials.items():
            pile = self.partials.setdefault(name, [])
            pile.append(partial)
            if len(pile) >= 16:
                pile[:] = [REPORTS[name].aggregate.merge(pile)]
        if result.summary is not None:
            self.summaries[chunk.kind].append(result.summary)

    def merged(self) -> dict:
        from . import REPORTS

        return {n: REPORTS[n].aggregate.merge(p) if (p := self.partials.get(n)) else None for n in self.names}

    def check_deals_against_matches(self, completeness, runs) -> None:
        """Deal lines and match records agree (:func:`~.loading.deals_agree_with_matches`)."""
        deals = self.summaries["deals"] or [loading.match_summary(_empty("deals")).collect()]
        matches = self.summaries["matches"] or [_match_records(_empty("matches")).collect()]
        # merged, not concatenated: a Parquet slice may end inside a match, and two runs read
        # without manifests may share a run_id (their lines are then counted together, as load does)
        summary = loading.merge_match_summaries(deals)
        self.summaries = {"deals": [], "matches": []}
        loading.deals_agree_with_matches(summary.lazy(), pl.concat(matches).lazy(), completeness, runs)


def _empty(kind: str) -> pl.LazyFrame:
    """No records of ``kind``, with the columns a chunk's records have."""
    empty = pl.LazyFrame(schema=loading._schema(kind)).with_columns(loading.RUN_ID_CATEGORICAL)
    return loading.slim_deals(empty) if kind == "deals" else empty


def _empty_partials(job: Job, kind: str) -> dict[str, tuple[pl.DataFrame, ...]]:
    """The partials of no records (runs without parts of ``kind``)."""
    return {n: r.aggregate.partial(_empty(kind), **_options(r, job)) for n, r in _reports(job, kind)}


def _reduce(chunks: list[Chunk], job: Job, open_pool: Callable[[], Any] | None, small: bool):
    """The chunks' results added up (in chunk order); the first read error (in that order) raised."""
    in_process = open_pool is None or (small and (len(chunks) <= 1 or _bytes(chunks) < IN_PROCESS_BYTES))
    pool = None if in_process else open_pool()
    try:
        tasks = [(c, job) for c in chunks]
        results = pool.imap(reduce_chunk, tasks) if pool is not None else map(reduce_chunk, tasks)
        totals = _Totals(job.names)
        for chunk, result in zip(chunks, results):
            if result.error is not None:
                cls, args = result.error
                raise cls(*args)
            totals.add(chunk, result)
        if pool is not None:
            pool.close()
        return totals
    except BaseException:
        if pool is not None:
            pool.terminate()
        raise


def reduce_runs(
    runs: Sequence,
    names: Sequence[str],
    by: Sequence[str] | None = None,
    *,
    check: bool = True,
    skip_bad: bool = False,
    workers: int = 1,
    open_pool: Callable[[], Any] | None = None,
    in_process_when_small: bool = True,
) -> Reduction:
    """The reports ``names`` over ``runs`` (what :func:`~.loading.load` reads, with the same
    checks and errors), reduced chunk by chunk.

    ``open_pool()`` starts the workers (an object with ``imap``, ``close`` and ``terminate``,
    as ``guandan_cli.runner.backends.open_backend`` returns; ``analyze`` passes its
    ``--workers``/``--backend``), of which there are ``workers`` (for sharing the work out).
    Without it, or for a run under ``IN_PROCESS_BYTES`` (unless ``in_process_when_small`` is
    false), the chunks are reduced in this process."""
    runs = loading.distinct_runs(runs)
    completeness = loading.completeness_of(*runs)
    notices: list[str] = []
    job = Job(tuple(names), tuple(by) if by else None, check, skip_bad, summarise=check and not skip_bad)
    chunks = [c for kind in loading.KINDS for c in plan(runs, kind, workers, completeness, notices, check)]
    totals = _reduce(chunks, job, open_pool, in_process_when_small)
    if job.summarise:
        totals.check_deals_against_matches(completeness, runs)
    stats = totals.stats
    left_out = loading.changed_parts(stats, skip_bad, notices)
    if left_out:  # --skip-bad: the matches of a changed part are left out of every report
        job = Job(job.names, job.by, check, skip_bad, False, tuple(left_out))
        totals = _reduce(chunks, job, open_pool, in_process_when_small)
    return Reduction(
        _finalised(totals.merged(), job),
        stats=stats,
        completeness=[c.without_data() for c in completeness],
        notices=notices,
    )


def _finalised(partials: dict, job: Job) -> dict[str, pl.DataFrame]:
    from . import REPORTS

    out = {}
    for name in job.names:
        report = REPORTS[name]
        partial = partials[name] or _empty_partials(job, report.source)[name]
        out[name] = report.aggregate.finalise(*partial, **_options(report, job))
    return out

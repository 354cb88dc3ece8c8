"""Reading runs for reports: lazy scans, Parquet copies, checked loading.

Log parts are found and checked by :mod:`guandan_cli.logs.reader` (a corrupt,
truncated or impossible line is a :class:`LogLineError` naming file and line; with
``skip_bad=True`` such lines are left out and counted). This module adds:

- Parquet: :func:`convert_to_parquet` writes ``deals.parquet`` and ``matches.parquet``
  into a run directory once, with a record of the parts they were made from; every reader
  here then uses them instead of the JSONL parts while the run still holds exactly those
  parts (:func:`fresh_parquet`; an out-of-date or unreadable copy is passed over, and
  :func:`load` says so in ``RunData.notices``).
- :func:`scan_deals` / :func:`scan_matches`: lazy frames over one or more runs.
- :func:`load`: parses every line with Polars, checks it (vectorised invariants: an
  impossible record is an error naming file and line, or is skipped and counted), and
  keeps the deal columns reports use (hands, actions and seeds dropped; see
  :func:`slim_deals`) in memory, so many reports run over a large run without
  re-reading JSON, and the frames stay valid however long they are kept.
"""

from __future__ import annotations

import json
import os
import tempfile
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from guandan_cli.logs import reader
from guandan_cli.logs.layout import Completeness, run_completeness
from guandan_cli.logs.manifest import RunFolder
from guandan_cli.logs.reader import LogLineError, LogReadError, ScanStats
from guandan_cli.logs.schema import deal_schema, match_schema


class LogMismatchError(LogReadError):
    """Deal lines and match records of a run disagree (a part cut short, emptied or lost)."""


class PartChangedError(LogReadError):
    """A part whose bytes are not those its run's manifest records (sha256), although every
    line of it passes the checks: lines removed, reordered or edited into other records."""


KINDS = ("deals", "matches")


def _schema(kind: str) -> dict:
    return deal_schema() if kind == "deals" else match_schema()


#: columns dropped by :func:`slim_deals` (large, and no report needs them)
HEAVY_DEAL_COLUMNS = ("hands", "actions", "match_seed", "deal_seed")


def parquet_path(run: str | os.PathLike, kind: str) -> Path:
    """Where :func:`convert_to_parquet` writes ``kind`` (``deals``/``matches``) for ``run``."""
    return Path(run) / f"{kind}.parquet"


#: the Parquet key-value metadata entry that records what a copy was made from
SOURCE_KEY = "guandan_source"


def _sha256(path: Path) -> str:
    import hashlib

    with open(path, "rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def source_record(run: str | os.PathLike, kind: str, *, digests: bool = True) -> dict | None:
    """What ``run``'s ``kind`` Parquet copy is made from: the record :func:`convert_to_parquet` keeps in it.

    The manifest's ``run_id`` and, for each part read (``reader.sources``), its name, size,
    mtime and sha256 (``None`` without ``digests``). ``None`` when the run cannot be summed
    up so (a journaled part: its matches are still coming).
    """
    run = Path(run)
    try:
        manifest = RunFolder.read(run).manifest
        files = reader.sources(run, kind)
    except (LogReadError, ValueError):
        return None
    if any(not isinstance(p, Path) for p in files):  # journaled matches: read them as they are now
        return None
    parts = []
    for f in files:
        try:
            st = f.stat()
            parts.append([f.name, st.st_size, st.st_mtime_ns, _sha256(f) if digests else None])
        except OSError:
            return None
    run_id = manifest.run_id if manifest else None
    return {"kind": kind, "run_id": run_id, "parts": parts}


def _same_sources(recorded: dict, run: Path, kind: str) -> bool:
    """Whether ``run`` holds now the parts ``recorded`` (same run_id, names, sizes and bytes).

    A part whose size and mtime are those recorded is taken as unchanged; one with another
    mtime (a copy of the run, a part rewritten) is hashed and compared with the recorded sha256.
    """
    now = source_record(run, kind, digests=False)
    if now is None or not isinstance(recorded, dict):
        return False
    old_parts = recorded.get("parts")
    if (
        recorded.get("kind") != kind
        or recorded.get("run_id") != now["run_id"]
        or not isinstance(old_parts, list)
    ):
        return False
    if len(old_parts) != len(now["parts"]):
        return False
    for old, (name, size, mtime, _none) in zip(old_parts, now["parts"]):
        if not isinstance(old, list) or len(old) != 4 or old[0] != name or old[1] != size:
            return False
        if old[2] != mtime:
            try:
                if _sha256(run / name) != old[3]:
                    return False
            except OSError:
                return False
    return True


def parquet_status(run: str | os.PathLike, kind: str) -> tuple[Path | None, str | None]:
    """``(the fresh copy, None)``, or ``(None, why it is not used)``; ``(None, None)`` when there is none.

    A copy is used only if the record of its sources (written into it by
    :func:`convert_to_parquet`, see :func:`source_record`) matches the run now: the same
    ``run_id``, the same parts, each with the same size and bytes (sha256, computed
    again only for a part whose mtime changed). A copy of an earlier run in the same
    folder (``simulate --force``), of a run since resumed or edited, one without that
    record, or one whose footer cannot be read is not used.
    """
    pq = parquet_path(run, kind)
    if not pq.is_file():
        return None, None
    try:
        meta = pl.read_parquet_metadata(pq)
    except Exception as exc:  # noqa: BLE001 - garbage, truncated: Polars' and the OS's errors
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return None, (
            f"{pq}: not a readable Parquet file ({first}); reading the JSONL parts instead "
            "(analyze --to-parquet writes it again)"
        )
    try:
        recorded = json.loads(meta.get(SOURCE_KEY, "null"))
    except ValueError:
        recorded = None
    if recorded is None:
        return None, (
            f"{pq}: no record of the parts it was made from (an older guandan, or a run still "
            "being written); reading the JSONL parts instead (analyze --to-parquet writes it again)"
        )
    if not _same_sources(recorded, Path(run), kind):
        return None, (
            f"{pq}: out of date (made from other parts than the run now holds); "
            "reading the JSONL parts instead (analyze --to-parquet writes it again)"
        )
    return pq, None


def fresh_parquet(run: str | os.PathLike, kind: str) -> Path | None:
    """``run``'s Parquet copy of ``kind`` if it was made from the run as it is now (:func:`parquet_status`), else None."""
    return parquet_status(run, kind)[0]


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
    """A run loaded before it finished: reports cover its finished matches only."""


def completeness_of(*runs: str | os.PathLike | Sequence[str | os.PathLike]) -> list[Completeness]:
    """The :class:`~guandan_cli.logs.layout.Completeness` of each run directory among ``runs``.

    A directory of run directories gives one entry per run in it; part files, lists of
    part files and directories without a manifest give none.
    """
    out = []
    for run in runs:
        if not isinstance(run, str | os.PathLike):
            continue
        path = Path(run)
        if not path.is_dir():
            continue
        dirs = (
            [path] if (path / "manifest.json").is_file() else sorted(q for q in path.iterdir() if q.is_dir())
        )
        for d in dirs:
            try:
                manifest = RunFolder.read(d).manifest
                if manifest is not None:
                    out.append(run_completeness(d, manifest))
            except ValueError as exc:
                raise LogReadError(str(exc)) from None
    return out


def _holds_parts(d: Path) -> bool:
    return (d / "manifest.json").is_file() or any(
        q.is_file() and q.name.startswith(KINDS) and ".jsonl" in q.name for q in d.iterdir()
    )


def _is_path(run: object) -> bool:
    return isinstance(run, str | os.PathLike)


def distinct_runs(runs: Sequence) -> tuple:
    """``runs`` with each run and part once: what :func:`load` reads.

    A run given twice (``R R``, ``R R/``, through a symlink), a part of a run also given
    whole, a run also reached through the folder of runs holding it: each is read once
    (a folder of runs stands for its runs). Two different folders holding the same run
    (the same manifest ``run_id``: a copy) raise :class:`LogReadError`: pooling copies
    would count every match twice and narrow the confidence intervals for nothing.
    """
    items: list = []
    for run in runs:
        if isinstance(run, str | os.PathLike) and Path(run).is_dir() and not _holds_parts(Path(run)):
            subs = sorted(q for q in Path(run).iterdir() if q.is_dir() and _holds_parts(q))
            items.extend(subs or [run])  # no run in it: kept, for the reader to say so
        else:
            items.append(run)
    dirs = {Path(r).resolve() for r in items if isinstance(r, str | os.PathLike) and Path(r).is_dir()}
    out: list = []
    seen: set[Path] = set()
    for run in items:
        if not isinstance(run, str | os.PathLike):  # a list of part files
            files = [f for f in run if Path(f).resolve() not in seen and Path(f).resolve().parent not in dirs]
            seen.update(Path(f).resolve() for f in files)
            if files:
                out.append(files)
            continue
        key = Path(run).resolve()
        if key in seen or (Path(run).is_file() and key.parent in dirs):
            continue
        seen.add(key)
        out.append(run)
    by_id: dict[str, Path] = {}
    for run in out:
        if not isinstance(run, str | os.PathLike) or not Path(run).is_dir():
            continue
        try:
            manifest = RunFolder.read(run).manifest
        except ValueError:
            continue  # said when the run is read
        run_id = manifest.run_id if manifest is not None else None
        if run_id is None:
            continue
        if run_id in by_id:
            raise LogReadError(
                f"{by_id[run_id]} and {run} hold the same run (run_id {run_id}): pooling copies "
                "counts every match twice; give one of them"
            )
        by_id[run_id] = Path(run)
    return tuple(out)


@dataclass(kw_only=True)
class ReadFacts:
    """What reading runs found besides their records: bad lines, each run's completeness, notices."""

    stats: ScanStats = field(default_factory=ScanStats)
    #: each run directory's completeness (reports cover its finished matches: complete parts and journals)
    completeness: list[Completeness] = field(default_factory=list)
    #: one line for each Parquet copy passed over (out of date, unreadable): its JSONL parts were read
    notices: list[str] = field(default_factory=list)

    @property
    def incomplete(self) -> list[str]:
        """``PATH: incomplete run: 100 of 300 matches`` for each run read before it finished."""
        return [f"{c.path}: {c.describe()}" for c in self.completeness if not c.complete]

    @property
    def skipped(self) -> int:
        """How many bad lines ``skip_bad`` left out."""
        return self.stats.skipped


@dataclass
class RunData(ReadFacts):
    """Checked logs of one or more runs, ready for reports.

    ``deals`` and ``matches`` are lazy frames that stand on their own: over the runs' own
    Parquet copies when fresh, else over checked, slimmed records held in memory (about
    300 bytes per deal). ``run_id`` is categorical (see ``RUN_ID_CATEGORICAL``). Nothing is deleted when this object is dropped, so
    ``tribute_effect(load("runs/demo").deals)`` works.
    """

    deals: pl.LazyFrame
    matches: pl.LazyFrame


#: ``run_id`` as a categorical: 16 hex digits repeated on every row are the largest key of
#: the reports' joins and group-bys; a categorical holds them once (a third less peak memory)
RUN_ID_CATEGORICAL = pl.col("run_id").cast(pl.Categorical)


def _frames(files, kind: str, check: bool, skip_bad: bool, stats: ScanStats, without=()):
    """Checked frames of every part in ``files`` (see :func:`reader.checked_frames`)."""
    return reader.checked_frames(files, kind, check=check, skip_bad=skip_bad, stats=stats, without=without)


def _collect(
    runs,
    kind: str,
    check: bool,
    skip_bad: bool,
    stats: ScanStats,
    completeness: Sequence[Completeness] = (),
    notices: list[str] | None = None,
) -> pl.LazyFrame:
    # every field is checked; the heavy ones are left out (hands and actions checked from their text)
    heavy = [c for c in HEAVY_DEAL_COLUMNS if kind == "deals"]
    frames: list[pl.DataFrame | pl.LazyFrame] = []
    for run in runs:
        if not isinstance(run, str | os.PathLike):  # a list of part files, of both kinds
            files = [Path(p) for p in run if reader.kind_of(p) == kind]
        elif Path(run).is_file() and reader.kind_of(run) != kind:
            continue  # a part file of the other kind: it is read in the other pass
        else:
            if Path(run).is_dir():
                pq, notice = parquet_status(run, kind)
                if notice is not None and notices is not None:
                    notices.append(notice)
                if pq is not None:
                    scan = pl.scan_parquet(pq).with_columns(RUN_ID_CATEGORICAL)
                    frames.append(slim_deals(scan) if kind == "deals" else scan)
                    continue
            files = reader.sources(run, kind, completeness=completeness)
        for frame in _frames(files, kind, check, skip_bad, stats, heavy):
            frames.append(frame.with_columns(RUN_ID_CATEGORICAL))
    if not frames:
        empty = pl.LazyFrame(schema=_schema(kind)).with_columns(RUN_ID_CATEGORICAL)
        return slim_deals(empty) if kind == "deals" else empty
    lazy = [f.lazy() for f in frames]
    return lazy[0] if len(lazy) == 1 else pl.concat(lazy, how="vertical")


def load(
    *runs: str | os.PathLike | Sequence[str | os.PathLike], skip_bad: bool = False, check: bool = True
) -> RunData:
    """Check and load runs for reporting; deals are slimmed (see :func:`slim_deals`).

    Each run is a run directory, a part file, a directory of runs, or a list of part
    files (deals and matches parts; e.g. the complete parts of an unfinished run). Every line is parsed by Polars with the declared schema and checked by the
    vectorised invariants of :mod:`guandan_cli.logs.invariants` (``guandan verify``
    goes further: it replays every action through the engine). Raises :class:`LogLineError`
    (``path:line: reason``) at the first bad line unless ``skip_bad``; then bad lines are
    left out and counted in ``RunData.stats``. ``check=False`` skips the checks (Polars'
    own errors still stop a malformed run). The result holds its records in memory (or
    scans the runs' fresh Parquet copies) and stays valid on its own. A run stopped before
    it finished is read as far as it went: its complete parts and the verified matches
    of its journals (see :func:`guandan_cli.logs.reader.sources`); it gives an
    :class:`IncompleteRunWarning` (``PATH: incomplete run: 232 of 300 matches``, every
    finished match counted) and ``RunData.incomplete`` / ``RunData.completeness`` say the same.
    """
    if not runs:
        raise ValueError("no run given")
    for run in runs:
        if not _is_path(run) and (
            isinstance(run, bytes) or not isinstance(run, Sequence) or not all(map(_is_path, run))
        ):
            raise TypeError(
                f"load(): {run!r} is not a path (a run directory, a part file or a list of part files)"
            )
    runs = distinct_runs(runs)
    completeness = completeness_of(*runs)
    for c in completeness:
        if not c.complete:
            warnings.warn(f"{c.path}: {c.describe()}", IncompleteRunWarning, stacklevel=2)
    stats = ScanStats()
    notices: list[str] = []
    deals = _collect(runs, "deals", check, skip_bad, stats, completeness, notices)
    matches = _collect(runs, "matches", check, skip_bad, stats, completeness, notices)
    if check and not skip_bad:  # with skip_bad, a skipped deal line leaves its match short on purpose
        deals_agree_with_matches(match_summary(deals), matches, completeness, runs)
    keep = keep_filter(changed_parts(stats, skip_bad, notices))
    if keep is not None:
        deals, matches = deals.filter(keep), matches.filter(keep)
    return RunData(
        deals, matches, stats=stats, completeness=[c.without_data() for c in completeness], notices=notices
    )


def keep_filter(left_out: Sequence[tuple[str, int, int]]) -> pl.Expr | None:
    """The rows outside the matches ``left_out`` (``(run_id, first, stop)`` each); ``None`` for none."""
    keep = None
    for run_id, first, stop in left_out:
        out = ~((pl.col("run_id").cast(pl.String) == run_id) & pl.col("match").is_between(first, stop - 1))
        keep = out if keep is None else keep & out
    return keep


def changed_parts(stats: ScanStats, skip_bad: bool, notices: list[str]) -> list[tuple[str, int, int]]:
    """Refuse a part whose sha256 is not its manifest's while every line of it passed the checks
    (:class:`PartChangedError`, one line naming the part and both digests); with ``skip_bad``,
    return its matches (``(run_id, first, stop)``) to leave out (of both kinds) with a note.
    A changed part with bad lines has been refused (or had them left out) by line already:
    its damage is named."""
    flagged = {Path(b.path) for b in stats.bad}
    quiet = [(Path(f), want, got) for f, (want, got) in stats.changed.items() if Path(f) not in flagged]
    left: list[tuple[str, int, int]] = []
    if not quiet:
        for f, (want, got) in stats.changed.items():
            notices.append(f"note: {f}: its sha256 {got[:12]}… is not the manifest's {want[:12]}…")
        return left
    if not skip_bad:
        f, want, got = quiet[0]
        more = f" (and {len(quiet) - 1} more part{'s' if len(quiet) > 2 else ''})" if len(quiet) > 1 else ""
        raise PartChangedError(
            f"{f}: changed since it was written: its sha256 is {got}, the manifest records {want}"
            f"{more}; guandan verify {f.parent} names what changed (or analyze --skip-bad leaves it out)"
        )
    for f, (want, got) in stats.changed.items():
        if (f := Path(f)) in flagged:
            notices.append(f"note: {f}: its sha256 {got[:12]}… is not the manifest's {want[:12]}…")
            continue
        left_out = _part_rows(f)
        if left_out is None:
            continue
        run_id, first, stop = left_out
        left.append(left_out)
        notices.append(
            f"note: {f}: left out (--skip-bad), matches {first}..{stop - 1}: its sha256 {got[:12]}… "
            f"is not the manifest's {want[:12]}…"
        )
    return left


def _part_rows(part: Path) -> tuple[str, int, int] | None:
    """``(run_id, first match, stop)`` of a run's part file, from its manifest (``None`` without one)."""
    try:
        manifest = RunFolder.read(part.parent).manifest
    except ValueError:
        return None
    bounds = reader.part_bounds(part, manifest)
    run_id = manifest.run_id if manifest is not None else None
    if bounds is None or run_id is None:
        return None
    return run_id, bounds[0], bounds[1]


#: what :func:`match_summary` keeps of a match's last deal line
LAST_DEAL_COLUMNS = ("deal", "levels_after", "match_over", "match_winner", "_dcapped")


def match_summary(deals: pl.LazyFrame) -> pl.LazyFrame:
    """One row per match of ``deals``: its deal lines (``_lines``) and its last deal's
    :data:`LAST_DEAL_COLUMNS`, what :func:`deals_agree_with_matches` compares with the match
    records. Summaries of parts of the deals merge with :func:`merge_match_summaries`."""
    keys = ["run_id", "match"]
    return (
        deals.select(
            pl.col("run_id").cast(pl.String), "match", "deal", "levels_after", "match_over", "match_winner",
            pl.col("capped").alias("_dcapped"),
        )
        .sort([*keys, "deal"])
        .group_by(keys)
        .agg(pl.len().alias("_lines"), *[pl.col(c).last() for c in LAST_DEAL_COLUMNS])
    )  # fmt: skip


def merge_match_summaries(summaries: Sequence[pl.DataFrame]) -> pl.DataFrame:
    """The :func:`match_summary` of the deals the ``summaries`` were made from, together."""
    keys = ["run_id", "match"]
    return (
        pl.concat(summaries, how="vertical")
        .group_by(keys)
        .agg(pl.col("_lines").sum(), *[pl.col(c).sort_by("deal").last() for c in LAST_DEAL_COLUMNS])
    )


def deals_agree_with_matches(summary: pl.LazyFrame, matches, completeness, runs) -> None:
    """Each match record's ``deals`` equals its deal lines, and each deal has its match record.

    A deals part cut short by hand, emptied or missing would otherwise give match reports
    and deal reports over different matches without a word. Raises :class:`LogMismatchError`
    naming run and match. Runs read without match records (deal parts alone) are not
    compared; nor are loads with ``skip_bad``, where a skipped line shortens its match.
    ``summary`` is the deals' :func:`match_summary`.
    """
    keys = ["run_id", "match"]
    counts = summary.select(*keys, "_lines")
    records = (  # summed: the same run may be loaded twice (a copy), its records then count twice
        matches.select(pl.col("run_id").cast(pl.String), "match", "deals")
        .group_by(keys)
        .agg(pl.col("deals").sum())
    )
    with_records = records.select("run_id").unique()
    bad = (
        counts.join(with_records, on="run_id", how="semi")
        .join(records, on=keys, how="full", coalesce=True)
        .filter(pl.col("_lines").fill_null(0) != pl.col("deals").fill_null(-1))
        .sort(keys)
        .collect()
    )
    if bad.height == 0:
        _records_agree_with_last_deals(summary, matches, completeness, runs)
        return
    where = {run_id: str(path) for run_id, path in _run_paths(completeness).items()}
    only = str(runs[0]) if len(runs) == 1 and isinstance(runs[0], str | os.PathLike) else None
    problems = []
    for row in bad.iter_rows(named=True):
        run = where.get(row["run_id"]) or only or f"run {row['run_id']}"
        lines, said = row["_lines"] or 0, row["deals"]
        if said is None:
            problems.append(f"{run}: match {row['match']} has {lines} deal line(s) but no match record")
        else:
            problems.append(
                f"{run}: match {row['match']}: its match record says {said} deals, the log has {lines}"
            )
    more = f" (and {len(problems) - 1} more matches)" if len(problems) > 1 else ""
    raise LogMismatchError(problems[0] + more)


def _run_paths(completeness) -> dict[str, Path]:
    """The run directory of each manifest ``run_id`` among ``completeness``."""
    return {c.run_id: c.path for c in completeness if c.run_id is not None}


def _records_agree_with_last_deals(summary: pl.LazyFrame, matches, completeness, runs) -> None:
    """Each match record says what its last deal line says: ``final_levels`` its
    ``levels_after``; not errored, that the deal ended the match, its ``winner`` and ``capped``
    the deal's; errored, that it did not end it and no winner (what ``guandan verify`` checks too).

    Raises :class:`LogMismatchError` naming the match record's file and line (``PATH:LINE:
    match 7: winner is 1, its last deal (deal 11) gives 0``), the first of them, and how many more.
    """
    keys = ["run_id", "match"]
    last = summary.select(*keys, *LAST_DEAL_COLUMNS)
    records = matches.select(
        pl.col("run_id").cast(pl.String), "match", "final_levels", "winner", "capped", "error"
    )
    ok = pl.col("error").is_null()
    joined = records.join(last, on=keys, how="inner")
    bad = (
        joined.filter(
            (pl.col("final_levels") != pl.col("levels_after"))
            | (ok & ~pl.col("match_over"))
            | (~ok & pl.col("match_over"))
            | (ok & (pl.col("winner").eq_missing(pl.col("match_winner")).not_()))
            | (ok & (pl.col("capped") != pl.col("_dcapped")))
            | (~ok & pl.col("winner").is_not_null())
        )
        .sort(keys)
        .collect()
    )
    if bad.height == 0:
        return
    where = _run_paths(completeness)
    problems = []
    for row in bad.iter_rows(named=True):
        said = _disagreements(row)
        place = _match_record_place(where.get(row["run_id"]), row["match"])
        if place is None:
            run = where.get(row["run_id"]) or (runs[0] if len(runs) == 1 else f"run {row['run_id']}")
            place = str(run)
        problems.append(f"{place}: match {row['match']}: {said}")
    more = f" (and {len(problems) - 1} more matches)" if len(problems) > 1 else ""
    raise LogMismatchError(problems[0] + more)


def _disagreements(row: dict) -> str:
    """What a match record says that its last deal line does not (``_records_agree_with_last_deals``)."""
    deal = f"its last deal (deal {row['deal']})"
    out = []
    if row["final_levels"] != row["levels_after"]:
        out.append(f"final_levels is {row['final_levels']}, {deal} left {row['levels_after']}")
    if row["error"] is None:
        if not row["match_over"]:
            out.append(f"the match record has no error but {deal} does not end the match")
        else:
            if row["winner"] != row["match_winner"]:
                out.append(f"winner is {row['winner']}, {deal} gives {row['match_winner']}")
            if row["capped"] != row["_dcapped"]:
                out.append(f"capped is {row['capped']}, {deal} gives {row['_dcapped']}")
    else:
        if row["match_over"]:
            out.append(f"the match record has an error but {deal} ends the match")
        if row["winner"] is not None:
            out.append("an errored match has a winner")
    return "; ".join(out)


def _match_record_place(run: Path | None, match: int) -> str | None:
    """``PATH:LINE`` of match ``match``'s record in the run directory ``run`` (``None`` if not found)."""
    if run is None:
        return None
    needle = f'"match":{match},'.encode()
    for source in reader.sources(run, "matches"):
        data = source.read() if not isinstance(source, Path) else _part_bytes(source)
        for n, line in enumerate(data.splitlines(), start=1):
            if needle in line[:200]:
                return f"{source}:{n}"
    return None


def _part_bytes(path: Path) -> bytes:
    with reader.open_part(path) as fh:
        return fh.read()


def convert_to_parquet(
    run: str | os.PathLike, *, skip_bad: bool = False, stats: ScanStats | None = None
) -> list[Path]:
    """Write ``deals.parquet`` and ``matches.parquet`` into the run directory ``run``
    (into each run of a folder of runs).

    Every line is checked first, as in :func:`load` (bad lines raise, or are skipped
    with ``skip_bad``), and every field is kept. Chunks are spooled to temporary Parquet
    files, so memory stays bounded. Each file is written under a temporary name and
    renamed, so a reader never sees half a file. Returns the paths written.
    """
    run = Path(run)
    if not run.is_dir():
        raise LogReadError(f"{run}: not a run directory")
    stats = stats if stats is not None else ScanStats()
    if not _holds_parts(run):  # a folder of runs (as load reads it): a copy per run, read by nobody else
        subs = sorted(q for q in run.iterdir() if q.is_dir() and _holds_parts(q))
        if subs:
            return [p for sub in subs for p in convert_to_parquet(sub, skip_bad=skip_bad, stats=stats)]
    written = []
    for kind in KINDS:
        files = reader.sources(run, kind)
        if not files:
            continue
        record = source_record(run, kind)  # before reading: a part changed meanwhile makes it stale
        metadata = {SOURCE_KEY: json.dumps(record)} if record is not None else None
        target = parquet_path(run, kind)
        tmp_target = target.with_name(target.name + ".tmp")
        with tempfile.TemporaryDirectory(prefix="guandan-convert-") as tmp:
            chunks: list[Path] = []
            for frame in _frames(files, kind, True, skip_bad, stats):
                chunk = Path(tmp) / f"{len(chunks):06d}.parquet"
                frame.write_parquet(chunk)
                chunks.append(chunk)
            try:
                if chunks:
                    pl.scan_parquet(chunks).sink_parquet(tmp_target, metadata=metadata)
                else:
                    pl.DataFrame(schema=_schema(kind)).write_parquet(tmp_target, metadata=metadata)
                os.replace(tmp_target, target)
            finally:
                tmp_target.unlink(missing_ok=True)
        written.append(target)
    return written


__all__ = [
    "IncompleteRunWarning",
    "LogLineError",
    "LogReadError",
    "ReadFacts",
    "RunData",
    "ScanStats",
    "completeness_of",
    "convert_to_parquet",
    "distinct_runs",
    "fresh_parquet",
    "load",
    "parquet_status",
    "source_record",
    "parquet_path",
    "scan_deals",
    "scan_matches",
    "slim_deals",
]

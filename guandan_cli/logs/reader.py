"""Reading logs: lazy Polars frames over the parts of one or more runs, and a strict line checker.

API (used by reports, ``guandan verify``, ``guandan replay`` and ``Run``):

``part_files(paths, kind) -> list[Path]``
    The final part files of ``kind`` (``"deals"`` or ``"matches"``) under ``paths``: each
    path is a part file, a run directory (its ``deals-*.jsonl[.gz|.zst]`` parts, in part
    order) or a directory of run directories (one level down). In a run directory (one
    with a ``manifest.json``) only the files of complete parts are listed, as
    ``guandan_cli.logs.layout.run_completeness`` decides; ``*.tmp`` files and journals
    (parts being written) are never included. A path that holds no part raises
    ``LogReadError``.

``scan_deals(paths, *, check=True, skip_bad=False, stats=None) -> pl.LazyFrame``
``scan_matches(paths, *, check=True, skip_bad=False, stats=None) -> pl.LazyFrame``
    One lazy frame over every part, with the declared schema of
    :mod:`guandan_cli.logs.schema` (never inferred). Rows are in file order, i.e. match
    order then deal order within a run. Plain and compressed parts (gzip, zstd) are
    scanned by Polars directly. With ``check`` (the default) every line is first checked
    in Python (see ``check_file``; a file that passed is remembered by size and mtime, so
    scanning it again costs nothing). A bad line raises ``LogLineError`` naming the file
    and line; with ``skip_bad=True`` bad lines are left out instead and counted in
    ``stats`` — the good lines of such a file are then read eagerly from memory.
    ``check=False`` hands the files to Polars unchecked (fastest; errors are Polars').

``read_deals(...)`` / ``read_matches(...)``
    The same, collected into a ``pl.DataFrame``.

``check_file(path, kind=None, *, max_bad=None) -> FileCheck``
    The strict checker: each line must end with a newline (a last line without one is
    reported as truncated), be a JSON object, have exactly the schema's top-level fields
    in order (``DEAL_FIELDS`` / ``MATCH_FIELDS``) with the right JSON kinds, and
    ``"v"`` one of ``READABLE_VERSIONS``. A compressed part that cannot be decompressed to its end is
    reported as a bad line after its last complete line. ``kind`` defaults from the name.

``open_part(path)`` / ``kind_of(path)`` / ``schema_of(kind)``
    A binary stream of a part's decompressed bytes; ``deals`` or ``matches`` from a part's
    name; the declared Polars schema of a kind.

``iter_records(path, kind=None, *, skip_bad=False, stats=None) -> Iterator[(line_no, dict)]``
    The records of one part as dicts, with 1-based line numbers (raises ``LogLineError``
    at the first bad line unless ``skip_bad``).

``ScanStats``
    Filled by the functions above when passed as ``stats``: ``files``, ``lines``,
    ``skipped`` and ``bad`` (a list of ``BadLine(path, line, reason)``).

Import cost: Polars is imported only when a frame is built.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from .layout import MANIFEST, read_manifest, run_completeness
from .schema import DEAL_FIELDS, KINDS, MATCH_FIELDS, READABLE_VERSIONS
from .writer import COMPRESSIONS, TMP_SUFFIX

FIELDS = {"deals": DEAL_FIELDS, "matches": MATCH_FIELDS}
_SUFFIXES = tuple(".jsonl" + s for s in COMPRESSIONS.values())


class LogReadError(ValueError):
    """A path that holds no readable log part."""


class LogLineError(LogReadError):
    """A corrupt, truncated or foreign line: ``path:line: reason``."""

    def __init__(self, path: str | os.PathLike, line: int, reason: str) -> None:
        self.path = str(path)
        self.line = line
        self.reason = reason
        super().__init__(f"{path}:{line}: {reason}")


@dataclass(frozen=True)
class BadLine:
    path: str
    line: int
    reason: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.reason}"


@dataclass
class ScanStats:
    """Counts of a scan or check: files, lines read, bad lines skipped (and which)."""

    files: int = 0
    lines: int = 0
    skipped: int = 0
    bad: list[BadLine] = field(default_factory=list)


@dataclass
class FileCheck:
    path: Path
    kind: str
    lines: int
    bad: list[BadLine]

    @property
    def ok(self) -> bool:
        return not self.bad


# ------------------------------------------------------------------ files


def kind_of(path: str | os.PathLike) -> str:
    """``deals`` or ``matches`` from a part's file name."""
    name = Path(path).name
    for kind in KINDS:
        if name.startswith(kind + "-"):
            return kind
    raise LogReadError(f"{path}: not a log part (expected deals-*.jsonl or matches-*.jsonl)")


def _is_part(p: Path, kind: str) -> bool:
    name = p.name
    return name.startswith(kind + "-") and name.endswith(_SUFFIXES) and not name.endswith(TMP_SUFFIX)


def _dir_parts(d: Path, kind: str) -> list[Path]:
    """The parts of ``kind`` in ``d``: a run's complete parts, or every final part file."""
    try:
        manifest = read_manifest(d)
    except ValueError as exc:
        raise LogReadError(str(exc)) from None
    if manifest is not None:
        try:
            return run_completeness(d, manifest).files(kind)
        except ValueError as exc:
            raise LogReadError(str(exc)) from None
    return sorted(p for p in d.iterdir() if p.is_file() and _is_part(p, kind))


def part_files(paths: str | os.PathLike | Iterable[str | os.PathLike], kind: str) -> list[Path]:
    """The final part files of ``kind`` under ``paths`` (see the module docstring)."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    if isinstance(paths, str | os.PathLike):
        paths = [paths]
    out: list[Path] = []
    for raw in paths:
        p = Path(raw)
        if p.is_file():
            if not _is_part(p, kind):
                raise LogReadError(f"{p}: not a {kind} part (expected {kind}-NNNNN.jsonl[.gz|.zst])")
            out.append(p)
        elif p.is_dir():
            found = _dir_parts(p, kind)
            is_run = (p / MANIFEST).is_file()
            if not found and not is_run:
                for sub in sorted(q for q in p.iterdir() if q.is_dir()):
                    found.extend(_dir_parts(sub, kind))
            if not found and not is_run:
                raise LogReadError(f"{p}: no {kind} parts here (nor in its subdirectories)")
            out.extend(found)
        else:
            raise LogReadError(f"{p}: no such file or directory")
    return out


def open_part(path: str | os.PathLike) -> io.BufferedIOBase:
    """A binary stream of the decompressed part."""
    path = Path(path)
    name = path.name
    if name.endswith(".gz"):
        return gzip.open(path, "rb")
    if name.endswith(".zst"):
        import zstandard

        fh = open(path, "rb")
        return io.BufferedReader(zstandard.ZstdDecompressor().stream_reader(fh, closefd=True))
    return open(path, "rb")


# ------------------------------------------------------------------ checking


def check_line(raw: bytes, kind: str) -> tuple[dict | None, str | None]:
    """``(record, None)`` for a good line, ``(None, reason)`` for a bad one."""
    if not raw.endswith(b"\n"):
        return None, "truncated line (no newline at the end of the file)"
    try:
        obj = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        return None, f"not valid JSON ({exc})"
    if not isinstance(obj, dict):
        return None, f"not a JSON object but {type(obj).__name__}"
    fields = FIELDS[kind]
    if len(obj) != len(fields) or any(k != f for k, (f, _t) in zip(obj, fields)):
        names = [f for f, _t in fields]
        missing = [f for f in names if f not in obj]
        extra = [k for k in obj if k not in names]
        if missing or extra:
            parts = []
            if missing:
                parts.append("missing " + ", ".join(missing))
            if extra:
                parts.append("unknown " + ", ".join(extra))
            return None, f"not a {kind[:-1]} record: " + "; ".join(parts)
        return None, f"fields out of the schema's order (expected {', '.join(names)})"
    v = obj["v"]
    if v not in READABLE_VERSIONS or isinstance(v, bool):
        known = ", ".join(map(str, READABLE_VERSIONS))
        return None, f"schema version {v!r}; this reader reads versions {known}"
    for name, kinds in fields:
        value = obj[name]
        if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
            want = " or ".join("null" if k is type(None) else k.__name__ for k in kinds)
            return None, f"field {name!r} is {json.dumps(value)[:40]}, expected {want}"
    return obj, None


def _iter_raw(path: Path) -> Iterator[tuple[int, bytes | None, str | None]]:
    """(line number, raw line, None) …, or (line number, None, error) if reading fails."""
    n = 0
    try:
        with open_part(path) as fh:
            for raw in fh:
                n += 1
                yield n, raw, None
    except (OSError, EOFError, zlib.error) as exc:
        yield n + 1, None, f"unreadable after line {n} ({type(exc).__name__}: {exc})"
    except Exception as exc:  # noqa: BLE001 - zstandard.ZstdError and friends
        yield n + 1, None, f"unreadable after line {n} ({type(exc).__name__}: {exc})"


def check_file(path: str | os.PathLike, kind: str | None = None, *, max_bad: int | None = None) -> FileCheck:
    """Check every line of one part (see the module docstring); never raises for bad lines."""
    path = Path(path)
    kind = kind or kind_of(path)
    bad: list[BadLine] = []
    lines = 0
    for n, raw, err in _iter_raw(path):
        if err is not None:
            bad.append(BadLine(str(path), n, err))
            break
        lines = n
        _rec, reason = check_line(raw, kind)
        if reason is not None:
            bad.append(BadLine(str(path), n, reason))
            if max_bad is not None and len(bad) >= max_bad:
                break
    return FileCheck(path, kind, lines, bad)


def iter_records(
    path: str | os.PathLike,
    kind: str | None = None,
    *,
    skip_bad: bool = False,
    stats: ScanStats | None = None,
) -> Iterator[tuple[int, dict]]:
    """(line number, record) for each line of one part; bad lines raise or are skipped."""
    path = Path(path)
    kind = kind or kind_of(path)
    if stats is not None:
        stats.files += 1
    for n, raw, err in _iter_raw(path):
        if err is None:
            rec, err = check_line(raw, kind)
        else:
            rec = None
        if stats is not None and raw is not None:
            stats.lines += 1
        if err is not None:
            if not skip_bad:
                raise LogLineError(path, n, err)
            if stats is not None:
                stats.skipped += 1
                stats.bad.append(BadLine(str(path), n, err))
            continue
        yield n, rec


iter_raw = _iter_raw  # public name: ``guandan verify`` reads raw lines to hand them to workers

# files that passed the check: (path, size, mtime_ns) -> line count
_CHECKED: dict[tuple[str, int, int], int] = {}


def _stat_key(path: Path) -> tuple[str, int, int]:
    st = path.stat()
    return (str(path.resolve()), st.st_size, st.st_mtime_ns)


# ------------------------------------------------------------------ frames


def schema_of(kind: str) -> dict:
    """The declared Polars schema of ``kind`` (``deals`` or ``matches``)."""
    from .schema import deal_schema, match_schema

    return deal_schema() if kind == "deals" else match_schema()


_schema = schema_of  # the old private name, still used by guandan_cli.reports.loading


def _good_lines(path: Path, kind: str, skip_bad: bool, stats: ScanStats | None) -> bytes | None:
    """``None`` when every line is good; else the good lines (or raise, without skip_bad)."""
    key = _stat_key(path)
    if key in _CHECKED:
        if stats is not None:
            stats.files += 1
            stats.lines += _CHECKED[key]
        return None
    good: list[bytes] = []
    any_bad = False
    n_lines = 0
    for n, raw, err in _iter_raw(path):
        if err is None:
            n_lines = n
            _rec, err = check_line(raw, kind)
        if err is not None:
            if not skip_bad:
                raise LogLineError(path, n, err)
            any_bad = True
            if stats is not None:
                stats.skipped += 1
                stats.bad.append(BadLine(str(path), n, err))
            continue
        good.append(raw)
    if stats is not None:
        stats.files += 1
        stats.lines += n_lines
    if not any_bad:
        _CHECKED[key] = n_lines
        return None
    return b"".join(good)


def _scan(paths, kind: str, check: bool, skip_bad: bool, stats: ScanStats | None):
    import polars as pl

    schema = _schema(kind)
    files = part_files(paths, kind)
    frames = []
    for f in files:
        good = _good_lines(f, kind, skip_bad, stats) if check else None
        if good is None:
            frames.append(pl.scan_ndjson(f, schema=schema))
        elif good:
            frames.append(pl.read_ndjson(io.BytesIO(good), schema=schema).lazy())
    if not frames:
        return pl.DataFrame(schema=schema).lazy()
    if len(frames) == 1:
        return frames[0]
    return pl.concat(frames, how="vertical")


def scan_deals(paths, *, check: bool = True, skip_bad: bool = False, stats: ScanStats | None = None):
    """A ``pl.LazyFrame`` of the deal records of every part under ``paths``."""
    return _scan(paths, "deals", check, skip_bad, stats)


def scan_matches(paths, *, check: bool = True, skip_bad: bool = False, stats: ScanStats | None = None):
    """A ``pl.LazyFrame`` of the match records of every part under ``paths``."""
    return _scan(paths, "matches", check, skip_bad, stats)


def read_deals(paths, **kwargs):
    """``scan_deals(paths, **kwargs).collect()``."""
    return scan_deals(paths, **kwargs).collect()


def read_matches(paths, **kwargs):
    """``scan_matches(paths, **kwargs).collect()``."""
    return scan_matches(paths, **kwargs).collect()


__all__ = [
    "BadLine",
    "FileCheck",
    "LogLineError",
    "LogReadError",
    "ScanStats",
    "check_file",
    "check_line",
    "iter_raw",
    "iter_records",
    "kind_of",
    "open_part",
    "part_files",
    "read_deals",
    "read_matches",
    "scan_deals",
    "schema_of",
    "scan_matches",
]

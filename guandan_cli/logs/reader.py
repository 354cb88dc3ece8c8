"""Reading logs: lazy Polars frames over the parts of one or more runs, and a strict line checker.

API (used by reports, ``guandan verify``, ``guandan replay`` and ``Run``):

``part_files(paths, kind) -> list[Path]``
    The final part files of ``kind`` (``"deals"`` or ``"matches"``) under ``paths``: each
    path is a part file, a run directory (its ``deals-*.jsonl[.gz|.zst]`` parts, in part
    order) or a directory of run directories (one level down). In a run directory (one
    with a ``manifest.json``) only the files of complete parts are listed, as
    ``guandan_cli.logs.layout.run_completeness`` decides; ``*.tmp`` files and journals
    (parts being written) are never included. A path that holds no part raises
    ``LogReadError``. ``guandan verify`` and ``guandan replay`` read these.

``sources(paths, kind, *, completeness=()) -> list[Path | JournalSource]``
    The same, plus the finished matches of a run's unfinished parts: for each part not
    complete, its journal's verified entries in match order, as a ``JournalSource``
    (``part-00002.journal[deals]``; see ``guandan_cli.logs.layout``) that every function
    below reads like a part file. A part is read from its files or its journal, never
    both. The scans below, ``load`` and ``analyze`` read sources.

``scan_deals(paths, *, check=True, skip_bad=False, stats=None) -> pl.LazyFrame``
``scan_matches(paths, *, check=True, skip_bad=False, stats=None) -> pl.LazyFrame``
    One lazy frame over every source (``sources``), with the declared schema of
    :mod:`guandan_cli.logs.schema` (never inferred). Rows are in file order, i.e. match
    order then deal order within a run. Plain and compressed parts (gzip, zstd) are
    scanned by Polars directly. With ``check`` (the default) every line is first checked
    by ``checked_frames`` (files that passed are remembered by size and mtime, so
    scanning them again costs nothing). A bad line raises ``LogLineError`` naming the
    file and line; with ``skip_bad=True`` bad lines are left out instead and counted in
    ``stats`` (the checked records are then returned from memory). ``check=False``
    hands the files to Polars unchecked (fastest; errors are Polars').

``checked_frames(parts, kind, *, stats=None, **options)`` (``options``: the fields of ``ReadOptions``: ``columns``, ``check``, ``skip_bad``, ``without``, ``trust_written``…)
    The records of ``parts`` as checked ``pl.DataFrame`` blocks, at Polars' speed: each
    block of lines is matched against ``line_pattern(kind)`` (the exact shape of a
    record: fields, order, JSON kinds at every depth), decoded by Polars with the
    declared schema and checked by the vectorised invariants of
    :mod:`guandan_cli.logs.invariants` (impossible records: an ``upgrade`` of 7, a
    ``finish_order`` of ``[0,0,1,2]``…), including the checks between consecutive lines
    of a run's parts. Blocks are parsed ahead in threads. Only a block with a line that
    does not match is checked line by line (``check_line``, then Polars' strict reader),
    so every bad line is named ``path:line: reason``. ``iter_checked_frames(path)`` is
    the same for one part. A part whose size and sha256 are those its run's manifest
    records (``written_digests``) holds the writer's lines and is not matched against the
    pattern (``trust_written=False`` matches it anyway); ``without=("hands", "actions")``
    leaves those fields out of the frames and checks them from their JSON text, undecoded
    (what ``load`` and ``analyze`` do). Every record is decoded and checked either way.

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

import contextlib
import gzip
import io
import json
import os
import zlib
from collections import deque
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from .layout import MANIFEST, Completeness, JournalSource, Source, read_manifest, run_completeness
from .manifest import Manifest, PartialConfig, part_plan
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
    part_lines: dict[str, int] = field(default_factory=dict)  # lines of each part read
    #: parts read whose bytes are not those their manifest records: ``{path: (the manifest's
    #: sha256, the file's)}`` (checked line by line; ``reports.load`` refuses or leaves them out)
    changed: dict[str, tuple[str, str]] = field(default_factory=dict)


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


def kind_of(path: str | os.PathLike | JournalSource) -> str:
    """``deals`` or ``matches`` from a part's file name (or a journal source's kind)."""
    if isinstance(path, JournalSource):
        return path.kind
    name = Path(path).name
    for kind in KINDS:
        if name.startswith(kind + "-"):
            return kind
    raise LogReadError(f"{path}: not a log part (expected deals-*.jsonl or matches-*.jsonl)")


def _is_part(p: Path, kind: str) -> bool:
    name = p.name
    return name.startswith(kind + "-") and name.endswith(_SUFFIXES) and not name.endswith(TMP_SUFFIX)


def _dir_parts(d: Path, kind: str, journals: bool = False, known: dict | None = None) -> list[Source]:
    """The parts of ``kind`` in ``d``: a run's complete parts (and, with ``journals``, its
    journals' lines), or every final part file. ``known``: completeness already computed."""
    if known is not None and d in known:
        c = known[d]
        return c.sources(kind) if journals else c.files(kind)
    try:
        manifest = read_manifest(d)
    except ValueError as exc:
        raise LogReadError(str(exc)) from None
    if manifest is not None:
        try:
            c = run_completeness(d, manifest, journals=journals)
        except ValueError as exc:
            raise LogReadError(str(exc)) from None
        return c.sources(kind) if journals else c.files(kind)
    return sorted(p for p in d.iterdir() if p.is_file() and _is_part(p, kind))


def _find(paths, kind: str, journals: bool, known: dict | None = None) -> list[Source]:
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    if isinstance(paths, str | os.PathLike | JournalSource):
        paths = [paths]
    out: list[Source] = []
    for raw in paths:
        if isinstance(raw, JournalSource):
            if raw.kind != kind:
                raise LogReadError(f"{raw}: not a {kind} source")
            out.append(raw)
            continue
        p = Path(raw)
        if p.is_file():
            if not _is_part(p, kind):
                raise LogReadError(f"{p}: not a {kind} part (expected {kind}-NNNNN.jsonl[.gz|.zst])")
            out.append(p)
        elif p.is_dir():
            found = _dir_parts(p, kind, journals, known)
            is_run = (p / MANIFEST).is_file()
            if not found and not is_run:
                for sub in sorted(q for q in p.iterdir() if q.is_dir()):
                    found.extend(_dir_parts(sub, kind, journals, known))
            if not found and not is_run:
                raise LogReadError(f"{p}: no {kind} parts here (nor one folder down: name the run directory)")
            out.extend(found)
        else:
            raise LogReadError(f"{p}: no such file or directory")
    return out


def part_files(paths: str | os.PathLike | Iterable[str | os.PathLike], kind: str) -> list[Path]:
    """The final part files of ``kind`` under ``paths`` (see the module docstring; no journal)."""
    return _find(paths, kind, journals=False)  # type: ignore[return-value]


def sources(
    paths: str | os.PathLike | Iterable[str | os.PathLike | JournalSource],
    kind: str,
    *,
    completeness: Iterable[Completeness] = (),
) -> list[Source]:
    """What readers read of ``kind`` under ``paths``: :func:`part_files`, plus in a run directory the
    finished matches of its unfinished parts (``JournalSource``, from their journals), in part order.

    ``completeness``: runs' :class:`~guandan_cli.logs.layout.Completeness` already computed
    (their sources are used as they are, so counts and records agree).
    """
    known = {c.path: c for c in completeness}
    return _find(paths, kind, journals=True, known=known)


def open_part(
    path: str | os.PathLike | JournalSource, raw: io.BufferedIOBase | None = None
) -> io.BufferedIOBase:
    """A binary stream of the decompressed part (or of a journal source's lines).

    ``raw``: the part's file, already open (it is read from where it stands, and closed with the stream).
    """
    if isinstance(path, JournalSource):
        return io.BytesIO(path.read())
    path = Path(path)
    name = path.name
    if name.endswith(".gz"):
        return gzip.open(raw if raw is not None else path, "rb")
    if name.endswith(".zst"):
        fh = raw if raw is not None else open(path, "rb")
        return io.BufferedReader(_ZstdFrameReader(fh), _ZSTD_READ)
    return raw if raw is not None else open(path, "rb")


#: compressed bytes fed to the zstd decompressor at a time (and the buffer of its reader)
_ZSTD_READ = 1 << 20


class _ZstdFrameReader(io.RawIOBase):
    """The decompressed bytes of the one zstd frame a part holds; a cut frame is an error.

    ``zstandard``'s ``stream_reader`` ends quietly at the end of a cut frame (a truncated
    part read as a shorter, even empty, one); this reader checks that the frame ended.
    """

    def __init__(self, fh: io.BufferedIOBase) -> None:
        import zstandard

        self._fh = fh
        self._dobj = zstandard.ZstdDecompressor().decompressobj()
        self._buf = memoryview(b"")

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:  # noqa: ANN001 - a writable buffer
        while not self._buf:
            if self._dobj.eof:
                return 0
            chunk = self._fh.read(_ZSTD_READ)
            if not chunk:
                raise EOFError("the compressed file ended before the end of its zstd frame")
            self._buf = memoryview(self._dobj.decompress(chunk))
        n = min(len(b), len(self._buf))
        b[:n] = self._buf[:n]
        self._buf = self._buf[n:]
        return n

    def close(self) -> None:
        if not self.closed:
            self._fh.close()
        super().close()


def written_digests(run: str | os.PathLike) -> dict[str, tuple[int, str]]:
    """``{file name: (bytes, sha256)}`` of the part files the manifest of ``run`` records as written.

    >>> import tempfile
    >>> written_digests(tempfile.mkdtemp())
    {}
    """
    try:
        manifest = read_manifest(run)
    except ValueError:
        return {}
    out: dict[str, tuple[int, str]] = {}
    for facts in manifest.part_files() if manifest is not None else ():
        if facts.bytes is not None and facts.sha256:
            out[facts.file] = (facts.bytes, facts.sha256)
    return out


def check_unchanged(path: Path, written: tuple[int, str]) -> None:
    """Raise ``LogReadError`` if the part at ``path`` is not the bytes its manifest records
    (``written``: size and sha256, from ``written_digests``): one line naming the file and both
    digests, as ``analyze`` refuses it."""
    import hashlib

    with open(path, "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        got = hashlib.file_digest(fh, "sha256").hexdigest() if size == written[0] else None
    if got == written[1]:
        return
    why = f"its sha256 is {got[:16]}…" if got is not None else f"it holds {size:,} bytes, not {written[0]:,}"
    raise LogReadError(
        f"{path}: changed since it was written: {why}, the manifest records {written[1][:16]}…"
        f" (guandan verify {path.parent} says more)"
    )


def _open_verified(path: Path, written: tuple[int, str] | None) -> tuple[io.BufferedIOBase, bool]:
    """``(the open file, whether its bytes are those written)``: size and sha256 as the manifest records them.

    The file is hashed through the handle it is then read from, so what is read is what was hashed.
    """
    import hashlib

    fh = open(path, "rb")
    if written is None or os.fstat(fh.fileno()).st_size != written[0]:
        return fh, False
    try:
        same = hashlib.file_digest(fh, "sha256").hexdigest() == written[1]
        fh.seek(0)
    except BaseException:
        fh.close()
        raise
    return fh, same


# ------------------------------------------------------------------ checking


def check_line(raw: bytes, kind: str) -> tuple[dict | None, str | None]:
    """``(record, None)`` for a good line, ``(None, reason)`` for a bad one."""
    if not raw.endswith(b"\n"):
        return None, "truncated line (no newline at the end of the file)"
    if raw.isspace():
        return None, "a blank line (every line is one JSON record)"
    try:
        text = raw.decode("utf-8")  # json.loads(bytes) would guess UTF-16 from a stray b"\xff\xfe"
    except UnicodeDecodeError as exc:
        return None, f"not UTF-8 text (byte 0x{raw[exc.start]:02x} at column {exc.start + 1})"
    try:
        obj = json.loads(text)
    except ValueError as exc:
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
    """(line number, record) for each line of one part (or journal source); bad lines raise or are skipped."""
    path = path if isinstance(path, JournalSource) else Path(path)
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


#: bytes of JSON lines parsed at a time by :func:`checked_frames` (Polars' decoder needs
#: about 15 times a block's size while it works)
CHUNK_BYTES = 4 << 20
#: bytes of parsed blocks checked together (the checks cost a few ms per call)
CHECK_BYTES = 32 << 20


def _line_chunks(
    path: Path, chunk_bytes: int, raw: io.BufferedIOBase | None = None
) -> Iterator[tuple[int, bytes, str | None, int]]:
    """``(first line number, whole lines, None, number of lines)`` for each block of about ``chunk_bytes``.

    A last piece without a newline comes as its own block (a truncated line). A part that
    cannot be read to its end ends with ``(line, b"", reason, 0)``. ``raw``: the part's file, open.
    """
    line = 1
    rest = b""
    try:
        with open_part(path, raw) as fh, raw if raw is not None else contextlib.nullcontext():
            while True:
                block = fh.read(chunk_bytes)
                if not block:
                    break
                data = rest + block if rest else block
                cut = data.rfind(b"\n") + 1
                chunk, rest = (data, b"") if cut == len(data) else (data[:cut], data[cut:])
                if chunk:
                    count = chunk.count(b"\n")
                    yield line, chunk, None, count
                    line += count
    except Exception:  # noqa: BLE001 - OSError, EOFError, zlib.error, zstandard.ZstdError …
        # the block that failed is lost: read it again line by line to name the exact line
        tail: list[bytes] = []
        for n, raw_line, err in _iter_raw(path):
            if n < line:
                continue
            if err is not None:
                if tail:
                    yield line, b"".join(tail), None, len(tail)
                yield n, b"", err, 0
                return
            tail.append(raw_line)
        raise  # readable the second time: not a damaged file
    if rest:
        yield line, rest, None, 1


def _polars_error(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0][:200] if str(exc).strip() else type(exc).__name__


def _parse_good(lines: list[bytes], numbers: list[int], kind: str, schema: dict):
    """Parse lines with Polars; lines it refuses are found by bisection.

    Returns ``(frames, numbers kept, [(line, reason)])``.
    """
    import polars as pl

    try:
        frame = pl.read_ndjson(b"".join(lines), schema=schema)
        if frame.height == len(lines):
            return [frame], numbers, []
        error = f"{frame.height} records in {len(lines)} lines"
    except Exception as exc:  # noqa: BLE001 - Polars' ComputeError, SchemaError …
        error = _polars_error(exc)
    if len(lines) == 1:
        return [], [], [(numbers[0], f"not a {kind[:-1]} record of the declared schema ({error})")]
    mid = len(lines) // 2
    f1, n1, b1 = _parse_good(lines[:mid], numbers[:mid], kind, schema)
    f2, n2, b2 = _parse_good(lines[mid:], numbers[mid:], kind, schema)
    return f1 + f2, n1 + n2, b1 + b2


#: nested fields that may be null (top-level ones are those whose kinds include None)
NESTED_NULLABLE = frozenset({"derived.bombs.opp_min_cards"})
_JSON_INT = r"-?(?:0|[1-9][0-9]*)"
_JSON_STR = r'"(?:[^"\\\x00-\x1f]|\\.)*"'
_PATTERNS: dict[str, str] = {}


def _shape(dtype, path: str, nullable: frozenset[str]) -> str:
    import polars as pl

    if isinstance(dtype, pl.Struct):
        inner = ",".join(f'"{f.name}":' + _shape(f.dtype, f"{path}.{f.name}", nullable) for f in dtype.fields)
        text = r"\{" + inner + r"\}"
    elif isinstance(dtype, pl.List):
        item = _shape(dtype.inner, path, nullable)
        text = rf"\[(?:{item}(?:,{item})*)?\]"
    elif dtype == pl.String:
        text = _JSON_STR
    elif dtype == pl.Boolean:
        text = "(?:true|false)"
    else:
        text = _JSON_INT
    return f"(?:{text}|null)" if path.lstrip(".") in nullable else text


def line_pattern(kind: str) -> str:
    """A regular expression matched by exactly the lines the writer can produce for ``kind``.

    Every field of the schema, in order, none else, no spaces, each of its JSON kind at
    every depth (integers without fraction or exponent; null only where the schema
    allows it). Lines that match are decoded by Polars' fast, lenient decoder; the rest
    go to the strict per-line path, which names what is wrong.

    >>> import re
    >>> bool(re.fullmatch(line_pattern("matches"), '{"v":1,"run_id":"r","match":0,"match_seed":5,'
    ...     '"ruleset":"cgr2022","strategies":["a","b","a","b"],"deals":3,"final_levels":["2","A+"],'
    ...     '"winner":1,"capped":false,"error":null}'))
    True
    """
    got = _PATTERNS.get(kind)
    if got is None:
        import polars as pl

        nullable = frozenset(f for f, kinds in FIELDS[kind] if type(None) in kinds) | NESTED_NULLABLE
        got = _PATTERNS[kind] = "^" + _shape(pl.Struct(schema_of(kind)), "", nullable) + "$"
    return got


#: the deal fields :func:`checked_frames` can check without decoding them (``without``)
HEAVY_FIELDS = ("hands", "actions")


def _light_records(lines, schema: dict):
    """Deal records of ``lines`` (a ``text`` column of lines that match :func:`line_pattern`,
    ASCII, without a backslash), decoded without ``hands`` and ``actions``: those two are
    cut out of the text and replaced by the checks' helper columns
    (:data:`~guandan_cli.logs.invariants.HEAVY_HELPERS`), computed from their JSON text.

    Such a line's every ``"`` delimits a string, and a ``"key":`` only opens a field, so
    the first ``"hands":``, ``,"tribute":``, ``,"actions":`` and ``,"finish_order":`` are
    the top-level keys (in that order: the pattern matched), at byte offsets that are also
    character offsets (ASCII). The decoder then reads about a third of the bytes.
    """
    import polars as pl

    from . import invariants

    text = pl.col("text")
    hands = text.str.find('"hands":', literal=True)
    tribute = text.str.find(',"tribute":', literal=True)
    actions = text.str.find(',"actions":', literal=True)
    finish = text.str.find(',"finish_order":', literal=True)
    rest = pl.concat_str(
        [text.str.slice(0, hands), text.str.slice(tribute + 1, actions - tribute - 1), text.str.slice(finish)]
    )
    light = {k: v for k, v in schema.items() if k not in HEAVY_FIELDS}
    frame = lines.select(
        rest.str.json_decode(pl.Struct(light)).alias("record"),
        text.str.slice(hands + 8, tribute - hands - 8).alias("_hands_text"),
        text.str.slice(actions + 11, finish - actions - 11).alias("_actions_text"),
    ).unnest("record")
    return invariants.heavy_helpers_from_text(frame)


def _parse_chunk(
    first: int, data: bytes, kind: str, schema: dict, light: bool = False, written: bool = False
):
    """Parse a block of lines: ``(frame, line numbers of its rows, [(line, reason)])``.

    Fast path: the lines that match :func:`line_pattern` (all of them, normally) are
    decoded together by Polars (which releases the GIL, so blocks parse in parallel
    threads). The others are checked one by one, with the strict checker's reasons
    (``check_line``) and then Polars' strict reader, which names nested fields of the
    wrong kind.

    ``light`` (deals): the frame holds the checks' helper columns instead of ``hands`` and
    ``actions`` (see :func:`_light_records`, which decodes the fast path's lines that are
    ASCII without a backslash, i.e. all the writer writes; its other lines are decoded
    whole, then given the same helper columns).

    ``written``: the block comes from a part whose bytes are those its writer recorded
    (size and sha256 in the run's manifest), so its lines are the writer's: they are not
    matched against :func:`line_pattern` again (the pattern is matched by exactly the
    lines the writer writes). The decoding and every check of the records stay.
    """
    import polars as pl

    from . import invariants

    complete = data.endswith(b"\n")
    n = data.count(b"\n") + (not complete)
    numbers = pl.Series("line", range(first, first + n), dtype=pl.Int64)
    try:
        lines = (
            pl.DataFrame({"text": pl.Series([data], dtype=pl.Binary)})
            .select(pl.col("text").cast(pl.String).str.split("\n").explode())
            .head(n)
            .with_columns(
                pl.lit(True).alias("shaped")
                if written
                else pl.col("text").str.contains(line_pattern(kind)).alias("shaped")
            )
        )
        if not complete:  # a truncated last line
            lines = lines.with_columns(pl.col("shaped") & (pl.int_range(pl.len()) < n - 1))
        shaped = lines.get_column("shaped")
        decode = pl.col("text").str.json_decode(pl.Struct(schema))
        if light:
            text = pl.col("text")
            plain = (text.str.len_bytes() == text.str.len_chars()) & ~text.str.contains("\\", literal=True)
            lines = lines.with_columns(plain.alias("plain"))
            fast = _light_records(lines.filter(pl.col("shaped") & pl.col("plain")), schema)
            others = lines.filter(pl.col("shaped") & ~pl.col("plain"))
            if others.height:  # escapes or other than ASCII: decoded whole, then the same helpers
                whole = invariants.heavy_helpers(others.select(decode).unnest("text"))
                plain_rows = lines.get_column("plain")
                at = pl.concat([numbers.filter(shaped & plain_rows), numbers.filter(shaped & ~plain_rows)])
                fast = pl.concat([fast, whole])[at.arg_sort()]
        else:
            fast = lines.filter("shaped").select(decode).unnest("text")
    except Exception:  # noqa: BLE001 - not UTF-8, or numbers out of range: line by line
        shaped = pl.Series([False] * n)
        fast = pl.DataFrame(schema=schema)
        if light:
            fast = invariants.heavy_helpers(fast)
    if shaped.all():
        return fast, numbers, []
    pieces = data.split(b"\n")
    good: list[bytes] = []
    good_numbers: list[int] = []
    bad: list[tuple[int, str]] = []
    for index in (~shaped).arg_true().to_list():
        raw = pieces[index] if index == n - 1 and not complete else pieces[index] + b"\n"
        _rec, reason = check_line(raw, kind)
        if reason is None:
            good.append(raw)
            good_numbers.append(first + index)
        else:
            bad.append((first + index, reason))
    frames, kept, refused = _parse_good(good, good_numbers, kind, schema) if good else ([], [], [])
    if light:
        frames = [invariants.heavy_helpers(f) for f in frames]
    frame = pl.concat([fast, *frames]) if frames else fast
    lines_of = pl.concat([numbers.filter(shaped), pl.Series("line", kept, dtype=pl.Int64)])
    if frames:
        order = lines_of.arg_sort()
        frame, lines_of = frame[order], lines_of[order]
    return frame, lines_of, bad + refused


#: threads that parse blocks ahead of the checks (Polars releases the GIL while parsing)
PARSE_THREADS = min(4, os.cpu_count() or 1)


def file_sha256(path: str | os.PathLike) -> str:
    """The hex sha256 of a file's bytes (as on disk)."""
    import hashlib

    with open(path, "rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def _blocks(parts: list[Source], chunk_bytes: int, trust: bool, changed: dict | None = None):
    """``(part index, first line, lines, error, written, number of lines)`` for each block of
    each part, then ``(part index, None, b"", None, written, 0)`` at its end. ``written``: the
    part's bytes are those the manifest of its run records (size and sha256; only looked at
    with ``trust``); a part whose bytes are not is added to ``changed`` (see
    ``ScanStats.changed``). The next parts are opened and hashed ahead, in a thread."""
    digests: dict[Path, dict[str, tuple[int, str]]] = {}

    def opened(path: Source):
        if not (trust and isinstance(path, Path)):
            return None, False
        if path.parent not in digests:
            digests[path.parent] = written_digests(path.parent)
        written = digests[path.parent].get(path.name)
        fh, same = _open_verified(path, written)
        if written is not None and not same and changed is not None:
            changed[str(path)] = (written[1], file_sha256(path))
        return fh, same

    ahead: deque = deque()
    with ThreadPoolExecutor(1) as hasher:
        try:
            for index, path in enumerate(parts):
                while len(ahead) < 2 and index + len(ahead) < len(parts):
                    ahead.append(hasher.submit(opened, parts[index + len(ahead)]))
                raw, written = ahead.popleft().result()
                for first, data, error, count in _line_chunks(path, chunk_bytes, raw):
                    yield index, first, data, error, written, count
                yield index, None, b"", None, written, 0  # end of this part
        finally:
            for future in ahead:
                if not future.cancel() and future.exception() is None:
                    handle = future.result()[0]
                    if handle is not None:
                        handle.close()


def _unparsed_line(path: Source, first: int, data: bytes, kind: str) -> LogLineError:
    """The first line of a block Polars could not decode, named ``path:line: reason``.

    Each line is tried by :func:`check_line` (the shape of a record), then decoded alone
    (values the shape allows but the schema does not, such as a number out of range).
    """
    import polars as pl

    pieces = data.split(b"\n")
    if pieces and pieces[-1] == b"":
        pieces = [p + b"\n" for p in pieces[:-1]]
    else:  # the last line has no newline: check_line calls it truncated
        pieces = [p + b"\n" for p in pieces[:-1]] + [pieces[-1]]
    schema = pl.Struct(schema_of(kind))
    for offset, raw in enumerate(pieces):
        _rec, reason = check_line(raw, kind)
        if reason is None:
            try:
                pl.Series([raw.decode("utf-8")]).str.json_decode(schema)
            except Exception as exc:  # noqa: BLE001
                text = str(exc).strip()
                reason = f"not a {kind[:-1]} record ({text.splitlines()[0] if text else type(exc).__name__})"
        if reason is not None:
            return LogLineError(path, first + offset, reason)
    return LogLineError(path, first, "lines Polars cannot read")


def part_bounds(path: Source, manifest: Manifest | None) -> tuple[int, int] | None:
    """``(first match, stop)`` of the part ``path`` in the run ``manifest`` plans, or None (no manifest).

    >>> cfg = {"matches": 25, "part_size": 10, "compression": "none"}
    >>> m = Manifest.from_dict({"state": "complete", "config": cfg})
    >>> part_bounds(Path("r/deals-00002.jsonl"), m), part_bounds(Path("r/deals-00007.jsonl"), m)
    ((20, 25), (70, 70))
    """
    if isinstance(path, JournalSource):
        return path.part.first_match, path.part.stop_match
    try:
        matches, size, _compression = part_plan(manifest)
        index = int(path.name.split("-", 1)[1].split(".", 1)[0])
    except (ValueError, IndexError):
        return None
    first = index * size
    return first, max(first, min(first + size, matches))


def _with_part_checks(rules, path: Source, manifest: Manifest | None, columns: set[str]):
    """``rules`` plus the checks that each line of ``path`` belongs to its run and part (see ``rules_of``)."""
    import polars as pl

    from .invariants import Check, Rules

    if manifest is None:
        return rules
    extra = []
    run_id = manifest.run_id
    if run_id is not None and "run_id" in columns:
        said = json.dumps(run_id).replace("{", "{{").replace("}", "}}")
        extra.append(
            Check(
                pl.col("run_id") == run_id, f"run_id {{run_id}} is not this run's ({said}, in its manifest)"
            )
        )
    bounds = part_bounds(path, manifest)
    if bounds is not None and "match" in columns:
        first, stop = bounds
        held = (
            f"matches {first}..{stop - 1}" if stop > first else "no match (the manifest plans no such part)"
        )
        extra.append(
            Check(
                pl.col("match").is_between(first, stop, closed="left"),
                f"match {{match}} is not in this part, which holds {held}",
            )
        )
    if not extra:
        return rules
    return Rules(rules.helpers, [*rules.rows, *extra], rules.computed, rules.sequence, rules.carry)


def standalone_deals(manifest: Manifest | dict | None) -> bool:
    """Whether a run's deals stand alone: played from deal setups (``config.setups``) or with
    the tribute rule changed (``config.tribute``), rather than as the deals of whole matches.

    >>> standalone_deals({"config": {"setups": "random"}}), standalone_deals({"config": {}})
    (True, False)
    """
    return PartialConfig.recorded(manifest).standalone_deals


@dataclass(frozen=True)
class ReadOptions:
    """How :func:`checked_frames` reads: the ``columns`` kept (``None``: all), whether it checks
    (``check``) and skips bad lines (``skip_bad``), the ``threads`` and ``chunk_bytes`` of its parsing, whether
    the parts are ``standalone`` deals (``None``: ask the manifests), the fields checked but left
    ``without``, and whether a part its manifest vouches for is ``trust_written``."""

    columns: Iterable[str] | None = None
    check: bool = True
    skip_bad: bool = False
    threads: int | None = None
    chunk_bytes: int = CHUNK_BYTES
    standalone: bool | None = None
    without: Iterable[str] = ()
    trust_written: bool = True


def checked_frames(
    parts: Iterable[str | os.PathLike],
    kind: str,
    *,
    stats: ScanStats | None = None,
    **options,
):
    """The records of ``parts`` (all of ``kind``) as checked ``pl.DataFrame`` chunks, in order;
    ``options`` are the fields of :class:`ReadOptions`, ``stats`` counts what was skipped.

    A part whose size and sha256 are those its run's manifest records (its writer's, see
    ``guandan_cli.logs.writer.PartWriter``) holds the writer's lines: they are not matched
    against :func:`line_pattern` again (the slowest step; ``trust_written=False`` matches
    them anyway). Any other part (no manifest, no digest, another digest, a journal) is
    matched line by line. Every record is decoded and checked either way.

    ``without``: fields checked like the others but left out of the frames. Leaving out
    both ``hands`` and ``actions`` (:data:`HEAVY_FIELDS`, most of a deal line's bytes)
    lets the checks read them from the line's text instead of decoding them, about
    twice as fast for the same verdicts (see :func:`_light_records`).

    ``standalone``: whether the parts hold a run of deal setups (each deal played from its
    own setup), checked accordingly; ``None`` (the default) asks each part's folder's
    manifest (:func:`standalone_deals`).

    Each block of about ``chunk_bytes`` of lines is parsed by Polars with the declared
    schema (restricted to ``columns`` if given; other fields are then skipped) and
    checked by the vectorised rules of :mod:`guandan_cli.logs.invariants` (impossible
    records), the lines of consecutive parts of one directory as one sequence. Only a
    block Polars refuses is checked line by line, to name the line. A bad line raises
    ``LogLineError`` (``path:line: reason``, the first in its file) unless ``skip_bad``:
    then it is left out and counted in ``stats``. ``check=False`` parses without
    checks. ``threads`` blocks are parsed ahead, in parallel (default ``PARSE_THREADS``).
    """
    how = ReadOptions(**options)
    reader = _CheckedReader(
        parts,
        kind,
        columns=how.columns,
        check=how.check,
        skip_bad=how.skip_bad,
        stats=stats,
        standalone=how.standalone,
        without=how.without,
    )
    threads = max(1, how.threads or PARSE_THREADS)
    yield from reader.frames(threads, how.chunk_bytes, trust=how.check and how.trust_written)


class _CheckedReader:
    """The state of one :func:`checked_frames` read: the parts, what is checked and kept, the
    rules of each part, the sequence carried across a directory's parts, the blocks waiting."""

    def __init__(
        self,
        parts: Iterable[str | os.PathLike],
        kind: str,
        *,
        columns: Iterable[str] | None,
        check: bool,
        skip_bad: bool,
        stats: ScanStats | None,
        standalone: bool | None,
        without: Iterable[str],
    ) -> None:
        from . import invariants

        self.parts = [p if isinstance(p, JournalSource) else Path(p) for p in parts]
        self.kind, self.check, self.skip_bad, self.stats = kind, check, skip_bad, stats
        self.standalone = standalone
        schema = schema_of(kind)
        if columns is not None:
            wanted = set(columns)
            schema = {k: v for k, v in schema.items() if k in wanted}
        self.schema = schema
        without = set(without)
        self.output = [name for name in schema if name not in without]
        self.light = check and kind == "deals" and set(HEAVY_FIELDS) <= without & set(schema)
        self.checked = (
            [n for n in schema if n not in HEAVY_FIELDS] + list(invariants.HEAVY_HELPERS)
            if self.light
            else schema
        )
        self.by_mode = {
            mode: invariants.rules_for(kind, self.checked, mode) if check else None for mode in (False, True)
        }
        self.modes: dict[Path, bool] = {}
        self.manifests: dict[Path, Manifest | None] = {}
        self.part_rules: dict[str, object] = {}
        self.sequences: dict[Path, invariants.Sequence] = {}  # by run directory (a journal's is its part's)
        self.carry = None
        self.batch: list = []  # parsed blocks of the current part waiting for the checks
        self.batch_bytes = 0
        self._current, self._lines = -1, 0  # the part being read, its lines so far
        self._sequence: invariants.Sequence | None = None  # its directory's sequence

    def rules_of(self, path: Source):
        """The rules of ``path``'s lines: its kind's, plus (in a run with a manifest) that each
        line is of this run (``run_id``) and of this part (its match index in the part's range)."""
        key = str(path)
        if key in self.part_rules:
            return self.part_rules[key]
        folder = path.parent
        if folder not in self.modes:
            try:
                self.manifests[folder] = read_manifest(folder)
            except ValueError:
                self.manifests[folder] = None
            standalone = self.standalone
            self.modes[folder] = (
                standalone if standalone is not None else standalone_deals(self.manifests[folder])
            )
        rules = self.by_mode[self.modes[folder]]
        if rules is not None:
            rules = _with_part_checks(rules, path, self.manifests[folder], set(self.checked))
        self.part_rules[key] = rules
        return rules

    def parse(self, item):
        """A block of lines parsed (by a thread of the pool): with its row checks, or as a frame
        when nothing is checked."""
        import polars as pl

        from . import invariants

        index, first, data, error, written, _count = item
        if first is None or error is not None:
            return item, None
        if not self.check:  # Polars' own errors only, named path:line
            try:
                text = pl.DataFrame({"text": pl.Series([data], dtype=pl.Binary)})
                lines = text.select(
                    pl.col("text").cast(pl.String).str.strip_chars_end("\n").str.split("\n").explode()
                )
                decoded = lines.select(pl.col("text").str.json_decode(pl.Struct(self.schema))).unnest("text")
                return item, decoded.select(self.output)
            except Exception:  # noqa: BLE001 - not UTF-8, not JSON, numbers out of range
                raise _unparsed_line(self.parts[index], first, data, self.kind) from None
        frame, numbers, located = _parse_chunk(first, data, self.kind, self.schema, self.light, written)
        return item, (invariants.row_checks(frame, numbers, self.rules_of(self.parts[index])), located)

    def settle(self, path: Path, extra: list[BadLine]):
        """Check the waiting blocks together; ``(frame, good mask, bad lines)``."""
        import polars as pl

        from . import invariants

        bad = list(extra)
        frame, good = None, None
        if self.batch:
            batch = self.batch
            base = pl.concat([b[0] for b in batch]) if len(batch) > 1 else batch[0][0]
            located = [x for b in batch for x in b[1]]
            self.batch, self.batch_bytes = [], 0
            found, good, self.carry = invariants.sequence_checks(base, self.rules_of(path), self.carry)
            frame = base.select(self.output)
            bad += [BadLine(str(path), n, r) for n, r in located + found]
        return frame, good, sorted(bad, key=lambda b: b.line)

    def emit(self, path: Path, frame, good, bad: list[BadLine]):
        """The checked frame, its bad lines raised (or, with ``skip_bad``, left out and counted)."""
        if bad:
            if not self.skip_bad:
                raise LogLineError(path, bad[0].line, bad[0].reason)
            if self.stats is not None:
                self.stats.skipped += len(bad)
                self.stats.bad.extend(bad)
            if good is not None:
                frame = frame.filter(good)
        if frame is not None and frame.height:
            yield frame

    def frames(self, threads: int, chunk_bytes: int, trust: bool):
        """The checked frames in order, blocks parsed ``threads`` ahead in a thread pool."""
        with ThreadPoolExecutor(threads) as pool:
            pending: deque = deque()
            changed = self.stats.changed if self.stats is not None else None
            blocks = _blocks(self.parts, chunk_bytes, trust=trust, changed=changed)
            try:
                while True:
                    while len(pending) < threads + 1:
                        item = next(blocks, None)
                        if item is None:
                            break
                        pending.append(pool.submit(self.parse, item))
                    if not pending:
                        break
                    yield from self.block(*pending.popleft().result())
            finally:
                for future in pending:
                    future.cancel()

    def block(self, item, parsed):
        """One parsed block in order: a new part's sequence, the end of a part, or lines to check."""
        from . import invariants

        index, first, data, error, _written, count = item
        path = self.parts[index]
        if index != self._current:  # a new part
            self._current, self._lines = index, 0
            self._sequence = self.sequences.setdefault(path.parent, invariants.Sequence())
            self.carry = self._sequence.carry.next_part() if self._sequence.carry is not None else None
        if first is None or error is not None:  # the end of the part, or an unreadable rest
            extra = [] if error is None else [BadLine(str(path), first, error)]
            yield from self.emit(path, *self.settle(path, extra))
            if first is None:
                self._sequence.carry = self.carry
                if self.stats is not None:
                    self.stats.files += 1
                    self.stats.lines += self._lines
                    self.stats.part_lines[str(path)] = self._lines
            return
        self._lines += count
        if not self.check:
            yield parsed
            return
        self.batch.append(parsed)
        self.batch_bytes += len(data)
        if self.batch_bytes >= CHECK_BYTES:
            yield from self.emit(path, *self.settle(path, []))


def iter_checked_frames(path: str | os.PathLike, kind: str | None = None, **options):
    """:func:`checked_frames` of one part (``kind`` defaults from its name)."""
    return checked_frames([path], kind or kind_of(path), **options)


def _scan(paths, kind: str, check: bool, skip_bad: bool, stats: ScanStats | None):
    import polars as pl

    schema = _schema(kind)
    files = sources(paths, kind)
    on_disk = all(isinstance(f, Path) for f in files)
    keys = [_stat_key(f) for f in files] if check and on_disk else []
    if on_disk and (not check or all(k in _CHECKED for k in keys)):  # unchecked, or all checked before
        if stats is not None and check:
            stats.files += len(files)
            stats.lines += sum(_CHECKED[k] for k in keys)
        frames = [pl.scan_ndjson(f, schema=schema) for f in files]
    else:
        local = ScanStats()
        checked = list(checked_frames(files, kind, check=check, skip_bad=skip_bad, stats=local))
        if stats is not None:
            stats.files += local.files
            stats.lines += local.lines
            stats.skipped += local.skipped
            stats.bad.extend(local.bad)
        if on_disk and not local.skipped:
            for f, key in zip(files, keys):
                _CHECKED[key] = local.part_lines[str(f)]
            frames = [pl.scan_ndjson(f, schema=schema) for f in files]
        else:  # journaled matches, or some lines left out: the checked records, in order
            frames = [pl.concat(checked).lazy()] if checked else []
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
    "HEAVY_FIELDS",
    "BadLine",
    "FileCheck",
    "ReadOptions",
    "LogLineError",
    "LogReadError",
    "ScanStats",
    "check_file",
    "check_line",
    "checked_frames",
    "file_sha256",
    "iter_raw",
    "iter_checked_frames",
    "iter_records",
    "kind_of",
    "open_part",
    "part_files",
    "read_deals",
    "read_matches",
    "scan_deals",
    "schema_of",
    "scan_matches",
    "sources",
    "written_digests",
]

"""Writing log parts: records to JSON lines, parts written atomically, optional compression.

- ``dumps_line(record)`` is the one record → JSON line mapping: compact separators, the
  builder's key order kept, UTF-8, ending in ``\\n``.
- ``part_name(kind, index, compression)`` names a part: ``deals-00000.jsonl``,
  ``matches-00003.jsonl.gz``, ``deals-00001.jsonl.zst``.
- ``PartWriter`` writes ``NAME.tmp`` and, on ``commit()``, flushes, fsyncs and renames it
  to ``NAME`` (then fsyncs the directory): a final name always holds a complete part.
  Compression is deterministic: gzip with ``mtime=0`` and no file name in the header,
  zstd at a fixed level without threads; the compressor is fed fixed-size blocks, so
  the bytes depend only on the part's content, never on how the writes were split.
- ``atomic_write_bytes(path, data)`` writes any small file (the manifest) the same way.

Imports no polars.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

#: compression name -> file suffix after ``.jsonl``
COMPRESSIONS: dict[str, str] = {"none": "", "gzip": ".gz", "zstd": ".zst"}
GZIP_LEVEL = 6
ZSTD_LEVEL = 3
BLOCK = 1 << 20  # bytes fed to the compressor at a time
TMP_SUFFIX = ".tmp"


def dumps_line(record: dict) -> bytes:
    """One record as one JSON line (bytes, ending in a newline)."""
    return json.dumps(record, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"


def check_compression(compression: str) -> str:
    if compression not in COMPRESSIONS:
        raise ValueError(f"unknown compression {compression!r}: expected one of {', '.join(COMPRESSIONS)}")
    return compression


def part_name(kind: str, index: int, compression: str = "none") -> str:
    """The final file name of part ``index`` of ``kind`` (``deals`` or ``matches``)."""
    return f"{kind}-{index:05d}.jsonl{COMPRESSIONS[check_compression(compression)]}"


def fsync_dir(path: Path) -> None:
    """Make a rename in ``path`` durable (no-op where directories cannot be opened)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:  # pragma: no cover - e.g. Windows
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover
        pass
    finally:
        os.close(fd)


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> None:
    """Write ``data`` to ``path`` via ``path.tmp``, fsync, rename."""
    path = Path(path)
    tmp = path.with_name(path.name + TMP_SUFFIX)
    with open(tmp, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
    fsync_dir(path.parent)


class _Hashing:
    """A binary sink that counts and hashes what goes to the file."""

    def __init__(self, fh) -> None:
        self.fh = fh
        self.sha = hashlib.sha256()
        self.size = 0

    def write(self, data) -> int:
        self.sha.update(data)
        self.size += len(data)
        return self.fh.write(data)

    def flush(self) -> None:
        self.fh.flush()


class PartWriter:
    """Write one part file under a temporary name; ``commit()`` makes it final.

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> w = PartWriter(d / part_name("deals", 0, "gzip"), "gzip")
    >>> w.write(b'{"v":1}\\n'); w.commit()["lines"]
    1
    >>> sorted(p.name for p in d.iterdir())
    ['deals-00000.jsonl.gz']
    """

    def __init__(self, path: str | os.PathLike, compression: str = "none") -> None:
        self.path = Path(path)
        self.tmp = self.path.with_name(self.path.name + TMP_SUFFIX)
        self.compression = check_compression(compression)
        self._fh = open(self.tmp, "wb")
        self._sink = _Hashing(self._fh)
        self._buf = bytearray()
        self.lines = 0
        self.raw_bytes = 0
        if compression == "gzip":
            import gzip

            self._comp = gzip.GzipFile(
                filename="", mode="wb", compresslevel=GZIP_LEVEL, fileobj=self._sink, mtime=0
            )
            self._feed = self._comp.write
        elif compression == "zstd":
            import zstandard

            cctx = zstandard.ZstdCompressor(level=ZSTD_LEVEL, threads=0)
            self._comp = cctx.compressobj()
            self._feed = lambda block: self._sink.write(self._comp.compress(block))
        else:
            self._comp = None
            self._feed = self._sink.write

    def write(self, data: bytes) -> None:
        """Append complete lines (bytes ending in a newline)."""
        if not data:
            return
        self.lines += data.count(b"\n")
        self.raw_bytes += len(data)
        buf = self._buf
        buf += data
        if len(buf) >= BLOCK:
            n = len(buf) - len(buf) % BLOCK
            for i in range(0, n, BLOCK):
                self._feed(bytes(buf[i : i + BLOCK]))
            del buf[:n]

    def commit(self) -> dict:
        """Finish the file, fsync, rename to the final name; returns its facts."""
        if self._buf:
            self._feed(bytes(self._buf))
            self._buf.clear()
        if self.compression == "gzip":
            self._comp.close()
        elif self.compression == "zstd":
            import zstandard

            self._sink.write(self._comp.flush(zstandard.COMPRESSOBJ_FLUSH_FINISH))
        self._fh.flush()
        os.fsync(self._fh.fileno())
        self._fh.close()
        os.replace(self.tmp, self.path)
        fsync_dir(self.path.parent)
        return {
            "file": self.path.name,
            "lines": self.lines,
            "bytes": self._sink.size,
            "sha256": self._sink.sha.hexdigest(),
        }

    def abort(self) -> None:
        """Close and remove the temporary file (the final name is never touched)."""
        try:
            self._fh.close()
        finally:
            try:
                self.tmp.unlink()
            except FileNotFoundError:
                pass


__all__ = [
    "COMPRESSIONS",
    "PartWriter",
    "atomic_write_bytes",
    "check_compression",
    "dumps_line",
    "fsync_dir",
    "part_name",
]

"""The journal of an unfinished part: finished matches made durable as soon as they arrive.

While part ``p`` is being played, each finished task (a chunk of consecutive matches) is
appended to ``part-PPPPP.journal`` as one entry and fsynced; the part's final files are
written from the journal once it covers every match of the part, and the journal is then
deleted. A run stopped at any moment (Ctrl-C, ``kill -9``, power loss) therefore loses
only the matches that were in flight.

File format (binary; all integers decimal ASCII)::

    guandan-journal 2 <identity JSON>\\n         the magic line
    <sha256 hex> <header JSON>\\n<payload>      one entry per finished chunk …

- ``identity`` is a JSON object naming the run and part the journal belongs to:
  ``run_id`` (the manifest's, a hash of what decides the games), ``config`` (the sha256
  of the run's whole config, ``RunConfig.digest``), ``instance`` (the random id the run
  directory drew when the run started, kept by every resume: a journal of another run
  directory is not this one's even with the same config) and ``part`` (its index).
  ``simulate --resume`` refuses a journal whose identity is not its run's. A journal
  written by an earlier version starts ``guandan-journal 1\\n`` and has none
  (``Journal.identity`` is ``None``).

- ``header`` is a JSON object: ``start``, ``stop`` (the chunk's matches),
  ``deal_bytes``, ``match_bytes`` (the payload's two pieces), ``matches``, ``deals``,
  ``errors``, ``capped``, ``wins`` (facts for the manifest).
- ``payload`` is the chunk's deal lines followed by its match lines, exactly the bytes
  the final part files will hold.
- ``sha256`` is the hex digest of ``header JSON + "\\n" + payload``.

Entries arrive in completion order, not match order. Recovery (:meth:`Journal.open`)
reads entries while each is whole and its digest matches, and cuts the file after the
last good one: a torn or corrupt tail (a write cut short) loses only that entry.

>>> import pathlib, tempfile
>>> path = pathlib.Path(tempfile.mkdtemp()) / "part-00000.journal"
>>> j = Journal.open(path)
>>> j.append(2, 4, b'{"d":2}\\n{"d":3}\\n', b'{"m":2}\\n{"m":3}\\n', {"matches": 2})
>>> j.append(0, 2, b'{"d":0}\\n', b'{"m":0}\\n{"m":1}\\n', {"matches": 2})
>>> j.close()
>>> with open(path, "ab") as fh:          # a torn write at the end
...     _ = fh.write(b"0123 {not even")
>>> j = Journal.open(path)
>>> [(e.start, e.stop) for e in j.entries], j.covers(0, 4)
([(2, 4), (0, 2)], True)
>>> b"".join(j.deal_lines(e) for e in j.in_match_order())
b'{"d":0}\\n{"d":2}\\n{"d":3}\\n'
>>> j.close()

Imports no polars.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field, replace
from pathlib import Path

MAGIC = b"guandan-journal 1\n"  # a journal without identity (earlier versions, and tests)
MAGIC_WITH_IDENTITY = b"guandan-journal 2 "
_MAX_HEADER = 1 << 16


def magic_line(identity: dict | None) -> bytes:
    """The first line of a journal of ``identity`` (``None``: the identity-less format 1).

    >>> magic_line({"run_id": "ab", "part": 3})
    b'guandan-journal 2 {"run_id":"ab","part":3}\\n'
    """
    if identity is None:
        return MAGIC
    return MAGIC_WITH_IDENTITY + json.dumps(identity, separators=(",", ":")).encode() + b"\n"


def _read_magic(data: bytes) -> tuple[int, dict | None] | None:
    """``(where the entries start, identity)`` of a journal's bytes, or ``None`` for no whole magic line."""
    if data.startswith(MAGIC):
        return len(MAGIC), None
    if not data.startswith(MAGIC_WITH_IDENTITY):
        return None
    nl = data.find(b"\n", 0, _MAX_HEADER)
    if nl < 0:
        return None
    try:
        identity = json.loads(data[len(MAGIC_WITH_IDENTITY) : nl])
    except ValueError:
        return None
    return (nl + 1, identity) if isinstance(identity, dict) else None


@dataclass(frozen=True)
class JournalEntry:
    """One finished chunk: matches ``start … stop-1``; where its payload lies in the file."""

    start: int
    stop: int
    entry_offset: int  # of the entry (its digest)
    offset: int  # of the payload
    deal_bytes: int
    match_bytes: int
    facts: dict = field(default_factory=dict, compare=False)


class Journal:
    """An open journal: its good entries, appended to with :meth:`append` (see the module docstring)."""

    def __init__(
        self, path: Path, fh, entries: list[JournalEntry], dropped: int, identity: dict | None = None
    ) -> None:
        self.path = path
        self._fh = fh
        self.entries = entries
        self.dropped_bytes = dropped  # bytes of a torn or corrupt tail cut off on opening
        #: the run and part the journal says it belongs to (``None``: format 1, no identity)
        self.identity = identity

    @classmethod
    def open(cls, path: str | os.PathLike, identity: dict | None = None) -> Journal:
        """Open (creating it if needed, with ``identity`` in its magic line) and recover: keep
        the good entries, cut off the rest. An existing journal keeps its own magic line
        (its ``identity`` is what it says; the caller compares)."""
        path = Path(path)
        fh = open(path, "a+b")
        try:
            fh.seek(0)
            data = fh.read()
            entries, good_end = _parse(data)
            found = _read_magic(data)
            if good_end < len(data) or not data:
                fh.truncate(good_end)
                if good_end == 0:
                    fh.write(magic_line(identity))
                    found = (0, identity)
                fh.flush()
                os.fsync(fh.fileno())
        except BaseException:
            fh.close()
            raise
        return cls(path, fh, entries, max(0, len(data) - good_end), found[1] if found else identity)

    def reseal(self, identity: dict) -> None:
        """Rewrite the journal with ``identity`` in its magic line and the same entries (a
        format-1 journal kept by a resume): ``*.tmp``, fsync, rename."""
        self._fh.seek(0)
        data = self._fh.read()
        start = _read_magic(data)
        head = magic_line(identity)
        body = data[start[0] if start else len(data) :]
        tmp = self.path.with_name(self.path.name + ".tmp")
        with open(tmp, "wb") as out:
            out.write(head + body)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, self.path)
        self._fh.close()
        self._fh = open(self.path, "a+b")
        shift = len(head) - (start[0] if start else len(data))
        self.entries = [
            replace(e, entry_offset=e.entry_offset + shift, offset=e.offset + shift) for e in self.entries
        ]
        self.identity = identity

    def append(self, start: int, stop: int, deal_lines: bytes, match_lines: bytes, facts: dict) -> None:
        """Append one finished chunk and make it durable (one write, then fsync)."""
        header = {
            "start": start,
            "stop": stop,
            "deal_bytes": len(deal_lines),
            "match_bytes": len(match_lines),
        }
        header.update({k: v for k, v in facts.items() if k not in header})
        head = json.dumps(header, separators=(",", ":")).encode()
        payload = deal_lines + match_lines
        digest = hashlib.sha256(head + b"\n" + payload).hexdigest().encode()
        fh = self._fh
        fh.seek(0, os.SEEK_END)
        at = fh.tell()
        offset = at + len(digest) + 1 + len(head) + 1
        fh.write(digest + b" " + head + b"\n" + payload)
        fh.flush()
        os.fsync(fh.fileno())
        self.entries.append(JournalEntry(start, stop, at, offset, len(deal_lines), len(match_lines), header))

    def covered(self) -> int:
        """Matches held."""
        return sum(e.stop - e.start for e in self.entries)

    def covers(self, first: int, stop: int) -> bool:
        """Whether the entries tile matches ``first … stop-1`` exactly (no gap, no overlap)."""
        at = first
        for e in self.in_match_order():
            if e.start != at:
                return False
            at = e.stop
        return at == stop

    def in_match_order(self) -> list[JournalEntry]:
        return sorted(self.entries, key=lambda e: e.start)

    def deal_lines(self, entry: JournalEntry) -> bytes:
        self._fh.seek(entry.offset)
        return self._fh.read(entry.deal_bytes)

    def match_lines(self, entry: JournalEntry) -> bytes:
        self._fh.seek(entry.offset + entry.deal_bytes)
        return self._fh.read(entry.match_bytes)

    def keep_first(self, n: int) -> None:
        """Cut the journal after its first ``n`` entries (entries a caller found inconsistent)."""
        if n >= len(self.entries):
            return
        self._fh.truncate(self.entries[n].entry_offset)
        self._fh.flush()
        os.fsync(self._fh.fileno())
        del self.entries[n:]

    def close(self) -> None:
        self._fh.close()

    def remove(self) -> None:
        """Close and delete the journal (its part is complete)."""
        self.close()
        self.path.unlink(missing_ok=True)


def read_entries(path: str | os.PathLike) -> list[JournalEntry]:
    """The good entries of a journal, without changing the file (``[]`` if there is none)."""
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        return []
    return _parse(data)[0]


def consistent_prefix(entries: list[JournalEntry], start: int, stop: int) -> list[JournalEntry]:
    """The entries up to the first one outside matches ``start … stop-1`` or overlapping an earlier one.

    What a resumed run keeps of a journal (it cuts the file there), and so what readers see.

    >>> e = [JournalEntry(2, 4, 0, 0, 0, 0), JournalEntry(0, 2, 0, 0, 0, 0), JournalEntry(1, 3, 0, 0, 0, 0)]
    >>> [(x.start, x.stop) for x in consistent_prefix(e, 0, 4)]
    [(2, 4), (0, 2)]
    """
    seen = bytearray(max(0, stop - start))
    kept: list[JournalEntry] = []
    for e in entries:
        if not (start <= e.start < e.stop <= stop) or any(seen[e.start - start : e.stop - start]):
            break
        seen[e.start - start : e.stop - start] = b"\1" * (e.stop - e.start)
        kept.append(e)
    return kept


def journal_identity(data: bytes) -> dict | None:
    """The identity in a journal's bytes (``None``: format 1, or no whole magic line)."""
    found = _read_magic(data)
    return found[1] if found else None


def read_journal(path: str | os.PathLike) -> tuple[bytes, list[JournalEntry]]:
    """A snapshot of a journal: its bytes and their good entries (``FileNotFoundError`` if gone).

    The entries' offsets point into the returned bytes, so a journal appended to (or
    deleted) meanwhile does not change what the snapshot holds.
    """
    data = Path(path).read_bytes()
    return data, _parse(data)[0]


def entry_lines(data: bytes, entry: JournalEntry, kind: str) -> bytes:
    """The deal (``kind="deals"``) or match lines of ``entry`` in the journal bytes ``data``."""
    if kind == "deals":
        return data[entry.offset : entry.offset + entry.deal_bytes]
    at = entry.offset + entry.deal_bytes
    return data[at : at + entry.match_bytes]


def _parse(data: bytes) -> tuple[list[JournalEntry], int]:
    """The good entries of a journal's bytes and where they end (0: not even a magic line)."""
    found = _read_magic(data)
    if found is None:
        return [], 0
    entries: list[JournalEntry] = []
    at = found[0]
    n = len(data)
    while at < n:
        nl = data.find(b"\n", at, at + _MAX_HEADER)
        if nl < 0:
            break
        line = data[at:nl]
        digest, _, head = line.partition(b" ")
        try:
            header = json.loads(head)
            start, stop = int(header["start"]), int(header["stop"])
            dlen, mlen = int(header["deal_bytes"]), int(header["match_bytes"])
        except (ValueError, KeyError, TypeError):
            break
        if not (0 <= start < stop) or dlen < 0 or mlen < 0 or nl + 1 + dlen + mlen > n:
            break
        payload = data[nl + 1 : nl + 1 + dlen + mlen]
        if hashlib.sha256(head + b"\n" + payload).hexdigest().encode() != digest:
            break
        entries.append(JournalEntry(start, stop, at, nl + 1, dlen, mlen, header))
        at = nl + 1 + dlen + mlen
    return entries, at


__all__ = [
    "MAGIC",
    "MAGIC_WITH_IDENTITY",
    "journal_identity",
    "magic_line",
    "Journal",
    "JournalEntry",
    "consistent_prefix",
    "entry_lines",
    "read_entries",
    "read_journal",
]

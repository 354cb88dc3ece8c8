"""Whether what a run directory holds was written by this run: journals and parts, before a resume keeps them.

A resume keeps what earlier sessions wrote; nothing it did not write may slip in:

- a **journal** names the run and part it belongs to in its first line
  (``guandan_cli.logs.journal``: ``run_id``, the config's ``digest``, the run directory's
  random ``instance``, the ``part``): :func:`identity_problem` says what does not match;
  its entries, whose digests only prove they are whole, are then checked as records
  (:func:`journal_problem`): every line through the checks ``analyze`` runs
  (``reader.checked_frames``, with the run's manifest: its ``run_id``, the part's matches),
  each entry's facts (the counts the manifest will sum) against its records, and each
  match record against its last deal line;
- a **complete part** listed in the manifest must still be the bytes written
  (:func:`part_damage`: size, then sha256).

>>> identity_problem({"run_id": "a1", "config": "c", "instance": "i", "part": 2},
...                  {"run_id": "b2", "config": "c", "instance": "i", "part": 2})
"its run_id is 'a1', this run's is 'b2' (another run's journal)"
>>> identity_problem(None, {"run_id": "b2"}) is None
True

Imports polars only to check records (``journal_problem``).
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from .journal import consistent_prefix, entry_lines, read_journal
from .layout import JournaledPart, part_paths
from .manifest import FileEntry, PartEntry

#: what a journal's identity holds, in the order a mismatch is told, and what each means
IDENTITY_FIELDS = (
    ("run_id", "another run's journal"),
    ("config", "a run with another config"),
    ("instance", "written in another run directory"),
    ("part", "another part's journal"),
)


def journal_identity(run_id: str, config_digest: str, instance: str, part: int) -> dict:
    """The identity a journal of part ``part`` of this run carries."""
    return {"run_id": run_id, "config": config_digest, "instance": instance, "part": part}


def identity_problem(found: dict | None, expected: dict) -> str | None:
    """What in a journal's identity ``found`` is not ``expected``, or ``None`` (``found``
    ``None``: a format-1 journal, which has none; its records are checked instead)."""
    if found is None:
        return None
    for key, meaning in IDENTITY_FIELDS:
        if key not in expected or found.get(key) == expected[key]:
            continue
        if key not in found:
            return f"it names no {key} (not a journal this version wrote)"
        return f"its {key} is {_short(found[key])}, this run's is {_short(expected[key])} ({meaning})"
    return None


def _short(value: object) -> str:
    """A value as a refusal shows it: a 64-digit digest cut to 12 digits.

    >>> _short("ab" * 32), _short(3)
    ("'abababababab…'", '3')
    """
    if isinstance(value, str) and len(value) == 64:
        return repr(value[:12] + "…")
    return repr(value)


def part_damage(out: Path, entry: PartEntry, compression: str) -> str | None:
    """What no longer matches of a complete part the manifest lists (``entry``), or ``None``.

    Each file the entry records (``deals_file``, ``matches_file``: ``{file, bytes, sha256}``)
    must be there with that size and sha256. An entry without them (a part found on disk
    after a crash) is not judged here.
    """
    said = []
    for facts, path in zip((entry.deals_file, entry.matches_file), part_paths(out, entry.index, compression)):
        if facts is None or facts.bytes is None:
            continue
        try:
            size = path.stat().st_size
        except OSError:
            said.append(f"{path.name} missing")
            continue
        if size != facts.bytes:
            what = "truncated" if size < facts.bytes else "grown"
            said.append(f"{path.name} {what} ({size} bytes, the manifest records {facts.bytes})")
            continue
        with open(path, "rb") as fh:
            digest = hashlib.file_digest(fh, "sha256").hexdigest()
        if digest != facts.sha256:
            said.append(
                f"{path.name} changed (sha256 {digest[:12]}…, the manifest records {str(facts.sha256)[:12]}…)"
            )
    return ", ".join(said) or None


def journal_problem(out: Path, index: int, first: int, stop: int) -> str | None:
    """What is wrong with the records of part ``index``'s journal (its consistent entries), or ``None``.

    The manifest on disk (the stored run's) gives the run's ``run_id`` and the part's
    matches ``first … stop-1``. The first problem found is told, naming the entry
    (``entry 3 (matches 34..35)``) and the line.
    """
    from .reader import LogReadError, checked_frames

    jpath = out / f"part-{index:05d}.journal"
    data, entries = read_journal(jpath)
    kept = sorted(consistent_prefix(entries, first, stop), key=lambda e: e.start)
    if not kept:
        return None
    order = {id(e): n for n, e in enumerate(entries, start=1)}  # entries are numbered as in the file
    part = JournaledPart(index, first, stop, jpath, tuple(kept), data)
    frames = {}
    for kind in ("deals", "matches"):
        try:
            got = list(checked_frames([part.source(kind)], kind, without=("hands", "actions")))
        except LogReadError as exc:
            line = getattr(exc, "line", None)
            entry = _entry_of_line(data, kept, kind, line) if isinstance(line, int) else None
            return f"{_named(entry, order)}{exc}"
        frames[kind] = got
    return _facts_problem(data, kept, frames, order)


def _named(entry, order: dict) -> str:
    if entry is None:
        return ""
    return f"entry {order[id(entry)]} (matches {entry.start}..{entry.stop - 1}): "


def _entry_of_line(data: bytes, kept, kind: str, line: int):
    """The entry holding line ``line`` (1-based, in match order) of the journal's ``kind`` lines."""
    seen = 0
    for e in kept:
        seen += entry_lines(data, e, kind).count(b"\n")
        if line <= seen:
            return e
    return kept[-1]


def _rows(frames: list, columns: list[str]) -> list[dict]:
    import polars as pl

    if not frames:
        return []
    return pl.concat([f.select(columns) for f in frames]).to_dicts()


def _facts_problem(data: bytes, kept, frames: dict, order: dict) -> str | None:
    """Each entry's facts (``matches``, ``deals``, ``errors``, ``capped``, ``wins``) against its
    records, and each match record against its last deal line."""
    deals = _rows(frames["deals"], ["match", "deal", "levels_after", "match_over", "match_winner", "capped"])
    records = _rows(frames["matches"], ["match", "deals", "final_levels", "winner", "capped", "error"])
    last: dict[int, dict] = {}
    lines: dict[int, int] = {}
    for d in deals:
        last[d["match"]] = d
        lines[d["match"]] = lines.get(d["match"], 0) + 1
    for e in kept:
        mine = [r for r in records if e.start <= r["match"] < e.stop]
        if [r["match"] for r in mine] != list(range(e.start, e.stop)):
            return f"{_named(e, order)}its match records are of matches {[r['match'] for r in mine]}"
        recount = {
            "matches": len(mine),
            "deals": sum(lines.get(m, 0) for m in range(e.start, e.stop)),
            "errors": sum(r["error"] is not None for r in mine),
            "capped": sum(bool(r["capped"]) for r in mine),
            "wins": [sum(r["winner"] == t for r in mine) for t in (0, 1)],
        }
        for key, value in recount.items():
            if key in e.facts and e.facts[key] != value:
                return f"{_named(e, order)}its header says {key} {json.dumps(e.facts[key])}, its records give {json.dumps(value)}"
        for r in mine:
            said = _record_vs_last_deal(r, last.get(r["match"]), lines.get(r["match"], 0))
            if said is not None:
                return f"{_named(e, order)}match {r['match']}: {said}"
    return None


def _record_vs_last_deal(rec: dict, last: dict | None, lines: int) -> str | None:
    """What a match record says that its deal lines do not (as ``guandan verify`` checks)."""
    if rec["deals"] != lines:
        return f"its match record says {rec['deals']} deals, the journal has {lines}"
    final = last["levels_after"] if last else ["2", "2"]
    if rec["final_levels"] != final:
        return f"final_levels is {rec['final_levels']}, its last deal left {final}"
    if rec["error"] is None:
        if last is None or not last["match_over"]:
            return "the match record has no error but its last deal does not end the match"
        if rec["winner"] != last["match_winner"]:
            return f"winner is {rec['winner']}, its last deal gives {last['match_winner']}"
        if rec["capped"] != last["capped"]:
            return f"capped is {rec['capped']}, its last deal gives {last['capped']}"
    elif (last is not None and last["match_over"]) or rec["winner"] is not None:
        return "an errored match whose last deal ends the match, or with a winner"
    return None


def file_facts(path: Path) -> FileEntry:
    """``{file, lines, bytes, sha256}`` of a part file as it is on disk (what ``PartWriter`` records)."""
    from .reader import open_part

    with open(path, "rb") as fh:
        digest = hashlib.file_digest(fh, "sha256").hexdigest()
    with open_part(path) as fh:
        lines = sum(1 for _ in fh)
    return FileEntry(path.name, lines, os.path.getsize(path), digest)


__all__ = [
    "IDENTITY_FIELDS",
    "file_facts",
    "identity_problem",
    "journal_identity",
    "journal_problem",
    "part_damage",
]

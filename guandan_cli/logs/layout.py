"""The run directory as readers see it: manifest, part plan, and which data files are complete.

Every reader asks this module which files of a run hold finished data, rather than
guessing from file names (``guandan_cli.logs.reader.part_files`` does so for a run
directory). The one question readers ask is :func:`run_completeness`:

>>> import json, pathlib, tempfile
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> cfg = {"matches": 300, "part_size": 100, "compression": "none"}
>>> _ = (d / MANIFEST).write_text(json.dumps({"format": FORMAT, "state": "interrupted", "config": cfg}))
>>> for kind in ("deals", "matches"):
...     _ = (d / f"{kind}-00000.jsonl").write_text("")
>>> _ = (d / "deals-00001.jsonl").write_text("")    # a part caught between its two renames
>>> c = run_completeness(d)
>>> c.complete, c.matches, c.total_matches, [p.name for p in c.deal_files()]
(False, 100, 300, ['deals-00000.jsonl'])
>>> c.describe()
'incomplete run: 100 of 300 matches'

A part is complete when both its files exist under their final names (they are written
as ``*.tmp`` and renamed, deals first, so a final name always holds a whole file; damage
done later is for ``guandan verify`` to find, against the sha256 in the manifest).

The finished matches of a part not yet complete are in its journal
(``part-NNNNN.journal``, see ``guandan_cli.logs.journal``). Readers see them too: the
journal's good entries (whole, digest matching; a torn tail is left out) up to the first
one inconsistent with the part (what ``simulate --resume`` keeps), in match order, read
from one snapshot of its bytes. A part is read either from its two final files or from
its journal, never both: its files win as soon as both exist (the journal is deleted
only after the second rename), and a journal found gone is looked for again as files.
Journaled matches may leave gaps (chunks finish out of order); each is a whole match
(all its deals), in increasing match order, which is all the readers' sequence checks
ask. :meth:`Completeness.sources` lists what to read, part by part:

>>> from .journal import Journal
>>> j = Journal.open(d / "part-00002.journal")
>>> j.append(250, 252, b'{"d":250}\\n', b'{"m":250}\\n{"m":251}\\n', {})
>>> j.append(200, 201, b'{"d":200}\\n', b'{"m":200}\\n', {})
>>> j.close()
>>> c = run_completeness(d)
>>> c.describe(), c.journaled_matches
('incomplete run: 103 of 300 matches', 3)
>>> [s.name for s in c.sources("matches")]
['matches-00000.jsonl', 'part-00002.journal[matches]']
>>> c.sources("deals")[-1].read()
b'{"d":200}\\n{"d":250}\\n'

Imports no polars.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field, replace
from pathlib import Path

from .journal import JournalEntry, consistent_prefix, entry_lines, read_journal
from .manifest import (  # noqa: F401 - MAX_MATCHES, MAX_PARTS and manifest_problem: re-exported
    FORMAT,
    MANIFEST,
    MAX_MATCHES,
    MAX_PARTS,
    STATES,
    Manifest,
    RunState,
    manifest_problem,
    part_plan,
    plan_problem,
    read_manifest,
)
from .writer import part_name

JOURNAL_SUFFIX = ".journal"


#: the fewest bytes a logged deal takes (measured: ~3.1 KB plain, ~440 B gzip, ~500 B zstd)
MIN_DEAL_BYTES = {"none": 2000, "gzip": 250, "zstd": 250}
#: the fewest deals a match lasts: +3 levels a deal takes 4 deals from 2 to A, then A is won
MIN_DEALS_PER_MATCH = 5


def _size(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB", "TB", "PB"):
        if n < 1000 or unit == "PB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    raise AssertionError  # pragma: no cover


def space_problem(
    out: str | os.PathLike,
    matches: int,
    max_deals: int | None = None,
    compression: str = "none",
    *,
    suggest_compression: bool = True,
) -> str | None:
    """Why the logs of ``matches`` more matches cannot fit on ``out``'s disk, or ``None``.

    The estimate is a floor (the fewest deals a match can last, the smallest deal line), so
    a refusal is certain to be right; typical runs take about 13 deals of ~3 KB per match.

    >>> space_problem(".", 10) is None
    True
    >>> space_problem(".", 10**15).startswith("the logs of 1000000000000000 matches take at least")
    True
    """
    deals = MIN_DEALS_PER_MATCH if max_deals is None else min(max_deals, MIN_DEALS_PER_MATCH)
    need = matches * max(deals, 1) * MIN_DEAL_BYTES.get(compression, min(MIN_DEAL_BYTES.values()))
    probe = Path(os.path.abspath(out))
    while not probe.exists() and probe.parent != probe:
        probe = probe.parent
    try:
        free = shutil.disk_usage(probe).free
    except OSError:
        return None  # no answer: the writes will say
    if need <= free:
        return None
    deals = max(deals, 1)
    return (
        f"the logs of {matches} match{'es' if matches != 1 else ''} take at least {_size(need)} "
        f"({deals} deal{'s' if deals > 1 else ''} of {MIN_DEAL_BYTES.get(compression, 250)} B "
        f"per match at the fewest), but {_size(free)} are free on {probe}: play fewer matches"
        + (", use --compression zstd" if compression == "none" and suggest_compression else "")
        + " or write to a larger disk"
    )


def plan_parts(matches: int, part_size: int) -> list[tuple[int, int, int]]:
    """``(part index, first match, stop)`` for each part of a run (``ValueError`` past the limits).

    >>> plan_parts(5, 2)
    [(0, 0, 2), (1, 2, 4), (2, 4, 5)]
    """
    problem = plan_problem(matches, part_size)
    if problem is not None:
        raise ValueError(problem)
    return [(p, a, min(a + part_size, matches)) for p, a in enumerate(range(0, matches, part_size))]


def part_paths(path: str | os.PathLike, index: int, compression: str) -> tuple[Path, Path]:
    """The final ``(deals file, matches file)`` of part ``index``."""
    path = Path(path)
    return path / part_name("deals", index, compression), path / part_name("matches", index, compression)


def journal_path(path: str | os.PathLike, index: int) -> Path:
    """The journal of unfinished part ``index`` (``part-00003.journal``)."""
    return Path(path) / f"part-{index:05d}{JOURNAL_SUFFIX}"


@dataclass(frozen=True)
class CompletePart:
    """A part whose two files are final: matches ``first_match … stop_match-1``."""

    index: int
    first_match: int
    stop_match: int
    deals_file: Path
    matches_file: Path

    @property
    def matches(self) -> int:
        return self.stop_match - self.first_match


@dataclass(frozen=True)
class JournaledPart:
    """The finished matches of part ``index`` (matches ``first_match … stop_match-1``) in its journal.

    ``entries``: the good, consistent entries (see the module docstring), in match
    order; ``data``: the journal's bytes as read (the entries' offsets point into it).
    """

    index: int
    first_match: int
    stop_match: int
    path: Path
    entries: tuple[JournalEntry, ...]
    data: bytes | None = field(repr=False, compare=False)  # None: not kept (``without_data``)

    @property
    def matches(self) -> int:
        return sum(e.stop - e.start for e in self.entries)

    def lines(self, kind: str) -> bytes:
        """Its deal or match lines, in match order: the bytes its part's file will hold (uncompressed)."""
        if self.data is None:
            raise ValueError(f"{self.path}: journal bytes not kept; ask run_completeness again")
        return b"".join(entry_lines(self.data, e, kind) for e in self.entries)

    def source(self, kind: str) -> JournalSource:
        return JournalSource(self, kind)


@dataclass(frozen=True)
class JournalSource:
    """The ``kind`` lines of a journaled part, read like a part file (``str``: ``PATH[kind]``).

    Readers name its lines ``part-00002.journal[deals]:LINE`` (lines counted in match order).
    """

    part: JournaledPart
    kind: str

    @property
    def path(self) -> Path:
        return self.part.path

    @property
    def parent(self) -> Path:
        return self.part.path.parent

    @property
    def name(self) -> str:
        return f"{self.part.path.name}[{self.kind}]"

    def read(self) -> bytes:
        return self.part.lines(self.kind)

    def __str__(self) -> str:
        return f"{self.part.path}[{self.kind}]"


#: what readers read: a complete part's file, or a journal's lines
Source = Path | JournalSource


@dataclass(frozen=True)
class Completeness:
    """What of a run directory is finished and may be read (see the module docstring)."""

    path: Path
    state: RunState  # the manifest's: running, complete, failed, interrupted
    total_matches: int  # the matches the run is to hold
    parts: tuple[CompletePart, ...]  # the complete parts, in order
    missing_parts: tuple[int, ...]  # indices of the parts not (yet) complete
    journaled: tuple[JournaledPart, ...] = ()  # finished matches of parts not complete
    run_id: str | None = None  # the manifest's

    @property
    def complete_matches(self) -> int:
        """Matches in complete parts."""
        return sum(p.matches for p in self.parts)

    @property
    def journaled_matches(self) -> int:
        """Finished matches of parts not yet complete (in their journals)."""
        return sum(j.matches for j in self.journaled)

    @property
    def matches(self) -> int:
        """Finished matches, in complete parts and in journals: what readers see."""
        return self.complete_matches + self.journaled_matches

    def journaled_counts(self) -> dict:
        """``matches``, ``deals``, ``errors``, ``capped``, ``wins`` of the journaled matches
        (from their entries' facts): to add to the manifest's ``counts``, which cover complete parts."""
        facts = [e.facts for j in self.journaled for e in j.entries]
        out = {k: sum(int(f.get(k, 0)) for f in facts) for k in ("deals", "errors", "capped")}
        wins = [f.get("wins", [0, 0]) for f in facts]
        return {
            "matches": self.journaled_matches,
            **out,
            "wins": [sum(w[0] for w in wins), sum(w[1] for w in wins)],
        }

    def without_data(self) -> Completeness:
        """The same facts without the journals' bytes (to keep; its sources can no longer be read)."""
        light = tuple(
            JournaledPart(j.index, j.first_match, j.stop_match, j.path, j.entries, None)
            for j in self.journaled
        )
        return replace(self, journaled=light)

    def sources(self, kind: str) -> list[Source]:
        """What readers read for ``kind``, in part order: complete parts' files and journals' lines."""
        files = self.files(kind)
        by_index: dict[int, Source] = {p.index: f for p, f in zip(self.parts, files)}
        by_index.update({j.index: j.source(kind) for j in self.journaled if j.entries})
        return [by_index[i] for i in sorted(by_index)]

    @property
    def complete(self) -> bool:
        return not self.missing_parts

    def deal_files(self) -> list[Path]:
        return [p.deals_file for p in self.parts]

    def match_files(self) -> list[Path]:
        return [p.matches_file for p in self.parts]

    def files(self, kind: str) -> list[Path]:
        """The complete data files of ``kind`` (``deals`` or ``matches``), in part order (no journal)."""
        if kind not in ("deals", "matches"):
            raise ValueError(f"kind must be deals or matches, got {kind!r}")
        return self.deal_files() if kind == "deals" else self.match_files()

    def describe(self) -> str:
        """``complete run: N matches`` or ``incomplete run: N of M matches``."""
        if self.complete:
            return f"complete run: {self.matches} match{'' if self.matches == 1 else 'es'}"
        return f"incomplete run: {self.matches} of {self.total_matches} match{'' if self.total_matches == 1 else 'es'}"

    def as_dict(self) -> dict:
        """JSON-ready facts (for ``--format json`` metadata)."""
        return {
            "run": str(self.path),
            "state": self.state,
            "complete": self.complete,
            "matches": self.matches,
            "journaled_matches": self.journaled_matches,
            "total_matches": self.total_matches,
        }


def run_completeness(
    path: str | os.PathLike, manifest: Manifest | None = None, *, journals: bool = True
) -> Completeness:
    """Which parts of the run at ``path`` are complete, and (``journals``) what the others' journals hold.

    ``ValueError`` if ``path`` holds no run. ``journals=False`` reads no journal.
    """
    path = Path(path)
    manifest = manifest if manifest is not None else read_manifest(path)
    if manifest is None:
        raise ValueError(f"{path}: no run here (no {MANIFEST})")
    try:
        matches, part_size, compression = part_plan(manifest)
        plan = plan_parts(matches, part_size)
    except ValueError:
        raise ValueError(f"{path / MANIFEST}: no valid config (matches, part_size, compression)") from None
    done, missing, journaled = [], [], []
    for index, first, stop in plan:
        deals, matches = part_paths(path, index, compression)
        held = None
        if not (matches.is_file() and deals.is_file()) and journals:
            held = _journaled(path, index, first, stop)
        if held is None and matches.is_file() and deals.is_file():
            # complete (looked at again: a journal is deleted only after its part's second rename)
            done.append(CompletePart(index, first, stop, deals, matches))
            continue
        missing.append(index)
        if held is not None and held.entries:
            journaled.append(held)
    total = plan[-1][2] if plan else 0
    return Completeness(
        path, manifest.state, total, tuple(done), tuple(missing), tuple(journaled), manifest.run_id
    )


def _journaled(path: Path, index: int, first: int, stop: int) -> JournaledPart | None:
    """A snapshot of part ``index``'s journal, or ``None`` if there is none (or no longer one)."""
    jpath = journal_path(path, index)
    try:
        data, entries = read_journal(jpath)
    except FileNotFoundError:
        return None
    kept = sorted(consistent_prefix(entries, first, stop), key=lambda e: e.start)
    return JournaledPart(index, first, stop, jpath, tuple(kept), data)


__all__ = [
    "FORMAT",
    "JOURNAL_SUFFIX",
    "MANIFEST",
    "CompletePart",
    "Completeness",
    "JournalSource",
    "JournaledPart",
    "Source",
    "journal_path",
    "part_paths",
    "plan_parts",
    "read_manifest",
    "run_completeness",
]


def file_in_the_way(path: Path) -> Path | None:
    """The first of ``path`` and its parents that exists as a file (not a folder), if any:
    what stops a folder from being made there.

    >>> file_in_the_way(Path(__file__) / "plots") == Path(__file__)
    True
    >>> file_in_the_way(Path(__file__).parent / "no-such-folder" / "plots") is None
    True
    """
    for folder in (path, *path.parents):
        if folder.exists():
            return None if folder.is_dir() else folder
    return None

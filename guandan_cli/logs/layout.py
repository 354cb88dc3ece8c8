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
done later is for ``guandan verify`` to find, against the sha256 in the manifest). Matches of unfinished parts may be safe in a part's journal
(``part-NNNNN.journal``, see ``guandan_cli.logs.journal``): ``simulate --resume`` keeps
them, but no reader sees them until their part is complete.

Imports no polars.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from .writer import part_name

MANIFEST = "manifest.json"
FORMAT = "guandan-run"
JOURNAL_SUFFIX = ".journal"


def read_manifest(path: str | os.PathLike) -> dict | None:
    """The manifest of a run directory, or ``None`` when there is none (``ValueError`` if unreadable)."""
    f = Path(path) / MANIFEST
    if not f.is_file():
        return None
    try:
        data = json.loads(f.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"{f}: unreadable manifest ({exc})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"{f}: not a guandan run manifest")
    return data


def plan_parts(matches: int, part_size: int) -> list[tuple[int, int, int]]:
    """``(part index, first match, stop)`` for each part of a run.

    >>> plan_parts(5, 2)
    [(0, 0, 2), (1, 2, 4), (2, 4, 5)]
    """
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
class Completeness:
    """What of a run directory is finished and may be read (see the module docstring)."""

    path: Path
    state: str  # the manifest's: running, complete, failed, interrupted
    total_matches: int  # the matches the run is to hold
    parts: tuple[CompletePart, ...]  # the complete parts, in order
    missing_parts: tuple[int, ...]  # indices of the parts not (yet) complete

    @property
    def matches(self) -> int:
        """Matches in complete parts: what readers see."""
        return sum(p.matches for p in self.parts)

    @property
    def complete(self) -> bool:
        return not self.missing_parts

    def deal_files(self) -> list[Path]:
        return [p.deals_file for p in self.parts]

    def match_files(self) -> list[Path]:
        return [p.matches_file for p in self.parts]

    def files(self, kind: str) -> list[Path]:
        """The complete data files of ``kind`` (``deals`` or ``matches``), in part order."""
        if kind not in ("deals", "matches"):
            raise ValueError(f"kind must be deals or matches, got {kind!r}")
        return self.deal_files() if kind == "deals" else self.match_files()

    def describe(self) -> str:
        """``complete run: N matches`` or ``incomplete run: N of M matches``."""
        if self.complete:
            return f"complete run: {self.matches} matches"
        return f"incomplete run: {self.matches} of {self.total_matches} matches"

    def as_dict(self) -> dict:
        """JSON-ready facts (for ``--format json`` metadata)."""
        return {
            "run": str(self.path),
            "state": self.state,
            "complete": self.complete,
            "matches": self.matches,
            "total_matches": self.total_matches,
        }


def run_completeness(path: str | os.PathLike, manifest: dict | None = None) -> Completeness:
    """Which parts of the run at ``path`` are complete (``ValueError`` if it holds no run)."""
    path = Path(path)
    manifest = manifest if manifest is not None else read_manifest(path)
    if manifest is None:
        raise ValueError(f"{path}: no run here (no {MANIFEST})")
    try:
        cfg = manifest["config"]
        plan = plan_parts(int(cfg["matches"]), int(cfg["part_size"]))
        compression = cfg["compression"]
    except (KeyError, TypeError, ValueError):
        raise ValueError(f"{path / MANIFEST}: no valid config (matches, part_size, compression)") from None
    done, missing = [], []
    for index, first, stop in plan:
        deals, matches = part_paths(path, index, compression)
        if matches.is_file() and deals.is_file():
            done.append(CompletePart(index, first, stop, deals, matches))
        else:
            missing.append(index)
    total = plan[-1][2] if plan else 0
    return Completeness(path, str(manifest.get("state")), total, tuple(done), tuple(missing))


__all__ = [
    "FORMAT",
    "JOURNAL_SUFFIX",
    "MANIFEST",
    "CompletePart",
    "Completeness",
    "journal_path",
    "part_paths",
    "plan_parts",
    "read_manifest",
    "run_completeness",
]

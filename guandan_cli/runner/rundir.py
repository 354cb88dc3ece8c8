"""The run directory: what a stored run holds, the lock, recovery, and every file a run writes.

Layout of ``runs/NAME/``::

    manifest.json            written atomically at the start, after every part and at the end
    .lock                    locked while a process writes the run
    deals-00000.jsonl[.gz|.zst]     deal records of matches 0 … part_size-1
    matches-00000.jsonl[.gz|.zst]   match records of the same matches
    deals-00001.jsonl …             the next part_size matches, and so on
    part-00002.journal              finished matches of a part not yet complete

Part ``p`` holds matches ``p*part_size … (p+1)*part_size-1``: its boundaries depend only
on match indices, never on workers or chunking. While a part is played, each finished
chunk of matches is appended to its journal and fsynced (``guandan_cli.logs.journal``);
when the journal covers the part, the part's two files are written from it as ``*.tmp``
and renamed (deals first, then matches), and the journal is deleted. Which parts are
complete is decided in one place, ``guandan_cli.logs.layout.run_completeness``
(``Run.completeness()``). Resuming keeps every complete part and every journaled match,
and plays only the rest.

In the order ``simulate`` uses them:

- :func:`inspect` — what ``out`` holds (``StoredRun``): a run to continue, one to wipe
  (``force``), or nothing; refuses a folder that is not a run and a stored run with
  another configuration, in one line each;
- :meth:`RunDirectory.open` — takes the lock, wipes or re-reads the stored run, drops
  temporaries; :meth:`~RunDirectory.recover` keeps what survives (complete parts, the
  consistent prefix of each journal);
- :meth:`~RunDirectory.begin`, :meth:`~RunDirectory.journal`,
  :meth:`~RunDirectory.finish`, :meth:`~RunDirectory.end` — the manifest, the journals
  and the parts, written as ``runner.execution`` hands over results;
- :func:`interruption` — how much a resume keeps, counted on disk, for a Ctrl-C at any moment.

``Run`` (``runner.run``) reads a run back.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import secrets
import sys
import threading
from dataclasses import dataclass, replace
from pathlib import Path

from guandan_cli.logs.journal import Journal, consistent_prefix
from guandan_cli.logs.layout import (
    FORMAT,
    JOURNAL_SUFFIX,
    MANIFEST,
    Completeness,
    file_in_the_way,
    journal_path,
    part_paths,
    plan_parts,
    read_manifest,
    run_completeness,
)
from guandan_cli.logs.manifest import (
    CONFIG_FIELDS,
    FileEntry,
    Manifest,
    PartEntry,
    PartialConfig,
    RunConfig,
    RunFolder,
    RunOptions,
    RunOrigin,
    RunState,
    SessionEntry,
    Totals,
    new_manifest,
    new_session,
    write_manifest,
)
from guandan_cli.logs.provenance import (
    file_facts,
    identity_problem,
    journal_identity,
    journal_problem,
    part_damage,
)
from guandan_cli.logs.writer import TMP_SUFFIX, PartWriter
from guandan_cli.runner.config import Session, SettledRun
from guandan_cli.runner.errors import SimulationInputError, SimulationInterrupted
from guandan_cli.runner.run import Run, TeamWins, open_run, short_spec

LOCK = ".lock"  # held (flock) by the process writing the run
#: config keys that decide the bytes of the log: a resumed run must match them all
IDENTITY_KEYS = CONFIG_FIELDS


def now_iso() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")


#: the Parquet copies ``analyze --to-parquet`` writes into a run directory (a copy of the run's parts)
PARQUET_COPIES = ("deals.parquet", "matches.parquet")


def run_files(path: Path) -> list[Path]:
    """Files of a run directory that this package wrote (parts, journals, temporaries, manifest, Parquet copies)."""
    out = []
    for p in path.iterdir():
        n = p.name
        if not p.is_file():
            continue
        if (
            n in (MANIFEST, MANIFEST + TMP_SUFFIX)
            or (n.startswith(("deals-", "matches-")) and ".jsonl" in n)
            or (n.startswith("part-") and n.endswith(JOURNAL_SUFFIX))
            or n in PARQUET_COPIES
            or n == "bots.log"  # what the bots printed (runner.supervisor.BOTS_LOG)
            or (n.endswith(".parquet" + TMP_SUFFIX) and n.removesuffix(TMP_SUFFIX) in PARQUET_COPIES)
        ):
            out.append(p)
    return out


def remove_temporaries(path: Path) -> None:
    for p in path.iterdir():
        if p.is_file() and p.name.endswith(TMP_SUFFIX):
            p.unlink()


# ------------------------------------------------------------------ what a folder holds


@dataclass
class StoredRun:
    """What ``inspect`` found in a run directory: the manifest of a run to continue (or
    ``None``), and whether an old run is to be wiped first (``force``)."""

    manifest: Manifest | None
    wipe: bool
    #: complete parts found changed since they were written are to be played again
    #: (``--replay-damaged``; else a resume refuses them in one line)
    replay_damaged: bool = False
    #: a run recorded complete whose parts are not all there, or not all as written
    parts_missing: bool = False

    @property
    def complete(self) -> bool:
        """A complete run whose parts are all there: nothing to play."""
        return self.manifest is not None and self.manifest.complete and not self.parts_missing

    @property
    def config(self) -> PartialConfig:
        """The stored config (nothing for a run to wipe or a new one)."""
        return PartialConfig.recorded(self.manifest)

    def matches_in_parts(self) -> int:
        """The matches held by the complete parts the stored manifest lists (0 for a new run)."""
        if self.manifest is None or self.wipe:
            return 0
        return self.manifest.matches_in_parts()


def inspect(
    out: Path, required: PartialConfig, resume: bool, force: bool, replay_damaged: bool = False
) -> StoredRun:
    """Check ``out`` for a run: one to continue, one to wipe, or none (``SimulationInputError``
    for a folder that is not a run, and for a stored run ``required`` disagrees with). A
    complete run whose parts are not all as written is continued (the parts are then
    refused, or with ``replay_damaged`` played again, by ``RunDirectory.recover``)."""
    if out.exists() and not out.is_dir():
        raise SimulationInputError(f"output {out} exists and is not a directory")
    existing, damaged = _stored_manifest(out, force) if out.is_dir() else (None, False)
    if damaged:
        return StoredRun(None, True)
    if existing is None:
        if resume:
            raise SimulationInputError(f"nothing to resume: no run in {out}")
        return StoredRun(None, False)
    if force:
        return StoredRun(None, True)
    missing = _parts_missing(out, existing)
    _refuse_other_config(out, existing, required)
    stored = StoredRun(existing, False, replay_damaged, missing)
    if stored.complete and not resume:
        raise SimulationInputError(
            f"output {out} holds a complete run; use --force to overwrite it or another --out"
        )
    return stored


def _stored_manifest(out: Path, force: bool) -> tuple[Manifest | None, bool]:
    """``(manifest, damaged)`` of the folder ``out``: ``(None, False)`` for an empty folder,
    ``(None, True)`` for a damaged run that ``force`` is to wipe."""
    try:
        existing = read_manifest(out)
    except ValueError as exc:
        if force and _damaged_run(out):
            return None, True
        hint = "use --force to start over or another --out" if _damaged_run(out) else "choose another --out"
        raise SimulationInputError(f"{exc}; {hint}") from None
    if existing is None and any(p.name not in (LOCK, MANIFEST + TMP_SUFFIX) for p in out.iterdir()):
        raise SimulationInputError(
            f"output {out} exists, is not empty and is not a guandan run; choose another --out"
        )
    return existing, False


def _parts_missing(out: Path, existing: Manifest) -> bool:
    """Whether a run recorded complete has parts not all there, or not all as written (size,
    sha256): it is then not complete, a missing part is played again, a changed one refused
    or played again (``RunDirectory.recover``)."""
    if not existing.complete:
        return False
    try:
        whole = run_completeness(out, existing, journals=False).complete
    except ValueError as exc:
        raise SimulationInputError(f"{exc}; use --force to start over or another --out") from None
    compression = existing.config.compression
    return not whole or any(part_damage(out, p, compression) for p in existing.parts)


def _refuse_other_config(out: Path, existing: Manifest, required: PartialConfig) -> None:
    stored = existing.recorded
    differ = required.differences(stored, schema=True)
    if differ:
        shown = ", ".join(f"{k} {_shown(was)} (now {_shown(now)})" for k, was, now in differ)
        raise SimulationInputError(
            f"output {out} holds a run with another configuration: {shown}; use --force to start over or another --out"
        )


def _shown(v) -> str:
    """A configuration value as a refusal shows it: ``not set``, ``a,b,c,d`` for strategies.

    >>> _shown(None), _shown(("greedy", "random", "greedy", "random")), _shown(3)
    ('not set', 'greedy,random,greedy,random', '3')
    """
    if v is None:
        return "not set"
    if isinstance(v, tuple | list):
        return ",".join(map(str, v))
    return str(v) if isinstance(v, int) else repr(v)


def _damaged_run(out: Path) -> bool:
    """Whether ``out``, whose manifest does not read, is still recognisably a guandan run.

    Its manifest says ``"format": "guandan-run"``, or part files lie next to it: ``--force``
    may then wipe it (only the files a run writes, ``run_files``).
    """
    try:
        data = json.loads((out / MANIFEST).read_bytes())
        if isinstance(data, dict) and data.get("format") == FORMAT:
            return True
    except (OSError, ValueError):
        pass
    return any(p.name.startswith("deals-") for p in run_files(out))


# ------------------------------------------------------------------ a Ctrl-C, a full disk


def interruption(
    out: str | os.PathLike, reason: KeyboardInterrupt | None = None, *, created: bool = False
) -> SimulationInterrupted:
    """A ``SimulationInterrupted`` for a Ctrl-C at any moment, from what the run directory ``out`` holds.

    The matches saved are those a resume keeps (complete parts and journaled matches, as
    ``guandan_cli.logs.layout.run_completeness`` counts them). With no run in ``out``, it
    says nothing was written (and removes ``out`` if this session ``created`` it empty but
    for its lock).
    """
    out = Path(out)
    try:
        manifest = RunFolder.read(out).manifest
        c = run_completeness(out, manifest) if manifest is not None else None
    except (OSError, ValueError):
        manifest = c = None
    if c is None:
        if created and out.is_dir():
            _remove_empty(out)
        exc = SimulationInterrupted(out, 0, 0, reason)
        exc.nothing_written = True
    else:
        exc = SimulationInterrupted(out, c.matches, c.total_matches, reason)
        exc.complete = c.complete and c.state == RunState.COMPLETE  # else a resume records it complete
    exc.args = (exc.resume_hint(),)
    return exc


def _remove_empty(out: Path) -> None:
    """Remove the folder this session made, which holds nothing but its lock."""
    try:
        (out / LOCK).unlink(missing_ok=True)
        (out / (MANIFEST + TMP_SUFFIX)).unlink(missing_ok=True)
        out.rmdir()
    except OSError:
        pass


def saved_line(out: Path, total: int) -> str:
    """How much of a run that stopped on a write error is safe, and how to go on."""
    try:
        saved = run_completeness(out).matches
    except (OSError, ValueError):
        return f"the complete parts in {out} are safe: make room, then rerun with --resume"
    return f"{saved} of {total} matches are saved: make room, then rerun with --resume"


# ------------------------------------------------------------------ opening, recovering


def _lock(out: Path):
    """Hold an exclusive lock on the run directory (released when the process ends)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        return None
    fh = open(out / LOCK, "a+b")
    try:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        fh.close()
        raise SimulationInputError(
            f"another simulate is writing to {out}; wait for it or choose another --out"
        ) from None
    return fh


def _clear_or_reload(out: Path, existing: Manifest | None, wipe: bool) -> Manifest | None:
    """Wipe the old run (``--force``) or re-read its manifest under the lock; drop ``*.tmp`` files."""
    if wipe:
        try:
            still = read_manifest(out) is not None  # still the run checked above
        except ValueError:
            still = _damaged_run(out)  # a damaged run, and --force was given
        if still:
            for f in run_files(out):
                f.unlink()
        existing = None
    else:
        existing = read_manifest(out) if existing is not None else None
    remove_temporaries(out)
    return existing


def _recover(
    out: Path, plan, comp: str, existing: Manifest | None, identity: dict, replay_damaged: bool
) -> tuple[dict[int, PartEntry], dict[int, Journal]]:
    """What survives of an earlier session: complete parts' entries, and the journals of the others.

    Only what this run wrote is kept (``guandan_cli.logs.provenance``): a complete part
    listed in the manifest must have the size and sha256 it records (else refused in one
    line, or with ``replay_damaged`` moved aside as ``NAME.damaged`` and played again); a
    complete part found on disk but not listed (a crash before the manifest was written) is
    checked as records and its facts computed. A journal must carry this run's identity
    (``identity`` and its part; an earlier version's journal, which has none, gets a note),
    its entries must lie inside its part and not overlap (it is cut at the first one that
    does not), and its entries must hold valid records that agree with their facts (else
    refused in one line). Journals of complete parts (a crash after the rename) are deleted.
    """
    parts: dict[int, PartEntry] = {}
    journals: dict[int, Journal] = {}
    if existing is None:
        for index, _a, _b in plan:
            journal_path(out, index).unlink(missing_ok=True)
        return parts, journals
    known = {p.index: p for p in existing.parts}
    complete = {p.index for p in run_completeness(out, existing, journals=False).parts}
    _note_missing(out, known, complete, comp)
    complete -= _damaged_parts(out, known, complete, comp, replay_damaged)
    try:
        for index, start, stop in plan:
            jpath = journal_path(out, index)
            if index in complete:
                entry = known.get(index)
                parts[index] = entry if entry is not None else _count_part(out, index, comp, start, stop)
                jpath.unlink(missing_ok=True)
            elif jpath.is_file():
                journals[index] = _admitted_journal(out, index, start, stop, identity | {"part": index})
    except BaseException:
        for journal in journals.values():
            journal.close()
        raise
    return parts, journals


#: what a refusal of something a run did not write says to do
_REFUSED_HINT = "delete it to play its matches again, or use --force to start over"


def _admitted_journal(out: Path, index: int, start: int, stop: int, identity: dict) -> Journal:
    """Part ``index``'s journal, kept if it is this run's (see ``_recover``; ``SimulationInputError`` if not)."""
    jpath = journal_path(out, index)
    journal = Journal.open(jpath, identity)
    try:
        problem = identity_problem(journal.identity, identity)
        if problem is not None:
            raise SimulationInputError(f"{jpath}: not this run's journal: {problem}; {_REFUSED_HINT}")
        journal.keep_first(len(consistent_prefix(journal.entries, start, stop)))
        problem = journal_problem(out, index, start, stop)
        if problem is not None:
            raise SimulationInputError(f"{jpath}: not what this run wrote: {problem}; {_REFUSED_HINT}")
        if journal.identity is None:  # written by an earlier guandan: checked, kept, given its identity
            if journal.entries:
                print(
                    f"note: {jpath}: written by an earlier guandan without the run's identity; its "
                    f"{journal.covered()} matches were checked as records and kept",
                    file=sys.stderr,
                )
            journal.reseal(identity)
    except BaseException:
        journal.close()
        raise
    return journal


def _note_missing(out: Path, known: dict[int, PartEntry], complete: set[int], comp: str) -> None:
    """A note for each part the manifest lists as complete whose files are not all there: it is played again."""
    for index in sorted(set(known) - complete):
        gone = [f.name for f in part_paths(out, index, comp) if not f.is_file()]
        if gone:
            print(
                f"note: {out}: part {index} listed in the manifest is missing ({', '.join(gone)}): "
                "playing it again from the seeds",
                file=sys.stderr,
            )


def _damaged_parts(
    out: Path, known: dict[int, PartEntry], complete: set[int], comp: str, replay: bool
) -> set[int]:
    """The complete parts whose files are not those the manifest records: refused in one line
    (``SimulationInputError`` naming each), or with ``replay`` moved aside (``NAME.damaged``) to be played again."""
    damaged = {i: d for i in sorted(complete) if i in known and (d := part_damage(out, known[i], comp))}
    if not damaged:
        return set()
    said = "; ".join(f"part {i}: {d}" for i, d in damaged.items())
    if not replay:
        n = len(damaged)
        raise SimulationInputError(
            f"{out}: {n} complete part{'s' if n > 1 else ''} no longer match{'' if n > 1 else 'es'} the "
            f"manifest ({said}); play {'them' if n > 1 else 'it'} again from the seeds with: guandan simulate "
            f"--out {out} --resume --replay-damaged (the damaged files are kept as NAME.damaged)"
        )
    for index in damaged:
        for path in part_paths(out, index, comp):
            if path.exists():
                os.replace(path, path.with_name(path.name + ".damaged"))
    print(f"note: {out}: playing again from the seeds: {said}", file=sys.stderr)
    return set(damaged)


def _count_part(out: Path, index: int, compression: str, start: int, stop: int) -> PartEntry:
    """Facts of a complete part found on disk but missing from the manifest (a crash after its
    renames, before the manifest was written): its lines checked as records of this run and
    part first (``SimulationInputError`` naming the line if not), its files' facts computed."""
    from guandan_cli.logs.reader import LogReadError, checked_frames, iter_records
    from guandan_cli.logs.records import MatchRecord

    deals_path, matches_path = part_paths(out, index, compression)
    try:
        for kind, path in (("deals", deals_path), ("matches", matches_path)):
            for _frame in checked_frames(
                [path], kind, without=("hands", "actions") if kind == "deals" else ()
            ):
                pass
    except LogReadError as exc:
        raise SimulationInputError(
            f"{exc}: a part not listed in the manifest that is not what this run wrote; delete "
            "its two files to play its matches again, or use --force to start over"
        ) from None
    wins = [0, 0]
    errors = capped = n = 0
    for line, data in iter_records(matches_path, "matches"):
        rec = MatchRecord.parse(data, matches_path, line)
        n += 1
        if rec.winner is not None:
            wins[rec.winner] += 1
        capped += rec.capped
        errors += rec.error is not None
    dfacts, mfacts = file_facts(deals_path), file_facts(matches_path)
    return PartEntry(index, start, stop, n, dfacts.lines, errors, capped, (wins[0], wins[1]), dfacts, mfacts)


# ------------------------------------------------------------------ parts and counts


def journal_facts(res) -> dict:
    """The facts a journal entry records of a task's result (``runner.tasks.TaskResult``)."""
    return {
        "matches": res.matches,
        "deals": res.deals,
        "errors": len(res.errors),
        "capped": res.capped,
        "wins": list(res.wins),
    }


def _finish_part(out: Path, index: int, start: int, stop: int, comp: str, journal: Journal) -> PartEntry:
    """Write part ``index``'s two files from its journal (each ``.tmp``, fsync, rename); its entry."""
    entries = journal.in_match_order()
    writers: list[PartWriter] = []
    files = []
    try:
        for path, read in zip(part_paths(out, index, comp), (journal.deal_lines, journal.match_lines)):
            writer = PartWriter(path, comp)
            writers.append(writer)
            for e in entries:
                writer.write(read(e))
            files.append(FileEntry(**writer.commit()))
    except BaseException:
        for writer in writers:
            writer.abort()
        raise
    f = [e.facts for e in entries]
    wins = (sum(x["wins"][0] for x in f), sum(x["wins"][1] for x in f))
    return PartEntry(
        index,
        start,
        stop,
        matches=sum(x["matches"] for x in f),
        deals=sum(x["deals"] for x in f),
        errors=sum(x["errors"] for x in f),
        capped=sum(x["capped"] for x in f),
        wins=wins,
        deals_file=files[0],
        matches_file=files[1],
    )


def _new_manifest(
    settled: SettledRun,
    command: str,
    existing: Manifest | None,
    session: Session,
    workers: int,
    chunk_size: int,
    instance: str,
) -> Manifest:
    """The manifest this session starts (continuing ``existing``'s start, folder and sessions)."""
    from guandan_cli._version import __version__

    origin = RunOrigin(
        package_version=__version__,
        command=command,
        # the folder relative paths (file.py:Class strategies) were read from
        started_in=(existing and existing.started_in) or os.getcwd(),
        started_at=(existing and existing.started_at) or now_iso(),
        instance=instance,
    )
    return new_manifest(
        settled.config,
        origin,
        sessions=existing.sessions if existing is not None else (),
        fingerprints=settled.fingerprints,
        setups_run_id=settled.setups_run_id,
        options=RunOptions(
            on_error=session.on_error,
            workers=workers,
            backend=session.backend,
            chunk_size=chunk_size,
            ray_address=session.ray_address,
            decision_timeout=session.decision_timeout,
            max_memory=session.max_memory,
        ),
    )


# ------------------------------------------------------------------ the directory being written


def _unwritable(out: Path, exc: OSError) -> SimulationInputError:
    """The one-line refusal of an output folder that cannot be made or written, naming the
    file in its way if one is (``afile.txt/x``: ``afile.txt is a file, not a folder``)."""
    blocker = file_in_the_way(out)
    why = f"{blocker} is a file, not a folder" if blocker is not None else exc.strerror or exc
    return SimulationInputError(f"cannot write to output {out}: {why}")


class RunDirectory:
    """A run directory opened for writing (locked): what survived, and every write of a session.

    ``parts``: the manifest entries of the complete parts; ``journals``: the open journals
    of the others. ``finish`` may run in another thread (``runner.execution``'s part
    writer) than ``journal``; the manifest is written under one lock.
    """

    def __init__(self, out: Path, existing: Manifest | None, lock, replay_damaged: bool = False) -> None:
        self.out = out
        self.replay_damaged = replay_damaged
        #: the run directory's random id (drawn when the run starts, kept by every resume)
        self.instance = (existing and existing.instance) or secrets.token_hex(8)
        self.identity: dict = {}
        #: the stored manifest as re-read under the lock (``None``: a new run)
        self.existing = existing
        self._lock = lock
        self.parts: dict[int, PartEntry] = {}
        self.journals: dict[int, Journal] = {}
        self.plan: list[tuple[int, int, int]] = []
        self.compression = "none"
        #: this session's manifest as last written (``None`` before ``begin``)
        self.manifest: Manifest | None = None
        #: this session's entry in it (the last of its sessions)
        self.session: SessionEntry = SessionEntry()
        self._mutex = threading.RLock()

    @classmethod
    def open(cls, out: Path, stored: StoredRun) -> RunDirectory:
        """Make ``out``, lock it, wipe the old run (``stored.wipe``) or re-read it (``SimulationInputError``
        when the folder cannot be made or another process holds it)."""
        try:
            out.mkdir(parents=True, exist_ok=True)
            lock = _lock(out)
        except OSError as exc:
            raise _unwritable(out, exc) from None
        try:
            existing = _clear_or_reload(out, stored.manifest, stored.wipe)
        except BaseException:
            if lock is not None:
                lock.close()
            raise
        return cls(out, existing, lock, stored.replay_damaged)

    def close_journals(self, *more: Journal) -> None:
        """Close the journals still open (and ``more``: those handed to the part writer)."""
        for journal in [*self.journals.values(), *more]:
            journal.close()

    def close(self) -> None:
        """Close the journals still open and release the lock."""
        self.close_journals()
        if self._lock is not None:
            self._lock.close()
            self._lock = None

    def __enter__(self) -> RunDirectory:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -------------------------------------------------------------- what survives

    def recover(self, config: RunConfig) -> None:
        """Keep the complete parts and the journaled matches of ``config``'s parts (see ``_recover``)."""
        self.plan = plan_parts(config.matches, config.part_size)
        self.compression = config.compression
        self.identity = journal_identity(config.run_id, config.digest, self.instance, -1)
        self.parts, self.journals = _recover(
            self.out, self.plan, self.compression, self.existing, self.identity, self.replay_damaged
        )

    def held(self) -> dict[int, list[tuple[int, int]]]:
        """The matches already held, by part: ``[(first, stop)]`` of each journal entry (a
        complete part holds its whole range)."""
        out = {index: [(start, stop)] for index, start, stop in self.plan if index in self.parts}
        for index, journal in self.journals.items():
            out[index] = sorted((e.start, e.stop) for e in journal.entries)
        return out

    def bounds(self, index: int) -> tuple[int, int]:
        _i, start, stop = self.plan[index]
        return start, stop

    # -------------------------------------------------------------- the manifest

    def begin(
        self, settled: SettledRun, command: str, session: Session, workers: int, chunk_size: int
    ) -> None:
        """Start this session's manifest (the run's config and identity, how it is played) and write it."""
        manifest = _new_manifest(settled, command, self.existing, session, workers, chunk_size, self.instance)
        self.session = new_session(now_iso(), workers=workers, backend=session.backend, chunk_size=chunk_size)
        self.manifest = replace(manifest, sessions=(*manifest.sessions, self.session))
        try:
            self.save()
        except OSError as exc:
            self.close_journals()
            raise _unwritable(self.out, exc) from None

    def save(self, state: RunState | None = None, **changes) -> None:
        """Write the manifest with the parts complete so far and this session's entry (and
        ``state`` and the other ``changes`` of its fields if given)."""
        with self._mutex:
            assert self.manifest is not None, "begin() writes the first manifest"
            ordered = tuple(self.parts[i] for i in sorted(self.parts))
            self.manifest = replace(
                self.manifest,
                parts=ordered,
                counts=Totals.of_parts(ordered, len(self.plan)),
                sessions=(*self.manifest.sessions[:-1], self.session),
                state=RunState(state) if state is not None else self.manifest.state,
                **changes,
            )
            write_manifest(self.out, self.manifest)

    def note_session(self, matches: int, deals: int, seconds: float) -> None:
        """This session's counts so far (written with the next part)."""
        with self._mutex:
            self.session = replace(self.session, matches=matches, deals=deals, seconds=round(seconds, 3))

    def end(self, state: RunState, error: str | None, matches: int, deals: int, seconds: float) -> None:
        """Record how the session ended and write the manifest (a disk gone away leaves the parts safe)."""
        self.note_session(matches, deals, seconds)
        with self._mutex:
            self.session = replace(self.session, state=RunState(state).value, ended_at=now_iso())
        try:
            self.save(state, error=error, ended_at=now_iso())
        except OSError:  # pragma: no cover - the disk went away; the parts are safe
            pass

    # -------------------------------------------------------------- journals and parts

    def journal(self, index: int, res) -> Journal:
        """Append a task's result to part ``index``'s journal (fsynced); the journal."""
        journal = self.journals.get(index)
        if journal is None:
            identity = self.identity | {"part": index}
            journal = self.journals[index] = Journal.open(journal_path(self.out, index), identity)
        journal.append(res.start, res.stop, res.deal_lines, res.match_lines, journal_facts(res))
        return journal

    def covered(self) -> list[int]:
        """The parts whose journals cover them (a session stopped before writing them)."""
        return [i for i, j in self.journals.items() if j.covers(*self.bounds(i))]

    def take(self, index: int) -> Journal:
        """Part ``index``'s journal, no longer counted among the open ones (to be finished)."""
        return self.journals.pop(index)

    def finish(self, index: int, journal: Journal) -> None:
        """Part ``index``'s journal covers it: write its files, record it, drop the journal."""
        start, stop = self.bounds(index)
        entry = _finish_part(self.out, index, start, stop, self.compression, journal)
        with self._mutex:
            self.parts[index] = entry
            self.save()
        journal.remove()


__all__ = [
    "FORMAT",
    "IDENTITY_KEYS",
    "LOCK",
    "MANIFEST",
    "Completeness",
    "Run",
    "RunDirectory",
    "StoredRun",
    "TeamWins",
    "inspect",
    "interruption",
    "journal_path",
    "now_iso",
    "open_run",
    "part_paths",
    "plan_parts",
    "read_manifest",
    "run_completeness",
    "run_files",
    "short_spec",
    "write_manifest",
]

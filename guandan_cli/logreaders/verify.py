"""``guandan verify``: replay every logged deal through the engine and report what does not hold.

For each deal line the ``DealSetup`` is rebuilt from the record alone (hands, level, levels,
level team, the previous deal's finish order and double-down from the previous line of the
same match, ``first_leader`` for deal 0, the ruleset and the run's options from the
manifest, or without one as the deal lines show them: :func:`infer_options`), its tribute, return and play actions are replayed with full verification, and
the record the replay gives (``deal_record``) is compared field by field with the line:
tribute and return, first leader, finish order, double-down, upgrade, levels after, match
end, winner, cap and the derived facts. Seeds (match, deal, hands dealt from the deal
seed, the first leader drawn from the match seed), the order of deals in a match and each
match record (deals, final levels, winner, cap, error) are checked against the deals too;
with a manifest, each part's sha256 as well. A setups run (one deal per "match", the
manifest's ``config.setups``) is checked deal by deal: a named source's setup ``m``
(``runner.setups.source_setup``) gives the seeds, hands and situation to compare and replay;
a run directory's deals are rebuilt from the record alone.

Every problem is a ``Problem(path, line, reason)``; ``verify(paths)`` returns them all, but
one: a manifest that disagrees with every deal line of its run on the run's identity
(``run_id``, ``seed``, ``strategies``: another run's manifest, or a hand-edited one) is one
problem naming both values and the manifest file, in place of the problems that follow
from it on every line (and, for another run's manifest, its sha256s and listed parts).
"""

from __future__ import annotations

import hashlib
import os
import random
import re
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path

from guandan_cli.engine.cards import HR, deal_hands
from guandan_cli.engine.deal import OVER, DealSetup, IllegalActionError, replay
from guandan_cli.engine.match import Match, deal_seed, level_token
from guandan_cli.engine.rules import get_ruleset
from guandan_cli.logs.layout import MANIFEST
from guandan_cli.logs.manifest import COUNTED, Manifest, PartEntry, PartialConfig, RunFolder, part_plan
from guandan_cli.logs.reader import ScanStats, check_line, iter_raw, iter_records, kind_of, part_files
from guandan_cli.logs.records import DealRecord, MatchRecord, RecordError, record_place
from guandan_cli.logs.schema import SCHEMA_VERSION, MatchKey, deal_record, derive_stats
from guandan_cli.runner.backends import open_backend
from guandan_cli.runner.seeds import match_seed as _match_seed
from guandan_cli.runner.setups import SETUP_SOURCES, source_setup


@dataclass(frozen=True)
class Problem:
    path: str
    line: int | None
    reason: str
    #: ``(what, the log's value)`` for a disagreement with the manifest that may hold on
    #: every line (``run_id``, ``seed``, ``strategies``, ``sha256``, ``listed``), else None
    cause: tuple[str, object] | None = field(default=None, compare=False)

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.reason}" if self.line else f"{self.path}: {self.reason}"


@dataclass
class VerifyReport:
    files: int = 0
    deals: int = 0
    matches: int = 0
    problems: list[Problem] = field(default_factory=list)
    #: folders whose parts were read without a manifest: no sha256 (nor run_id, seed,
    #: strategies) to check them against, which an "ok" must not pass over in silence
    no_manifest: list[str] = field(default_factory=list)
    #: per folder read without a manifest, the run options taken from its deal lines
    #: (:func:`infer_options`), for the note
    inferred: dict[str, dict[str, int | str]] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.problems


#: a problem found on a line: its reason, or ``(cause, reason)`` for a disagreement with the
#: manifest that may hold on every line (see ``Problem.cause``)
Found = str | tuple[tuple[str, object], str]


@dataclass
class _MatchState:
    """What the previous line of a match says (for the next deal's setup)."""

    last: DealRecord | None = None
    a_failures: tuple[int, int] = (0, 0)
    deals: int = 0
    where: tuple[str, int] = ("", 0)
    #: the deal before, whose line does not read as a deal (a problem there): the next deal
    #: is replayed from its own tribute, as a deal alone, its levels not checked against it
    unread: int | None = None


COMPARED = (
    "level",
    "hands",
    "tribute",
    "first_leader",
    "actions",
    "finish_order",
    "double_down",
    "upgrade",
    "winner_team",
    "levels_after",
    "match_over",
    "match_winner",
    "capped",
    "derived",
)


@dataclass(frozen=True)
class _RunFacts:
    """What the deal checks need from a manifest (small and picklable, for the workers): its
    config as recorded (or, without a manifest, as the deal lines show it) and its run id."""

    config: PartialConfig
    run_id: str | None


def _facts(manifest: Manifest | None, inferred: dict | None = None) -> _RunFacts:
    config = PartialConfig.recorded(manifest).updated(PartialConfig.of(**(inferred or {})))
    return _RunFacts(config, manifest.run_id if manifest is not None else None)


class _RunVerifier:
    def __init__(self, facts: _RunFacts, report: VerifyReport) -> None:
        self.report = report
        config = facts.config
        self.seed = config.seed
        self.a_fail_limit = config.a_fail_limit
        self.max_deals = config.max_deals
        self.run_id = facts.run_id
        self.strategies = config.strategies
        self.tribute = config.tribute
        #: a setups run (one deal per "match", see runner/setups.py) other than fresh ones
        self.setups = config.setups if config.setups not in (None, "fresh") else None
        self.states: dict[int, _MatchState] = {}
        self._rules: dict[str, object] = {}
        self.tally = _Tally()

    def problem(self, path, line, reason, cause: tuple[str, object] | None = None) -> None:
        self.report.problems.append(Problem(str(path), line, reason, cause))

    def rules(self, name: str):
        r = self._rules.get(name)
        if r is None:
            r = self._rules[name] = get_ruleset(
                name, a_fail_limit=self.a_fail_limit, max_deals=self.max_deals, tribute=self.tribute
            )
        return r

    def sourced(self, m: int, rules):
        """Setup ``m`` of a named setup source (``random``, ``paying``, ``resisting``), else None."""
        if self.seed is None or self.setups not in SETUP_SOURCES:
            return None
        return source_setup(self.setups, self.seed, m, rules)

    # -------------------------------------------------------------- deals

    def deal_line(self, path: Path, line: int, data: dict) -> None:
        self.report.deals += 1
        try:
            rec: DealRecord | None = DealRecord.parse(data, path, line)
            m, d = rec.match, rec.deal
        except RecordError as exc:
            rec, (m, d) = None, record_place(data)
            found: list[Found] = [exc.why]
        st = self.states.setdefault(m, _MatchState())
        if rec is not None:
            found = []
            try:
                self._check_deal(rec, st, found)
            except RecordError as exc:  # a tribute that gives no previous deal (a deal alone)
                found.append(f"cannot check this deal: {exc.why}")
            except ValueError as exc:  # a setup the engine refuses (cards, levels, previous deal)
                found.append(f"cannot check this deal: {type(exc).__name__}: {exc}")
        for p in found:
            cause, p = p if isinstance(p, tuple) else (None, p)
            self.problem(path, line, f"match {m} deal {d}: {p}", cause)
        st.last, st.unread = rec, (d if rec is None else None)
        st.deals += 1
        st.where = (str(path), line)

    def _check_deal(self, rec: DealRecord, st: _MatchState, found: list[Found]) -> None:
        if self.setups is not None:
            self._check_setup_deal(rec, found)
            return
        self._check_identity(rec, found)
        try:
            rules = self.rules(rec.ruleset)
        except ValueError as exc:
            found.append(str(exc))
            return
        self._check_play(rec, st, rules, found)

    def _check_strategies(self, rec: DealRecord, found: list[Found]) -> None:
        names = list(rec.strategies)
        if self.strategies is not None and names != self.strategies:
            found.append(
                (("strategies", names), f"strategies {names} are not the manifest's {self.strategies}")
            )

    def _check_identity(self, rec: DealRecord, found: list[Found]) -> None:
        """The line's seeds, run id and strategies against the run's (the manifest's, or inferred)."""
        m, d, mseed = rec.match, rec.deal, rec.match_seed
        if self.seed is not None and mseed != _match_seed(self.seed, m):
            found.append(
                (
                    ("seed", None),
                    f"match_seed {mseed} is not the seed of match {m} in a run with seed {self.seed}",
                )
            )
        if self.run_id is not None and rec.run_id != self.run_id:
            found.append(
                (("run_id", rec.run_id), f"run_id {rec.run_id!r} is not the manifest's {self.run_id!r}")
            )
        self._check_strategies(rec, found)
        if rec.deal_seed != deal_seed(mseed, d):
            found.append(f"deal_seed {rec.deal_seed} is not deal {d}'s seed in match seed {mseed}")

    def _check_place(self, rec: DealRecord, st: _MatchState, rules, found: list[Found]) -> bool:
        """The deal's place in its match: deal 0 first (its first leader drawn from the match
        seed), then each deal after the one before, with the levels it left; False when the
        deal cannot be replayed from there."""
        m, d, mseed = rec.match, rec.deal, rec.match_seed
        prev = st.last
        if prev is None:
            if d != 0:
                found.append(f"the first line of match {m} is deal {d}, not deal 0")
                return False
            levels_before, level_team = ("2", "2"), None
            first_leader = Match(mseed, rules).first_leader
            if rec.first_leader != first_leader:
                found.append(
                    f"first_leader {rec.first_leader} is not seat {first_leader}, drawn from match seed {mseed}"
                )
        else:
            if prev.match_over:
                found.append(f"deal {d} follows the end of the match (deal {prev.deal})")
                return False
            if d != prev.deal + 1:
                found.append(f"deal {d} follows deal {prev.deal} of the same match")
                return False
            levels_before, level_team = prev.levels_after, prev.winner_team
        if rec.levels_before != levels_before:
            found.append(
                f"levels_before is {list(rec.levels_before)}, the previous deal left {list(levels_before)}"
            )
        if rec.level_team != level_team:
            found.append(f"level_team is {rec.level_team}, the previous deal gives {level_team}")
        return True

    def _check_play(self, rec: DealRecord, st: _MatchState, rules, found: list[Found]) -> None:
        """The deal's place in its match, its hands and setup, its actions replayed, and the
        record the replay rebuilds compared with the line, field by field."""
        if st.unread is None and not self._check_place(rec, st, rules, found):
            return
        if len(rec.hands) != 4 or any(len(h) != 27 for h in rec.hands):
            found.append(f"hands hold {[len(h) for h in rec.hands]} cards, not 4 × 27")
            return
        if rec.hands != deal_hands(random.Random(rec.deal_seed)):
            found.append("hands are not the ones dealt from deal_seed")
        # unchecked: the engine's error, if any, comes from the replay
        setup = (
            rec.setup(st.last, rules, check=False)
            if st.unread is None
            else rec.setup_alone(rules, check=False)
        )
        self._check_replay(rec, setup, rules, st, found)

    def _check_replay(
        self,
        rec: DealRecord,
        setup: DealSetup,
        rules,
        st: _MatchState | None,
        found: list[Found],
        illegal: tuple[type[ValueError], ...] = (IllegalActionError,),
    ) -> None:
        """``rec``'s actions replayed from ``setup``, and the record the replay gives compared
        with the line (``st``: the match's A failures so far, None for a deal on its own;
        ``illegal``: the errors of the replay said as "illegal")."""
        try:
            deal = replay(setup, rec.actions())
        except illegal as exc:
            found.append(f"illegal: {exc}")
            return
        if deal.phase != OVER:
            found.append(f"the actions end before the deal is over (seat {deal.to_move} to {deal.phase})")
            return
        match = Match(rec.match_seed, rules)
        match.levels, match.level_team = list(setup.levels), setup.level_team
        match.deal_index, match.previous = rec.deal, setup.previous
        if st is not None:
            match.a_failures = list(st.a_failures)
        update = match.record(deal.result)
        if st is not None:
            st.a_failures = (match.a_failures[0], match.a_failures[1])
        key = MatchKey(rec.run_id, rec.match, rec.match_seed, tuple(rec.strategies))
        rebuilt = deal_record(
            key, deal_index=rec.deal, deal_seed=rec.deal_seed, setup=setup, deal=deal, update=update
        )
        if rec.version != SCHEMA_VERSION:  # an older line: its derived facts as that version counted them
            rebuilt = {**rebuilt, "derived": derive_stats(deal, version=rec.version)}
        found.extend(rec.differences(rebuilt, COMPARED))

    def _check_setup_deal(self, rec: DealRecord, found: list[Found]) -> None:
        """A deal of a setups run stands alone: its setup is rebuilt from its named source
        (``random``, ``paying``, ``resisting``: seeds, hands and situation checked against it)
        or, for a run directory's deals, from the record itself."""
        rules = self.rules(rec.ruleset)
        item = self.sourced(rec.match, rules)
        if item is not None:
            if rec.match_seed != item.match_seed:
                found.append(f"match_seed {rec.match_seed} is not the seed of setup {rec.match}")
            want = [level_token(x) for x in item.setup.levels]
            if list(rec.levels_before) != want or rec.level_team != item.setup.level_team:
                found.append(
                    f"levels_before {list(rec.levels_before)} and level_team {rec.level_team} are not setup "
                    f"{rec.match}'s {want} and {item.setup.level_team}"
                )
        if rec.deal_seed != deal_seed(rec.match_seed, rec.deal):
            found.append(
                f"deal_seed {rec.deal_seed} is not deal {rec.deal}'s seed in match seed {rec.match_seed}"
            )
        self._check_strategies(rec, found)
        if rec.hands != deal_hands(random.Random(rec.deal_seed)):
            found.append("hands are not the ones dealt from deal_seed")
        setup = rec.setup_alone(rules, check=False) if item is None else replace(item.setup, rules=rules)
        self._check_replay(rec, setup, rules, None, found, illegal=(ValueError,))

    # -------------------------------------------------------------- matches

    def match_line(self, path: Path, line: int, data: dict) -> MatchRecord | None:
        """Check a match line against its match's deal lines; the record, or None for a line
        that does not read as a match (a problem)."""
        self.report.matches += 1
        try:
            rec = MatchRecord.parse(data, path, line)
        except RecordError as exc:
            m, _ = record_place(data)
            self.states.pop(m, None)
            self.problem(path, line, f"match {m}: {exc.why}")
            return None
        st = self.states.pop(rec.match, None)
        for p in self._match_problems(rec, st):
            cause, p = p if isinstance(p, tuple) else (None, p)
            self.problem(path, line, f"match {rec.match}: {p}", cause)
        return rec

    def _match_problems(self, rec: MatchRecord, st: _MatchState | None) -> list[Found]:
        """A match record against its deal lines: seed, deals, final levels, winner, cap, error."""
        m, out = rec.match, []
        last = st.last if st else None
        n = st.deals if st else 0
        seeded = self.setups is None  # a setup's seed is checked with its deal
        if seeded and self.seed is not None and rec.match_seed != _match_seed(self.seed, m):
            out.append((("seed", None), f"match_seed {rec.match_seed} is not the seed of match {m}"))
        if last is not None and rec.match_seed != last.match_seed:
            out.append(f"match_seed {rec.match_seed} differs from its deals' {last.match_seed}")
        if rec.deals != n:
            out.append(f"deals is {rec.deals}, the log has {n} deal lines for match {m}")
        if st is not None and st.unread is not None:  # its last deal line does not read: said there
            return out
        final = last.levels_after if last else ("2", "2")
        if rec.final_levels != final:
            out.append(f"final_levels is {list(rec.final_levels)}, the last deal left {list(final)}")
        if rec.error is None:
            if last is None or not last.match_over:
                out.append("the match record has no error but its last deal does not end the match")
            else:
                if rec.winner != last.match_winner:
                    out.append(f"winner is {rec.winner}, the last deal gives {last.match_winner}")
                if rec.capped != last.capped:
                    out.append(f"capped is {rec.capped}, the last deal gives {last.capped}")
        else:
            if last is not None and last.match_over:
                out.append("the match record has an error but its last deal ends the match")
            if rec.winner is not None:
                out.append("an errored match has a winner")
        return out

    def finish(self, where: str) -> None:
        for m, st in sorted(self.states.items()):
            self.problem(st.where[0] or where, None, f"match {m}: deal lines but no match record")
        self.states.clear()


def _hash(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _group(paths) -> list[tuple[Path | None, list[Path], list[Path]]]:
    """(run directory or None, deal parts, match parts) per directory.

    A part file given alone brings the other part of the same index beside it, if any.
    A part reached twice (the same run given twice, a run and one of its parts, a folder
    of runs and one of its runs) is read once.
    """
    return [(d, ds, ms) for d, ds, ms, _whole in _group_whole(paths)]


def _group_whole(paths) -> list[tuple[Path | None, list[Path], list[Path], bool]]:
    """:func:`_group`, with whether each directory was given whole (not only some of its parts)."""
    if isinstance(paths, str | os.PathLike):
        paths = [paths]
    deals: list[Path] = []
    matches: list[Path] = []
    seen: set[Path] = set()
    whole: set[Path] = set()

    def add(into: list[Path], files: Iterable[Path]) -> None:
        for f in files:
            key = f.resolve()
            if key not in seen:
                seen.add(key)
                into.append(f)

    for raw in paths:
        p = Path(raw)
        if not p.is_file():
            found_deals, found_matches = part_files(p, "deals"), part_files(p, "matches")
            add(deals, found_deals)
            add(matches, found_matches)
            if p.is_dir():
                runs = [p] if (p / MANIFEST).is_file() else [q for q in p.iterdir() if q.is_dir()]
                whole.update(q.resolve() for q in runs)
            continue
        kind = kind_of(p)
        other_kind = "matches" if kind == "deals" else "deals"
        other = p.with_name(other_kind + p.name[len(kind) :])
        pair = {kind: [p], other_kind: [other] if other.is_file() else []}
        add(deals, pair["deals"])
        add(matches, pair["matches"])
    dirs: dict[Path, tuple[list, list]] = {}
    for p in deals:
        dirs.setdefault(p.parent.resolve(), (p.parent, [], []))[1].append(p)
    for p in matches:
        dirs.setdefault(p.parent.resolve(), (p.parent, [], []))[2].append(p)
    for d in whole:  # a run given whole whose parts are all gone is still checked against its manifest
        if (d / MANIFEST).is_file():
            dirs.setdefault(d, (d, [], []))
    return [(shown, ds, ms, key in whole) for key, (shown, ds, ms) in dirs.items()]


#: deal lines per worker task (a task never splits a match's run of lines)
CHUNK_DEALS = 200
_MATCH_FIELD = re.compile(rb'"match":(\d+),')


def _chunks(path: Path, unreadable: list[Problem]) -> Iterator[tuple[int, list[bytes]]]:
    """``(first line number, raw lines)`` of a deals part, cut only where the match changes.

    A part that cannot be read to its end adds a problem to ``unreadable``.
    """
    lines: list[bytes] = []
    first, last_match = 1, None
    for n, raw, err in iter_raw(path):
        if err is not None:
            unreadable.append(Problem(str(path), n, err))
            break
        found = _MATCH_FIELD.search(raw, 0, 200)
        match = found.group(1) if found else last_match
        if len(lines) >= CHUNK_DEALS and match != last_match:
            yield first, lines
            lines, first = [], n
        lines.append(raw)
        last_match = match
    if lines:
        yield first, lines


def verify_chunk(task: tuple[dict, str, int, list[bytes]]) -> tuple[list[Problem], int, dict]:
    """Check a run of deal lines in a worker: ``(problems, deals, per-match state at the end)``.

    ``task`` is ``(facts, path, first line number, raw lines)``; top-level, so the spawn
    context pickles it by reference.
    """
    facts, path, first, lines = task
    report = VerifyReport()
    v = _RunVerifier(facts, report)
    for n, raw in enumerate(lines, start=first):
        data, reason = check_line(raw, "deals")
        if reason is not None:
            report.problems.append(Problem(path, n, reason))
            continue
        v.deal_line(Path(path), n, data)
    states = {m: (st.last, st.unread, st.deals, st.where) for m, st in v.states.items()}
    return report.problems, report.deals, states


def verify(
    paths: str | os.PathLike | Iterable[str | os.PathLike],
    *,
    workers: int = 1,
    progress: Callable[[int], None] | None = None,
) -> VerifyReport:
    """Verify the parts under ``paths`` (run directories or part files); see the module docstring.

    Deal lines are checked in chunks of about ``CHUNK_DEALS`` by ``workers`` processes
    (a ``multiprocess`` spawn pool; at most ``4 × workers`` chunks in flight, results
    taken in order, so the report is the same for any number of workers).
    ``progress(deals)`` is called after each chunk.
    """
    report = VerifyReport()
    pool = open_backend("local", max(1, workers))
    window: deque = deque()
    limit = 4 * max(1, workers)
    try:
        for task, then in _steps(_group_whole(paths), report, progress):
            window.append((pool.submit(verify_chunk, task) if task is not None else None, then))
            while len(window) > limit or (window and window[0][0] is None):
                handle, then_ = window.popleft()
                then_(handle.get() if handle is not None else None)
        while window:
            handle, then_ = window.popleft()
            then_(handle.get() if handle is not None else None)
        pool.close()
    except BaseException:
        pool.terminate()
        raise
    return report


@dataclass(frozen=True)
class _RunRead:
    """A run directory as verify reads it: its manifest (or the problem of one that does not
    read), its part files, whether it was given whole, the options its lines show without a manifest."""

    run_dir: Path
    manifest: Manifest | None
    unreadable: Problem | None
    files: list[Path]
    whole: bool
    inferred: dict[str, int | str]


def _steps(groups, report: VerifyReport, progress) -> Iterator[tuple[tuple | None, Callable]]:
    """``(chunk task or None, what to do with its result)`` in the order results must be used."""
    for run_dir, deal_files, match_files, whole in groups:
        try:
            manifest, unreadable_manifest = RunFolder.read(run_dir).manifest, None
        except ValueError as exc:
            manifest, unreadable_manifest = None, Problem(str(run_dir), None, str(exc))
        inferred = infer_options(deal_files) if manifest is None else {}
        facts = _facts(manifest, inferred)
        v = _RunVerifier(facts, report)
        run = _RunRead(run_dir, manifest, unreadable_manifest, [*deal_files, *match_files], whole, inferred)
        mark: dict = {}
        yield None, partial(_start_run, report, run, mark)
        by_part = {f.name.split("-", 1)[1]: f for f in match_files}
        for f in deal_files:
            unreadable: list[Problem] = []
            for first, lines in _chunks(f, unreadable):
                v.tally.deal_lines[f.name] = v.tally.deal_lines.get(f.name, 0) + len(lines)
                yield (facts, str(f), first, lines), partial(_merge_chunk, v, report, progress)
            mf = by_part.pop(f.name.split("-", 1)[1], None)
            yield None, partial(_end_file, v, f, mf, unreadable, report)
        for mf in by_part.values():
            yield None, partial(_end_matches, v, mf, report)
        if manifest is not None:
            yield None, partial(_check_counts, report, manifest, run_dir, v.tally, whole)
            yield None, partial(_fold_identity, report, manifest, run_dir, mark)


#: ``setups`` for a run read without its manifest whose deals are set situations: each deal
#: is replayed on its own, from its record (no named source to compare it with)
ALONE = "(each deal alone)"


def infer_options(deal_files: list[Path]) -> dict[str, int | str]:
    """The run options of a run read without its manifest, as its deal lines show them.

    No line records them, yet they change what the replay gives: replayed without them, a
    correct capped run was reported broken on every capped deal. Each shows in the lines
    where it acted, and only there; a run where one never acted replays the same without it:

    - ``max_deals``: a deal ``d`` that is ``capped`` gives ``d + 1``;
    - ``a_fail_limit``: a level team at its own A that fails and is sent back to 2 gives
      its failures at A counted so far in the match;
    - ``setups`` (:data:`ALONE`): every match one deal, and a deal 0 that does not start a
      match (a level team): a setups run (``guandan experiment``), each deal replayed on
      its own as with a manifest naming a run directory as the source;
    - ``tribute`` (``paid``): a tribute paid by a side holding both ``HR``, which resists
      unless tribute is ``paid``.

    For a number, the value most lines give is taken (the larger on a tie): the lines that
    disagree with it are then reported by the replay, as with a manifest. Lines that do
    not parse are left to the checks that report them.
    """
    caps: Counter[int] = Counter()
    limits: Counter[int] = Counter()
    failures: dict[object, list[int]] = {}
    set_up = paid = False
    for path in deal_files:
        for n, raw, err in iter_raw(path):
            if err is not None:
                break
            data, reason = check_line(raw, "deals")
            if reason is not None:
                continue
            try:
                rec = DealRecord.parse(data, path, n)
            except RecordError:
                continue
            if rec.capped:
                caps[rec.deal + 1] += 1
            lt, before, after = rec.level_team, rec.levels_before, rec.levels_after
            count = failures.setdefault(rec.match, [0, 0, 0])
            count[2] += 1  # deal lines of the match
            if lt is not None and before[lt] == "A" and after[lt] != "A+":  # the match not won: a failure
                count[lt] += 1
                if after[lt] == "2":  # sent back to 2: the limit was reached
                    limits[count[lt]] += 1
                    count[lt] = 0
            set_up = set_up or (rec.deal == 0 and lt is not None)
            payers = {p.giver for p in rec.tribute.payments}
            paid = paid or sum(rec.hands[s].count(HR) for s in payers if s < len(rec.hands)) == 2
    found = PartialConfig.given_values(
        max_deals=_most_given(caps),
        a_fail_limit=_most_given(limits),
        setups=ALONE if set_up and all(count[2] == 1 for count in failures.values()) else None,
        tribute="paid" if paid else None,
    )
    return dict(found.items())


def _most_given(votes: Counter[int]) -> int | None:
    """The value most lines give (the larger on a tie), ``None`` for none."""
    return max(votes, key=lambda value: (votes[value], value)) if votes else None


def inferred_note(options: dict[str, int | str]) -> str:
    """How a note names the options ``infer_options`` found: ``max_deals 3 (from its capped deals), …``."""
    found = PartialConfig.of(**options)
    said = []
    if found.max_deals is not None:
        said.append(f"max_deals {found.max_deals} (from its capped deals)")
    if found.a_fail_limit is not None:
        said.append(f"a_fail_limit {found.a_fail_limit} (from its levels sent back to 2 at A)")
    if found.setups is not None:
        said.append("each deal on its own (its matches are single deals from set situations: a setups run)")
    if found.tribute is not None:
        said.append(f"tribute {found.tribute} (from a tribute paid by a side holding both HR)")
    return ", ".join(said)


def _start_run(report: VerifyReport, run: _RunRead, mark: dict, _result=None) -> None:
    """A run's first checks (its manifest's sha256s and listed parts), and where its problems start."""
    mark.update(problems=len(report.problems), deals=report.deals)
    if run.unreadable is not None:
        report.problems.append(run.unreadable)
    if run.inferred:
        report.inferred[str(run.run_dir)] = run.inferred
    if run.manifest is not None:
        _check_hashes(run.manifest, run.files, report)
        if run.whole:
            _check_listed(run.manifest, run.run_dir, run.files, report)
    elif run.unreadable is None and run.files:
        report.no_manifest.append(str(run.run_dir))


def _check_listed(manifest: Manifest, run_dir: Path, files: list[Path], report: VerifyReport) -> None:
    """Each part the manifest lists as written is read: a listed part file gone (or not a file) is a problem."""
    read = {f.name for f in files}
    for part in manifest.parts:
        for facts in part.files():
            name = facts.file
            if name in read:
                continue
            path = run_dir / name
            if path.is_file():
                continue  # present, but its part's other file is not: that one is reported
            what = "missing" if not path.exists() else "not a file"
            report.problems.append(
                Problem(
                    str(run_dir),
                    None,
                    f"part {part.index} listed in the manifest is {what}: {name}",
                    ("listed", name),
                )
            )


#: the manifest's facts a deal line is checked against, which may disagree with all of them
_IDENTITY = ("run_id", "seed", "strategies")


def _fold_identity(report: VerifyReport, manifest: Manifest, run_dir: Path, mark: dict, _result=None) -> None:
    """One problem for a manifest that disagrees with every deal line of its run on ``run_id``,
    ``seed`` or ``strategies``, in place of the problems that follow from it.

    Copying another run's manifest gave about three problems per line, each saying the same.
    A disagreement on some lines only is left as it is (those lines are the odd ones out).
    For another run's manifest (``run_id``), its sha256s and listed parts are that run's
    too, so those problems are folded in as well.
    """
    deals = report.deals - mark["deals"]
    own = report.problems[mark["problems"] :]
    if deals == 0 or not own:
        return
    lines: dict[str, set] = {what: set() for what in _IDENTITY}
    seen: dict[str, object] = {}
    for p in own:
        if p.cause is not None and p.cause[0] in lines and Path(p.path).name.startswith("deals"):
            lines[p.cause[0]].add((p.path, p.line))
            seen.setdefault(p.cause[0], p.cause[1])
    roots = [what for what in _IDENTITY if len(lines[what]) == deals]
    if not roots:
        return
    # another run's manifest: its sha256s, listed parts and counts are that run's (folded in, counted in n)
    folded = set(_IDENTITY) | {"sha256", "listed", "counts"} if "run_id" in roots else set(roots)
    kept = [p for p in own if p.cause is None or p.cause[0] not in folded]
    cfg = manifest.recorded
    said = []
    if "run_id" in roots:
        said.append(f"its run_id {manifest.run_id!r} is not the log's {seen['run_id']!r}")
    if "seed" in roots:
        said.append(f"its seed {cfg.seed!r} gives none of the log's match seeds")
    if "strategies" in roots:
        said.append(f"its strategies {cfg.strategies} are not the log's {seen['strategies']}")
    what = "another run's manifest" if "run_id" in roots else "a manifest that does not fit the log"
    n = len(own) - len(kept)
    matches_too = any(
        p.cause and p.cause[0] == "seed" and Path(p.path).name.startswith("matches") for p in own
    )
    parts_too = "run_id" in roots and any(p.cause and p.cause[0] in ("sha256", "listed") for p in own)
    sources = [
        "every deal line",
        *(["the match records"] if matches_too else []),
        *(["the parts' sha256"] if parts_too else []),
    ]
    reason = (
        f"{what}: {', and '.join(said)}, on all {deals} deal lines; the {n} problems that follow "
        f"from this (on {', '.join(sources)}) are not listed"
    )
    if kept:
        reason += "; the problems below may follow from it too"
    report.problems[mark["problems"] :] = [Problem(str(run_dir / MANIFEST), None, reason), *kept]


def _merge_chunk(v: _RunVerifier, report: VerifyReport, progress, result) -> None:
    problems, deals, states = result
    report.problems.extend(problems)
    report.deals += deals
    for m, (last, unread, count, where) in states.items():
        st = v.states.setdefault(m, _MatchState())
        st.last, st.unread, st.deals, st.where = last, unread, st.deals + count, where
    if progress is not None:
        progress(deals)


def _end_file(
    v: _RunVerifier, f: Path, mf: Path | None, unreadable, report: VerifyReport, _result=None
) -> None:
    report.files += 1
    report.problems.extend(unreadable)
    if mf is not None:
        _matches(v, mf, report)
    else:
        report.problems.append(Problem(str(f), None, "no matches part beside this deals part"))
    v.finish(str(f))


def _end_matches(v: _RunVerifier, mf: Path, report: VerifyReport, _result=None) -> None:
    _matches(v, mf, report)


def expected_deals(paths: str | os.PathLike | Iterable[str | os.PathLike]) -> int | None:
    """The deal lines ``verify(paths)`` will read, from the manifests (``None`` if any part is not listed)."""
    total = 0
    for run_dir, deal_files, _match_files in _group(paths):
        try:
            manifest = RunFolder.read(run_dir).manifest
        except ValueError:
            return None
        listed = {  # the lines the writer wrote (a hand-edited ``deals`` count is verify's to report)
            p.deals_file.file: p.deals_file.lines if p.deals_file.lines is not None else p.deals
            for p in (manifest.parts if manifest is not None else ())
            if p.deals_file is not None
        }
        for f in deal_files:
            if not isinstance(listed.get(f.name), int):
                return None
            total += listed[f.name]
    return total


def _check_hashes(manifest: Manifest, files: list[Path], report: VerifyReport) -> None:
    want = {facts.file: facts.sha256 for facts in manifest.part_files()}
    for f in files:
        sha = want.get(f.name)
        if sha is not None and _hash(f) != sha:
            report.problems.append(
                Problem(str(f), None, "content differs from the sha256 in the manifest", ("sha256", f.name))
            )


def _matches(v: _RunVerifier, mf: Path, report: VerifyReport) -> None:
    stats = ScanStats()
    report.files += 1
    counted = v.tally.match_files[mf.name] = _PartCounts()
    for line, data in iter_records(mf, "matches", skip_bad=True, stats=stats):
        counted.add(v.match_line(mf, line, data))
    counted.lines = counted.matches + len(stats.bad)
    for bad in stats.bad:
        report.problems.append(Problem(bad.path, bad.line, bad.reason))


@dataclass
class _PartCounts:
    """What a matches part's records count: the facts its manifest entry records."""

    matches: int = 0
    errors: int = 0
    capped: int = 0
    wins: list[int] = field(default_factory=lambda: [0, 0])
    lines: int = 0
    #: lines that do not read as a match (a problem each): the part's counts are not compared
    unread: int = 0

    def add(self, rec: MatchRecord | None) -> None:
        """Count a match line (``None``: one that does not read as a match)."""
        self.matches += 1
        if rec is None:
            self.unread += 1
            return
        self.errors += rec.error is not None
        self.capped += rec.capped
        if rec.winner is not None:
            self.wins[rec.winner] += 1


@dataclass
class _Tally:
    """The counts of one run's parts as read: deal lines by deals file, records by matches file."""

    deal_lines: dict[str, int] = field(default_factory=dict)
    match_files: dict[str, _PartCounts] = field(default_factory=dict)


def _recounted(part: PartEntry, tally: _Tally) -> dict | None:
    """What the records of a listed part count (``COUNTED``, and each file's ``lines``), or
    ``None`` when its files were not both read (or a match line does not read as a match)."""
    index = part.index
    compression = None
    dname = part.deals_file.file if part.deals_file is not None else None
    mname = part.matches_file.file if part.matches_file is not None else None
    if dname is None or mname is None:  # found on disk after a crash: named by its index
        for name in tally.match_files:
            if isinstance(index, int) and name.startswith(f"matches-{index:05d}.jsonl"):
                mname, compression = name, name[len(f"matches-{index:05d}.jsonl") :]
        dname = f"deals-{index:05d}.jsonl{compression}" if compression is not None else None
    counted = tally.match_files.get(mname or "")
    if counted is None or counted.unread or dname not in tally.deal_lines:
        return None
    return {
        "matches": counted.matches,
        "deals": tally.deal_lines[dname],
        "errors": counted.errors,
        "capped": counted.capped,
        "wins": counted.wins,
        "deals_file.lines": tally.deal_lines[dname],
        "matches_file.lines": counted.lines,
    }


def _of_part(n: int, part: PartEntry) -> str:
    """`` (part 3)`` when a part's place in the list is not its index (a part missing before it)."""
    return "" if part.index == n else f" (part {part.index})"


def _as_json(value):
    """A count as the manifest's JSON holds it (a pair of wins as a list)."""
    return list(value) if isinstance(value, tuple) else value


def _listed_value(part: PartEntry, key: str):
    if "." in key:
        outer, inner = key.split(".")
        facts = getattr(part, outer)
        return getattr(facts, inner) if facts is not None else None
    return _as_json(getattr(part, key))


def _check_counts(
    report: VerifyReport, manifest: Manifest, run_dir: Path, tally: _Tally, whole: bool, _result=None
) -> None:
    """Every count the manifest holds, against the records: each listed part's ``matches``,
    ``deals``, ``errors``, ``capped``, ``wins`` and files' ``lines``, and (the run read whole)
    ``counts``: those summed, ``parts`` (planned) and ``parts_done`` (listed). One problem per
    count that differs, naming the field, the manifest's value and the records'."""
    where = str(run_dir / MANIFEST)
    parts = manifest.parts
    totals: dict[str, object] = {"matches": 0, "deals": 0, "errors": 0, "capped": 0, "wins": [0, 0]}
    all_read = whole
    for n, part in enumerate(parts):
        got = _recounted(part, tally)
        if got is None:
            all_read = False
            continue
        for key, value in got.items():
            said = _listed_value(part, key)
            if said is not None and said != value:
                report.problems.append(
                    Problem(
                        where,
                        None,
                        f"parts[{n}].{key} is {said}, the records give {value}{_of_part(n, part)}",
                        ("counts", key),
                    )
                )
        for key in COUNTED:
            v = got[key]
            totals[key] = [a + b for a, b in zip(totals[key], v)] if key == "wins" else totals[key] + v
    counts = manifest.counts
    if not (all_read and parts) or counts is None:  # no part to count: "nothing to verify"
        return
    try:
        totals["parts"] = len(_planned_parts(manifest))
    except ValueError:
        pass
    totals["parts_done"] = len(parts)
    for key, value in totals.items():
        said = _as_json(counts.get(key))
        if said is not None and said != value:
            report.problems.append(
                Problem(where, None, f"counts.{key} is {said}, the records give {value}", ("counts", key))
            )


def _planned_parts(manifest: Manifest) -> list:
    from guandan_cli.logs.layout import plan_parts

    matches, size, _compression = part_plan(manifest)
    return plan_parts(matches, size)


_PART_FILE = re.compile(r"(deals|matches)-(\d{5})\.jsonl(\.gz|\.zst)?")


def stray_part_notes(runs: list[Path]) -> list[str]:
    """A note per run folder holding part files that are no part of the run (outside its plan,
    or of another compression): no reader reads them, so "ok" would pass over them."""
    from guandan_cli.logs.layout import part_paths, plan_parts

    notes = []
    for run in runs:
        try:
            manifest = RunFolder.read(run).manifest
            if manifest is None:
                continue
            matches, part_size, compression = part_plan(manifest)
            plan = plan_parts(matches, part_size)
            planned = {p.name for index, _a, _b in plan for p in part_paths(run, index, compression)}
            stray = sorted(
                q.name for q in run.iterdir() if _PART_FILE.fullmatch(q.name) and q.name not in planned
            )
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if stray:
            parts = "part 0" if len(plan) == 1 else f"parts 0..{len(plan) - 1}"
            notes.append(
                f"note: {run}: {', '.join(stray)} {'is' if len(stray) == 1 else 'are'} not read: "
                f"the run's {matches} matches are {parts}, {'uncompressed' if compression == 'none' else compression}"
            )
    return notes


def unverified_journal_notes(runs: list[Path]) -> list[str]:
    """A note per unfinished run with journaled matches: verify reads complete parts only."""
    from guandan_cli.logs.layout import run_completeness

    notes = []
    for run in runs:
        try:
            manifest = RunFolder.read(run).manifest
            c = run_completeness(run, manifest) if manifest is not None else None
        except ValueError:
            continue
        if c is not None and c.journaled_matches:
            notes.append(
                f"note: {run}: {c.describe()}; verify checks complete parts only, not the "
                f"{c.journaled_matches} journaled matches of unfinished parts (resume the run to verify them)"
            )
    return notes


__all__ = [
    "ALONE",
    "CHUNK_DEALS",
    "Problem",
    "VerifyReport",
    "expected_deals",
    "infer_options",
    "inferred_note",
    "stray_part_notes",
    "unverified_journal_notes",
    "verify",
    "verify_chunk",
]

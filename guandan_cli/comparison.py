"""Strategy comparisons: duplicate matches, confidence intervals, round-robin leaderboards.

A *duplicate pair* plays each match seed twice with the teams swapped (A at seats
0/2, then at 1/3), so both sides see the same cards; luck of the deal cancels
within a pair. Figures for A: match win rate (over the decided matches: a match capped
by ``max_deals`` or errored is no win and no loss), deal win rate and mean level gain
per deal (+upgrade when A's team wins a deal, −upgrade when B's does); every 95%
interval is a bootstrap over the pairs, the unit in which the games are independent.

>>> res = compare("greedy", "random", matches=4, seed=1, max_deals=3, workers=1,
...               out=getfixture("tmp_path") / "cmp")
>>> res.pairs.height, res.a, res.b
(4, 'greedy', 'random')
>>> res.verdict().startswith("greedy")
True
"""

from __future__ import annotations

import functools
import itertools
import math
import os
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path
from typing import Any

from guandan_cli.stats import bootstrap_ratio_interval, wilson_interval


def strategy_spec(strategy: str | type) -> str:
    """The spec string of a strategy: a name, ``module:Class``, ``file.py:Class``, or for a class
    defined where workers cannot import it (a notebook cell), ``__main__:Class`` (such a class is
    sent to the workers by value; see ``guandan_cli.runner.identity.class_spec``)."""
    if isinstance(strategy, str):
        return strategy
    if not isinstance(strategy, type):
        raise TypeError(f"a strategy is a name or a class, got {strategy!r}")
    from guandan_cli.runner.identity import class_spec

    return class_spec(strategy)[0]


def _label(strategy: str | type) -> str:
    """A short name: the spec for names, the class's ``name`` for classes and ``…:Class`` specs."""
    if isinstance(strategy, str):
        if ":" not in strategy:
            return strategy
        strategy = _loaded(strategy)
    return getattr(strategy, "name", None) or strategy.__name__


def _loaded(spec: str) -> type:
    """The class of ``spec``, loaded within the runs' decision limit (a module whose import never
    ends is refused in one line, as ``simulate`` refuses it)."""
    from guandan_cli.runner.config import load_in_time
    from guandan_cli.runner.supervisor import check_decision_timeout, limits_given

    return load_in_time(spec, check_decision_timeout(limits_given().decision_timeout))


DUPLICATE_MODES = ("match", "deal")
#: the range of A's level gain in one deal: ±1, ±2 or ±3 levels
GAIN_RANGE = (-3.0, 3.0)


def _stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _sign(ci: tuple[float, float]) -> str:
    """``>`` when the whole interval is above 0, ``<`` when below, ``≈`` otherwise (or without one).

    >>> _sign((0.1, 0.4)), _sign((-0.2, 0.3)), _sign((math.nan, math.nan))
    ('>', '≈', '≈')
    """
    lo, hi = ci
    return ">" if lo > 0 else "<" if hi < 0 else "≈"


def _outward(lo: float, hi: float, decimals: int) -> tuple[float, float]:
    """``lo`` rounded down and ``hi`` up to ``decimals``, so a printed interval is never narrower
    than the computed one (``[0.9981, 1]`` shows as ``[99, 100]`` percent, not ``[100, 100]``).

    >>> _outward(99.81, 100.0, 0), _outward(-0.325, 0.175, 2), _outward(0.5, 0.5, 2)
    ((99.0, 100.0), (-0.33, 0.18), (0.5, 0.5))
    """
    unit = 10.0**decimals
    eps = 1e-9  # a value a float error away from a printed digit is that digit
    return math.floor(lo * unit + eps) / unit + 0.0, math.ceil(hi * unit - eps) / unit + 0.0


def _bracket(ci: tuple[float, float], fmt: str, scale: float = 1.0) -> str:
    """``[lo, hi]`` formatted (``fmt`` like ``.2f``) and rounded outward, ``[–, –]`` when there
    is no interval (fewer than 2 pairs).

    >>> _bracket((0.25, 0.5), ".0f", 100), _bracket((math.nan, math.nan), ".2f")
    ('[25, 50]', '[–, –]')
    >>> _bracket((2.99552, 2.99950), ".2f"), _bracket((0.99809, 1.0), ".0f", 100)
    ('[2.99, 3.00]', '[99, 100]')
    """
    lo, hi = ci
    if math.isnan(lo) or math.isnan(hi):
        return "[–, –]"
    lo, hi = _outward(lo * scale, hi * scale, int(fmt[1:-1]))
    return f"[{lo:{fmt}}, {hi:{fmt}}]"


@dataclass
class CompareResult:
    """The figures of a comparison of A against B, and the per-pair data (``pairs``).

    ``duplicate`` is ``"match"`` (a pair is a match seed played with the teams swapped) or
    ``"deal"`` (a pair is one deal setup played with the teams swapped, from ``setups``).
    """

    a: str
    b: str
    matches: int
    seed: int
    paired: bool
    pairs: object  # pl.DataFrame: one row per seed pair
    match_wins: int
    match_losses: int
    match_unfinished: int
    deal_wins: int
    deals: int
    level_gain: float
    level_gain_ci: tuple[float, float]
    runs: tuple = field(default_factory=tuple)
    duplicate: str = "match"
    setups: str | None = None
    first_outs: int = 0
    #: deal mode: the deal win rate's and first-out rate's intervals (bootstrap over pairs)
    pair_intervals: dict = field(default_factory=dict)
    #: a note on the design: A and B are the same strategy (a self-comparison, the null check)
    note: str | None = None

    @property
    def games(self) -> int:
        return 2 * self.matches

    @property
    def decided(self) -> int:
        """The matches with a winner (not capped by ``max_deals``, not errored)."""
        return self.match_wins + self.match_losses

    @property
    def match_rate(self) -> float:
        """A's share of the decided matches (``nan`` when none was decided)."""
        return self.match_wins / self.decided if self.decided else math.nan

    @property
    def match_ci(self) -> tuple[float, float]:
        if "match" in self.pair_intervals:
            return self.pair_intervals["match"]
        return wilson_interval(self.match_wins, self.decided) if self.decided else (math.nan, math.nan)

    @property
    def deal_rate(self) -> float:
        return self.deal_wins / self.deals if self.deals else math.nan

    @property
    def deal_ci(self) -> tuple[float, float]:
        if "deal" in self.pair_intervals:
            return self.pair_intervals["deal"]
        return wilson_interval(self.deal_wins, self.deals)

    @property
    def first_out_rate(self) -> float:
        """The share of deals in which a player of A's team went out first (上游)."""
        return self.first_outs / self.deals if self.deals else math.nan

    @property
    def first_out_ci(self) -> tuple[float, float]:
        if "first_out" in self.pair_intervals:
            return self.pair_intervals["first_out"]
        return wilson_interval(self.first_outs, self.deals)

    def verdict(self) -> str:
        """``A > B: +0.41 levels/deal [0.33, 0.49], matches 78% [74, 82], …`` (``≈`` when the CI spans 0).

        Deal mode names deals and first-out rates instead of matches.
        """
        head = f"{self.a} {_sign(self.level_gain_ci)} {self.b}: {self.level_gain:+.2f} levels/deal "
        head += _bracket(self.level_gain_ci, ".2f") + ", "
        deals = f"deals {self.deal_rate:.0%} {_bracket(self.deal_ci, '.0f', 100)}"
        if self.duplicate == "deal":
            return f"{head}{deals}, first out {self.first_out_rate:.0%} {_bracket(self.first_out_ci, '.0f', 100)}"
        return f"{head}{self.match_figure()}, {deals}"

    def match_figure(self) -> str:
        """``matches 78% [74, 82]`` over the decided matches; with capped or errored ones, how
        many were decided (``matches 50% [0, 100] of 4 decided``); ``matches –`` when none was."""
        if not self.decided:
            return f"matches – (none of {self.games} decided)"
        text = f"matches {self.match_rate:.0%} {_bracket(self.match_ci, '.0f', 100)}"
        return text if self.decided == self.games else f"{text} of {self.decided} decided"

    def describe(self) -> str:
        """What was played, in one line (``heuristic vs greedy: 100 deal pairs (fresh setups) = 200 deals``)."""
        if self.duplicate == "deal":
            return (
                f"{self.a} vs {self.b}: {self.matches} deal pairs ({self.setups} setups) = {self.deals} deals"
            )
        design = "duplicate pairs" if self.paired else "unpaired"
        return f"{self.a} vs {self.b}: {self.matches} {design} = {self.games} matches, {self.deals} deals"

    def table(self) -> object:
        """The figures as a one-row-per-measure Polars frame."""
        import polars as pl

        dlo, dhi = self.deal_ci
        glo, ghi = self.level_gain_ci
        flo, fhi = self.first_out_ci
        measures = ["deal win rate", "first-out rate", "level gain per deal"]
        values = [self.deal_rate, self.first_out_rate, self.level_gain]
        lows, highs, ns = [dlo, flo, glo], [dhi, fhi, ghi], [self.deals, self.deals, self.deals]
        if self.duplicate == "match":
            mlo, mhi = self.match_ci
            measures.insert(0, "match win rate")
            values.insert(0, self.match_rate)
            lows.insert(0, mlo)
            highs.insert(0, mhi)
            ns.insert(0, self.decided)
        return pl.DataFrame({"measure": measures, "value": values, "ci_low": lows, "ci_high": highs, "n": ns})


def _per_match(run, a_team: int):
    """Per match: A's match result, deals, A deal wins, A first outs, A level gain."""
    import polars as pl

    deals = (
        run.scan()
        .select("match", "winner_team", "upgrade", "finish_order")
        .with_columns(
            a_won=pl.col("winner_team") == a_team,
            a_first=(pl.col("finish_order").list.first() % 2) == a_team,
        )
        .group_by("match")
        .agg(
            deals=pl.len(),
            a_deal_wins=pl.col("a_won").sum(),
            a_first_outs=pl.col("a_first").sum(),
            a_gain=pl.when(pl.col("a_won")).then(pl.col("upgrade")).otherwise(-pl.col("upgrade")).sum(),
        )
    )
    matches = run.scan_matches().select("match", "winner", "capped", "error")
    return (
        matches.join(deals, on="match", how="left")
        .with_columns(
            a_match=pl.when(pl.col("winner") == a_team)
            .then(1.0)
            .when(pl.col("winner") == 1 - a_team)
            .then(0.0)
            .otherwise(None),
            deals=pl.col("deals").fill_null(0),
            a_deal_wins=pl.col("a_deal_wins").fill_null(0),
            a_first_outs=pl.col("a_first_outs").fill_null(0),
            a_gain=pl.col("a_gain").fill_null(0),
        )
        .sort("match")
        .collect()
    )


class StoredStatus(StrEnum):
    """What a comparison finds in a seating's run folder (the values are those it always said)."""

    NEW = "new"  # no run there yet
    CHANGED = "changed"  # a run of other code, seeds or options: recomputed
    STORED = "stored"  # the same run, complete: reused
    PARTIAL = "partial"  # the same run, unfinished: continued


def _stored_status(
    where: Path, wanted, fingerprints: dict, source: tuple[bool, str | None] = (False, None)
) -> tuple[str, str]:
    """``(StoredStatus, what changed)`` for a run folder of a comparison
    (``wanted``: the ``PartialConfig`` of the run; ``source``: whether the setups come from a
    run directory, and that run's id)."""
    from guandan_cli.logs.manifest import RunFolder
    from guandan_cli.runner.errors import SimulationInputError
    from guandan_cli.runner.identity import identity_changes

    try:
        manifest = RunFolder.read(where).manifest
    except ValueError as exc:
        raise SimulationInputError(f"{exc}; use --force to recompute, or another --out") from None
    if manifest is None:
        return StoredStatus.NEW, ""
    changes = identity_changes(
        manifest, wanted, fingerprints, check_source=source[0], source_run_id=source[1]
    )
    if changes:
        return StoredStatus.CHANGED, changes[0]
    return (StoredStatus.STORED if manifest.complete else StoredStatus.PARTIAL), ""


def _same_code(a, b, fa: dict, fb: dict) -> bool:
    """Whether two specs name one strategy: the same code (fingerprint) under the same name
    (``heuristic`` and ``guandan_cli.strategies.heuristic:HeuristicStrategy``; not two ``onnx:``
    specs of one model with other encodings, whose names are their specs)."""
    if fa.get("hash") != fb.get("hash"):
        return False
    from guandan_cli.strategies.registry import load_strategy

    return getattr(load_strategy(a), "name", None) == getattr(load_strategy(b), "name", None)


def _self_note(label: str, paired: bool, deal_mode: bool) -> str:
    """The note of a comparison of a strategy with itself: still valid, it is the null check.

    >>> _self_note("greedy", True, False)[:60]
    'note: A and B are the same strategy (greedy): a self-compari'
    """
    head = f"note: A and B are the same strategy ({label}): a self-comparison, the null check; "
    if not paired:
        return head + "its difference should be 0 within its interval"
    unit = "deal" if deal_mode else "match"
    return (
        head + f"paired, each pair is one {unit} played twice, seen from either side, so the "
        "difference is 0 by construction (--unpaired plays other seeds for the swapped seating: "
        "the spread of chance)"
    )


def _check_options(matches: int, duplicate: str, setups: str | os.PathLike) -> None:
    """Refuse what ``compare``/``tournament`` cannot play, before any match (the CLI's rules)."""
    if isinstance(matches, bool) or not isinstance(matches, int):
        raise TypeError(f"matches (-n/--matches) must be a positive whole number, got {matches!r}")
    if duplicate not in DUPLICATE_MODES:
        raise ValueError(
            f"unknown duplicate mode {duplicate!r}: expected one of {', '.join(DUPLICATE_MODES)}"
        )
    if matches < 1:
        raise ValueError(f"matches (-n/--matches) must be a positive whole number, got {matches!r}")
    if duplicate == "match" and str(setups) != "fresh":
        raise ValueError(
            f"setups {str(setups)!r} goes with duplicate='deal' (match-level pairs play whole matches)"
        )


def _pairs_problem(pairs: int) -> str | None:
    """Why ``pairs`` duplicate pairs are more than one comparison's run may hold, or ``None``."""
    from guandan_cli.logs.layout import MAX_MATCHES

    if pairs > MAX_MATCHES:
        return (
            f"at most {MAX_MATCHES} pairs (-n/--matches) in one comparison, got {pairs} "
            "(split a larger study into comparisons with different seeds)"
        )
    return None


def _space_problem(out: Path, pairs: int, runs: int, max_deals: int | None, deal_mode: bool) -> str | None:
    """Why the logs of ``runs`` runs of ``pairs`` matches each cannot fit under ``out``, or ``None``."""
    from guandan_cli.logs.layout import space_problem

    problem = space_problem(out, pairs * runs, 1 if deal_mode else max_deals, suggest_compression=False)
    if problem is None:
        return None
    return f"{pairs} pairs (-n) in {runs} runs: {problem}"


def compare(
    a: str | type,
    b: str | type,
    matches: int = 100,
    seed: int = 0,
    *,
    out: str | os.PathLike | None = None,
    notify: Callable[[str], None] | None = _stderr,
    **options: Any,
) -> CompareResult:
    """Compare strategy ``a`` with ``b`` over ``matches`` duplicate pairs; ``options`` are the
    fields of :class:`CompareOptions` (``workers``, ``ruleset``, ``max_deals``, ``duplicate``…).

    ``duplicate="match"`` (the default): each pair is a match seed played twice, A's team at
    seats 0/2 then at 1/3 (2 × matches games). ``duplicate="deal"``: each pair is one deal
    setup from ``setups`` (``"fresh"``, ``"random"`` or a run directory, see
    ``guandan_cli.runner.setups``) played twice, A's team holding one side's cards and
    situation, then the other's; luck cancels within each deal, so intervals are narrower.

    Writes two runs like ``simulate`` under ``out`` (``A-vs-B-sSEED-nMATCHES/ab`` with A at
    seats 0/2 and ``…/ba`` with A at seats 1/3), so ``guandan analyze`` works on them
    (``out=None``: a temporary folder, removed before returning; ``runs`` is then empty, and
    what the bots printed is kept in a ``guandan-compare-*-bots.log`` file of the temporary
    directory, named in a note).
    With ``paired=False`` the second run uses other seeds (an unpaired design, for contrast).

    Stored runs under ``out`` are reused only when they are what this call would play:
    same seeds, options and strategies' code (``strategies.fingerprint``). Otherwise they
    are recomputed; ``notify`` (default: print to stderr) is told in one line which
    happened. ``force=True`` recomputes in any case; ``resume=False`` refuses to reuse.
    ``on_error``: ``"stop"`` or ``"record"`` (an errored match counts as unfinished).
    """
    o = CompareOptions(matches, seed, **options)  # TypeError for an option there is none of
    _check_options(matches, o.duplicate, o.setups)
    bootstrap = o.bootstrap
    if isinstance(bootstrap, bool) or not isinstance(bootstrap, int) or bootstrap < 1:
        raise ValueError(f"bootstrap must be a positive whole number of resamples, got {bootstrap!r}")
    problem = _pairs_problem(matches)
    if problem is not None:
        raise ValueError(problem)
    o = replace(o, setups=str(o.setups))
    if out is None:
        # the runs go, the bots' output stays: a file of its own beside the temporary folder
        fd, bots_log = tempfile.mkstemp(prefix="guandan-compare-", suffix="-bots.log")
        os.close(fd)
        try:
            with tempfile.TemporaryDirectory(prefix="guandan-compare-") as tmp:
                res = _compare(a, b, Path(tmp), o, None, bots_log)
                res.pairs = res.pairs.clone()
                res.runs = ()
                return res
        finally:
            if os.path.exists(bots_log) and os.path.getsize(bots_log) == 0:
                os.unlink(bots_log)
    return _compare(a, b, Path(out), o, notify)


@dataclass(frozen=True)
class CompareOptions:
    """A comparison's options (see ``compare``'s docstring), checked by ``compare``: one value
    handed down, ``workers`` and ``progress`` to each run's ``simulate``."""

    matches: int = 100
    seed: int = 0
    workers: int | None = None
    ruleset: str = "cgr2022"
    max_deals: int | None = None
    a_fail_limit: int | None = None
    paired: bool = True
    duplicate: str = "match"
    setups: str | os.PathLike = "fresh"
    progress: bool = False
    resume: bool = True
    force: bool = False
    on_error: str = "stop"
    bootstrap: int = 2000


def _compare(
    a, b, base: Path, options: CompareOptions, notify: Callable[[str], None] | None, bots_log=None
) -> CompareResult:
    """The comparison of ``a`` and ``b`` with its runs under ``base`` (see ``compare``)."""
    from guandan_cli.runner.identity import strategy_fingerprints
    from guandan_cli.runner.simulation import simulate

    o = options
    matches, seed, paired, duplicate, max_deals, force = (
        o.matches, o.seed, o.paired, o.duplicate, o.max_deals, o.force
    )  # fmt: skip
    pairing = _Pairing.of(a, b)
    deal_mode = duplicate == "deal"
    if deal_mode and not paired:
        raise ValueError("deal-level duplicates are paired by construction: drop paired=False")
    source = o.setups if deal_mode else None
    folder = base / pairing.folder_name(seed, matches, paired, source)
    seatings = pairing.seatings(folder, seed, seed if paired else seed + 1_000_003)
    fingerprints = strategy_fingerprints([pairing.sa, pairing.sb], pairing.classes)
    same = pairing.sa == pairing.sb or _same_code(
        pairing.objects[pairing.sa],
        pairing.objects[pairing.sb],
        fingerprints[pairing.sa],
        fingerprints[pairing.sb],
    )
    note = _self_note(pairing.la, paired, deal_mode) if same else None
    if note is not None and notify is not None:
        notify(note)
    status = _statuses(seatings, fingerprints, matches, o.ruleset, o.a_fail_limit, max_deals, source)
    if notify is not None and not force:
        _notify_status(notify, status, folder)
    todo = sum(1 for kind, _w in status if force or kind != StoredStatus.STORED)
    problem = _space_problem(base, matches, todo, max_deals, deal_mode)
    if problem is not None:
        from guandan_cli.runner.errors import SimulationInputError

        raise SimulationInputError(problem)
    play = functools.partial(
        simulate,
        matches=matches,
        ruleset=o.ruleset,
        a_fail_limit=o.a_fail_limit,
        workers=o.workers,
        max_deals=max_deals,
        on_error=o.on_error,
        setups=source,
        progress=o.progress,
        bots_log=bots_log,
    )
    runs = _play_seatings(seatings, status, pairing, play, o.resume, force)
    return _result(pairing, runs, o, source, same, note)


@dataclass(frozen=True)
class _Pairing:
    """The two strategies of a comparison: specs, labels, and what reaches the workers."""

    sa: str
    sb: str
    la: str
    lb: str
    objects: dict  # spec -> what simulate is given (the spec, or a class sent by value)
    classes: dict  # spec -> class, for those workers cannot import

    @classmethod
    def of(cls, a, b) -> _Pairing:
        from guandan_cli.runner.identity import by_value_classes

        sa, sb = strategy_spec(a), strategy_spec(b)
        classes = by_value_classes([a, b])
        oa, ob = classes.get(sa, sa), classes.get(sb, sb)  # classes workers cannot import go by value
        la, lb = _label(a), _label(b)
        if la == lb and sa != sb:  # two bots whose classes share a name: their specs tell them apart
            la, lb = sa, sb
        return cls(sa, sb, la, lb, {sa: oa, sb: ob}, classes)

    def folder_name(self, seed: int, matches: int, paired: bool, setups: str | None) -> str:
        """``A-vs-B-sSEED-nMATCHES`` (``-unpaired``), or ``A-vs-B-deals-SOURCE-…`` for deal pairs."""
        la, lb = _safe(self.la), _safe(self.lb)
        if setups is not None:
            source = setups if setups in ("fresh", "random") else _safe(Path(setups).name)
            return f"{la}-vs-{lb}-deals-{source}-s{seed}-n{matches}"
        return f"{la}-vs-{lb}-s{seed}-n{matches}{'' if paired else '-unpaired'}"

    def seatings(self, folder: Path, seed: int, seed_ba: int) -> list[tuple[int, list[str], Path, str]]:
        """``(seed, seats, run folder, label)``: A at seats 0/2 (``ab``), then at 1/3 (``ba``)."""
        sa, sb, la, lb = self.sa, self.sb, self.la, self.lb
        return [
            (seed, [sa, sb, sa, sb], folder / "ab", f"{la} vs {lb}"),
            (seed_ba, [sb, sa, sb, sa], folder / "ba", f"{la} vs {lb}, swapped"),
        ]


def _statuses(seatings, fingerprints: dict, matches, ruleset, a_fail_limit, max_deals, setups) -> list:
    """``_stored_status`` of each seating's run folder (``fingerprints``: of both strategies)."""
    from guandan_cli.logs.manifest import PartialConfig
    from guandan_cli.runner.identity import setups_run_id

    from_run = setups is not None and setups not in ("fresh", "random")
    source_run = (from_run, setups_run_id(setups) if from_run else None)
    status = []
    for seed_, seats, where, _ in seatings:
        wanted = PartialConfig.of(
            seed=seed_,
            matches=matches,
            strategies=seats,
            ruleset=ruleset,
            a_fail_limit=a_fail_limit,
            max_deals=1 if setups is not None else max_deals,
            setups=setups,
        )
        status.append(_stored_status(where, wanted, fingerprints, source_run))
    return status


def _notify_status(notify: Callable[[str], None], status: list, folder: Path) -> None:
    """One line on what is done with the stored runs: recomputed, reused or continued."""
    kinds = [k for k, _ in status]
    if StoredStatus.CHANGED in kinds:
        what = next(w for k, w in status if k == StoredStatus.CHANGED)
        notify(f"{what} since {folder} was written: recomputing")
    elif kinds == [StoredStatus.STORED, StoredStatus.STORED]:
        notify(f"reusing the stored results in {folder} (same code, seeds and options; --force recomputes)")
    elif StoredStatus.PARTIAL in kinds or StoredStatus.STORED in kinds:
        notify(f"continuing the unfinished comparison in {folder}")


def _play_seatings(seatings, status, pairing: _Pairing, play: Callable, resume: bool, force: bool) -> list:
    """Each seating's run: reused or continued as stored, recomputed when changed (or forced)."""
    runs = []
    for (seed_, seats, where, text), (kind, _w) in zip(seatings, status):
        if kind in (StoredStatus.STORED, StoredStatus.PARTIAL) and not resume and not force:
            from guandan_cli.runner.errors import SimulationInputError

            raise SimulationInputError(
                f"{where} holds a stored run; use --force to recompute, or another --out"
            )
        again = kind in (StoredStatus.STORED, StoredStatus.PARTIAL) and not force
        redo = force or kind == StoredStatus.CHANGED
        runs.append(
            play(
                seed=seed_,
                strategies=[pairing.objects[x] for x in seats],
                out=where,
                resume=again,
                force=redo and kind != StoredStatus.NEW,
                label=text,
            )
        )
    return runs


def _result(
    pairing: _Pairing, runs, options: CompareOptions, setups: str | None, same: bool, note: str | None
) -> CompareResult:
    """The comparison's figures from its two runs (see ``CompareResult``; ``setups``: the deal
    pairs' source, None for match pairs; ``same``: A and B are one strategy, whose paired
    intervals are exact)."""
    import polars as pl

    matches, seed, paired, duplicate, bootstrap = (
        options.matches, options.seed, options.paired, options.duplicate, options.bootstrap
    )  # fmt: skip

    la, lb = pairing.la, pairing.lb
    deal_mode = duplicate == "deal"
    run_ab, run_ba = runs
    ab = _per_match(run_ab, 0)
    ba = _per_match(run_ba, 1)
    pairs = (
        ab.join(ba, on="match", suffix="_swapped")
        .select(
            pl.col("match"),
            pl.col("a_match").alias("a_match_seats02"),
            pl.col("a_match_swapped").alias("a_match_seats13"),
            (pl.col("deals") + pl.col("deals_swapped")).alias("deals"),
            (pl.col("a_deal_wins") + pl.col("a_deal_wins_swapped")).alias("a_deal_wins"),
            (pl.col("a_first_outs") + pl.col("a_first_outs_swapped")).alias("a_first_outs"),
            (pl.col("a_gain") + pl.col("a_gain_swapped")).alias("a_level_gain"),
        )
        .sort("match")
    )
    results = pl.concat([ab["a_match"], ba["a_match"]])
    wins = int((results == 1.0).sum())
    losses = int((results == 0.0).sum())
    unfinished = results.len() - wins - losses
    gains = pairs["a_level_gain"].to_list()
    ndeals = pairs["deals"].to_list()
    itself = paired and same
    if paired:
        units = pair_units(pairs)
    else:  # unpaired: the units are the individual matches
        units = pl.concat([ab, ba]).with_columns(
            a_wins=pl.col("a_match").fill_null(0.0), decided=pl.col("a_match").is_not_null().cast(pl.Int64)
        ).rename({"a_gain": "a_level_gain"})  # fmt: skip
    ci, intervals = unit_intervals(units, bootstrap, seed, exact=itself, matches=not deal_mode)
    total_deals = sum(ndeals)
    return CompareResult(
        a=la,
        b=lb,
        matches=matches,
        seed=seed,
        paired=paired,
        pairs=pairs,
        match_wins=wins,
        match_losses=losses,
        match_unfinished=unfinished,
        deal_wins=int(pairs["a_deal_wins"].sum()),
        deals=total_deals,
        level_gain=sum(gains) / total_deals if total_deals else math.nan,
        level_gain_ci=ci,
        runs=(run_ab, run_ba),
        duplicate=duplicate,
        setups=setups,
        first_outs=int(pairs["a_first_outs"].sum()),
        pair_intervals=intervals,
        note=note,
    )


def pair_units(pairs):
    """The per-pair frame with ``a_wins`` (A's wins among the pair's decided matches) and
    ``decided`` (how many of its two matches had a winner) added."""
    import polars as pl

    decided = pl.concat_list("a_match_seats02", "a_match_seats13").list.drop_nulls()
    return pairs.with_columns(a_wins=decided.list.sum().cast(pl.Float64), decided=decided.list.len())


def unit_intervals(
    units, bootstrap: int = 2000, seed: int = 0, *, exact: bool = False, matches: bool = True
) -> tuple[tuple[float, float], dict]:
    """The level gain's interval and the rates' (``deal``, ``first_out``, and with ``matches``
    the decided matches' ``match``), each a bootstrap over the rows of ``units`` (pairs, or
    the matches of an unpaired design): the deals of a match and the two games of a pair
    are not independent, so resampling deals or games would give too narrow an interval.

    Rows that all agree get the exact interval of a bounded mean
    (``stats.agreeing_units_interval``), except with ``exact`` (a strategy against itself in
    duplicate, where agreement holds by construction: the swapped game is the same game).
    A row without deals (or without a decided match) says nothing about that figure and
    is left out.
    """
    import polars as pl

    rate_range = None if exact else (0.0, 1.0)

    def interval(column: str, over: str, bounds: tuple[float, float] | None) -> tuple[float, float]:
        kept = units.filter(pl.col(over) > 0)
        return bootstrap_ratio_interval(
            kept[column].to_list(), kept[over].to_list(), resamples=bootstrap, seed=seed, bounds=bounds
        )

    ci = interval("a_level_gain", "deals", None if exact else GAIN_RANGE)
    intervals = {
        "deal": interval("a_deal_wins", "deals", rate_range),
        "first_out": interval("a_first_outs", "deals", rate_range),
    }
    if matches:
        intervals["match"] = interval("a_wins", "decided", rate_range)
    return ci, intervals


def _safe(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in name)[:60]


#: the rating model of tournaments (openskill's defaults; see docs/strategies.md)
RATING_MODEL = "openskill PlackettLuce (μ 25, σ 25/3, β 25/6, τ 25/300)"
Z95 = 1.959963984540054


@dataclass
class TournamentResult:
    """A round robin of duplicate comparisons: the leaderboard, the win-rate matrix, each pairing.

    ``leaderboard``: one row per strategy: ``rank``, ``strategy``, openskill ``mu`` and
    ``sigma``, the rating interval ``rating_low``/``rating_high`` (μ ± 1.96σ), ``ordinal``
    (μ − 3σ, which orders the board; when no game was decided every ``rank`` is 1, in the
    order given: draws alone leave only noise in σ), the games (matches, or deals in deal mode) won of the
    decided ones (``wins``/``games``, ``win_rate`` with a Wilson interval, ``nan`` when none was
    decided) and ``undecided`` (capped or errored matches: rated a draw, in no win rate).
    ``matrix``: the row strategy's win rate over the decided games against each column
    strategy (``None`` on the diagonal and when no game was decided).
    """

    strategies: list[str]
    results: dict  # (a, b) -> CompareResult
    leaderboard: object  # pl.DataFrame
    matrix: object  # pl.DataFrame: row strategy's match win rate against each column strategy
    duplicate: str = "match"

    @property
    def decided(self) -> int:
        """Games with a winner, over all pairings (0: every one was capped or errored)."""
        return int(sum(self.leaderboard["games"])) // 2

    def report(self, width: int = 80) -> str:
        """The leaderboard, the win-rate matrix and each pairing's verdict as plain text tables.

        Lines fit in ``width`` columns: a name too long for its column ends in ``…``, and a
        matrix too wide for the names as column heads numbers its columns by rank.
        """
        unit = "deals" if self.duplicate == "deal" else "matches"
        lines = [f"leaderboard: {RATING_MODEL}", "rating: μ [μ ± 1.96σ], ranked by μ − 3σ"]
        name_w = min(max(8, *(len(n) for n in self.strategies)), max(8, width - 58))

        def fit(name: str, w: int = name_w) -> str:
            return name if len(name) <= w else name[: w - 1] + "…"

        won_h = f"{unit} won"
        lines.append(
            f"{'rank':>4}  {'strategy':<{name_w}}  {'rating':>6}  {'95% interval':<12}  {won_h:>11}  {'rate':>4}  95% CI"
        )
        for r in self.leaderboard.iter_rows(named=True):
            interval = f"[{r['rating_low']:.1f}, {r['rating_high']:.1f}]"
            won = f"{r['wins']}/{r['games']}"
            rate = f"{r['win_rate']:.0%}" if r["games"] else "–"
            ci = _bracket((r["ci_low"], r["ci_high"]), ".0f", 100)
            lines.append(
                f"{r['rank']:>4}  {fit(r['strategy']):<{name_w}}  {r['mu']:>6.1f}  {interval:<12}  {won:>11}  {rate:>4}  {ci}"
            )
        if not self.decided:  # μ − 3σ would order the board on noise: say the tie instead
            lines.append(
                f"no {unit[:-2] if unit == 'matches' else unit[:-1]} was decided (all capped or errored):"
            )
            lines.append("  the strategies tie at rank 1, in the order given; the ratings differ by noise")
        undecided = [(r["strategy"], r["undecided"]) for r in self.leaderboard.iter_rows(named=True)]
        if any(k for _, k in undecided):
            lines.append(f"{unit} not decided (capped or errored; in no rate, rated a draw):")
            lines.append("  " + ", ".join(f"{fit(x)} {k}" for x, k in undecided))
        lines.append("")
        lines.append(f"{unit[:-2] if unit == 'matches' else unit[:-1]} win rate, row against column")
        order = self.leaderboard["strategy"].to_list()
        cells = {r["strategy"]: r for r in self.matrix.iter_rows(named=True)}
        col_w = max(5, *(len(n) for n in order))
        rows, row_w, headers = [fit(x) for x in order], name_w, order
        if name_w + (col_w + 2) * len(order) > width:  # too wide: number the columns by rank
            col_w, headers, row_w = 4, [f"#{i}" for i in range(1, len(order) + 1)], name_w + 4
            lines[-1] += " (columns by rank)"
            rows = [f"#{i:<2} {fit(x)}" for i, x in enumerate(order, 1)]
        lines.append((" " * row_w + "".join(f"  {h:>{col_w}}" for h in headers)).rstrip())
        for x, shown_name in zip(order, rows):
            row = cells[x]
            shown = ["—" if x == y else "–" if row[y] is None else f"{row[y]:.0%}" for y in order]
            lines.append(f"{shown_name:<{row_w}}" + "".join(f"  {v:>{col_w}}" for v in shown))
        lines.append("")
        lines.append("pairings (level gain per deal of the first against the second)")
        for res in self.results.values():
            sign, shown = _sign(res.level_gain_ci), _bracket(res.level_gain_ci, ".2f")
            tail = f": {res.level_gain:+.2f} levels/deal {shown}"
            line = f"  {res.a} {sign} {res.b}{tail}"
            if len(line) > width:  # each name gets half the room left
                room = max(8, (width - len(tail) - 5) // 2)
                line = f"  {fit(res.a, room)} {sign} {fit(res.b, room)}{tail}"
            lines.append(line)
        return "\n".join(lines)

    def plot(self, path: str | os.PathLike | None = None):
        """A heat map of the win-rate matrix (matplotlib Figure; saved when ``path`` is given)."""
        from matplotlib.figure import Figure

        names = self.strategies
        k = len(names)
        grid = [[math.nan] * k for _ in range(k)]
        for i, x in enumerate(names):
            row = self.matrix.filter(self.matrix["strategy"] == x).row(0, named=True)
            for j, y in enumerate(names):
                if i != j and row[y] is not None:
                    grid[i][j] = row[y]
        fig = Figure(figsize=(1.6 * k + 2.5, 1.3 * k + 1.5))
        ax = fig.add_subplot()
        im = ax.imshow(grid, vmin=0.0, vmax=1.0, cmap="RdYlGn")
        ax.set_xticks(range(k), names, rotation=30, ha="right")
        ax.set_yticks(range(k), names)
        ax.set_xlabel("opponent")
        ax.set_ylabel("strategy")
        unit = "Deal" if self.duplicate == "deal" else "Match"
        ax.set_title(f"{unit} win rate (duplicate pairs)")
        for i in range(k):
            for j in range(k):
                if i != j:  # "–": no decided game (every match capped or errored), as in the table
                    shown = "–" if math.isnan(grid[i][j]) else f"{grid[i][j]:.0%}"
                    ax.text(j, i, shown, ha="center", va="center", fontsize=10)
        fig.colorbar(im, ax=ax, label=f"{unit.lower()} win rate of row vs column")
        fig.tight_layout()
        if path is not None:
            fig.savefig(path)
        return fig


def _games(res: CompareResult) -> list[float | None]:
    """A's result in each rated game of a pairing, in a fixed order (1 win, 0 loss, None draw).

    Match mode: each match (seats 0/2 then 1/3, pair by pair), a capped match a draw.
    Deal mode: each deal, pair by pair (A's wins of the pair first).
    """
    out: list[float | None] = []
    for row in res.pairs.iter_rows(named=True):
        if res.duplicate == "deal":
            out += [1.0] * row["a_deal_wins"] + [0.0] * (row["deals"] - row["a_deal_wins"])
        else:
            out += [row["a_match_seats02"], row["a_match_seats13"]]
    return out


def summarise_tournament(labels: list[str], results: dict, duplicate: str = "match") -> TournamentResult:
    """Leaderboard and matrix from each pairing's ``CompareResult`` (keyed ``(a, b)``, a before b in ``labels``).

    Games are rated one by one with openskill's Plackett-Luce model at its defaults, in a
    fixed order (pairing, then pair, then seating), so the leaderboard is deterministic.
    """
    import polars as pl
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = {name: model.rating(name=name) for name in labels}
    wins = dict.fromkeys(labels, 0)
    games = dict.fromkeys(labels, 0)
    undecided = dict.fromkeys(labels, 0)
    rate_of: dict[tuple[str, str], float | None] = {}
    for (lx, ly), res in results.items():
        outcomes = _games(res)
        decided = [o for o in outcomes if o is not None]
        for outcome in outcomes:
            rx, ry = ratings[lx], ratings[ly]
            ranks = [1, 1] if outcome is None else ([1, 2] if outcome == 1.0 else [2, 1])
            [[nx], [ny]] = model.rate([[rx], [ry]], ranks=ranks)
            ratings[lx], ratings[ly] = nx, ny
        won = int(sum(decided))
        wins[lx] += won
        wins[ly] += len(decided) - won
        # win rates are over decided games: a capped or errored match is rated a draw but
        # counted in neither side's rate (it is no loss for either)
        games[lx] += len(decided)
        games[ly] += len(decided)
        undecided[lx] += len(outcomes) - len(decided)
        undecided[ly] += len(outcomes) - len(decided)
        rate_of[(lx, ly)] = won / len(decided) if decided else None
        rate_of[(ly, lx)] = (len(decided) - won) / len(decided) if decided else None
    rows = []
    for name in labels:
        r = ratings[name]
        lo, hi = wilson_interval(wins[name], games[name]) if games[name] else (math.nan, math.nan)
        rows.append(
            {
                "strategy": name,
                "mu": r.mu,
                "sigma": r.sigma,
                "rating_low": r.mu - Z95 * r.sigma,
                "rating_high": r.mu + Z95 * r.sigma,
                "ordinal": r.ordinal(),
                "wins": wins[name],
                "games": games[name],
                "undecided": undecided[name],
                "win_rate": wins[name] / games[name] if games[name] else math.nan,
                "ci_low": lo,
                "ci_high": hi,
            }
        )
    leaderboard = pl.DataFrame(rows)
    if any(games.values()):
        leaderboard = leaderboard.sort(["ordinal", "strategy"], descending=[True, False])
        leaderboard = leaderboard.with_row_index("rank", offset=1)
    else:  # only draws: the ordinals differ by the order of the draws alone, so no one ranks higher
        leaderboard = leaderboard.with_columns(rank=pl.lit(1, dtype=pl.UInt32)).select(
            "rank", pl.exclude("rank")
        )
    leaderboard = leaderboard.with_columns(
        match_wins=pl.col("wins"), matches=pl.col("games")
    )  # the names of earlier versions
    matrix_rows = [{"strategy": x, **{y: rate_of.get((x, y)) for y in labels}} for x in labels]
    matrix = pl.DataFrame(matrix_rows, schema={"strategy": pl.String, **{y: pl.Float64 for y in labels}})
    return TournamentResult(labels, results, leaderboard, matrix, duplicate)


def tournament(
    strategies: list[str | type],
    matches: int = 50,
    seed: int = 0,
    *,
    out: str | os.PathLike | None = None,
    notify: Callable[[str], None] | None = _stderr,
    **options: Any,
) -> TournamentResult:
    """Round robin of duplicate comparisons among ``strategies``, rated with openskill.

    Each match (or, with ``duplicate="deal"``, each deal) is one rated game between two
    one-player teams (a capped match is a draw); see ``summarise_tournament``. The options
    are ``compare``'s (stored pairings are reused only while unchanged; ``out=None`` uses a
    temporary folder removed before returning).
    """
    o = CompareOptions(matches, seed, **options)  # TypeError for an option there is none of
    duplicate = o.duplicate
    if isinstance(strategies, str):
        raise TypeError(f"strategies: a list of strategies, got the string {strategies!r}")
    if len(strategies) < 2:
        raise ValueError("a tournament needs at least 2 strategies")
    _check_options(matches, duplicate, o.setups)
    labels = [_label(s) for s in strategies]
    twice = sorted({x for x in labels if labels.count(x) > 1})
    for name in twice:  # two bots whose classes share a name: say which (the name was never typed)
        specs = list(
            dict.fromkeys(strategy_spec(s) for s, x in zip(strategies, labels, strict=True) if x == name)
        )
        if len(specs) > 1:
            raise ValueError(
                f"strategies {' and '.join(specs)} are both named {name!r} (their class's name): "
                "give them distinct names"
            )
    if twice:  # a leaderboard holds each name once; the self-comparison is compare's
        raise ValueError(
            f"strategy names must be distinct: {', '.join(twice)} given more than once "
            f"(to play {twice[0]} against itself, the null check: guandan compare {twice[0]} {twice[0]})"
        )
    problem = _pairs_problem(matches)
    with tempfile.TemporaryDirectory(prefix="guandan-tournament-") as tmp:
        base = Path(out) if out is not None else Path(tmp)
        pairings = len(strategies) * (len(strategies) - 1) // 2
        problem = problem or _space_problem(base, matches, 2 * pairings, o.max_deals, duplicate == "deal")
        if problem is not None:
            raise ValueError(problem)
        results = {}
        for (i, x), (j, y) in itertools.combinations(enumerate(strategies), 2):
            res = compare(
                x, y, matches, seed, out=base, notify=notify if out is not None else None, **options
            )
            if out is None:
                res.pairs = res.pairs.clone()
                res.runs = ()
            results[(labels[i], labels[j])] = res
        return summarise_tournament(labels, results, duplicate)

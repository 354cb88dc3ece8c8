"""Counterfactual experiments: the same deal setups played under two rule variants.

Observed rates confound a rule (tribute, resistance, the ruleset) with the situations in
which it applies. An experiment holds everything else fixed: each sampled setup (hands,
levels, the previous deal's finish order) is played twice, once per *arm*, by the same
bots seeded the same way (``runner.setups``, shared with deal-level duplicates). The
per-setup differences between the arms are causal effects of the rule on this population
of setups and these bots.

=============  =========================  =================================  ===================
experiment     setups (source)            arm A                              arm B
=============  =========================  =================================  ===================
``tribute``    ``paying``: tribute paid   tribute and return (rules.md §10)  no tribute, no return;
                                                                             上游 leads
``resistance`` ``resisting``: resisted    resisted (上游 leads)              paid anyway (``paid``)
``ruleset``    ``random``: any situation  ``cgr2022``                        ``jiangsu2017``
=============  =========================  =================================  ===================

Each arm is an ordinary run directory (``OUT/<arm>/``, one one-deal match per setup,
``max_deals=1``), so ``guandan analyze`` and ``guandan verify`` work on it. The metrics are
for the *receiving side*, the previous 上游's team (the deal's ``level_team``):

- ``win``: the receiving side is 上游's team (it wins the deal);
- ``upgrade``: the levels it gains (the deal's upgrade when it wins, else 0);
- ``first_out``: the previous 上游 itself goes out first again.

``effect`` = mean over setups of (A − B) with a 95% interval mean ± t·sd/√n of the
paired differences (t: Student's 97.5% quantile with n − 1 degrees of freedom, 1.97 for
200 pairs, 4.30 for 3; none from a single pair), clipped to the range a difference can
take, ``DIFFERENCE_RANGE`` (``pairs`` setups, ``differ`` of them with A ≠ B).

>>> sorted(EXPERIMENTS)
['resistance', 'ruleset', 'tribute']
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from guandan_cli.stats import agreeing_units_interval, t_quantile

if TYPE_CHECKING:
    from guandan_cli.logs.manifest import Manifest

METRICS = ("win", "upgrade", "first_out")
METRIC_LABELS = {
    "win": "deal-win rate",
    "upgrade": "mean upgrade (levels)",
    "first_out": "previous 上游 out first",
}
#: the same in a plot (matplotlib's default font has no CJK glyphs)
PLOT_LABELS = METRIC_LABELS | {"first_out": "previous shangyou out first"}


@dataclass(frozen=True)
class Arm:
    """One way of playing the setups: a name (its run directory), ruleset and tribute mode."""

    name: str
    ruleset: str | None = None  # None: the experiment's --ruleset
    tribute: str = "on"


@dataclass(frozen=True)
class Experiment:
    """Two arms over the setups of one source (see the module docstring)."""

    name: str
    source: str
    a: Arm
    b: Arm
    question: str
    #: the arm whose logged tribute kind groups the setups in ``by_kind`` (``a`` or ``b``)
    kind_arm: str = "a"

    def arms(self, ruleset: str) -> tuple[Arm, Arm]:
        """The arms with the default ruleset filled in."""
        return tuple(replace(arm, ruleset=arm.ruleset or ruleset) for arm in (self.a, self.b))


EXPERIMENTS: dict[str, Experiment] = {
    "tribute": Experiment(
        "tribute",
        "paying",
        Arm("with-tribute"),
        Arm("without-tribute", tribute="off"),
        "effect of tribute and return (with − without) on the side that receives it",
    ),
    "resistance": Experiment(
        "resistance",
        "resisting",
        Arm("resisted"),
        Arm("paid", tribute="paid"),
        "effect of resistance (resisted − paid) on the side due to receive tribute",
        kind_arm="b",
    ),
    "ruleset": Experiment(
        "ruleset",
        "random",
        Arm("cgr2022", ruleset="cgr2022"),
        Arm("jiangsu2017", ruleset="jiangsu2017"),
        "effect of the ruleset (cgr2022 − jiangsu2017) on the previous 上游's side",
    ),
}


class ExperimentInputError(ValueError):
    """A bad experiment name or option (nothing was played)."""


@dataclass
class ExperimentResult:
    """Both arms' runs and the paired effects (``effects``: one row per metric)."""

    experiment: Experiment
    out: Path
    arms: tuple[Arm, Arm]
    runs: tuple[object, object]
    effects: pl.DataFrame
    config: dict = field(default_factory=dict)
    #: the effects within each tribute kind (single, double, resisted) of the setups
    by_kind: pl.DataFrame | None = None

    def summary(self) -> str:
        """The question, the setups and arms, then one line per metric (fits 100 columns)."""
        e = self.experiment
        a, b = self.arms
        n = self.effects["pairs"][0] if self.effects.height else 0
        seats = self.config.get("strategies", [])
        who = seats[0] + " (every seat)" if len(set(seats)) == 1 else ",".join(seats)
        lines = [
            f"experiment {e.name}: {e.question}",
            f"setups   {n} ({e.source}), seed {self.config.get('seed')}, strategies {who}",
            f"arms     A = {a.name}, B = {b.name}",
            f"runs     {self.out}/{a.name}, …/{b.name}",
            "",
            f"{'receiving side':<28}  {'A':>6}  {'B':>6}  {'A − B [95% CI]':<27}  {'differ':>6}",
        ]
        for row in self.effects.iter_rows(named=True):
            effect = _effect_text(row)
            lines.append(
                f"{_padded(METRIC_LABELS[row['metric']], 28)}  {row['a']:>6.3f}  {row['b']:>6.3f}  {effect:<27}"
                f"  {row['differ']:>6}"
            )
        lines.append("(differ: setups whose value changed between the arms)")
        if self.by_kind is not None and self.by_kind["kind"].n_unique() > 1:
            arm = a.name if e.kind_arm == "a" else b.name
            lines += [
                "",
                f"within each tribute kind (as logged in arm {arm}):",
                f"{'kind':<10}  {'pairs':>6}  {'A − B win':<27}  A − B upgrade",
            ]
            for kind in self.by_kind["kind"].unique(maintain_order=True):
                rows = {
                    r["metric"]: r for r in self.by_kind.filter(pl.col("kind") == kind).iter_rows(named=True)
                }
                w, u = rows["win"], rows["upgrade"]
                lines.append(f"{kind:<10}  {w['pairs']:>6}  {_effect_text(w):<27}  {_effect_text(u)}")
        return "\n".join(lines)


def _receiver_seats(source: str, seed: int, count: int, ruleset: str) -> list[int]:
    """The previous 上游 of setups ``0 … count-1`` of ``source`` (not in the deal records)."""
    from guandan_cli.engine.rules import get_ruleset
    from guandan_cli.runner.setups import source_setup

    rules = get_ruleset(ruleset)
    return [source_setup(source, seed, i, rules).setup.previous[0][0] for i in range(count)]


def _arm_frame(run_dir: Path, receivers: pl.DataFrame) -> pl.DataFrame:
    """One row per setup of an arm: match, win, upgrade, first_out (receiving side)."""
    from guandan_cli.logs.reader import scan_deals

    deals = scan_deals(run_dir).select(
        "match",
        "level_team",
        "winner_team",
        "upgrade",
        first=pl.col("finish_order").list.get(0),
        kind=pl.col("tribute").struct.field("kind"),
    )
    return (
        deals.collect()
        .join(receivers, on="match", how="left")
        .select(
            "match",
            win=(pl.col("winner_team") == pl.col("level_team")).cast(pl.Int64),
            upgrade=pl.when(pl.col("winner_team") == pl.col("level_team"))
            .then(pl.col("upgrade"))
            .otherwise(0)
            .cast(pl.Int64),
            first_out=(pl.col("first") == pl.col("receiver")).cast(pl.Int64),
            kind="kind",
        )
    )


def _stored_experiment(out: Path) -> str | None:
    """The name of the experiment whose ``effects.json`` is in ``out`` (None: none, or unreadable)."""
    try:
        name = json.loads((out / "effects.json").read_text(encoding="utf-8")).get("experiment")
    except (OSError, ValueError, AttributeError):
        return None
    return name if isinstance(name, str) else None


def _padded(text: str, width: int) -> str:
    """``text`` left-aligned in ``width`` terminal columns (a CJK character takes two)."""
    from guandan_cli.reports.tables import display_width

    return text + " " * max(0, width - display_width(text))


def _effect_text(row: dict) -> str:
    """``+0.1500 [-0.2913, +0.5913]``; ``[–, –]`` when there is no interval (one pair).

    >>> _effect_text({"effect": 0.0, "effect_lo": math.nan, "effect_hi": math.nan})
    '+0.0000 [–, –]'
    """
    lo, hi = row["effect_lo"], row["effect_hi"]
    if lo is None or hi is None or math.isnan(lo) or math.isnan(hi):
        return f"{row['effect']:+.4f} [–, –]"
    return f"{row['effect']:+.4f} [{lo:+.4f}, {hi:+.4f}]"


#: the range of a setup's difference A − B per metric (win and first out 0/1, upgrade 0..3)
DIFFERENCE_RANGE = {"win": (-1.0, 1.0), "upgrade": (-3.0, 3.0), "first_out": (-1.0, 1.0)}


def paired_effects(a: pl.DataFrame, b: pl.DataFrame, same_rules: bool = False) -> pl.DataFrame:
    """Per metric: the arms' means, the mean paired difference A − B with its 95% interval.

    ``a`` and ``b`` have one row per setup (``match``) and the columns of ``METRICS``;
    setups missing from either arm are left out. Columns: metric, pairs, a, b, effect,
    effect_lo, effect_hi, differ (setups whose values differ). Sorted in ``METRICS`` order.
    When every setup's difference is the same, a t interval has zero width: the interval
    is then the exact one of a bounded mean (``stats.agreeing_units_interval`` over
    ``DIFFERENCE_RANGE``), unless ``same_rules`` (both arms play the same rules, so the
    differences are 0 by construction and the interval is exactly ``[0, 0]``).

    >>> a = pl.DataFrame({"match": [0, 1, 2], "win": [1, 1, 0], "upgrade": [2, 1, 0], "first_out": [1, 0, 0]})
    >>> paired_effects(a, a)["effect"].to_list()
    [0.0, 0.0, 0.0]
    """
    both = a.join(b, on="match", how="inner", suffix="_b").sort("match")
    n = both.height
    rows = []
    for m in METRICS:
        diff = (both[m] - both[f"{m}_b"]).cast(pl.Float64)
        mean = float(diff.mean()) if n else math.nan
        # Student's t, not 1.96: a handful of pairs (a rare tribute kind) needs the wider
        # quantile; from one pair there is no interval at all (nan, shown as [–, –])
        half = t_quantile(0.975, n - 1) * float(diff.std()) / math.sqrt(n) if n > 1 else math.nan
        # clipped to what a difference can be, never to the differences seen: one differing
        # setup in 22 must not make "no effect" fall outside the interval
        low, high = DIFFERENCE_RANGE[m]
        lo, hi = (max(mean - half, low), min(mean + half, high)) if n > 1 else (math.nan,) * 2
        if n > 1 and diff.min() == diff.max() and not same_rules:
            lo, hi = agreeing_units_interval(mean, n, *DIFFERENCE_RANGE[m])
        rows.append(
            {
                "metric": m,
                "pairs": n,
                "a": float(both[m].mean()) if n else math.nan,
                "b": float(both[f"{m}_b"].mean()) if n else math.nan,
                "effect": mean,
                "effect_lo": lo,
                "effect_hi": hi,
                "differ": int((diff != 0).sum()),
            }
        )
    return pl.DataFrame(
        rows,
        schema={
            "metric": pl.String,
            "pairs": pl.Int64,
            "a": pl.Float64,
            "b": pl.Float64,
            "effect": pl.Float64,
            "effect_lo": pl.Float64,
            "effect_hi": pl.Float64,
            "differ": pl.Int64,
        },
    )


def effects_by_kind(
    a: pl.DataFrame, b: pl.DataFrame, kinds: pl.DataFrame, same_rules: bool = False
) -> pl.DataFrame:
    """``paired_effects`` within each tribute kind of ``kinds`` (``match``, ``kind``), in the
    order single, double, resisted, none; a ``kind`` column first."""
    order = {"single": 0, "double": 1, "resisted": 2, "none": 3}
    out = []
    for kind in sorted(kinds["kind"].unique().to_list(), key=lambda k: order.get(k, 9)):
        matches = kinds.filter(pl.col("kind") == kind).select("match")
        part = paired_effects(a.join(matches, on="match"), b.join(matches, on="match"), same_rules)
        out.append(part.select(pl.lit(kind).alias("kind"), pl.all()))
    return pl.concat(out) if out else paired_effects(a, b).clear().select(pl.lit("").alias("kind"), pl.all())


def effect_figure(effects: pl.DataFrame, title: str):
    """A matplotlib Figure of the paired effects A − B with 95% intervals: rates (win,
    first out) on the left, the upgrade in levels on the right."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(9.0, 2.8), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, 2, width_ratios=(3, 2))
    panels = (
        (axes[0], ("win", "first_out"), "rate difference A − B"),
        (axes[1], ("upgrade",), "levels A − B"),
    )
    for ax, metrics, xlabel in panels:
        df = effects.filter(pl.col("metric").is_in(metrics))
        ys = list(range(df.height))[::-1]
        eff = df["effect"].to_list()
        lo = [max(0.0, e - x) for e, x in zip(eff, df["effect_lo"].to_list())]
        hi = [max(0.0, x - e) for e, x in zip(eff, df["effect_hi"].to_list())]
        ax.errorbar(eff, ys, xerr=[lo, hi], fmt="o", capsize=4)
        ax.axvline(0.0, color="grey", linestyle="--", linewidth=0.8)
        ax.set_yticks(ys)
        ax.set_yticklabels([PLOT_LABELS[m] for m in df["metric"]])
        ax.set_ylim(-0.6, len(ys) - 0.4)
        ax.set_xlabel(xlabel)
        ax.grid(axis="x", alpha=0.3)
    n = effects["pairs"][0] if effects.height else 0
    fig.suptitle(f"{title} ({n} paired setups, 95% CI)", fontsize="medium")
    return fig


def _complete(manifest: Manifest | None) -> bool:
    return manifest is not None and manifest.complete


@dataclass(frozen=True)
class ExperimentOptions:
    """``run_experiment``'s options: the seats' strategies, the root seed, the ruleset (for the
    experiments that do not set it), where it is written, and how this session plays it."""

    strategies: str = "heuristic"
    seed: int = 0
    ruleset: str = "cgr2022"
    out: str | os.PathLike | None = None
    workers: int | None = None
    force: bool = False
    progress: bool | Callable[[int, int], None] = False


@dataclass(frozen=True)
class _Plan:
    """An experiment's inputs, checked: its arms, the seats' strategies, where it is written."""

    experiment: Experiment
    arms: tuple[Arm, Arm]
    seats: tuple[str, str, str, str]
    out: Path
    deals: int
    seed: int
    ruleset: str


def run_experiment(experiment: str | Experiment, deals: int, **options: Any) -> ExperimentResult:
    """Play ``deals`` setups under both arms into ``out``, then measure the paired effects
    (``options``: the fields of :class:`ExperimentOptions`).

    Each arm is a ``simulate`` run of setups (``OUT/<arm>/``): an interrupted experiment
    continues where it stopped when rerun with the same options; ``force`` starts over.
    Writes ``OUT/effects.json`` and the plot ``OUT/effect.png``. Raises
    ``ExperimentInputError`` for a bad name or option, before playing anything.
    """
    o = ExperimentOptions(**options)  # TypeError for an option there is none of
    experiment = _experiment_named(experiment)
    seats, arms = _checked_inputs(experiment, deals, o.seed, o.ruleset, o.strategies)
    name = f"experiment-{experiment.name}-s{o.seed}-n{deals}"
    out = Path(o.out) if o.out is not None else Path("runs") / name
    plan = _Plan(experiment, arms, seats, out, deals, o.seed, o.ruleset)
    stored = _check_output(out, experiment, deals, arms, o.force)
    return _measured(plan, _play_arms(plan, o, stored))


def _experiment_named(experiment: str | Experiment) -> Experiment:
    if not isinstance(experiment, str):
        return experiment
    try:
        return EXPERIMENTS[experiment]
    except KeyError:
        raise ExperimentInputError(
            f"unknown experiment {experiment!r}: choose from {', '.join(EXPERIMENTS)}"
        ) from None


def _checked_inputs(
    experiment: Experiment, deals: int, seed: int, ruleset: str, strategies: str
) -> tuple[tuple[str, str, str, str], tuple[Arm, Arm]]:
    """The seats' strategies and the two arms, every option checked (``ExperimentInputError``)."""
    from guandan_cli.engine.rules import get_ruleset
    from guandan_cli.runner.config import check_strategies, parse_strategies
    from guandan_cli.runner.errors import SimulationInputError

    if isinstance(deals, bool) or not isinstance(deals, int) or deals < 1:
        raise ExperimentInputError(f"deals must be a positive whole number, got {deals!r}")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ExperimentInputError(f"seed must be a whole number, got {seed!r}")
    if experiment.a.ruleset and experiment.b.ruleset and ruleset != "cgr2022":
        raise ExperimentInputError(
            f"--ruleset {ruleset} does not apply to the {experiment.name} experiment: its arms play "
            f"{experiment.a.ruleset} and {experiment.b.ruleset}"
        )
    try:
        seats = parse_strategies(strategies)
        check_strategies(seats)
        arms = experiment.arms(ruleset)
        for arm in arms:
            get_ruleset(arm.ruleset, tribute=arm.tribute)
    except (SimulationInputError, ValueError) as exc:
        raise ExperimentInputError(str(exc)) from None
    return seats, arms


def _check_output(
    out: Path, experiment: Experiment, deals: int, arms: tuple[Arm, Arm], force: bool
) -> dict[str, Manifest]:
    """``out`` holds no other experiment, and the arms still to play fit on its disk; the
    arms stored there (none with ``force``), by name."""
    from guandan_cli.logs.layout import MAX_MATCHES, space_problem
    from guandan_cli.logs.manifest import RunFolder

    if out.exists() and not out.is_dir():
        raise ExperimentInputError(f"output {out} exists and is not a directory; choose another --out")
    other = None if force else _stored_experiment(out)
    if other is not None and other != experiment.name:  # its effects.json would be replaced
        raise ExperimentInputError(
            f"output {out} holds the {other} experiment; choose another --out, or --force to replace its effects.json"
        )
    if deals > MAX_MATCHES:
        raise ExperimentInputError(f"at most {MAX_MATCHES} deals (--deals) in one experiment, got {deals}")
    read = {} if force else {arm.name: RunFolder.read(out / arm.name).manifest for arm in arms}
    stored = {name: m for name, m in read.items() if m is not None}
    todo = sum(1 for arm in arms if not _complete(stored.get(arm.name)))
    problem = space_problem(out, deals * todo, max_deals=1, suggest_compression=False)
    if problem is not None:
        raise ExperimentInputError(f"{deals} deals (--deals) in {todo} arms: {problem}")
    return stored


def _play_arms(plan: _Plan, options: ExperimentOptions, stored: dict[str, Manifest]) -> list:
    """Each arm's run of setups (``OUT/<arm>/``), continued when ``stored`` (unless ``force``)."""
    from guandan_cli.runner.errors import SimulationInputError
    from guandan_cli.runner.simulation import simulate

    experiment, arms, out, deals, seed, seats = (
        plan.experiment,
        plan.arms,
        plan.out,
        plan.deals,
        plan.seed,
        plan.seats,
    )
    force = options.force
    runs = []
    for arm in arms:
        arm_dir = out / arm.name
        existing = stored.get(arm.name)
        try:
            run = simulate(
                deals,
                seed=seed,
                strategies=list(seats),
                ruleset=arm.ruleset,
                max_deals=1,
                out=arm_dir,
                workers=options.workers,
                setups=experiment.source,
                tribute=arm.tribute,
                resume=existing is not None and not force,
                force=force,
                progress=options.progress,
                label=f"{experiment.name}: {arm.name}",
                command=f"guandan experiment {experiment.name} --deals {deals} --seed {seed} "
                f"--strategies {','.join(seats)} --ruleset {plan.ruleset}  (arm {arm.name})",
            )
        except SimulationInputError as exc:
            raise ExperimentInputError(f"arm {arm.name}: {exc}") from None
        runs.append(run)
    return runs


def _measured(plan: _Plan, runs: list) -> ExperimentResult:
    """The paired effects of the two arms, written to ``OUT/effects.json`` and ``OUT/effect.png``."""
    experiment, arms, out, deals, seed, seats, ruleset = (
        plan.experiment, plan.arms, plan.out, plan.deals, plan.seed, plan.seats, plan.ruleset
    )  # fmt: skip
    receivers = pl.DataFrame(
        {
            "match": list(range(deals)),
            "receiver": _receiver_seats(experiment.source, seed, deals, ruleset),
        },
        schema={"match": pl.Int64, "receiver": pl.Int64},
    )
    frames = [_arm_frame(out / arm.name, receivers) for arm in arms]
    same_rules = replace(arms[0], name="") == replace(arms[1], name="")  # a self-check
    effects = paired_effects(frames[0].drop("kind"), frames[1].drop("kind"), same_rules)
    kinds = frames[0 if experiment.kind_arm == "a" else 1].select("match", "kind")
    by_kind = effects_by_kind(frames[0].drop("kind"), frames[1].drop("kind"), kinds, same_rules)
    config = {
        "experiment": experiment.name,
        "question": experiment.question,
        "source": experiment.source,
        "deals": deals,
        "seed": seed,
        "strategies": list(seats),
        "ruleset": ruleset,
        "arms": {
            "A": {"name": arms[0].name, "ruleset": arms[0].ruleset, "tribute": arms[0].tribute},
            "B": {"name": arms[1].name, "ruleset": arms[1].ruleset, "tribute": arms[1].tribute},
        },
    }
    (out / "effects.json").write_text(
        json.dumps(
            # no interval (one pair) is nan in the frames, null in the file (NaN is not JSON)
            config
            | {"effects": effects.fill_nan(None).to_dicts(), "by_kind": by_kind.fill_nan(None).to_dicts()},
            ensure_ascii=False,
            indent=1,
        )
        + "\n",
        encoding="utf-8",
    )
    fig = effect_figure(effects, f"{experiment.name}: A = {arms[0].name}, B = {arms[1].name}")
    fig.savefig(out / "effect.png", dpi=100)
    return ExperimentResult(experiment, out, arms, (runs[0], runs[1]), effects, config, by_kind)


__all__ = [
    "EXPERIMENTS",
    "METRICS",
    "Arm",
    "Experiment",
    "ExperimentInputError",
    "ExperimentResult",
    "effect_figure",
    "effects_by_kind",
    "paired_effects",
    "run_experiment",
]

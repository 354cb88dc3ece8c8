"""Strategy comparisons: duplicate matches, confidence intervals, round-robin leaderboards.

A *duplicate pair* plays each match seed twice with the teams swapped (A at seats
0/2, then at 1/3), so both sides see the same cards; luck of the deal cancels
within a pair. Figures for A: match win rate and deal win rate (Wilson 95%
intervals) and mean level gain per deal (+upgrade when A's team wins a deal,
−upgrade when B's does; a percentile bootstrap over the pairs).

>>> res = compare("greedy", "random", matches=4, seed=1, max_deals=3, workers=1,
...               out=getfixture("tmp_path") / "cmp")
>>> res.pairs.height, res.a, res.b
(4, 'greedy', 'random')
>>> res.verdict().startswith("greedy")
True
"""

from __future__ import annotations

import inspect
import itertools
import math
import os
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from guandan_cli.stats import bootstrap_ratio_interval, wilson_interval


def strategy_spec(strategy: str | type) -> str:
    """A spec string that a worker process can load: a name, ``module:Class`` or ``file.py:Class``."""
    if isinstance(strategy, str):
        return strategy
    if not isinstance(strategy, type):
        raise TypeError(f"a strategy is a name or a class, got {strategy!r}")
    module = strategy.__module__
    owner = sys.modules.get(module)
    if owner is None or getattr(owner, strategy.__qualname__, None) is not strategy:
        raise ValueError(
            f"strategy class {strategy.__qualname__} cannot be imported by name from {module!r}, so worker "
            "processes cannot import it: define it at the top level of a .py file or module"
        )
    if module not in ("__main__", "__mp_main__") and "<" not in strategy.__qualname__:
        return f"{module}:{strategy.__qualname__}"
    try:
        path = inspect.getfile(strategy)
    except (TypeError, OSError):
        path = None
    if path and os.path.isfile(path) and path.endswith(".py"):
        return f"{path}:{strategy.__qualname__}"
    raise ValueError(
        f"strategy class {strategy.__qualname__} is defined where worker processes cannot import it "
        "(a notebook cell or an interactive session): put it in a .py file or module"
    )


def _label(strategy: str | type) -> str:
    """A short name: the spec for names, the class's ``name`` for classes and ``…:Class`` specs."""
    if isinstance(strategy, str):
        if ":" not in strategy:
            return strategy
        from strategies.registry import load_strategy

        strategy = load_strategy(strategy)
    return getattr(strategy, "name", None) or strategy.__name__


@dataclass
class CompareResult:
    """The figures of a comparison of A against B, and the per-pair data (``pairs``)."""

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

    @property
    def games(self) -> int:
        return 2 * self.matches

    @property
    def match_rate(self) -> float:
        return self.match_wins / self.games if self.games else math.nan

    @property
    def match_ci(self) -> tuple[float, float]:
        return wilson_interval(self.match_wins, self.games)

    @property
    def deal_rate(self) -> float:
        return self.deal_wins / self.deals if self.deals else math.nan

    @property
    def deal_ci(self) -> tuple[float, float]:
        return wilson_interval(self.deal_wins, self.deals)

    def verdict(self) -> str:
        """``A > B: +0.41 levels/deal [0.33, 0.49], matches 78% [74, 82]`` (``≈`` when the CI spans 0)."""
        lo, hi = self.level_gain_ci
        sign = ">" if lo > 0 else "<" if hi < 0 else "≈"
        mlo, mhi = self.match_ci
        return (
            f"{self.a} {sign} {self.b}: {self.level_gain:+.2f} levels/deal [{lo:.2f}, {hi:.2f}], "
            f"matches {self.match_rate:.0%} [{mlo * 100:.0f}, {mhi * 100:.0f}], "
            f"deals {self.deal_rate:.0%} [{self.deal_ci[0] * 100:.0f}, {self.deal_ci[1] * 100:.0f}]"
        )

    def table(self) -> object:
        """The figures as a one-row-per-measure Polars frame."""
        import polars as pl

        mlo, mhi = self.match_ci
        dlo, dhi = self.deal_ci
        glo, ghi = self.level_gain_ci
        return pl.DataFrame(
            {
                "measure": ["match win rate", "deal win rate", "level gain per deal"],
                "value": [self.match_rate, self.deal_rate, self.level_gain],
                "ci_low": [mlo, dlo, glo],
                "ci_high": [mhi, dhi, ghi],
                "n": [self.games, self.deals, self.matches],
            }
        )


def _per_match(run, a_team: int):
    """Per match: A's match result, deals, A deal wins, A level gain."""
    import polars as pl

    deals = (
        run.scan()
        .select("match", "winner_team", "upgrade")
        .with_columns(
            a_won=pl.col("winner_team") == a_team,
        )
        .group_by("match")
        .agg(
            deals=pl.len(),
            a_deal_wins=pl.col("a_won").sum(),
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
            a_gain=pl.col("a_gain").fill_null(0),
        )
        .sort("match")
        .collect()
    )


def compare(
    a: str | type,
    b: str | type,
    matches: int = 100,
    seed: int = 0,
    *,
    workers: int | None = None,
    out: str | os.PathLike | None = None,
    ruleset: str = "cgr2022",
    max_deals: int | None = None,
    a_fail_limit: int | None = None,
    paired: bool = True,
    progress: bool = False,
    resume: bool = True,
    bootstrap: int = 2000,
) -> CompareResult:
    """Compare strategy ``a`` with ``b`` over ``matches`` duplicate pairs (2 × matches games).

    Writes two runs like ``simulate`` under ``out`` (``A-vs-B-sSEED-nMATCHES/ab`` with A at
    seats 0/2 and ``…/ba`` with A at seats 1/3), so ``guandan analyze`` works on them. With
    ``paired=False`` the second run uses other seeds (an unpaired design, for contrast).
    With ``resume`` (the default) runs already under ``out`` are continued or reused.
    """
    import polars as pl

    from guandan_cli.runner.simulate import simulate

    if matches < 1:
        raise ValueError(f"matches must be positive, got {matches}")
    sa, sb = strategy_spec(a), strategy_spec(b)
    la, lb = _label(a), _label(b)
    base = Path(out) if out is not None else Path(tempfile.mkdtemp(prefix="guandan-compare-"))
    folder = base / f"{_safe(la)}-vs-{_safe(lb)}-s{seed}-n{matches}{'' if paired else '-unpaired'}"
    common = dict(
        matches=matches,
        ruleset=ruleset,
        max_deals=max_deals,
        a_fail_limit=a_fail_limit,
        workers=workers,
        progress=progress,
    )
    seed_ba = seed if paired else seed + 1_000_003

    def run(seed_: int, seats: list[str], where: Path):
        again = resume and (where / "manifest.json").is_file()
        return simulate(seed=seed_, strategies=seats, out=where, resume=again, **common)

    run_ab = run(seed, [sa, sb, sa, sb], folder / "ab")
    run_ba = run(seed_ba, [sb, sa, sb, sa], folder / "ba")
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
    if paired:
        ci = bootstrap_ratio_interval(gains, ndeals, resamples=bootstrap, seed=seed)
    else:  # unpaired: the units are the individual matches
        g = ab["a_gain"].to_list() + ba["a_gain"].to_list()
        n = ab["deals"].to_list() + ba["deals"].to_list()
        ci = bootstrap_ratio_interval(g, n, resamples=bootstrap, seed=seed)
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
    )


def _safe(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in name)[:60]


@dataclass
class TournamentResult:
    """A round robin of duplicate comparisons: the leaderboard, the win-rate matrix, each pairing."""

    strategies: list[str]
    results: dict  # (a, b) -> CompareResult
    leaderboard: object  # pl.DataFrame
    matrix: object  # pl.DataFrame: row strategy's match win rate against each column strategy

    def plot(self, path: str | os.PathLike | None = None):
        """A heat map of the win-rate matrix (matplotlib Figure; saved when ``path`` is given)."""
        from matplotlib.figure import Figure

        names = self.strategies
        k = len(names)
        grid = [[math.nan] * k for _ in range(k)]
        for i, x in enumerate(names):
            row = self.matrix.filter(self.matrix["strategy"] == x).row(0, named=True)
            for j, y in enumerate(names):
                if i != j:
                    grid[i][j] = row[y]
        fig = Figure(figsize=(1.6 * k + 2.5, 1.3 * k + 1.5))
        ax = fig.add_subplot()
        im = ax.imshow(grid, vmin=0.0, vmax=1.0, cmap="RdYlGn")
        ax.set_xticks(range(k), names, rotation=30, ha="right")
        ax.set_yticks(range(k), names)
        ax.set_xlabel("opponent")
        ax.set_ylabel("strategy")
        ax.set_title("Match win rate (duplicate pairs)")
        for i in range(k):
            for j in range(k):
                if i != j and not math.isnan(grid[i][j]):
                    ax.text(j, i, f"{grid[i][j]:.0%}", ha="center", va="center", fontsize=10)
        fig.colorbar(im, ax=ax, label="match win rate of row vs column")
        fig.tight_layout()
        if path is not None:
            fig.savefig(path)
        return fig


def tournament(
    strategies: list[str | type],
    matches: int = 50,
    seed: int = 0,
    *,
    workers: int | None = None,
    out: str | os.PathLike | None = None,
    ruleset: str = "cgr2022",
    max_deals: int | None = None,
    progress: bool = False,
) -> TournamentResult:
    """Round robin of duplicate comparisons among ``strategies``, rated with openskill.

    Each match is one rated game between two one-player teams (a capped match is a draw);
    games are rated in a fixed order (pairing, then match, then seating), so the
    leaderboard is deterministic. ``ordinal`` (μ − 3σ) orders the leaderboard.
    """
    import polars as pl
    from openskill.models import PlackettLuce

    if len(strategies) < 2:
        raise ValueError("a tournament needs at least 2 strategies")
    labels = [_label(s) for s in strategies]
    if len(set(labels)) != len(labels):
        raise ValueError(f"strategy names must be distinct: {labels}")
    base = Path(out) if out is not None else Path(tempfile.mkdtemp(prefix="guandan-tournament-"))
    results = {}
    model = PlackettLuce()
    ratings = {name: model.rating(name=name) for name in labels}
    for (i, x), (j, y) in itertools.combinations(enumerate(strategies), 2):
        res = compare(
            x,
            y,
            matches=matches,
            seed=seed,
            workers=workers,
            out=base,
            ruleset=ruleset,
            max_deals=max_deals,
            progress=progress,
        )
        lx, ly = labels[i], labels[j]
        results[(lx, ly)] = res
        for row in res.pairs.iter_rows(named=True):
            for outcome in (row["a_match_seats02"], row["a_match_seats13"]):
                rx, ry = ratings[lx], ratings[ly]
                if outcome is None:
                    ranks = [1, 1]
                else:
                    ranks = [1, 2] if outcome == 1.0 else [2, 1]
                [[nx], [ny]] = model.rate([[rx], [ry]], ranks=ranks)
                ratings[lx], ratings[ly] = nx, ny
    rows = []
    for name in labels:
        wins = games = 0
        for (x, y), res in results.items():
            if name == x:
                wins += res.match_wins
                games += res.games
            elif name == y:
                wins += res.match_losses
                games += res.games
        lo, hi = wilson_interval(wins, games)
        r = ratings[name]
        rows.append(
            {
                "strategy": name,
                "ordinal": r.ordinal(),
                "mu": r.mu,
                "sigma": r.sigma,
                "match_wins": wins,
                "matches": games,
                "win_rate": wins / games if games else math.nan,
                "ci_low": lo,
                "ci_high": hi,
            }
        )
    leaderboard = pl.DataFrame(rows).sort(["ordinal", "strategy"], descending=[True, False])
    leaderboard = leaderboard.with_row_index("rank", offset=1)
    matrix_rows = []
    for x in labels:
        row = {"strategy": x}
        for y in labels:
            if x == y:
                row[y] = None
            elif (x, y) in results:
                row[y] = results[(x, y)].match_rate
            else:
                res = results[(y, x)]
                row[y] = res.match_losses / res.games
        matrix_rows.append(row)
    matrix = pl.DataFrame(matrix_rows, schema={"strategy": pl.String, **{y: pl.Float64 for y in labels}})
    return TournamentResult(labels, results, leaderboard, matrix)

"""One matplotlib figure per report, with 95 % confidence-interval error bars.

Uses the object-oriented API only (:class:`matplotlib.figure.Figure` with the Agg
canvas; pyplot is never imported, so nothing depends on a display or global state).

>>> import polars as pl
>>> df = pl.DataFrame({"ruleset": ["cgr2022"], "metric": ["tricks"], "mean": [15.0],
...                    "mean_lo": [14.0], "mean_hi": [16.0]})
>>> fig = figure_for("deal-length", df)
>>> fig.axes[0].get_ylabel()
'mean per deal'
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import polars as pl
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from .tables import with_strategy_names

FORMATS = ("png", "svg")


@dataclass(frozen=True)
class Panel:
    """One axes: bars of ``y`` (with ``y_lo``/``y_hi`` if present) per ``x``, grouped by ``hue``."""

    x: tuple[str, ...]
    y: str
    ylabel: str
    xlabel: str
    hue: str | None = None
    title: str | None = None
    line: bool = False
    ref: float | None = None  # a reference line (e.g. 0.5 for "no advantage")
    order_by: str | None = None  # a column that orders the x positions (else the rows' order)


PANELS: dict[str, tuple[str, list[Panel]]] = {
    "tribute": (
        "Tribute effect by kind",
        [
            Panel(
                ("kind",),
                "win_rate",
                "deal-win rate",
                "tribute kind",
                hue="side",
                title="Deal-win rate",
                ref=0.5,
            ),
            Panel(
                ("kind",), "mean_upgrade", "mean upgrade", "tribute kind", hue="side", title="Mean upgrade"
            ),
        ],
    ),
    "tribute-card": (
        "Tribute card power",
        [
            Panel(
                ("card",),
                "share",
                "share of payments",
                "tribute card (by power)",
                hue="kind",
                title="Cards paid",
                order_by="power",
            ),
            Panel(
                ("card",),
                "receiver_win_rate",
                "receiving side's deal-win rate",
                "tribute card (by power)",
                hue="kind",
                title="Receiver's win rate",
                ref=0.5,
                order_by="power",
            ),
        ],
    ),
    "first-leader": (
        "First leader's advantage",
        [
            Panel(("kind",), "team_win_rate", "leader's team deal-win rate", "tribute kind", ref=0.5),
            Panel(
                ("kind",), "first_out_rate", "leader finishes first (shangyou) rate", "tribute kind", ref=0.25
            ),
        ],
    ),
    "bombs": (
        "Bombs by class",
        [
            Panel(("class",), "per_deal", "bombs per deal", "bomb class", title="Bombs per deal"),
            Panel(("class",), "deals_with_rate", "share of deals", "bomb class", title="Deals with ≥ 1 bomb"),
        ],
    ),
    "bombs-by-player": (
        "Bombs per seat-deal",
        [Panel(("*by",), "per_seat_deal", "bombs per seat-deal", "group")],
    ),
    "winner-bombs": ("Did the winner bomb?", [Panel(("who",), "rate", "share of deals", "who bombed")]),
    "partners": (
        "Partner's place given the first-out player",
        [Panel(("*by",), "rate", "share of deals", "first-out player's group", hue="partner_place")],
    ),
    "double-down": (
        "Double-down rate",
        [Panel(("team_strategy",), "achieved_rate", "double-down rate", "team strategies")],
    ),
    "deal-length": ("Deal length", [Panel(("metric",), "mean", "mean per deal", "metric")]),
    "match-length": ("Match length", [Panel(("status",), "mean_deals", "deals per match", "match status")]),
    "levels": (
        "Level progression",
        [Panel(("deal",), "mean_level", "mean level played (2…14 = A)", "deal index", line=True)],
    ),
    "wilds": ("Wild-card use", [Panel(("type",), "share", "share of wild plays", "combination type")]),
    "jiefeng": (
        "Jiefeng (lead passed to partner) frequency",
        [Panel(("ruleset",), "deals_with_rate", "share of deals with jiefeng", "ruleset")],
    ),
    "strategy-deals": (
        "Strategy deal-win rates",
        [Panel(("*by",), "win_rate", "deal-win rate", "strategy", ref=0.5)],
    ),
    "strategy-matches": (
        "Strategy match-win rates",
        [Panel(("strategy",), "win_rate", "match-win rate (decided matches)", "strategy", ref=0.5)],
    ),
}

_BY_COLUMNS = ("strategy", "seat")

_SIDES = {
    "receiving": "receiving (leading if none)",
    "leading": "receiving (leading if none)",
    "paying": "paying (other if none)",
    "other": "paying (other if none)",
}
#: per-report reshaping before drawing
PREPARE = {"tribute": lambda df: df.with_columns(side=pl.col("side").replace(_SIDES))}


def _labels(df: pl.DataFrame, cols: list[str]) -> list[str]:
    if not cols:
        return ["all"] * df.height
    parts = [df[c].cast(pl.String).fill_null("–").to_list() for c in cols]
    return [" ".join(v) for v in zip(*parts)]


def _unique(values: list) -> list:
    seen: dict = {}
    for v in values:
        seen.setdefault(v, None)
    return list(seen)


def _x_positions(df: pl.DataFrame, labels: list[str], x_cols: list[str], panel: Panel) -> list[str]:
    """The distinct x labels, in row order or, with ``panel.order_by``, by that column
    (within the leading grouping columns such as ``ruleset``)."""
    if panel.order_by is None or panel.order_by not in df.columns:
        return _unique(labels)
    groups = [c for c in x_cols if c not in panel.x]
    rows = zip(labels, *(df[c].cast(pl.String).to_list() for c in groups), df[panel.order_by].to_list())
    keys: dict[str, tuple] = {}
    for label, *key in rows:
        keys.setdefault(label, tuple(key))
    return sorted(keys, key=lambda lab: keys[lab])


def _num(v) -> float:
    return float("nan") if v is None else float(v)


def _errors(df: pl.DataFrame, y: str) -> tuple[list[float], list[float]] | None:
    if f"{y}_lo" not in df.columns:
        return None
    vals = df[y].to_list()
    lo = df[f"{y}_lo"].to_list()
    hi = df[f"{y}_hi"].to_list()
    below = [0.0 if (v is None or a is None) else max(0.0, v - a) for v, a in zip(vals, lo)]
    above = [0.0 if (v is None or b is None) else max(0.0, b - v) for v, b in zip(vals, hi)]
    return below, above


def _draw(ax, df: pl.DataFrame, panel: Panel) -> None:
    x_cols = [c for c in panel.x if c != "*by"]
    if "*by" in panel.x:
        x_cols = [c for c in _BY_COLUMNS if c in df.columns]
    multi_ruleset = "ruleset" in df.columns and df["ruleset"].n_unique() > 1 and "ruleset" not in x_cols
    hue = panel.hue
    if multi_ruleset:
        if hue is None and not panel.line:
            hue = "ruleset"
        elif not panel.line:
            x_cols = ["ruleset", *x_cols]
    if panel.line:
        groups = df.partition_by("ruleset", maintain_order=True) if "ruleset" in df.columns else [df]
        for g in groups:
            err = _errors(g, panel.y)
            name = g["ruleset"][0] if "ruleset" in g.columns else None
            ax.errorbar(
                g[panel.x[0]].to_list(),
                [_num(v) for v in g[panel.y].to_list()],
                yerr=err,
                marker="o",
                capsize=3,
                label=name,
            )
        if len(groups) > 1:
            ax.legend(title="ruleset")
    else:
        labels = _labels(df, x_cols)
        xs = _x_positions(df, labels, x_cols, panel)
        hues = _unique(df[hue].cast(pl.String).to_list()) if hue else [None]
        width = 0.8 / len(hues)
        for j, h in enumerate(hues):
            sub_mask = (
                [True] * df.height if h is None else [v == h for v in df[hue].cast(pl.String).to_list()]
            )
            sub = df.filter(pl.Series(sub_mask))
            sub_labels = [lab for lab, m in zip(labels, sub_mask) if m]
            pos = [xs.index(lab) - 0.4 + width * (j + 0.5) for lab in sub_labels]
            ax.bar(
                pos,
                [_num(v) for v in sub[panel.y].to_list()],
                width=width * 0.95,
                yerr=_errors(sub, panel.y),
                capsize=3,
                label=None if h is None else str(h),
            )
        ax.set_xticks(range(len(xs)))
        ax.set_xticklabels(xs, rotation=30 if max((len(s) for s in xs), default=0) > 8 else 0, ha="right")
        if hue:
            ax.margins(y=0.3)  # headroom above the bars, so the legend covers none of them
            ax.legend(
                title=hue.replace("_", " "), loc="upper center", ncols=min(len(hues), 3), fontsize="small"
            )
    if panel.ref is not None:
        ax.axhline(panel.ref, color="grey", linestyle="--", linewidth=0.8)
    ax.set_xlabel(panel.xlabel)
    ax.set_ylabel(panel.ylabel)
    if panel.title:
        ax.set_title(panel.title)
    ax.grid(axis="y", alpha=0.3)


def figure_for(name: str, df: pl.DataFrame) -> Figure:
    """The figure of report ``name`` drawn from its DataFrame (error bars from ``*_lo``/``*_hi``)."""
    try:
        title, panels = PANELS[name]
    except KeyError:
        raise ValueError(f"no plot for report {name!r}") from None
    df = with_strategy_names(df)  # axis labels as the tables show them (remote:alice)
    if name in PREPARE:
        df = PREPARE[name](df)
    fig = Figure(figsize=(6.0 * len(panels), 4.5), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, len(panels), squeeze=False)[0]
    for ax, panel in zip(axes, panels):
        if df.height == 0 or panel.y not in df.columns:
            ax.text(0.5, 0.5, "no data", ha="center", va="center", transform=ax.transAxes)
            ax.set_xlabel(panel.xlabel)
            ax.set_ylabel(panel.ylabel)
            continue
        _draw(ax, df, panel)
    fig.suptitle(f"{title} (95% CI)")
    return fig


def save_plot(name: str, df: pl.DataFrame, directory: str | os.PathLike, fmt: str = "png") -> Path:
    """Draw report ``name`` and save it as ``DIR/<name>.<fmt>`` (``png`` or ``svg``)."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown plot format {fmt!r}: choose png or svg")
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{name}.{fmt}"
    fig = figure_for(name, df)
    fig.savefig(path, format=fmt, dpi=100 if fmt == "png" else None)
    return path


__all__ = ["FORMATS", "PANELS", "Panel", "figure_for", "save_plot"]

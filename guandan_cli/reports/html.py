"""One self-contained HTML page of reports: run metadata, then per report a definition,
a table with 95% intervals and its plot (PNG embedded as base64; nothing is fetched).

Built from the same report frames as the other formats (``reports.tables`` for the cells,
``reports.plots`` for the figures) with a Jinja2 template. No script, no external style
sheet, font or image: the file opens offline in any browser.

>>> import polars as pl
>>> df = pl.DataFrame({"ruleset": ["cgr2022"], "deals": [10], "deals_with_rate": [0.5],
...                    "deals_with_rate_lo": [0.2], "deals_with_rate_hi": [0.8]})
>>> page = render_html({"jiefeng": df}, runs=[], plots=False)
>>> '<section class="report" id="report-jiefeng">' in page, "0.50 [0.20, 0.80]" in page
(True, True)
"""

from __future__ import annotations

import base64
import io
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from guandan_cli.logs.manifest import PartialConfig

from .tables import INTERVAL_NOTE, readable_columns

TEMPLATE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="guandan {{ version }}">
<title>{{ title }}</title>
<style>
body { font-family: system-ui, -apple-system, "Segoe UI", "Noto Sans", "Noto Sans CJK SC", "PingFang SC",
       "Microsoft YaHei", sans-serif; margin: 2em auto; max-width: 72em;
       padding: 0 1em; color: #222; line-height: 1.45; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { font-size: 1.25em; margin-top: 2.2em; border-bottom: 1px solid #ccc; padding-bottom: 0.2em; }
table { border-collapse: collapse; margin: 0.6em 0; font-size: 0.92em; }
th, td { padding: 0.25em 0.7em; border-bottom: 1px solid #e4e4e4; text-align: left; white-space: nowrap; }
th { background: #f3f3f3; font-weight: 600; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.definition { max-width: 60em; }
.note, .muted { color: #666; font-size: 0.88em; }
.table-wrap { overflow-x: auto; }
figure { margin: 0.8em 0; }
figure img { max-width: 100%; height: auto; border: 1px solid #eee; }
nav ol { columns: 3; }
.incomplete { color: #a40; font-weight: 600; }
</style>
</head>
<body>
<header>
<h1>{{ title }}</h1>
<p class="muted">guandan {{ version }} · {{ results|length }} report{{ "s" if results|length != 1 }}
{%- if by %} · grouped by {{ by|join(", ") }}{% endif %}
{%- if skipped %} · {{ skipped }} bad line{{ "s" if skipped != 1 }} left out{% endif %}</p>
</header>

<section id="runs">
<h2>Runs</h2>
{% if runs %}
<div class="table-wrap"><table>
<thead><tr><th>run</th><th>completeness</th><th>seed</th><th>ruleset</th><th>strategies (seats 0, 1, 2, 3)</th>
<th>matches</th><th>deals</th><th>wins (team 0 : team 1)</th><th>capped</th><th>errors</th></tr></thead>
<tbody>
{% for r in runs %}
<tr class="run"><td>{{ r.path }}</td>
<td class="{{ 'complete' if r.complete else 'incomplete' }}">{{ r.completeness }}</td>
<td class="num">{{ r.seed }}</td><td>{{ r.ruleset }}</td><td>{{ r.strategies|join(", ") }}</td>
<td class="num">{{ r.matches }}</td><td class="num">{{ r.deals }}</td>
<td class="num">{{ r.wins[0] }} : {{ r.wins[1] }}</td>
<td class="num">{{ r.capped }}</td><td class="num">{{ r.errors }}</td></tr>
{% endfor %}
</tbody></table></div>
{% else %}
<p class="muted">No run manifest: the logs were read from part files alone.</p>
{% endif %}
</section>

<nav id="contents">
<h2>Reports</h2>
<ol>
{% for r in results %}<li><a href="#report-{{ r.name }}">{{ r.name }}</a>: {{ r.title }}</li>
{% endfor %}
</ol>
</nav>

{% for r in results %}
<section class="report" id="report-{{ r.name }}">
<h2>{{ r.name }}: {{ r.title }}</h2>
{% if r.definition %}<p class="definition">{{ r.definition }}</p>{% endif %}
{% if r.rows %}
<div class="table-wrap"><table>
<thead><tr>{% for c in r.columns %}<th>{{ c.name }}</th>{% endfor %}</tr></thead>
<tbody>
{% for row in r.rows %}<tr>{% for cell, c in zip(row, r.columns) %}<td{% if c.numeric %} class="num"{% endif %}>{{ cell }}</td>{% endfor %}</tr>
{% endfor %}
</tbody></table></div>
{% if r.intervals %}<p class="note">{{ interval_note }}</p>{% endif %}
{% else %}
<p class="muted">No rows: the logs hold nothing this report counts.</p>
{% endif %}
{% if r.image %}
<figure><img src="data:image/png;base64,{{ r.image }}" alt="plot of the {{ r.name }} report"
 width="{{ r.image_size[0] }}" height="{{ r.image_size[1] }}"></figure>
{% endif %}
</section>
{% endfor %}
</body>
</html>
"""


@dataclass
class RunInfo:
    """What the page says about one run (from its ``manifest.json``)."""

    path: str
    seed: object = None
    ruleset: str = ""
    strategies: list[str] = field(default_factory=lambda: ["?"] * 4)
    matches: int = 0
    planned: int = 0
    deals: int = 0
    wins: list[int] = field(default_factory=lambda: [0, 0])
    capped: int = 0
    errors: int = 0
    state: str = "unknown"

    @property
    def complete(self) -> bool:
        return self.state == "complete" and self.matches == self.planned

    @property
    def completeness(self) -> str:
        """``complete`` or ``incomplete (running): 600 of 1000 matches``."""
        if self.complete:
            return "complete"
        return f"incomplete ({self.state}): {self.matches} of {self.planned} matches"


def run_info(path: str | os.PathLike) -> RunInfo | None:
    """The page's facts about the run at ``path`` (``None`` without a readable manifest)."""
    manifest = Path(path) / "manifest.json"
    try:
        m = json.loads(manifest.read_text(encoding="utf-8"))
        counts = m.get("counts") or {}
        cfg = PartialConfig.recorded(m) if isinstance(m["config"], dict) else None
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if cfg is None:
        return None
    counts = dict(counts)
    state = str(m.get("state", "unknown"))
    from guandan_cli.logs.layout import run_completeness

    try:
        completeness = run_completeness(path, m, journals=state != "complete")
    except ValueError:
        completeness = None
    listed = [p for p in m.get("parts") or [] if isinstance(p, dict)]
    present = {p.index for p in completeness.parts} if completeness is not None else set()
    gone = sorted({p.get("index") for p in listed} - present, key=str)
    if completeness is not None and gone:  # a listed part's file is gone: count what readers read
        kept = [p for p in listed if p.get("index") in present]
        counts = {k: sum(int(p.get(k) or 0) for p in kept) for k in ("matches", "deals", "errors", "capped")}
        counts["wins"] = [sum(int((p.get("wins") or [0, 0])[t]) for p in kept) for t in (0, 1)]
        state = f"part{'s' if len(gone) > 1 else ''} {', '.join(map(str, gone))} missing"
    if m.get("state") != "complete":  # the manifest counts complete parts; add the journaled matches
        extra = completeness.journaled_counts() if completeness is not None else {}
        for key in ("matches", "deals", "errors", "capped"):
            counts[key] = int(counts.get(key, 0)) + extra.get(key, 0)
        if "wins" in extra:
            counts["wins"] = [a + b for a, b in zip(counts.get("wins", [0, 0]), extra["wins"])]
    ruleset = str(cfg.ruleset or "")
    options = [f"{k}={v}" for k, v in cfg.rule_options()]
    return RunInfo(
        path=str(path),
        seed=cfg.seed,
        ruleset=" ".join([ruleset, *options]),
        strategies=[str(s) for s in (cfg.strategies if cfg.strategies is not None else ["?"] * 4)],
        matches=int(counts.get("matches", 0)),
        planned=int(cfg.matches or 0),
        deals=int(counts.get("deals", 0)),
        wins=list(counts.get("wins", [0, 0])),
        capped=int(counts.get("capped", 0)),
        errors=int(counts.get("errors", 0)),
        state=state,
    )


def png_base64(name: str, df: pl.DataFrame) -> tuple[str, tuple[int, int]]:
    """Report ``name``'s figure as base64 PNG text and its pixel size."""
    from .plots import figure_for

    fig = figure_for(name, df)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=80)
    w, h = fig.get_size_inches() * 80
    return base64.b64encode(buf.getvalue()).decode("ascii"), (round(w), round(h))


def render_html(
    results: dict[str, pl.DataFrame],
    *,
    runs: Sequence[RunInfo],
    titles: dict[str, str] | None = None,
    definitions: dict[str, str] | None = None,
    by: Sequence[str] | None = None,
    skipped: int = 0,
    plots: bool = True,
    title: str = "Guandan analysis",
) -> str:
    """The page for ``results`` (report name → frame, in the order given)."""
    import jinja2

    from guandan_cli._version import __version__

    titles = titles or {}
    definitions = definitions or {}
    items = []
    for name, df in results.items():
        cols = readable_columns(df)
        rows = [[c.cells[i] for c in cols] for i in range(df.height)]
        image, size = png_base64(name, df) if plots else (None, (0, 0))
        items.append(
            {
                "name": name,
                "title": titles.get(name, name),
                "definition": definitions.get(name, ""),
                "columns": cols,
                "rows": rows,
                "intervals": any(c.kind == "interval" for c in cols),
                "image": image,
                "image_size": size,
            }
        )
    env = jinja2.Environment(
        autoescape=True, trim_blocks=True, lstrip_blocks=True, undefined=jinja2.StrictUndefined
    )
    env.globals["zip"] = zip
    return env.from_string(TEMPLATE).render(
        title=title,
        version=__version__,
        results=items,
        runs=list(runs),
        by=list(by or []),
        skipped=skipped,
        interval_note=INTERVAL_NOTE,
    )


def write_html(path: str | os.PathLike, page: str) -> Path:
    """Write the page atomically (a partial file never takes the final name)."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(page, encoding="utf-8")
    os.replace(tmp, path)
    return path


__all__ = ["TEMPLATE", "RunInfo", "png_base64", "render_html", "run_info", "write_html"]

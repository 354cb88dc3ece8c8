"""One self-contained HTML page of reports: run metadata, then per report a definition,
a table with 95% intervals and its plot (PNG embedded as base64; nothing is fetched).

Built from the same report frames as the other formats (``reports.tables`` for the cells,
``reports.plots`` for the figures) with a Jinja2 template. No script, no external style
sheet, font or image: the file opens offline in any browser.

>>> import polars as pl
>>> df = pl.DataFrame({"ruleset": ["cgr2022"], "deals": [10], "deals_with_rate": [0.5],
...                    "deals_with_rate_lo": [0.2], "deals_with_rate_hi": [0.8]})
>>> page = render_html({"jiefeng": df}, runs=[], plots=False)
>>> '<section class="report" id="report-jiefeng">' in page, '0.50 <span class="ci">[0.20, 0.80]</span>' in page
(True, True)
"""

from __future__ import annotations

import base64
import io
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl
from markupsafe import Markup, escape

from guandan_cli.view.names import strategy_names

from .tables import INTERVAL_NOTE, readable_columns

#: the fonts: the system's own first, then the CJK families of each platform (any one shows
#: 上游, 接风, 双下; the English name beside each term reads where none is installed)
CJK_FONTS = (
    '"Noto Sans CJK SC", "Noto Sans SC", "Source Han Sans SC", "Source Han Sans CN", "PingFang SC", '
    '"Hiragino Sans GB", "Microsoft YaHei", "WenQuanYi Micro Hei", "WenQuanYi Zen Hei", '
    '"Droid Sans Fallback", "SimHei", "Noto Sans CJK JP", "Noto Sans CJK TC"'
)
LATIN_FONTS = (
    'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "Noto Sans", '
    '"Liberation Sans", "DejaVu Sans"'
)

TEMPLATE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="guandan {{ version }}">
<title>{{ title }}</title>
<style>
body { font-family: {{ latin_fonts }}, {{ cjk_fonts }}, sans-serif; margin: 2em auto; max-width: 78em;
       padding: 0 1em; color: #222; line-height: 1.45; }
:lang(zh) { font-family: {{ cjk_fonts }}, {{ latin_fonts }}, sans-serif; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { font-size: 1.25em; margin-top: 2.2em; border-bottom: 1px solid #ccc; padding-bottom: 0.2em; }
table { border-collapse: collapse; margin: 0.6em 0; font-size: 0.88em; }
th, td { padding: 0.25em 0.6em; border-bottom: 1px solid #e4e4e4; text-align: left; vertical-align: top; }
th { background: #f3f3f3; font-weight: 600; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.interval { text-align: right; font-variant-numeric: tabular-nums; }
td.interval .ci { white-space: nowrap; color: #555; }
td.key { overflow-wrap: anywhere; min-width: 7em; }
.nowrap { white-space: nowrap; }
.definition { max-width: 60em; }
.note, .muted { color: #666; font-size: 0.88em; }
.table-wrap { overflow-x: auto; max-width: 100%; }
.table-wrap th:first-child, .table-wrap td:first-child { position: sticky; left: 0; background: #fff; }
.table-wrap th:first-child { background: #f3f3f3; }
figure { margin: 0.8em 0; }
figure img { max-width: 100%; height: auto; border: 1px solid #eee; }
table.contents td { border-bottom: none; padding: 0.1em 0.6em; }
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
<th>matches</th><th>deals</th><th>wins <span class="nowrap">(team 0 : team 1)</span></th><th>capped</th><th>errored</th></tr></thead>
<tbody>
{% for r in runs %}
<tr class="run"><td class="key">{{ r.path|breakable(PATH_BREAKS) }}</td>
<td class="{{ 'complete' if r.complete else 'incomplete' }}">{{ r.completeness }}</td>
<td class="num">{{ r.seed }}</td><td>{{ r.ruleset }}</td><td class="key">
{%- for n in names(r.strategies) %}{{ n|breakable(PATH_BREAKS) }}{{ ", " if not loop.last }}{% endfor %}</td>
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
<table class="contents">
<tbody>
{% for r in results %}<tr><td class="num">{{ loop.index }}.</td><td><a href="#report-{{ r.name }}">{{ r.name }}</a></td><td>{{ r.title|gloss }}</td></tr>
{% endfor %}
</tbody></table>
</nav>

{% for r in results %}
<section class="report" id="report-{{ r.name }}">
<h2>{{ r.name }}: {{ r.title|gloss }}</h2>
{% if r.definition %}<p class="definition">{{ r.definition|gloss }}</p>{% endif %}
{% if r.rows %}
<div class="table-wrap"><table>
<thead><tr>{% for c in r.columns %}<th>{{ c.name|breakable }}</th>{% endfor %}</tr></thead>
<tbody>
{% for row in r.rows %}<tr>{% for cell, c in zip(row, r.columns) %}{{ cell_html(cell, c) }}{% endfor %}</tr>
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

#: the Chinese terms the reports use, each with its English name (shown beside it); a term
#: is left as it is where the text already gives that English (``first (上游)``, ``上游 1st``)
GLOSSARY: dict[str, tuple[str, ...]] = {
    "上游": ("first out", "1st"),
    "二游": ("second out", "2nd"),
    "三游": ("third out", "3rd"),
    "下游": ("last out", "4th"),
    "接风": ("partner's lead after going out",),
    "双下": ("double-down",),
    "进贡": ("tribute",),
    "还贡": ("return",),
    "抗贡": ("tribute resisted",),
    "级牌": ("level card",),
    "逢人配": ("wild",),
    "炸弹": ("bomb",),
    "掼蛋": ("Guandan",),
    "大王": ("big joker",),
    "小王": ("small joker",),
}
#: where a path or a strategy name may wrap
PATH_BREAKS = "/_:."
_CJK = re.compile(r"[\u3400-\u9fff]+")
#: how near (characters) an English name must be to count as given
_NEAR = 48


def gloss(text: str) -> Markup:
    """``text`` as HTML with each Chinese term marked ``lang="zh"`` (for the CJK fonts) and its
    English name beside it unless the text gives it nearby.

    >>> str(gloss("Partner's place given 上游"))
    'Partner&#39;s place given <span lang="zh">上游</span> (first out)'
    >>> str(gloss("goes out first (上游), where"))
    'goes out first (<span lang="zh">上游</span>, first out), where'
    >>> str(gloss("first and second (双下, the opponents are double-down)"))
    'first and second (<span lang="zh">双下</span>, the opponents are double-down)'
    """
    out, at = [], 0
    for m in _CJK.finditer(text):
        term = m.group()
        english = GLOSSARY.get(term, ())
        near = text[max(0, m.start() - _NEAR) : m.end() + _NEAR]
        given = not english or any(e in near for e in english)
        out.append(escape(text[at : m.start()]))
        out.append(Markup('<span lang="zh">{}</span>').format(term))
        if not given:
            before, after = text[: m.start()], text[m.end() :]
            if before.endswith("(") and after.startswith(")"):
                out.append(escape(f", {english[0]}"))
            else:
                out.append(escape(f" ({english[0]})"))
        at = m.end()
    out.append(escape(text[at:]))
    return Markup("").join(out)


def breakable(text: str, at: str = "_") -> Markup:
    """``text`` free to wrap after each character of ``at`` (a column name after its
    underscores, a path after its ``/``), never inside a word otherwise.

    >>> str(breakable("win_rate")), str(breakable("runs/a_b", "/_"))
    ('win_<wbr>rate', 'runs/<wbr>a_<wbr>b')
    """
    parts = re.split(f"([{re.escape(at)}])", text)
    return Markup("").join(escape(p) + (Markup("<wbr>") if p and p in at else "") for p in parts)


def cell_html(cell: str, column) -> Markup:
    """One table cell: numbers right-aligned on one line, an interval's ``[lo, hi]`` kept whole
    but free to go under its estimate, names free to wrap."""
    if column.kind == "interval" and " [" in cell:
        value, ci = cell.split(" [", 1)
        return Markup('<td class="interval">{} <span class="ci">[{}</span></td>').format(value, ci)
    if column.numeric:
        return Markup('<td class="num">{}</td>').format(cell)
    shown = gloss(cell) if _CJK.search(cell) else breakable(cell, PATH_BREAKS)
    return Markup('<td class="key">{}</td>').format(shown)


def folder_problem(path: str | os.PathLike) -> str:
    """Why the folder to write ``path`` in is missing: the first folder on its way that is a file,
    or the folder that does not exist.

    >>> folder_problem("no/such/folder/r.html")
    'the directory no/such/folder does not exist'
    """
    parent = Path(path).parent
    for folder in (parent, *parent.parents):
        if folder.exists():
            if not folder.is_dir():
                return f"{folder} is a file, not a directory"
            break
    return f"the directory {parent} does not exist"


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
    from guandan_cli.logs.layout import run_completeness
    from guandan_cli.logs.manifest import RunFolder, Totals

    try:
        m = RunFolder.read(path).manifest
    except (OSError, ValueError):
        return None
    if m is None:
        return None
    cfg = m.recorded
    totals = m.counts or Totals()
    state = m.state.value
    try:
        completeness = run_completeness(path, m, journals=not m.complete)
    except ValueError:
        completeness = None
    present = {p.index for p in completeness.parts} if completeness is not None else set()
    gone = sorted({p.index for p in m.parts} - present)
    if completeness is not None and gone:  # a listed part's file is gone: count what readers read
        totals = Totals.of_parts([p for p in m.parts if p.index in present], 0)
        state = f"part{'s' if len(gone) > 1 else ''} {', '.join(map(str, gone))} missing"
    counts = {k: totals.get(k) or 0 for k in ("matches", "deals", "errors", "capped")}
    counts["wins"] = list(totals.wins or (0, 0))
    if not m.complete:  # the manifest counts complete parts; add the journaled matches
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
    env.globals["cell_html"] = cell_html
    env.globals["PATH_BREAKS"] = PATH_BREAKS
    env.filters["gloss"] = gloss
    env.filters["breakable"] = breakable
    every = strategy_names(s for r in runs for s in r.strategies)
    env.globals["names"] = lambda specs: [every.get(s, s) for s in specs]
    return env.from_string(TEMPLATE).render(
        latin_fonts=Markup(LATIN_FONTS),
        cjk_fonts=Markup(CJK_FONTS),
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


__all__ = [
    "CJK_FONTS",
    "GLOSSARY",
    "TEMPLATE",
    "RunInfo",
    "breakable",
    "cell_html",
    "folder_problem",
    "gloss",
    "png_base64",
    "render_html",
    "run_info",
    "write_html",
]

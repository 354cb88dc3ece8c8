"""`guandan analyze --html`: one self-contained page; checked by a parser everywhere and
rendered by headless Chromium where Debian's `chromium` is installed."""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest
from browser import chromium, driver, needs_chromium, non_blank, png_size, screenshot_dir
from click.testing import CliRunner

from guandan_cli import simulate
from guandan_cli.cli.app import app
from guandan_cli.reports import REPORTS

runner = CliRunner()


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("html") / "run"
    simulate(6, seed=5, strategies="greedy,random", max_deals=4, workers=1, out=out, progress=False)
    return out


@pytest.fixture(scope="module")
def page(run_dir, tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("page") / "report.html"
    res = runner.invoke(app, ["analyze", str(run_dir), "--html", str(path), "-f", "csv"])
    assert res.exit_code == 0, res.output
    assert f"wrote {path}" in res.stderr
    return path


class _Page(HTMLParser):
    """Sections, their headings, tables, images and every external reference."""

    def __init__(self) -> None:
        super().__init__()
        self.sections: dict[str, dict] = {}
        self.current: str | None = None
        self.refs: list[str] = []
        self.tags: list[str] = []
        self.text: list[str] = []
        self.cells: list[str] = []
        self._in_cell = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append(tag)
        for key in ("src", "href"):
            if key in a:
                self.refs.append(a[key])
        if tag == "section" and "report" in (a.get("class") or "").split():
            self.current = a["id"]
            self.sections[self.current] = {"images": [], "rows": 0, "definition": False, "h2": ""}
        elif self.current is not None:
            sec = self.sections[self.current]
            if tag == "img":
                sec["images"].append(a)
            elif tag == "tr":
                sec["rows"] += 1
            elif tag == "p" and a.get("class") == "definition":
                sec["definition"] = True
        if tag == "td":
            self._in_cell = True
            self.cells.append("")

    def handle_endtag(self, tag):
        if tag == "section":
            self.current = None
        if tag == "td":
            self._in_cell = False

    def handle_data(self, data):
        self.text.append(data)
        if self._in_cell:
            self.cells[-1] += data


def test_every_report_has_a_section_a_table_and_a_decodable_image(page):
    parsed = _Page()
    parsed.feed(page.read_text(encoding="utf-8"))
    assert list(parsed.sections) == [f"report-{name}" for name in REPORTS]
    for sec_id, sec in parsed.sections.items():
        assert sec["definition"], sec_id
        assert sec["rows"] >= 2, sec_id  # a header row and at least one row of numbers
        assert len(sec["images"]) == 1, sec_id
        img = sec["images"][0]
        prefix = "data:image/png;base64,"
        assert img["src"].startswith(prefix), sec_id
        data = base64.b64decode(img["src"][len(prefix) :], validate=True)
        w, h = png_size(data)
        assert (w, h) == (int(img["width"]), int(img["height"])) and w > 200 and h > 100, sec_id


def test_page_is_self_contained(page):
    parsed = _Page()
    parsed.feed(page.read_text(encoding="utf-8"))
    assert not {"script", "link", "iframe", "object"} & set(parsed.tags)
    assert all(r.startswith(("data:", "#")) for r in parsed.refs), [r[:40] for r in parsed.refs]
    assert "http://" not in page.read_text(encoding="utf-8").replace("http://www.w3.org", "")


def test_metadata_and_intervals_come_from_the_run(page, run_dir):
    manifest = json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))
    parsed = _Page()
    parsed.feed(page.read_text(encoding="utf-8"))
    cells = parsed.cells
    assert str(run_dir) in cells and "complete" in cells
    assert "greedy, random, greedy, random" in cells and "cgr2022 max_deals=4" in cells
    counts = manifest["counts"]
    assert str(counts["deals"]) in cells and f"{counts['wins'][0]} : {counts['wins'][1]}" in cells
    # the tribute table's interval cells are those of the report itself
    from guandan_cli.reports import load, run_report
    from guandan_cli.reports.tables import readable_columns

    data = load(run_dir)  # keeps its spooled chunks alive while the report runs
    df = run_report("tribute", data.deals)
    win = next(c for c in readable_columns(df) if c.name == "win_rate")
    assert all(cell in cells for cell in win.cells)


def test_incomplete_run_is_marked(run_dir, tmp_path):
    copy = tmp_path / "run"
    shutil.copytree(run_dir, copy)
    manifest = json.loads((copy / "manifest.json").read_text(encoding="utf-8"))
    manifest["state"] = "interrupted"
    manifest["counts"]["matches"] = 4
    (copy / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    out = tmp_path / "r.html"
    res = runner.invoke(app, ["analyze", str(copy), "-r", "jiefeng", "--html", str(out), "-f", "csv"])
    assert res.exit_code == 0, res.output
    assert "incomplete (interrupted): 4 of 6 matches" in out.read_text(encoding="utf-8")


def test_a_run_whose_part_is_gone_is_marked_with_what_was_read(tmp_path):
    """QA: a complete run with a part file deleted (analyze: "incomplete run: 4 of 6
    matches", and reads those 4) was shown "complete" with the manifest's 6 matches."""
    run = tmp_path / "run"
    simulate(
        6, seed=5, strategies="greedy,random", max_deals=2, part_size=2, workers=1, out=run, progress=False
    )
    manifest = json.loads((run / "manifest.json").read_text(encoding="utf-8"))
    gone = manifest["parts"][1]
    (run / gone["matches_file"]["file"]).unlink()
    out = tmp_path / "r.html"
    res = runner.invoke(app, ["analyze", str(run), "-r", "match-length", "--html", str(out), "-f", "csv"])
    assert res.exit_code == 0, res.output
    assert "incomplete run: 4 of 6 matches" in res.stderr
    parser = _Page()
    parser.feed(out.read_text(encoding="utf-8"))
    kept = [p for p in manifest["parts"] if p is not gone]
    deals = sum(p["deals"] for p in kept)
    row = parser.cells[: parser.cells.index("incomplete (part 1 missing): 4 of 6 matches") + 6]
    assert row[-2:] == ["4", str(deals)], row  # matches, deals


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("missing-dir/r.html", "does not exist"),
        (".", "is a directory"),
        ("/proc/r.html", "cannot write into /proc"),
    ],
)
def test_bad_html_path_is_one_line(run_dir, tmp_path, target, message):
    res = runner.invoke(app, ["analyze", str(run_dir), "--html", str(tmp_path / target)])  # /proc: absolute
    assert res.exit_code == 2
    err = res.stderr.strip()
    assert len(err.splitlines()) == 1 and err.startswith("guandan: error: --html") and message in err


@pytest.mark.parametrize("target", ["afile.txt/r.html", "afile.txt/deeper/r.html"])
def test_a_file_on_the_html_path_is_named_as_a_file(run_dir, tmp_path, target):
    """``--html afile.txt/r.html`` said the directory afile.txt does not exist; it exists, as a file."""
    (tmp_path / "afile.txt").write_text("notes\n")
    res = runner.invoke(app, ["analyze", str(run_dir), "--html", str(tmp_path / target)])
    assert res.exit_code == 2
    assert res.stderr == (
        f"guandan: error: --html {tmp_path / target}: {tmp_path / 'afile.txt'} is a file, not a directory\n"
    )


# ---------------------------------------------------------------- a real browser

#: appended to a copy of the page: the browser reports what it rendered in the title
PROBE = """<script>
window.addEventListener("load", () => {
  const imgs = [...document.querySelectorAll("section.report img")];
  document.title = "PROBE " + JSON.stringify({
    sections: [...document.querySelectorAll("section.report")].map(s => s.id),
    decoded: imgs.filter(i => i.complete && i.naturalWidth > 0).length,
    images: imgs.length,
    tables: document.querySelectorAll("section.report table").length,
  });
});
</script>"""


@needs_chromium
def test_chromium_renders_every_section_and_image(page, tmp_path):
    probe = tmp_path / "probe.html"
    probe.write_text(page.read_text(encoding="utf-8").replace("</body>", PROBE + "</body>"), encoding="utf-8")
    res = chromium(["--virtual-time-budget=10000", "--dump-dom", probe.as_uri()], tmp_path / "profile1")
    assert res.returncode == 0, res.stderr[-2000:]
    title = res.stdout.split("<title>PROBE ", 1)[1].split("</title>", 1)[0]
    seen = json.loads(title.replace("&quot;", '"'))
    assert seen["sections"] == [f"report-{name}" for name in REPORTS]
    assert seen["images"] == seen["decoded"] == len(REPORTS)
    assert seen["tables"] == len(REPORTS)

    shot = screenshot_dir(tmp_path) / "html-report.png"
    res = chromium(["--window-size=1280,2000", f"--screenshot={shot}", page.as_uri()], tmp_path / "profile2")
    assert res.returncode == 0, res.stderr[-2000:]
    w, h = png_size(shot.read_bytes())
    assert (w, h) == (1280, 2000) and shot.stat().st_size > 50_000  # a blank page compresses to a few kB


# ---------------------------------------------------------------- the page at 1280 px (issue 30)

#: the Chinese terms of the reports and the English a reader without a CJK font needs beside
#: them (written out here, independently of the page's own glossary)
ENGLISH = {"上游": ("first out", "1st"), "接风": ("partner",), "双下": ("double-down",)}
#: elements that stick out of the window at 1280 px (left of 0 or right of its width)
OVERFLOWING = """
const vw = document.documentElement.clientWidth;
return [...document.querySelectorAll('body *')].filter(e => {
  const r = e.getBoundingClientRect();
  return r.width > 0 && (r.right > vw + 0.5 || r.left < -0.5);
}).map(e => e.tagName + ' ' + (e.closest('section') || {}).id + ' ' + e.textContent.slice(0, 40));
"""


@pytest.fixture(scope="module")
def hard_page(tmp_path_factory) -> Path:
    """Two runs, one of a bot deep in long folders, every report grouped by strategy and seat."""
    root = tmp_path_factory.mktemp("hard")
    folder = root / "bots_of_the_research_group" / "season_2026_submissions"
    folder.mkdir(parents=True)
    (folder / "a_rather_long_bot_module_name.py").write_text(
        "from guandan_cli.strategies.greedy import GreedyStrategy\n\n\n"
        "class TheLongestBotClassName(GreedyStrategy):\n    name = 'longbot'\n"
    )
    spec = f"{folder}/a_rather_long_bot_module_name.py:TheLongestBotClassName"
    runs = root / "runs_of_the_season_with_a_long_folder_name"
    simulate(
        6, seed=5, strategies=f"{spec},random", max_deals=4, workers=1, out=runs / "long", progress=False
    )
    simulate(
        6, seed=6, strategies="heuristic,greedy", max_deals=4, workers=1, out=runs / "two", progress=False
    )
    path = root / "hard.html"
    argv = ["analyze", str(runs / "long"), str(runs / "two"), "--by", "strategy,seat", "--html", str(path)]
    res = runner.invoke(app, [*argv, "-f", "csv"])
    assert res.exit_code == 0, res.output
    return path


@pytest.fixture
def browser(tmp_path):
    with driver(tmp_path / "profile", size=(1280, 1000)) as d:
        yield d


@pytest.mark.parametrize("which", ["page", "hard_page"])
def test_at_1280_px_every_element_fits_the_window_and_nothing_overlaps(which, request, browser):
    """The Runs table was wider than 1280 px (its errored column out of sight), the bombs and
    wilds tables scrolled sideways and the index's columns collided."""
    path = request.getfixturevalue(which)
    browser.get(path.as_uri())
    assert browser.execute_script("return document.documentElement.clientWidth") >= 1200
    assert browser.execute_script(OVERFLOWING) == []
    assert browser.execute_script(
        "return document.documentElement.scrollWidth <= document.documentElement.clientWidth"
    )
    # each table fits its own box: none needs the sideways scroll its box would offer
    boxes = browser.execute_script(
        "return [...document.querySelectorAll('.table-wrap')].map(b => [b.scrollWidth, b.clientWidth])"
    )
    assert boxes and all(scroll <= client for scroll, client in boxes), boxes
    # the index: one entry per report; no cell's text spills out, no two cells' boxes overlap
    names = browser.execute_script(
        "return [...document.querySelectorAll('#contents a')].map(a => a.textContent)"
    )
    assert names == list(REPORTS)
    cells = browser.execute_script(
        "return [...document.querySelectorAll('#contents td')].map(e => {const r = e.getBoundingClientRect();"
        " return [r.left, r.top, r.right, r.bottom, e.scrollWidth <= e.clientWidth, e.textContent];})"
    )
    assert len(cells) >= 2 * len(REPORTS) and all(c[4] for c in cells), [c for c in cells if not c[4]]
    for i, a in enumerate(cells):
        for b in cells[i + 1 :]:
            assert a[2] <= b[0] + 0.5 or b[2] <= a[0] + 0.5 or a[3] <= b[1] + 0.5 or b[3] <= a[1] + 0.5, (
                a,
                b,
            )
    # a screenshot of the whole page shows text, tables and plots, not a blank page
    height = browser.execute_script("return document.body.scrollHeight")
    browser.set_window_size(1280, min(height, 12000))
    drawn, colours = non_blank(browser.get_screenshot_as_png())
    assert drawn > 0.05 and colours > 200, (drawn, colours)


def test_every_chinese_term_has_its_english_beside_it_and_the_fonts_include_the_systems(page, browser):
    """上游, 接风 and 双下 rendered as empty boxes on a machine without a CJK font; the page now
    names a CJK font of every platform and says each term in English too."""
    import re

    browser.get(page.as_uri())
    text = browser.execute_script("return document.body.innerText")
    found = list(re.finditer(r"[\u3400-\u9fff]+", text))
    assert {m.group() for m in found} >= {"上游", "接风", "双下"}
    for m in found:
        near = text[max(0, m.start() - 48) : m.end() + 48]
        assert any(e in near for e in ENGLISH.get(m.group(), ("?",))), near
    assert "上游 (first out)" in text
    assert browser.execute_script("return document.querySelector('span[lang=zh]') !== null")
    style = page.read_text(encoding="utf-8").split("<style>", 1)[1].split("</style>", 1)[0]
    listed = subprocess.run(["fc-list", ":lang=zh", "family"], capture_output=True, text=True)
    families = {f.strip() for line in listed.stdout.splitlines() for f in line.split(",") if f.strip()}
    if families:  # where the system has a CJK font, the page asks for one of them by name
        assert any(f'"{f}"' in style for f in families), families

"""`guandan analyze --html`: one self-contained page; checked by a parser everywhere and
rendered by headless Chromium where Debian's `chromium` is installed."""

from __future__ import annotations

import base64
import json
import shutil
from html.parser import HTMLParser
from pathlib import Path

import pytest
from browser import chromium, needs_chromium, png_size, screenshot_dir
from typer.testing import CliRunner

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

"""The rules the code cites are in the project: docs/rules.md, ``guandan rules [SECTION]``.

Errors, prompts, comments and docs cite the rules by section (``§10``, ``rules.md §4``,
``§3–6``); every section they cite must be one the document has. ``guandan rules`` prints
the document or one section of it. The document's worked examples and exact figures are
checked against the engine.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from click.testing import CliRunner

from guandan_cli.cli.app import app
from guandan_cli.engine import Combo, beats, parse_cards, readings
from guandan_cli.rules_text import (
    citations,
    document_path,
    find_section,
    normalize,
    outline,
    read_document,
    sections,
)

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "rules.md"
runner = CliRunner()

#: where the project cites the rules: its code, docs, tests, scripts, examples and notebooks
CITING = ("guandan_cli", "strategies", "docs", "tests", "scripts", "examples", "notebooks", "README.md")
SUFFIXES = {".py", ".md", ".sh", ".txt", ".ipynb", ".html", ".j2", ".toml"}

#: section signs that cite another work, not the rules: (file, section) -> the work
OTHER_WORKS = {
    ("guandan_cli/stats.py", "4.2"): 'Hesterberg 2015, "What teachers should know about the bootstrap"',
}


def citing_files() -> dict[str, str]:
    """The text of every file that may cite the rules, by its path in the repository
    (this file aside: it cites missing sections on purpose)."""
    found = {}
    for name in CITING:
        top = ROOT / name
        paths = [top] if top.is_file() else sorted(top.rglob("*"))
        for path in paths:
            if path.suffix not in SUFFIXES or "__pycache__" in path.parts or path == Path(__file__).resolve():
                continue
            if path.is_file():
                found[path.relative_to(ROOT).as_posix()] = path.read_text(encoding="utf-8", errors="replace")
    return found


def cited(files: dict[str, str]) -> list[tuple[str, int, str]]:
    """Every rules citation of ``files``: (path, line number, section), other works left out."""
    out = []
    for path, text in files.items():
        for number, line in enumerate(text.splitlines(), 1):
            out += [
                (path, number, section) for section in citations(line) if (path, section) not in OTHER_WORKS
            ]
    return out


def missing_citations(files: dict[str, str], document: str) -> list[str]:
    """``path:line: §N`` for each citation in ``files`` of a section ``document`` lacks."""
    have = {s.number for s in sections(document)}
    return [f"{path}:{line}: §{section}" for path, line, section in cited(files) if section not in have]


# ------------------------------------------------------------------ the citations


def test_every_cited_section_is_in_the_document():
    files = citing_files()
    found = cited(files)
    assert len(found) > 50, f"only {len(found)} citations found: is the scan looking in the right places?"
    missing = missing_citations(files, DOC.read_text(encoding="utf-8"))
    assert not missing, "sections cited but missing from docs/rules.md:\n" + "\n".join(missing)


def test_a_citation_of_a_missing_section_is_caught():
    """The check above fails for a citation the document lacks, in any of its spellings."""
    fake = {
        "guandan_cli/engine/fake.py": (
            '"""Fine: (rules.md §10, §12), §3–6, § 4.2, §8-9.\n'
            'Missing: rules.md §14; (§ 4.7); §12–15 and §6.9."""\n'
        )
    }
    missing = missing_citations(fake, DOC.read_text(encoding="utf-8"))
    assert missing == [
        "guandan_cli/engine/fake.py:2: §14",
        "guandan_cli/engine/fake.py:2: §4.7",
        "guandan_cli/engine/fake.py:2: §14",
        "guandan_cli/engine/fake.py:2: §15",
        "guandan_cli/engine/fake.py:2: §6.9",
    ]


def test_the_other_works_are_still_cited():
    """An entry of OTHER_WORKS whose citation is gone would hide a real one later."""
    files = citing_files()
    stale = [key for key in OTHER_WORKS if f"§{key[1]}" not in files.get(key[0], "")]
    assert not stale, f"OTHER_WORKS entries no longer cited: {stale}"


def test_the_document_keeps_the_numbering_the_code_cites():
    """Sections 1 to 13 in order, each sub-section inside its section, in order."""
    found = sections(DOC.read_text(encoding="utf-8"))
    tops = [s.number for s in found if "." not in s.number]
    assert tops == [str(n) for n in range(1, 14)]
    titles = {s.number: s.title for s in found}
    assert titles["4"].startswith("Combinations") and titles["10"].startswith("Tribute and return")
    assert titles["12"].startswith("Named rulesets") and titles["4.2"] == "The bomb class"
    for section in found:
        if "." in section.number:
            parent, sub = section.number.rsplit(".", 1)
            assert section.text in find_section(DOC.read_text(encoding="utf-8"), parent).text
            assert int(sub) >= 1


def test_section_names_as_people_type_them():
    text = DOC.read_text(encoding="utf-8")
    assert find_section(text, "§10") == find_section(text, "10") == find_section(text, "rules.md §10")
    assert find_section(text, "§ 4.2").number == "4.2"
    assert find_section(text, "14") is None and normalize("ten") is None
    assert outline(sections(text)).startswith("1, 2, 3 (3.1–3.4), 4 (4.1–4.3), 5,")


# ------------------------------------------------------------------ guandan rules


def test_rules_10_prints_tribute_and_return_with_its_sub_sections():
    res = runner.invoke(app, ["rules", "10"])
    assert res.exit_code == 0, res.output
    out = res.stdout
    assert out.startswith("## 10. Tribute and return")
    for sub in (
        "### 10.1 Single tribute",
        "### 10.2 Double tribute",
        "### 10.3 Resistance",
        "### 10.4 Return",
    ):
        assert sub in out
    assert "## 11." not in out and "## 9." not in out
    assert out == find_section(read_document(), "10").text + "\n"
    assert runner.invoke(app, ["rules", "§10"]).stdout == out


def test_rules_prints_a_sub_section_alone():
    res = runner.invoke(app, ["rules", "4.2"])
    assert res.exit_code == 0, res.output
    assert res.stdout.startswith("### 4.2 The bomb class")
    assert "joker_bomb" in res.stdout and "straight_flush" in res.stdout
    assert "### 4.1" not in res.stdout and "### 4.3" not in res.stdout


def test_rules_without_a_section_prints_the_whole_document():
    res = runner.invoke(app, ["rules"])
    assert res.exit_code == 0
    assert res.stdout == read_document().rstrip("\n") + "\n"


@pytest.mark.parametrize("given", ["99", "4.9", "x", "§", ""])
def test_an_unknown_section_is_one_line_naming_it_and_the_sections(given):
    res = runner.invoke(app, ["rules", given])
    assert res.exit_code == 2
    [line] = res.stderr.splitlines()
    assert line.startswith(f"guandan: error: SECTION {given!r}: ")
    assert line.endswith("the sections are " + outline(sections(read_document())))
    assert res.stdout == ""


def test_on_a_terminal_the_markdown_is_rendered(monkeypatch):
    from guandan_cli.cli import cmd_rules

    monkeypatch.setattr(cmd_rules, "_is_terminal", lambda: True)
    res = runner.invoke(app, ["rules", "10.3"])
    assert res.exit_code == 0, res.output
    assert "Resistance (抗贡)" in res.stdout
    assert "###" not in res.stdout and "`HR`" not in res.stdout  # rendered, not Markdown
    assert all(len(line) <= cmd_rules.MAX_WIDTH for line in res.stdout.splitlines())


def test_guandan_rules_imports_nothing_heavy():
    code = (
        "import sys\n"
        "sys.argv = ['guandan', 'rules', '10']\n"
        "from guandan_cli.cli.app import main\n"
        "try:\n"
        "    main()\n"
        "except SystemExit as exc:\n"
        "    code = exc.code\n"
        "heavy = ('polars', 'numpy', 'matplotlib', 'guandan_cli.runner', 'rich')\n"
        "print(code, sorted(m for m in heavy if m in sys.modules), file=sys.stderr)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert out.stderr.strip().splitlines()[-1] == "0 []", out.stderr
    assert out.stdout.startswith("## 10. Tribute and return")


# ------------------------------------------------------------------ where the document is found


def _load_rules_text_from(folder: Path):
    spec = importlib.util.spec_from_file_location("rules_text_copy", folder / "rules_text.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_document_is_found_installed_or_in_the_repository(tmp_path):
    """A wheel carries it as guandan_cli/rules.md (setup.py); a checkout has docs/rules.md."""
    assert document_path() in (DOC, ROOT / "guandan_cli" / "rules.md")
    package = tmp_path / "guandan_cli"
    package.mkdir()
    shutil.copy(ROOT / "guandan_cli" / "rules_text.py", package)
    with pytest.raises(FileNotFoundError, match="the rules document is missing"):
        _load_rules_text_from(package).document_path()
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "rules.md").write_text("## 1. From the repository\n", encoding="utf-8")
    assert _load_rules_text_from(package).document_path() == tmp_path / "docs" / "rules.md"
    (package / "rules.md").write_text("## 1. Installed\n", encoding="utf-8")
    assert _load_rules_text_from(package).document_path() == package / "rules.md"


def test_the_sdist_and_the_wheel_carry_the_document():
    """MANIFEST.in puts docs/rules.md in the sdist; setup.py's build_py copies it into the package."""
    assert re.search(r"^include docs/rules\.md$", (ROOT / "MANIFEST.in").read_text(), re.M)
    setup = (ROOT / "setup.py").read_text(encoding="utf-8")
    assert '"build_py": BuildPyWithRules' in setup and 'ROOT / "docs" / "rules.md"' in setup


# ------------------------------------------------------------------ the document agrees with the engine

#: §6.3: cards, level, the declarations they allow (none: no combination)
WORKED_EXAMPLES = [
    ("S3 H4 D4 C5 S5 H2", "2", {"tube:5"}),
    ("S4 H5 D5 C6 S6 H3", "3", {"tube:6"}),
    ("S3 S4 D4 C5 S5 H2", "3", set()),
    ("S7 D7 C7 H2 H2", "2", {"bomb:7", "full_house:7"}),
    ("S7 S8 S9 ST SJ", "2", {"straight:J", "straight_flush:J"}),
    ("SA S2 S3 S4 S5", "2", {"straight:5", "straight_flush:5"}),
    ("SK SA S2 S3 S4", "2", set()),
]


@pytest.mark.parametrize(("cards", "level", "declarations"), WORKED_EXAMPLES)
def test_the_worked_examples_are_the_engines_readings(cards, level, declarations):
    examples = find_section(read_document(), "6.3").text
    assert f"`{cards}`" in examples
    for declaration in declarations:
        assert f"`{declaration}`" in examples
    assert {c.text().split()[0] for c in readings(parse_cards(cards), level)} == declarations


def test_a_six_card_bomb_beats_straight_flushes_and_five_card_level_bombs():
    """§5's example."""
    assert "a 6-card bomb of 3s beats any straight flush" in find_section(read_document(), "5").text
    six = Combo.from_text("bomb:3 S3 S3 H3 C3 C3 D3")
    assert beats(six, Combo.from_text("straight_flush:A ST SJ SQ SK SA"), "5")
    assert beats(six, Combo.from_text("bomb:5 S5 S5 H5 C5 D5"), "5")


def test_the_exact_figures_of_section_13():
    text = " ".join(find_section(read_document(), "13").text.split())
    single = Fraction(27 * 26, 108 * 107)
    double = Fraction(54 * 53, 108 * 107)
    wild = 1 - Fraction(81 * 80, 108 * 107)
    assert f"27·26 / (108·107) ≈ {float(single):.2%}" in text
    assert f"54·53 / (108·107) ≈ {float(double):.2%}" in text
    assert f"1 − 81·80 / (108·107) ≈ {float(wild):.1%}" in text

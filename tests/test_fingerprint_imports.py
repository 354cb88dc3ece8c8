"""A bot's fingerprint follows the code it runs: its file and the modules of its folder it
imports, not every file there; a change is named by file (issue 29)."""

from __future__ import annotations

import json
import sys

import pytest
from click.testing import CliRunner
from guandan_cli.strategies.fingerprint import fingerprint, source_files
from guandan_cli.strategies.registry import load_strategy

from guandan_cli import compare, simulate
from guandan_cli.cli.app import app
from guandan_cli.runner import SimulationInputError

runner = CliRunner()
SMALL = dict(matches=2, seed=1, max_deals=2, workers=1)

BOT = """import importlib
from pathlib import Path
from typing import TYPE_CHECKING

import {p}top
from guandan_cli.strategies.greedy import GreedyStrategy

importlib.import_module("{p}" + "computed")  # a name computed at load time

if TYPE_CHECKING:
    import {p}typing_only


class Mine(GreedyStrategy):
    name = "mine"
    fingerprint_files = (Path(__file__).with_name("{p}computed.py"),)  # what no import statement names

    def choose_play(self, obs):
        from {p}pkg import inner  # an import at play time
        import {p}lazy

        {p}lazy.F(); inner.G(); importlib.import_module("{p}literal")
        return super().choose_play(obs)
"""
HELPERS = ("top", "computed", "typing_only", "lazy", "literal")


@pytest.fixture
def bot(tmp_path, monkeypatch):
    """``mybot.py:Mine`` in the working folder beside the modules it imports, all named with a
    prefix no other test uses; yields ``(folder, spec, prefix)``."""
    p = f"m{tmp_path.name.replace('-', '_')}_"
    for name in HELPERS:
        (tmp_path / f"{p}{name}.py").write_text("def F():\n    return None\n")
    (tmp_path / f"{p}pkg").mkdir()
    (tmp_path / f"{p}pkg" / "__init__.py").write_text("")
    (tmp_path / f"{p}pkg" / "inner.py").write_text("def G():\n    return None\n")
    (tmp_path / "mybot.py").write_text(BOT.format(p=p))
    monkeypatch.chdir(tmp_path)
    yield tmp_path, "mybot.py:Mine", p
    for name in [m for m in sys.modules if m.startswith(p)]:
        del sys.modules[name]
    if str(tmp_path) in sys.path:
        sys.path.remove(str(tmp_path))


def _names(spec: str) -> set[str]:
    return {p.relative_to(root).as_posix() for p, root in source_files(load_strategy(spec))}


def test_the_files_hashed_are_the_bot_and_what_it_imports(bot):
    folder, spec, p = bot
    (folder / "unrelated.py").write_text("X = 1\n")
    names = _names(spec)
    wanted = {"mybot.py", f"{p}top.py", f"{p}lazy.py", f"{p}literal.py"}
    wanted |= {f"{p}pkg/__init__.py", f"{p}pkg/inner.py", "strategies/greedy.py", "strategies/base.py"}
    assert wanted <= names
    assert "unrelated.py" not in names and f"{p}typing_only.py" not in names
    assert f"{p}computed.py" not in names  # a computed name: found only as a declared file
    assert set(fingerprint(spec)["sources"]) == names | {f"{p}computed.py"}


def test_an_unrelated_file_beside_the_bot_changes_nothing(bot):
    folder, spec, p = bot
    before = fingerprint(spec)
    (folder / "other_bot.py").write_text("import os\n")
    (folder / "sub").mkdir()
    (folder / "sub" / "deep.py").write_text("Y = 1\n")
    (folder / f"{p}typing_only.py").write_text("Z = 2\n")
    assert fingerprint(spec) == before


@pytest.mark.parametrize("edited", ["top", "computed", "lazy", "literal", "pkg/inner"])
def test_editing_an_imported_module_is_a_change_named_by_file(bot, edited):
    folder, spec, p = bot
    said: list[str] = []
    first = compare(spec, "greedy", out=folder / "runs", notify=said.append, **SMALL)
    (folder / f"{p}{edited}.py").write_text("def F():\n    return 1\n\n\ndef G():\n    return 1\n")
    compare(spec, "greedy", out=folder / "runs", notify=said.append, **SMALL)
    where = first.runs[0].path.parent
    assert said == [f"{spec} changed ({p}{edited}.py edited) since {where} was written: recomputing"]


def test_resume_after_a_change_names_the_file_and_the_two_ways_on(bot):
    folder, spec, p = bot
    simulate(3, seed=2, strategies=f"{spec},greedy", max_deals=2, workers=1, out="run")
    (folder / "unrelated.py").write_text("X = 1\n")
    simulate(out="run", resume=True)  # an unrelated file: the run goes on
    (folder / f"{p}lazy.py").write_text("def F():\n    return 2\n")
    with pytest.raises(SimulationInputError) as refused:
        simulate(out="run", resume=True)
    text = str(refused.value)
    assert text.startswith(f"strategy '{spec}' changed since run was written ({p}lazy.py edited); ")
    assert "add --force" in text and "give another --out" in text and "played by the old code" in text
    res = runner.invoke(app, ["simulate", "--resume", "--out", "run", "-q"])
    assert res.exit_code == 2
    [line] = res.stderr.splitlines()
    assert line == f"guandan: error: {text}"


def test_a_new_import_and_a_removed_one_are_named(bot):
    folder, spec, p = bot
    said: list[str] = []
    compare(spec, "greedy", out=folder / "runs", notify=said.append, **SMALL)
    (folder / f"{p}extra.py").write_text("E = 1\n")
    source = (folder / "mybot.py").read_text().replace(f"import {p}top\n", f"import {p}extra\n")
    (folder / "mybot.py").write_text(source)
    compare(spec, "greedy", out=folder / "runs", notify=said.append, **SMALL)
    assert f"changed (mybot.py edited; {p}extra.py added; {p}top.py removed) since " in said[-1]


def test_a_run_recorded_without_file_digests_still_sees_the_change(bot):
    """Manifests written before the per-file digests: the change is seen, no file is named."""
    folder, spec, p = bot
    simulate(2, seed=2, strategies=f"{spec},greedy", max_deals=2, workers=1, out="run")
    manifest = json.loads((folder / "run" / "manifest.json").read_text())
    for fp in manifest["fingerprints"].values():
        del fp["sources"]
    (folder / "run" / "manifest.json").write_text(json.dumps(manifest))
    (folder / f"{p}top.py").write_text("def F():\n    return 3\n")
    with pytest.raises(
        SimulationInputError, match=r"changed since run was written \(its code fingerprint differs\); "
    ):
        simulate(out="run", resume=True)


def test_a_package_bot_counts_its_package_modules_it_imports(tmp_path, monkeypatch):
    pkg = f"p{tmp_path.name.replace('-', '_')}"
    root = tmp_path / pkg
    (root / "bots").mkdir(parents=True)
    (root / "__init__.py").write_text("")
    (root / "bots" / "__init__.py").write_text("")
    (root / "tables.py").write_text("T = 1\n")
    (root / "unused.py").write_text("U = 1\n")
    (root / "bots" / "mine.py").write_text(
        "from guandan_cli.strategies.greedy import GreedyStrategy\n\nfrom .. import tables\n\n\n"
        "class Mine(GreedyStrategy):\n    name = 'pmine'\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    spec = f"{pkg}.bots.mine:Mine"
    try:
        names = _names(spec)
        assert {
            f"{pkg}/__init__.py",
            f"{pkg}/bots/__init__.py",
            f"{pkg}/bots/mine.py",
            f"{pkg}/tables.py",
        } <= names
        assert f"{pkg}/unused.py" not in names
    finally:
        for name in [m for m in sys.modules if m.startswith(pkg)]:
            del sys.modules[name]

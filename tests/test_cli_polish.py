"""Findings of a new user's walk through compare, plays, serve, experiment and the Python API
(session 13 polish; one test per fix, each failing before it)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from typer.testing import CliRunner

from guandan_cli.cli.app import app

runner = CliRunner()


@pytest.mark.parametrize("level", ["Z", "SB", "HR", "1"])
def test_a_bad_level_names_only_the_levels(level):
    """``--level Z`` listed ``SB HR`` among the expected levels (the ranks' tokens, not the levels')."""
    res = runner.invoke(app, ["plays", "S3", "--level", level])
    assert res.exit_code == 2
    [line] = res.stderr.splitlines()
    assert line.startswith(f"guandan: error: --level {level!r}: a level is one of 2 3 4 5 6 7 8 9 T J Q K A")
    assert "SB" not in line.replace(repr(level), "") and "HR" not in line.replace(repr(level), "")


def test_a_level_may_be_written_10_or_lower_case():
    res = runner.invoke(app, ["plays", "S3 H4", "--level", "10"])
    assert res.exit_code == 0 and "(level T, 2 plays)" in res.stdout
    res = runner.invoke(app, ["plays", "S3 H4", "--level", " q"])
    assert res.exit_code == 0 and "(level Q, 2 plays)" in res.stdout


@pytest.mark.parametrize(
    "first",
    [
        "import guandan_cli.runner.simulation",
        "import guandan_cli",
        "from guandan_cli import simulate",
        "pass",
    ],
)
def test_runner_simulate_is_the_function_whatever_was_imported_first(first):
    """Once the module ``guandan_cli.runner.simulate`` was imported it shadowed the lazy
    ``simulate`` function of the package: the module is now ``runner.simulation``."""
    code = (
        f"{first}\n"
        "from guandan_cli.runner import simulate\n"
        "import guandan_cli.runner as r, guandan_cli.runner.simulation as m\n"
        "import guandan_cli\n"
        "assert callable(simulate) and simulate is m.simulate is r.simulate, simulate\n"
        "assert guandan_cli.runner.simulate is simulate\n"
        "from guandan_cli.runner import SimulationError, parse_strategies\n"
        "assert SimulationError is m.SimulationError and parse_strategies is m.parse_strategies\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr


def test_no_runner_submodule_shadows_a_name_the_package_exports():
    """Every submodule imported first, each lazy name of ``guandan_cli.runner`` is still the object."""
    code = (
        "import importlib, pkgutil, types\n"
        "import guandan_cli.runner as r\n"
        "for info in pkgutil.iter_modules(r.__path__):\n"
        "    importlib.import_module(f'guandan_cli.runner.{info.name}')\n"
        "bad = [n for n in r.__all__ if isinstance(getattr(r, n), types.ModuleType)]\n"
        "assert not bad, f'submodules shadow the exported names {bad}'\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr

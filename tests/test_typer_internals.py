"""The CLI leans on two things of Typer's that are not public: its private
``typer.core.build_runtime_param`` (replaced by ``cli/typer_app.py``: plain ``str``/``bool``
values, no empty path, no ``1_0``) and the exact help text it renders (stored by the fast
start-up path, served only for the Typer version that rendered it). pyproject.toml pins the
Typer range they are tested with; these tests fail, rather than pass without checking, when
an installed Typer falls outside it or moves the private function."""

from __future__ import annotations

import re
import tomllib
from importlib.metadata import version
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parent.parent


def _typer_requirement() -> Requirement:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    (line,) = [d for d in project["dependencies"] if re.match(r"typer\b", d)]
    return Requirement(line)


def test_typer_is_pinned_to_a_minor_series():
    spec = str(_typer_requirement().specifier)
    assert ">=" in spec and "<" in spec.replace("<=", ""), f"typer is not pinned to a range: {spec!r}"


def test_the_installed_typer_is_in_the_pinned_range():
    installed = version("typer")
    assert _typer_requirement().specifier.contains(installed), (
        f"typer {installed} is outside pyproject.toml's {_typer_requirement()}: check cli/typer_app.py's "
        "_plain_parameters and rebuild the fast path (python -m guandan_cli.cli.fast_path_build)"
    )


def test_the_private_build_runtime_param_is_replaced():
    from guandan_cli.cli import typer_app

    assert typer_app.plain_parameters_installed(), (
        "typer.core.build_runtime_param was not replaced: this Typer's internals moved "
        "(so -n 1_0 and --out '' would pass unchecked)"
    )


def test_the_fast_path_help_was_rendered_by_a_typer_of_the_range():
    from guandan_cli.cli import fast_path_spec

    assert _typer_requirement().specifier.contains(fast_path_spec.TYPER_VERSION)

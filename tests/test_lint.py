"""The code stays clean under the linter and formatter configured in pyproject.toml."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _ruff() -> list[str]:
    exe = shutil.which("ruff")
    if exe:
        return [exe]
    pytest.importorskip("ruff")
    return [sys.executable, "-m", "ruff"]


@pytest.mark.parametrize("args", [["check", "."], ["format", "--check", "."]], ids=["check", "format"])
def test_ruff(args):
    out = subprocess.run([*_ruff(), *args], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr

"""A bot author's own ``strategies.py`` or ``strategies/`` folder in the working folder does
not disturb ``guandan`` or ``from guandan_cli import simulate``: the built-in bots are
``guandan_cli.strategies`` (the repository's folder ``strategies/``, installed under the
project's own name), so nothing of ours imports a top-level ``strategies``."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

GUANDAN = shutil.which("guandan")
#: what the user's files do when imported: fail loudly, so an import of them cannot pass unseen
TRAP = "raise ImportError('the user\\'s own strategies module was imported')\n"


@pytest.fixture
def user_folder(tmp_path: Path) -> Path:
    (tmp_path / "strategies.py").write_text(TRAP)
    (tmp_path / "strategies").mkdir()
    (tmp_path / "strategies" / "__init__.py").write_text(TRAP)
    (tmp_path / "strategies" / "human.py").write_text(TRAP)
    return tmp_path


@pytest.mark.skipif(GUANDAN is None, reason="the guandan console script is not installed")
@pytest.mark.parametrize("workers", ["1", "2"])
def test_the_command_ignores_a_users_strategies(user_folder: Path, workers: str):
    out = subprocess.run(
        [
            GUANDAN,
            "simulate",
            "-n",
            "4",
            "-s",
            "heuristic,greedy",
            "--max-deals",
            "2",
            "-w",
            workers,
            "--out",
            "r",
        ],
        cwd=user_folder,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    assert json.loads((user_folder / "r" / "manifest.json").read_text())["state"] == "complete"


def test_the_python_api_ignores_a_users_strategies(user_folder: Path):
    code = (
        "import sys\n"
        "from guandan_cli import simulate\n"
        "if __name__ == '__main__':\n"
        "    run = simulate(matches=2, strategies='heuristic,random', workers=2, max_deals=2, out='r', progress=False)\n"
        "    print(run.summary().splitlines()[0])\n"
        "    print('strategies' in sys.modules)\n"
    )
    (user_folder / "script.py").write_text(code)
    out = subprocess.run(
        [sys.executable, "script.py"], cwd=user_folder, capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[-1] == "False"  # no top-level 'strategies' was imported

"""Strategy classes defined in a notebook cell or ``python -c`` run with worker processes;
non-strategy classes are refused when loaded, in one line."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import nbformat
import pytest
from click.testing import CliRunner
from guandan_cli.strategies.greedy import GreedyStrategy
from nbclient import NotebookClient

from guandan_cli import compare
from guandan_cli.cli.app import app

ROOT = Path(__file__).resolve().parent.parent

BOT_CELL = """
from guandan_cli.strategies.greedy import GreedyStrategy

def lead_index(obs):          # a helper in the notebook, used by the class
    return -1

class LeadHighest(GreedyStrategy):
    name = "lead_highest"

    def choose_play(self, obs):
        if obs.top is None:
            return obs.legal_actions[lead_index(obs)]
        return super().choose_play(obs)
"""


class LeadHighest(GreedyStrategy):
    """The notebook's bot, defined here in an importable module (the reference)."""

    name = "lead_highest"

    def choose_play(self, obs):
        if obs.top is None:
            return obs.legal_actions[-1]
        return super().choose_play(obs)


def test_a_notebook_bot_compared_with_two_workers(tmp_path):
    out = tmp_path / "runs"
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell(BOT_CELL),
        nbformat.v4.new_code_cell(
            "import json\nfrom guandan_cli import compare\n"
            f"res = compare(LeadHighest, 'greedy', matches=3, seed=4, max_deals=3, workers=2, out={str(out)!r})\n"
            "print(json.dumps({'gains': res.pairs['a_level_gain'].to_list(), 'spec': res.runs[0].config['strategies'][0],"
            " 'workers': res.runs[0].manifest.options.workers}))"
        ),
    ]
    NotebookClient(
        nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}
    ).execute()
    outputs = [o for cell in nb.cells for o in cell.get("outputs", [])]
    errors = [o for o in outputs if o.get("output_type") == "error"]
    assert not errors, errors[0].get("evalue") if errors else ""
    printed = json.loads("".join(o.get("text", "") for o in outputs if o.get("name") == "stdout").strip())
    assert printed["spec"] == "__main__:LeadHighest" and printed["workers"] == 2
    reference = compare(
        LeadHighest, "greedy", matches=3, seed=4, max_deals=3, workers=1, out=tmp_path / "ref"
    )
    assert printed["gains"] == reference.pairs["a_level_gain"].to_list()
    assert any(g != 0 for g in printed["gains"])  # the bot does play differently from greedy


def test_a_python_c_bot_with_two_workers(tmp_path):
    code = BOT_CELL + textwrap.dedent(
        f"""
        from guandan_cli import compare
        res = compare(LeadHighest, "greedy", matches=2, seed=4, max_deals=3, workers=2, out={str(tmp_path)!r})
        print(res.pairs["a_level_gain"].to_list())
        """
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    reference = compare(
        LeadHighest, "greedy", matches=2, seed=4, max_deals=3, workers=1, out=tmp_path / "ref"
    )
    assert done.stdout.strip() == str(reference.pairs["a_level_gain"].to_list())


NOT_BOTS = {
    "NoPlay": (
        "from guandan_cli.strategies import Strategy\nclass NoPlay(Strategy):\n    pass\n",
        "does not override choose_play",
    ),
    "Plain": ("class Plain:\n    def __init__(self, seat, rng):\n        pass\n", "have no choose_play"),
    "OneArg": (
        "from guandan_cli.strategies.greedy import GreedyStrategy\n"
        "class OneArg(GreedyStrategy):\n    def __init__(self, seat):\n        super().__init__(seat)\n",
        "constructor does not take (seat, rng)",
    ),
}


@pytest.mark.parametrize("name", sorted(NOT_BOTS))
def test_a_class_that_is_not_a_strategy_is_refused_at_load(tmp_path, name):
    source, reason = NOT_BOTS[name]
    bot = tmp_path / "bots.py"
    bot.write_text(source)
    r = CliRunner().invoke(
        app, ["compare", f"{bot}:{name}", "greedy", "-n", "1", "--out", str(tmp_path), "-q"]
    )
    assert r.exit_code == 2
    line = r.output.strip()
    assert "\n" not in line and line.startswith("guandan: error: strategy ")
    assert f"{bot}:{name}' is not a strategy class" in line and reason in line

"""compare X X says in a note that both sides are the same strategy; the self-comparison
stays valid (the null check), and a tournament names the way to it (issue 29)."""

from __future__ import annotations

from click.testing import CliRunner
from guandan_cli.strategies.base import Strategy

from guandan_cli import compare
from guandan_cli.cli.app import app
from guandan_cli.comparison import _same_code

runner = CliRunner()
SMALL = dict(matches=3, seed=2, max_deals=3, workers=1)


def test_a_strategy_against_itself_is_noted_and_zero_by_construction(tmp_path):
    said: list[str] = []
    res = compare("greedy", "greedy", out=tmp_path, notify=said.append, **SMALL)
    assert res.note is not None and res.note.startswith("note: A and B are the same strategy (greedy)")
    assert said[0] == res.note and "null check" in res.note and "0 by construction" in res.note
    assert res.level_gain == 0.0 and res.level_gain_ci == (0.0, 0.0)  # each pair: one match, both sides
    assert res.deal_wins * 2 == res.deals


def test_two_specs_of_one_class_are_the_same_strategy_and_others_are_not(tmp_path):
    said: list[str] = []
    alias = compare(
        "greedy", "guandan_cli.strategies.greedy:GreedyStrategy", out=tmp_path, notify=said.append, **SMALL
    )
    assert alias.note is not None and alias.level_gain == 0.0
    unpaired = compare("greedy", "greedy", out=tmp_path, paired=False, notify=None, **SMALL)
    assert unpaired.note.endswith("its difference should be 0 within its interval")
    said.clear()
    other = compare("greedy", "random", out=tmp_path, notify=said.append, **SMALL)
    assert other.note is None and not any(x.startswith("note:") for x in said)


def test_one_code_under_two_names_is_two_strategies():
    """Two ``onnx:`` specs of one model with other encodings share a fingerprint, not a name."""

    class One(Strategy):
        name = "onnx:m.onnx@danzero"

        def choose_play(self, obs):
            return obs.legal_actions[0]

    Two = type("Two", (One,), {"name": "onnx:m.onnx@guandan"})
    assert not _same_code(One, Two, {"hash": "x"}, {"hash": "x"})
    assert _same_code(One, One, {"hash": "x"}, {"hash": "x"})
    assert not _same_code(One, One, {"hash": "x"}, {"hash": "y"})


def test_the_commands_say_so(tmp_path):
    res = runner.invoke(
        app,
        ["compare", "random", "random", "-n", "2", "--max-deals", "2", "-w", "1", "-o", str(tmp_path), "-q"],
    )
    assert res.exit_code == 0, res.output
    assert res.stderr.startswith(
        "note: A and B are the same strategy (random): a self-comparison, the null check"
    )
    assert "random ≈ random: +0.00 levels/deal [0.00, 0.00]" in res.stdout
    res = runner.invoke(
        app, ["tournament", "random", "greedy", "random", "-n", "1", "-o", str(tmp_path / "t")]
    )
    assert res.exit_code == 2
    [line] = res.stderr.splitlines()
    assert line.endswith(
        "given more than once (to play random against itself, the null check: guandan compare random random)"
    )

"""Stored results are reused only while the strategies' code is unchanged (issue 10: stale results)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from guandan_cli.strategies.fingerprint import fingerprint, source_files
from guandan_cli.strategies.registry import load_strategy

from guandan_cli import compare, simulate
from guandan_cli.cli.app import app
from guandan_cli.runner import SimulationInputError

GREEDY_BOT = "from guandan_cli.strategies.greedy import GreedyStrategy\n\nclass Mine(GreedyStrategy):\n    name = 'mine'\n"
HEURISTIC_BOT = "from guandan_cli.strategies.heuristic import HeuristicStrategy\n\nclass Mine(HeuristicStrategy):\n    name = 'mine'\n"
SMALL = dict(matches=4, seed=1, max_deals=3, workers=1)


def _manifest(path: Path) -> dict:
    return json.loads((path / "manifest.json").read_text())


def test_editing_a_bot_between_two_compares_changes_the_verdict(tmp_path):
    bot = tmp_path / "mybot.py"
    bot.write_text(GREEDY_BOT)
    said: list[str] = []
    first = compare(f"{bot}:Mine", "greedy", out=tmp_path / "runs", notify=said.append, **SMALL)
    assert first.level_gain == 0.0  # a greedy subclass against greedy: the same play
    assert said == []
    again = compare(f"{bot}:Mine", "greedy", out=tmp_path / "runs", notify=said.append, **SMALL)
    assert len(said) == 1 and said[0].startswith("reusing the stored results in ")
    assert again.pairs.equals(first.pairs)
    fp_before = _manifest(first.runs[0].path)["fingerprints"][f"{bot}:Mine"]

    bot.write_text(HEURISTIC_BOT)
    changed = compare(f"{bot}:Mine", "greedy", out=tmp_path / "runs", notify=said.append, **SMALL)
    assert len(said) == 2 and said[1] == (
        f"{bot}:Mine changed (mybot.py edited; strategies/heuristic/__init__.py, "
        "strategies/heuristic/bot.py, strategies/heuristic/memory.py and 1 more added; "
        "strategies/greedy.py removed) "
        f"since {first.runs[0].path.parent} was written: recomputing"
    )
    assert changed.level_gain > 0 and changed.verdict() != first.verdict()
    assert changed.runs[0].path == first.runs[0].path
    fp_after = _manifest(changed.runs[0].path)["fingerprints"][f"{bot}:Mine"]
    assert fp_after["hash"] != fp_before["hash"]
    assert _manifest(changed.runs[1].path)["fingerprints"][f"{bot}:Mine"] == fp_after


def test_other_options_changed_are_recomputed_with_a_notice(tmp_path):
    said: list[str] = []
    compare("greedy", "random", out=tmp_path, notify=said.append, **SMALL)
    res = compare("greedy", "random", out=tmp_path, notify=said.append, **(SMALL | {"max_deals": 2}))
    assert said == [f"max_deals 3 (now 2) since {res.runs[0].path.parent} was written: recomputing"]
    assert res.runs[0].config["max_deals"] == 2 and res.deals == 2 * 2 * 4


def test_fingerprint_follows_the_files_that_define_a_class(tmp_path):
    """A lone bot file: its own file, the modules of its folder it imports (docs/comparisons.md)
    and those of its base classes; not the other files of the folder, nor hidden folders."""
    (tmp_path / "helper.py").write_text("STEP = 1\n")
    (tmp_path / "unrelated.py").write_text("X = 1\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "deep.py").write_text("Y = 1\n")
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "skip.py").write_text("Z = 1\n")
    bot = tmp_path / "bot.py"
    bot.write_text(GREEDY_BOT + "\n\ndef later():\n    import helper\n    from sub import deep\n")
    spec = f"{bot}:Mine"
    files = {p.relative_to(root).as_posix() for p, root in source_files(load_strategy(spec))}
    assert {"bot.py", "helper.py", "sub/deep.py", "strategies/greedy.py"} <= files
    assert "unrelated.py" not in files and ".hidden/skip.py" not in files
    before = fingerprint(spec)
    for untouched in (".hidden/skip.py", "unrelated.py"):
        (tmp_path / untouched).write_text("Z = 2\n")
        assert fingerprint(spec) == before, untouched
    for edited in ("helper.py", "sub/deep.py"):
        (tmp_path / edited).write_text("X = 3\n")
        assert fingerprint(spec)["hash"] != before["hash"], edited
        before = fingerprint(spec)
    assert fingerprint("heuristic")["package"].startswith("guandan-cli ")


SIBLING_BOT = """from {helper} import STEP
from guandan_cli.strategies.greedy import GreedyStrategy


class CBot(GreedyStrategy):
    name = "cbot"

    def choose_play(self, obs):
        from {helper} import pick  # an import at play time

        return pick(obs) or super().choose_play(obs)
"""


def test_a_bot_imports_its_sibling_modules_and_their_edit_is_a_change(tmp_path):
    """QA: a bot doing ``from helper import X`` (a constant, and inside a method) neither
    loaded without the folder on PYTHONPATH nor noticed an edit of helper.py."""
    import sys

    helper = f"helper_{tmp_path.name.replace('-', '_')}"  # a module name no other test uses
    (tmp_path / f"{helper}.py").write_text("STEP = 1\n\n\ndef pick(obs):\n    return None\n")
    bot = tmp_path / "cbot.py"
    bot.write_text(SIBLING_BOT.format(helper=helper))
    spec = f"{bot}:CBot"
    said: list[str] = []
    try:
        first = compare(spec, "greedy", out=tmp_path / "runs", notify=said.append, **SMALL)
        (tmp_path / f"{helper}.py").write_text("STEP = 2\n\n\ndef pick(obs):\n    return None\n")
        compare(spec, "greedy", out=tmp_path / "runs", notify=said.append, **SMALL)
    finally:
        sys.modules.pop(helper, None)
        if str(tmp_path) in sys.path:
            sys.path.remove(str(tmp_path))
    assert first.level_gain == 0.0  # greedy's play
    assert said == [
        f"{spec} changed ({helper}.py edited) since {first.runs[0].path.parent} was written: recomputing"
    ]


def test_the_quick_distribution_lookup_agrees_with_the_full_scan():
    """The providers found by name first are those the scan of every distribution finds."""
    from importlib import metadata

    from guandan_cli.strategies.fingerprint import _distribution

    for module in ("guandan_cli.strategies.random_bot", "guandan_cli.engine", "polars.dataframe", "click"):
        top = module.partition(".")[0]
        scanned = metadata.packages_distributions().get(top, [])
        expected = f"{scanned[0]} {metadata.version(scanned[0])}" if scanned else None
        _distribution.cache_clear()
        assert _distribution(module) == expected, module


def test_simulate_resume_refuses_a_changed_strategy_unless_forced(tmp_path):
    bot = tmp_path / "mybot.py"
    bot.write_text(GREEDY_BOT)
    out = tmp_path / "run"
    simulate(3, seed=2, strategies=f"{bot}:Mine,greedy", max_deals=2, workers=1, out=out)
    simulate(3, out=out, resume=True)  # unchanged: fine
    bot.write_text(GREEDY_BOT + "# an edit\n")
    with pytest.raises(SimulationInputError, match=r"strategy '.*mybot.py:Mine' changed since .*--force"):
        simulate(out=out, resume=True)
    r = CliRunner().invoke(app, ["simulate", "--resume", "--out", str(out), "-q"])
    assert r.exit_code == 2 and "mybot.py:Mine' changed since" in r.output and "Traceback" not in r.output
    run = simulate(3, seed=2, strategies=f"{bot}:Mine,greedy", max_deals=2, workers=1, out=out, force=True)
    assert run.complete and run.manifest.fingerprints[f"{bot}:Mine"] == fingerprint(f"{bot}:Mine")


def test_compare_without_out_leaves_no_temporary_folder(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    res = compare("greedy", "random", **SMALL)
    assert res.pairs.height == 4 and res.runs == ()
    assert list(tmp_path.iterdir()) == []


def test_cli_force_and_on_error(tmp_path):
    runner = CliRunner()
    args = [*"compare greedy random -n 2 --max-deals 2 -w 1 -q".split(), "--out", str(tmp_path)]
    assert runner.invoke(app, args).exit_code == 0
    r = runner.invoke(app, args + ["--force", "--on-error", "record"])
    assert r.exit_code == 0, r.output
    assert "reusing" not in r.output and "levels/deal" in r.output
    r = runner.invoke(app, args)
    assert r.exit_code == 0 and "reusing the stored results in" in r.output
    r = runner.invoke(app, args + ["--on-error", "ignore"])
    assert r.exit_code == 2
    assert (
        r.output.strip() == "guandan: error: unknown --on-error mode 'ignore': expected one of stop, record"
    )
    r = runner.invoke(app, ["tournament", "greedy", "random", "-n", "2", "--max-deals", "2", "-w", "1"]
                      + ["--out", str(tmp_path), "-q", "--force"])  # fmt: skip
    assert r.exit_code == 0, r.output


def test_runs_written_before_fingerprints_are_recomputed_by_compare(tmp_path):
    said: list[str] = []
    res = compare("greedy", "random", out=tmp_path, notify=said.append, **SMALL)
    for run in res.runs:
        m = _manifest(run.path)
        del m["fingerprints"]
        (run.path / "manifest.json").write_text(json.dumps(m))
    simulate(out=res.runs[0].path, resume=True)  # simulate has nothing to compare: it accepts
    compare("greedy", "random", out=tmp_path, notify=said.append, **SMALL)
    assert said[-1].startswith("no code fingerprints recorded since ") and said[-1].endswith(": recomputing")
    assert "fingerprints" in _manifest(res.runs[0].path)


def test_an_engine_edit_changes_the_identity_of_every_run(tmp_path, monkeypatch):
    """The rules' code is fingerprinted beside the bots': stored runs under other rules code
    are recomputed by compare and refused by simulate --resume."""
    from guandan_cli.strategies import fingerprint as fp_module

    said: list[str] = []
    res = compare("greedy", "random", out=tmp_path, notify=said.append, **SMALL)
    engine = fp_module.engine_fingerprint()
    assert _manifest(res.runs[0].path)["fingerprints"][fp_module.ENGINE] == engine
    edited = dict(engine, hash="0" * 16)  # what an edit of guandan_cli/engine would give
    monkeypatch.setattr(fp_module, "engine_fingerprint", lambda: edited)
    with pytest.raises(SimulationInputError, match=r"the engine \(guandan_cli/engine\) changed since"):
        simulate(out=res.runs[0].path, resume=True)
    compare("greedy", "random", out=tmp_path, notify=said.append, **SMALL)
    assert said[-1].startswith("guandan_cli.engine changed since ") and said[-1].endswith(": recomputing")

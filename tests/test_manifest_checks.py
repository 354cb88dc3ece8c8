"""A hand-edited or damaged manifest is refused in one line naming the file and the field.

Before, a missing ``config`` was a ``KeyError`` traceback, a negative ``matches`` gave empty
reports with exit 0, and a changed ``matches`` on a complete run said "already complete".
"""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from guandan_cli.cli.app import app
from guandan_cli.logs.layout import MAX_MATCHES, plan_parts, plan_problem
from guandan_cli.runner.simulation import SimulationInputError, simulate

runner = CliRunner()


@pytest.fixture(scope="module")
def manifest_text(tmp_path_factory):
    out = tmp_path_factory.mktemp("m") / "run"
    simulate(4, strategies="random", max_deals=2, out=out, workers=1)
    return (out / "manifest.json").read_text()


EDITS = {
    "no config": (lambda d: d.pop("config"), "no config"),
    "config not an object": (lambda d: d.update(config="x"), "no config"),
    "negative matches": (lambda d: d["config"].update(matches=-3), "config.matches must be a positive"),
    "more matches": (lambda d: d["config"].update(matches=7), "part 0 holds matches 0..3, but config (7"),
    "fewer matches": (lambda d: d["config"].update(matches=2), "part 0 holds matches 0..3, but config (2"),
    "huge matches": (lambda d: d["config"].update(matches=10**20), f"at most {MAX_MATCHES} matches"),
    "part size zero": (lambda d: d["config"].update(part_size=0), "config.part_size must be a positive"),
    "unknown compression": (lambda d: d["config"].update(compression="lz"), "config.compression must be"),
    "bad state": (lambda d: d.update(state=5), "state must be one of"),
    "part moved": (lambda d: d["parts"][0].update(index=3), "part 3 holds matches 0..3"),
}


@pytest.mark.parametrize("name", list(EDITS))
def test_edited_manifest_is_one_line_naming_the_field(tmp_path, manifest_text, name):
    edit, expected = EDITS[name]
    data = json.loads(manifest_text)
    edit(data)
    out = tmp_path / "run"
    out.mkdir()
    (out / "manifest.json").write_text(json.dumps(data))
    for args in (
        ["simulate", "--resume", "--out", str(out), "-q"],
        ["analyze", str(out), "--report", "bombs"],
    ):
        result = runner.invoke(app, args)
        err = result.stderr.strip().splitlines()
        assert result.exit_code == 2, (args, result.output)
        assert len(err) == 1 and err[0].startswith("guandan: error: ") and "manifest.json: " in err[0], err
        assert expected in err[0], err


def test_plan_limits_are_checked_before_planning():
    with pytest.raises(ValueError, match="at most 100000 parts"):
        plan_parts(10**6, 1)
    with pytest.raises(ValueError, match="matches in one run"):
        plan_parts(10**20, 1000)
    assert plan_problem(MAX_MATCHES, 1000) is None
    assert len(plan_parts(2500, 1000)) == 3


def test_simulate_refuses_absurd_sizes_before_any_work(tmp_path):
    with pytest.raises(SimulationInputError, match="matches in one run"):
        simulate(10**20, strategies="random", out=tmp_path / "a", workers=1)
    with pytest.raises(SimulationInputError, match="at most 1024 processes"):
        simulate(10, strategies="random", out=tmp_path / "b", workers=100_000)
    with pytest.raises(SimulationInputError, match="raise --part-size to at least 3"):
        simulate(200_001, strategies="random", out=tmp_path / "c", part_size=2, workers=1)
    assert not any(tmp_path.iterdir())

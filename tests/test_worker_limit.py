"""More local workers than WORKERS_PER_CORE per core are refused in one line (issue 29):
1,000 processes on 2 cores played a run 8 times slower than 2, without a word."""

from __future__ import annotations

import os

import pytest
from click.testing import CliRunner

from guandan_cli import simulate
from guandan_cli.cli.app import app
from guandan_cli.runner import SimulationInputError
from guandan_cli.runner.backends import WORKERS_PER_CORE, workers_problem

runner = CliRunner()
CORES = len(os.sched_getaffinity(0))
LIMIT = WORKERS_PER_CORE * CORES


def test_the_limit_is_a_multiple_of_the_cores():
    assert workers_problem(LIMIT) is None
    assert f"at most {LIMIT} here ({WORKERS_PER_CORE} per core, {CORES} core" in workers_problem(LIMIT + 1)
    assert workers_problem(5, cores=1).startswith(
        "workers (--workers) must be at most 4 here (4 per core, 1 core)"
    )
    assert workers_problem(2000, cores=1000) == "workers (--workers) must be at most 1024 processes, got 2000"


def test_the_api_refuses_before_any_work(tmp_path):
    with pytest.raises(SimulationInputError, match=rf"must be at most {LIMIT} here .*got {LIMIT + 1}: "):
        simulate(2, strategies="random", workers=LIMIT + 1, out=tmp_path / "r")
    assert not (tmp_path / "r").exists()
    run = simulate(2, strategies="random", workers=LIMIT, max_deals=1, out=tmp_path / "ok")
    assert run.complete


@pytest.mark.parametrize(
    "argv",
    [
        ["simulate", "-n", "2", "-s", "random", "-w", str(LIMIT + 1), "-o", "{tmp}/s", "-q"],
        ["compare", "random", "greedy", "-n", "1", "-w", "1000", "-o", "{tmp}/c", "-q"],
        ["tournament", "random", "greedy", "-n", "1", "-w", "1000", "-o", "{tmp}/t", "-q"],
    ],
)
def test_the_commands_say_so_in_one_line(argv, tmp_path):
    res = runner.invoke(app, [a.replace("{tmp}", str(tmp_path)) for a in argv])
    assert res.exit_code == 2, res.output
    [line] = res.stderr.splitlines()
    assert line.startswith("guandan: error: workers (--workers) must be at most ") and "per core" in line
    assert list(tmp_path.iterdir()) == []


def test_verify_says_so_too(tmp_path):
    run = simulate(1, strategies="random", max_deals=1, workers=1, out=tmp_path / "r")
    res = runner.invoke(app, ["verify", str(run.path), "-w", str(LIMIT + 1)])
    assert res.exit_code == 2
    [line] = res.stderr.splitlines()
    assert line.startswith(f"guandan: error: --workers must be at most {LIMIT} here ")

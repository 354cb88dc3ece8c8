"""`guandan bench` prints every figure of the speed targets (values are not checked: speed is
measured by the bench itself and by scripts/bench_vs.py, never by a timed test)."""

from __future__ import annotations

from click.testing import CliRunner

from guandan_cli.cli.app import app

runner = CliRunner()


def test_bench_prints_legal_startup_and_deal_figures():
    result = runner.invoke(
        app,
        [
            "bench",
            "--positions",
            "30",
            "--matches",
            "1",
            "--parallel-matches",
            "2",
            "--workers",
            "2",
            "--strategies",
            "random,greedy",
            "--search-positions",  # the search line: tests/test_search.py::test_bench_prints_the_search_line
            "0",
        ],
    )
    assert result.exit_code == 0, result.output
    out = result.output
    for figure in (
        "hot modules: ",  # compiled or pure Python
        "legal_plays lead",
        "legal_plays follow",
        "start-up guandan --help",
        "start-up guandan plays HAND",
        "start-up guandan simulate --help",
        "heavy imports: none",
        "deals/s random     1 worker",
        "deals/s greedy     1 worker",
        "parallel heuristic x2 matches: 1 worker",
    ):
        assert figure in out, (figure, out)


def test_bench_rejects_a_negative_parallel_run():
    result = runner.invoke(app, ["bench", "--parallel-matches", "-1"])
    assert result.exit_code == 2
    assert "--parallel-matches" in result.output


def test_bench_refuses_to_time_nothing_and_strategies_without_deals():
    """QA: every figure off printed nothing and exited 0; --strategies with --no-deals did nothing."""
    res = runner.invoke(app, ["bench", "--no-legal", "--no-startup", "--no-deals"])
    assert res.exit_code == 2 and "nothing to time" in res.stderr
    res = runner.invoke(app, ["bench", "--no-deals", "--strategies", "random"])
    assert res.exit_code == 2 and "--strategies" in res.stderr


def test_bench_times_a_bot_named_twice_once():
    args = ["bench", "--no-legal", "--no-startup", "-n", "1", "--parallel-matches", "0", "-w", "1"]
    res = runner.invoke(app, [*args, "--strategies", "random,random", "--search-positions", "0"])
    assert res.exit_code == 0, res.output
    assert res.stdout.count("deals/s random") == 1, res.stdout

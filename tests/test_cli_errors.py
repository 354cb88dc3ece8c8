"""One line, one exit code: every command, given bad input, prints exactly one `guandan: error:` line.

Exit 2 for bad input (checked before any work), 1 for a failure while working, 130 for
an interrupt. The walk covers every command registered in the app: a new command
without a bad-input case here fails ``test_every_command_is_walked``.
"""

from __future__ import annotations

import shutil

import pytest
from click.testing import CliRunner
from report_fixtures import small_run  # noqa: F401  (fixture)

from guandan_cli.cli.app import app

runner = CliRunner()

#: command -> bad invocations (arguments after the command name, "{run}" is a good run,
#: "{tmp}" a scratch folder) and the exit code each must give
CASES: dict[str, list[tuple[list[str], int]]] = {
    "analyze": [
        (["{run}/deals-00000.jsonl", "--report", "match-length"], 2),  # no match records
        (["{run}", "--report", "bombs", "--by", "seat"], 2),  # bombs takes no grouping
        (["{run}", "--report", "bombs", "--plot-format", "svg"], 2),  # no --plots
        (["{run}", "--report", "bombs", "--format", "csv", "--wide"], 2),
        (["{run}", "--report", "bombs,,partners"], 2),  # an empty name between commas
        ([""], 2),  # an empty path (Path("") would be the current folder)
        (["{run}", "--plots", ""], 2),
        (["{tmp}/no-such-run"], 2),
        (["{run}", "--report", "foo"], 2),
        (["{run}", "--by", "team"], 2),
        (["{run}", "--format", "xml"], 2),
        (["{run}", "--plots", "{run}/deals-00000.jsonl"], 2),  # a file, not a folder
        (["{run}", "--plots", "{run}/deals-00000.jsonl/figures"], 2),  # cannot be created
        (["{run}", "--no-such-option"], 2),
        (["{run}/matches-00000.jsonl"], 2),  # a lone matches part: no deal lines to report on
        ([], 2),  # missing argument
    ],
    "bench": [(["--matches", "0"], 2), (["--positions", "x"], 2), (["-w", "0"], 2)],
    "compare": [
        (["random", "greedy", "-n", "1", "--out", ""], 2),
        (["random", "no-such-bot", "-n", "1", "--out", "{tmp}/c"], 2),
        (["random"], 2),
        (["random", "greedy", "-n", "99999999999999999999", "--out", "{tmp}/c", "-q"], 2),
        (["random", "greedy", "-n", "1", "-w", "100000", "--out", "{tmp}/c", "-q"], 2),
    ],
    "tournament": [
        (["random", "greedy", "-n", "1", "--out", "{tmp}/t", "--plot", "{tmp}/x.xyz"], 2),
        (["random", "greedy", "-n", "1", "--out", "{tmp}/t", "--plot", "{run}/deals-00000.jsonl/x.png"], 2),
    ],
    "plays": [
        (["S3", "--top", ""], 2),  # an empty play to beat is not "leading"
        (["S3 S3 S3"], 2),
        (["SB SB SB"], 2),
        (["S3 D3", "--top", "pair:3 S3"], 2),
        (["S3 D3", "--top", "pair:4 S3 D3"], 2),
        (["S3 X9"], 2),
        (["S3", "--level", "Z"], 2),
    ],
    "rules": [(["99"], 2), (["4.9"], 2), (["x"], 2), ([""], 2), (["10", "11"], 2)],
    "replay": [
        ([""], 2),
        (["{tmp}/no-such-run"], 2),
        (["{run}", "--match", "99"], 2),
        (["{run}", "--deal", "x"], 2),
        (["{run}", "--html", "{tmp}/no-such-dir/p.html"], 2),
    ],
    "review": [
        ([""], 2),
        (["{tmp}/no-such-run"], 2),
        (["{run}", "--match", "99"], 2),
        (["{run}", "--deal", "99"], 2),
        (["{run}", "--seat", "4"], 2),
        (["{run}", "--worlds", "1"], 2),
        (["{run}", "--format", "xml"], 2),
        (["{run}", "--html", "{tmp}/no-such-dir/p.html"], 2),
    ],
    "simulate": [
        (["-n", "1", "--ray-address", "ray://x:1", "-o", "{tmp}/s"], 2),  # local backend
        (["-n", "1", "-o", ""], 2),
        (["-n", "1", "--out="], 2),
        (["-n", "1", "-s", "no-such-bot", "-o", "{tmp}/s", "-q"], 2),
        (["-n", "1", "--ruleset", "poker", "-o", "{tmp}/s", "-q"], 2),
        # refused up front (planning 10**20 matches hung; -w 100000 would start 100000 processes)
        (["-n", "99999999999999999999", "-s", "random", "-o", "{tmp}/s", "-q"], 2),
        (["-n", "200000", "--part-size", "1", "-s", "random", "-o", "{tmp}/s", "-q"], 2),
        (["-n", "10", "-w", "100000", "-s", "random", "-o", "{tmp}/s", "-q"], 2),
    ],
    "verify": [
        ([""], 2),
        (["{run}", ""], 2),
        (["{tmp}/no-such-run"], 2),
        (["{run}", "--max-problems", "x"], 2),
        (["{run}", "-w", "99999999999999999999"], 2),  # once spawned processes until memory ran out
    ],
    "connect": [
        (["http://127.0.0.1:1/game/x"], 2),
        (["ws://127.0.0.1:1/game/x", "-s", "no-such-bot"], 2),
        (["ws://127.0.0.1:1/notgame"], 2),
    ],
    "serve": [(["--strategies", "no-such-bot,remote", "-n", "1", "--out", "{tmp}/sv"], 2)],
    "experiment": [
        (["tribute", "--out", ""], 2),
        (["coin-toss", "--deals", "2"], 2),
        (["tribute", "--deals", "0", "--out", "{tmp}/e"], 2),
        (["tribute", "--deals", "x"], 2),
    ],
    "play": [
        (["--seat", "7", "--out", "{tmp}/p"], 2),
        (["--delay", "inf", "--out", "{tmp}/p"], 2),
        (["--strategies", "no-such-bot", "--out", "{tmp}/p"], 2),
        (["--hint", "oracle", "--out", "{tmp}/p"], 2),
    ],
    "table": [
        (["--seat", "7", "--out", "{tmp}/p", "--no-open"], 2),
        (["--port", "70000", "--no-open"], 2),
        (["--strategies", "no-such-bot", "--out", "{tmp}/p", "--no-open"], 2),
        (["--resume", "--out", "{tmp}/nothing", "--no-open"], 2),
        (["--delay", "-1", "--no-open"], 2),
    ],
    "watch": [
        (["{run}", "--seed", "3"], 2),  # a logged match: the seed is the log's
        (["{run}", "-s", "greedy"], 2),
        (["--match", "2"], 2),  # a match played now is match 0
        ([""], 2),
        (["{tmp}/no-such-run"], 2),
        (["--seed", "1", "-s", "no-such-bot"], 2),
        (["{run}", "--match", "99"], 2),
        (["--delay", "nan"], 2),
        (["{run}", "--html", "{tmp}"], 2),  # a folder, not a file
    ],
}


def commands() -> list[str]:
    return sorted(app.list_commands(None))  # type: ignore[arg-type]


def test_every_command_is_walked():
    assert sorted(CASES) == commands()


def _cases():
    for command, cases in CASES.items():
        for args, code in cases:
            yield pytest.param(command, args, code, id=f"{command} {' '.join(args)}")


@pytest.mark.parametrize(("command", "args", "code"), list(_cases()))
def test_bad_input_gives_one_line_and_the_exit_code(small_run, tmp_path, command, args, code):  # noqa: F811
    run = tmp_path / "run"
    shutil.copytree(small_run, run)
    argv = [command] + [a.format(run=run, tmp=tmp_path) for a in args]
    res = runner.invoke(app, argv)
    lines = res.stderr.splitlines()
    assert res.exit_code == code, (argv, res.output)
    assert len(lines) == 1 and lines[0].startswith("guandan: error: "), (argv, res.stderr)
    assert "Traceback" not in res.output and "╭" not in res.output


def test_a_missing_run_is_the_same_error_everywhere(tmp_path):
    missing = str(tmp_path / "nope")
    results = [runner.invoke(app, [command, missing]) for command in ("analyze", "verify", "replay")]
    assert {r.exit_code for r in results} == {2}
    assert len({r.stderr for r in results}) == 1


def test_the_tournament_plot_is_checked_before_any_match_is_played(tmp_path):
    res = runner.invoke(
        app, ["tournament", "random", "greedy", "-n", "1", "--out", str(tmp_path / "t"), "--plot", "x.xyz"]
    )
    assert res.exit_code == 2 and "must end in .png or .svg or .pdf" in res.stderr
    assert not (tmp_path / "t").exists()


def test_a_corrupt_log_is_a_failure_while_working(small_run, tmp_path):  # noqa: F811
    run = tmp_path / "run"
    shutil.copytree(small_run, run)
    part = run / "deals-00000.jsonl"
    lines = part.read_text().splitlines(keepends=True)
    lines[2] = lines[2][:50] + "\n"
    part.write_text("".join(lines))
    res = runner.invoke(app, ["analyze", str(run)])
    assert res.exit_code == 1
    assert res.stderr.splitlines() == [res.stderr.strip()] and f"{part}:3:" in res.stderr


def test_ctrl_c_is_one_line_and_exit_130(small_run, monkeypatch):  # noqa: F811
    import guandan_cli.reports.reduce as reduce

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(reduce, "reduce_runs", interrupted)  # what analyze reads the runs with
    res = runner.invoke(app, ["analyze", str(small_run)])
    assert res.exit_code == 130
    assert res.stderr.splitlines() == ["guandan: interrupted"]


def test_good_input_still_works(small_run):  # noqa: F811
    res = runner.invoke(app, ["plays", "S3 S3 D4", "--top", "single:3 C3"])
    assert res.exit_code == 0 and "single:4 D4" in res.stdout
    res = runner.invoke(app, ["plays", "S3 S3 D4"])
    assert res.exit_code == 0 and "pair:3 S3 S3" in res.stdout
    assert runner.invoke(app, ["--version"]).exit_code == 0
    assert runner.invoke(app, ["analyze", "--help"]).exit_code == 0


def test_an_unknown_option_suggests_only_close_names():
    res = runner.invoke(app, ["simulate", "--bogus"])
    assert res.exit_code == 2 and len(res.stderr.splitlines()) == 1, res.stderr
    assert res.stderr.startswith("guandan: error: ") and "--bogus" in res.stderr
    assert res.stderr.endswith(" (see 'guandan simulate --help')\n") and "--out" not in res.stderr
    res = runner.invoke(app, ["analyze", "x", "--reprot", "bombs"])
    assert res.exit_code == 2 and "--report" in res.stderr and "--plots" not in res.stderr


@pytest.mark.parametrize(
    ("argv", "option"),
    [
        (["simulate", "-n", "1_0", "-o", "{tmp}/r"], "'--matches' / '-n'"),
        (["simulate", "--seed", "-1_0", "-o", "{tmp}/r"], "'--seed'"),
        (["verify", "{tmp}", "--max-problems", "2_00"], "'--max-problems'"),
        (["tournament", "random", "greedy", "-n", "1_0", "-o", "{tmp}/t"], "'--matches' / '-n'"),
    ],
)
def test_a_whole_number_with_an_underscore_is_bad_input(tmp_path, argv, option):
    # Python's int() reads "1_0" as 10: a typo for 10 or 1,0 ran 10 matches without a word
    res = runner.invoke(app, [a.format(tmp=tmp_path) for a in argv])
    assert res.exit_code == 2, res.output
    assert res.stderr.startswith("guandan: error: ") and option in res.stderr, res.stderr
    assert "is not a valid integer: no underscores (Python would read it as " in res.stderr
    assert (
        len(res.stderr.splitlines()) == 1 and not (tmp_path / "r").exists() and not (tmp_path / "t").exists()
    )


def test_deals_parts_alone_leave_the_match_reports_out_of_all(small_run):  # noqa: F811
    res = runner.invoke(app, ["analyze", str(small_run / "deals-00000.jsonl")])
    assert res.exit_code == 0, res.output
    assert "note: match-length, strategy-matches left out" in res.stderr
    assert "match-length:" not in res.stdout and "bombs:" in res.stdout


def test_a_decimal_with_an_underscore_is_bad_input(tmp_path):
    # Python's float() reads "0_5" as 5.0 (and serve's "--timeout 1_0.5" as 10.5: same check)
    res = runner.invoke(app, ["play", "--delay", "0_5", "-o", str(tmp_path / "p")], input="")
    assert res.exit_code == 2, res.output
    assert "'0_5' is not a valid number: no underscores (Python would read it as 5.0)" in res.stderr
    assert len(res.stderr.splitlines()) == 1 and not any(tmp_path.iterdir())


def test_an_output_folder_under_a_file_names_the_file(small_run, tmp_path):  # noqa: F811
    blocker = tmp_path / "afile.txt"
    blocker.write_text("not a folder\n")
    res = runner.invoke(app, ["analyze", str(small_run), "--plots", str(blocker / "figures")])
    assert res.exit_code == 2
    assert res.stderr == (
        f"guandan: error: --plots {blocker / 'figures'}: {blocker} is a file, not a folder;"
        " give a folder to write into\n"
    )
    res = runner.invoke(app, ["tournament", "random", "greedy", "-n", "1", "--plot", str(blocker / "p.png")])
    assert res.exit_code == 2 and f"{blocker} is a file, not a folder" in res.stderr
    for args in (["simulate", "-n", "1", "-q"], ["compare", "random", "greedy", "-n", "1"]):
        res = runner.invoke(app, [*args, "-o", str(blocker / "x")])
        assert res.exit_code == 2, res.output
        assert res.stderr.startswith(f"guandan: error: cannot write to output {blocker / 'x'}")
        assert res.stderr.endswith(f": {blocker} is a file, not a folder\n"), res.stderr


def test_replay_and_review_refuse_a_part_changed_since_it_was_written(tmp_path):
    from guandan_cli import simulate

    run = simulate(3, strategies="random", max_deals=2, workers=1, out=tmp_path / "run").path
    part = run / "deals-00000.jsonl"
    lines = part.read_bytes().splitlines(keepends=True)
    # a legal-looking edit of the last line (a deal the viewers are not asked about): only the
    # manifest's sha256 can tell
    lines[-1] = lines[-1].replace(b'"deal":', b'"deal": ', 1)
    part.write_bytes(b"".join(lines))
    for args in (["replay", str(run), "--match", "0"], ["review", str(run), "--match", "0", "--worlds", "2"]):
        res = runner.invoke(app, args)
        assert res.exit_code == 2, res.output
        assert res.stderr.startswith(f"guandan: error: {part}: changed since it was written: it holds ")
        assert len(res.stderr.splitlines()) == 1

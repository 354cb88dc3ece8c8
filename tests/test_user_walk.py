"""Findings of a walk through every command as a demanding new user (one test per fix).

Each test failed before its fix: a bot file that does not load, a truncated log given to
replay, output wider than a terminal, intervals that claim more than the data holds.
"""

from __future__ import annotations

import math
import shutil

import polars as pl
import pytest
from click.testing import CliRunner
from report_fixtures import small_run  # noqa: F401  (fixture)

from guandan_cli.cli.app import app

runner = CliRunner()


def _one_error_line(res) -> str:
    lines = res.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("guandan: error: "), res.output
    assert "Traceback" not in res.output
    return lines[0]


def test_a_bot_file_with_a_syntax_error_is_one_line_naming_file_and_line(tmp_path):
    bot = tmp_path / "broken.py"
    bot.write_text("x = 1\nsyntax error(\n")
    res = runner.invoke(app, ["compare", f"{bot}:X", "greedy", "-n", "1", "--out", str(tmp_path / "c")])
    assert res.exit_code == 2
    line = _one_error_line(res)
    assert f"{bot}:2: SyntaxError" in line


def test_a_bot_file_that_raises_on_import_is_one_line(tmp_path):
    bot = tmp_path / "badimport.py"
    bot.write_text("import no_such_module_anywhere\n")
    res = runner.invoke(app, ["compare", "greedy", f"{bot}:X", "-n", "1", "--out", str(tmp_path / "c")])
    assert res.exit_code == 2
    assert "ModuleNotFoundError: No module named 'no_such_module_anywhere'" in _one_error_line(res)


def test_one_pair_gives_no_interval_and_no_verdict(tmp_path):
    from guandan_cli import compare

    res = compare(
        "heuristic", "random", matches=1, seed=3, max_deals=3, workers=1, out=tmp_path, progress=False
    )
    assert res.level_gain > 0
    assert "heuristic ≈ random:" in res.verdict() and "levels/deal [–, –]" in res.verdict()


def test_four_pairs_get_the_small_sample_width():
    """From 4 units the plain percentile bootstrap is far narrower than a t interval
    (mean ± 3.18·sd/2); the expanded one reaches the resamples' extremes, the values' range."""
    from guandan_cli.stats import bootstrap_mean_interval, bootstrap_ratio_interval

    values = [1.0, 2.0, 3.0, 10.0]
    assert bootstrap_mean_interval(values, seed=1) == (1.0, 10.0)
    assert bootstrap_ratio_interval(values, [1, 1, 1, 1], seed=1) == (1.0, 10.0)


def test_replay_fits_a_terminal_and_a_truncated_log_is_a_failure(small_run, tmp_path):  # noqa: F811
    from guandan_cli.logreaders.replay import _columns

    res = runner.invoke(app, ["replay", str(small_run), "--match", "0", "--deal", "0"])
    assert res.exit_code == 0
    assert max(_columns(line) for line in res.stdout.splitlines()) <= 100, res.stdout
    run = tmp_path / "run"
    shutil.copytree(small_run, run)
    part = run / "deals-00000.jsonl"
    part.write_bytes(part.read_bytes()[:-40])  # the last line cut short, as by a crash
    last = part.read_text().count("\n") + 1
    res = runner.invoke(app, ["replay", str(run), "--match", "3", "--deal", "99"])
    assert res.exit_code == 1  # a corrupt log is a failure while working, not bad input
    assert f"{part}:{last}: truncated line" in _one_error_line(res)


def test_the_play_menu_and_help_fit_a_terminal(tmp_path, monkeypatch):
    """``h`` at a lead with 39 plays listed them on lines up to 297 columns wide."""
    answers = "1\nh\nq\n"  # seed 7, seat 0: the second question is a lead with 43 plays
    monkeypatch.chdir(tmp_path)
    argv = ["play", "--seat", "0", "-s", "heuristic", "--seed", "7", "--plain", "--delay", "0", "--out", "p"]
    res = runner.invoke(app, argv, input=answers)
    assert res.exit_code == 0 and "43 plays" in res.stdout  # q saves and stops: exit 0
    # piped answers are not echoed, so a prompt and the next line share a line: split them
    lines = [part for line in res.stdout.splitlines() for part in line.split(" > ")]
    assert "full house: 23)" in res.stdout
    assert max(len(line) for line in lines) <= 100, max(lines, key=len)


def test_a_count_never_seen_has_an_upper_bound_above_zero(small_run):  # noqa: F811
    """bombs: 109 deals without an 8-card bomb printed `per_deal 0.000 [0.000, 0.000]`."""
    from guandan_cli.reports import load
    from guandan_cli.reports.bombs import bombs

    data = load(small_run)
    table = bombs(data.deals)
    never = table.filter(pl.col("bombs") == 0)
    assert never.height > 0  # 9- and 10-card bombs are rare: none in a small run
    n = never["deals"].to_list()[0]
    for row in never.iter_rows(named=True):
        assert row["per_deal"] == 0 and row["per_deal_lo"] == 0
        assert row["per_deal_hi"] == pytest.approx(-math.log(0.025) / n)  # exact Poisson bound


def _saved_game(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    argv = ["play", "--seat", "0", "-s", "heuristic", "--seed", "7", "--plain", "--delay", "0", "--out", "p"]
    assert runner.invoke(app, argv, input="1\n1\nq\n").exit_code == 0  # q: saved, exit 0
    return tmp_path / "p" / "human.jsonl"


def test_play_resume_names_a_bad_saved_answer_line(tmp_path, monkeypatch):
    """A saved answer without "answer" failed as `KeyError: 'answer'` blamed on the strategy;
    a complete garbage last line was dropped silently as if cut by a crash."""
    journal = _saved_game(tmp_path, monkeypatch)
    good = journal.read_text()
    for extra, problem in [
        ('{"deal": 0, "phase": "play", "action": "S3"}\n', "expected {"),
        ('{"deal": 0, "phase": "play", "answer": "pair:3 S3"}\n', "answer 'pair:3 S3': bad combo"),
        ("garbage\n", "not a JSON line"),
    ]:
        journal.write_text(good + extra)
        res = runner.invoke(app, ["play", "--resume", "--out", "p", "--delay", "0"], input="q\n")
        assert res.exit_code == 2, res.output
        assert f"human.jsonl:3: {problem}" in _one_error_line(res)
    journal.write_text(good + '{"deal": 0, "pha')  # cut by a crash: dropped, the game goes on
    res = runner.invoke(app, ["play", "--resume", "--out", "p", "--delay", "0"], input="q\n")
    assert res.exit_code == 0 and journal.read_text() == good


def test_bench_checks_strategies_and_names_the_option():
    """`bench --strategies nope` timed legal_plays first, then ended in a traceback."""
    res = runner.invoke(app, ["bench", "--strategies", "nope", "--positions", "5", "--no-startup"])
    assert res.exit_code == 2
    line = _one_error_line(res)
    assert line.startswith("guandan: error: --strategies: unknown strategy 'nope'")
    assert "legal_plays" not in res.stdout  # refused before any work
    res = runner.invoke(app, ["bench", "--workers", "0"])
    assert res.exit_code == 2 and _one_error_line(res) == "guandan: error: --workers must be positive, got 0"


def test_experiment_intervals_use_t_and_none_from_one_pair():
    """A tribute kind seen in 1 setup printed `+0.0000 [+0.0000, +0.0000]`; 5 pairs used 1.96."""
    import statistics

    from guandan_cli.experiments import paired_effects

    def frame(wins):
        return pl.DataFrame(
            {"match": list(range(len(wins))), "win": wins, "upgrade": wins, "first_out": wins}
        )

    one = paired_effects(frame([1]), frame([1])).row(0, named=True)
    assert one["pairs"] == 1 and math.isnan(one["effect_lo"]) and math.isnan(one["effect_hi"])
    a, b = [3, 2, 2, 1, 3], [1, 2, 1, 1, 2]  # upgrade differences 2, 0, 1, 0, 1: mean 0.8
    row = paired_effects(frame(a), frame(b)).row(1, named=True)
    sd = statistics.stdev([2, 0, 1, 0, 1])
    assert row["effect_hi"] - row["effect"] == pytest.approx(2.7764 * sd / 5**0.5, rel=1e-4)  # t(4)


def test_experiment_file_is_strict_json_when_a_kind_has_one_pair(tmp_path):
    import json

    from guandan_cli.experiments import EXPERIMENTS, run_experiment

    res = run_experiment(EXPERIMENTS["tribute"], 4, strategies="random", seed=0, out=tmp_path, workers=1)
    assert 1 in res.by_kind["pairs"].to_list()  # some tribute kind seen once: no interval

    def refuse(constant):
        raise ValueError(f"{constant} is not JSON")

    data = json.loads((res.out / "effects.json").read_text(), parse_constant=refuse)
    assert any(row["effect_lo"] is None for row in data["by_kind"])


@pytest.mark.parametrize("url", ["ws://127.0.0.1:99999/game/x", "ws://127.0.0.1:abc/game/x", "ws:///game/x"])
def test_connect_refuses_a_bad_port_or_host_in_one_line(url):
    """`connect ws://127.0.0.1:99999/game/x` was a traceback (ValueError: Port out of range)."""
    pytest.importorskip("websockets", reason="the protocol extra is not installed")
    res = runner.invoke(app, ["connect", url, "--retry-for", "0"])
    assert res.exit_code == 2
    assert f"bad server address {url!r}" in _one_error_line(res)


def test_a_gain_that_is_always_zero_is_not_certain():
    """tribute: 150 paying deals all gaining 0 levels printed `0.000 [0.000, 0.000]`."""
    from guandan_cli.reports.stats import mean_ci_aggs

    frame = pl.DataFrame({"side": ["paying"] * 150 + ["receiving"] * 150, "gain": [0] * 150 + [3, 2] * 75})
    out = frame.group_by("side").agg(mean_ci_aggs(pl.col("gain"), "m", counts=True)).sort("side")
    paying, receiving = out.rows(named=True)
    assert (paying["m"], paying["m_lo"]) == (0.0, 0.0)
    assert paying["m_hi"] == pytest.approx(-math.log(0.025) / 150)
    assert receiving["m_lo"] < 2.5 < receiving["m_hi"]  # values with spread: the usual interval


def test_verify_refuses_a_negative_max_problems(small_run):  # noqa: F811
    """`verify RUN --max-problems -1` on a good run printed "… and 1 more" (of 0 problems)."""
    res = runner.invoke(app, ["verify", str(small_run), "--max-problems", "-1", "-q"])
    assert res.exit_code == 2
    assert _one_error_line(res) == "guandan: error: --max-problems must be 0 or more, got -1"


@pytest.mark.parametrize("hand", ["", "   "])
def test_plays_refuses_an_empty_hand(hand):
    """`guandan plays ""` printed `hand:   (level 2, 0 plays)` and exit 0."""
    res = runner.invoke(app, ["plays", hand])
    assert res.exit_code == 2
    line = _one_error_line(res)  # the one-line style folds runs of spaces in the quoted hand
    assert line.startswith("guandan: error: HAND '") and "': no cards; give card tokens" in line


def _edited_run(small_run, tmp_path, edit):  # noqa: F811
    """A copy of ``small_run`` whose first deal line is ``edit``-ed (a log edited by hand)."""
    run = tmp_path / "edited"
    shutil.copytree(small_run, run)
    part = run / "deals-00000.jsonl"
    lines = part.read_text().splitlines()
    lines[0] = edit(lines[0]) if callable(edit) else edit
    part.write_text("\n".join(lines) + "\n")
    return run, part


def _json_edit(**fields):
    import json

    def edit(line: str) -> str:
        rec = json.loads(line)
        for k, v in fields.items():
            rec[k] = v(rec[k]) if callable(v) else v
        return json.dumps(rec, separators=(",", ":"))

    return edit


@pytest.mark.parametrize(
    "edit, reason",
    [
        ("not json at all", "not valid JSON"),  # exit 2 before: caught as bad input
        (_json_edit(deal="0"), "expected int"),
        (_json_edit(strategies=["greedy"]), "strategies"),  # IndexError traceback before
        (_json_edit(hands=lambda h: [h[1], *h[1:]]), "faces dealt more than twice"),  # ValueError traceback
        (_json_edit(ruleset="poker"), "unknown ruleset"),  # exit 2, no file:line before
        (_json_edit(actions=lambda a: [a[0], a[0], *a[2:]]), "cannot play"),  # no file:line before
        # the first action logged for another seat: watch showed it for the seat to move
        (_json_edit(actions=lambda a: [f"{(int(a[0][0]) + 1) % 4}{a[0][1:]}", *a[1:]]), "turn"),
    ],
)
@pytest.mark.parametrize("command", ["watch", "replay"])
def test_a_log_edited_by_hand_is_a_failure_naming_file_and_line(small_run, tmp_path, command, edit, reason):  # noqa: F811
    run, part = _edited_run(small_run, tmp_path, edit)
    args = [command, str(run), "--match", "0"] + (["--delay", "0", "--plain"] if command == "watch" else [])
    res = runner.invoke(app, args)
    line = _one_error_line(res)
    assert res.exit_code == 1, res.output  # a corrupt log is a failure while working, not bad input
    assert f"{part}:1: " in line and reason in line, line


def test_an_experiment_refuses_an_out_holding_another_experiment(tmp_path):
    import json

    out = tmp_path / "exp"
    args = ["--deals", "2", "-s", "random", "-w", "1", "-q", "--out", str(out)]
    assert runner.invoke(app, ["experiment", "tribute", *args]).exit_code == 0
    res = runner.invoke(app, ["experiment", "resistance", *args])
    line = _one_error_line(res)  # it ran, and its effects.json replaced the tribute one
    assert res.exit_code == 2 and str(out) in line and "tribute" in line, line
    assert json.loads((out / "effects.json").read_text())["experiment"] == "tribute"
    assert not (out / "resisted").exists()  # refused before any work
    res = runner.invoke(app, ["experiment", "resistance", *args, "--force"])
    assert res.exit_code == 0, res.output
    assert json.loads((out / "effects.json").read_text())["experiment"] == "resistance"


def test_simulate_into_a_saved_game_says_to_resume_it_with_play(tmp_path, monkeypatch):
    """simulate -o GAME blamed "strategy 'human'", a name the user never typed."""
    _saved_game(tmp_path, monkeypatch)
    for extra in ([], ["--resume"]):
        res = runner.invoke(app, ["simulate", "-q", "-o", "p", *extra])
        line = _one_error_line(res)
        assert res.exit_code == 2 and "guandan play --resume --out p" in line, line


def test_serve_refuses_an_out_whose_disk_is_full_before_listening(tmp_path, monkeypatch):
    """serve listened and waited for clients, then failed once they had connected."""
    import shutil as shutil_module

    real = shutil_module.disk_usage
    monkeypatch.setattr("guandan_cli.logs.layout.shutil.disk_usage", lambda p: real(p)._replace(free=1000))
    monkeypatch.chdir(tmp_path)
    res = runner.invoke(
        app, ["serve", "-s", "heuristic,remote", "-n", "3", "-o", "sv", "--port", "0", "--connect-wait", "1"]
    )
    line = _one_error_line(res)
    assert res.exit_code == 2 and "free" in line, line
    assert "listening" not in res.output


def test_serve_refuses_an_unfinished_run_of_another_configuration_before_listening(tmp_path, monkeypatch):
    """serve listened and waited for clients on a run it could not continue (found out after they came)."""
    import json

    monkeypatch.chdir(tmp_path)
    assert (
        runner.invoke(app, ["simulate", "-n", "2", "-s", "random", "-w", "1", "-q", "-o", "u"]).exit_code == 0
    )
    manifest = tmp_path / "u" / "manifest.json"
    data = json.loads(manifest.read_text())
    data["state"] = "interrupted"  # as after Ctrl-C
    manifest.write_text(json.dumps(data))
    base = ["serve", "-o", "u", "--port", "0", "--connect-wait", "1", "-n", "2"]
    for extra, named in [(["-s", "random,remote"], "strategies"), (["-s", "remote", "--seed", "3"], "seed")]:
        res = runner.invoke(app, [*base, *extra])
        line = _one_error_line(res)
        assert res.exit_code == 2 and "another configuration" in line and named in line, line
        assert "listening" not in res.output


def test_analyze_by_a_grouping_named_twice_counts_it_once(small_run):  # noqa: F811
    """--by seat,seat failed as "reading … failed: group_by keys contained duplicate output name"."""
    once = runner.invoke(app, ["analyze", str(small_run), "-r", "strategy-deals", "--by", "seat"])
    twice = runner.invoke(app, ["analyze", str(small_run), "-r", "strategy-deals", "--by", "seat,seat"])
    assert once.exit_code == 0 and twice.exit_code == 0, twice.output
    assert twice.stdout == once.stdout


def _two_bots_named_mine(tmp_path, monkeypatch) -> None:
    """``a.py:Mine`` (a greedy bot) and ``b.py:Mine`` (a random one), both named "mine", in the working folder."""
    monkeypatch.chdir(tmp_path)
    for file, base in [
        ("a.py", "greedy import GreedyStrategy"),
        ("b.py", "random_bot import RandomStrategy"),
    ]:
        parent = base.rpartition(" ")[2]
        (tmp_path / file).write_text(
            f'from guandan_cli.strategies.{base}\n\n\nclass Mine({parent}):\n    name = "mine"\n'
        )


def test_tournament_names_the_specs_of_two_bots_with_one_name(tmp_path, monkeypatch):
    """tournament a.py:Mine b.py:Mine said "mine given more than once", a name never typed."""
    _two_bots_named_mine(tmp_path, monkeypatch)
    res = runner.invoke(app, ["tournament", "a.py:Mine", "b.py:Mine", "-n", "1"])
    line = _one_error_line(res)
    assert res.exit_code == 2 and "a.py:Mine" in line and "b.py:Mine" in line and "'mine'" in line, line
    res = runner.invoke(app, ["tournament", "greedy", "random", "greedy", "-n", "1"])
    assert "greedy given more than once" in _one_error_line(res)


def test_compare_tells_two_bots_with_one_name_apart_by_their_specs(tmp_path, monkeypatch):
    """compare a.py:Mine b.py:Mine printed "mine > mine" and "matches won by mine: 2, by mine: 0"."""
    _two_bots_named_mine(tmp_path, monkeypatch)
    res = runner.invoke(app, ["compare", "a.py:Mine", "b.py:Mine", "-n", "2", "-w", "1", "-q"])
    assert res.exit_code == 0, res.output
    assert "mine > mine" not in res.stdout and "a.py:Mine > b.py:Mine" in res.stdout, res.stdout


@pytest.mark.parametrize(
    "key, value, message",
    [
        ("tribute", "x", "config.tribute must be null or one of on, off, paid, got 'x'"),
        ("setups", 5, "config.setups must be null or a setup source"),
    ],
)
def test_a_manifest_with_an_unknown_tribute_mode_or_setups_is_refused_naming_the_field(
    tmp_path, key, value, message
):
    """config.tribute 'x' was accepted by analyze and verify, and replay blamed a deal line for it."""
    import json

    run = tmp_path / "run"
    assert (
        runner.invoke(app, ["simulate", "-n", "1", "-s", "random", "-w", "1", "-q", "-o", str(run)]).exit_code
        == 0
    )
    manifest = run / "manifest.json"
    data = json.loads(manifest.read_text())
    data["config"][key] = value
    manifest.write_text(json.dumps(data))
    for command in ("analyze", "verify", "replay"):
        res = runner.invoke(app, [command, str(run)])
        line = _one_error_line(res)
        assert res.exit_code == 2 and f"{manifest}: {message}" in line, (command, line)


@pytest.mark.parametrize("option", ["--max-deals", "--a-fail-limit"])
def test_play_names_the_option_of_a_bad_cap(tmp_path, option):
    """play said "max_deals must be a positive number of deals", the Python name, not the option."""
    res = runner.invoke(app, ["play", option, "0", "--out", str(tmp_path / "p")])
    line = _one_error_line(res)
    assert res.exit_code == 2 and f"{option} must be a positive whole number, got 0" in line, line


@pytest.mark.parametrize(
    "argv, given",
    [
        (["simulate", "--seed", "1e3"], "'1e3'"),
        (["simulate", "-n", "abc"], "'abc'"),
        (["simulate", "--matches=2.5"], "'2.5'"),
        (["verify", "x", "-w", ""], "''"),
        (["watch", "--seed", "1", "--delay", "soon"], "'soon'"),
    ],
)
def test_a_value_of_the_wrong_type_is_named_in_the_error(argv, given):
    """`--seed 1e3` said "Invalid value for '--seed': Input should be a valid integer…" without the value."""
    res = runner.invoke(app, argv)
    line = _one_error_line(res)
    assert res.exit_code == 2 and f"{given} is not a valid " in line, line
    assert line.endswith(f" (see 'guandan {argv[0]} --help')"), line


def test_replay_of_a_match_outside_the_run_names_its_matches(tmp_path):
    """QA: ``replay RUN --match 99`` said "no match 99 in RUN" without the range ``watch`` gives."""
    run = tmp_path / "run"
    made = runner.invoke(app, ["simulate", "-n", "2", "-s", "random", "--max-deals", "1", "-o", str(run)])
    assert made.exit_code == 0, made.output
    res = runner.invoke(app, ["replay", str(run), "--match", "99"])
    assert res.exit_code == 2
    assert f"no match 99 in {run}: its matches are 0..1" in res.stderr, res.stderr


def test_play_on_a_full_disk_is_refused_before_its_opening_line():
    """QA: ``play -o /sys/p`` printed "guandan play: seed …, the game is saved in /sys/p" and
    only then the disk-space refusal."""
    import os

    if not os.path.isdir("/sys") or shutil.disk_usage("/sys").free > 10_000:
        pytest.skip("needs /sys, a file system with no free space (Linux)")
    res = runner.invoke(app, ["play", "-o", "/sys/guandan-play", "--seed", "3"], input="")
    assert res.exit_code == 2, res.output
    assert res.stdout == "" and "free on /sys" in res.stderr, res.output


def test_replay_and_watch_of_a_match_that_errored_before_its_first_deal_say_so(tmp_path):
    """QA: a match recorded as errored in deal 0 (``--on-error record``, a ``serve`` client
    that answered out of range) has a match record and no deal line: ``replay``/``watch``
    said "no match 0 in RUN" although ``analyze`` counts it."""
    bot = tmp_path / "boom.py"
    bot.write_text(
        "from guandan_cli.strategies.base import Strategy\n\n"
        "class Boom(Strategy):\n"
        "    name = 'boom'\n\n    def choose_play(self, obs):\n"
        "        raise RuntimeError('boom')\n"
    )
    run = tmp_path / "run"
    args = [
        "simulate",
        "-n",
        "1",
        "-s",
        f"{bot}:Boom,random",
        "--on-error",
        "record",
        "-w",
        "1",
        "-o",
        str(run),
    ]
    made = runner.invoke(app, args)
    assert made.exit_code == 0, made.output
    for argv in (["replay", str(run), "--match", "0"], ["watch", str(run), "--match", "0", "--delay", "0"]):
        res = runner.invoke(app, argv)
        line = _one_error_line(res)
        assert res.exit_code == 2
        assert line.startswith("guandan: error: match 0 has no finished deal: it ended with an error"), line
        assert "RuntimeError: boom" in line, line

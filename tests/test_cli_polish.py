"""Findings of a new user's walk through compare, plays, serve, experiment and the Python API
(session 13 polish; one test per fix, each failing before it)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from guandan_cli.cli.app import app

runner = CliRunner()
README = Path(__file__).parent.parent / "README.md"


@pytest.mark.parametrize("level", ["Z", "SB", "HR", "1"])
def test_a_bad_level_names_only_the_levels(level):
    """``--level Z`` listed ``SB HR`` among the expected levels (the ranks' tokens, not the levels')."""
    res = runner.invoke(app, ["plays", "S3", "--level", level])
    assert res.exit_code == 2
    [line] = res.stderr.splitlines()
    assert line.startswith(f"guandan: error: --level {level!r}: a level is one of 2 3 4 5 6 7 8 9 T J Q K A")
    assert "SB" not in line.replace(repr(level), "") and "HR" not in line.replace(repr(level), "")


def test_a_level_may_be_written_10_or_lower_case():
    res = runner.invoke(app, ["plays", "S3 H4", "--level", "10"])
    assert res.exit_code == 0 and "(level T, 2 plays)" in res.stdout
    res = runner.invoke(app, ["plays", "S3 H4", "--level", " q"])
    assert res.exit_code == 0 and "(level Q, 2 plays)" in res.stdout


@pytest.mark.parametrize(
    "first",
    [
        "import guandan_cli.runner.simulation",
        "import guandan_cli",
        "from guandan_cli import simulate",
        "pass",
    ],
)
def test_runner_simulate_is_the_function_whatever_was_imported_first(first):
    """Once the module ``guandan_cli.runner.simulate`` was imported it shadowed the lazy
    ``simulate`` function of the package: the module is now ``runner.simulation``."""
    code = (
        f"{first}\n"
        "from guandan_cli.runner import simulate\n"
        "import guandan_cli.runner as r, guandan_cli.runner.simulation as m\n"
        "import guandan_cli\n"
        "assert callable(simulate) and simulate is m.simulate is r.simulate, simulate\n"
        "assert guandan_cli.runner.simulate is simulate\n"
        "from guandan_cli.runner import SimulationError, parse_strategies\n"
        "assert SimulationError is m.SimulationError and parse_strategies is m.parse_strategies\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr


def test_no_runner_submodule_shadows_a_name_the_package_exports():
    """Every submodule imported first, each lazy name of ``guandan_cli.runner`` is still the object."""
    code = (
        "import importlib, pkgutil, types\n"
        "import guandan_cli.runner as r\n"
        "for info in pkgutil.iter_modules(r.__path__):\n"
        "    importlib.import_module(f'guandan_cli.runner.{info.name}')\n"
        "bad = [n for n in r.__all__ if isinstance(getattr(r, n), types.ModuleType)]\n"
        "assert not bad, f'submodules shadow the exported names {bad}'\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr


def test_all_units_at_the_bound_get_the_clopper_pearson_bound():
    from guandan_cli.stats import agreeing_units_interval, bootstrap_mean_interval, bootstrap_ratio_interval

    # Clopper-Pearson 95% for 10 of 10 and 3 of 3 successes (published tables): [0.6915, 1], [0.2924, 1]
    assert [round(agreeing_units_interval(1.0, n, 0.0, 1.0)[0], 4) for n in (10, 3)] == [0.6915, 0.2924]
    assert agreeing_units_interval(0.0, 10, 0.0, 1.0) == (0.0, 1 - agreeing_units_interval(1.0, 10, 0, 1)[0])
    # on the level-gain scale [-3, 3]: the proportion's bound mapped linearly
    lo, hi = agreeing_units_interval(3.0, 10, -3.0, 3.0)
    assert hi == 3.0 and lo == pytest.approx(-3 + 6 * 0.69150, abs=1e-4)
    # pairs of unequal length (match mode), every one at +3 levels per deal
    gains, deals = [30, 27, 33, 36], [10, 9, 11, 12]
    assert bootstrap_ratio_interval(gains, deals) == (3.0, 3.0)  # the zero-width bootstrap
    assert bootstrap_ratio_interval(gains, deals, bounds=(-3, 3)) == agreeing_units_interval(3.0, 4, -3, 3)
    assert bootstrap_mean_interval([0.5] * 5, bounds=(0, 1)) == agreeing_units_interval(0.5, 5, 0, 1)
    # values that differ keep the bootstrap
    assert bootstrap_ratio_interval([30, 26], [10, 9], bounds=(-3, 3)) == bootstrap_ratio_interval(
        [30, 26], [10, 9]
    )


def test_pairs_that_all_agree_do_not_give_a_zero_width_interval(tmp_path):
    """``compare heuristic random --duplicate deal -n 3`` printed ``+3.00 [3.00, 3.00]``, ``deals 100% [100, 100]``."""
    from guandan_cli import compare
    from guandan_cli.stats import agreeing_units_interval

    ab = compare("heuristic", "random", 3, seed=0, duplicate="deal", workers=1, out=tmp_path, notify=None)
    assert ab.pairs["a_level_gain"].to_list() == [6, 6, 6]  # every deal won by 3 levels
    assert ab.level_gain_ci == agreeing_units_interval(3.0, 3, -3.0, 3.0)
    assert ab.deal_ci == ab.first_out_ci == agreeing_units_interval(1.0, 3, 0.0, 1.0)
    assert ab.verdict() == (
        "heuristic ≈ random: +3.00 levels/deal [-1.25, 3.00], deals 100% [29, 100], first out 100% [29, 100]"
    )
    ba = compare("random", "heuristic", 3, seed=0, duplicate="deal", workers=1, out=tmp_path, notify=None)
    assert ba.level_gain_ci == (-ab.level_gain_ci[1], -ab.level_gain_ci[0])  # A/B swap still negates exactly
    assert ba.deal_ci == pytest.approx((1 - ab.deal_ci[1], 1 - ab.deal_ci[0]))
    itself = compare(
        "heuristic", "heuristic", 3, seed=0, duplicate="deal", workers=1, out=tmp_path, notify=None
    )
    assert itself.level_gain_ci == (0.0, 0.0) and itself.deal_ci == (0.5, 0.5)  # exact by construction


def test_a_printed_interval_is_rounded_outward():
    """2005 deals won of 2005 printed ``deals 100% [100, 100]`` (Wilson's low end is 99.8%)."""
    from guandan_cli.comparison import CompareResult

    res = CompareResult(
        a="heuristic", b="random", matches=200, seed=0, paired=True, pairs=None, match_wins=400,
        match_losses=0, match_unfinished=0, deal_wins=2005, deals=2005, level_gain=2.9975,
        level_gain_ci=(2.99552, 2.99950),
    )  # fmt: skip
    assert res.verdict() == (
        "heuristic > random: +3.00 levels/deal [2.99, 3.00], matches 100% [99, 100], deals 100% [99, 100]"
    )


def test_a_run_summary_fits_100_columns_with_long_strategy_specs(tmp_path):
    """``guandan serve`` printed ``team 0 (seats 0,2: guandan_cli.protocol.remote:NAME,…)`` in 117+
    columns; a bot file deep in a folder did the same in ``simulate``."""
    folder = tmp_path / "bots_of_the_research_group" / "season_2026_submissions"
    folder.mkdir(parents=True)
    (folder / "a_rather_long_bot_module_name.py").write_text(
        "from guandan_cli.strategies.greedy import GreedyStrategy\n\n\nclass TheLongestBotClassName(GreedyStrategy):\n"
        "    name = 'longbot'\n"
    )
    spec = f"{folder}/a_rather_long_bot_module_name.py:TheLongestBotClassName"
    out = tmp_path / "r"
    args = [
        "simulate",
        "-n",
        "1",
        "-s",
        f"{spec},random",
        "--max-deals",
        "1",
        "-w",
        "1",
        "--out",
        str(out),
    ]
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    lines = [line for line in res.stdout.splitlines() if not line.startswith(("run ", "log "))]  # paths
    assert max(len(line) for line in lines) <= 100, max(lines, key=len)
    assert "team 0 (seats 0,2)  wins" in res.stdout
    assert "  seat 0: a_rather_long_bot_module_name.py:TheLongestBotClassName" in res.stdout
    assert "team 1 (seats 1,3: random,random)  wins" in res.stdout  # short names stay on the line


def test_experiment_lines_fit_100_columns(tmp_path, monkeypatch):
    """The arms line named the default output folder, 103 columns (105 for ``wrote …``)."""
    monkeypatch.chdir(tmp_path)
    out = "runs/experiment-resistance-s0-n1000"  # the default folder of the default size
    res = runner.invoke(app, ["experiment", "resistance", "-n", "2", "-w", "1", "-q", "--out", out])
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    assert max(len(line) for line in lines) <= 100, max(lines, key=len)
    assert (
        f"runs     {out}/resisted, …/paid" in lines
        and f"wrote effects.json and effect.png in {out}/" in lines
    )


def _readme_block(after: str) -> str:
    """The first ```text block of README.md after the line containing ``after``."""
    text = README.read_text(encoding="utf-8")
    start = text.index("```text\n", text.index(after)) + len("```text\n")
    return text[start : text.index("```\n", start)]


def test_the_readme_play_screen_is_what_play_prints(tmp_path, monkeypatch):
    """README showed a menu cut with ``...`` that ``play`` no longer prints."""
    import re

    monkeypatch.chdir(tmp_path)
    answers = ["S3 S3", "1", "q"]
    argv = ["play", "--seat", "0", "-s", "heuristic", "--seed", "7", "--plain", "--out", "p"]
    argv += ["--delay", "0"]  # the README's command; the pause after each bot action prints nothing
    res = runner.invoke(app, argv, input="".join(f"{a}\n" for a in answers))
    assert res.exit_code == 0, res.output  # q: saved, an ordinary stop
    screen = res.stdout
    for answer in answers:  # piped answers are not echoed: put them where a terminal shows them
        screen = re.sub(
            r"(\(cards, number, [^)]*\) >) ", lambda m, a=answer: f"{m[1]}\0{a}\n", screen, count=1
        )
    screen = screen.replace("\0", " ")
    block = _readme_block("nothing happens until an answer is legal")
    assert block.startswith("══ deal 0 ══\n") and block in screen
    assert (
        "\n43 plays: h lists them by number\n" in screen
        and "(43 at the lead that comes next" in README.read_text(encoding="utf-8")
    )


def test_the_readme_watch_screen_is_what_watch_prints():
    """README marked the seat that had played; ``watch`` marks the seat to act next."""
    res = runner.invoke(app, ["watch", "--seed", "1", "-s", "heuristic,greedy", "--plain", "--delay", "0"])
    assert res.exit_code == 0, res.output
    block = _readme_block("A screen of\n`guandan watch --seed 1 -s heuristic,greedy --plain`")
    assert block.startswith("match 0 (seed ") and block in res.stdout


def test_experiment_differences_that_all_agree_get_an_exact_interval():
    """2 setups with no difference printed ``+0.0000 [+0.0000, +0.0000]`` for every metric."""
    import polars as pl

    from guandan_cli.experiments import paired_effects
    from guandan_cli.stats import agreeing_units_interval

    frame = pl.DataFrame({"match": [0, 1], "win": [1, 0], "upgrade": [2, 0], "first_out": [0, 0]})
    rows = {r["metric"]: r for r in paired_effects(frame, frame).iter_rows(named=True)}
    assert (rows["win"]["effect_lo"], rows["win"]["effect_hi"]) == agreeing_units_interval(0.0, 2, -1, 1)
    assert rows["upgrade"]["effect_hi"] == pytest.approx(3 - 3 * 0.025**0.5)  # 2.5257
    same = paired_effects(frame, frame, same_rules=True)  # identical rules: 0 by construction
    assert same["effect_lo"].to_list() == [0.0] * 3 and same["effect_hi"].to_list() == [0.0] * 3


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["experiment", "ruleset", "-n", "2", "--ruleset", "jiangsu2017"],
            "--ruleset jiangsu2017 does not apply",
        ),
        (["serve", "-s", "remote", "--connect-wait", "0"], "--connect-wait must be positive"),
        (["serve", "-s", "remote", "--connect-wait", "-1"], "--connect-wait must be positive"),
        (
            ["compare", "greedy", "random", "-n", "0"],
            "matches (-n/--matches) must be a positive whole number",
        ),
        (["tournament", "greedy", "greedy", "-n", "1"], "strategy names must be distinct: greedy given more"),
    ],
)
def test_more_bad_input_is_one_line_naming_the_option(argv, message, tmp_path):
    """Found by trying the commands: an ignored --ruleset, a negative --connect-wait that
    listened and then failed, messages without the option's name or with a Python list."""
    res = runner.invoke(app, [*argv, "--out", str(tmp_path / "o")])
    assert res.exit_code == 2, res.output
    [line] = res.stderr.splitlines()
    assert line.startswith("guandan: error: ") and message in line, line
    assert not (tmp_path / "o").exists()


def test_one_play_is_singular():
    res = runner.invoke(app, ["plays", "S3"])
    assert res.exit_code == 0 and "(level 2, 1 play)" in res.stdout


def test_tournament_pairing_lines_fit_80_columns_with_long_names():
    """Two 22- and 24-letter names made a pairing line of 84 columns."""
    from test_tournament_tables import _result

    from guandan_cli.comparison import summarise_tournament

    names = ["a_rather_long_bot_name", "another_rather_long_name", "greedy"]
    results = {
        (x, y): _result(x, y, [1.0, 0.0], [1.0, 1.0], [3, 1])
        for i, x in enumerate(names)
        for y in names[i + 1 :]
    }
    lines = summarise_tournament(names, results).report().splitlines()
    assert max(len(line) for line in lines) <= 80, max(lines, key=len)
    assert "  a_rather_long_bot_na… ≈ another_rather_long_…: +0.20 levels/deal [-0.05, 0.45]" in lines
    assert "  a_rather_long_bot_name ≈ greedy: +0.20 levels/deal [-0.05, 0.45]" in lines

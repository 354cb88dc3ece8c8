"""The mypyc-compiled modules (``guandan_cli/native/compiled.py``) change nothing but the speed.

Each check runs in fresh processes: one with ``GUANDAN_PURE_PYTHON=1`` (the sources), one as
installed (compiled, when the install compiled them). Where nothing is compiled, the checks
that need a build skip with the reason, unless ``GUANDAN_REQUIRE_COMPILED=1`` (set by
``.ci/run``) makes them fail: CI must test the compiled modules.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from guandan_cli.native import compiled

ROOT = Path(__file__).resolve().parent.parent

#: simulate a few matches of each bot into ``out`` and print the modules that ran
DRIVER = textwrap.dedent(
    """
    import json, sys
    from pathlib import Path
    from guandan_cli import simulate
    out, bot = Path(sys.argv[1]), sys.argv[2]
    runs = (("heuristic", "heuristic", 4), ("bold", f"{bot}:Bold,heuristic", 4), ("random", "random,greedy", 20))
    for name, strategies, matches in runs:
        simulate(matches, seed=11, strategies=strategies, workers=1, out=out / name, progress=False)
    import importlib
    from guandan_cli.native.compiled import COMPILED_MODULES
    print(json.dumps([importlib.import_module(m).__file__ for m in COMPILED_MODULES]))
    """
)

#: a bot subclassing the (compiled) heuristic with other constants: the subclass's own values
#: must be the ones its compiled methods read
BOLD_BOT = textwrap.dedent(
    """
    from guandan_cli.strategies.heuristic import HeuristicStrategy

    class Bold(HeuristicStrategy):
        name = "bold"
        BREAK_NORMAL = 3.0
        LEAD_SIZE_BONUS = -0.5
    """
)


def _require_compiled() -> None:
    state = compiled.status()
    if not state["compiled"]:
        if os.environ.get("GUANDAN_REQUIRE_COMPILED", "") not in ("", "0"):
            pytest.fail(f"GUANDAN_REQUIRE_COMPILED is set but the modules run as {compiled.describe()}")
        pytest.skip(f"the modules are not compiled here: {compiled.describe()}")


def _run(args: list[str], pure: bool, **kwargs) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in (compiled.PURE_ENV, "_GUANDAN_STALE_BUILD_WARNED")}
    if pure:
        env[compiled.PURE_ENV] = "1"
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, env=env, cwd=ROOT, timeout=600, **kwargs
    )


def _pure_then_compiled(code: str) -> list[str]:
    """The standard output of ``python -c code`` pure, then compiled; asserts both succeed and
    print the same."""
    outs = []
    for pure in (True, False):
        proc = _run(["-c", code], pure)
        assert proc.returncode == 0, proc.stderr
        outs.append(proc.stdout)
    assert outs[0] == outs[1]
    return outs


def _deal_bytes(run_dir: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(run_dir.glob("deals-*.jsonl*")))


def test_compiled_and_pure_python_write_the_same_logs(tmp_path):
    _require_compiled()
    bot = tmp_path / "bold.py"
    bot.write_text(BOLD_BOT)
    files = {}
    for pure in (True, False):
        out = tmp_path / ("pure" if pure else "compiled")
        proc = _run(["-c", DRIVER, str(out), str(bot)], pure)
        assert proc.returncode == 0, proc.stderr
        assert proc.stderr == ""
        files[pure] = json.loads(proc.stdout.splitlines()[-1])
    assert all(f.endswith(".py") for f in files[True])
    assert not any(f.endswith(".py") for f in files[False])
    for name in ("heuristic", "bold", "random"):
        pure_log = _deal_bytes(tmp_path / "pure" / name)
        assert pure_log and pure_log == _deal_bytes(tmp_path / "compiled" / name), name
    # the subclass's constants took effect: its deals are not the plain heuristic's
    assert _deal_bytes(tmp_path / "compiled" / "bold") != _deal_bytes(tmp_path / "compiled" / "heuristic")


def test_a_source_edited_after_the_build_runs_instead_with_one_warning(tmp_path):
    _require_compiled()
    record = json.loads(compiled._record_path().read_text())
    record["guandan_cli.strategies.heuristic.memory"] = "0" * 64  # as if memory.py changed since the build
    fake = tmp_path / "record.json"
    fake.write_text(json.dumps(record))
    code = textwrap.dedent(
        f"""
        from pathlib import Path
        import guandan_cli.native.compiled as c
        c._record_path = lambda: Path({str(fake)!r})
        import guandan_cli.strategies.heuristic.plan as p, guandan_cli.strategies.heuristic.bot as b
        from guandan_cli.strategies.heuristic import HeuristicStrategy
        print(p.__file__, b.__file__, HeuristicStrategy.name, c.describe())
        """
    )
    proc = _run(["-c", code], pure=False)
    assert proc.returncode == 0, proc.stderr
    plan_file, bot_file, name, *describe = proc.stdout.split()
    # every compiled module falls back (they call each other directly), not just the edited one
    assert plan_file.endswith("plan.py") and bot_file.endswith("bot.py") and name == "heuristic"
    assert (
        " ".join(describe).startswith("pure Python (")
        and "memory.py changed since it was compiled" in proc.stdout
    )
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        "guandan: warning: running the pure-Python sources (slower): "
    )
    assert lines[0].endswith("`pip install -e .` rebuilds the compiled modules")


def test_the_decision_reads_the_record(tmp_path, monkeypatch):
    """No record: the sources; a record that matches: compiled (where built); pure on request."""
    _require_compiled()
    monkeypatch.delenv(compiled.PURE_ENV, raising=False)
    monkeypatch.setattr(compiled, "_record_path", lambda: tmp_path / "missing.json")
    assert compiled._decide() == (False, f"no record of the compiled sources ({tmp_path / 'missing.json'})")
    monkeypatch.undo()
    monkeypatch.delenv(compiled.PURE_ENV, raising=False)
    assert compiled._decide() == (True, "")
    monkeypatch.setenv(compiled.PURE_ENV, "1")
    assert compiled._decide() == (False, f"{compiled.PURE_ENV} is set")


def test_the_compiled_modules_doctests_pass_on_their_sources():
    """pytest collects no doctest from a module that runs compiled (conftest.py): run them here
    on the sources."""
    _require_compiled()
    # guandan_cli.strategies' doctests run by module name (tests/test_doctests.py), the engine's by path
    engine = [s for s in compiled.COMPILED_SOURCES if s.startswith("guandan_cli/")]
    proc = _run(
        [
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-n",  # a few doctests: in this process, not in pytest-xdist workers (addopts: -n auto)
            "0",
            "--doctest-modules",
            *engine,
            "tests/test_doctests.py",
        ],
        pure=True,
    )
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert " passed" in proc.stdout


def test_every_compiled_source_is_a_module_of_the_project():
    for source, module in zip(compiled.COMPILED_SOURCES, compiled.COMPILED_MODULES, strict=True):
        assert (ROOT / source).is_file()
        assert module == source[:-3].replace("/", ".").replace(
            "strategies.", "guandan_cli.strategies.", 1
        ) or (module == source[:-3].replace("/", "."))


def test_a_compiled_bot_has_its_sources_fingerprint():
    """compare reuses stored results only while a bot's code is the same (guandan_cli.strategies.fingerprint):
    a compiled module's fingerprint must hash its source files, as the pure one does (it once
    hashed none, so an edit and a rebuild kept the old fingerprint)."""
    _require_compiled()
    code = (
        "from guandan_cli.strategies.fingerprint import fingerprint as f; print(f('heuristic'), f('random'))"
    )
    outs = _pure_then_compiled(code)
    assert "'files': 0" not in outs[1]


#: odd input to the compiled modules' public functions: one line per case, the result or the
#: error's type and message (compiled, a bare "int object expected; got numpy.int64" once)
BAD_INPUT = textwrap.dedent(
    """
    import numpy as np
    from guandan_cli.engine import Combo, parse_cards
    from guandan_cli.engine.legal import all_plays, legal_plays
    from guandan_cli.strategies.heuristic import make_plan
    from guandan_cli.strategies.heuristic.plan import plan_cost

    hand = parse_cards("S3 H3 S4 D4 C5 H2 SA")
    top = Combo.from_text("pair:3 S3 D3")
    texts = lambda plays: [c.text() for c in plays]
    cases = {
        "level numpy int": lambda: texts(legal_plays(hand, np.int64(3))) == texts(legal_plays(hand, 3)),
        "level numpy int, all": lambda: texts(all_plays(hand, np.int32(3))) == texts(all_plays(hand, "5")),
        "level float": lambda: legal_plays(hand, 3.0),
        "level 13": lambda: legal_plays(hand, 13),
        "level -1": lambda: list(all_plays(hand, -1)),
        "level None": lambda: legal_plays(hand, None),
        "top list": lambda: texts(legal_plays(hand, 0, list(top))) == texts(legal_plays(hand, 0, top)),
        "top numpy rank": lambda: texts(all_plays(hand, 0, ("pair", np.int64(1), [0, 2]))) == texts(all_plays(hand, 0, top)),
        "top str": lambda: legal_plays(hand, 0, "pair:3 S3 D3"),
        "top empty": lambda: legal_plays(hand, 0, ()),
        "top bad type": lambda: legal_plays(hand, 0, ["triplet", 1, [0, 1, 2]]),
        "plan list": lambda: make_plan(list(hand), 0) == make_plan(tuple(sorted(hand)), 0),
        "plan numpy": lambda: plan_cost(np.array(hand), np.int64(3)) == plan_cost(tuple(sorted(hand)), 3),
        "plan token": lambda: make_plan(hand, "A") == make_plan(tuple(sorted(hand)), 12),
        "plan str hand": lambda: make_plan("S3 H3", 0),
        "plan 3 copies": lambda: plan_cost((0, 0, 0), 0),
        "plan level float": lambda: make_plan(hand, 1.0),
    }
    for name, case in cases.items():
        try:
            print(f"{name}: {case()}")
        except Exception as exc:
            print(f"{name}: {type(exc).__name__}: {exc}")
    """
)


def test_odd_input_to_the_compiled_functions_is_taken_or_refused_alike():
    """numpy integers, lists and level tokens are taken; anything else is refused with an
    error naming the argument, the same compiled and pure (compiled it was a bare type error
    such as "union[str, int] object expected; got numpy.int64")."""
    outs = _pure_then_compiled(BAD_INPUT)
    lines = dict(line.split(": ", 1) for line in outs[0].splitlines())
    for name in ("level numpy int", "level numpy int, all", "top list", "top numpy rank"):
        assert lines[name] == "True", name
    for name in ("plan list", "plan numpy", "plan token"):
        assert lines[name] == "True", name
    bad_level = "TypeError: bad level {}: a level is a token 2..A (str) or an index 0..12 (int)"
    assert lines["level float"] == bad_level.format("3.0")
    assert lines["level None"] == bad_level.format("None")
    assert lines["plan level float"] == bad_level.format("1.0")
    assert lines["level 13"] == "ValueError: bad level 13: a level index is 0..12 (2..A)"
    assert lines["level -1"] == "ValueError: bad level -1: a level index is 0..12 (2..A)"
    assert lines["top str"].startswith("TypeError: top 'pair:3 S3 D3': expected a Combo (type, rank, cards)")
    assert lines["top empty"].startswith("TypeError: top (): expected a Combo")
    assert lines["top bad type"].startswith("ValueError: top ['triplet', 1, [0, 1, 2]]: not a play")
    assert lines["plan str hand"].startswith("TypeError: hand 'S3 H3': expected card faces")
    assert lines["plan 3 copies"] == "InvalidHandError: hand holds 3 copies of S2: two decks hold at most 2"


#: subclasses of the heuristic with constants of other number types, and one that is no number
ODD_CONSTANTS_BOT = textwrap.dedent(
    """
    import numpy as np
    from guandan_cli.strategies.heuristic import HeuristicStrategy

    class Numpy(HeuristicStrategy):
        name = "numpy"
        DANGER = np.int64(6)
        FEED = 3.0
        BREAK_NORMAL = np.float32(0.25)

    class Text(HeuristicStrategy):
        name = "text"
        DANGER = "6"
    """
)


def test_a_subclass_with_numpy_or_whole_float_constants_plays_alike_compiled_or_not(tmp_path):
    """Compiled, DANGER = np.int64(6) (or 6.0) failed mid-match ("int object expected; got
    numpy.int64") where pure Python played: both now play the same deals; a constant that is
    no number is a TypeError naming it, in both."""
    bot = tmp_path / "odd.py"
    bot.write_text(ODD_CONSTANTS_BOT)
    logs = []
    for pure in (True, False):
        out = tmp_path / ("pure" if pure else "compiled")
        code = (
            "import sys; from guandan_cli import simulate; "
            "simulate(2, seed=5, strategies=sys.argv[1] + ':Numpy,heuristic', workers=1, out=sys.argv[2], progress=False)"
        )
        proc = _run(["-c", code, str(bot), str(out)], pure)
        assert proc.returncode == 0, proc.stderr
        logs.append(_deal_bytes(out))
        code = "import sys; sys.path.insert(0, sys.argv[1]); from odd import Text; Text(0)"
        proc = _run(["-c", code, str(tmp_path)], pure)
        assert proc.returncode != 0
        assert (
            proc.stderr.strip().splitlines()[-1]
            == "TypeError: Text.DANGER = '6': DANGER is a whole number of cards (int)"
        )
        # the CLI refuses the bot before the run, in one line
        cli = "from guandan_cli.cli.app import main; main()"
        args = ["simulate", "-n", "1", "-w", "1", "-q", "-s", f"{bot}:Text", "-o", str(tmp_path / "text")]
        proc = _run(["-c", cli, *args], pure)
        assert proc.returncode == 2
        assert proc.stderr == (
            f"guandan: error: strategy '{bot}:Text' is not a strategy class: "
            "Text.DANGER = '6': DANGER is a whole number of cards (int)\n"
        )
    assert logs[0] and logs[0] == logs[1]

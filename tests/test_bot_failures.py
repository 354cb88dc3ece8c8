"""A bot that raises: the error line names its file and line, --traceback prints the whole
traceback from the worker, and the Python API keeps the exception as ``__cause__`` (issue 29)."""

from __future__ import annotations

import pickle
import re

import pytest
from click.testing import CliRunner

from guandan_cli import compare, simulate
from guandan_cli.cli.app import app
from guandan_cli.engine.failures import BotFailure, WorkerTraceback, bot_failure
from guandan_cli.runner import SimulationError

runner = CliRunner()

#: a bot that hands a late decision to a helper module beside it, which raises
BOT = """from guandan_cli.strategies.base import Strategy

import {helper}


class Raiser(Strategy):
    name = "raiser"

    def choose_play(self, obs):
        if len(obs.hand) < 24:
            return {helper}.explode(obs)
        return obs.legal_actions[0]
"""
HELPER = "def explode(obs):\n    raise RuntimeError('boom')\n"


@pytest.fixture
def raiser(tmp_path, monkeypatch):
    """``mybot.py:Raiser`` in the working folder (as the README's example puts it), its helper
    under a module name no other test uses; the line of ``mybot.py`` that calls it."""
    helper = f"helper_{tmp_path.name.replace('-', '_')}"
    (tmp_path / f"{helper}.py").write_text(HELPER)
    text = BOT.format(helper=helper)
    (tmp_path / "mybot.py").write_text(text)
    monkeypatch.chdir(tmp_path)
    line = next(i for i, row in enumerate(text.splitlines(), 1) if ".explode(obs)" in row)
    yield "mybot.py:Raiser", line, helper
    import sys

    sys.modules.pop(helper, None)


def _lines(res) -> list[str]:
    return res.stderr.splitlines()


@pytest.mark.parametrize("workers", ["1", "2"])
def test_simulate_names_the_bots_file_and_line(raiser, workers):
    spec, line, _helper = raiser
    res = runner.invoke(app, ["simulate", "-n", "3", "-s", f"{spec},random", "-w", workers, "-o", "r", "-q"])
    assert res.exit_code == 1, res.output
    [error] = _lines(res)
    assert re.search(rf"deal \d+: mybot\.py:{line} in choose_play: RuntimeError: boom \(", error), error
    assert error.endswith("--traceback prints the bot's whole traceback") and "Traceback" not in res.output


@pytest.mark.parametrize("workers", ["1", "2"])
def test_traceback_switch_prints_the_whole_traceback_then_the_line(raiser, workers):
    spec, line, helper = raiser
    args = ["simulate", "-n", "3", "-s", f"{spec},random", "-w", workers, "-o", "r", "-q", "--traceback"]
    res = runner.invoke(app, args)
    assert res.exit_code == 1, res.output
    lines = _lines(res)
    assert lines[0] == "Traceback (most recent call last):"
    text = "\n".join(lines)
    assert f'mybot.py", line {line}, in choose_play' in text
    assert f'{helper}.py", line 2, in explode' in text  # the frame inside the helper too
    assert lines[-2] == "RuntimeError: boom"
    assert lines[-1].startswith("guandan: error: ") and f"mybot.py:{line} in choose_play" in lines[-1]


def test_compare_names_the_place_and_the_environment_asks_for_the_traceback(raiser, monkeypatch):
    spec, line, helper = raiser
    args = ["compare", spec, "random", "-n", "2", "-w", "2", "-o", "c", "-q"]
    res = runner.invoke(app, args)
    assert res.exit_code == 1
    assert f"mybot.py:{line} in choose_play: RuntimeError: boom" in _lines(res)[-1]
    assert "Traceback" not in res.output
    monkeypatch.setenv("GUANDAN_TRACEBACK", "1")
    res = runner.invoke(app, [*args, "--force"])
    assert res.exit_code == 1
    assert _lines(res)[0] == "Traceback (most recent call last):" and f'{helper}.py", line 2' in res.stderr


def test_tournament_takes_the_switch_too(raiser):
    spec, line, _helper = raiser
    res = runner.invoke(
        app, ["tournament", spec, "random", "-n", "1", "-w", "1", "-o", "t", "-q", "--traceback"]
    )
    assert res.exit_code == 1
    assert _lines(res)[0] == "Traceback (most recent call last):"
    assert f"mybot.py:{line} in choose_play" in _lines(res)[-1]


@pytest.mark.parametrize(
    "args",
    [
        ["experiment", "ruleset", "-n", "2", "-w", "1", "-o", "e", "-q"],
        ["play", "--seat", "1", "--seed", "3", "--delay", "0", "--plain", "-o", "p"],
    ],
    ids=["experiment", "play"],
)
def test_experiment_and_play_take_the_switch_too(raiser, args):
    spec, line, _helper = raiser
    res = runner.invoke(app, [*args, "-s", spec], input="1\np\n" * 200)
    assert res.exit_code == 1, res.output
    assert f"mybot.py:{line} in choose_play: RuntimeError: boom" in _lines(res)[-1]
    assert _lines(res)[-1].endswith("--traceback prints the bot's whole traceback")
    res = runner.invoke(
        app,
        [*args, "-s", spec, "--traceback", "--force"]
        if args[0] == "experiment"
        else [*args[:-1], "p2", "-s", spec, "--traceback"],
        input="1\np\n" * 200,
    )
    assert res.exit_code == 1, res.output
    lines = _lines(res)
    assert lines[0] == "Traceback (most recent call last):" and lines[-2] == "RuntimeError: boom", lines
    assert f"mybot.py:{line} in choose_play" in lines[-1]


def test_the_api_keeps_the_exception_or_the_workers_traceback_as_cause(raiser, tmp_path):
    spec, line, helper = raiser
    with pytest.raises(SimulationError) as one:
        simulate(3, strategies=f"{spec},random", workers=1, out=tmp_path / "a")
    cause = one.value.__cause__
    assert type(cause) is RuntimeError and str(cause) == "boom" and cause.__traceback__ is not None
    assert one.value.failure.exception is cause
    with pytest.raises(SimulationError) as two:
        compare(spec, "random", matches=2, workers=2, out=tmp_path / "b", notify=None)
    cause = two.value.__cause__
    assert isinstance(cause, WorkerTraceback)
    assert f'mybot.py", line {line}, in choose_play' in cause.text and cause.text.endswith(
        "RuntimeError: boom\n"
    )
    assert f"mybot.py:{line} in choose_play: RuntimeError: boom" in str(two.value)


def test_a_recorded_error_names_the_place_in_the_log(raiser, tmp_path):
    spec, line, _helper = raiser
    run = simulate(2, strategies=f"{spec},random", workers=1, out=tmp_path / "r", on_error="record")
    errors = run.matches()["error"].to_list()
    assert errors and all(f"mybot.py:{line} in choose_play: RuntimeError: boom" in e for e in errors)


class _Indexes:
    """A bot whose own line makes the engine's tuple raise (the exception's last frame is not its file)."""

    def choose_play(self, obs):
        return obs[99]


class _Child(_Indexes):
    pass


def _caught(call):
    try:
        call()
    except Exception as exc:  # noqa: BLE001
        return exc
    raise AssertionError("no exception")


def test_the_place_is_the_bots_own_line_also_for_a_subclass_and_a_builtin_error():
    exc = _caught(lambda: _Child().choose_play(()))
    failure = bot_failure(exc, _Child)  # _Child's module is this file: its innermost frame here
    own = next(i for i, row in enumerate(open(__file__).read().splitlines(), 1) if "return obs[99]" in row)
    assert failure.where == f"test_bot_failures.py:{own} in choose_play"
    assert failure.error == "IndexError: tuple index out of range"
    assert failure.line == f"{failure.where}: {failure.error}"


def test_a_class_without_a_file_gets_the_innermost_frame():
    namespace: dict = {}
    exec(compile("def choose(obs):\n    raise ValueError('x')\n", "<cell 3>", "exec"), namespace)
    Bot = type("Bot", (), {"choose_play": staticmethod(namespace["choose"]), "__module__": "nowhere"})
    failure = bot_failure(_caught(lambda: Bot.choose_play(None)), Bot)
    assert failure.where == "<cell 3>:2 in choose" and failure.error == "ValueError: x"


def test_a_failure_crosses_processes_as_text():
    exc = _caught(lambda: _Indexes().choose_play(()))
    failure = bot_failure(exc, _Indexes)
    assert failure.cause() is exc
    copy = pickle.loads(pickle.dumps(failure))
    assert copy == failure and copy.exception is None
    cause = copy.cause()
    assert isinstance(cause, WorkerTraceback) and cause.text == failure.traceback
    assert isinstance(copy, BotFailure) and copy.traceback.startswith("Traceback (most recent call last):")


def test_a_fault_that_is_not_the_codes_names_no_frame():
    """A remote client that broke the protocol: the error alone, no line of our remote seat."""
    from guandan_cli.protocol.remote import RemoteSeatError

    class Seat:
        def choose_play(self, obs):
            raise RemoteSeatError("seat 1 (bad) answered 99, out of range")

    failure = bot_failure(_caught(lambda: Seat().choose_play(None)), Seat)
    assert failure.where is None and failure.line == "RemoteSeatError: seat 1 (bad) answered 99, out of range"

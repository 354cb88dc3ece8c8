"""Unattended runs never hang (issue 26, part A): a worker that dies, a bot that sleeps or loops,
SIGTERM/SIGHUP, a chatty or greedy bot (``runner.supervisor``).

Each test plays a handful of short matches with a bot file (``faulty.py``) that misbehaves, as
``FAULT`` says, at seat 1 in deal 1 when its seeded draw says so: with seed 1 and 3 matches that
is match 1 only, the middle match of one task (so its neighbours are replayed). With
``FAULT=none`` it draws the same numbers and plays the same moves: the reference bytes.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from guandan_cli import compare, simulate
from guandan_cli.logreaders.verify import verify
from guandan_cli.runner.errors import SimulationError

GUANDAN = shutil.which("guandan") or str(Path(sys.executable).with_name("guandan"))

BOT = """
import os, signal, sys, time
from guandan_cli.strategies.random_bot import RandomStrategy

MODE = os.environ.get("FAULT", "none")
MARK = os.environ.get("FAULT_MARK", "")


class Faulty(RandomStrategy):
    name = "faulty"
    choose_from_legal = None  # asked through choose_play, every time

    def start_deal(self, index, obs):
        self.deal = index

    def choose_play(self, obs):
        if getattr(self, "deal", 0) == 1 and self.seat == 1 and len(obs.hand) < 20 and self.rng.random() < 0.02:
            fault()
        return self.rng.choice(obs.legal_actions)


def fault():
    if MODE == "exit":
        os._exit(3)
    if MODE == "sysexit":
        raise SystemExit(4)
    if MODE == "keyboard":
        raise KeyboardInterrupt
    if MODE == "kill":  # as the out-of-memory killer does, every time
        os.kill(os.getpid(), signal.SIGKILL)
    if MODE == "kill-once":  # as someone's kill -9 does: once
        try:
            os.close(os.open(MARK, os.O_CREAT | os.O_EXCL))
        except FileExistsError:
            return
        os.kill(os.getpid(), signal.SIGKILL)
    if MODE == "sleep":
        time.sleep(600)
    if MODE == "loop":
        while True:
            pass
    if MODE == "c-loop":  # C code that holds the interpreter's lock
        sum(range(10**14))
    if MODE == "chat":
        print("chatter " * 1000)
        print("on stderr", file=sys.stderr)
        os.write(1, b"straight to fd 1\\n")
    if MODE == "memory":
        hog = bytearray(3 << 30)
        return hog
"""

COMMON = {"matches": 3, "seed": 1, "max_deals": 2, "chunk_size": 3, "progress": False}


@pytest.fixture
def bot(tmp_path: Path, monkeypatch) -> str:
    path = tmp_path / "faulty.py"
    path.write_text(BOT)
    monkeypatch.setenv("FAULT_MARK", str(tmp_path / "killed-once"))
    return f"{path}:Faulty"


def _lines(run_dir: Path, kind: str) -> list[bytes]:
    return (run_dir / f"{kind}-00000.jsonl").read_bytes().splitlines()


@pytest.fixture
def reference(tmp_path: Path, bot: str, monkeypatch):
    monkeypatch.setenv("FAULT", "none")
    run = simulate(out=tmp_path / "reference", strategies=f"random,{bot}", workers=1, **COMMON)
    monkeypatch.delenv("FAULT")
    return run.path


def _run(tmp_path, bot, monkeypatch, mode, **options):
    monkeypatch.setenv("FAULT", mode)
    options = {"workers": 2, "on_error": "record", **options}
    t0 = time.monotonic()
    run = simulate(out=tmp_path / mode, strategies=f"random,{bot}", **COMMON, **options)
    return run, time.monotonic() - t0


def _check_errored(run, reference: Path, cause: str) -> None:
    """Match 1 is errored at seat 1, deal 1, for ``cause``; every other byte is the reference's."""
    matches = [json.loads(x) for x in _lines(run.path, "matches")]
    assert [m["error"] is not None for m in matches] == [False, True, False]
    error = matches[1]["error"]
    assert error.startswith("strategy 'faulty' at seat 1 failed in match seed ") and ", deal 1: " in error
    assert cause in error, error
    ref_matches = _lines(reference, "matches")
    assert _lines(run.path, "matches")[0::2] == ref_matches[0::2]
    deals, ref_deals = _lines(run.path, "deals"), _lines(reference, "deals")
    # match 1's deal 0 is kept, its deal 1 (where the bot failed) is not: one deal line fewer
    assert [json.loads(x)["match"] for x in deals] == [0, 0, 1, 2, 2]
    assert deals == [x for x in ref_deals if not (json.loads(x)["match"] == 1 and json.loads(x)["deal"] == 1)]
    assert run.state == "complete" and run.counts["matches"] == 3
    assert verify(run.path).ok


@pytest.mark.parametrize(
    "mode, cause",
    [
        ("exit", "its worker process exited with code 3"),
        ("kill", "its worker process was killed by SIGKILL"),
        ("sysexit", "SystemExit: 4"),
        ("keyboard", "KeyboardInterrupt"),
    ],
)
def test_a_dying_worker_errors_its_match_and_the_run_goes_on(
    tmp_path, bot, monkeypatch, reference, mode, cause
):
    run, seconds = _run(tmp_path, bot, monkeypatch, mode)
    _check_errored(run, reference, cause)
    assert seconds < 60


def test_a_worker_killed_once_from_outside_loses_nothing(tmp_path, bot, monkeypatch, reference, capfd):
    run, _ = _run(tmp_path, bot, monkeypatch, "kill-once")
    assert (tmp_path / "killed-once").exists()
    assert _lines(run.path, "matches") == _lines(reference, "matches")
    assert _lines(run.path, "deals") == _lines(reference, "deals")
    err = capfd.readouterr().err
    assert "match 1: its worker process was killed by SIGKILL in deal 1, then played through" in err


def test_a_dying_worker_stops_the_run_resumably_by_default(tmp_path, bot, monkeypatch, reference):
    monkeypatch.setenv("FAULT", "exit")
    with pytest.raises(
        SimulationError, match="match 1: .* its worker process exited with code 3 .*--on-error record"
    ):
        simulate(out=tmp_path / "stop", strategies=f"random,{bot}", workers=2, **COMMON)
    assert json.loads((tmp_path / "stop" / "manifest.json").read_text())["state"] == "failed"
    monkeypatch.setenv("FAULT", "none")
    run = simulate(out=tmp_path / "stop", strategies=f"random,{bot}", workers=2, **COMMON)
    assert run.complete and _lines(run.path, "deals") == _lines(reference, "deals")


@pytest.mark.parametrize(
    "mode, workers", [("sleep", 2), ("loop", 2), ("c-loop", 2), ("sleep", 1), ("loop", 1)]
)
def test_a_bot_past_the_decision_timeout_errors_its_match(
    tmp_path, bot, monkeypatch, reference, mode, workers
):
    run, seconds = _run(tmp_path, bot, monkeypatch, mode, decision_timeout=1, workers=workers)
    _check_errored(run, reference, "DecisionTimeout: no answer within 1 s (--decision-timeout)")
    assert seconds < 45


def test_a_sleeping_and_a_stuck_bot_give_the_same_bytes(tmp_path, bot, monkeypatch):
    sleep, _ = _run(tmp_path, bot, monkeypatch, "sleep", decision_timeout=1)
    stuck, _ = _run(tmp_path, bot, monkeypatch, "c-loop", decision_timeout=1, workers=3)
    assert _lines(sleep.path, "deals") == _lines(stuck.path, "deals")
    assert _lines(sleep.path, "matches") == _lines(stuck.path, "matches")


def test_an_over_allocation_is_an_errored_match(tmp_path, bot, monkeypatch, reference):
    run, _ = _run(tmp_path, bot, monkeypatch, "memory", max_memory="1G", workers=1)
    _check_errored(run, reference, "MemoryError")
    options = run.manifest.options.to_dict()  # the manifest says which limits the run had
    assert (options["max_memory"], options["decision_timeout"]) == (2**30, 60.0)


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_chatty_bot_writes_to_bots_log_not_to_the_output(tmp_path, bot, workers):
    env = {**os.environ, "FAULT": "chat"}
    proc = subprocess.run(
        [GUANDAN, "simulate", "-n", "3", "--seed", "1", "-s", f"random,{bot}", "--max-deals", "2"]
        + ["-w", workers, "-o", str(tmp_path / "run")],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "chatter" not in proc.stdout and "chatter" not in proc.stderr
    assert "on stderr" not in proc.stderr
    log = (tmp_path / "run" / "bots.log").read_text()
    assert "chatter chatter" in log and "on stderr" in log
    if workers == "2":  # a worker's own file descriptors go there too
        assert "straight to fd 1" in log
    assert f"see {tmp_path / 'run' / 'bots.log'}" in proc.stderr


def test_a_compare_without_a_folder_keeps_the_bots_output_in_the_file_its_note_names(
    tmp_path, bot, monkeypatch, capfd
):
    monkeypatch.setenv("FAULT", "chat")
    monkeypatch.setenv("TMPDIR", str(tmp_path))  # where tempfile puts the runs and the log
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)
    compare(bot, "random", 2, seed=1, workers=1, max_deals=2)
    err = capfd.readouterr().err
    named = {line.split("see ", 1)[1].split(" ", 1)[0] for line in err.splitlines() if "see " in line}
    [path] = named  # both runs' notes name the one file, and it is still there
    assert Path(path).parent == tmp_path and "chatter chatter" in Path(path).read_text()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith("guandan-compare-")] == [Path(path).name]


def test_a_quiet_bot_leaves_no_bots_log(tmp_path, bot, monkeypatch):
    run, _ = _run(tmp_path, bot, monkeypatch, "none")
    assert not (run.path / "bots.log").exists()


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


#: long enough (about 4 s on one core, 2 s on two) that the signal always meets a running run:
#: at 300 matches a fast machine finished the run between its first journal and the signal
SIGNALLED_RUN = ["simulate", "-n", "3000", "--seed", "2", "-s", "random", "--max-deals", "2"]


@pytest.fixture(scope="module")
def signalled_reference(tmp_path_factory) -> Path:
    """The uninterrupted run, one worker (the same for every signal: made once)."""
    ref = tmp_path_factory.mktemp("signalled") / "ref"
    done = subprocess.run([GUANDAN, *SIGNALLED_RUN, "-w", "1", "-o", str(ref), "-q"], timeout=120)
    assert done.returncode == 0
    return ref


def _default_stop_signals() -> None:
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, signal.SIG_DFL)


@pytest.mark.parametrize(
    "to, signum", [("group", signal.SIGTERM), ("parent", signal.SIGTERM), ("parent", signal.SIGHUP)]
)
def test_sigterm_and_sighup_interrupt_like_ctrl_c(tmp_path, to, signum, signalled_reference):
    out = tmp_path / "run"
    args = [*SIGNALLED_RUN, "-w", "2", "--chunk-size", "2"]
    proc = subprocess.Popen(
        [GUANDAN, *args, "-o", str(out), "-q"],
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        # as from a terminal: a suite run under nohup (or a CI runner) would hand its ignored
        # SIGHUP or SIGTERM down, and guandan keeps a signal ignored as nohup asks
        preexec_fn=_default_stop_signals,
    )
    journal = out / "part-00000.journal"
    deadline = time.monotonic() + 60
    # signalled once matches come back: the run is under way, its workers started
    while not (journal.exists() and journal.stat().st_size > 0) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert journal.exists() and journal.stat().st_size > 0
    assert proc.poll() is None, "the run ended before it could be signalled: make SIGNALLED_RUN longer"
    if to == "group":
        os.killpg(proc.pid, signum)
    else:
        os.kill(proc.pid, signum)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 128 + signum, err  # 143 for SIGTERM, 129 for SIGHUP (Ctrl-C: 130)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("guandan: interrupted: "), err
    assert "resume with: guandan simulate --out" in lines[0]
    assert json.loads((out / "manifest.json").read_text())["state"] == "interrupted"
    deadline = time.monotonic() + 10
    while _group_alive(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _group_alive(proc.pid), "a process of the run was left behind"
    resumed = subprocess.run(
        [GUANDAN, "simulate", "-o", str(out), "--resume", "-q"], capture_output=True, text=True, timeout=120
    )
    assert resumed.returncode == 0, resumed.stderr
    ref = signalled_reference
    assert (out / "deals-00000.jsonl").read_bytes() == (ref / "deals-00000.jsonl").read_bytes()


@pytest.mark.parametrize(
    "option, value, words",
    [
        ("--decision-timeout", "-1", "must be a finite number of seconds, 0 for no limit, got -1.0"),
        ("--decision-timeout", "nan", "must be a finite number of seconds, 0 for no limit, got nan"),
        ("--max-memory", "banana", "must be a size such as 2G, 512M or 1.5G"),
        ("--max-memory", "10M", "must be at least 256M"),
    ],
)
@pytest.mark.parametrize("command", [["simulate", "-n", "1"], ["compare", "random", "greedy", "-n", "1"]])
def test_bad_limits_get_one_line_naming_the_option(tmp_path, command, option, value, words):
    proc = subprocess.run(
        [GUANDAN, *command, option, value, "-o", str(tmp_path / "x")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and words in proc.stderr, proc.stderr
    assert proc.stderr.startswith("guandan: error: ") and option in proc.stderr
    assert not (tmp_path / "x" / "manifest.json").exists()


SLOW_START = """import os, time
from guandan_cli.strategies.random_bot import RandomStrategy


class SlowStart(RandomStrategy):
    name = "slow-start"

    def __init__(self, seat, rng=None):
        super().__init__(seat, rng)
        if os.environ.get("SLOW_START") == "raise":
            raise RuntimeError("no start")
        time.sleep(600)
"""


@pytest.mark.parametrize("mode, workers", [("sleep", 2), ("sleep", 1), ("raise", 2)])
def test_a_constructor_that_hangs_or_raises_is_its_seats_failure(tmp_path, monkeypatch, mode, workers):
    (tmp_path / "slow_start.py").write_text(SLOW_START)
    monkeypatch.setenv("SLOW_START", mode)
    t0 = time.monotonic()
    run = simulate(
        out=tmp_path / "run", strategies=f"random,{tmp_path / 'slow_start.py'}:SlowStart", workers=workers,
        on_error="record", decision_timeout=1, matches=2, seed=1, max_deals=2, progress=False,
    )  # fmt: skip
    assert time.monotonic() - t0 < 60
    errors = [json.loads(x)["error"] for x in _lines(run.path, "matches")]
    cause = (
        "DecisionTimeout: no answer within 1 s" if mode == "sleep" else "in __init__: RuntimeError: no start"
    )
    for error in errors:
        assert (
            error.startswith("strategy 'slow-start' at seat 1 failed in match seed ")
            and ", deal 0: " in error
        )
        assert cause in error, error
    assert verify(run.path).ok


@pytest.mark.parametrize("command", ["simulate", "compare"])
def test_a_strategy_whose_import_never_ends_is_refused_in_one_line(tmp_path, monkeypatch, command):
    from click.testing import CliRunner

    from guandan_cli.cli.app import app

    name = f"slow_import_{command}"
    (tmp_path / f"{name}.py").write_text("import time\ntime.sleep(600)\n")
    monkeypatch.chdir(tmp_path)
    spec = f"{name}.py:Never"
    args = {
        "simulate": ["simulate", "-n", "1", "-s", spec, "-q"],
        "compare": ["compare", spec, "random", "-n", "1"],
    }
    t0 = time.monotonic()
    res = CliRunner().invoke(app, [*args[command], "--decision-timeout", "1", "-o", "r"])
    assert time.monotonic() - t0 < 30
    assert res.exit_code == 2, res.output
    assert res.stderr == (
        f"guandan: error: strategy '{spec}' cannot be loaded: loading it: not done within 1 s (--decision-timeout)\n"
    )

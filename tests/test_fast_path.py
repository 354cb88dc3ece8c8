"""The Typer-free start-up path prints exactly what the Typer app prints, or leaves it to the app.

Each command line runs through :func:`guandan_cli.cli.fast_path.run` and through the Typer
app itself, and stdout, stderr and the exit code must be equal; lines the fast path must
answer are marked, so a fast path that always declined would fail. The stored help texts
and option table are rebuilt from the Typer app and compared with the stored spec.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from types import SimpleNamespace

import pytest

from guandan_cli.cli import fast_path
from guandan_cli.cli import fast_path_spec as spec
from guandan_cli.cli.fast_path_build import build_spec

HAND = "S3 H4 D4 C5 S5 H2 SB"
BIG_HAND = "S3 S4 S5 S6 S7 H7 H8 H9 HT HJ HQ HK D3 D3 C9 C9 S9 SQ SQ HQ DK CK SA HA SB HR H2"

#: answered by the fast path
FAST = [
    ["--help"],
    ["plays", "--help"],
    ["plays", HAND, "--help"],
    ["plays", "--help", "--level", "Z"],
    ["plays", "--symbols", "--help", "--all"],
    ["plays", HAND, "--level", "3"],
    ["plays", HAND, "-l", "3", "--symbols"],
    ["plays", "--level=3", "S3 S3 D4"],
    ["plays", "S3 S3 D4", "--top", "single:3 C3"],
    ["plays", "S3 S3 D4", "-t", "pair:3 C3 D3", "-l", "A"],
    ["plays", "--all", "S3 S3 D4", "--top=single:3 C3"],
    ["plays", BIG_HAND, "--level", "9", "--all", "--symbols"],
    ["plays", BIG_HAND, "-l", "k", "-t", "straight:7 S3 S4 S5 S6 S7"],
    ["plays", "SB HR SB HR", "--symbols"],
    ["plays", "♠3 ♥3 ♦4", "--symbols"],
    ["plays", "S3 X"],
    ["plays", "S3 X", "--level", "Z"],
    ["plays", ""],
    ["plays", "   "],
    ["plays", "S3", "--level", "Z"],
    ["plays", "S3", "--level", "1"],
    ["plays", "S3", "--level", ""],
    ["plays", "S3", "--top", "bad"],
    ["plays", "S3", "--top", "pair:9 S3 S4"],
    ["plays", "S3", "--top", ""],
    ["plays", "S3 S4", "--top", "bomb:5 S5 S5 H5 D5", "--level", "5"],
]

#: left to the Typer app (the fast path prints nothing and returns None)
TYPER = [
    [],
    ["-h"],
    ["--version"],
    ["--help", "plays"],
    ["--help", "--help"],
    ["play", "--help"],
    ["simulate", "--help"],
    ["Plays", "S3"],
    ["plays"],
    ["plays", "-h"],
    ["plays", "--level", "3"],
    ["plays", "S3", "--level"],
    ["plays", "S3", "--bogus"],
    ["plays", "S3", "S4"],
    ["plays", "S3", "S4", "--help"],
    ["plays", "S3", "-l3"],
    ["plays", "S3", "-l=3"],
    ["plays", "S3", "--lev", "3"],
    ["plays", "S3", "--level", "3", "--level", "4"],
    ["plays", "S3", "--all", "--all"],
    ["plays", "S3", "--all=1"],
    ["plays", "S3", "--help=1"],
    ["plays", "--", "S3"],
    ["plays", "-"],
    ["plays", "S3", "--level", "-1"],
    ["plays", "S3", "--top", "--all"],
    ["plays", "S3\x1b[31m"],
    ["plays", "S3\udcff"],
]


@pytest.fixture
def plain_terminal(monkeypatch):
    """An 80-column terminal, no shell-completion request."""
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.delenv("_GUANDAN_COMPLETE", raising=False)


def _typer_app(argv, capsys):
    from guandan_cli.cli.typer_app import app

    with pytest.raises(SystemExit) as exc:
        app(args=argv, prog_name="guandan")
    out, err = capsys.readouterr()
    return out, err, exc.value.code or 0


def _fast(argv, capsys, prog_name="guandan"):
    code = fast_path.run(list(argv), prog_name)
    out, err = capsys.readouterr()
    return out, err, code


@pytest.mark.parametrize("argv", FAST, ids=repr)
def test_the_fast_path_prints_what_the_typer_app_prints(argv, capsys, plain_terminal):
    fast = _fast(argv, capsys)
    assert fast[2] is not None, "the fast path should answer this line"
    assert fast == _typer_app(argv, capsys)


@pytest.mark.parametrize("argv", TYPER, ids=repr)
def test_other_lines_go_to_the_typer_app(argv, capsys, plain_terminal):
    assert _fast(argv, capsys) == ("", "", None)


@pytest.mark.parametrize("columns", ["100", "200"])
def test_help_in_a_wide_terminal_is_the_same(columns, capsys, plain_terminal, monkeypatch):
    monkeypatch.setenv("COLUMNS", columns)
    for argv in (["--help"], ["plays", "--help"]):
        assert _fast(argv, capsys) == _typer_app(argv, capsys) != ("", "", None)


def test_help_is_left_to_typer_where_it_would_render_otherwise(capsys, plain_terminal, monkeypatch):
    """A narrow terminal, another program name, another Typer: the app renders the help."""
    rendered_by = spec.TYPER_VERSION
    for argv, stored in ((["--help"], spec.ROOT_HELP), (["plays", "--help"], spec.PLAYS_HELP)):
        assert _fast(argv, capsys, prog_name="python -m guandan_cli") == ("", "", None)
        monkeypatch.setenv("COLUMNS", "60")
        assert _typer_app(argv, capsys)[0] != stored  # the app wraps to the narrower width
        assert _fast(argv, capsys) == ("", "", None)
        monkeypatch.setenv("COLUMNS", "80")
        monkeypatch.setattr(spec, "TYPER_VERSION", "0.0.0")
        assert _fast(argv, capsys) == ("", "", None)
        # plays itself is the app's own code: served whatever Typer is installed
        assert _fast(["plays", "S3"], capsys)[2] == 0
        monkeypatch.setattr(spec, "TYPER_VERSION", rendered_by)
        assert _fast(argv, capsys) == (stored, "", 0)


def test_a_shell_completion_request_goes_to_the_typer_app(capsys, plain_terminal, monkeypatch):
    monkeypatch.setenv("_GUANDAN_COMPLETE", "bash_complete")
    assert _fast(["--help"], capsys) == ("", "", None)


def test_the_stored_plays_options_are_the_typer_apps():
    built = build_spec()
    for name in ("HELP_OPTIONS", "PLAYS_ARGUMENT", "PLAYS_VALUE_OPTIONS", "PLAYS_FLAGS", "PLAYS_DEFAULTS"):
        assert getattr(spec, name) == built[name], (
            f"{name} is stale: rebuild with python -m guandan_cli.cli.fast_path_build"
        )


def test_the_stored_help_is_the_typer_apps_render():
    built = build_spec()
    if built["TYPER_VERSION"] != spec.TYPER_VERSION:
        pytest.skip(
            f"help stored from Typer {spec.TYPER_VERSION}, {built['TYPER_VERSION']} installed: the fast path"
            " leaves help to the app here (rebuild with python -m guandan_cli.cli.fast_path_build)"
        )
    for name in ("HELP_WIDTH", "ROOT_HELP", "PLAYS_HELP"):
        assert getattr(spec, name) == built[name], (
            f"{name} is stale: rebuild with python -m guandan_cli.cli.fast_path_build"
        )


@pytest.mark.parametrize("columns", [None, "100", "60", "0", "-5", "abc", ""])
def test_terminal_columns_are_shutils(columns, monkeypatch):
    import shutil

    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    assert fast_path._terminal_columns() == shutil.get_terminal_size().columns


def test_program_name_is_clicks():
    utils = pytest.importorskip("typer._click.utils")
    for path, package in (
        ("/usr/bin/guandan", None),
        ("guandan", ""),
        ("-c", None),
        ("/src/tools/__main__.py", "tools"),
        ("/src/tools/cli.py", "tools"),
    ):
        main = SimpleNamespace(__package__=package)
        assert fast_path.program_name(path, main) == utils._detect_program_name(path, main)


# --- whole processes: the console script's path ---------------------------------------------

#: the console script ``guandan``; reports to the file named by argv[1] which heavy packages it loaded
_MAIN = (
    "import atexit, sys\n"
    "report = sys.argv.pop(1)\n"
    "def loaded():\n"
    "    found = {m.split('.')[0] for m in sys.modules} & {'typer', 'click', 'rich', 'pydantic', 'polars'}\n"
    "    open(report, 'w').write(' '.join(sorted(found)))\n"
    "atexit.register(loaded)\n"
    "sys.argv[0] = 'guandan'\n"
    "from guandan_cli.cli.app import main\n"
    "main()\n"
)
_TYPER_APP = "import sys; sys.argv[0] = 'guandan'; from guandan_cli.cli.typer_app import app; app()"


def _env():
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "_GUANDAN_COMPLETE")}
    return dict(env, PYTHONIOENCODING="utf-8")


def _process(code, argv, tmp_path, **kwargs):
    report = tmp_path / "loaded.txt"
    args = [report] if code is _MAIN else []
    proc = subprocess.run([sys.executable, "-c", code, *args, *argv], env=_env(), check=False, **kwargs)
    return proc, (report.read_text() if report.exists() else None)


@pytest.mark.parametrize(
    "argv, fast",
    [
        (["--help"], True),
        (["plays", "--help"], True),
        (["plays", HAND, "--level", "3"], True),
        (["plays", "S3 X"], True),
        (["plays"], False),
        (["plays", HAND, "-l3"], False),
    ],
    ids=repr,
)
def test_the_console_script_prints_what_the_typer_app_prints(argv, fast, tmp_path):
    main, loaded = _process(_MAIN, argv, tmp_path, capture_output=True)
    typer, _ = _process(_TYPER_APP, argv, tmp_path, capture_output=True)
    assert (main.stdout, main.stderr, main.returncode) == (typer.stdout, typer.stderr, typer.returncode)
    assert loaded == ("" if fast else "typer"), loaded


@pytest.mark.parametrize("argv", [["--help"], ["plays", BIG_HAND, "--all"]], ids=repr)
def test_a_closed_pipe_ends_both_alike(argv, tmp_path):
    """The reader of stdout is gone: exit 1 and nothing on stderr, as Typer does."""
    results = []
    for code in (_MAIN, _TYPER_APP):
        read, write = os.pipe()
        os.close(read)
        try:
            proc, _ = _process(code, argv, tmp_path, stdout=write, stderr=subprocess.PIPE)
        finally:
            os.close(write)
        results.append((proc.returncode, proc.stderr))
    assert results[0] == results[1] == (1, b"")


#: interrupts itself (a real SIGINT, as Ctrl-C sends) when ``main`` starts importing MODULE
_CTRL_C_AT_IMPORT = (
    "import os, signal, sys\n"
    "module = sys.argv.pop(1)\n"
    "class CtrlC:\n"
    "    @staticmethod\n"
    "    def find_spec(name, path=None, target=None):\n"
    "        if name == module:\n"
    "            os.kill(os.getpid(), signal.SIGINT)\n"
    "        return None\n"
    "sys.meta_path.insert(0, CtrlC)\n"
    "sys.argv[0] = 'guandan'\n"
    "from guandan_cli.cli.app import main\n"
    "main()\n"
)


@pytest.mark.skipif(not hasattr(signal, "SIGINT") or os.name == "nt", reason="POSIX signals")
@pytest.mark.parametrize(
    "module, argv",
    [
        ("guandan_cli.cli.fast_path", ["--help"]),
        ("guandan_cli.engine.legal", ["plays", HAND]),
        ("typer", ["simulate", "--help"]),
    ],
)
def test_ctrl_c_during_the_start_up_imports_is_one_line(module, argv):
    proc = subprocess.run(
        [sys.executable, "-c", _CTRL_C_AT_IMPORT, module, *argv], env=_env(), capture_output=True, check=False
    )
    assert (proc.returncode, proc.stderr, proc.stdout) == (130, b"guandan: interrupted\n", b"")

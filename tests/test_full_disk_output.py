"""Output that cannot be written (a full disk: ``/dev/full`` answers every write with ENOSPC)
is one ``guandan: error:`` line and exit 1, never a traceback."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from report_fixtures import small_run  # noqa: F401  (fixture)

from guandan_cli.cli.error_lines import write_error_line

GUANDAN = [sys.executable, "-c", "from guandan_cli.cli.app import main; main()"]

pytestmark = pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full on this system")


@pytest.mark.parametrize(
    "args",
    [
        ["plays", "S3 H4 D4 C5 S5 H2"],
        ["plays", "S3 H4 D4 C5 S5 H2", "--top", "single:3 S3"],
        ["analyze", "{run}", "--report", "bombs"],
        ["replay", "{run}", "--match", "0", "--deal", "0"],
    ],
)
def test_stdout_on_a_full_disk_is_one_line(args, small_run):  # noqa: F811
    args = [a.replace("{run}", str(small_run)) for a in args]
    with open("/dev/full", "w") as full:
        proc = subprocess.run([*GUANDAN, *args], stdout=full, stderr=subprocess.PIPE, text=True, timeout=120)
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr == "guandan: error: cannot write the output: No space left on device\n"


def test_only_the_machines_write_errors_are_one_line():
    assert write_error_line(OSError(28, "No space left on device", "/x/y")) == (
        "guandan: error: cannot write /x/y: No space left on device"
    )
    assert write_error_line(FileNotFoundError(2, "No such file")) is None  # a bug: its traceback stays

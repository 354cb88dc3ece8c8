"""Headless Chromium for the tests of HTML pages: the command line (``chromium``) and a
Selenium driver (``driver``), both skipped with the reason where they are missing."""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
from contextlib import contextmanager
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None)
CHROMEDRIVER = shutil.which("chromedriver") or (
    "/usr/bin/chromedriver" if os.path.exists("/usr/bin/chromedriver") else None
)
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--no-first-run",
    "--disable-component-update",
    "--disable-sync",
]
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="Debian's chromium is not installed (apt-get install chromium)"
)


def chromium(args: list[str], profile: Path) -> subprocess.CompletedProcess:
    """Run headless Chromium once with a fresh profile folder."""
    return subprocess.run(
        [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *args],
        capture_output=True,
        text=True,
        timeout=180,
    )


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == PNG_MAGIC and data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def screenshot_dir(tmp_path: Path) -> Path:
    """Where a test keeps its screenshots: ``GUANDAN_SCREENSHOT_DIR`` (docs/ pictures), else ``tmp_path``."""
    return Path(os.environ.get("GUANDAN_SCREENSHOT_DIR", tmp_path))


def non_blank(png: bytes) -> tuple[float, int]:
    """The share of pixels that are not the background and the number of colours, of a screenshot."""
    import io

    from PIL import Image

    image = Image.open(io.BytesIO(png)).convert("RGB")
    colours = image.getcolors(maxcolors=1 << 20) or []
    background = max(colours)[1]
    drawn = sum(n for n, c in colours if c != background)
    return drawn / (image.width * image.height), len(colours)


@contextmanager
def driver(profile: Path, size: tuple[int, int] = (1280, 1100)):
    """A Selenium Chrome driver on headless Chromium (skips the test without chromium,
    chromedriver or the ``selenium`` package)."""
    if CHROMIUM is None:
        pytest.skip("Debian's chromium is not installed (apt-get install chromium)")
    if CHROMEDRIVER is None:
        pytest.skip("Debian's chromium-driver is not installed (apt-get install chromium-driver)")
    webdriver = pytest.importorskip(
        "selenium.webdriver", reason="selenium drives Chromium (pip install selenium)"
    )
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in [*FLAGS, f"--user-data-dir={profile}", f"--window-size={size[0]},{size[1]}"]:
        options.add_argument(flag)
    d = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    d.set_window_size(*size)
    try:
        yield d
    finally:
        d.quit()

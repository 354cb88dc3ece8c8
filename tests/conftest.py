import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
SLOW = os.environ.get("GUANDAN_SLOW") == "1"

try:  # the protocol extra is optional: without it, its client helpers are not collected
    import websockets  # noqa: F401
except ImportError:
    collect_ignore = ["protocol_clients.py"]


def pytest_collection_modifyitems(config, items):
    if SLOW:
        return
    skip = pytest.mark.skip(reason="slow: set GUANDAN_SLOW=1")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)

"""Root pytest configuration: skip the environment modules' doctests without the ``env`` extra."""

import importlib.util

collect_ignore_glob = []
if any(importlib.util.find_spec(m) is None for m in ("numpy", "gymnasium", "pettingzoo")):
    collect_ignore_glob += [
        "guandan_cli/env/*.py",
        "tests/env_reference.py",
    ]  # needs: pip install -e '.[env]'

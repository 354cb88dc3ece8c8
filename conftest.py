"""Root pytest configuration: skip the environment modules' doctests without the ``env`` extra,
and the compiled modules' doctests when they run compiled (``tests/test_compiled.py`` runs
those doctests on the sources)."""

import importlib.util

from guandan_cli.native.compiled import COMPILED_SOURCES, status

collect_ignore_glob = []
if any(importlib.util.find_spec(m) is None for m in ("numpy", "gymnasium", "pettingzoo")):
    collect_ignore_glob += [
        "guandan_cli/env/*.py",
        "tests/env_reference.py",
    ]  # needs: pip install -e '.[env]'
if status()["compiled"]:
    # pytest imports a module's doctests from its .py file, which the extension module shadows
    collect_ignore_glob += list(COMPILED_SOURCES)

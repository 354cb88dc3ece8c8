"""The doctests of ``guandan_cli.strategies``, run by that name.

The folder ``strategies/`` installs as ``guandan_cli.strategies`` (setup.py), so pytest's
``--doctest-modules`` collection by path would import it a second time under the generic
top-level name ``strategies``; these tests import each module by its real name instead.
A compiled module's doctests run from its source in ``tests/test_compiled.py``.
"""

from __future__ import annotations

import doctest
import importlib
import importlib.machinery
import importlib.util
import pkgutil

import guandan_cli.strategies
import pytest

MODULES = ["guandan_cli.strategies"] + [
    m.name for m in pkgutil.walk_packages(guandan_cli.strategies.__path__, "guandan_cli.strategies.")
]
_NEEDS = {"guandan_cli.strategies.onnx_model": ("numpy", "onnxruntime")}


def test_every_strategies_module_is_listed():
    assert {"guandan_cli.strategies.registry", "guandan_cli.strategies.heuristic.plan"} <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name):
    for needed in _NEEDS.get(name, ()):
        if importlib.util.find_spec(needed) is None:
            pytest.skip(f"{name} needs {needed}: pip install -e '.[learn]'")
    module = importlib.import_module(name)
    if any(str(module.__file__).endswith(s) for s in importlib.machinery.EXTENSION_SUFFIXES):
        pytest.skip(f"{name} runs compiled: tests/test_compiled.py runs its doctests from the source")
    finder, runner = doctest.DocTestFinder(), doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for test in finder.find(module, name):
        runner.run(test)
    failed, attempted = runner.summarize(verbose=False)
    assert failed == 0, f"{failed} of {attempted} doctest examples of {name} failed (output above)"

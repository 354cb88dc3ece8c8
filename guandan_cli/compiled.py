"""The hot modules compiled with mypyc, and the guard that never runs a stale build.

``pip install`` compiles the modules of :data:`COMPILED_MODULES` with mypyc (``setup.py``):
the same Python source, turned into C extension modules that sit next to the ``.py`` files
and that Python imports in their place. Their decisions are the same, bit for bit (the logs
of a seed do not change); only the speed does. The build records the sha256 of each source it
compiled (:data:`RECORD_NAME`, in this package's folder).

An extension module found beside its source shadows it, so after an edit of ``plan.py`` in an
editable install the old build would run. :func:`install` puts a finder in front of Python's
own that loads the sources instead (all of them: the compiled modules call each other
directly) when

- ``GUANDAN_PURE_PYTHON`` is set to anything but ``""`` or ``"0"`` (pure Python on purpose:
  equivalence tests, profiling the source), or
- a compiled module's source no longer matches the build's record, or a compiled module has
  no record (a build by hand): then one line on stderr says so (once per run, worker
  processes included), and that ``pip install -e .`` rebuilds them.

>>> status()["modules"][0]
'strategies.heuristic.plan'
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import json
import os
import sys
from pathlib import Path

#: the modules ``setup.py`` compiles (in one mypyc group), as file paths from the project root
COMPILED_SOURCES = (
    "strategies/heuristic/plan.py",
    "strategies/heuristic/memory.py",
    "strategies/heuristic/bot.py",
)
#: the same, as module names
COMPILED_MODULES = tuple(p[:-3].replace("/", ".") for p in COMPILED_SOURCES)
#: the build's record of the sources it compiled: ``{"module": "sha256 of its source", …}``
RECORD_NAME = "_compiled_sources.json"
#: the environment variable that asks for pure Python (at build time: compile nothing)
PURE_ENV = "GUANDAN_PURE_PYTHON"
#: set once the stale-build warning is printed (inherited by worker processes: printed once)
_WARNED_ENV = "_GUANDAN_STALE_BUILD_WARNED"


def pure_python_requested() -> bool:
    """Whether ``GUANDAN_PURE_PYTHON`` asks for the sources."""
    return os.environ.get(PURE_ENV, "") not in ("", "0")


def source_sha256(path: Path) -> str:
    """The sha256 of a source file, as the build records it."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _record_path() -> Path:
    return Path(__file__).resolve().parent / RECORD_NAME


def _locate(module: str, path=None) -> tuple[Path | None, Path | None]:
    """(the source, the extension module) of ``module``, found in its package's folders
    (``path``, else the package's ``__path__``) without importing it; either None if absent."""
    parent, _dot, leaf = module.rpartition(".")
    if path is None:
        package = sys.modules.get(parent)
        spec = None if package is not None else importlib.util.find_spec(parent)
        path = (
            package.__path__ if package is not None else (spec.submodule_search_locations if spec else None)
        )
    suffixes = importlib.machinery.EXTENSION_SUFFIXES
    for entry in path or ():
        folder = Path(entry)
        source = folder / (leaf + ".py")
        ext = next((folder / (leaf + s) for s in suffixes if (folder / (leaf + s)).is_file()), None)
        if ext is not None or source.is_file():
            return (source if source.is_file() else None), ext
    return None, None


def _decide() -> tuple[bool, str]:
    """(whether the compiled modules may run, why not when they may not)."""
    found = {m: _locate(m) for m in COMPILED_MODULES}
    if not any(ext for _src, ext in found.values()):
        return False, "not compiled"
    if pure_python_requested():
        return False, f"{PURE_ENV} is set"
    if not all(ext for _src, ext in found.values()):
        missing = ", ".join(m for m, (_s, ext) in found.items() if ext is None)
        return False, f"incomplete build (no compiled {missing})"
    try:
        record = json.loads(_record_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False, f"no record of the compiled sources ({_record_path()})"
    for module, (source, _ext) in found.items():
        if source is not None and record.get(module) != source_sha256(source):
            return False, f"{source} changed since it was compiled"
    return True, ""


class _SourceFinder:
    """Loads the compiled modules from their ``.py`` sources (a ``sys.meta_path`` finder)."""

    @staticmethod
    def find_spec(fullname: str, path=None, target=None):
        if fullname not in COMPILED_MODULES or _STATE["compiled"]:
            return None
        source, _ext = _locate(fullname, path)
        if source is None:
            return None
        return importlib.util.spec_from_file_location(fullname, source)


#: ``compiled``: whether the compiled modules run; ``why``: the reason when they do not
_STATE: dict = {"compiled": False, "why": "not decided", "decided": False}


def install() -> None:
    """Decide once per process whether the compiled modules may run; if not, make the sources
    load in their place (warning when a build is stale). Call before importing any of them."""
    if _STATE["decided"]:
        return
    _STATE["decided"] = True
    if any(m in sys.modules for m in COMPILED_MODULES):  # pragma: no cover - imported already
        mod = sys.modules[next(m for m in COMPILED_MODULES if m in sys.modules)]
        _STATE["compiled"] = not str(getattr(mod, "__file__", "")).endswith(".py")
        _STATE["why"] = "" if _STATE["compiled"] else "imported before the check"
        return
    compiled, why = _decide()
    _STATE["compiled"], _STATE["why"] = compiled, why
    if not compiled:
        sys.meta_path.insert(0, _SourceFinder())  # type: ignore[arg-type]
        if why not in ("not compiled", f"{PURE_ENV} is set") and not os.environ.get(_WARNED_ENV):
            # once per run: worker processes inherit the variable
            os.environ[_WARNED_ENV] = "1"
            print(
                f"guandan: warning: running the pure-Python sources (slower): {why}; "
                "`pip install -e .` rebuilds the compiled modules",
                file=sys.stderr,
            )


def status() -> dict:
    """Whether the compiled modules run: ``{"compiled": bool, "why": str, "modules": [...]}``."""
    install()
    return {"compiled": _STATE["compiled"], "why": _STATE["why"], "modules": list(COMPILED_MODULES)}


def describe() -> str:
    """One line for ``guandan bench``: compiled or pure Python, and why."""
    s = status()
    if s["compiled"]:
        return "compiled (mypyc): " + ", ".join(m.rsplit(".", 1)[-1] for m in s["modules"])
    return f"pure Python ({s['why']})"

"""The hot modules compiled with mypyc, and the guard that never runs a stale build.

``pip install`` compiles the modules of :data:`COMPILED_MODULES` with mypyc (``setup.py``):
the same Python source, turned into C extension modules that sit next to the ``.py`` files
and that Python imports in their place. Their decisions are the same, bit for bit (the logs
of a seed do not change); only the speed does. The build records the sha256 of each source it
compiled (:data:`RECORD_NAME`, in this package's folder).

An extension module found beside its source shadows it, so after an edit of ``plan.py`` in an
editable install the old build would run. :func:`install` (run by ``import guandan_cli``) puts
a finder in front of Python's own that loads the sources instead (all of them: the compiled modules call each other
directly) when

- ``GUANDAN_PURE_PYTHON`` is set to anything but ``""`` or ``"0"`` (pure Python on purpose:
  equivalence tests, profiling the source), or
- a compiled module's source no longer matches the build's record, or a compiled module has
  no record (a build by hand): then one line on stderr says so (once per run, worker
  processes included), and that ``pip install -e .`` rebuilds them.

>>> status()["modules"][0]
'guandan_cli.engine.legal'
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import sys
from pathlib import Path

#: the modules ``setup.py`` compiles (in one mypyc group), as file paths from the project root
COMPILED_SOURCES = (
    "guandan_cli/engine/legal.py",
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
    import hashlib  # (imported on use: ``import guandan_cli`` stays light for ``--help``)

    return hashlib.sha256(path.read_bytes()).hexdigest()


def _record_path() -> Path:
    return _ROOT / "guandan_cli" / RECORD_NAME


#: the folder holding the packages ``guandan_cli`` and ``strategies`` (the project root in an
#: editable install, site-packages otherwise): the compiled modules' files are found from it
#: without importing anything (the decision may be taken in the middle of an import)
_ROOT = Path(__file__).resolve().parent.parent


def _locate(source: str) -> tuple[Path | None, Path | None]:
    """(the source file, the extension module file) of ``source`` (a path of
    ``COMPILED_SOURCES``); either None when absent."""
    path = _ROOT / source
    stem = path.with_suffix("")
    ext = next(
        (e for e in (Path(str(stem) + s) for s in importlib.machinery.EXTENSION_SUFFIXES) if e.is_file()),
        None,
    )
    return (path if path.is_file() else None), ext


def _decide() -> tuple[bool, str]:
    """(whether the compiled modules may run, why not when they may not)."""
    found = {m: _locate(src) for m, src in zip(COMPILED_MODULES, COMPILED_SOURCES, strict=True)}
    if not any(ext for _src, ext in found.values()):
        return False, "not compiled"
    if pure_python_requested():
        return False, f"{PURE_ENV} is set"
    if not all(ext for _src, ext in found.values()):
        missing = ", ".join(m for m, (_s, ext) in found.items() if ext is None)
        return False, f"incomplete build (no compiled {missing})"
    import json

    try:
        record = json.loads(_record_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False, f"no record of the compiled sources ({_record_path()})"
    for module, (source, _ext) in found.items():
        if source is not None and record.get(module) != source_sha256(source):
            return False, f"{source} changed since it was compiled"
    return True, ""


#: ``compiled``: whether the compiled modules run (None: not decided yet); ``why``: why not
_STATE: dict = {"compiled": None, "why": ""}


def _decided() -> bool:
    """Whether the compiled modules run, decided on first use (a warning if a build is stale)."""
    if _STATE["compiled"] is None:
        compiled, why = _decide()
        _STATE["compiled"], _STATE["why"] = compiled, why
        if why not in ("", "not compiled", f"{PURE_ENV} is set") and not os.environ.get(_WARNED_ENV):
            # once per run: worker processes inherit the variable
            os.environ[_WARNED_ENV] = "1"
            print(
                f"guandan: warning: running the pure-Python sources (slower): {why}; "
                "`pip install -e .` rebuilds the compiled modules",
                file=sys.stderr,
            )
    return _STATE["compiled"]


class _SourceFinder:
    """Loads the compiled modules from their ``.py`` sources when they may not run compiled
    (a ``sys.meta_path`` finder, ahead of Python's own)."""

    @staticmethod
    def find_spec(fullname: str, path=None, target=None):
        if fullname not in _SOURCE_OF or _decided():
            return None
        source, _ext = _locate(_SOURCE_OF[fullname])
        if source is None:  # pragma: no cover - a build without its sources
            return None
        return importlib.util.spec_from_file_location(fullname, source)


_SOURCE_OF = dict(zip(COMPILED_MODULES, COMPILED_SOURCES, strict=True))


def install() -> None:
    """Put the finder ahead of Python's (once; ``import guandan_cli`` does it). The decision
    is taken when a compiled module is first imported."""
    if not any(isinstance(f, _SourceFinder) for f in sys.meta_path):
        # just ahead of the finder of files on sys.path (and of the editable install's finder,
        # after it): finders put first by others still come first
        finders = sys.meta_path
        at = finders.index(importlib.machinery.PathFinder) if importlib.machinery.PathFinder in finders else 0
        finders.insert(at, _SourceFinder())  # type: ignore[arg-type]


def status() -> dict:
    """Whether the compiled modules run: ``{"compiled": bool, "why": str, "modules": [...]}``."""
    _decided()
    return {"compiled": _STATE["compiled"], "why": _STATE["why"], "modules": list(COMPILED_MODULES)}


def describe() -> str:
    """One line for ``guandan bench``: compiled or pure Python, and why."""
    s = status()
    if s["compiled"]:
        return "compiled (mypyc): " + ", ".join(m.rsplit(".", 1)[-1] for m in s["modules"])
    return f"pure Python ({s['why']})"

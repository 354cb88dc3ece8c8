"""The hot modules compiled with mypyc, and the guard that never runs a stale build.

``pip install`` compiles the modules of :data:`COMPILED_MODULES` with mypyc (``setup.py``):
the same Python source, turned into C extension modules that sit next to the ``.py`` files
and that Python imports in their place. Their decisions are the same, bit for bit (the logs
of a seed do not change); only the speed does. The build records the sha256 of each source it
compiled (:data:`RECORD_NAME`, in the folder of ``guandan_cli``).

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

#: the modules ``setup.py`` compiles (in one mypyc group)
COMPILED_MODULES = (
    "guandan_cli.engine.legal",
    "guandan_cli.strategies.heuristic.plan",
    "guandan_cli.strategies.heuristic.memory",
    "guandan_cli.strategies.heuristic.bot",
)
#: the same, as file paths in the repository (``strategies/`` is ``guandan_cli.strategies``)
COMPILED_SOURCES = tuple(
    m.replace("guandan_cli.strategies.", "strategies.", 1).replace(".", "/") + ".py" for m in COMPILED_MODULES
)
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
    """Where the build records the sources it compiled (``guandan_cli/_compiled_sources.json``)."""
    return _PACKAGE / RECORD_NAME


#: the folder of ``guandan_cli``; ``guandan_cli.strategies`` is its subfolder ``strategies``
#: when installed from a wheel, the folder ``strategies`` beside it in a source tree (an
#: editable install). The compiled modules' files are found from them without importing
#: anything (the decision may be taken in the middle of an import).
_PACKAGE = Path(__file__).resolve().parent.parent


def source_path(module: str) -> Path:
    """The ``.py`` path of a compiled module, installed or in a source tree (the module's
    ``__file__`` does not tell: mypyc names the installed layout even in a source tree)."""
    parts = module.split(".")[1:]
    if parts[0] == "strategies" and not (_PACKAGE / "strategies").is_dir():
        return _PACKAGE.parent.joinpath(*parts).with_suffix(".py")
    return _PACKAGE.joinpath(*parts).with_suffix(".py")


def _locate(module: str) -> tuple[Path | None, Path | None]:
    """(the source file, the extension module file) of a module of ``COMPILED_MODULES``;
    either None when absent."""
    path = source_path(module)
    stem = path.with_suffix("")
    ext = next(
        (e for e in (Path(str(stem) + s) for s in importlib.machinery.EXTENSION_SUFFIXES) if e.is_file()),
        None,
    )
    return (path if path.is_file() else None), ext


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
        if fullname not in COMPILED_MODULES or _decided():
            return None
        source, _ext = _locate(fullname)
        if source is None:  # pragma: no cover - a build without its sources
            return None
        return importlib.util.spec_from_file_location(fullname, source)


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

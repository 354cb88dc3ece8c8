"""Code fingerprints of strategies: a stored result is reused only while the bots' code is the same.

The fingerprint of a strategy class is a SHA-256 over the source files that define it:

- the file of the class and of each of its base classes (``Strategy`` and ``object`` aside);
- when such a file is a module of a package, every ``.py`` file of that package's
  top-level folder (for ``guandan_cli.strategies.heuristic`` that is the whole
  ``guandan_cli.strategies`` folder, which counts as top-level here);
- when it is a lone file (``mybot.py:Mine``), every ``.py`` file of its folder and its
  subfolders (hidden folders, ``__pycache__`` and virtual environments aside): what a
  file imports cannot be found reliably (an import inside a method, a constant imported
  by name, ``importlib.import_module``), and a bot that imports a changed sibling is a
  changed bot, so an edit of any file there counts as a change (a recomputation too
  many is cheap; results of old code taken for new are not);
- for a class defined where there is no file (a notebook cell, ``python -c``), the class's
  own source text when Python still has it, else its serialised form (``dill``);
- the data files the class plays from, when it names them in a ``fingerprint_files``
  attribute (an ``onnx:`` strategy names its model file and sidecar), by their content.

Files are hashed under their path relative to their folder, so moving a project does not
change a fingerprint. The fingerprint also names the distribution and version the class
is installed from (``guandan-cli 0.1.0`` for built-ins, a plugin's own name and version).

>>> fp = fingerprint("greedy")
>>> fp["package"].startswith("guandan-cli "), len(fp["hash"]), fp["files"] > 3
(True, 16, True)
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import os
import sys
import types
from pathlib import Path

from .registry import load_strategy

_SKIP = {"builtins"}


def _module_file(module: types.ModuleType | None) -> Path | None:
    """The ``.py`` source of a module: its file, or for a module compiled from a source beside
    it (mypyc: ``plan.cpython-311-….so`` next to ``plan.py``) that source, so a compiled bot
    and its source have one fingerprint, and an edit of the source changes it."""
    from guandan_cli.compiled import COMPILED_MODULES, source_path

    name = getattr(module, "__name__", "")
    if name in COMPILED_MODULES:  # (mypyc's ``__file__`` names the installed layout, not the tree's)
        return source_path(name).resolve()
    f = getattr(module, "__file__", None)
    if f and not f.endswith(".py"):
        from importlib.machinery import EXTENSION_SUFFIXES

        suffix = next((s for s in EXTENSION_SUFFIXES if f.endswith(s)), None)
        f = f[: -len(suffix)] + ".py" if suffix else None
    if not f or not os.path.isfile(f):
        return None
    return Path(f).resolve()


def _installed(path: Path) -> bool:
    """A file of the Python installation or a virtual environment (site-packages)."""
    prefixes = {Path(p).resolve() for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    return "site-packages" in path.parts or any(path.is_relative_to(p) for p in prefixes)


#: packages fingerprinted as a whole folder of their own, as if they were top-level
_OWN_ROOTS = ("guandan_cli.strategies",)


def _package_root(module: types.ModuleType) -> Path | None:
    """The folder of a module's top-level package (``None`` for a lone module)."""
    name = module.__name__
    top = next((r for r in _OWN_ROOTS if name == r or name.startswith(r + ".")), name.partition(".")[0])
    pkg = sys.modules.get(top)
    paths = list(getattr(pkg, "__path__", []) or [])
    if not paths or (pkg is module and "." not in name and not hasattr(module, "__path__")):
        return None
    return Path(paths[0]).resolve()


def _folder_files(folder: Path) -> list[Path]:
    """Every ``.py`` file under ``folder``, but not in hidden folders, ``__pycache__`` or a
    virtual environment (``pyvenv.cfg``, ``site-packages``)."""
    found = []
    for here, dirs, files in os.walk(folder):
        dirs[:] = sorted(
            d
            for d in dirs
            if not d.startswith(".")
            and d not in ("__pycache__", "site-packages", "node_modules")
            and not os.path.isfile(os.path.join(here, d, "pyvenv.cfg"))
        )
        found += [Path(here, f).resolve() for f in sorted(files) if f.endswith(".py")]
    return found


def _add_module(module: types.ModuleType, seen: dict[Path, Path]) -> None:
    f = _module_file(module)
    if f is None:
        return
    root = _package_root(module)
    if root is not None:
        for p in sorted(root.rglob("*.py")):
            seen.setdefault(p.resolve(), root.parent)
        return
    seen.setdefault(f, f.parent)
    if _installed(f):  # a lone installed module: its folder is the installation's
        return
    for p in _folder_files(f.parent):
        seen.setdefault(p, f.parent)


def _providers(top: str):
    """The distributions providing top-level package ``top``: first a distribution named
    ``top`` and this project's own, when they provide it, then every one in the order of
    ``packages_distributions()[top]`` (its scan, lazily: a distribution's metadata, an
    e-mail parse, is read only when it provides ``top``, and its list of files only when
    ``top`` occurs in it). The first whose version reads is the one recorded."""
    from importlib import metadata

    declared = getattr(metadata, "_top_level_declared", None)
    inferred = getattr(metadata, "_top_level_inferred", None)
    if declared is None or inferred is None:  # pragma: no cover - another importlib layout
        yield from metadata.packages_distributions().get(top, [])
        return

    def provides(dist) -> bool:
        tops = declared(dist)
        if not tops:
            # inferred from the files listed in RECORD (or SOURCES.txt): parsed only when
            # the name appears in them at all
            listed = (dist.read_text("RECORD") or "") + (dist.read_text("SOURCES.txt") or "")
            tops = inferred(dist) if top in listed else ()
        return top in tops

    # likely providers first, each found by name (a scan of every distribution costs ~40 ms):
    # a distribution named like the package, and this project's own (the built-ins)
    for name in dict.fromkeys((top, _OWN_DISTRIBUTION)):
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        if provides(dist):
            yield dist.metadata["Name"]
    for dist in metadata.distributions():
        if provides(dist):
            yield dist.metadata["Name"]


#: the distribution this project is installed as (pyproject.toml's name)
_OWN_DISTRIBUTION = "guandan-cli"


#: this project's top-level packages (setup.py's ``packages``): provided by ``guandan-cli``
_OWN_PACKAGES = ("guandan_cli",)


def _own_distribution() -> str | None:
    """``guandan-cli version`` read from the first ``guandan_cli-<version>.dist-info`` folder on
    ``sys.path`` (where ``importlib.metadata.distribution("guandan-cli")`` finds it too), without
    importing ``importlib.metadata`` (~25 ms: it parses e-mail headers); None if there is none."""
    prefix = _OWN_DISTRIBUTION.replace("-", "_") + "-"
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        for name in names:
            if name.startswith(prefix) and name.endswith(".dist-info"):
                version = name[len(prefix) : -len(".dist-info")]
                return f"{_OWN_DISTRIBUTION} {version}" if version and "-" not in version else None
    return None


@functools.cache
def _distribution(module_name: str) -> str | None:
    """``name version`` of the installed distribution providing the top-level package, if any
    (the first one listed whose version can be read; the scan stops there)."""
    top = module_name.partition(".")[0]
    if top in _OWN_PACKAGES:
        own = _own_distribution()
        if own is not None:
            return own
    from importlib.metadata import PackageNotFoundError, version

    for dist in _providers(top):
        try:
            return f"{dist} {version(dist)}"
        except PackageNotFoundError:  # pragma: no cover - inconsistent metadata
            continue
    return None


def _fileless_source(cls: type) -> bytes:
    """The source of a class defined without a file (a notebook cell), else its pickled form."""
    try:
        return inspect.getsource(cls).encode()
    except (OSError, TypeError):
        pass
    try:
        import dill

        return dill.dumps(cls, recurse=True)
    except Exception:  # noqa: BLE001 - nothing better is available
        return repr(sorted(vars(cls))).encode()


def source_files(cls: type) -> list[tuple[Path, Path]]:
    """``(file, folder it is named relative to)`` of every file the fingerprint of ``cls`` hashes."""
    from .base import Strategy

    seen: dict[Path, Path] = {}
    for c in cls.__mro__:
        if c is object or c is Strategy or c.__module__ in _SKIP:
            continue
        module = sys.modules.get(c.__module__)
        if module is not None:
            _add_module(module, seen)
    return sorted(seen.items())


def fingerprint(strategy: str | type) -> dict:
    """``{"hash": 16 hex digits, "files": how many, "package": "dist version" or None}``."""
    cls = load_strategy(strategy)
    h = hashlib.sha256(f"{cls.__module__}:{cls.__qualname__}\0".encode())
    files = source_files(cls)
    for path, root in files:
        h.update(path.relative_to(root).as_posix().encode() + b"\0")
        h.update(path.read_bytes())
        h.update(b"\0")
    module = sys.modules.get(cls.__module__)
    if _module_file(module) is None or cls.__module__ in ("__main__", "__mp_main__"):
        h.update(b"class\0" + _fileless_source(cls))
    for data in getattr(cls, "fingerprint_files", ()):
        data = Path(data)
        h.update(b"data\0" + data.name.encode() + b"\0")
        h.update(data.read_bytes() if data.is_file() else b"(missing)")
    return {
        "hash": h.hexdigest()[:16],
        "files": len(files),
        "package": _distribution(cls.__module__),
    }


#: the key of the engine's own fingerprint among a run's strategy fingerprints
ENGINE = "guandan_cli.engine"


@functools.cache
def engine_fingerprint() -> dict:
    """The fingerprint of the rules' code (every file of ``guandan_cli/engine``).

    A run's identity includes it beside the strategies': the same bots under edited rules
    are other games, so stored comparisons are recomputed after an engine change.

    >>> fp = engine_fingerprint()
    >>> len(fp["hash"]), fp["files"] > 5
    (16, True)
    """
    import guandan_cli.engine as engine

    root = Path(engine.__file__).resolve().parent
    files = sorted(root.rglob("*.py"))
    h = hashlib.sha256(b"engine\0")
    for path in files:
        h.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return {"hash": h.hexdigest()[:16], "files": len(files), "package": _distribution("guandan_cli")}


__all__ = ["ENGINE", "engine_fingerprint", "fingerprint", "source_files"]

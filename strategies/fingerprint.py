"""Code fingerprints of strategies: a stored result is reused only while the bots' code is the same.

The fingerprint of a strategy class is a SHA-256 over the source files of the code it runs:

- the file of the class and of each of its base classes (``Strategy`` and ``object`` aside);
- the modules each of those files imports from its own folder, and theirs in turn: for a
  lone file (``mybot.py:Mine``) the folder it is in (what ``import helper`` finds there),
  for a module of a package its top-level package (``guandan_cli.strategies`` counts as
  top-level here), with the ``__init__.py`` of each package on the way. The imports are
  read from the source, wherever they are (at the top, inside a function or a method,
  ``importlib.import_module("name")`` with a literal name; not under
  ``if TYPE_CHECKING:``). Other files of the folder do not count;
- for a class defined where there is no file (a notebook cell, ``python -c``), the class's
  own source text when Python still has it, else its serialised form (``dill``);
- the data files the class plays from, when it names them in a ``fingerprint_files``
  attribute (an ``onnx:`` strategy names its model file and sidecar), by their content.

The sources alone decide (not what a process happens to have imported: another bot or the
script may have imported a module first), so one code has one fingerprint in any process.
What it misses (docs/comparisons.md): a module imported under a computed name and a file
the bot reads, unless the class lists them in ``fingerprint_files``; code outside the bot's
folder or package (an installed library counts by nothing; this project's and a plugin's
distribution count by name and version).

Files are hashed under their path relative to their folder, so moving a project does not
change a fingerprint. Besides the ``hash``, a fingerprint records each file's own digest
(``sources``), so a changed fingerprint can name the files that changed
(``describe_change``), and the distribution and version the class is installed from
(``guandan-cli 0.1.0`` for built-ins, a plugin's own name and version).

>>> fp = fingerprint("greedy")
>>> fp["package"].startswith("guandan-cli "), len(fp["hash"]), fp["files"] > 3, "strategies/greedy.py" in fp["sources"]
(True, 16, True, True)
"""

from __future__ import annotations

import ast
import functools
import hashlib
import inspect
import os
import re
import sys
import types
from dataclasses import dataclass, field
from pathlib import Path

from .registry import load_strategy

_SKIP = {"builtins"}


def _module_file(module: types.ModuleType | None) -> Path | None:
    """The ``.py`` source of a module: its file, or for a module compiled from a source beside
    it (mypyc: ``plan.cpython-311-….so`` next to ``plan.py``) that source, so a compiled bot
    and its source have one fingerprint, and an edit of the source changes it."""
    from guandan_cli.native.compiled import COMPILED_MODULES, source_path

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


#: packages fingerprinted as a folder of their own, as if they were top-level
_OWN_ROOTS = ("guandan_cli.strategies",)
#: folders never searched for a bot's modules
_SKIP_DIRS = ("__pycache__", "site-packages", "node_modules")


@dataclass(frozen=True)
class _Namespace:
    """Where a bot's modules are looked up: ``root`` holds the modules named ``prefix.…``
    (``prefix`` empty for the folder of a lone file, which is a ``sys.path`` entry);
    files are named relative to ``base``."""

    root: Path
    prefix: str
    base: Path
    #: the names in each folder looked at (for one fingerprint: a file added later is seen)
    listings: dict = field(default_factory=dict, compare=False, repr=False)

    def _names_in(self, folder: Path) -> frozenset[str]:
        got = self.listings.get(folder)
        if got is None:
            try:
                got = frozenset(os.listdir(folder))
            except OSError:
                got = frozenset()
            self.listings[folder] = got
        return got

    def files(self, name: str) -> list[tuple[str, Path, bool]]:
        """``(module name, file, is a package)`` of each package on the way to module ``name``
        and of the module itself, as far as they lie under ``root`` (``[]``: none does).

        A name that goes on past a module file (``helper.STEP``) ends at that file.
        """
        if not self.prefix:
            parts = name.split(".")
        elif name == self.prefix:
            parts = []
        elif name.startswith(self.prefix + "."):
            parts = name[len(self.prefix) + 1 :].split(".")
        else:
            return []
        found: list[tuple[str, Path, bool]] = []
        if self.prefix and "__init__.py" in self._names_in(self.root):
            found.append((self.prefix, self.root / "__init__.py", True))
        folder, dotted = self.root, self.prefix
        for part in parts:
            names = self._names_in(folder)
            dotted = f"{dotted}.{part}" if dotted else part
            if part in names and "__init__.py" in self._names_in(folder / part):
                found.append((dotted, folder / part / "__init__.py", True))
            elif f"{part}.py" in names:
                found.append((dotted, folder / f"{part}.py", False))
                break
            elif part not in names or part in _SKIP_DIRS or part.startswith("."):
                break  # (a folder without __init__.py is a namespace package: go on)
            folder = folder / part
        return found


def _namespace(module: types.ModuleType, path: Path) -> _Namespace | None:
    """The namespace of a module's own folder (``None`` for a lone installed module)."""
    name = module.__name__
    top = next((r for r in _OWN_ROOTS if name == r or name.startswith(r + ".")), name.partition(".")[0])
    pkg = sys.modules.get(top)
    paths = list(getattr(pkg, "__path__", []) or [])
    if paths and not (pkg is module and "." not in name and not hasattr(module, "__path__")):
        root = Path(paths[0]).resolve()
        return _Namespace(root, top, root.parent)
    if _installed(path):  # a lone installed module: its folder is the installation's
        return None
    return _Namespace(path.parent, "", path.parent)


#: the start of an ``import`` or ``from … import`` statement, at any indentation
_IMPORT_LINE = re.compile(rb"^([ \t]*)(?:from[ \t]+[.\w]+[ \t]+import\b|import[ \t]+\w)", re.M)
#: an ``if TYPE_CHECKING:`` line (what follows it, indented deeper, never runs)
_TYPE_CHECKING = re.compile(rb"^([ \t]*)if[ \t]+(?:typing\.)?TYPE_CHECKING[ \t]*:[ \t]*(?:#.*)?$", re.M)
#: ``importlib.import_module("name")`` or ``__import__("name")`` with a literal name
_IMPORT_CALL = re.compile(rb"""\b(?:import_module|__import__)\(\s*(['"])(\.*[\w.]*)\1""")


def _skipped_spans(source: bytes) -> list[tuple[int, int]]:
    """The byte spans of the blocks under ``if TYPE_CHECKING:``."""
    spans = []
    for m in _TYPE_CHECKING.finditer(source):
        indent, pos = len(m.group(1)), m.end() + 1
        end = pos
        for line in re.finditer(rb"^([ \t]*)(\S?).*$", source[pos:], re.M):
            if line.group(2) and len(line.group(1)) <= indent:
                break
            end = pos + line.end()
        spans.append((pos, end))
    return spans


def _statement_at(source: bytes, start: int) -> bytes:
    """The whole import statement that starts at ``start`` (a parenthesised or ``\\``-continued one too)."""
    end = source.find(b"\n", start)
    end = len(source) if end < 0 else end
    if source.find(b"(", start, end) >= 0 and source.find(b")", start, end) < 0:
        close = source.find(b")", end)
        end = len(source) if close < 0 else close + 1
    while source[start:end].rstrip().endswith(b"\\"):
        nxt = source.find(b"\n", end + 1)
        end = len(source) if nxt < 0 else nxt
    return source[start:end]


@functools.lru_cache(maxsize=256)
def _imports_of(path: Path, size: int, mtime_ns: int) -> tuple[tuple[int, str, tuple[str, ...]], ...]:
    """Every import a source file can run, as ``(level, module, names)``: ``import`` and
    ``from … import`` statements anywhere in it (functions and methods included, blocks
    under ``if TYPE_CHECKING:`` aside), and ``import_module``/``__import__`` calls with a
    literal name. Each statement is found by its first words and parsed alone (parsing a
    whole module of 1,300 lines takes ~50 ms); one that only looks like an import, inside a
    string, may add a module that was not imported (a file too many, never one too few).
    Cached while the file's size and time stamp are unchanged."""
    try:
        source = path.read_bytes()
    except OSError:
        return ()
    skipped = _skipped_spans(source)
    found: list[tuple[int, str, tuple[str, ...]]] = []
    for m in _IMPORT_LINE.finditer(source):
        start = m.start() + len(m.group(1))
        if any(a <= start < b for a, b in skipped):
            continue
        try:
            body = ast.parse(_statement_at(source, start).decode("utf-8", "replace")).body
        except SyntaxError:
            continue
        for node in body:
            if isinstance(node, ast.Import):
                found += [(0, alias.name, ()) for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                found.append((node.level, node.module or "", tuple(a.name for a in node.names)))
    for m in _IMPORT_CALL.finditer(source):
        if any(a <= m.start() < b for a, b in skipped):
            continue
        text = m.group(2).decode()
        level = len(text) - len(text.lstrip("."))
        found.append((level, text[level:], ()))
    return tuple(found)


def _imported_names(name: str, is_package: bool, path: Path) -> list[str]:
    """The absolute module names the file of module ``name`` imports (submodules named in a
    ``from … import`` included: whether they are modules is looked up later)."""
    stat = path.stat()
    package = name if is_package else name.rpartition(".")[0]
    out = []
    for level, module, names in _imports_of(path, stat.st_size, stat.st_mtime_ns):
        if level:
            parts = package.split(".") if package else []
            if level - 1 > len(parts) or not parts:
                continue  # beyond the top package (or a lone file's relative import)
            head = ".".join(parts[: len(parts) - (level - 1)])
            module = f"{head}.{module}" if module else head
        if not module:
            continue
        out.append(module)
        out += [f"{module}.{n}" for n in names if n != "*"]
    return out


def _follow(space: _Namespace, name: str, is_package: bool, path: Path, seen: dict[Path, Path]) -> None:
    """Add ``path`` and, recursively, the files of the modules it imports from ``space``."""
    if path in seen:
        return
    seen[path] = space.base
    for imported in _imported_names(name, is_package, path):
        for dotted, file, package in space.files(imported):
            _follow(space, dotted, package, file, seen)


def _add_module(module: types.ModuleType, seen: dict[Path, Path]) -> None:
    f = _module_file(module)
    if f is None:
        return
    space = _namespace(module, f)
    if space is None:
        seen.setdefault(f, f.parent)
        return
    name = module.__name__ if space.prefix else f.stem  # a lone file: named as its folder sees it
    _follow(space, name, f.name == "__init__.py", f, seen)
    for dotted, file, package in space.files(module.__name__) if space.prefix else ():
        _follow(space, dotted, package, file, seen)  # the packages on the way to it


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
    """``(file, folder it is named relative to)`` of every source file the fingerprint of
    ``cls`` hashes, in the order of their names."""
    from .base import Strategy

    seen: dict[Path, Path] = {}
    for c in cls.__mro__:
        if c is object or c is Strategy or c.__module__ in _SKIP:
            continue
        module = sys.modules.get(c.__module__)
        if module is not None:
            _add_module(module, seen)
    return sorted(seen.items(), key=lambda item: (item[0].relative_to(item[1]).as_posix(), str(item[0])))


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:12]


def fingerprint(strategy: str | type) -> dict:
    """``{"hash": 16 hex digits, "files": how many source files, "package": "dist version" or
    None, "sources": {file name: its own digest}}`` (data files and a class without a file
    among the ``sources`` too)."""
    cls = load_strategy(strategy)
    h = hashlib.sha256(f"{cls.__module__}:{cls.__qualname__}\0".encode())
    files = source_files(cls)
    sources: dict[str, str] = {}
    for path, root in files:
        name, data = path.relative_to(root).as_posix(), path.read_bytes()
        h.update(name.encode() + b"\0" + data + b"\0")
        sources[name] = _digest(data)
    module = sys.modules.get(cls.__module__)
    if _module_file(module) is None or cls.__module__ in ("__main__", "__mp_main__"):
        data = _fileless_source(cls)
        h.update(b"class\0" + data)
        sources[f"class {cls.__qualname__}"] = _digest(data)
    for path in getattr(cls, "fingerprint_files", ()):
        path = Path(path)
        data = path.read_bytes() if path.is_file() else b"(missing)"
        h.update(b"data\0" + path.name.encode() + b"\0" + data)
        sources[path.name] = _digest(data)
    return {
        "hash": h.hexdigest()[:16],
        "files": len(files),
        "package": _distribution(cls.__module__),
        "sources": sources,
    }


def _names(names: list[str], most: int = 3) -> str:
    """``a.py``, ``a.py and b.py``, ``a.py, b.py, c.py and 2 more``.

    >>> _names(["a.py"]), _names(["a.py", "b.py"]), _names(["a", "b", "c", "d", "e"])
    ('a.py', 'a.py and b.py', 'a, b, c and 2 more')
    """
    if len(names) > most:
        return f"{', '.join(names[:most])} and {len(names) - most} more"
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def describe_change(old: dict | None, new: dict) -> str:
    """What differs between a stored fingerprint and the one now, naming files: ``helper.py
    edited``, ``lib.py added; old.py removed``, ``guandan-cli 0.1.0 → 0.2.0``; ``""`` when
    the stored one named no files (recorded before fingerprints did) or none differs.

    >>> describe_change({"sources": {"a.py": "1", "b.py": "2"}}, {"sources": {"a.py": "9", "c.py": "3"}})
    'a.py edited; c.py added; b.py removed'
    """
    if not isinstance(old, dict):
        return ""
    parts = []
    before, after = old.get("sources"), new.get("sources") or {}
    if isinstance(before, dict):
        edited = [n for n in after if n in before and before[n] != after[n]]
        added = [n for n in after if n not in before]
        removed = [n for n in before if n not in after]
        for names, what in ((edited, "edited"), (added, "added"), (removed, "removed")):
            if names:
                parts.append(f"{_names(sorted(names))} {what}")
    if old.get("package") != new.get("package"):
        parts.append(f"{old.get('package')} → {new.get('package')}")
    return "; ".join(parts)


#: the key of the engine's own fingerprint among a run's strategy fingerprints
ENGINE = "guandan_cli.engine"


@functools.cache
def engine_fingerprint() -> dict:
    """The fingerprint of the rules' code (every file of ``guandan_cli/engine``).

    A run's identity includes it beside the strategies': the same bots under edited rules
    are other games, so stored comparisons are recomputed after an engine change.

    >>> fp = engine_fingerprint()
    >>> len(fp["hash"]), fp["files"] > 5, "deal.py" in fp["sources"]
    (16, True, True)
    """
    import guandan_cli.engine as engine

    root = Path(engine.__file__).resolve().parent
    files = sorted(root.rglob("*.py"))
    h = hashlib.sha256(b"engine\0")
    sources = {}
    for path in files:
        name, data = path.relative_to(root).as_posix(), path.read_bytes()
        h.update(name.encode() + b"\0" + data + b"\0")
        sources[name] = _digest(data)
    return {
        "hash": h.hexdigest()[:16],
        "files": len(files),
        "package": _distribution("guandan_cli"),
        "sources": sources,
    }


__all__ = ["ENGINE", "describe_change", "engine_fingerprint", "fingerprint", "source_files"]

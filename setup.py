"""Build: compile the hot modules with mypyc when it can (pyproject.toml holds the rest).

The folder ``strategies/`` installs as ``guandan_cli.strategies`` (a package-directory
mapping: the repository keeps the bots at its top, the installed package has no generic
top-level name). The modules of ``guandan_cli.native.compiled.COMPILED_SOURCES`` become C extension
modules beside their sources, in one mypyc group (compiled from a copy laid out as installed,
so that mypyc names them ``guandan_cli.strategies.…``); the build records each source's sha256 in
``guandan_cli/_compiled_sources.json``, so that a later edit of a source makes the sources run
instead of the stale build (``guandan_cli/native/compiled.py``). Pure Python is the fallback: with
``GUANDAN_PURE_PYTHON=1``, without mypyc, or when the C compiler fails, the install still
works and runs the sources (slower; same results).

The rules document ``docs/rules.md`` (``guandan rules``) is copied into the built package as
``guandan_cli/rules.md`` (:class:`BuildPyWithRules`); an editable install reads it from
``docs/`` (``guandan_cli/rules_text.py``). MANIFEST.in puts it in the sdist.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
from pathlib import Path

from setuptools import find_packages, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))
from guandan_cli.native.compiled import COMPILED_MODULES, COMPILED_SOURCES, PURE_ENV, RECORD_NAME  # noqa: E402

sys.path.pop(0)


#: the setup.py commands that build extension modules; pip's metadata step (``dist_info``,
#: ``egg_info``) runs setup.py too, and mypyc need not type-check and generate C for it
_BUILDING = {"build", "build_ext", "bdist_wheel", "editable_wheel", "install", "develop", "bdist_egg"}


#: the folder ``strategies/`` is the package ``guandan_cli.strategies``
PACKAGE_DIR = {"guandan_cli.strategies": "strategies"}
PACKAGES = find_packages(include=["guandan_cli", "guandan_cli.*"]) + [
    f"guandan_cli.strategies{'.' + sub if sub else ''}" for sub in ["", *find_packages("strategies")]
]
#: where mypyc compiles from: a copy of the sources laid out as installed
STAGE = ROOT / "build" / "mypyc-src"


def _stage_sources() -> list[str]:
    """Copy ``guandan_cli/`` and ``strategies/`` (as ``guandan_cli/strategies/``) into
    :data:`STAGE`; the staged paths of ``COMPILED_SOURCES``, relative to it."""
    shutil.rmtree(STAGE, ignore_errors=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.so", "*.pyc")
    shutil.copytree(ROOT / "guandan_cli", STAGE / "guandan_cli", ignore=ignore)
    shutil.copytree(ROOT / "strategies", STAGE / "guandan_cli" / "strategies", ignore=ignore)
    return [module.replace(".", "/") + ".py" for module in COMPILED_MODULES]


def _remove_old_build() -> None:
    """Delete an earlier build's extension modules and record from the source tree (an
    editable install puts them there): a pure build must not leave an old compiled one running."""
    from importlib.machinery import EXTENSION_SUFFIXES

    stems = [ROOT / src[:-3] for src in COMPILED_SOURCES] + [ROOT / "guandan_native__mypyc"]
    for stem in stems:
        for suffix in EXTENSION_SUFFIXES:
            Path(str(stem) + suffix).unlink(missing_ok=True)
    (ROOT / "guandan_cli" / RECORD_NAME).unlink(missing_ok=True)


def _pure(reason: str) -> list:
    print(f"guandan: {reason}: pure Python, nothing compiled", file=sys.stderr)
    _remove_old_build()
    return []


def _mypyc_extensions() -> list:
    """The mypyc extension modules, or none (with the reason printed) when they cannot be made."""
    if not _BUILDING.intersection(sys.argv[1:]):
        return []
    if os.environ.get(PURE_ENV, "") not in ("", "0"):
        return _pure(f"{PURE_ENV} is set")
    try:
        from mypyc.build import mypycify
    except ImportError:
        return _pure("mypyc is not available")
    here = os.getcwd()
    try:
        staged = _stage_sources()
        os.chdir(STAGE)  # mypy resolves ``guandan_cli`` from the staged copy alone
        exts = mypycify(
            ["--follow-imports=silent", "--ignore-missing-imports", *staged],
            opt_level="3",
            group_name="guandan_native",
            target_dir=str(ROOT / "build"),
        )
    except (Exception, SystemExit) as exc:  # a type error stops mypyc: install the sources
        return _pure(f"mypyc failed ({exc})")
    finally:
        os.chdir(here)
    for ext in exts:
        ext.optional = True  # a failed C compile leaves pure Python, not a failed install
    return exts


class BuildCompiled(build_ext):
    """``build_ext`` that keeps the compiled modules only if all of them were built, and then
    records the sources they were built from."""

    def run(self) -> None:
        super().run()
        if not self.extensions:
            return
        outputs = [Path(self.get_ext_fullpath(ext.name)) for ext in self.extensions]
        package_dir = Path(self.get_ext_fullpath("guandan_cli._record")).parent
        record = package_dir / RECORD_NAME
        if not all(p.is_file() for p in outputs):
            # an incomplete group would fail at import: keep none of it
            for p in outputs:
                p.unlink(missing_ok=True)
            record.unlink(missing_ok=True)
            _pure("the C compiler failed")
            return
        sums = {
            module: hashlib.sha256((ROOT / src).read_bytes()).hexdigest()
            for module, src in zip(COMPILED_MODULES, COMPILED_SOURCES, strict=True)
        }
        package_dir.mkdir(parents=True, exist_ok=True)
        record.write_text(json.dumps(sums, indent=1, sort_keys=True) + "\n", encoding="utf-8")


#: the rules document (``guandan rules``): kept in the repository's docs/, installed in the package
RULES_SOURCE = ROOT / "docs" / "rules.md"
RULES_INSTALLED = ("guandan_cli", "rules.md")


class BuildPyWithRules(build_py):
    """``build_py`` that also copies ``docs/rules.md`` into the built package as
    ``guandan_cli/rules.md``, so that an installed wheel carries the rules its errors cite.
    An editable install builds nothing here: it reads ``docs/rules.md`` in place."""

    def _rules_target(self) -> Path:
        return Path(self.build_lib, *RULES_INSTALLED)

    def run(self) -> None:
        super().run()
        if self.editable_mode:
            return
        if not RULES_SOURCE.is_file():
            raise FileNotFoundError(f"{RULES_SOURCE} is missing: the package would ship without its rules")
        target = self._rules_target()
        self.mkpath(str(target.parent))
        self.copy_file(str(RULES_SOURCE), str(target))

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        outputs = super().get_outputs(include_bytecode)
        return outputs if self.editable_mode else [*outputs, str(self._rules_target())]


setup(
    packages=PACKAGES,
    package_dir=PACKAGE_DIR,
    package_data={"guandan_cli.web": ["static/*"]},  # the web table's page (guandan table)
    ext_modules=_mypyc_extensions(),
    cmdclass={"build_ext": BuildCompiled, "build_py": BuildPyWithRules},
)

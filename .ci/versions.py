"""Print the installed versions of pyproject.toml's direct dependencies (all extras), so that a
failing pass of .ci/run names the versions it tested; with --lowest, also fail unless each
installed version is its lower bound (the oldest pass: pyproject's lower bounds are the
versions that this pass really tested). With --build-floors, print [build-system]'s lower
bounds as ``name==version`` lines (the oldest pass builds with them: uv's --build-constraints).

Run with the pass's own Python: ``python .ci/versions.py [--lowest | --build-floors]``.
"""

from __future__ import annotations

import sys
import tomllib
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent


def direct_requirements() -> dict[str, Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    lines = list(project["dependencies"])
    for extra in project.get("optional-dependencies", {}).values():
        lines += extra
    reqs: dict[str, Requirement] = {}
    for line in lines:
        req = Requirement(line)
        reqs.setdefault(canonicalize_name(req.name), req)
    return dict(sorted(reqs.items()))


def main(lowest: bool) -> int:
    shown, wrong = [], []
    for name, req in direct_requirements().items():
        try:
            got = version(name)
        except PackageNotFoundError:
            shown.append(f"{name} (not installed)")
            wrong.append(f"{name}: not installed")
            continue
        shown.append(f"{name}=={got}")
        floors = [s.version for s in req.specifier if s.operator in (">=", "==", "~=")]
        if lowest and floors and Version(got) != Version(floors[0]):
            wrong.append(f"{name}: pyproject.toml says {req.specifier}, the oldest pass installed {got}")
    print("direct dependencies: " + " ".join(shown))
    for line in wrong:
        print(f"versions.py: {line}", file=sys.stderr)
    if lowest and wrong:
        print(
            "versions.py: a lower bound that the oldest pass did not install is untested: set it to the "
            "version installed (another package's requirement lifted it) after this pass is green",
            file=sys.stderr,
        )
        return 1
    return 0


def build_floors() -> int:
    requires = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["build-system"][
        "requires"
    ]
    for line in requires:
        req = Requirement(line)
        floors = [s.version for s in req.specifier if s.operator in (">=", "==")]
        if floors:
            print(f"{req.name}=={floors[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(build_floors() if "--build-floors" in sys.argv[1:] else main("--lowest" in sys.argv[1:]))

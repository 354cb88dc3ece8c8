"""The measures of issue 37 (values above the log format), as one table: rerun it after a change.

    python scripts/code_measures.py            # the table (runs `duplicates` when it is on PATH)
    python scripts/code_measures.py --no-duplicates

| measure | how it is counted |
|---|---|
| record/manifest dict lookups outside ``logs/`` | ``rec["…"]``, ``prev["…"]``, ``manifest["…"]``, ``existing["…"]``, ``record["…"]`` (``.get("…")`` on those names counted apart) in ``guandan_cli/`` but ``logs/`` |
| ``read_manifest(`` call sites | calls in ``guandan_cli/``, ``strategies/`` and ``scripts/`` (not the definition) |
| ``BAD_RECORD``-style catch-alls | a name bound to a tuple of exception classes holding both ``KeyError`` and ``TypeError`` (and the times such names are used) |
| types for a logged deal | classes named ``LoggedDeal`` or ``ShownDeal`` |
| longest function in ``cli/`` and ``runner/`` | ``def`` line to last line (``scripts/function_lengths.py``), ``logreaders/`` (verify and replay, once in ``runner/``) included |
| parameters of the widest function | in ``guandan_cli/`` (``self``/``cls`` not counted) |
| ``duplicates`` pairs | the first line of ``duplicates`` on the whole tree |
"""

from __future__ import annotations

import argparse
import ast
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

from function_lengths import function_lengths  # noqa: E402

PACKAGE = ROOT / "guandan_cli"
NAMES = r"\b(?:rec|prev|manifest|existing|record)"
LOOKUP = re.compile(NAMES + r"\[\s*[\"']")
GET = re.compile(NAMES + r"\.get\(\s*[\"']")


def _sources(*folders: Path) -> list[Path]:
    return [f for d in folders for f in sorted(d.rglob("*.py")) if ".venv" not in f.parts]


def dict_lookups() -> tuple[int, int, dict[str, int]]:
    """``(subscripts, .get calls, per file)``: lookups of a record or manifest by string key outside ``logs/``."""
    per_file: dict[str, int] = {}
    gets = 0
    for f in _sources(PACKAGE):
        if f.relative_to(PACKAGE).parts[0] == "logs":
            continue
        text = f.read_text(encoding="utf-8")
        n = len(LOOKUP.findall(text))
        gets += len(GET.findall(text))
        if n:
            per_file[f.relative_to(ROOT).as_posix()] = n
    return sum(per_file.values()), gets, per_file


def read_manifest_calls() -> int:
    n = 0
    for f in _sources(PACKAGE, ROOT / "strategies", ROOT / "scripts"):
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                func = node.func
                name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
                n += name == "read_manifest"
    return n


def catch_alls() -> tuple[int, int]:
    """``(tuples of exception classes with KeyError and TypeError bound to a name, uses of those names)``."""
    names: set[str] = set()
    for f in _sources(PACKAGE):
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Tuple):
                elts = {getattr(e, "id", None) for e in node.value.elts}
                if {"KeyError", "TypeError"} <= elts:
                    names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    uses = 0
    for f in _sources(PACKAGE):
        text = f.read_text(encoding="utf-8")
        uses += sum(len(re.findall(rf"\b{re.escape(n)}\b", text)) for n in names)
    return len(names), uses


def logged_deal_types() -> int:
    n = 0
    for f in _sources(PACKAGE):
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            n += isinstance(node, ast.ClassDef) and node.name in ("LoggedDeal", "ShownDeal")
    return n


def longest_function() -> tuple[int, str]:
    # logreaders/ holds what runner/ held before issue 37 (verify, replay): counted with it
    folders = [PACKAGE / d for d in ("cli", "runner", "logreaders") if (PACKAGE / d).is_dir()]
    found = [x for d in folders for f in _sources(d) for x in function_lengths(f)]
    lines, _, where = max(found)
    return lines, where


def widest_signature() -> tuple[int, str]:
    best = (0, "")
    for f in _sources(PACKAGE):
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                a = node.args
                params = [*a.posonlyargs, *a.args, *a.kwonlyargs]
                n = len([p for p in params if p.arg not in ("self", "cls")])
                n += a.vararg is not None
                n += a.kwarg is not None
                best = max(best, (n, f"{f.relative_to(ROOT).as_posix()}::{node.name}"))
    return best


def duplicate_pairs() -> str:
    tool = shutil.which("duplicates")
    if tool is None:
        return "n/a (no `duplicates` on PATH)"
    out = subprocess.run([tool, "--seconds", "120"], cwd=ROOT, capture_output=True, text=True).stdout
    first = out.splitlines()[0] if out else ""
    m = re.match(r"(\d+) pairs", first)
    return m.group(1) if m else first


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-duplicates", action="store_true", help="skip the (slower) duplicates count")
    parser.add_argument("--files", action="store_true", help="also list the dict lookups per file")
    args = parser.parse_args()
    lookups, gets, per_file = dict_lookups()
    names, uses = catch_alls()
    longest, where_long = longest_function()
    widest, where_wide = widest_signature()
    rows = [
        ("record/manifest dict lookups outside logs/", f'{lookups} (and {gets} `.get("…")`)'),
        ("read_manifest( call sites", str(read_manifest_calls())),
        ("BAD_RECORD-style catch-alls", f"{names} (named {uses} times)"),
        ("types for a logged deal", str(logged_deal_types())),
        ("longest function in cli/ and runner/", f"{longest} ({where_long})"),
        ("parameters of the widest function", f"{widest} ({where_wide})"),
    ]
    if not args.no_duplicates:
        rows.append(("duplicates pairs (whole tree)", duplicate_pairs()))
    print("| measure | value |\n|---|---|")
    for name, value in rows:
        print(f"| {name} | {value} |")
    if args.files:
        for f, n in sorted(per_file.items(), key=lambda x: -x[1]):
            print(f"{n:5d}  {f}")


if __name__ == "__main__":
    main()

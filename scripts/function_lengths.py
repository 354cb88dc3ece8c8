"""The longest functions of the package, by lines (``def`` line to last line, decorators excluded).

    python scripts/function_lengths.py            # the 25 longest under guandan_cli/ and strategies/
    python scripts/function_lengths.py -n 10 guandan_cli/runner

Two counts per function: all its lines, and those of its body without its docstring (the
signature and the docstring of a public function with many options take half of it).
Methods are named ``Class.method``; nested functions ``outer.<locals>.inner`` and counted
inside their outer function too.
"""

from __future__ import annotations

import argparse
import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _body_lines(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """The lines of the function's body after its docstring."""
    body = node.body
    if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant):
        if isinstance(body[0].value.value, str):
            body = body[1:]
    if not body:
        return 0
    return (node.end_lineno or 0) - body[0].lineno + 1


def function_lengths(path: Path) -> list[tuple[int, int, str]]:
    """``(lines, body lines without the docstring, "file::qualified name")`` of every function in the file at ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: list[tuple[int, int, str]] = []
    rel = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                name = prefix + child.name
                out.append((child.end_lineno - child.lineno + 1, _body_lines(child), f"{rel}::{name}"))
                visit(child, name + ".<locals>.")
            elif isinstance(child, ast.ClassDef):
                visit(child, prefix + child.name + ".")

    visit(tree, "")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", default=["guandan_cli", "strategies"])
    parser.add_argument("-n", type=int, default=25, help="how many to list (default 25)")
    args = parser.parse_args()
    found: list[tuple[int, int, str]] = []
    for p in args.paths:
        path = (ROOT / p) if not Path(p).is_absolute() else Path(p)
        files = [path] if path.is_file() else sorted(path.rglob("*.py"))
        for f in files:
            found += function_lengths(f)
    print(f"{'lines':>5}  {'code':>5}  function")
    for lines, code, name in sorted(found, key=lambda x: (-x[0], x[2]))[: args.n]:
        print(f"{lines:5d}  {code:5d}  {name}")


if __name__ == "__main__":
    main()

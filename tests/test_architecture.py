"""The layers of docs/architecture.md: a lower layer never imports a higher one."""

import ast
import fnmatch
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: package prefix -> prefixes it must not import
FORBIDDEN = {
    "guandan_cli/engine": (
        "numpy",
        "gymnasium",
        "pettingzoo",
        "onnxruntime",
        "guandan_cli.env",
        "typer",
        "click",
        "polars",
        "matplotlib",
        "rich",
        "guandan_cli.logs",
        "guandan_cli.runner",
        "guandan_cli.reports",
        "guandan_cli.cli",
        "guandan_cli.comparison",
        "guandan_cli.strategies",
    ),
    "strategies": (
        "typer",
        "click",
        "guandan_cli.interactive",
        "guandan_cli.view",
        "polars",
        "matplotlib",
        "guandan_cli.logs",
        "guandan_cli.runner",
        "guandan_cli.reports",
        "guandan_cli.cli",
        "guandan_cli.comparison",
    ),
    # the environments sit on the engine (and the strategies, for opponents): no CLI, logs or reports
    "guandan_cli/env": (
        "typer",
        "click",
        "polars",
        "matplotlib",
        "rich",
        "guandan_cli.logs",
        "guandan_cli.runner",
        "guandan_cli.reports",
        "guandan_cli.cli",
        "guandan_cli.comparison",
    ),
    "guandan_cli/logs": (
        "typer",
        "click",
        "matplotlib",
        "guandan_cli.logreaders",
        "guandan_cli.runner",
        "guandan_cli.reports",
        "guandan_cli.cli",
    ),
    "guandan_cli/reports": (
        "typer",
        "click",
        "guandan_cli.runner",
        "guandan_cli.cli",
        "guandan_cli.comparison",
    ),
    "guandan_cli/view": (
        "typer",
        "click",
        "polars",
        "matplotlib",
        "guandan_cli.logs",
        "guandan_cli.runner",
        "guandan_cli.reports",
        "guandan_cli.cli",
        "guandan_cli.comparison",
        "guandan_cli.interactive",
        "guandan_cli.strategies",
    ),
    "guandan_cli/interactive": (
        "typer",
        "click",
        "polars",
        "matplotlib",
        "guandan_cli.reports",
        "guandan_cli.cli",
    ),
    # the competition protocol sits above the engine and the runner, below the CLI
    "guandan_cli/protocol": (
        "matplotlib",
        "polars",
        "guandan_cli.reports",
        "guandan_cli.cli",
        "guandan_cli.comparison",
    ),
    # review sits on the engine, the strategies (as evaluators), the logs, the log readers' replay
    # and backends; Polars only for its Python API's frame; below the CLI
    "guandan_cli/review": (
        "typer",
        "click",
        "matplotlib",
        "rich",
        "guandan_cli.interactive",
        "guandan_cli.reports",
        "guandan_cli.cli",
        "guandan_cli.comparison",
    ),
    "guandan_cli/runner": (
        "typer",
        "click",
        "matplotlib",
        "guandan_cli.logreaders",
        "guandan_cli.interactive",
        "guandan_cli.reports",
        "guandan_cli.cli",
        "guandan_cli.comparison",
    ),
    # the log readers replay logs through the engine (and the runner's setup sources and
    # backends); they show deals with the view, and sit below review, watch and the CLI
    "guandan_cli/logreaders": (
        "typer",
        "click",
        "matplotlib",
        "guandan_cli.interactive",
        "guandan_cli.review",
        "guandan_cli.reports",
        "guandan_cli.cli",
        "guandan_cli.comparison",
    ),
}


def _imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


def test_no_layer_imports_a_higher_one():
    bad = []
    for folder, forbidden in FORBIDDEN.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            for name in _imports(path):
                if any(name == f or name.startswith(f + ".") for f in forbidden):
                    bad.append(f"{path.relative_to(ROOT)} imports {name}")
    assert not bad, "\n".join(bad)


def test_comparison_layer_imports_no_cli():
    """Layer 7 (comparisons, experiments) serves the CLI and the Python API alike."""
    bad = []
    for name in ("comparison.py", "experiments.py"):
        path = ROOT / "guandan_cli" / name
        bad += [
            f"{name} imports {m}"
            for m in _imports(path)
            if m in ("typer", "click") or m.startswith("guandan_cli.cli")
        ]
    assert not bad, "\n".join(bad)


def test_the_bots_import_nothing_above_them():
    """The strategies import the engine, each other and the compiled-module guard
    (``guandan_cli/native``), never the package root (its API: simulate, compare, experiment)."""
    bad = [
        f"{path.relative_to(ROOT)} imports guandan_cli"
        for path in sorted((ROOT / "strategies").rglob("*.py"))
        if "guandan_cli" in _imports(path)
    ]
    assert not bad, "\n".join(bad)


def test_engine_and_strategies_load_no_heavy_packages():
    code = (
        "import sys, pkgutil, importlib, guandan_cli.engine, guandan_cli.strategies\n"
        "for m in pkgutil.walk_packages(guandan_cli.engine.__path__, 'guandan_cli.engine.'): importlib.import_module(m.name)\n"
        "for m in pkgutil.walk_packages(guandan_cli.strategies.__path__, 'guandan_cli.strategies.'): importlib.import_module(m.name)\n"
        "heavy = ('typer', 'click', 'polars', 'matplotlib', 'rich', 'numpy', 'gymnasium', 'pettingzoo', 'onnxruntime')\n"
        "print(sorted(x for x in heavy if x in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]"


#: what the quick commands must not import: each costs more than the whole command (replay
#: reads a deal with the log readers' ``logreaders/replay.py``, but not the rest)
HEAVY_AT_START_UP = (
    "polars",
    "matplotlib",
    "numpy",
    "pydantic",
    "multiprocess",
    "guandan_cli.reports",
    "guandan_cli.runner.simulation",
    "guandan_cli.runner.backends",
    "guandan_cli.runner.tasks",
)


def _loaded_after(argv: list[str], cwd: Path, heavy: tuple[str, ...]) -> tuple[int, list[str]]:
    """Run ``guandan ARGV`` as the console script does; its exit code and the modules of ``heavy`` it loaded."""
    code = (
        "import atexit, sys\n"
        f"heavy = {heavy!r}\n"
        "atexit.register(lambda: print(sorted(h for h in heavy if h in sys.modules), file=sys.stderr))\n"
        "sys.argv = ['guandan', *sys.argv[1:]]\n"
        "from guandan_cli.cli.app import main\n"
        "main()"
    )
    proc = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, cwd=cwd)
    return proc.returncode, eval(proc.stderr.strip().splitlines()[-1])  # noqa: S307 - our own print


def test_quick_commands_import_no_heavy_package(tmp_path):
    """``guandan --help`` and ``plays`` start without Polars, Matplotlib, NumPy or the runner;
    ``replay`` of a logged deal without Polars and the runner's execution (``guandan bench``
    times them)."""
    from guandan_cli import simulate

    simulate(1, seed=3, strategies="random", out=tmp_path / "run", max_deals=1, progress=False)
    without_runner = (*HEAVY_AT_START_UP, "guandan_cli.runner")
    commands = (
        (["--help"], without_runner, 0),
        (["plays", "S3 H4 D4 C5 S5 H2 SB", "--level", "3"], without_runner, 0),
        (["plays", "--help"], without_runner, 0),
        (["replay", str(tmp_path / "run"), "--match", "0"], HEAVY_AT_START_UP, 0),
        (["replay", str(tmp_path / "nowhere"), "--match", "0"], HEAVY_AT_START_UP, 2),
    )
    for argv, heavy, exit_code in commands:
        code, loaded = _loaded_after(argv, tmp_path, heavy)
        assert (code, loaded) == (exit_code, []), f"guandan {' '.join(argv)}: exit {code}, imported {loaded}"


# ------------------------------------------------------------------ import circles and the may-import table

PACKAGE = "guandan_cli"


def _module_files() -> dict[str, Path]:
    """Every module of the package by its dotted name (``strategies/`` is ``guandan_cli.strategies``)."""
    out = {}
    for base, prefix in ((ROOT / "guandan_cli", PACKAGE), (ROOT / "strategies", f"{PACKAGE}.strategies")):
        for path in base.rglob("*.py"):
            parts = [prefix, *path.relative_to(base).with_suffix("").parts]
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join(parts)] = path
    return out


MODULES = _module_files()


def _package_imports(name: str, path: Path) -> set[str]:
    """The package's modules that module ``name`` imports, in any import statement (at the top,
    inside a function, under ``TYPE_CHECKING``): ``from pkg import mod`` counts as ``pkg.mod``."""
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_package else name.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                module = ".".join([*base, *([node.module] if node.module else [])])
            else:
                module = node.module or ""
            subs = [f"{module}.{a.name}" for a in node.names if f"{module}.{a.name}" in MODULES]
            found.update(subs)
            if len(subs) < len(node.names):
                found.add(module)
    return {m for m in found if m in MODULES and m != name}


def import_graph() -> dict[str, set[str]]:
    return {name: _package_imports(name, path) for name, path in MODULES.items()}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import circles of ``graph``: its strongly connected components of more than one
    module, or a module importing itself (Tarjan's algorithm, without recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1 or node in graph.get(node, ()):
                    found.append(sorted(component))
    return found


def test_the_circle_finder_finds_circles_and_only_them():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"e"}, "f": {"d"}}
    assert sorted(circles(graph)) == [["a", "b", "c"], ["e"]]
    assert circles({"a": {"b"}, "b": {"c"}, "c": set()}) == []


def test_no_import_circles():
    """No module of the package imports one that imports it back, however indirectly, even
    inside a function (a lazy import is still a dependency: the CLI's commands imported the
    app that imported them, runner/setups.py and runner/tasks.py imported each other)."""
    assert circles(import_graph()) == []


def _may_import_table() -> list[tuple[str, list[str]]]:
    """The rows of docs/architecture.md's may-import table: ``(module pattern, allowed)``."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    table = text.split("<!-- may-import table: read by tests/test_architecture.py -->", 1)[1]
    rows = []
    for line in table.strip().splitlines()[2:]:
        if not line.startswith("|"):
            break
        module, allowed = (cell.strip() for cell in line.strip("|").split("|"))
        rows.append((module.strip("`"), re.findall(r"`([^`]+)`", allowed)))
    return rows


def _path_of(module: str) -> str:
    """``guandan_cli.runner.config`` as the table names it: ``runner/config.py``."""
    path = MODULES[module]
    base = ROOT / ("strategies" if module.startswith(f"{PACKAGE}.strategies") else "guandan_cli")
    rel = path.relative_to(base).as_posix()
    return f"strategies/{rel}" if base.name == "strategies" else rel


def _allowed(path: str, allowed: list[str]) -> bool:
    return any(path.startswith(a) if a.endswith("/") else fnmatch.fnmatch(path, a) for a in allowed)


def test_each_module_imports_only_what_docs_architecture_md_names():
    rows = _may_import_table()
    assert len(rows) > 20, "the may-import table of docs/architecture.md was not found"
    paths = {_path_of(m): m for m in MODULES}
    graph = import_graph()
    bad, unknown = [], []
    for pattern, allowed in rows:
        matched = [p for p in paths if fnmatch.fnmatch(p, pattern)]
        if not matched:
            unknown.append(pattern)
        for path in matched:
            bad += [
                f"{path} imports {_path_of(m)}"
                for m in sorted(graph[paths[path]])
                if not _allowed(_path_of(m), allowed)
            ]
    assert not unknown, f"rows of the may-import table name no module: {unknown}"
    assert not bad, "\n".join(bad)


def test_every_runner_and_cli_module_has_a_row_in_the_may_import_table():
    patterns = [pattern for pattern, _ in _may_import_table()]
    missing = [
        path
        for path in sorted(_path_of(m) for m in MODULES)
        if path.startswith(("runner/", "cli/")) and not any(fnmatch.fnmatch(path, p) for p in patterns)
    ]
    assert not missing, f"add these to the may-import table of docs/architecture.md: {missing}"


def test_no_command_imports_another_command_or_the_app():
    """Commands are plain functions; only cli/commands.py imports them to build the app."""
    graph = import_graph()
    bad = [
        f"{a} imports {b}"
        for a in graph
        if a.startswith(f"{PACKAGE}.cli.cmd_")
        for b in graph[a]
        if b.startswith(f"{PACKAGE}.cli.cmd_") or b == f"{PACKAGE}.cli.commands"
    ]
    assert not bad, "\n".join(bad)

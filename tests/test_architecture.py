"""The layers of docs/architecture.md: a lower layer never imports a higher one."""

import ast
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
        "matplotlib",
        "guandan_cli.runner",
        "guandan_cli.reports",
        "guandan_cli.cli",
    ),
    "guandan_cli/reports": ("typer", "guandan_cli.runner", "guandan_cli.cli", "guandan_cli.comparison"),
    "guandan_cli/view": (
        "typer",
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
    "guandan_cli/interactive": ("typer", "polars", "matplotlib", "guandan_cli.reports", "guandan_cli.cli"),
    # the competition protocol sits above the engine and the runner, below the CLI
    "guandan_cli/protocol": (
        "matplotlib",
        "polars",
        "guandan_cli.reports",
        "guandan_cli.cli",
        "guandan_cli.comparison",
    ),
    # review sits on the engine, the strategies (as evaluators), the logs and the runner's replay
    # and backends; Polars only for its Python API's frame; below the CLI
    "guandan_cli/review": (
        "typer",
        "matplotlib",
        "rich",
        "guandan_cli.interactive",
        "guandan_cli.reports",
        "guandan_cli.cli",
        "guandan_cli.comparison",
    ),
    "guandan_cli/runner": (
        "typer",
        "matplotlib",
        "guandan_cli.interactive",
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
            f"{name} imports {m}" for m in _imports(path) if m == "typer" or m.startswith("guandan_cli.cli")
        ]
    assert not bad, "\n".join(bad)


def test_engine_and_strategies_load_no_heavy_packages():
    code = (
        "import sys, pkgutil, importlib, guandan_cli.engine, guandan_cli.strategies\n"
        "for m in pkgutil.walk_packages(guandan_cli.engine.__path__, 'guandan_cli.engine.'): importlib.import_module(m.name)\n"
        "for m in pkgutil.walk_packages(guandan_cli.strategies.__path__, 'guandan_cli.strategies.'): importlib.import_module(m.name)\n"
        "heavy = ('typer', 'polars', 'matplotlib', 'rich', 'numpy', 'gymnasium', 'pettingzoo', 'onnxruntime')\n"
        "print(sorted(x for x in heavy if x in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]"


#: the console script's start-up path for ``guandan --help`` and ``guandan plays`` (see cli/fast_path.py)
START_UP_PATH = (
    "guandan_cli/cli/app.py",
    "guandan_cli/cli/fast_path.py",
    "guandan_cli/cli/fast_path_spec.py",
    "guandan_cli/cli/plays_listing.py",
    "guandan_cli/cli/error_lines.py",
)


def test_the_start_up_path_imports_no_typer():
    """Importing Typer costs more than all the rest of ``guandan --help``; the path goes without."""
    heavy = ("typer", "click", "rich", "pydantic", "polars", "matplotlib", "numpy")
    bad = [
        f"{name} imports {module}"
        for name in START_UP_PATH
        for module in _imports(ROOT / name)
        if module.split(".")[0] in heavy
    ]
    assert not bad, "\n".join(bad)

"""The package's version, in a module of its own: the runner, the reports and the CLI record or
print it without importing the package's API facade (``guandan_cli/__init__.py``), which
imports them lazily in turn (an import circle otherwise)."""

__version__ = "0.1.0"

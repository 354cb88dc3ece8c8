"""guandan: a simulator and analysis toolkit for Guandan (掼蛋).

The rules engine lives in :mod:`guandan_cli.engine` (pure Python). The Python API
for scripts and notebooks (``simulate``, ``compare``) is importable from here.
"""

__version__ = "0.1.0"

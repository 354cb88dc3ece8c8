"""The build of the hot modules (mypyc) and its guard, apart from the package root.

:mod:`.compiled` imports only the standard library, so the bots (``strategies/heuristic``,
``strategies/search``) install the guard by importing it without importing the package's
API (``guandan_cli/__init__.py``: ``simulate``, ``compare``, ``experiment``).
"""

"""The terminal view: how cards, plays, tricks and the table are shown to a person.

One module (:mod:`.table`) used by ``guandan replay``, ``guandan watch`` and ``guandan play``.
It imports the engine and nothing above it; colour comes as rich markup, which a rich
console prints in colour or strips (``--plain``).
"""

from . import table as _table
from .table import *  # noqa: F403 - the view's names, listed once: in table.__all__

__all__ = list(_table.__all__)

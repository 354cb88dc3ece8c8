"""Strategy names as people read them: the same in every table, summary and page.

A strategy spec is what a run stores (``heuristic``, ``/home/me/bots/mybot.py:Mine``,
``guandan_cli.protocol.remote:alice``, ``onnx:models/m.onnx``); a person reads it without
its folder or package (``mybot.py:Mine``, ``remote:alice``, ``onnx:m.onnx``). Where two
specs of one table would read the same, both are shown in full, so no two strategies merge.
Machine formats (CSV, JSON, Parquet, the logs) keep the specs as stored.

>>> strategy_name("guandan_cli.protocol.remote:alice"), strategy_name("/home/me/bots/mybot.py:Mine")
('remote:alice', 'mybot.py:Mine')
>>> strategy_names(["a/bot.py:Bot", "b/bot.py:Bot", "heuristic"])
{'a/bot.py:Bot': 'a/bot.py:Bot', 'b/bot.py:Bot': 'b/bot.py:Bot', 'heuristic': 'heuristic'}
"""

from __future__ import annotations

from collections.abc import Iterable


def strategy_name(spec: str) -> str:
    """A strategy spec without its folder or package.

    >>> strategy_name("heuristic"), strategy_name("onnx:models/m.onnx"), strategy_name("C:\\\\b\\\\x.py:X")
    ('heuristic', 'onnx:m.onnx', 'x.py:X')
    """
    where, sep, name = spec.rpartition(":")
    if not sep or not where:
        return spec
    where = where.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
    if not where.endswith(".py"):
        where = where.rsplit(".", 1)[-1]
    name = name.replace("\\", "/").rsplit("/", 1)[-1]
    return f"{where}:{name}"


def strategy_names(specs: Iterable[str]) -> dict[str, str]:
    """Each spec's name (:func:`strategy_name`), or the spec itself where two would read the same."""
    unique = list(dict.fromkeys(specs))
    short = {s: strategy_name(s) for s in unique}
    seen: dict[str, int] = {}
    for name in short.values():
        seen[name] = seen.get(name, 0) + 1
    return {s: (name if seen[name] == 1 else s) for s, name in short.items()}


__all__ = ["strategy_name", "strategy_names"]

"""Finding strategies by name: built-ins, installed plugins, ``module:Class`` or ``file.py:Class``.

Plugins register under the entry-point group ``guandan.strategies`` (name → ``module:Class``).

>>> load_strategy("random").name
'random'
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import sys
from collections.abc import Sequence
from importlib.metadata import entry_points
from pathlib import Path

from guandan_cli.engine.seeding import derived_rng

from .base import Strategy

BUILTINS = {
    "random": "strategies.random_bot:RandomStrategy",
    "greedy": "strategies.greedy:GreedyStrategy",
    "heuristic": "strategies.heuristic:HeuristicStrategy",
}


class UnknownStrategyError(ValueError):
    """A strategy spec that names nothing loadable."""


def _plugins() -> dict[str, object]:
    return {ep.name: ep for ep in entry_points(group="guandan.strategies")}


def available_strategies() -> list[str]:
    """Names usable in ``--strategies``: built-ins and installed plugins."""
    return sorted(set(BUILTINS) | set(_plugins()))


def _load_target(target: str, spec: str) -> type:
    module_name, _, cls_name = target.partition(":")
    if module_name.endswith(".py") or "/" in module_name or "\\" in module_name:
        path = Path(module_name)
        if not path.is_file():
            raise UnknownStrategyError(f"strategy {spec!r}: no file {path}")
        where = hashlib.blake2b(str(path.resolve()).encode(), digest_size=4).hexdigest()
        name = f"guandan_user_{path.stem}_{where}"
        mod_spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(mod_spec)
        assert mod_spec.loader is not None
        sys.modules[name] = module  # so its classes can be inspected (fingerprints) and pickled
        try:
            mod_spec.loader.exec_module(module)
        except BaseException:
            sys.modules.pop(name, None)
            raise
    else:
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            raise UnknownStrategyError(f"strategy {spec!r}: cannot import {module_name!r} ({exc})") from None
    try:
        cls = getattr(module, cls_name)
    except AttributeError:
        raise UnknownStrategyError(f"strategy {spec!r}: {module_name} has no {cls_name!r}") from None
    return cls


def load_strategy(spec: str | type) -> type:
    """The strategy class for a name, ``package.module:Class`` or ``path/file.py:Class``."""
    if isinstance(spec, type):
        return spec
    spec = spec.strip()
    if spec in BUILTINS:
        return _load_target(BUILTINS[spec], spec)
    plugins = _plugins()
    if spec in plugins:
        return plugins[spec].load()
    if ":" in spec:
        return _load_target(spec, spec)
    raise UnknownStrategyError(
        f"unknown strategy {spec!r}: available are {', '.join(available_strategies())}, "
        "or give 'package.module:Class' or 'path/to/file.py:Class'"
    )


def strategy_name(spec: str | type) -> str:
    if isinstance(spec, str):
        return spec
    return getattr(spec, "name", spec.__name__)


def make_players(specs: Sequence[str | type], match_seed: int) -> list[Strategy]:
    """One player per seat, each with its own rng derived from (match seed, seat)."""
    if len(specs) != 4:
        raise ValueError(f"need 4 strategies (seats 0-3), got {len(specs)}")
    players = []
    for seat, spec in enumerate(specs):
        cls = load_strategy(spec)
        players.append(cls(seat, derived_rng(match_seed, "seat", seat)))
    return players

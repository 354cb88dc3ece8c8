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
from pathlib import Path

from guandan_cli.engine.seeding import derived_rng

from .base import Strategy

BUILTINS = {
    "random": "guandan_cli.strategies.random_bot:RandomStrategy",
    "greedy": "guandan_cli.strategies.greedy:GreedyStrategy",
    "heuristic": "guandan_cli.strategies.heuristic:HeuristicStrategy",
    "search": "guandan_cli.strategies.search:SearchStrategy",
    "human": "guandan_cli.strategies.human:HumanStrategy",
}

#: spec prefixes naming a family of strategies, each class made from the spec by a factory
#: (module and function names, loaded on first use like BUILTINS' targets: a bot that loads
#: the registry does not depend on the family's code, nor its fingerprint on those files)
SPEC_FAMILIES = {"search:": ("guandan_cli.strategies.search.spec", "search_strategy_class")}


class UnknownStrategyError(ValueError):
    """A strategy spec that names nothing loadable."""


def entry_points(**params):
    """``importlib.metadata.entry_points``, imported on first use (its import is ~17 ms of the
    start-up of every process that loads the strategies, most of which need no plugin)."""
    from importlib.metadata import entry_points as installed_entry_points

    return installed_entry_points(**params)


def _plugins() -> dict[str, object]:
    return {ep.name: ep for ep in entry_points(group="guandan.strategies")}


def available_strategies() -> list[str]:
    """Names usable in ``--strategies``: built-ins and installed plugins."""
    return sorted(set(BUILTINS) | set(_plugins()))


def _load_problem(exc: Exception) -> str:
    """One line for an exception raised while a strategy's module runs (file:line for syntax errors).

    >>> _load_problem(SyntaxError("'(' was never closed", ("bot.py", 3, 1, "f(")))
    "bot.py:3: SyntaxError: '(' was never closed"
    >>> _load_problem(ModuleNotFoundError("No module named 'x'"))
    "ModuleNotFoundError: No module named 'x'"
    """
    if isinstance(exc, SyntaxError):
        return f"{exc.filename}:{exc.lineno}: {type(exc).__name__}: {exc.msg}"
    return f"{type(exc).__name__}: {exc}"


def _importable_folder(path: Path) -> None:
    """Put the folder of a bot file first on ``sys.path`` (once), as Python does for a script,
    so the bot imports its sibling modules (``import helper``) at load time and later (an
    import inside a method), in this process and in the workers, which load it here too."""
    folder = str(path.resolve().parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)


def _load_target(target: str, spec: str) -> type:
    module_name, _, cls_name = target.partition(":")
    if module_name.endswith(".py") or "/" in module_name or "\\" in module_name:
        path = Path(module_name)
        if not path.is_file():
            raise UnknownStrategyError(f"strategy {spec!r}: no file {path}")
        where = hashlib.blake2b(str(path.resolve()).encode(), digest_size=4).hexdigest()
        _importable_folder(path)
        name = f"guandan_user_{path.stem}_{where}"
        mod_spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(mod_spec)
        assert mod_spec.loader is not None
        sys.modules[name] = module  # so its classes can be inspected (fingerprints) and pickled
        try:
            mod_spec.loader.exec_module(module)
        except Exception as exc:
            sys.modules.pop(name, None)
            raise UnknownStrategyError(
                f"strategy {spec!r}: {path} does not load: {_load_problem(exc)}"
            ) from None
        except BaseException:
            sys.modules.pop(name, None)
            raise
    else:
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            raise UnknownStrategyError(f"strategy {spec!r}: cannot import {module_name!r} ({exc})") from None
        except Exception as exc:
            raise UnknownStrategyError(
                f"strategy {spec!r}: {module_name} does not load: {_load_problem(exc)}"
            ) from None
    try:
        cls = getattr(module, cls_name)
    except AttributeError:
        raise UnknownStrategyError(f"strategy {spec!r}: {module_name} has no {cls_name!r}") from None
    return cls


_METHODS = ("choose_play", "choose_tribute", "choose_return")


def strategy_problem(cls: object) -> str | None:
    """What keeps ``cls`` from being a strategy class, or ``None`` when it is one.

    A strategy is a class whose instances are made as ``cls(seat, rng)`` and answer
    ``choose_play``, ``choose_tribute`` and ``choose_return`` (subclassing ``Strategy``
    gives the last two; ``choose_play`` must be overridden).

    >>> strategy_problem(Strategy)
    'it does not override choose_play'
    >>> strategy_problem(int)
    'its instances have no choose_play, choose_tribute, choose_return'
    """
    import inspect
    import random

    if not isinstance(cls, type):
        return f"it is a {type(cls).__name__}, not a class"
    missing = [m for m in _METHODS if not callable(getattr(cls, m, None))]
    if missing:
        return f"its instances have no {', '.join(missing)}"
    if getattr(cls, "choose_play", None) is Strategy.choose_play:
        return "it does not override choose_play"
    try:
        inspect.signature(cls).bind(0, random.Random(0))
    except TypeError:
        return "its constructor does not take (seat, rng)"
    except ValueError:  # no signature to read (a builtin): let it be tried
        pass
    heuristic = sys.modules.get("guandan_cli.strategies.heuristic.bot")  # (not loaded: cls is no subclass)
    if heuristic is not None and issubclass(cls, heuristic.HeuristicStrategy):
        try:  # constants of the wrong type: refused here, before a run starts
            heuristic._check_constants(cls)
        except TypeError as exc:
            return str(exc)
    return None


def load_strategy(spec: str | type) -> type:
    """The strategy class for a name, ``package.module:Class`` or ``path/file.py:Class``.

    Raises ``UnknownStrategyError`` naming the spec when nothing loadable has that name,
    or when what it names is not a strategy class (``strategy_problem``).
    """
    cls = _find(spec)
    problem = strategy_problem(cls)
    if problem is not None:
        shown = spec if isinstance(spec, str) else getattr(spec, "__qualname__", repr(spec))
        raise UnknownStrategyError(f"strategy {shown!r} is not a strategy class: {problem}")
    return cls


def _find(spec: str | type) -> type:
    if isinstance(spec, type):
        return spec
    spec = spec.strip()
    if spec.startswith("onnx:"):  # a model file: strategies/onnx_model.py
        from .onnx_model import OnnxSpecError, onnx_strategy_class

        try:
            return onnx_strategy_class(spec)
        except OnnxSpecError as exc:
            raise UnknownStrategyError(str(exc)) from None
    for prefix, (module_name, factory) in SPEC_FAMILIES.items():
        if spec.startswith(prefix):  # e.g. the search bot with other options: strategies/search/spec.py
            module = importlib.import_module(module_name)
            try:
                return getattr(module, factory)(spec)
            except ValueError as exc:  # a bad option or value, named in the message
                raise UnknownStrategyError(str(exc)) from None
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

"""A run's identity beyond its config: the strategies' code, and how classes reach workers.

- ``class_spec`` / ``by_value_classes`` / ``serialise_classes``: a strategy class becomes a
  spec string; a class workers cannot import (a notebook cell) is sent to them by value.
- ``strategy_fingerprints`` / ``changed_strategies`` / ``identity_changes``: what differs
  between a stored run and the run asked for (``strategies.fingerprint`` for the code).
- ``changed_code_refusal`` and ``setups_problem``: one-line refusals ``simulate`` raises.

Functions here return values or raise ``ValueError``; ``simulate`` turns them into its errors.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from guandan_cli.logs.manifest import Manifest, PartialConfig, RunFolder
from guandan_cli.logs.schema import SCHEMA_VERSION


def class_spec(cls: type) -> tuple[str, type | None]:
    """``(spec, cls or None)``: how workers get a strategy class.

    By name (``module:Class``, or ``file.py:Class`` for a class of a script run as
    ``__main__``) when they can import it; else (a notebook cell, ``python -c``, a class
    made in a function) ``("__main__:Class", cls)``: the class is sent to them by value,
    serialised with ``dill``.
    """
    import inspect
    import os as _os

    module, qual = cls.__module__, cls.__qualname__
    owner = sys.modules.get(module)
    if "<locals>" not in qual and owner is not None and getattr(owner, qual, None) is cls:
        if module not in ("__main__", "__mp_main__"):
            return f"{module}:{qual}", None
        try:
            path = inspect.getfile(cls)
        except (TypeError, OSError):
            path = None
        if path and path.endswith(".py") and _os.path.isfile(path):
            return f"{path}:{qual}", None
    return f"{module}:{qual}", cls


def by_value_classes(strategies) -> dict[str, type]:
    """The classes among ``strategies`` that workers cannot import, by spec (sent by value)."""
    if isinstance(strategies, str) or strategies is None:
        return {}
    out = {}
    for item in strategies:
        if isinstance(item, type):
            spec, cls = class_spec(item)
            if cls is not None:
                out[spec] = cls
    return out


def serialise_classes(classes: dict[str, type]) -> tuple[tuple[str, bytes], ...]:
    """Each class by value (``dill``, following the globals its methods use)."""
    if not classes:
        return ()
    import dill

    try:
        return tuple((spec, dill.dumps(cls, recurse=True)) for spec, cls in classes.items())
    except Exception as exc:  # noqa: BLE001 - whatever dill cannot pickle
        spec = next(iter(classes))
        raise ValueError(
            f"strategy {spec!r} cannot be sent to worker processes ({type(exc).__name__}: {exc}); "
            "use workers=1 or put the class in a .py file"
        ) from None


def strategy_fingerprints(
    strategies: Sequence[str], classes: dict[str, type] | None = None
) -> dict[str, dict]:
    """The code fingerprint of each distinct strategy (``strategies.fingerprint``), by spec,
    and of the engine (key ``strategies.fingerprint.ENGINE``): a change to either is a change
    of the games."""
    from guandan_cli.strategies.fingerprint import ENGINE, engine_fingerprint, fingerprint

    classes = classes or {}
    out = {s: fingerprint(classes.get(s, s)) for s in dict.fromkeys(strategies)}
    out[ENGINE] = engine_fingerprint()
    return out


def changed_strategies(manifest: Manifest, fingerprints: dict[str, dict]) -> list[str]:
    """The strategies whose code differs from what ``manifest``'s run was played with.

    Runs written before fingerprints were recorded have none to compare: every strategy
    counts as changed.
    """
    stored = manifest.fingerprints
    if stored is None:
        return list(fingerprints)
    return [s for s, fp in fingerprints.items() if _code_of(stored.get(s)) != _code_of(fp)]


def _code_of(fp) -> tuple | None:
    return (fp.get("hash"), fp.get("package")) if isinstance(fp, dict) else None


def identity_changes(
    manifest: Manifest,
    wanted: PartialConfig,
    fingerprints: dict[str, dict],
    *,
    check_source: bool = False,
    source_run_id: str | None = None,
) -> list[str]:
    """How a stored run differs from the run ``wanted`` (config values) would play, one phrase each.

    ``["mine changed", "max_deals 3 (now 5)"]``; empty when the stored logs are what the
    run would write. Only the fields given in ``wanted`` are compared (and the schema), and
    with ``check_source`` the run id of the setups' source run (``source_run_id``).
    """
    stored = manifest.recorded
    if manifest.fingerprints is not None:
        out = [_changed(s, manifest, fingerprints) for s in changed_strategies(manifest, fingerprints)]
    else:
        out = ["no code fingerprints recorded"]  # written before they were
    out += [f"{k} {was!r} (now {now!r})" for k, was, now in wanted.differences(stored)]
    if check_source and manifest.setups_run_id != source_run_id:
        out.append(f"the setups' source run {stored.setups} changed")
    if stored.schema_version != SCHEMA_VERSION:
        out.append(f"log schema {stored.schema_version!r} (now {SCHEMA_VERSION})")
    return out


def _change_detail(spec: str, manifest: Manifest, fingerprints: dict[str, dict]) -> str:
    """The files that changed in ``spec``'s code since ``manifest``'s run (``""``: not known)."""
    from guandan_cli.strategies.fingerprint import describe_change

    return describe_change((manifest.fingerprints or {}).get(spec), fingerprints[spec])


def _changed(spec: str, manifest: Manifest, fingerprints: dict[str, dict]) -> str:
    """``mybot.py:Mine changed (helper.py edited)``, or without the files when none is known."""
    detail = _change_detail(spec, manifest, fingerprints)
    return f"{spec} changed ({detail})" if detail else f"{spec} changed"


#: the end of ``changed_code_refusal``'s line: what a resume of a run of other code can do
OLD_CODE_CHOICES = (
    "its matches there were played by the old code: to start over with the new code, add "
    "--force (the matches saved there are discarded); to keep them, give another --out for the new run"
)


def changed_code_refusal(out: Path, existing: Manifest, fingerprints: dict[str, dict]) -> str | None:
    """Why a stored run cannot be continued with these strategies' code (``None``: it can):
    what changed, naming the files, and the two ways on (start over, or keep the old run)."""
    if existing.fingerprints is None:
        return None  # written before fingerprints were recorded: nothing to compare
    from guandan_cli.strategies.fingerprint import ENGINE

    changed = changed_strategies(existing, fingerprints)
    if not changed:
        return None
    spec = changed[0]
    what = "the engine (guandan_cli/engine)" if spec == ENGINE else f"strategy {spec!r}"
    detail = _change_detail(spec, existing, fingerprints) or "its code fingerprint differs"
    return f"{what} changed since {out} was written ({detail}); {OLD_CODE_CHOICES}"


def setups_run_id(source: str | None) -> str | None:
    """The run id of the run directory a setups run takes its setups from (``None`` otherwise).

    Part of the identity of such a run: when the source run is replaced by another, the
    setups are other deals.
    """
    if source is None:
        return None
    from guandan_cli.runner.setups import SETUP_SOURCES as SOURCES  # named sources, not run dirs

    if source in SOURCES:
        return None
    try:
        manifest = RunFolder.read(source).manifest
    except ValueError:
        return None
    return None if manifest is None else manifest.run_id


def changed_setups_refusal(out: Path, existing: Manifest) -> str | None:
    """Why a stored setups run cannot be continued: its source run is another run now."""
    stored = existing.setups_run_id
    source = existing.recorded.setups
    if stored is None or stored == setups_run_id(source):
        return None
    return f"the setups' source run {source} changed since {out} was written; use --force to start over, or another --out"


def setups_problem(source: str, matches: int, max_deals: int | None) -> str | None:
    """Why a setups run cannot start (``None``: it can): one deal per setup, ``matches`` setups."""
    from guandan_cli.runner.setups import SETUP_SOURCES as SOURCES  # named sources, not run dirs

    if max_deals not in (None, 1):
        return f"--max-deals {max_deals} does not go with --setups: a setups run plays one deal per setup"
    if source in SOURCES:
        return None
    path = Path(source)
    try:
        manifest = RunFolder.read(path).manifest
    except ValueError as exc:
        return f"setups {source!r}: {exc}"
    if manifest is None:
        return f"setups {source!r}: expected 'fresh', 'random' or a run directory (with a manifest.json)"
    have = (manifest.counts.deals if manifest.counts is not None else None) or 0
    if have < matches:
        unfinished = not manifest.complete
        return (
            f"setups {source!r}: the run holds {have} deals"
            + (" in complete parts (an unfinished run: resume it first)" if unfinished else "")
            + f", fewer than the {matches} setups asked"
        )
    return None


__all__ = [
    "OLD_CODE_CHOICES",
    "by_value_classes",
    "changed_code_refusal",
    "changed_setups_refusal",
    "changed_strategies",
    "class_spec",
    "identity_changes",
    "serialise_classes",
    "setups_problem",
    "setups_run_id",
    "strategy_fingerprints",
]

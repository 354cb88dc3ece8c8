"""A run's manifest (``manifest.json``): its config as a value, and reading and writing the file.

- :class:`RunConfig` — what decides a run's bytes (seed, matches, strategies, ruleset and
  options, compression, part size, schema, setups, tribute), one frozen value;
  :meth:`RunConfig.to_dict` is the manifest's ``config`` block and
  :meth:`RunConfig.from_dict` reads it back.
- :class:`PartialConfig` — some of those values: what a caller gave or requires (``simulate``'s
  options, a comparison's run), or what a stored manifest records (``PartialConfig.recorded``);
  a field not given is ``None`` and not in ``given``.
- :func:`read_manifest` (with the checks of a hand-edited file, :func:`manifest_problem`) and
  :func:`write_manifest` (atomic).

This module is the only one that spells the keys of a run's config: every other reads the
config through these two values.

>>> cfg = RunConfig(seed=3, matches=50, strategies=("greedy", "random") * 2, max_deals=4)
>>> cfg.to_dict()["strategies"], RunConfig.from_dict(cfg.to_dict()) == cfg
(['greedy', 'random', 'greedy', 'random'], True)
>>> given = PartialConfig.of(seed=3, max_deals=5)
>>> given.differences(PartialConfig.recorded({"config": cfg.to_dict()}))
[('max_deals', 4, 5)]
>>> given.over(cfg).max_deals, cfg.run_id == given.over(cfg).run_id
(5, False)

Imports no polars.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, fields, replace
from pathlib import Path

from .schema import SCHEMA_VERSION
from .writer import COMPRESSIONS, atomic_write_bytes

MANIFEST = "manifest.json"
FORMAT = "guandan-run"
#: what a manifest's ``state`` may say
STATES = ("running", "complete", "interrupted", "failed")
#: the matches per log part when a run names none
DEFAULT_PART_SIZE = 1000


@dataclass(frozen=True)
class RunConfig:
    """What decides the bytes of a run's log: a resumed run must agree on every field.

    ``setups``: ``None`` for whole matches, else the setup source each one-deal "match" is
    played from (``"fresh"``, ``"random"``, ``"paying"``, ``"resisting"`` or a run
    directory, see ``guandan_cli.runner.setups``); ``tribute``: the ruleset's tribute
    option (``None`` is the rules' ``"on"``).
    """

    seed: int = 0
    matches: int = 100
    strategies: tuple[str, str, str, str] = ("heuristic",) * 4
    ruleset: str = "cgr2022"
    a_fail_limit: int | None = None
    max_deals: int | None = None
    compression: str = "none"
    part_size: int = DEFAULT_PART_SIZE
    schema_version: int = SCHEMA_VERSION
    setups: str | None = None
    tribute: str | None = None

    def to_dict(self) -> dict:
        """The manifest's ``config`` block (JSON-ready, in the order the manifest writes it)."""
        return {f.name: _json_value(getattr(self, f.name)) for f in fields(self)}

    @classmethod
    def from_dict(cls, config: dict) -> RunConfig:
        """The config a manifest's ``config`` block records (a key it lacks takes its default)."""
        read = PartialConfig.recorded({"config": config}).over(cls())
        return replace(read, strategies=tuple(read.strategies))

    @classmethod
    def continuing(cls, stored: PartialConfig) -> RunConfig:
        """The defaults with a stored run's values over them, but for the schema (this version's)."""
        return stored.without("schema_version").over(cls())

    @property
    def run_id(self) -> str:
        """The run id written in every line: a hash of what decides the games (not of the size).

        >>> RunConfig(seed=1, strategies=("random",) * 4).run_id
        '5a23201a6af79941'
        """
        from guandan_cli.engine.seeding import derive_seed

        parts = [self.seed, *self.strategies, self.ruleset, self.a_fail_limit, self.max_deals]
        if self.setups not in (None, "fresh"):  # fresh setups are deal 0 of one-deal matches
            parts.append(f"setups={self.setups}")
        if self.tribute not in (None, "on"):  # the ruleset's tribute option (experiments)
            parts.append(f"tribute={self.tribute}")
        return f"{derive_seed('run', *parts):016x}"

    @property
    def digest(self) -> str:
        """The sha256 of the whole config (the manifest's ``config`` block as compact JSON, keys
        sorted): a journal carries it, so a resume refuses one of another config.

        >>> RunConfig(seed=1).digest == RunConfig(seed=1).digest != RunConfig(seed=1, part_size=7).digest
        True
        """
        import hashlib

        text = json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()

    def rules(self):
        """The ruleset with this run's options (``ValueError`` naming a bad one)."""
        from guandan_cli.engine.rules import get_ruleset

        return get_ruleset(
            self.ruleset, a_fail_limit=self.a_fail_limit, max_deals=self.max_deals, tribute=self.tribute
        )


#: the fields of a run's config, in the manifest's order
CONFIG_FIELDS = tuple(f.name for f in fields(RunConfig))
#: options that change the games but are not in every default run name: each is named in it
#: when set (``runner.config.default_out``), and a run found under a default name must agree on all
NAMED_WHEN_SET = ("max_deals", "a_fail_limit", "setups", "tribute")


def _json_value(v):
    return list(v) if isinstance(v, tuple) else v


def _norm(v):
    return list(v) if isinstance(v, tuple | list) else v


@dataclass(frozen=True)
class PartialConfig:
    """Some of a run's config values: those named in ``given``, in the order given (the others are ``None``).

    ``PartialConfig.of(seed=3, max_deals=None)`` requires seed 3 and no deal cap and says
    nothing of the rest; ``PartialConfig.recorded(manifest)`` is what a manifest records.
    """

    seed: int | None = None
    matches: int | None = None
    strategies: Sequence[str] | None = None  # as given or stored (a tuple or a list)
    ruleset: str | None = None
    a_fail_limit: int | None = None
    max_deals: int | None = None
    compression: str | None = None
    part_size: int | None = None
    schema_version: int | None = None
    setups: str | None = None
    tribute: str | None = None
    given: tuple[str, ...] = ()

    @classmethod
    def of(cls, **values) -> PartialConfig:
        """The values given by name (``TypeError`` for a name that is no config field)."""
        unknown = sorted(set(values) - set(CONFIG_FIELDS))
        if unknown:
            raise TypeError(f"not a run config field: {', '.join(unknown)}")
        return cls(**values, given=tuple(values))

    @classmethod
    def given_values(cls, **values) -> PartialConfig:
        """The values that are not ``None`` (options left out are not given)."""
        return cls.of(**{k: v for k, v in values.items() if v is not None})

    @classmethod
    def recorded(cls, manifest: dict | None) -> PartialConfig:
        """What the ``config`` block of ``manifest`` records (nothing without one), values as stored."""
        config = (manifest or {}).get("config")
        if not isinstance(config, dict):
            return cls()
        return cls.of(**{k: config[k] for k in CONFIG_FIELDS if k in config})

    def items(self) -> list[tuple[str, object]]:
        """``(field, value)`` of each given field, in the order given."""
        return [(k, getattr(self, k)) for k in self.given]

    def over(self, base: RunConfig) -> RunConfig:
        """``base`` with the given fields replaced."""
        return replace(base, **dict(self.items()))

    def differences(self, stored: PartialConfig, *, schema: bool = False) -> list[tuple[str, object, object]]:
        """``(field, stored value, this value)`` of each given field ``stored`` does not agree
        with (a field ``stored`` does not record counts as ``None``); with ``schema``, the log
        schema too when ``stored``'s is not this version's."""
        out = [(k, getattr(stored, k), v) for k, v in self.items() if _norm(getattr(stored, k)) != _norm(v)]
        if schema and stored.schema_version != SCHEMA_VERSION:
            out.append(("schema_version", stored.schema_version, SCHEMA_VERSION))
        return out

    def updated(self, other: PartialConfig) -> PartialConfig:
        """These values, then ``other``'s given fields over them."""
        return PartialConfig.of(**(dict(self.items()) | dict(other.items())))

    def rule_options(self) -> list[tuple[str, object]]:
        """``(field, value)`` of the options set that change the rules or the deals played
        (``max_deals``, ``a_fail_limit``, ``tribute``, ``setups``; a run's summary names them)."""
        return [
            (k, getattr(self, k))
            for k in ("max_deals", "a_fail_limit", "tribute", "setups")
            if getattr(self, k)
        ]

    def without(self, *names: str) -> PartialConfig:
        """The same values but those of ``names``."""
        return PartialConfig.of(**{k: v for k, v in self.items() if k not in names})

    def with_defaults(self, names: tuple[str, ...], config: RunConfig) -> PartialConfig:
        """The same values, plus ``config``'s for those of ``names`` not given."""
        extra = {k: getattr(config, k) for k in names if k not in self.given}
        return PartialConfig.of(**dict(self.items()), **extra)

    def required_at_default_out(self, probe: RunConfig) -> PartialConfig:
        """What a run found under ``probe``'s default folder name must agree on.

        An option left out means its default there, not the stored run's value: a run
        found there with another one is another configuration (``NAMED_WHEN_SET``); a setups
        run stores ``max_deals`` 1, which its name leaves out.
        """
        required = self.with_defaults(NAMED_WHEN_SET, probe)
        return required.without("max_deals") if probe.setups is not None else required

    @property
    def standalone_deals(self) -> bool:
        """Whether the run's deals stand alone: played from deal setups or with the tribute
        rule changed, rather than as the deals of whole matches."""
        return self.setups is not None or self.tribute not in (None, "on")


#: the most matches one run holds (its task list is built up front: 10**8 matches at the
#: default 8 per task is 12.5 million tasks, about 1.5 GB; larger studies are several runs)
MAX_MATCHES = 100_000_000
#: the most parts one run is split into (part files are numbered with five digits)
MAX_PARTS = 100_000


def plan_problem(matches: int, part_size: int) -> str | None:
    """Why a run of ``matches`` matches in parts of ``part_size`` cannot be planned, or ``None``.

    >>> plan_problem(10**9, 1000)
    'at most 100000000 matches in one run, got 1000000000 (split a larger study into runs with different seeds)'
    >>> plan_problem(10**6, 1000) is None
    True
    """
    if matches > MAX_MATCHES:
        return (
            f"at most {MAX_MATCHES} matches in one run, got {matches} "
            "(split a larger study into runs with different seeds)"
        )
    parts = -(-matches // part_size)
    if parts > MAX_PARTS:
        return (
            f"at most {MAX_PARTS} parts in one run: {matches} matches in parts of {part_size} "
            f"make {parts} (raise --part-size to at least {-(-matches // MAX_PARTS)})"
        )
    return None


# ------------------------------------------------------------------ reading and writing


def read_manifest(path: str | os.PathLike) -> dict | None:
    """The manifest of a run directory, or ``None`` when there is none (``ValueError`` if unreadable)."""
    f = Path(path) / MANIFEST
    if not f.is_file():
        return None
    try:
        data = json.loads(f.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"{f}: unreadable manifest ({exc})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"{f}: not a guandan run manifest")
    from .schema import READABLE_VERSIONS

    version = data.get("schema_version")
    if isinstance(version, int) and not isinstance(version, bool) and version > max(READABLE_VERSIONS):
        raise ValueError(
            f"{f}: log schema {version} was written by a newer guandan; this one reads "
            f"schemas {', '.join(map(str, READABLE_VERSIONS))} (upgrade guandan)"
        )
    problem = manifest_problem(data)
    if problem is not None:
        raise ValueError(f"{f}: {problem}")
    return data


def write_manifest(path: str | os.PathLike, manifest: dict) -> None:
    """Write ``manifest`` into the run directory ``path`` (``*.tmp``, fsync, rename)."""
    text = json.dumps(manifest, indent=2, ensure_ascii=False) + "\n"
    atomic_write_bytes(Path(path) / MANIFEST, text.encode())


def new_manifest(
    config: RunConfig,
    *,
    package_version: str,
    command: str,
    started_in: str,
    started_at: str,
    sessions: list,
    fingerprints: dict,
    setups_run_id: str | None,
    instance: str,
    on_error: str,
    workers: int,
    backend: str,
    chunk_size: int,
    ray_address: str | None,
    decision_timeout: float | None = None,
    max_memory: int | None = None,
) -> dict:
    """A manifest as a session starts writing it (``state`` running, no part yet): the run's
    config (``config.to_dict()``), identity (run id, the run directory's random ``instance``,
    the config's digest, code fingerprints, the setups' source run), the rules it plays, and how it is played (``options``); see docs/log-format.md."""
    return {
        "format": FORMAT,
        "schema_version": SCHEMA_VERSION,
        "package_version": package_version,
        "run_id": config.run_id,
        "instance": instance,
        "config_digest": config.digest,
        "command": command,
        "started_in": started_in,
        "config": config.to_dict(),
        "strategies": {str(s): name for s, name in enumerate(config.strategies)},
        "fingerprints": fingerprints,
        **({"setups_run_id": setups_run_id} if setups_run_id else {}),
        "ruleset": config.rules().to_dict(),
        "options": {
            "on_error": on_error,
            "workers": workers,
            "backend": backend,
            "chunk_size": chunk_size,
            "ray_address": ray_address,
            "decision_timeout": decision_timeout,
            "max_memory": max_memory,
        },
        "state": "running",
        "error": None,
        "started_at": started_at,
        "ended_at": None,
        "counts": {},
        "sessions": sessions,
        "parts": [],
    }


def new_session(started_at: str, *, workers: int, backend: str, chunk_size: int) -> dict:
    """A session's entry in the manifest's ``sessions`` as it starts (counts 0, ``running``)."""
    return {
        "started_at": started_at,
        "ended_at": None,
        "workers": workers,
        "backend": backend,
        "chunk_size": chunk_size,
        "matches": 0,
        "deals": 0,
        "seconds": 0.0,
        "state": "running",
    }


def part_plan(manifest: dict) -> tuple[int, int, str]:
    """``(matches, part_size, compression)`` of the run ``manifest`` describes (``ValueError``
    if its config does not give them)."""
    try:
        config = manifest["config"]
        return int(config["matches"]), int(config["part_size"]), config["compression"]
    except (KeyError, TypeError, ValueError):
        raise ValueError("no valid config (matches, part_size, compression)") from None


def manifest_problem(data: dict) -> str | None:
    """What is wrong with a (hand-edited) manifest's plan, or ``None``.

    >>> cfg = {"matches": 7, "part_size": 10, "compression": "none"}
    >>> manifest_problem({"state": "complete", "config": cfg}) is None
    True
    >>> manifest_problem({"state": "complete", "config": cfg | {"matches": -3}})
    'config.matches must be a positive whole number, got -3'
    >>> parts = [{"index": 0, "first_match": 0, "stop_match": 4}]
    >>> manifest_problem({"state": "complete", "config": cfg, "parts": parts})
    'part 0 holds matches 0..3, but config (7 matches, 10 per part) plans 0..6'
    """
    cfg = data.get("config")
    if not isinstance(cfg, dict):
        return "no config (an object with matches, part_size, compression)"
    for key in ("matches", "part_size"):
        v = cfg.get(key)
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            return f"config.{key} must be a positive whole number, got {v!r}"
    problem = _config_fields_problem(cfg)
    if problem is not None:
        return problem
    if cfg.get("compression") not in COMPRESSIONS:
        return f"config.compression must be one of {', '.join(COMPRESSIONS)}, got {cfg.get('compression')!r}"
    from guandan_cli.engine.rules import RULESETS

    if "ruleset" in cfg and cfg["ruleset"] not in RULESETS:
        return f"config.ruleset must be one of {', '.join(sorted(RULESETS))}, got {cfg['ruleset']!r}"
    if data.get("state") not in STATES:
        return f"state must be one of {', '.join(STATES)}, got {data.get('state')!r}"
    problem = plan_problem(cfg["matches"], cfg["part_size"])
    if problem is not None:
        return problem
    return _parts_problem(data.get("parts", []), cfg["matches"], cfg["part_size"])


def _parts_problem(parts, matches: int, size: int) -> str | None:
    """What is wrong with a manifest's list of complete parts, or ``None``."""
    if not isinstance(parts, list):
        return f"parts must be a list, got {type(parts).__name__}"
    for part in parts:
        try:
            index, first, stop = part["index"], part["first_match"], part["stop_match"]
        except (TypeError, KeyError):
            return f"a part entry lacks index, first_match or stop_match: {part!r}"
        planned = (index * size, min(index * size + size, matches)) if isinstance(index, int) else None
        if planned is None or planned[0] >= matches or (first, stop) != planned:
            where = f"{planned[0]}..{planned[1] - 1}" if planned and planned[0] < matches else "nothing"
            return (
                f"part {index!r} holds matches {first}..{stop - 1 if isinstance(stop, int) else stop}, "
                f"but config ({matches} matches, {size} per part) plans {where}"
            )
    return None


def _whole(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _config_fields_problem(cfg: dict) -> str | None:
    """What is wrong with the seed, caps and seat strategies of a manifest's config (when present).

    >>> _config_fields_problem({"seed": "abc"})
    "config.seed must be a whole number, got 'abc'"
    >>> _config_fields_problem({"seed": 3, "max_deals": 0})
    'config.max_deals must be null or a positive whole number, got 0'
    >>> _config_fields_problem({"strategies": ["greedy"] * 3})
    "config.strategies must be a list of 4 strategy names, got ['greedy', 'greedy', 'greedy']"
    >>> _config_fields_problem({"tribute": "x"})
    "config.tribute must be null or one of on, off, paid, got 'x'"
    >>> _config_fields_problem({"seed": -1, "max_deals": None, "a_fail_limit": 3, "strategies": ["a", "b", "a", "b"]})
    """
    if "seed" in cfg and not _whole(cfg["seed"]):
        return f"config.seed must be a whole number, got {cfg['seed']!r}"
    for key in ("max_deals", "a_fail_limit"):
        v = cfg.get(key)
        if v is not None and (not _whole(v) or v < 1):
            return f"config.{key} must be null or a positive whole number, got {v!r}"
    if "strategies" in cfg:
        v = cfg["strategies"]
        if not (isinstance(v, list) and len(v) == 4 and all(isinstance(x, str) and x for x in v)):
            return f"config.strategies must be a list of 4 strategy names, got {v!r}"
    from guandan_cli.engine.rules import TRIBUTE_MODES

    v = cfg.get("tribute")
    if v is not None and v not in TRIBUTE_MODES:  # else replay and watch blame every deal line
        return f"config.tribute must be null or one of {', '.join(TRIBUTE_MODES)}, got {v!r}"
    v = cfg.get("setups")
    if v is not None and not (isinstance(v, str) and v):
        return f"config.setups must be null or a setup source (fresh, random, paying, resisting or a run directory), got {v!r}"
    return None


__all__ = [
    "CONFIG_FIELDS",
    "DEFAULT_PART_SIZE",
    "FORMAT",
    "MANIFEST",
    "MAX_MATCHES",
    "MAX_PARTS",
    "NAMED_WHEN_SET",
    "STATES",
    "PartialConfig",
    "RunConfig",
    "manifest_problem",
    "new_manifest",
    "new_session",
    "part_plan",
    "plan_problem",
    "read_manifest",
    "write_manifest",
]

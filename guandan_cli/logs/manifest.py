"""A run's manifest (``manifest.json``): its config as a value, and reading and writing the file.

- :class:`RunConfig` — what decides a run's bytes (seed, matches, strategies, ruleset and
  options, compression, part size, schema, setups, tribute), one frozen value;
  :meth:`RunConfig.to_dict` is the manifest's ``config`` block and
  :meth:`RunConfig.from_dict` reads it back.
- :class:`PartialConfig` — some of those values: what a caller gave or requires (``simulate``'s
  options, a comparison's run), or what a stored manifest records (``PartialConfig.recorded``);
  a field not given is ``None`` and not in ``given``.
- :class:`Manifest` — the whole file as one frozen value: its :class:`RunState`, the run's
  config (:class:`RunConfig`, and what the file records of it, :class:`PartialConfig`), the
  complete parts (:class:`PartEntry`), the totals (:class:`Totals`), the sessions
  (:class:`SessionEntry`) and how the run is played (:class:`RunOptions`). Only
  :func:`read_manifest` builds one from a file (:meth:`Manifest.from_dict`); a change is a
  ``dataclasses.replace``; :meth:`Manifest.to_dict` writes the same JSON it was read from.
- :func:`read_manifest` (with the checks of a hand-edited file, :func:`manifest_problem`) and
  :func:`write_manifest` (atomic).

This module is the only one that spells the keys of a manifest: every other reads it
through these values.

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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from enum import StrEnum
from pathlib import Path

from .schema import SCHEMA_VERSION
from .writer import COMPRESSIONS, atomic_write_bytes

MANIFEST = "manifest.json"
FORMAT = "guandan-run"


class RunState(StrEnum):
    """What a manifest's ``state`` says of its run (the values are the file's strings)."""

    RUNNING = "running"
    COMPLETE = "complete"
    INTERRUPTED = "interrupted"
    FAILED = "failed"


#: what a manifest's ``state`` may say
STATES = tuple(s.value for s in RunState)
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
    def recorded(cls, manifest: dict | Manifest | None) -> PartialConfig:
        """What the ``config`` block of ``manifest`` (its JSON object, or the value read from
        it) records (nothing without one), values as stored."""
        if isinstance(manifest, Manifest):
            return manifest.recorded
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


# ------------------------------------------------------------------ the manifest as a value


def _whole_or_none(where: str, v) -> int | None:
    if v is not None and not _whole(v):
        raise ValueError(f"{where} must be a whole number, got {v!r}")
    return v


def _pair_or_none(where: str, v) -> tuple[int, int] | None:
    if v is None:
        return None
    if not (isinstance(v, list) and len(v) == 2 and all(_whole(x) for x in v)):
        raise ValueError(f"{where} must be a list of 2 whole numbers, got {v!r}")
    return (v[0], v[1])


def _text_or_none(where: str, v) -> str | None:
    if v is not None and not isinstance(v, str):
        raise ValueError(f"{where} must be a string, got {v!r}")
    return v


def _object(where: str, v) -> dict:
    if not isinstance(v, dict):
        raise ValueError(f"{where} must be an object, got {v!r}")
    return v


def _mapping(v) -> dict | None:
    return v if isinstance(v, dict) else None


def _put(out: dict, key: str, value) -> None:
    """``out[key] = value`` unless ``value`` is ``None`` (a key the file did not have)."""
    if value is not None:
        out[key] = value


@dataclass(frozen=True)
class FileEntry:
    """What a manifest records of one part file: its name, lines, size and sha256."""

    file: str
    lines: int | None = None
    bytes: int | None = None
    sha256: str | None = None

    @classmethod
    def from_dict(cls, where: str, data) -> FileEntry:
        data = _object(where, data)
        name = data.get("file")
        if not isinstance(name, str) or not name:
            raise ValueError(f"{where}.file must be a file name, got {name!r}")
        return cls(
            name,
            _whole_or_none(f"{where}.lines", data.get("lines")),
            _whole_or_none(f"{where}.bytes", data.get("bytes")),
            _text_or_none(f"{where}.sha256", data.get("sha256")),
        )

    def to_dict(self) -> dict:
        out: dict = {"file": self.file}
        for key in ("lines", "bytes", "sha256"):
            _put(out, key, getattr(self, key))
        return out


#: the counts a part entry and the manifest's ``counts`` both hold
COUNTED = ("matches", "deals", "errors", "capped", "wins")


@dataclass(frozen=True)
class PartEntry:
    """A complete part as the manifest lists it: its matches ``first_match..stop_match - 1``,
    what its records count, and its two files (``None``: not recorded, as for a part found
    on disk after a crash by an older version)."""

    index: int
    first_match: int
    stop_match: int
    matches: int | None = None
    deals: int | None = None
    errors: int | None = None
    capped: int | None = None
    wins: tuple[int, int] | None = None
    deals_file: FileEntry | None = None
    matches_file: FileEntry | None = None

    @classmethod
    def from_dict(cls, where: str, data: dict) -> PartEntry:
        files = {
            key: FileEntry.from_dict(f"{where}.{key}", data[key]) if data.get(key) is not None else None
            for key in ("deals_file", "matches_file")
        }
        counts = {k: _whole_or_none(f"{where}.{k}", data.get(k)) for k in COUNTED if k != "wins"}
        wins = _pair_or_none(f"{where}.wins", data.get("wins"))
        return cls(data["index"], data["first_match"], data["stop_match"], **counts, wins=wins, **files)

    def to_dict(self) -> dict:
        out: dict = {"index": self.index, "first_match": self.first_match, "stop_match": self.stop_match}
        for key in ("matches", "deals", "errors", "capped"):
            _put(out, key, getattr(self, key))
        _put(out, "wins", list(self.wins) if self.wins is not None else None)
        for key in ("deals_file", "matches_file"):
            entry = getattr(self, key)
            _put(out, key, entry.to_dict() if entry is not None else None)
        return out

    def files(self) -> tuple[FileEntry, ...]:
        """The files the entry records (deals first)."""
        return tuple(f for f in (self.deals_file, self.matches_file) if f is not None)


@dataclass(frozen=True)
class Totals:
    """The manifest's ``counts``: the complete parts' counts summed, the parts planned and done."""

    matches: int | None = None
    deals: int | None = None
    errors: int | None = None
    capped: int | None = None
    wins: tuple[int, int] | None = None
    parts: int | None = None
    parts_done: int | None = None

    @classmethod
    def of_parts(cls, parts: Sequence[PartEntry], planned: int) -> Totals:
        """The totals of the complete ``parts`` of a run of ``planned`` parts."""
        return cls(
            sum(p.matches or 0 for p in parts),
            sum(p.deals or 0 for p in parts),
            sum(p.errors or 0 for p in parts),
            sum(p.capped or 0 for p in parts),
            (sum(p.wins[0] for p in parts if p.wins), sum(p.wins[1] for p in parts if p.wins)),
            planned,
            len(parts),
        )

    @classmethod
    def from_dict(cls, data) -> Totals:
        data = _object("counts", data)
        values = {
            k: _whole_or_none(f"counts.{k}", data.get(k))
            for k in ("matches", "deals", "errors", "capped", "parts", "parts_done")
        }
        return cls(**values, wins=_pair_or_none("counts.wins", data.get("wins")))

    def to_dict(self) -> dict:
        out: dict = {}
        for f in fields(self):
            value = getattr(self, f.name)
            _put(out, f.name, list(value) if isinstance(value, tuple) else value)
        return out

    def get(self, name: str) -> int | tuple[int, int] | None:
        """The count ``name`` (one of ``COUNTED``, ``parts``, ``parts_done``)."""
        return getattr(self, name)


@dataclass(frozen=True)
class SessionEntry:
    """One session of a run (a first start or a resume), as the manifest's ``sessions`` records it."""

    started_at: str | None = None
    ended_at: str | None = None
    workers: int | None = None
    backend: str | None = None
    chunk_size: int | None = None
    matches: int = 0
    deals: int = 0
    seconds: float = 0.0
    state: str = RunState.RUNNING.value

    @classmethod
    def from_dict(cls, where: str, data) -> SessionEntry:
        data = _object(where, data)
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})

    def to_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True)
class RunOptions:
    """How a run is played (the manifest's ``options``): none of it changes its bytes."""

    on_error: str | None = None
    workers: int | None = None
    backend: str | None = None
    chunk_size: int | None = None
    ray_address: str | None = None
    decision_timeout: float | None = None
    max_memory: int | None = None

    @classmethod
    def from_dict(cls, data) -> RunOptions:
        data = _object("options", data)
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})

    def to_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True)
class Manifest:
    """A run's ``manifest.json`` as a value (see docs/log-format.md for each field).

    ``config`` is the run's config (a key the file lacks takes its default); ``recorded``
    what the file records of it, as stored (``PartialConfig.recorded``). Fields an older
    version did not write are ``None``. :func:`read_manifest` alone builds one from a file;
    :func:`new_manifest` starts a session's; ``dataclasses.replace`` changes one.
    """

    state: RunState
    config: RunConfig
    recorded: PartialConfig
    parts: tuple[PartEntry, ...] = ()
    counts: Totals | None = None
    sessions: tuple[SessionEntry, ...] = ()
    options: RunOptions | None = None
    schema_version: int | None = None
    package_version: str | None = None
    run_id: str | None = None
    instance: str | None = None
    config_digest: str | None = None
    command: str | None = None
    started_in: str | None = None
    #: the strategy spec of each seat, by seat number as text (``{"0": "greedy", …}``)
    strategies: Mapping[str, str] | None = None
    #: each strategy spec's code fingerprint, and the engine's (``strategies.fingerprint``)
    fingerprints: Mapping[str, object] | None = None
    setups_run_id: str | None = None
    #: the ruleset as ``Ruleset.to_dict`` writes it
    ruleset: Mapping[str, object] | None = None
    error: str | None = None
    started_at: str | None = None
    ended_at: str | None = None
    #: the keys of the file, in its order (``to_dict`` writes them so)
    keys: tuple[str, ...] = field(default=(), compare=False, repr=False)

    @property
    def complete(self) -> bool:
        """Whether the manifest says the run is complete."""
        return self.state is RunState.COMPLETE

    def matches_in_parts(self) -> int:
        """The matches held by the complete parts listed."""
        return sum(p.stop_match - p.first_match for p in self.parts)

    def part_files(self) -> tuple[FileEntry, ...]:
        """Every file the listed parts record, part by part (deals first)."""
        return tuple(f for p in self.parts for f in p.files())

    @classmethod
    def from_dict(cls, data: dict) -> Manifest:
        """The value of a manifest's JSON object (``ValueError`` naming a field of the wrong kind);
        ``manifest_problem(data)`` is checked first by :func:`read_manifest`."""
        counts = data.get("counts")
        options = data.get("options")
        return cls(
            state=RunState(data["state"]),
            config=RunConfig.from_dict(data["config"]),
            recorded=PartialConfig.recorded(data),
            parts=tuple(PartEntry.from_dict(f"parts[{n}]", p) for n, p in enumerate(data.get("parts", []))),
            counts=Totals.from_dict(counts) if counts is not None else None,
            sessions=tuple(
                SessionEntry.from_dict(f"sessions[{n}]", s) for n, s in enumerate(data.get("sessions") or [])
            ),
            options=RunOptions.from_dict(options) if options is not None else None,
            schema_version=data.get("schema_version"),
            package_version=_text_or_none("package_version", data.get("package_version")),
            run_id=_text_or_none("run_id", data.get("run_id")),
            instance=_text_or_none("instance", data.get("instance")),
            config_digest=_text_or_none("config_digest", data.get("config_digest")),
            command=_text_or_none("command", data.get("command")),
            started_in=_text_or_none("started_in", data.get("started_in")),
            strategies=_mapping(data.get("strategies")),
            fingerprints=_mapping(data.get("fingerprints")),
            setups_run_id=_text_or_none("setups_run_id", data.get("setups_run_id")),
            ruleset=_mapping(data.get("ruleset")),
            error=_text_or_none("error", data.get("error")),
            started_at=_text_or_none("started_at", data.get("started_at")),
            ended_at=_text_or_none("ended_at", data.get("ended_at")),
            keys=tuple(data),
        )

    def to_dict(self) -> dict:
        """The manifest's JSON object: the keys it was read or started with, in that order."""
        values = {
            "format": FORMAT,
            "schema_version": self.schema_version,
            "package_version": self.package_version,
            "run_id": self.run_id,
            "instance": self.instance,
            "config_digest": self.config_digest,
            "command": self.command,
            "started_in": self.started_in,
            "config": self.config.to_dict(),
            "strategies": dict(self.strategies) if self.strategies is not None else None,
            "fingerprints": self.fingerprints,
            "setups_run_id": self.setups_run_id,
            "ruleset": self.ruleset,
            "options": self.options.to_dict() if self.options is not None else None,
            "state": self.state.value,
            "error": self.error,
            "started_at": self.started_at,
            "ended_at": self.ended_at,
            "counts": self.counts.to_dict() if self.counts is not None else {},
            "sessions": [s.to_dict() for s in self.sessions],
            "parts": [p.to_dict() for p in self.parts],
        }
        return {k: values[k] for k in self.keys if k in values}


# ------------------------------------------------------------------ reading and writing


def read_manifest(path: str | os.PathLike) -> Manifest | None:
    """The manifest of a run directory, or ``None`` when there is none (``ValueError`` if
    unreadable, naming the file and what is wrong): the one place a manifest's JSON becomes a value."""
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
    try:
        return Manifest.from_dict(data)
    except ValueError as exc:
        raise ValueError(f"{f}: {exc}") from None


@dataclass(frozen=True)
class RunFolder:
    """A folder of log parts with its manifest, read once and handed down: what a command that
    reads a run needs of it (``manifest``: ``None`` for a part file's folder without one, a
    part file given alone, or a path that is not there)."""

    path: Path
    manifest: Manifest | None = None

    @classmethod
    def read(cls, path: str | os.PathLike | RunFolder) -> RunFolder:
        """``path`` and its manifest (``ValueError`` for one that does not read); a
        ``RunFolder`` given is returned as it is, its manifest not read again."""
        if isinstance(path, RunFolder):
            return path
        return cls(Path(path), read_manifest(path))

    @property
    def options(self) -> PartialConfig:
        """The run's options as its manifest records them (none without one)."""
        return PartialConfig.recorded(self.manifest)


def write_manifest(path: str | os.PathLike, manifest: Manifest) -> None:
    """Write ``manifest`` into the run directory ``path`` (``*.tmp``, fsync, rename)."""
    text = json.dumps(manifest.to_dict(), indent=2, ensure_ascii=False) + "\n"
    atomic_write_bytes(Path(path) / MANIFEST, text.encode())


@dataclass(frozen=True)
class RunOrigin:
    """Where a run comes from: the package version that writes it, the command line, the folder
    relative paths were read from (``file.py:Class`` strategies), the first start's time, and
    the run directory's random ``instance``."""

    package_version: str
    command: str
    started_in: str
    started_at: str
    instance: str


def new_manifest(
    config: RunConfig,
    origin: RunOrigin,
    *,
    sessions: Sequence[SessionEntry],
    fingerprints: Mapping[str, object],
    setups_run_id: str | None,
    options: RunOptions,
) -> Manifest:
    """A manifest as a session starts writing it (``state`` running, no part yet): the run's
    config, identity (run id, the ``origin``, the config's digest, code fingerprints, the
    setups' source run), the rules it plays, and how it is played (``options``); see
    docs/log-format.md."""
    keys = [
        "format", "schema_version", "package_version", "run_id", "instance", "config_digest", "command",
        "started_in", "config", "strategies", "fingerprints", *(["setups_run_id"] if setups_run_id else []),
        "ruleset", "options", "state", "error", "started_at", "ended_at", "counts", "sessions", "parts",
    ]  # fmt: skip
    return Manifest(
        state=RunState.RUNNING,
        config=config,
        recorded=PartialConfig.recorded({"config": config.to_dict()}),
        sessions=tuple(sessions),
        options=options,
        schema_version=SCHEMA_VERSION,
        package_version=origin.package_version,
        run_id=config.run_id,
        instance=origin.instance,
        config_digest=config.digest,
        command=origin.command,
        started_in=origin.started_in,
        strategies={str(s): name for s, name in enumerate(config.strategies)},
        fingerprints=fingerprints,
        setups_run_id=setups_run_id or None,
        ruleset=config.rules().to_dict(),
        started_at=origin.started_at,
        keys=tuple(keys),
    )


def new_session(started_at: str, *, workers: int, backend: str, chunk_size: int) -> SessionEntry:
    """A session's entry in the manifest's ``sessions`` as it starts (counts 0, ``running``)."""
    return SessionEntry(started_at, None, workers, backend, chunk_size)


def part_plan(manifest: Manifest | None) -> tuple[int, int, str]:
    """``(matches, part_size, compression)`` of the run ``manifest`` describes (``ValueError``
    without one)."""
    if manifest is None:
        raise ValueError("no valid config (matches, part_size, compression)")
    config = manifest.config
    return config.matches, config.part_size, config.compression


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
    "COUNTED",
    "DEFAULT_PART_SIZE",
    "FORMAT",
    "MANIFEST",
    "MAX_MATCHES",
    "MAX_PARTS",
    "NAMED_WHEN_SET",
    "STATES",
    "FileEntry",
    "Manifest",
    "PartEntry",
    "RunOrigin",
    "PartialConfig",
    "RunConfig",
    "RunFolder",
    "RunOptions",
    "RunState",
    "SessionEntry",
    "Totals",
    "manifest_problem",
    "new_manifest",
    "new_session",
    "part_plan",
    "plan_problem",
    "read_manifest",
    "write_manifest",
]

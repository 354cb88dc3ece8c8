"""From ``simulate``'s options to a settled run: the one place a run's input is checked.

In the order ``simulate`` uses them:

- :func:`read_options` — every option checked (one ``SimulationInputError`` line for the
  first bad one), as a ``Request``: the config values given (``PartialConfig``), the
  session's options (``Session``: workers, backend, chunking, errors, progress), the output
  folder, resume/force;
- :func:`output_folder` — the run directory (the default name when none is given:
  :func:`default_out`) and what a run stored there must agree on;
- :func:`check_stored` — a stored run can be continued with the code there is now (its
  strategies load, their code and the setups' source are unchanged);
- :func:`settle` — the ``RunConfig``: the defaults, then the stored run's values, then the
  options given; checked whole (the part plan, the setups, the disk, the strategies, the
  ruleset), with what else identifies the run (``SettledRun``: code fingerprints, the setups'
  source run, classes sent to workers by value).

The manifest records the run as :func:`complete_command` (or :func:`canonical_command`) gives it.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from guandan_cli.logs.layout import space_problem
from guandan_cli.logs.manifest import DEFAULT_PART_SIZE, Manifest, PartialConfig, RunConfig, plan_problem
from guandan_cli.logs.schema import SCHEMA_VERSION
from guandan_cli.logs.writer import COMPRESSIONS
from guandan_cli.runner.backends import (
    BACKENDS,
    default_workers,
    main_without_file,
    unguarded_main_call,
    workers_problem,
)
from guandan_cli.runner.errors import SimulationInputError
from guandan_cli.runner.identity import (
    by_value_classes,
    changed_code_refusal,
    changed_setups_refusal,
    class_spec,
    serialise_classes,
    setups_problem,
    setups_run_id,
    strategy_fingerprints,
)
from guandan_cli.runner.tasks import ON_ERROR

# ------------------------------------------------------------------ strategies


def parse_strategies(spec: str | Sequence[str]) -> tuple[str, str, str, str]:
    """Four seat strategies from ``a`` (all seats), ``a,b`` (seats 0/2 and 1/3) or ``a,b,c,d``.

    >>> parse_strategies("greedy,random")
    ('greedy', 'random', 'greedy', 'random')
    """
    items = [s.strip() for s in spec.split(",")] if isinstance(spec, str) else [_spec_of(s) for s in spec]
    if any(not s for s in items):
        raise SimulationInputError(f"empty strategy name in {spec!r}")
    if len(items) == 1:
        items = items * 4
    elif len(items) == 2:
        items = [items[0], items[1], items[0], items[1]]
    elif len(items) != 4:
        raise SimulationInputError(
            f"--strategies takes 1 name (every seat), 2 (seats 0/2 and 1/3) or 4 (seats 0-3), got {len(items)}: {spec!r}"
        )
    return (items[0], items[1], items[2], items[3])


def _spec_of(item) -> str:
    """A seat's strategy as a spec string (see ``class_spec`` for classes)."""
    if isinstance(item, type):
        return class_spec(item)[0]
    return str(item).strip()


def load_in_time(spec: str | type, timeout: float, name: str | None = None) -> type:
    """The strategy class of ``spec``, its loading (its module's import) held to ``timeout``
    seconds (0: none): past it, ``SimulationInputError`` in one line naming ``name``."""
    from guandan_cli.runner.supervisor import DecisionTimeout, time_limit
    from guandan_cli.strategies.registry import load_strategy

    try:
        with time_limit(timeout, "loading it"):
            return load_strategy(spec)
    except DecisionTimeout as exc:
        raise SimulationInputError(f"strategy {name or spec!r} cannot be loaded: {exc}") from None


def check_strategies(
    strategies: Sequence[str], classes: dict[str, type] | None = None, timeout: float = 0.0
) -> None:
    """Every strategy loads and is a strategy class (else ``SimulationInputError`` in one line);
    ``timeout``: the most seconds a strategy's loading (its module's import) may take."""
    from guandan_cli.strategies.human import input_source_installed
    from guandan_cli.strategies.registry import UnknownStrategyError

    classes = classes or {}
    for s in dict.fromkeys(strategies):
        try:
            cls = load_in_time(classes.get(s, s), timeout, s)
            if getattr(cls, "needs_input_source", False) and not input_source_installed():
                raise SimulationInputError(
                    f"strategy {s!r} is a seat for a person, who answers at a terminal: "
                    "play it with `guandan play`, not in simulate or compare"
                )
        except SimulationInputError:
            raise
        except UnknownStrategyError as exc:
            raise SimulationInputError(str(exc)) from None
        except Exception as exc:  # noqa: BLE001 - a plugin that fails to import
            raise SimulationInputError(
                f"strategy {s!r} cannot be loaded: {type(exc).__name__}: {exc}"
            ) from None


# ------------------------------------------------------------------ the options


@dataclass(frozen=True)
class Session:
    """How this session plays the run (never what it writes): see ``simulate``'s options."""

    workers: int | None = None
    on_error: str = "stop"
    backend: str = "local"
    ray_address: str | None = None
    chunk_size: int | None = None
    progress: bool | Callable[[int, int], None] = False
    command: str | None = None
    label: str | None = None
    #: seconds a bot may take over one decision (0: no limit; ``runner.supervisor``)
    decision_timeout: float = 60.0
    #: bytes of address space per worker process (``None``: no limit)
    max_memory: int | None = None
    #: the file the bots' output goes to (``None``: the run directory's ``bots.log``)
    bots_log: str | None = None

    @property
    def in_process(self) -> bool:
        """Whether the run plays in the calling process (one local worker asked for, or one core,
        and no memory limit); else a local run plays in watched worker processes, however few
        its tasks (``runner.supervisor``)."""
        return (
            self.backend == "local" and (self.workers or default_workers()) == 1 and self.max_memory is None
        )


@dataclass(frozen=True)
class SimulationConfig:
    """What a ``simulate`` call asks for, as one value: the run's options (``None``: the default,
    or the stored run's value), where it is written, and how this session plays it.

    Options left at ``None`` take their defaults (100 matches, seed 0, ``heuristic`` at
    every seat, ``cgr2022``, no compression, 1000 matches per part, all cores) — or, when
    ``out`` holds an unfinished run, that run's values: rerunning (or ``resume=True``)
    continues it, and gives the same bytes as an uninterrupted run. Options given must
    agree with the stored run (else ``SimulationInputError``; ``force=True`` starts over).

    - ``strategies``: ``"a"`` (every seat), ``"a,b"`` (seats 0/2 and 1/3), ``"a,b,c,d"``
      or a sequence of 1, 2 or 4; names, ``module:Class``, ``file.py:Class`` or classes
      (a class workers cannot import, e.g. from a notebook cell, is sent to them by value).
    - ``workers``: processes (``None``: all cores); ``backend``: ``"local"`` or ``"ray"``.
    - ``compression``: ``"none"``, ``"gzip"`` or ``"zstd"``.
    - ``on_error``: ``"stop"`` (a strategy failure stops the run with ``SimulationError``)
      or ``"record"`` (the match is recorded with its error and the run goes on).
    - ``chunk_size``: matches per task (never changes the output); ``part_size``: matches
      per log part (fixed for a run).
    - ``progress``: ``True`` for a rich progress bar (titled ``label``, default
      ``simulate``), or a callable ``(matches, deals)`` called with the increments after
      each task.
    - ``setups``: play one deal per "match" from a setup source instead of whole matches:
      ``"fresh"``, ``"random"`` or a run directory (see ``guandan_cli.runner.setups``);
      each is logged as a one-deal match (``max_deals`` is 1). ``"paying"`` and
      ``"resisting"`` are the conditioned sources of ``guandan experiment``.
    - ``replay_damaged``: with ``resume``, play again (from their seeds) the complete parts
      whose files no longer have the size and sha256 the manifest records (truncated,
      edited); the damaged files are kept as ``NAME.damaged``. Without it such a run is
      refused in one line naming the parts.
    - ``tribute``: the ruleset's tribute option, ``"on"`` (the rules, default), ``"off"``
      (no tribute or return) or ``"paid"`` (no resistance), for counterfactual experiments.
    - ``decision_timeout``: seconds a bot may take over one decision (default 60, 0: no limit;
      a bot past it fails as if it had raised); ``max_memory``: each worker process's address
      space (``"2G"``; a bot over it fails with ``MemoryError``). A worker that dies or overruns
      is replaced and its match recorded as errored (``runner.supervisor``); what bots print goes to
      the run directory's ``bots.log`` (or to the file ``bots_log``, appended to).

    >>> SimulationConfig(matches=4, seed=1, strategies="random").seed
    1
    """

    matches: int | None = None
    seed: int | None = None
    strategies: str | Sequence[str] | None = None
    ruleset: str | None = None
    max_deals: int | None = None
    a_fail_limit: int | None = None
    out: str | os.PathLike | None = None
    workers: int | None = None
    compression: str | None = None
    on_error: str = "stop"
    backend: str = "local"
    ray_address: str | None = None
    resume: bool = False
    force: bool = False
    chunk_size: int | None = None
    part_size: int | None = None
    progress: bool | Callable[[int, int], None] = False
    command: str | None = None
    setups: str | os.PathLike | None = None
    tribute: str | None = None
    label: str | None = None
    replay_damaged: bool = False
    decision_timeout: float | None = None
    max_memory: str | int | None = None
    bots_log: str | os.PathLike | None = None

    @classmethod
    def of(cls, config: SimulationConfig | int | None = None, **options) -> SimulationConfig:
        """``config`` with ``options`` over it; an ``int`` (or ``None``) is ``matches``, as in
        ``simulate(100, seed=1)`` (``TypeError`` for an option there is none of)."""
        if isinstance(config, SimulationConfig):
            return replace(config, **options) if options else config
        return cls(**({} if config is None else {"matches": config}), **options)


@dataclass(frozen=True)
class Request:
    """``simulate``'s options, checked: the config values given, the session, where and how."""

    given: PartialConfig
    session: Session
    out: Path | None
    resume: bool = False
    force: bool = False
    #: the strategy classes among the options that workers cannot import, by spec
    by_value: dict[str, type] = field(default_factory=dict)
    #: with ``resume``: play damaged complete parts again (``SimulationConfig.replay_damaged``)
    replay_damaged: bool = False


def _positive(name: str, value: int | None, allow_none: bool = True) -> None:
    if value is None and allow_none:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        # the argument's name in the Python API and the option's on the command line
        raise SimulationInputError(
            f"{name.replace('-', '_')} (--{name}) must be a positive whole number, got {value!r}"
        )


def read_options(options: SimulationConfig) -> Request:
    """``simulate``'s options checked, in one place (the first problem found is the error)."""
    o = options
    session = _session(o)
    for name, value in (
        ("matches", o.matches),
        ("part-size", o.part_size),
        ("max-deals", o.max_deals),
        ("a-fail-limit", o.a_fail_limit),
        ("workers", session.workers),
        ("chunk-size", session.chunk_size),
    ):
        _positive(name, value)
    out = o.out
    if out is not None and not isinstance(out, str | os.PathLike):
        raise SimulationInputError(f"out must be a path (the run's folder), got {out!r}")
    _check_main_script(session)
    given = PartialConfig.given_values(
        matches=o.matches,
        seed=o.seed,
        strategies=None if o.strategies is None else parse_strategies(o.strategies),
        ruleset=o.ruleset,
        a_fail_limit=o.a_fail_limit,
        max_deals=o.max_deals,
        compression=o.compression,
        part_size=o.part_size,
        setups=None if o.setups is None else str(o.setups),
        tribute=None if o.tribute in (None, "on") else o.tribute,
    )
    _check_values(given, session, o.resume, o.force)
    if isinstance(out, str) and not out:
        raise SimulationInputError("out: an empty path (give a folder name, or None for the default)")
    if o.replay_damaged and not o.resume:
        raise SimulationInputError("replay_damaged (--replay-damaged) goes with resume (--resume)")
    by_value = by_value_classes(o.strategies)
    return Request(
        given, session, None if out is None else Path(out), o.resume, o.force, by_value, o.replay_damaged
    )


def _session(o: SimulationConfig) -> Session:
    """How this session plays the run, its limits checked (``runner.supervisor``; defaults:
    ``supervisor.limits_given``)."""
    from guandan_cli.runner import supervisor

    given = supervisor.limits_given()
    try:
        timeout = supervisor.check_decision_timeout(
            given.decision_timeout if o.decision_timeout is None else o.decision_timeout,
            "decision_timeout (--decision-timeout)",
        )
        memory = supervisor.parse_memory(
            given.max_memory if o.max_memory is None else o.max_memory, "max_memory (--max-memory)"
        )
    except ValueError as exc:
        raise SimulationInputError(str(exc)) from None
    bots_log = None if o.bots_log is None else str(o.bots_log)
    return Session(
        workers=o.workers,
        on_error=o.on_error,
        backend=o.backend,
        ray_address=o.ray_address,
        chunk_size=o.chunk_size,
        progress=o.progress,
        command=o.command,
        label=o.label,
        decision_timeout=timeout,
        max_memory=memory,
        bots_log=bots_log,
    )


def _check_main_script(session: Session) -> None:
    """Worker processes run the main script again: it must have a file, and call us guarded."""
    if session.backend != "local" or session.in_process:
        return
    stdin = main_without_file()
    if stdin is not None:
        raise SimulationInputError(
            f"{stdin}: simulate() runs worker processes, which run your script again from "
            "its file, and this one has none; save it to a .py file (or pass workers=1)"
        )
    where = unguarded_main_call()
    if where is not None:
        raise SimulationInputError(
            f"{where}: simulate() runs worker processes, which import your script again; "
            'call it under `if __name__ == "__main__":` (or pass workers=1)'
        )


def _check_values(given: PartialConfig, session: Session, resume: bool, force: bool) -> None:
    workers, backend = session.workers, session.backend
    problem = workers_problem(workers) if backend == "local" else None
    if problem is not None:
        raise SimulationInputError(problem)
    seed = given.seed
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise SimulationInputError(f"seed must be a whole number, got {seed!r}")
    if given.compression is not None and given.compression not in COMPRESSIONS:
        raise SimulationInputError(
            f"unknown compression {given.compression!r}: expected one of {', '.join(COMPRESSIONS)}"
        )
    if session.on_error not in ON_ERROR:
        raise SimulationInputError(
            f"unknown on-error mode {session.on_error!r}: expected one of {', '.join(ON_ERROR)}"
        )
    if backend not in BACKENDS:
        raise SimulationInputError(f"unknown backend {backend!r}: expected one of {', '.join(BACKENDS)}")
    if resume and force:
        raise SimulationInputError("--resume and --force exclude each other")
    if session.ray_address is not None and backend != "ray":
        raise SimulationInputError(
            f"--ray-address {session.ray_address} goes with --backend ray, not {backend}"
        )
    if backend == "ray":
        try:
            import ray.util.multiprocessing  # noqa: F401
        except ImportError:
            raise SimulationInputError(
                "the ray backend needs Ray: pip install 'guandan[ray]' (or pip install 'ray[default]')"
            ) from None


# ------------------------------------------------------------------ the output folder


def default_out(config: RunConfig) -> Path:
    """``runs/STRATEGIES-RULESET-sSEED-nMATCHES``, then ``-dMAX_DEALS``, ``-aA_FAIL_LIMIT``,
    ``-setups_SOURCE`` and ``-tribute_MODE`` for those set: two runs differing in any option
    that changes the games never share a default folder.

    >>> cfg = RunConfig(strategies=("greedy", "random") * 2, ruleset="jiangsu2017", seed=3, matches=50)
    >>> default_out(cfg).as_posix()
    'runs/greedy-vs-random-jiangsu2017-s3-n50'
    >>> default_out(replace(cfg, max_deals=3, a_fail_limit=2)).as_posix()
    'runs/greedy-vs-random-jiangsu2017-s3-n50-d3-a2'
    """
    s = config.strategies
    if len(set(s)) == 1:
        who = s[0]
    elif s[0] == s[2] and s[1] == s[3]:
        who = f"{s[0]}-vs-{s[1]}"
    else:
        who = "_".join(s)
    who = re.sub(r"[^A-Za-z0-9_.-]+", "_", who).strip("_.") or "run"
    name = f"{who}-{config.ruleset}-s{config.seed}-n{config.matches}"
    if config.max_deals is not None and config.setups is None:  # setups: always 1
        name += f"-d{config.max_deals}"
    if config.a_fail_limit is not None:
        name += f"-a{config.a_fail_limit}"
    if config.setups is not None:
        source = str(config.setups)
        source = source if source in ("fresh", "random") else Path(source).name
        name += "-setups_" + (re.sub(r"[^A-Za-z0-9_.-]+", "_", source).strip("_.") or "run")
    if config.tribute not in (None, "on"):
        name += f"-tribute_{config.tribute}"
    return Path("runs") / name


def output_folder(request: Request) -> tuple[Path, PartialConfig]:
    """The run directory and what a run stored there must agree on.

    Under a given folder, the options given; under the default name (``default_out``), the
    options of that name too (``PartialConfig.required_at_default_out``).
    """
    if request.out is not None:
        return request.out, request.given
    probe = request.given.over(RunConfig())
    probe = replace(probe, strategies=parse_strategies(probe.strategies))
    return default_out(probe), request.given.required_at_default_out(probe)


# ------------------------------------------------------------------ settling the config


@dataclass(frozen=True)
class SettledRun:
    """A run ready to play: its config, and what else identifies it or reaches its workers."""

    config: RunConfig
    #: the code fingerprint of each strategy and of the engine (``identity.strategy_fingerprints``)
    fingerprints: dict
    #: the run id of the run directory the setups come from (``None`` for a named source)
    setups_run_id: str | None = None
    #: strategy classes workers cannot import, serialised by value (``dill``)
    classes: tuple[tuple[str, bytes], ...] = ()
    #: the same classes as objects, used as they are in this process
    local_classes: dict[str, type] = field(default_factory=dict)

    @property
    def run_id(self) -> str:
        return self.config.run_id


def check_stored(out: Path, existing: Manifest, request: Request) -> None:
    """A stored run is continued with the code there is now: its strategies load (else one line,
    saying how a `guandan play` game or a run started elsewhere continues), and neither their
    code nor the setups' source run changed."""
    stored = existing.recorded
    strategies = request.given.strategies or stored.strategies or ()
    try:
        check_strategies(strategies, request.by_value, request.session.decision_timeout)
    except SimulationInputError as exc:
        if request.given.strategies is None and "human" in strategies:  # `guandan play`'s game
            raise SimulationInputError(
                f"output {out} holds a game of guandan play (a seat for a person); continue it with: "
                f"guandan play --resume --out {out}, or choose another --out"
            ) from None
        raise SimulationInputError(str(exc) + _started_elsewhere(existing, strategies)) from None
    refusal = changed_code_refusal(out, existing, strategy_fingerprints(strategies, request.by_value))
    refusal = refusal or changed_setups_refusal(out, existing)
    if refusal is not None:
        raise SimulationInputError(refusal)


def _started_elsewhere(manifest: Manifest, strategies) -> str:
    """A hint when a run with relative ``file.py:Class`` strategies is resumed from another folder."""
    started_in = manifest.started_in
    relative = [
        s for s in strategies
        if isinstance(s, str) and ".py:" in s and not os.path.isabs(s.partition(".py:")[0])
    ]  # fmt: skip
    if not relative or not isinstance(started_in, str) or os.path.abspath(started_in) == os.getcwd():
        return ""
    return (
        f" (the run was started in {started_in}, and {relative[0].partition(':')[0]} is read "
        "relative to the current folder: resume from there)"
    )


def settle(request: Request, out: Path, stored: PartialConfig, done: int) -> SettledRun:
    """The run's config (defaults, then the ``stored`` run's values, then the options given),
    checked whole; ``done``: the matches the stored run's complete parts hold."""
    config = request.given.over(RunConfig.continuing(stored))
    config = replace(config, strategies=parse_strategies(config.strategies), schema_version=SCHEMA_VERSION)
    problem = plan_problem(config.matches, config.part_size)
    if problem is not None:
        raise SimulationInputError(problem)
    if config.setups is not None:
        problem = setups_problem(config.setups, config.matches, config.max_deals)
        if problem is not None:
            raise SimulationInputError(problem)
        config = replace(config, max_deals=1)
    problem = space_problem(out, config.matches - done, config.max_deals, config.compression)
    if problem is not None:
        raise SimulationInputError(problem)
    source_run = setups_run_id(config.setups)
    classes = request.by_value
    check_strategies(config.strategies, classes, request.session.decision_timeout)
    fingerprints = strategy_fingerprints(config.strategies, classes)
    session = request.session
    try:
        by_value = serialise_classes(classes) if not session.in_process else ()
    except ValueError as exc:
        raise SimulationInputError(str(exc)) from None
    try:
        config.rules()
    except ValueError as exc:
        raise SimulationInputError(str(exc)) from None
    return SettledRun(config, fingerprints, source_run, by_value, classes)


# ------------------------------------------------------------------ the command line


def canonical_command(config: RunConfig) -> str:
    """The ``guandan simulate`` line that plays ``config`` (its defaults left out)."""
    args = ["guandan", "simulate", "--matches", str(config.matches), "--seed", str(config.seed)]
    args += ["--strategies", ",".join(config.strategies), "--ruleset", config.ruleset]
    if config.max_deals is not None:
        args += ["--max-deals", str(config.max_deals)]
    if config.a_fail_limit is not None:
        args += ["--a-fail-limit", str(config.a_fail_limit)]
    if config.compression != "none":
        args += ["--compression", config.compression]
    if config.setups is not None:
        args += ["--setups", str(config.setups)]
    if config.tribute not in (None, "on"):
        args += ["--tribute", str(config.tribute)]
    if config.part_size != DEFAULT_PART_SIZE:
        args += ["--part-size", str(config.part_size)]
    return shlex.join(args)


def complete_command(command: str, config: RunConfig) -> str:
    """``command`` (a ``guandan simulate …`` line) with the options that decide the run and
    that it does not give appended from ``config``, so that it reproduces the run even when
    some values came from the stored run (a rerun or ``--resume``) or are defaults.

    >>> cfg = RunConfig(matches=50, seed=5, strategies=("greedy",) * 4, max_deals=3)
    >>> complete_command("guandan simulate --out r --resume", cfg)
    'guandan simulate --out r --resume --matches 50 --seed 5 --strategies greedy,greedy,greedy,greedy --ruleset cgr2022 --max-deals 3'
    >>> complete_command("guandan simulate -n 50 --seed 5 --max-deals 3", cfg).count("--max-deals")
    1
    """
    try:
        words = shlex.split(command)
    except ValueError:  # not a command line: record it as given, then the canonical one
        words = [command]
    short = {"-n": "--matches", "-s": "--strategies"}
    given = {short.get(w, w.partition("=")[0]) for w in words if w.startswith("-")}
    canonical = shlex.split(canonical_command(config))[2:]  # after "guandan simulate"
    extra = []
    for i, word in enumerate(canonical):
        if word.startswith("--") and word not in given:
            extra += [word, canonical[i + 1]]
    return shlex.join([*words, *extra]) if extra else command


__all__ = [
    "Request",
    "Session",
    "SettledRun",
    "canonical_command",
    "check_stored",
    "check_strategies",
    "complete_command",
    "default_out",
    "output_folder",
    "parse_strategies",
    "read_options",
    "settle",
]

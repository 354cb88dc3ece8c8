"""``simulate``: play a seeded run of matches into a run directory (resumable, parallel).

>>> from guandan_cli import simulate
>>> run = simulate(matches=4, seed=1, strategies="random", max_deals=2, workers=1,
...                out=getfixture("tmp_path") / "demo", progress=False)
>>> run.counts["matches"], run.state
(4, 'complete')
>>> run.deals().height == run.counts["deals"]
True
"""

from __future__ import annotations

import json
import math
import os
import re
import shlex
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from pathlib import Path

from guandan_cli.logs.journal import Journal, consistent_prefix
from guandan_cli.logs.layout import plan_problem, space_problem
from guandan_cli.logs.schema import SCHEMA_VERSION
from guandan_cli.logs.writer import COMPRESSIONS, TMP_SUFFIX, PartWriter
from guandan_cli.runner import tasks as _tasks
from guandan_cli.runner.backends import (
    BACKENDS,
    BackendError,
    default_workers,
    main_without_file,
    open_backend,
    unguarded_main_call,
    workers_problem,
)
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
from guandan_cli.runner.rundir import (
    FORMAT,
    IDENTITY_KEYS,
    LOCK,
    MANIFEST,
    Run,
    journal_path,
    now_iso,
    part_paths,
    plan_parts,
    read_manifest,
    remove_temporaries,
    run_completeness,
    run_files,
    write_manifest,
)
from guandan_cli.runner.tasks import ON_ERROR, RunSpec

DEFAULTS = {
    "matches": 100,
    "seed": 0,
    "strategies": "heuristic",
    "ruleset": "cgr2022",
    "a_fail_limit": None,
    "max_deals": None,
    "compression": "none",
    "part_size": 1000,
    "setups": None,
    "tribute": None,
}
DEFAULT_CHUNK = 8


class SimulationInputError(ValueError):
    """Bad input to ``simulate``: the message names the problem in one line."""


class SimulationError(RuntimeError):
    """A run that stopped: a strategy failed (with ``on_error="stop"``) or the engine did.

    A bot's exception is the ``__cause__`` (in a worker process: a ``WorkerTraceback`` with
    its formatted traceback) and ``failure`` its located record (``engine.failures``).
    """

    failure = None


class SimulationInterrupted(KeyboardInterrupt):
    """Ctrl-C during ``simulate``: how many matches are saved, and how to resume.

    ``reason`` is the interrupt that stopped the run (a ``KeyboardInterrupt`` subclass
    raised by a strategy, e.g. a server's remote seat gone for good, keeps its type there).
    """

    def __init__(
        self, out: str | os.PathLike, saved: int, total: int, reason: KeyboardInterrupt | None = None
    ) -> None:
        self.out = Path(out)
        self.reason = reason
        self.saved = saved
        self.total = total
        super().__init__(self.resume_hint())

    #: the run directory held no run when the interrupt came: nothing was written
    nothing_written = False
    #: the run was complete when the interrupt came (nothing to resume)
    complete = False

    def resume_hint(self) -> str:
        """``152 of 2000 matches saved; resume with: guandan simulate --out runs/x --resume``."""
        if self.nothing_written:
            return f"before the run started: nothing was written to {self.out}"
        if self.complete:
            return f"the run was complete: {self.saved} of {self.total} {self._matches} saved in {self.out}"
        cmd = shlex.join(["guandan", "simulate", "--out", str(self.out), "--resume"])
        return f"{self.saved} of {self.total} {self._matches} saved; resume with: {cmd}"

    @property
    def _matches(self) -> str:
        return "match" if self.total == 1 else "matches"


def interruption(
    out: str | os.PathLike, reason: KeyboardInterrupt | None = None, *, created: bool = False
) -> SimulationInterrupted:
    """A ``SimulationInterrupted`` for a Ctrl-C at any moment, from what the run directory ``out`` holds.

    The matches saved are those a resume keeps (complete parts and journaled matches, as
    ``guandan_cli.logs.layout.run_completeness`` counts them). With no run in ``out``, it
    says nothing was written (and removes ``out`` if this session ``created`` it empty but
    for its lock).
    """
    out = Path(out)
    try:
        manifest = read_manifest(out) if out.is_dir() else None
        c = run_completeness(out, manifest) if manifest is not None else None
    except (OSError, ValueError):
        manifest = c = None
    if c is None:
        if created and out.is_dir():
            try:
                (out / LOCK).unlink(missing_ok=True)
                (out / (MANIFEST + TMP_SUFFIX)).unlink(missing_ok=True)
                out.rmdir()
            except OSError:
                pass
        exc = SimulationInterrupted(out, 0, 0, reason)
        exc.nothing_written = True
    else:
        exc = SimulationInterrupted(out, c.matches, c.total_matches, reason)
        exc.complete = c.complete and c.state == "complete"  # else a resume records it complete
    exc.args = (exc.resume_hint(),)
    return exc


# ------------------------------------------------------------------ input


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


def check_strategies(strategies: Sequence[str], classes: dict[str, type] | None = None) -> None:
    """Every strategy loads and is a strategy class (else ``SimulationInputError`` in one line)."""
    from guandan_cli.strategies.human import input_source_installed
    from guandan_cli.strategies.registry import UnknownStrategyError, load_strategy

    classes = classes or {}
    for s in dict.fromkeys(strategies):
        try:
            cls = load_strategy(classes.get(s, s))
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


def _positive(name: str, value: int | None, allow_none: bool = True) -> None:
    if value is None and allow_none:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        # the argument's name in the Python API and the option's on the command line
        raise SimulationInputError(
            f"{name.replace('-', '_')} (--{name}) must be a positive whole number, got {value!r}"
        )


def run_id_of(config: dict) -> str:
    """The run id written in every line: a hash of what decides the games (not of the size)."""
    from guandan_cli.engine.seeding import derive_seed

    parts = [config["seed"], *config["strategies"], config["ruleset"], config["a_fail_limit"]]
    parts.append(config["max_deals"])
    if config.get("setups") not in (None, "fresh"):  # fresh setups are deal 0 of one-deal matches
        parts.append(f"setups={config['setups']}")
    if config.get("tribute") not in (None, "on"):  # the ruleset's tribute option (experiments)
        parts.append(f"tribute={config['tribute']}")
    h = derive_seed("run", *parts)
    return f"{h:016x}"


#: options that change the games but are not in every default run name: each is named in it
#: when set (``default_out``), and a run found under a default name must agree on all
NAMED_WHEN_SET = ("max_deals", "a_fail_limit", "setups", "tribute")


def default_out(config: dict) -> Path:
    """``runs/STRATEGIES-RULESET-sSEED-nMATCHES``, then ``-dMAX_DEALS``, ``-aA_FAIL_LIMIT``,
    ``-setups_SOURCE`` and ``-tribute_MODE`` for those set: two runs differing in any option
    that changes the games never share a default folder.

    >>> cfg = {"strategies": ("greedy", "random") * 2, "ruleset": "jiangsu2017", "seed": 3, "matches": 50}
    >>> default_out(cfg).as_posix()
    'runs/greedy-vs-random-jiangsu2017-s3-n50'
    >>> default_out(cfg | {"max_deals": 3, "a_fail_limit": 2}).as_posix()
    'runs/greedy-vs-random-jiangsu2017-s3-n50-d3-a2'
    """
    s = config["strategies"]
    if len(set(s)) == 1:
        who = s[0]
    elif s[0] == s[2] and s[1] == s[3]:
        who = f"{s[0]}-vs-{s[1]}"
    else:
        who = "_".join(s)
    who = re.sub(r"[^A-Za-z0-9_.-]+", "_", who).strip("_.") or "run"
    name = f"{who}-{config['ruleset']}-s{config['seed']}-n{config['matches']}"
    if config.get("max_deals") is not None and config.get("setups") is None:  # setups: always 1
        name += f"-d{config['max_deals']}"
    if config.get("a_fail_limit") is not None:
        name += f"-a{config['a_fail_limit']}"
    if config.get("setups") is not None:
        source = str(config["setups"])
        source = source if source in ("fresh", "random") else Path(source).name
        name += "-setups_" + (re.sub(r"[^A-Za-z0-9_.-]+", "_", source).strip("_.") or "run")
    if config.get("tribute") not in (None, "on"):
        name += f"-tribute_{config['tribute']}"
    return Path("runs") / name


def canonical_command(config: dict) -> str:
    args = ["guandan", "simulate", "--matches", str(config["matches"]), "--seed", str(config["seed"])]
    args += ["--strategies", ",".join(config["strategies"]), "--ruleset", config["ruleset"]]
    if config["max_deals"] is not None:
        args += ["--max-deals", str(config["max_deals"])]
    if config["a_fail_limit"] is not None:
        args += ["--a-fail-limit", str(config["a_fail_limit"])]
    if config["compression"] != "none":
        args += ["--compression", config["compression"]]
    if config.get("setups") is not None:
        args += ["--setups", str(config["setups"])]
    if config.get("tribute") not in (None, "on"):
        args += ["--tribute", str(config["tribute"])]
    if config["part_size"] != DEFAULTS["part_size"]:
        args += ["--part-size", str(config["part_size"])]
    return shlex.join(args)


def complete_command(command: str, config: dict) -> str:
    """``command`` (a ``guandan simulate …`` line) with the options that decide the run and
    that it does not give appended from ``config``, so that it reproduces the run even when
    some values came from the stored run (a rerun or ``--resume``) or are defaults.

    >>> cfg = {"matches": 50, "seed": 5, "strategies": ("greedy",) * 4, "ruleset": "cgr2022",
    ...        "max_deals": 3, "a_fail_limit": None, "compression": "none", "part_size": 1000}
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


# ------------------------------------------------------------------ progress


class _RichProgress:
    def __init__(self, total: int, done: int = 0, label: str = "simulate", unit: str = "matches") -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        if label == "simulate":
            columns = [
                TextColumn("[bold]simulate"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn(unit),
                TextColumn("{task.fields[deals]} deals  {task.fields[rate]} deals/s"),
                TimeElapsedColumn(),
            ]
        else:  # a labelled run (a comparison): compact, to fit 80 columns with the label
            columns = [
                TextColumn("[bold]{task.description}"),
                BarColumn(bar_width=12),
                MofNCompleteColumn(),
                TextColumn(unit),
                TextColumn("{task.fields[rate]} deals/s"),
            ]
        self._progress = Progress(
            *columns,
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=Console(stderr=True),
            transient=False,
        )
        self._t0 = time.monotonic()
        self._deals = 0
        self._task = self._progress.add_task(label, total=total, completed=done, deals=0, rate="-")
        self._progress.start()

    def __call__(self, matches: int, deals: int) -> None:
        self._deals += deals
        dt = time.monotonic() - self._t0
        rate = f"{self._deals / dt:.1f}" if dt > 0 else "-"
        self._progress.update(self._task, advance=matches, deals=self._deals, rate=rate)

    def close(self) -> None:
        self._progress.stop()


# ------------------------------------------------------------------ the run directory


def _prepare_dir(out: Path, explicit: dict, resume: bool, force: bool) -> tuple[dict | None, bool]:
    """Check ``out``: ``(manifest of a run to continue or None, whether to wipe an old run)``."""
    if out.exists() and not out.is_dir():
        raise SimulationInputError(f"output {out} exists and is not a directory")
    existing = None
    if out.is_dir():
        try:
            existing = read_manifest(out)
        except ValueError as exc:
            if force and _damaged_run(out):
                return None, True
            hint = (
                "use --force to start over or another --out" if _damaged_run(out) else "choose another --out"
            )
            raise SimulationInputError(f"{exc}; {hint}") from None
        if existing is None:
            if any(p.name not in (LOCK, MANIFEST + TMP_SUFFIX) for p in out.iterdir()):
                raise SimulationInputError(
                    f"output {out} exists, is not empty and is not a guandan run; choose another --out"
                )
    if existing is None:
        if resume:
            raise SimulationInputError(f"nothing to resume: no run in {out}")
        return None, False
    if force:
        return None, True
    stored = existing["config"]
    if existing["state"] == "complete":
        try:
            whole = run_completeness(out, existing, journals=False).complete
        except ValueError as exc:
            raise SimulationInputError(f"{exc}; use --force to start over or another --out") from None
        if not whole:
            existing["state"] = "incomplete"  # a part went missing: redo it
    differ = [k for k, v in explicit.items() if k in IDENTITY_KEYS and _norm(stored.get(k)) != _norm(v)]
    if stored.get("schema_version") != SCHEMA_VERSION:
        differ.append("schema_version")
    if differ:
        shown = ", ".join(
            f"{k} {_shown(stored.get(k))} (now {_shown(explicit.get(k, SCHEMA_VERSION))})" for k in differ
        )
        raise SimulationInputError(
            f"output {out} holds a run with another configuration: {shown}; use --force to start over or another --out"
        )
    if existing["state"] == "complete" and not resume:
        raise SimulationInputError(
            f"output {out} holds a complete run; use --force to overwrite it or another --out"
        )
    return existing, False


def _lock(out: Path):
    """Hold an exclusive lock on the run directory (released when the process ends)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        return None
    fh = open(out / LOCK, "a+b")
    try:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        fh.close()
        raise SimulationInputError(
            f"another simulate is writing to {out}; wait for it or choose another --out"
        ) from None
    return fh


def _shown(v) -> str:
    """A configuration value as a refusal shows it: ``not set``, ``a,b,c,d`` for strategies.

    >>> _shown(None), _shown(("greedy", "random", "greedy", "random")), _shown(3)
    ('not set', 'greedy,random,greedy,random', '3')
    """
    if v is None:
        return "not set"
    if isinstance(v, tuple | list):
        return ",".join(map(str, v))
    return str(v) if isinstance(v, int) else repr(v)


def _norm(v):
    return list(v) if isinstance(v, tuple | list) else v


def _count_part(out: Path, index: int, compression: str, start: int, stop: int) -> dict:
    """Facts of a complete part found on disk but missing from the manifest."""
    from guandan_cli.logs.reader import iter_records, open_part

    deals_path, matches_path = part_paths(out, index, compression)
    wins = [0, 0]
    errors = capped = n = 0
    for _line, rec in iter_records(matches_path, "matches"):
        n += 1
        if rec["winner"] is not None:
            wins[rec["winner"]] += 1
        capped += bool(rec["capped"])
        errors += rec["error"] is not None
    with open_part(deals_path) as fh:
        deals = sum(1 for _ in fh)
    return _part_entry(index, start, stop, n, deals, errors, wins, capped, None, None)


def _part_entry(index, start, stop, matches, deals, errors, wins, capped, dfile, mfile) -> dict:
    return {
        "index": index,
        "first_match": start,
        "stop_match": stop,
        "matches": matches,
        "deals": deals,
        "errors": errors,
        "capped": capped,
        "wins": list(wins),
        "deals_file": dfile,
        "matches_file": mfile,
    }


def _totals(parts: list[dict]) -> dict:
    return {
        "matches": sum(p["matches"] for p in parts),
        "deals": sum(p["deals"] for p in parts),
        "errors": sum(p["errors"] for p in parts),
        "capped": sum(p["capped"] for p in parts),
        "wins": [sum(p["wins"][0] for p in parts), sum(p["wins"][1] for p in parts)],
    }


# ------------------------------------------------------------------ simulate


def simulate(
    matches: int | None = None,
    *,
    seed: int | None = None,
    strategies: str | Sequence[str] | None = None,
    ruleset: str | None = None,
    max_deals: int | None = None,
    a_fail_limit: int | None = None,
    out: str | os.PathLike | None = None,
    workers: int | None = None,
    compression: str | None = None,
    on_error: str = "stop",
    backend: str = "local",
    ray_address: str | None = None,
    resume: bool = False,
    force: bool = False,
    chunk_size: int | None = None,
    part_size: int | None = None,
    progress: bool | Callable[[int, int], None] = False,
    command: str | None = None,
    setups: str | os.PathLike | None = None,
    tribute: str | None = None,
    label: str | None = None,
) -> Run:
    """Play ``matches`` seeded matches into the run directory ``out`` and return the ``Run``.

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
    - ``tribute``: the ruleset's tribute option, ``"on"`` (the rules, default), ``"off"``
      (no tribute or return) or ``"paid"`` (no resistance), for counterfactual experiments.

    Each finished task is journaled (fsynced) at once, so a stopped run loses only the
    matches in flight (docs/log-format.md, Durability). Ctrl-C raises
    ``SimulationInterrupted`` (a ``KeyboardInterrupt``) saying how many matches are saved
    and how to resume.
    """
    for name, value in (
        ("matches", matches),
        ("part-size", part_size),
        ("max-deals", max_deals),
        ("a-fail-limit", a_fail_limit),
        ("workers", workers),
        ("chunk-size", chunk_size),
    ):
        _positive(name, value)
    if out is not None and not isinstance(out, str | os.PathLike):
        raise SimulationInputError(f"out must be a path (the run's folder), got {out!r}")
    if backend == "local" and (workers is None or workers > 1):
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
    explicit = {
        k: v
        for k, v in {
            "matches": matches,
            "seed": seed,
            "strategies": None if strategies is None else parse_strategies(strategies),
            "ruleset": ruleset,
            "a_fail_limit": a_fail_limit,
            "max_deals": max_deals,
            "compression": compression,
            "part_size": part_size,
            "setups": None if setups is None else str(setups),
            "tribute": None if tribute in (None, "on") else tribute,
        }.items()
        if v is not None
    }
    problem = workers_problem(workers) if backend == "local" else None
    if problem is not None:
        raise SimulationInputError(problem)
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise SimulationInputError(f"seed must be a whole number, got {seed!r}")
    if compression is not None and compression not in COMPRESSIONS:
        raise SimulationInputError(
            f"unknown compression {compression!r}: expected one of {', '.join(COMPRESSIONS)}"
        )
    if on_error not in ON_ERROR:
        raise SimulationInputError(
            f"unknown on-error mode {on_error!r}: expected one of {', '.join(ON_ERROR)}"
        )
    if backend not in BACKENDS:
        raise SimulationInputError(f"unknown backend {backend!r}: expected one of {', '.join(BACKENDS)}")
    if resume and force:
        raise SimulationInputError("--resume and --force exclude each other")
    if ray_address is not None and backend != "ray":
        raise SimulationInputError(f"--ray-address {ray_address} goes with --backend ray, not {backend}")
    if backend == "ray":
        try:
            import ray.util.multiprocessing  # noqa: F401
        except ImportError:
            raise SimulationInputError(
                "the ray backend needs Ray: pip install 'guandan[ray]' (or pip install 'ray[default]')"
            ) from None

    if isinstance(out, str) and not out:
        raise SimulationInputError("out: an empty path (give a folder name, or None for the default)")
    # the directory decides whether stored values fill the gaps
    required = explicit
    if out is None:
        probe = dict(DEFAULTS) | explicit
        probe["strategies"] = parse_strategies(probe["strategies"])
        out = default_out(probe)
        # Under a default name, an option left out means its default, not the stored run's
        # value: a run found there with another one is another configuration.
        required = explicit | {k: probe[k] for k in NAMED_WHEN_SET if k not in explicit}
        if probe["setups"] is not None:  # a setups run stores max_deals 1
            required.pop("max_deals", None)
    out = Path(out)
    created = not out.exists()
    try:
        existing, wipe = _prepare_dir(out, required, resume, force)
        classes = by_value_classes(strategies)
        if existing is not None:
            stored_strategies = explicit.get("strategies") or existing["config"]["strategies"]
            try:
                check_strategies(stored_strategies, classes)
            except SimulationInputError as exc:
                if "strategies" not in explicit and "human" in stored_strategies:  # `guandan play`'s game
                    raise SimulationInputError(
                        f"output {out} holds a game of guandan play (a seat for a person); continue it with: "
                        f"guandan play --resume --out {out}, or choose another --out"
                    ) from None
                raise SimulationInputError(
                    str(exc) + _started_elsewhere(existing, stored_strategies)
                ) from None
            refusal = changed_code_refusal(out, existing, strategy_fingerprints(stored_strategies, classes))
            refusal = refusal or changed_setups_refusal(out, existing)
            if refusal is not None:
                raise SimulationInputError(refusal)
        if existing is not None and existing["state"] == "complete":
            run = Run(out)  # resume=True on a finished run: nothing to do
            run.already_complete = True
            return run
        base = dict(DEFAULTS)
        if existing is not None:
            base.update({k: existing["config"][k] for k in DEFAULTS if k in existing["config"]})
        config = base | explicit
        config["strategies"] = parse_strategies(config["strategies"])
        config["schema_version"] = SCHEMA_VERSION
        problem = plan_problem(config["matches"], config["part_size"])
        if problem is not None:
            raise SimulationInputError(problem)

        if config["setups"] is not None:
            problem = setups_problem(config["setups"], config["matches"], config["max_deals"])
            if problem is not None:
                raise SimulationInputError(problem)
            config["max_deals"] = 1
        done = 0 if existing is None or wipe else _matches_in_parts(existing)
        problem = space_problem(out, config["matches"] - done, config["max_deals"], config["compression"])
        if problem is not None:
            raise SimulationInputError(problem)
        config["setups_run_id"] = setups_run_id(config["setups"])
        check_strategies(config["strategies"], classes)
        config["fingerprints"] = strategy_fingerprints(config["strategies"], classes)
        try:
            config["classes"] = serialise_classes(classes) if workers != 1 or backend != "local" else ()
        except ValueError as exc:
            raise SimulationInputError(str(exc)) from None
        config["local_classes"] = classes
        from guandan_cli.engine.rules import get_ruleset

        try:
            get_ruleset(
                config["ruleset"],
                a_fail_limit=config["a_fail_limit"],
                max_deals=config["max_deals"],
                tribute=config["tribute"],
            )
        except ValueError as exc:
            raise SimulationInputError(str(exc)) from None

        try:
            out.mkdir(parents=True, exist_ok=True)
            lock = _lock(out)
        except OSError as exc:
            raise SimulationInputError(f"cannot write to output {out}: {exc.strerror or exc}") from None
        try:
            return _run(
                out,
                existing,
                wipe,
                config,
                workers,
                on_error,
                backend,
                ray_address,
                chunk_size,
                progress,
                command,
                label,
            )
        finally:
            if lock is not None:
                lock.close()
    except SimulationInterrupted:
        raise
    except KeyboardInterrupt as exc:  # outside the run loop: what is on disk says what is saved
        raise interruption(out, exc, created=created) from None


def _started_elsewhere(manifest: dict, strategies) -> str:
    """A hint when a run with relative ``file.py:Class`` strategies is resumed from another folder."""
    started_in = manifest.get("started_in")
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


def _saved_line(out: Path, total: int) -> str:
    """How much of a run that stopped on a write error is safe, and how to go on."""
    try:
        saved = run_completeness(out, read_manifest(out)).matches
    except (OSError, ValueError):
        return f"the complete parts in {out} are safe: make room, then rerun with --resume"
    return f"{saved} of {total} matches are saved: make room, then rerun with --resume"


def _matches_in_parts(manifest: dict) -> int:
    """The matches held by the complete parts a manifest lists."""
    return sum(p["stop_match"] - p["first_match"] for p in manifest.get("parts", []))


def _damaged_run(out: Path) -> bool:
    """Whether ``out``, whose manifest does not read, is still recognisably a guandan run.

    Its manifest says ``"format": "guandan-run"``, or part files lie next to it: ``--force``
    may then wipe it (only the files a run writes, ``run_files``).
    """
    try:
        data = json.loads((out / MANIFEST).read_bytes())
        if isinstance(data, dict) and data.get("format") == FORMAT:
            return True
    except (OSError, ValueError):
        pass
    return any(p.name.startswith("deals-") for p in run_files(out))


def _clear_or_reload(out: Path, existing: dict | None, wipe: bool) -> dict | None:
    """Wipe the old run (``--force``) or re-read its manifest under the lock; drop ``*.tmp`` files."""
    if wipe:
        try:
            still = read_manifest(out) is not None  # still the run checked above
        except ValueError:
            still = _damaged_run(out)  # a damaged run, and --force was given
        if still:
            for f in run_files(out):
                f.unlink()
        existing = None
    else:
        existing = read_manifest(out) if existing is not None else None
    remove_temporaries(out)
    return existing


def _recover(out: Path, plan, comp: str, existing: dict | None) -> tuple[dict[int, dict], dict[int, Journal]]:
    """What survives of an earlier session: complete parts' entries, and the journals of the others.

    A journal's entries must lie inside its part and not overlap; it is cut at the first
    one that does not. Journals of complete parts (a crash after the rename) are deleted.
    """
    parts: dict[int, dict] = {}
    journals: dict[int, Journal] = {}
    if existing is None:
        for index, _a, _b in plan:
            journal_path(out, index).unlink(missing_ok=True)
        return parts, journals
    known = {p["index"]: p for p in existing.get("parts", [])}
    complete = {p.index for p in run_completeness(out, existing, journals=False).parts}
    for index, start, stop in plan:
        jpath = journal_path(out, index)
        if index in complete:
            entry = known.get(index)
            parts[index] = entry if entry is not None else _count_part(out, index, comp, start, stop)
            jpath.unlink(missing_ok=True)
        elif jpath.is_file():
            journal = Journal.open(jpath)
            journal.keep_first(len(consistent_prefix(journal.entries, start, stop)))
            journals[index] = journal
    return parts, journals


def _gaps(plan, parts: dict[int, dict], journals: dict[int, Journal]) -> list[tuple[int, int, int]]:
    """``(part index, first, stop)`` of each run of matches neither in a complete part nor journaled."""
    out = []
    for index, start, stop in plan:
        if index in parts:
            continue
        held = sorted((e.start, e.stop) for e in journals[index].entries) if index in journals else []
        at = start
        for a, b in held:
            if a > at:
                out.append((index, at, a))
            at = b
        if at < stop:
            out.append((index, at, stop))
    return out


def _journal_facts(res: _tasks.TaskResult) -> dict:
    return {
        "matches": res.matches,
        "deals": res.deals,
        "errors": len(res.errors),
        "capped": res.capped,
        "wins": list(res.wins),
    }


def _finish_part(out: Path, index: int, start: int, stop: int, comp: str, journal: Journal) -> dict:
    """Write part ``index``'s two files from its journal (each ``.tmp``, fsync, rename); its entry."""
    entries = journal.in_match_order()
    writers: list[PartWriter] = []
    files = []
    try:
        for path, read in zip(part_paths(out, index, comp), (journal.deal_lines, journal.match_lines)):
            writer = PartWriter(path, comp)
            writers.append(writer)
            for e in entries:
                writer.write(read(e))
            files.append(writer.commit())
    except BaseException:
        for writer in writers:
            writer.abort()
        raise
    f = [e.facts for e in entries]
    wins = [sum(x["wins"][0] for x in f), sum(x["wins"][1] for x in f)]
    return _part_entry(
        index,
        start,
        stop,
        sum(x["matches"] for x in f),
        sum(x["deals"] for x in f),
        sum(x["errors"] for x in f),
        wins,
        sum(x["capped"] for x in f),
        files[0],
        files[1],
    )


class _PartWriterThread:
    """Writes complete parts from their journals in one background thread.

    Writing a part (two files, three fsyncs and renames, the manifest) takes tens of
    milliseconds; meanwhile the parent goes on journaling the results that arrive, so a
    kill loses no more than the matches in flight. ``pending`` holds the journals of parts
    submitted and not yet written. Parts are written in the order submitted; a part that
    fails is kept in ``pending`` and the next ones are still written. (A plain thread and a
    queue: ``concurrent.futures`` would cost every run its import, with ``logging``.)
    """

    def __init__(self, finish: Callable[[int, Journal], None]) -> None:
        self._finish = finish
        self._queue: deque = deque()
        self._ready = threading.Semaphore(0)
        self._thread: threading.Thread | None = None
        self._failures: list[BaseException] = []
        self.pending: dict[int, Journal] = {}

    def submit(self, index: int, journal: Journal) -> None:
        self.pending[index] = journal
        if self._thread is None:
            # a daemon: the run always waits for it (wait/shutdown); a process that exits
            # anyway leaves at worst a *.tmp file, and the part's journal still holds it
            self._thread = threading.Thread(target=self._loop, name="guandan-part-writer", daemon=True)
            self._thread.start()
        self._queue.append((index, journal))
        self._ready.release()

    def _loop(self) -> None:
        while True:
            self._ready.acquire()
            item = self._queue.popleft()
            if item is None:
                return
            index, journal = item
            try:
                self._finish(index, journal)
                self.pending.pop(index, None)
            except BaseException as exc:  # noqa: BLE001 - handed to the caller by raise_failure
                self._failures.append(exc)

    def raise_failure(self) -> None:
        """Raise the error of a part that could not be written, if any."""
        if self._failures:
            raise self._failures[0]

    def wait(self) -> None:
        """Wait for every part submitted; raise the first failure."""
        self.shutdown()
        self.raise_failure()

    def shutdown(self) -> None:
        """Finish the parts submitted (their failures are left to the caller's error)."""
        if self._thread is not None:
            self._queue.append(None)
            self._ready.release()
            self._thread.join()
            self._thread = None


def _check_result(res: _tasks.TaskResult, on_error: str) -> None:
    """Stop the run on an engine failure, or on a strategy failure with ``on_error="stop"``."""
    if res.fatal is not None and res.source_failure:
        raise SimulationError(res.fatal)
    if res.fatal is not None:
        raise SimulationError(f"engine failure in {res.fatal.splitlines()[0]}")
    if res.errors and on_error == "stop":  # the bot's exception (or its worker's traceback) as the cause
        error = SimulationError(
            f"{res.errors[0]} (use --on-error record to record errored matches and go on)"
        )
        error.failure = res.failure
        raise error from (res.failure.cause() if res.failure is not None else None)


def _new_manifest(config, run_id, command, existing, options, ruleset: dict) -> dict:
    from guandan_cli import __version__

    return {
        "format": FORMAT,
        "schema_version": SCHEMA_VERSION,
        "package_version": __version__,
        "run_id": run_id,
        "command": complete_command(command, config) if command else canonical_command(config),
        # the folder relative paths (file.py:Class strategies) were read from
        "started_in": (existing or {}).get("started_in") or os.getcwd(),
        "config": {k: config[k] for k in IDENTITY_KEYS},
        "strategies": {str(s): name for s, name in enumerate(config["strategies"])},
        "fingerprints": config["fingerprints"],
        **({"setups_run_id": config["setups_run_id"]} if config["setups_run_id"] else {}),
        "ruleset": ruleset,
        "options": options,
        "state": "running",
        "error": None,
        "started_at": (existing or {}).get("started_at") or now_iso(),
        "ended_at": None,
        "counts": {},
        "sessions": list((existing or {}).get("sessions", [])),
        "parts": [],
    }


class _Window:
    """The tasks, handed out at most ``size`` ahead of the results saved (``saved()`` once per
    result): a pool's feeder thread waits here, so a kill loses at most ``size`` tasks.

    >>> w = _Window(range(5), 2)
    >>> it = iter(w)
    >>> next(it), next(it)
    (0, 1)
    >>> w.saved(); next(it)
    2
    """

    def __init__(self, tasks: Sequence, size: int) -> None:
        self._tasks = tasks
        self._slots = threading.Semaphore(max(1, size))
        self._stopped = False

    def __iter__(self):
        for task in self._tasks:
            while not self._slots.acquire(timeout=0.1):
                if self._stopped:
                    return
            if self._stopped:
                return
            yield task

    def saved(self) -> None:
        self._slots.release()

    def stop(self) -> None:
        self._stopped = True


def _run(
    out, existing, wipe, config, workers, on_error, backend, ray_address, chunk_size, progress, command, label
):
    existing = _clear_or_reload(out, existing, wipe)
    config["strategies"] = list(config["strategies"])
    run_id = run_id_of(config)
    spec = RunSpec(
        run_id=run_id,
        seed=config["seed"],
        strategies=tuple(config["strategies"]),
        ruleset=config["ruleset"],
        a_fail_limit=config["a_fail_limit"],
        max_deals=config["max_deals"],
        on_error=on_error,
        setups=config["setups"],
        classes=config["classes"],
        tribute=config["tribute"],
    )
    _tasks.forget_loaded()
    _tasks.LOCAL_CLASSES.update(config["local_classes"])
    comp = config["compression"]
    plan = plan_parts(config["matches"], config["part_size"])
    bounds = {index: (start, stop) for index, start, stop in plan}

    # what is done already (complete parts, journaled matches), what remains
    parts, journals = _recover(out, plan, comp, existing)
    gaps = _gaps(plan, parts, journals)
    workers = workers or default_workers()
    todo_matches = sum(stop - start for _i, start, stop in gaps)
    if chunk_size is None:
        chunk_size = (
            max(1, min(DEFAULT_CHUNK, math.ceil(todo_matches / (workers * 4)))) if todo_matches else 1
        )
    task_list = []
    part_of_task: dict[int, int] = {}
    for index, start, stop in gaps:
        for a in range(start, stop, chunk_size):
            task_list.append((spec, a, min(a + chunk_size, stop)))
            part_of_task[a] = index
    if backend == "local":
        workers = max(1, min(workers, len(task_list) or 1))

    options = {
        "on_error": on_error,
        "workers": workers,
        "backend": backend,
        "chunk_size": chunk_size,
        "ray_address": ray_address,
    }
    manifest = _new_manifest(config, run_id, command, existing, options, spec.rules().to_dict())
    session = {
        "started_at": now_iso(),
        "ended_at": None,
        "workers": workers,
        "backend": backend,
        "chunk_size": chunk_size,
        "matches": 0,
        "deals": 0,
        "seconds": 0.0,
        "state": "running",
    }
    manifest["sessions"].append(session)

    manifest_lock = threading.RLock()  # the part writer thread records parts too

    def save(state: str | None = None) -> None:
        with manifest_lock:
            ordered = [parts[i] for i in sorted(parts)]
            manifest["parts"] = ordered
            manifest["counts"] = _totals(ordered) | {"parts": len(plan), "parts_done": len(ordered)}
            if state is not None:
                manifest["state"] = state
            write_manifest(out, manifest)

    def finish(index: int, journal: Journal) -> None:
        """Part ``index``'s journal covers it: write its files, record it, drop the journal."""
        start, stop = bounds[index]
        entry = _finish_part(out, index, start, stop, comp, journal)
        with manifest_lock:
            parts[index] = entry
            save()
        journal.remove()

    try:
        save()
    except OSError as exc:
        for journal in journals.values():
            journal.close()
        raise SimulationInputError(f"cannot write to output {out}: {exc.strerror or exc}") from None

    report: Callable[[int, int], None] | None
    bar = None
    if progress is True:
        bar = _RichProgress(
            total=config["matches"],
            done=config["matches"] - todo_matches,
            label=label or "simulate",
            unit="matches" if config["setups"] is None else "deals",
        )
        report = bar
    elif callable(progress):
        report = progress
    else:
        report = None

    t0 = time.monotonic()
    session_deals = session_matches = 0
    state, error = "complete", None
    pool = None
    window = None
    writer = _PartWriterThread(finish)
    try:
        for index in [i for i, j in journals.items() if j.covers(*bounds[i])]:
            finish(index, journals.pop(index))  # journaled in full by a session stopped before writing it
        if task_list:
            try:
                pool = open_backend(backend, workers, ray_address)
            except BackendError as exc:
                raise SimulationError(str(exc)) from None
            # results in completion order: each is durable as soon as it arrives. Tasks are fed
            # at most two per worker ahead of the journal, so a kill loses at most that much
            # even when the journal's fsyncs lag behind fast workers
            window = _Window(task_list, 2 * workers if pool.streams_tasks else len(task_list))
            for res in pool.imap_unordered(_tasks.run_task, window if pool.streams_tasks else task_list):
                _check_result(res, on_error)
                index = part_of_task[res.start]
                journal = journals.get(index)
                if journal is None:
                    journal = journals[index] = Journal.open(journal_path(out, index))
                journal.append(res.start, res.stop, res.deal_lines, res.match_lines, _journal_facts(res))
                window.saved()
                session_deals += res.deals
                session_matches += res.matches
                if report is not None:
                    report(res.matches, res.deals)
                if journal.covers(*bounds[index]):
                    session.update(
                        matches=session_matches, deals=session_deals, seconds=round(time.monotonic() - t0, 3)
                    )
                    writer.submit(index, journals.pop(index))
                writer.raise_failure()
            pool.close()
        writer.wait()
    except BaseException as exc:
        if window is not None:
            window.stop()  # the pool's feeder thread must not wait for a slot forever
        if pool is not None:
            try:
                pool.terminate()
            except Exception:  # noqa: BLE001
                pass
        writer.shutdown()  # a part being written is finished first
        if isinstance(exc, KeyboardInterrupt):
            state, error = "interrupted", "interrupted (rerun the command, or add --resume, to continue)"
            # counted on disk: an entry fsynced just before the interrupt is saved, though
            # the interrupt came before this process noted it
            raise interruption(out, exc) from None
        state, error = (
            "failed",
            str(exc) if isinstance(exc, SimulationError) else f"{type(exc).__name__}: {exc}",
        )
        if isinstance(exc, OSError):  # a full disk, a folder gone, a read-only mount
            error = f"cannot write {exc.filename or out}: {exc.strerror or exc}"
            raise SimulationError(f"{error}; {_saved_line(out, config['matches'])}") from None
        raise
    finally:
        for journal in [*journals.values(), *writer.pending.values()]:
            journal.close()
        if bar is not None:
            bar.close()
        session.update(
            matches=session_matches,
            deals=session_deals,
            seconds=round(time.monotonic() - t0, 3),
            state=state,
            ended_at=now_iso(),
        )
        manifest["error"] = error
        manifest["ended_at"] = now_iso()
        try:
            save(state)
        except OSError:  # pragma: no cover - the disk went away; the parts are safe
            pass
    return Run(out)


__all__ = [
    "DEFAULTS",
    "SimulationError",
    "SimulationInputError",
    "SimulationInterrupted",
    "canonical_command",
    "interruption",
    "parse_strategies",
    "simulate",
]

"""``Run``: a run directory read back: its manifest, its log as Polars frames, its summary.

>>> run = Run("runs/demo")                       # doctest: +SKIP
>>> run.deals().select("match", "deal", "upgrade")  # doctest: +SKIP
>>> print(run.summary())                         # doctest: +SKIP

Imports no polars until a frame is asked for (``simulate`` returns a ``Run``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from guandan_cli.logs.layout import MANIFEST, Completeness, run_completeness
from guandan_cli.logs.manifest import Manifest, RunFolder, Totals
from guandan_cli.view.names import strategy_name, strategy_names


@dataclass(frozen=True)
class TeamWins:
    team: int
    seats: tuple[int, int]
    strategies: tuple[str, str]
    wins: int
    decided: int

    @property
    def rate(self) -> float:
        return self.wins / self.decided if self.decided else float("nan")

    @property
    def interval(self) -> tuple[float, float]:
        from guandan_cli.stats import wilson_interval

        return wilson_interval(self.wins, self.decided)


#: the widest line a run's summary prints (a terminal of 100 columns)
SUMMARY_WIDTH = 100


def short_spec(spec: str) -> str:
    """A strategy spec without its folder or package: ``mybot.py:Mine`` for
    ``/home/me/bots/mybot.py:Mine``, ``remote:alice`` for ``guandan_cli.protocol.remote:alice``
    (:func:`guandan_cli.view.names.strategy_name`, the name every table shows).

    >>> short_spec("/home/me/bots/mybot.py:Mine"), short_spec("guandan_cli.protocol.remote:alice")
    ('mybot.py:Mine', 'remote:alice')
    >>> short_spec("heuristic"), short_spec("onnx:models/m.onnx")
    ('heuristic', 'onnx:m.onnx')
    """
    return strategy_name(spec)


def _team_lines(tw: TeamWins, wins: str, width: int = SUMMARY_WIDTH, names: dict | None = None) -> list[str]:
    """A team's summary line with its seats' strategies as people read them (``names``: spec
    -> name, see :mod:`guandan_cli.view.names`), else one line per seat ending in ``…`` if need be."""
    names = names or strategy_names(tw.strategies)
    head = f"team {tw.team} (seats {tw.seats[0]},{tw.seats[1]}"
    shown = tuple(names.get(x, x) for x in tw.strategies)
    line = f"{head}: {shown[0]},{shown[1]}){wins}"
    if len(line) <= width:
        return [line]
    fit = width - 12
    return [f"{head}){wins}"] + [
        f"  seat {seat}: {name if len(name) <= fit else name[: fit - 1] + '…'}"
        for seat, name in zip(tw.seats, shown)
    ]


class Run:
    """A run directory on disk: its manifest and its log as Polars frames.

    >>> run = Run("runs/demo")                       # doctest: +SKIP
    >>> run.deals().select("match", "deal", "upgrade")  # doctest: +SKIP
    """

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = Path(path)
        self.manifest  # noqa: B018 - a run is there (ValueError if not)
        #: set by ``simulate(resume=True)`` when the run was already complete (nothing was played)
        self.already_complete = False

    # -------------------------------------------------------------- manifest

    @property
    def manifest(self) -> Manifest:
        """The manifest as stored now (re-read on every access: a run on disk changes;
        ``ValueError`` once there is no run there)."""
        m = RunFolder.read(self.path).manifest
        if m is None:
            raise ValueError(f"{self.path}: no run here (no {MANIFEST})")
        return m

    @property
    def state(self) -> str:
        """The manifest's ``state`` (a ``RunState`` value: running, complete, interrupted, failed)."""
        return self.manifest.state.value

    @property
    def complete(self) -> bool:
        return self.manifest.complete

    @property
    def config(self) -> dict:
        """The manifest's ``config`` block as JSON (``manifest.config`` is the ``RunConfig``)."""
        return self.manifest.config.to_dict()

    @property
    def totals(self) -> Totals:
        """What the complete parts hold: matches, deals, errors, capped, wins, parts, parts_done."""
        return self.manifest.counts or Totals()

    @property
    def counts(self) -> dict:
        """``totals`` as the manifest's ``counts`` JSON (``{"matches": 6, "deals": 18, …}``)."""
        return self.totals.to_dict()

    # -------------------------------------------------------------- the log

    def completeness(self) -> Completeness:
        """Which parts are complete (the only files readers use) and how many matches they hold.

        ``run.completeness().describe()`` is ``complete run: 300 matches`` or
        ``incomplete run: 100 of 300 matches``; see ``guandan_cli.logs.layout``.
        """
        return run_completeness(self.path, self.manifest)

    def deal_files(self) -> list[Path]:
        """The deals files of the complete parts, in order."""
        return run_completeness(self.path, self.manifest, journals=False).deal_files()

    def match_files(self) -> list[Path]:
        """The matches files of the complete parts, in order."""
        return run_completeness(self.path, self.manifest, journals=False).match_files()

    def scan(self, **kwargs):
        """``pl.LazyFrame`` of the deal records (see ``guandan_cli.logs.reader.scan_deals``)."""
        from guandan_cli.logs.reader import scan_deals

        return scan_deals(self.path, **kwargs)

    def deals(self, **kwargs):
        """``pl.DataFrame`` of the deal records."""
        return self.scan(**kwargs).collect()

    def scan_matches(self, **kwargs):
        """``pl.LazyFrame`` of the match records."""
        from guandan_cli.logs.reader import scan_matches

        return scan_matches(self.path, **kwargs)

    def matches(self, **kwargs):
        """``pl.DataFrame`` of the match records."""
        return self.scan_matches(**kwargs).collect()

    # -------------------------------------------------------------- summary

    def team_wins(self) -> list[TeamWins]:
        m = self.manifest
        strategies = m.recorded.strategies or ()
        wins = (m.counts.wins if m.counts is not None else None) or (0, 0)
        decided = sum(wins)
        return [TeamWins(t, (t, t + 2), (strategies[t], strategies[t + 2]), wins[t], decided) for t in (0, 1)]

    def summary(self) -> str:
        """A one-screen text summary (what ``guandan simulate`` prints at the end)."""
        m = self.manifest
        c = m.counts or Totals()
        cfg = m.recorded
        lines = [f"run {self.path}  ({m.state.value})"]
        lines.append(
            f"matches  {c.matches} of {cfg.matches}"
            f"  (decided {sum(c.wins or ())}, capped {c.capped}, errored {c.errors})"
        )
        s = m.sessions[-1] if m.sessions else None
        speed = ""
        if s and s.seconds:
            speed = f"  ({s.deals} this session in {s.seconds:.1f} s: {s.deals / s.seconds:.1f} deals/s, {s.workers} worker{'s' if s.workers != 1 else ''})"
        lines.append(f"deals    {c.deals}{speed}")
        extra = []
        if cfg.max_deals:
            extra.append(f"max_deals={cfg.max_deals}")
        if cfg.a_fail_limit:
            extra.append(f"a_fail_limit={cfg.a_fail_limit}")
        lines.append(f"ruleset  {cfg.ruleset}{'  ' + ' '.join(extra) if extra else ''}  seed {cfg.seed}")
        names = strategy_names(cfg.strategies)
        for tw in self.team_wins():
            lo, hi = tw.interval
            rate = f"{tw.rate:6.1%}" if tw.decided else "   n/a"
            wins = f"  wins {tw.wins}/{tw.decided} = {rate}  95% CI [{lo:.1%}, {hi:.1%}]"
            lines += _team_lines(tw, wins, names=names)
        if m.error:
            lines.append(f"error    {m.error.splitlines()[0]}")
        compression = "uncompressed" if cfg.compression == "none" else cfg.compression
        lines.append(f"log      {self.path}/  ({len(m.parts)} part(s), {compression})")
        return "\n".join(lines)

    def closing_text(self, quiet: bool = False) -> str | None:
        """What ``guandan simulate`` prints once done: that a resumed run was already complete,
        else the summary (``None`` with ``quiet``)."""
        if self.already_complete:
            c = self.totals
            return (
                f"{self.path}: run already complete ({c.matches} match{'' if c.matches == 1 else 'es'}, "
                f"{c.deals} deal{'' if c.deals == 1 else 's'}); nothing to do"
            )
        return None if quiet else self.summary()

    def __repr__(self) -> str:
        try:
            m = self.manifest
            c = m.counts or Totals()
            return f"Run({str(self.path)!r}, state={m.state.value!r}, matches={c.matches}, deals={c.deals})"
        except Exception:  # noqa: BLE001
            return f"Run({str(self.path)!r})"


def open_run(path: str | os.PathLike) -> Run:
    """The run at ``path`` (a directory holding ``manifest.json``)."""
    return Run(path)


def __getattr__(name: str):
    """``wilson_interval`` (``guandan_cli.stats``), imported on first use: ``simulate`` needs none."""
    if name == "wilson_interval":
        from guandan_cli.stats import wilson_interval

        return wilson_interval
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["SUMMARY_WIDTH", "Run", "TeamWins", "open_run", "short_spec"]

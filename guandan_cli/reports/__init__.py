"""Reports: logs in, answers out.

Every report is a function from a deals :class:`polars.LazyFrame` (or a matches one)
to a sorted :class:`polars.DataFrame`, so reading (:mod:`.loading`) is separate from
reporting and the same functions serve the CLI (``guandan analyze``), notebooks and
scripts. Rates come with 95 % Wilson intervals (``x``, ``x_lo``, ``x_hi``), means with
``mean ± 1.96·sd/√n`` (:mod:`.stats`). :mod:`.plots` draws one figure per report.

>>> sorted(REPORTS)[:3]
['bombs', 'bombs-by-player', 'deal-length']

Typical use::

    from guandan_cli.reports import load, run_report
    data = load("runs/demo")
    run_report("tribute", data.deals, data.matches)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import polars as pl

from .bombs import bombs, bombs_by_player, winner_bombs
from .deal_length import deal_length
from .double_down import double_down
from .jiefeng import jiefeng
from .loading import (
    IncompleteRunWarning,
    LogLineError,
    LogReadError,
    RunData,
    ScanStats,
    convert_to_parquet,
    fresh_parquet,
    load,
    scan_deals,
    scan_matches,
    slim_deals,
)
from .matches import level_progression, match_length
from .partners import partners
from .tribute import first_leader, tribute_card, tribute_effect
from .wilds import wild_use
from .winrates import strategy_deals, strategy_matches


@dataclass(frozen=True)
class Report:
    """A named report: its function, the frame it reads, whether it takes ``by``."""

    name: str
    title: str
    func: Callable[..., pl.DataFrame]
    source: str = "deals"  # or "matches"
    groupable: bool = False

    def run(
        self, deals: pl.LazyFrame | None, matches: pl.LazyFrame | None = None, by: Sequence[str] | None = None
    ) -> pl.DataFrame:
        frame = deals if self.source == "deals" else matches
        if frame is None:
            raise ValueError(f"report {self.name!r} needs the {self.source} records")
        if self.groupable and by is not None:
            return self.func(frame, by=tuple(by))
        return self.func(frame)


_ALL = [
    Report("tribute", "Tribute effect: deal-win rate by side and kind", tribute_effect),
    Report("tribute-card", "Tribute card power", tribute_card),
    Report("first-leader", "First leader's advantage", first_leader),
    Report("bombs", "Bombs per deal by class", bombs),
    Report("bombs-by-player", "Bombs per seat-deal by strategy", bombs_by_player, groupable=True),
    Report("winner-bombs", "How often the deal's winner bombed", winner_bombs),
    Report("partners", "Partner's place given 上游", partners, groupable=True),
    Report("double-down", "Double-down rate by team", double_down),
    Report("deal-length", "Deal length", deal_length),
    Report("match-length", "Match length (deals per match)", match_length, source="matches"),
    Report("levels", "Level progression through a match", level_progression),
    Report("wilds", "Wild-card use by combination type", wild_use),
    Report("jiefeng", "接风 frequency", jiefeng),
    Report("strategy-deals", "Strategy deal-win rates", strategy_deals, groupable=True),
    Report("strategy-matches", "Strategy match-win rates", strategy_matches, source="matches"),
]
#: every report by name, in presentation order
REPORTS: dict[str, Report] = {r.name: r for r in _ALL}


def run_report(
    name: str,
    deals: pl.LazyFrame | None,
    matches: pl.LazyFrame | None = None,
    by: Sequence[str] | None = None,
) -> pl.DataFrame:
    """Run the report called ``name`` (see :data:`REPORTS`); ``by`` applies to groupable ones."""
    try:
        report = REPORTS[name]
    except KeyError:
        raise ValueError(f"unknown report {name!r}: choose from {', '.join(REPORTS)}, all") from None
    return report.run(deals, matches, by)


__all__ = [
    "REPORTS",
    "IncompleteRunWarning",
    "LogLineError",
    "LogReadError",
    "Report",
    "RunData",
    "ScanStats",
    "bombs",
    "bombs_by_player",
    "convert_to_parquet",
    "deal_length",
    "double_down",
    "first_leader",
    "fresh_parquet",
    "jiefeng",
    "level_progression",
    "load",
    "match_length",
    "partners",
    "run_report",
    "scan_deals",
    "scan_matches",
    "slim_deals",
    "strategy_deals",
    "strategy_matches",
    "tribute_card",
    "tribute_effect",
    "wild_use",
    "winner_bombs",
]

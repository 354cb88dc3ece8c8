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

from . import bombs as _bombs
from . import deal_length as _deal_length
from . import double_down as _double_down
from . import jiefeng as _jiefeng
from . import matches as _matches
from . import partners as _partners
from . import tribute as _tribute
from . import wilds as _wilds
from . import winrates as _winrates
from .aggregate import Aggregate
from .bombs import bombs, bombs_by_player, winner_bombs
from .deal_length import deal_length
from .double_down import double_down
from .jiefeng import jiefeng
from .loading import (
    IncompleteRunWarning,
    LogLineError,
    LogMismatchError,
    LogReadError,
    PartChangedError,
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

#: each report function's aggregate form
AGGREGATES: dict[Callable[..., pl.DataFrame], Aggregate] = {
    tribute_effect: _tribute.TRIBUTE_EFFECT,
    tribute_card: _tribute.TRIBUTE_CARD,
    first_leader: _tribute.FIRST_LEADER,
    bombs: _bombs.BOMBS,
    bombs_by_player: _bombs.BOMBS_BY_PLAYER,
    winner_bombs: _bombs.WINNER_BOMBS,
    partners: _partners.PARTNERS,
    double_down: _double_down.DOUBLE_DOWN,
    deal_length: _deal_length.DEAL_LENGTH,
    match_length: _matches.MATCH_LENGTH,
    level_progression: _matches.LEVELS,
    wild_use: _wilds.WILD_USE,
    jiefeng: _jiefeng.JIEFENG,
    strategy_deals: _winrates.STRATEGY_DEALS,
    strategy_matches: _winrates.STRATEGY_MATCHES,
}


def _lazy(name: str, frame: object) -> pl.LazyFrame | None:
    """``frame`` as the lazy frame reports read (an eager one too); a ``RunData`` or a path is refused by name."""
    if frame is None or isinstance(frame, pl.LazyFrame):
        return frame
    if isinstance(frame, pl.DataFrame):
        return frame.lazy()
    hint = ": pass data.deals and data.matches" if isinstance(frame, RunData) else " (load() reads a run)"
    raise TypeError(f"{name}: a {type(frame).__name__}, not a frame{hint}")


@dataclass(frozen=True)
class Report:
    """A named report: its function, the frame it reads, whether it takes ``by``."""

    name: str
    title: str
    func: Callable[..., pl.DataFrame]
    source: str = "deals"  # or "matches"
    groupable: bool = False
    definition: str = ""  # one or two sentences: what a row is and what it answers

    @property
    def aggregate(self) -> Aggregate:
        """The report as partial → merge → finalise (:mod:`.aggregate`), what ``analyze`` runs."""
        return AGGREGATES[self.func]

    def run(
        self,
        deals: pl.LazyFrame | None,
        matches: pl.LazyFrame | None = None,
        by: Sequence[str] | str | None = None,
    ) -> pl.DataFrame:
        frame = _lazy("deals", deals) if self.source == "deals" else _lazy("matches", matches)
        if frame is None:
            raise ValueError(f"report {self.name!r} needs the {self.source} records")
        if self.groupable and by is not None:
            return self.func(frame, by=by if isinstance(by, str) else tuple(by))
        return self.func(frame)


_ALL = [
    Report(
        "tribute",
        "Tribute effect: deal-win rate by side and kind",
        tribute_effect,
        definition="Deal-win rate and mean upgrade of the receiving side (the previous 上游's team) and "
        "the paying side after a single, double or resisted tribute; for a match's first deal (no "
        "tribute) the first leader's team and the other. A side wins when its player is 上游.",
    ),
    Report(
        "tribute-card",
        "Tribute card power",
        tribute_card,
        definition="Which cards are paid as tribute, by power (2…A, level card, small joker SB, big "
        "joker HR): their share of the payments and the receiving side's deal-win rate.",
    ),
    Report(
        "first-leader",
        "First leader's advantage",
        first_leader,
        definition="How often the seat that leads the first trick has its team win the deal (0.5 = no "
        "advantage) and goes out first itself (0.25 = none), by tribute kind.",
    ),
    Report(
        "bombs",
        "Bombs per deal by class",
        bombs,
        definition="Bombs (4–10 of a kind, straight flushes, the joker bomb) per deal by class, the "
        "share of deals with at least one, and how often one was played while an opponent held ≤ 5 cards.",
    ),
    Report(
        "bombs-by-player",
        "Bombs per seat-deal by strategy",
        bombs_by_player,
        groupable=True,
        definition="Bombs played per seat and deal, by strategy (or seat), and the share played near an "
        "opponent's going out.",
    ),
    Report(
        "winner-bombs",
        "How often the deal's winner bombed",
        winner_bombs,
        definition="How often 上游, the winning team and the losing team bombed; among deals where only "
        "one team bombed, how often that team won.",
    ),
    Report(
        "partners",
        "Partner's place given 上游",
        partners,
        groupable=True,
        definition="Given the player who goes out first (上游), where the partner finishes: 2nd (+3 "
        "levels), 3rd (+2) or last (+1).",
    ),
    Report(
        "double-down",
        "Double-down rate by team",
        double_down,
        definition="How often a team's two players go out first and second (双下, the opponents are "
        "double-down), achieved and suffered, per team-deal.",
    ),
    Report(
        "deal-length",
        "Deal length",
        deal_length,
        definition="Tricks, plays, passes and actions per deal: mean, median, 90th percentile, min, max.",
    ),
    Report(
        "match-length",
        "Match length (deals per match)",
        match_length,
        source="matches",
        definition="Deals per match, for all matches and for won, capped and errored ones.",
    ),
    Report(
        "levels",
        "Level progression through a match",
        level_progression,
        definition="By deal index within a match: the mean level played, the higher team's level and the "
        "share of deals played at A.",
    ),
    Report(
        "wilds",
        "Wild-card use by combination type",
        wild_use,
        definition="Plays that use a ♥ level card (wild): share by combination type, per deal, deals "
        "with at least one, wilds per play.",
    ),
    Report(
        "jiefeng",
        "接风 frequency",
        jiefeng,
        definition="接风: a player goes out with an unbeaten play and the partner leads next (cgr2022: "
        "after any finisher; jiangsu2017: only after 上游). Per deal, share of deals with one, per 100 "
        "tricks.",
    ),
    Report(
        "strategy-deals",
        "Strategy deal-win rates",
        strategy_deals,
        groupable=True,
        definition="Per strategy: deal-win rate of the teams it sits on (each team once per deal), its "
        "own 上游 rate and levels gained per deal.",
    ),
    Report(
        "strategy-matches",
        "Strategy match-win rates",
        strategy_matches,
        source="matches",
        definition="Per strategy: match-win rate over decided matches (capped and errored ones left out).",
    ),
]
#: every report by name, in presentation order
REPORTS: dict[str, Report] = {r.name: r for r in _ALL}


def run_report(
    name: str,
    deals: pl.LazyFrame | None,
    matches: pl.LazyFrame | None = None,
    by: Sequence[str] | str | None = None,
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
    "LogMismatchError",
    "PartChangedError",
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

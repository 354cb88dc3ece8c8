"""Tribute effect (进贡): does receiving tribute help, what is paid, and does leading help.

Three reports:

- :func:`tribute_effect` — deal-win rate and mean upgrade of the receiving side vs the
  paying side, by tribute kind (single, double, resisted), against deals with no
  tribute (a match's first deal), where the sides are the first leader's team
  (``leading``) and the other (``other``).
- :func:`tribute_card` — the power of the cards paid, and how the receiving side did.
- :func:`first_leader` — the first leader's team's deal-win rate and 上游 rate, by kind.

The receiving side of a deal after a tribute (paid or resisted) is the previous
上游's team, which is the deal's ``level_team``. A side "wins" the deal when its
player is 上游; its upgrade is the deal's upgrade when it wins and 0 otherwise.
"""

from __future__ import annotations

import polars as pl

from guandan_cli.reports._common import KIND_ORDER, RANK_TOKENS, sort_by_order
from guandan_cli.reports.stats import mean_ci_aggs, wilson_exprs

SIDE_ORDER = ("receiving", "paying", "leading", "other")


def tribute_effect(deals: pl.LazyFrame) -> pl.DataFrame:
    """Deal-win rate and mean upgrade per side, by ruleset and tribute kind.

    Columns: ruleset, kind, side, deals, wins, win_rate(+_lo/_hi), mean_upgrade(+_lo/_hi).
    Sorted by ruleset, kind (none, single, double, resisted), side.
    """
    base = deals.select(
        "ruleset",
        kind=pl.col("tribute").struct.field("kind"),
        team=pl.when(pl.col("tribute").struct.field("kind") == "none")
        .then(pl.col("first_leader") % 2)
        .otherwise(pl.col("level_team"))
        .cast(pl.Int32),
        winner_team=pl.col("winner_team"),
        upgrade=pl.col("upgrade"),
    )
    none = pl.col("kind") == "none"
    first = base.with_columns(side=pl.when(none).then(pl.lit("leading")).otherwise(pl.lit("receiving")))
    second = base.with_columns(
        side=pl.when(none).then(pl.lit("other")).otherwise(pl.lit("paying")), team=1 - pl.col("team")
    )
    rows = pl.concat([first, second]).with_columns(
        won=pl.col("winner_team") == pl.col("team"),
    )
    rows = rows.with_columns(gain=pl.when(pl.col("won")).then(pl.col("upgrade")).otherwise(0))
    out = (
        rows.group_by("ruleset", "kind", "side")
        .agg(
            *mean_ci_aggs(pl.col("gain"), "mean_upgrade", counts=True),
            deals=pl.len().cast(pl.Int64),
            wins=pl.col("won").sum().cast(pl.Int64),
        )
        .with_columns(wilson_exprs(pl.col("wins"), pl.col("deals"), "win_rate"))
        .select(
            "ruleset",
            "kind",
            "side",
            "deals",
            "wins",
            "win_rate",
            "win_rate_lo",
            "win_rate_hi",
            "mean_upgrade",
            "mean_upgrade_lo",
            "mean_upgrade_hi",
        )
        .collect()
    )
    return sort_by_order(out, ["ruleset", "kind", "side"], {"kind": KIND_ORDER, "side": SIDE_ORDER})


def card_power(card: pl.Expr, level: pl.Expr) -> pl.Expr:
    """Power of a card token at a level token: 2…14 for 2…A, 15 level card, 16 SB, 17 HR."""
    rank = card.str.slice(1, 1)
    natural = rank.replace_strict(list(RANK_TOKENS), list(range(2, 15)), default=None, return_dtype=pl.Int32)
    return (
        pl.when(card == "HR")
        .then(17)
        .when(card == "SB")
        .then(16)
        .when(rank == level)
        .then(15)
        .otherwise(natural)
        .cast(pl.Int32)
    )


def tribute_card(deals: pl.LazyFrame) -> pl.DataFrame:
    """Tribute cards by power, per ruleset and kind (single, double).

    One row per (ruleset, kind, power): ``card`` is the rank (``level`` for a non-wild
    level card, ``SB``/``HR`` for jokers), ``payments`` how many such cards were paid,
    ``share`` (+CI) their share of that kind's payments, ``receiver_win_rate`` (+CI) how
    often the side that received such a card won the deal (a double tribute counts
    once per card). Sorted by ruleset, kind, power.
    """
    pays = (
        deals.select(
            "ruleset",
            "level",
            "level_team",
            "winner_team",
            kind=pl.col("tribute").struct.field("kind"),
            payment=pl.col("tribute").struct.field("payments"),
        )
        .explode("payment")
        .filter(pl.col("payment").is_not_null())
        .with_columns(card=pl.col("payment").struct.field("card"))
        .with_columns(power=card_power(pl.col("card"), pl.col("level")))
        .with_columns(
            card=pl.when(pl.col("power") == 15)
            .then(pl.lit("level"))
            .when(pl.col("power") >= 16)
            .then(pl.col("card"))
            .otherwise(pl.col("card").str.slice(1, 1)),
            received_won=pl.col("winner_team") == pl.col("level_team"),
        )
    )
    out = (
        pays.group_by("ruleset", "kind", "power", "card")
        .agg(payments=pl.len().cast(pl.Int64), receiver_wins=pl.col("received_won").sum().cast(pl.Int64))
        .with_columns(kind_payments=pl.col("payments").sum().over("ruleset", "kind"))
        .with_columns(
            *wilson_exprs(pl.col("payments"), pl.col("kind_payments"), "share"),
            *wilson_exprs(pl.col("receiver_wins"), pl.col("payments"), "receiver_win_rate"),
        )
        .drop("kind_payments")
        .collect()
    )
    return sort_by_order(out, ["ruleset", "kind", "power"], {"kind": KIND_ORDER})


def first_leader(deals: pl.LazyFrame) -> pl.DataFrame:
    """The first leader's advantage, by ruleset and tribute kind (plus ``all``).

    Columns: ruleset, kind, deals, team_wins, team_win_rate(+CI) (the leader's team is
    上游's team; 0.5 means no advantage), first_out, first_out_rate(+CI) (the leader
    itself is 上游; 0.25 means no advantage), mean_upgrade(+CI) of the leader's team.
    """
    base = deals.select(
        "ruleset",
        kind=pl.col("tribute").struct.field("kind"),
        won=pl.col("winner_team") == pl.col("first_leader") % 2,
        first=pl.col("finish_order").list.get(0) == pl.col("first_leader"),
        upgrade=pl.col("upgrade"),
    ).with_columns(gain=pl.when(pl.col("won")).then(pl.col("upgrade")).otherwise(0))
    both = pl.concat([base, base.with_columns(kind=pl.lit("all"))])
    out = (
        both.group_by("ruleset", "kind")
        .agg(
            *mean_ci_aggs(pl.col("gain"), "mean_upgrade", counts=True),
            deals=pl.len().cast(pl.Int64),
            team_wins=pl.col("won").sum().cast(pl.Int64),
            first_out=pl.col("first").sum().cast(pl.Int64),
        )
        .with_columns(
            *wilson_exprs(pl.col("team_wins"), pl.col("deals"), "team_win_rate"),
            *wilson_exprs(pl.col("first_out"), pl.col("deals"), "first_out_rate"),
        )
        .select(
            "ruleset",
            "kind",
            "deals",
            "team_wins",
            "team_win_rate",
            "team_win_rate_lo",
            "team_win_rate_hi",
            "first_out",
            "first_out_rate",
            "first_out_rate_lo",
            "first_out_rate_hi",
            "mean_upgrade",
            "mean_upgrade_lo",
            "mean_upgrade_hi",
        )
        .collect()
    )
    return sort_by_order(out, ["ruleset", "kind"], {"kind": (*KIND_ORDER, "all")})

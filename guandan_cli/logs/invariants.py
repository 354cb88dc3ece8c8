"""Invariants of log records: impossible records refused, checked vectorised in Polars.

A line can be valid JSON of the declared schema and still describe something no game
produces: an ``upgrade`` of 7, a ``finish_order`` of ``[0,0,1,2]``, a hand of 26 cards.
The reader (:func:`guandan_cli.logs.reader.iter_checked_frames`) runs these checks on
every chunk it parses, so ``analyze`` reports only on possible records. Each check is a
Polars expression that is true for a good row (null counts as bad) and a message naming
the field and the rule it breaks; a row's reason is its first failing check.

Row checks (one record alone, rules.md §3–10 and docs/log-format.md):

- every non-nullable field present; ``v`` the schema version; indices non-negative;
  ``ruleset`` known; four strategies;
- levels are tokens ``2``…``A`` (``A+`` only after a won deal); ``level`` is the level
  team's level (``2``, with both teams at ``2`` and no level team, in deal 0);
- four hands of 27 cards that together are two full decks (each face exactly twice);
- tribute: ``none`` exactly in deal 0, one payment for ``single``, two for ``double``,
  none for ``resisted`` (then one or two resisting seats), one return per payment,
  seats 0–3; after a single tribute the payer leads;
- ``finish_order`` a permutation of the seats; ``winner_team``, ``double_down`` and
  ``upgrade`` (3, 2 or 1: where 上游's partner finished) follow from it;
- ``levels_after`` follow from ``levels_before``, the level team and the upgrade
  (rules.md §8–9 and the ``a_fail_limit`` reset to 2); ``match_winner``, ``match_over``
  and ``capped`` agree with them;
- ``actions``: as many as derived plays + passes, the first by ``first_leader``;
  derived counts in range (at least one trick, plays ≥ tricks, 接风 < tricks, bomb
  classes, seats).

Sequence checks (consecutive lines of a run's parts, read in part order; a run holds
its matches in order): a match starts at deal 0 and its deals are numbered contiguously; each deal
starts from the previous one's ``levels_after`` and level team; no deal follows one that
ended the match; the tribute kind follows the previous deal's double-down; after
resistance the previous 上游 leads; matches come in increasing order. A row right after
a line that was bad itself is not compared with it.

Match records: version, fields, four strategies, ``final_levels`` in range, a winner
exactly when a level is ``A+`` (the winner's), never both capped and won, errored
matches neither; a match that is not errored ended with a winner or a cap; matches in
increasing order within a file.

>>> import polars as pl
>>> frame = pl.DataFrame({"finish_order": [[0, 1, 2, 3], [0, 0, 1, 2]]})
>>> frame.select(permutation(pl.col("finish_order"))).to_series().to_list()
[True, False]
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from collections.abc import Sequence as Seq
from dataclasses import dataclass

import polars as pl

from guandan_cli.engine.cards import FACE_NAMES
from guandan_cli.engine.rules import RULESETS

from .schema import DEAL_FIELDS, MATCH_FIELDS, READABLE_VERSIONS

#: level tokens and their index (A+ = 13, a won match)
LEVEL_INDEX: dict[str, int] = {t: i for i, t in enumerate("23456789TJQKA")} | {"A+": 13}
_A, _A_PLUS = 12, 13
_TOKEN = r"(?:[SHCD][2-9TJQKA]|SB|HR)"
#: a hand as the writer formats it: 27 card tokens separated by single spaces
HAND_PATTERN = rf"^{_TOKEN}(?: {_TOKEN}){{26}}$"
TRIBUTE_PAYMENTS = {"none": 0, "single": 1, "double": 2, "resisted": 0}
BOMB_CLASSES = ("4", "5", "6", "7", "8", "9", "10", "sf", "joker")


@dataclass(frozen=True)
class Check:
    """A rule: ``ok`` is true for a good row; ``message`` is formatted with the row's values.

    In ``message``, ``{name}`` is the row's value of column ``name`` as JSON text.
    """

    ok: pl.Expr
    message: str


def permutation(seats: pl.Expr) -> pl.Expr:
    """True where ``seats`` (a list column) holds each of the seats 0–3 exactly once."""
    return (
        (seats.list.len() == 4)
        & (seats.list.drop_nulls().list.len() == 4)
        & (seats.list.n_unique() == 4)
        & (seats.list.min() >= 0)
        & (seats.list.max() <= 3)
    )


def _level(expr: pl.Expr) -> pl.Expr:
    """A level token as its index (null when it is not a level)."""
    return expr.replace_strict(LEVEL_INDEX, default=None, return_dtype=pl.Int8)


def _get(col: str, i: int) -> pl.Expr:
    return pl.col(col).list.get(i, null_on_oob=True)


def _present(fields: Seq[str]) -> list[Check]:
    out = []
    for name in fields:
        head, _, rest = name.partition(".")
        expr = pl.col(head)
        for part in rest.split(".") if rest else ():
            expr = expr.struct.field(part)
        out.append(Check(expr.is_not_null(), f"field {name!r} is missing or null"))
    return out


def _common(kind: str) -> list[Check]:
    return [
        Check(
            pl.col("v").is_in(list(READABLE_VERSIONS)),
            f"schema version {{v}}; this reader reads versions {', '.join(map(str, READABLE_VERSIONS))}",
        ),
        Check(pl.col("match") >= 0, "match index {match} is negative"),
        Check(
            pl.col("ruleset").is_in(list(RULESETS)),
            f"unknown ruleset {{ruleset}} (known: {', '.join(RULESETS)})",
        ),
        Check(pl.col("strategies").list.len() == 4, "strategies {strategies} are not 4 names (seats 0-3)"),
    ]


# ------------------------------------------------------------------ deal records


#: the nested fields a record must hold, under their block
NESTED_REQUIRED = {
    "tribute": ("kind", "resisted_by", "payments", "returns"),
    "derived": ("tricks", "plays", "passes", "jiefeng", "bombs", "wild_plays"),
}


def _required(fields: Seq[tuple[str, tuple[type, ...]]]) -> tuple[str, ...]:
    """The fields of a record kind that may not be null, in line order, each block's nested
    fields after it: read from the schema's field list (``schema.DEAL_FIELDS``), never written again."""
    return tuple(
        x
        for name, kinds in fields
        if type(None) not in kinds
        for x in (name, *(f"{name}.{n}" for n in NESTED_REQUIRED.get(name, ())))
    )


DEAL_REQUIRED = _required(DEAL_FIELDS)


def deal_helpers() -> list[pl.Expr]:
    """Columns (named ``_…``) the deal checks and their messages use."""
    f = [_get("finish_order", i) for i in range(4)]
    team = [x % 2 for x in f]
    trib = pl.col("tribute")
    return [
        (f[0] % 2).alias("_winner"),
        (team[0] == team[1]).alias("_double_down"),
        pl.when(team[0] == team[1]).then(3).when(team[0] == team[2]).then(2).otherwise(1).alias("_upgrade"),
        _level(pl.col("level")).alias("_lv"),
        _level(_get("levels_before", 0)).alias("_b0"),
        _level(_get("levels_before", 1)).alias("_b1"),
        _level(_get("levels_after", 0)).alias("_a0"),
        _level(_get("levels_after", 1)).alias("_a1"),
        hands_shaped(),
        pl.col("actions").list.len().alias("_actions"),
        pl.col("actions").list.first().str.head(2).alias("_lead_action"),
        trib.struct.field("kind").alias("_kind"),
        trib.struct.field("payments").list.len().alias("_payments"),
        trib.struct.field("returns").list.len().alias("_returns"),
        trib.struct.field("resisted_by").list.len().alias("_resisting"),
    ]


_TABLE: list = []


def _token_table():
    """``table[first byte, second byte]``: the face code of a two-letter card token."""
    if not _TABLE:
        _TABLE.append(_token_codes())
    return _TABLE[0]


def two_decks(frame: pl.DataFrame) -> pl.Series:
    """``_two_decks``: the four hands hold each of the 54 faces exactly twice.

    Vectorised counting (not sorting): every card token becomes its face code, and
    one ``bincount`` over (row, face) gives each row's 54 counts. Rows whose hands are
    not four strings of 27 card tokens are false here (their own check names them).

    ``_hands`` (the shape check: four hands of 27 two-letter tokens, so 323 bytes once
    joined by spaces) decides which rows are counted: their tokens are read straight
    from the bytes through a lookup table.

    >>> hands = [["S2 " * 26 + "S2"] * 4]
    >>> two_decks(pl.DataFrame({"hands": hands}).with_columns(hands_shaped())).to_list()
    [False]
    """
    import numpy as np

    shaped = frame.get_column("_hands")
    rows = int(shaped.sum())
    ok = np.zeros(frame.height, dtype=bool)
    if rows:
        joined = frame.get_column("hands").filter(shaped).list.join(" ")
        text = np.frombuffer(joined.str.join("").item().encode("ascii"), dtype=np.uint8)
        width = 4 * 80 + 3
        tokens = text.reshape(rows, width)
        codes = _token_table()[tokens[:, 0::3], tokens[:, 1::3]].astype(np.int64)  # (rows, 108)
        ok[shaped.arg_true().to_numpy()] = _each_face_twice(codes)
    return pl.Series("_two_decks", ok)


def _each_face_twice(codes):
    """Per row of face codes (rows, 108): whether each of the 54 faces occurs exactly twice."""
    import numpy as np

    rows, n_faces = codes.shape[0], len(FACE_NAMES)
    keys = codes + (np.arange(rows, dtype=np.int64) * n_faces)[:, None]
    counts = np.bincount(keys.ravel(), minlength=rows * n_faces).reshape(rows, n_faces)
    return (counts == 2).all(axis=1)


#: the helper columns the deal checks read instead of ``hands`` and ``actions``: a frame
#: that carries them (and not those two fields) is checked exactly as the full records
HEAVY_HELPERS = ("_hands", "_two_decks", "_actions", "_lead_action")
#: ``hands`` as the writer writes it: four hands of 27 card tokens, as JSON text
HANDS_TEXT_PATTERN = r'^\["' + HAND_PATTERN[1:-1] + r'"(?:,"' + HAND_PATTERN[1:-1] + r'"){3}\]$'
_HANDS_TEXT_WIDTH = 2 + 4 * 80 + 3 * 3 + 2


def heavy_helpers_from_text(frame: pl.DataFrame) -> pl.DataFrame:
    """:data:`HEAVY_HELPERS` from the JSON text of ``hands`` and ``actions`` (columns
    ``_hands_text``, ``_actions_text``), which are dropped.

    The text must be a JSON list of strings without escapes (``reader.line_pattern``
    matched the line, and the line has no backslash): then each helper equals the one
    :func:`deal_helpers` and :func:`two_decks` compute from the decoded lists.

    >>> hands = '["' + '","'.join([" ".join(["S2"] * 27)] * 4) + '"]'
    >>> frame = pl.DataFrame({"_hands_text": [hands, "[]"], "_actions_text": ['["2 pass","3 pass"]', "[]"]})
    >>> heavy_helpers_from_text(frame).rows()
    [(True, False, 2, '2 '), (False, False, 0, None)]
    """
    import numpy as np

    frame = frame.with_columns(
        pl.col("_hands_text").str.contains(HANDS_TEXT_PATTERN).fill_null(False).alias("_hands"),
        (pl.col("_actions_text").str.count_matches('"', literal=True) // 2).alias("_actions"),
        pl.col("_actions_text").str.extract(r'^\["([^"]{0,2})', 1).alias("_lead_action"),
    )
    shaped = frame.get_column("_hands")
    rows = int(shaped.sum())
    ok = np.zeros(frame.height, dtype=bool)
    if rows:
        text = frame.get_column("_hands_text").filter(shaped).str.join("").item().encode("ascii")
        tokens = np.frombuffer(text, dtype=np.uint8).reshape(rows, _HANDS_TEXT_WIDTH)
        starts = np.array([2 + 83 * hand + 3 * card for hand in range(4) for card in range(27)])
        codes = _token_table()[tokens[:, starts], tokens[:, starts + 1]].astype(np.int64)  # (rows, 108)
        ok[shaped.arg_true().to_numpy()] = _each_face_twice(codes)
    frame = frame.with_columns(pl.Series("_two_decks", ok))
    return frame.select(pl.exclude("_hands_text", "_actions_text", *HEAVY_HELPERS), *HEAVY_HELPERS)


def heavy_helpers(frame: pl.DataFrame) -> pl.DataFrame:
    """``frame`` (decoded deal records) with :data:`HEAVY_HELPERS` instead of ``hands`` and ``actions``."""
    frame = frame.with_columns(
        hands_shaped(),
        pl.col("actions").list.len().alias("_actions"),
        pl.col("actions").list.first().str.head(2).alias("_lead_action"),
    )
    frame = frame.with_columns(two_decks(frame))
    return frame.select(pl.exclude("hands", "actions", *HEAVY_HELPERS), *HEAVY_HELPERS)


def hands_shaped() -> pl.Expr:
    """``_hands``: four hands, each 27 card tokens separated by single spaces."""
    hands = pl.col("hands")
    shaped = (hands.list.len() == 4) & hands.list.eval(pl.element().str.contains(HAND_PATTERN)).list.all()
    return shaped.fill_null(False).alias("_hands")


def _token_codes():
    import numpy as np

    table = np.zeros((256, 256), dtype=np.uint8)
    for code, name in enumerate(FACE_NAMES):
        table[ord(name[0]), ord(name[1])] = code
    return table


def _moves_ok(field: str) -> pl.Expr:
    move = pl.element().struct
    good = (
        move.field("from").is_between(0, 3)
        & move.field("to").is_between(0, 3)
        & (move.field("from") != move.field("to"))
        & move.field("card").is_in(list(FACE_NAMES))
    )
    return pl.col("tribute").struct.field(field).list.eval(good.fill_null(False)).list.all()


def deal_checks(standalone: bool = False) -> list[Check]:
    """The row checks of a deal record, in the order their messages are preferred.

    ``standalone``: each record is a deal played from a setup (a run of deal setups, see
    ``guandan_cli.runner.setups``: deal-level comparisons, experiments), not a deal of a
    match played from its start, so deal 0 may have a level team, any levels and a
    tribute, and a tribute may be switched off or forced.
    """
    return [
        *_common("deals"),
        *_present(DEAL_REQUIRED),
        *_deal_setup_checks(standalone),
        *_tribute_checks(standalone),
        *_deal_result_checks(),
        *_derived_checks(),
    ]


def _deal_setup_checks(standalone: bool) -> list[Check]:
    """The deal's index, level team, levels and hands."""
    lt = pl.col("level_team")
    level_ok = [pl.col(c).is_between(0, _A) for c in ("_lv", "_b0", "_b1")]
    after_ok = [pl.col(c).is_between(0, _A_PLUS) for c in ("_a0", "_a1")]
    return [
        Check(pl.col("deal") >= 0, "deal index {deal} is negative"),
        Check(
            lt.is_null() | lt.is_in([0, 1])
            if standalone
            else pl.when(pl.col("deal") == 0).then(lt.is_null()).otherwise(lt.is_in([0, 1])),
            "level_team {level_team} in deal {deal}: null in deal 0, else team 0 or 1",
        ),
        Check(
            pl.all_horizontal(level_ok) & (pl.col("levels_before").list.len() == 2),
            "levels out of range: level {level}, levels_before {levels_before} (levels are 2…A)",
        ),
        Check(
            pl.all_horizontal(after_ok) & (pl.col("levels_after").list.len() == 2),
            "levels_after {levels_after} out of range (levels are 2…A, or A+ for a won match)",
        ),
        Check(
            pl.when(lt.is_null())
            .then((pl.col("_lv") == 0) & (pl.col("_b0") == 0) & (pl.col("_b1") == 0))
            .otherwise(pl.col("_lv") == pl.when(lt == 0).then(pl.col("_b0")).otherwise(pl.col("_b1"))),
            "level {level} is not the level team's level (level_team {level_team}, levels_before "
            "{levels_before}; deal 0 is played at 2 with both teams at 2)",
        ),
        Check(
            pl.col("_hands"),
            "hands are not 4 hands of 27 cards (tokens S3 … DA, SB, HR separated by spaces)",
        ),
        Check(pl.col("_two_decks"), "hands are not two full decks (each of the 54 faces exactly twice)"),
    ]


def _tribute_checks(standalone: bool) -> list[Check]:
    """The tribute's kind, payments, returns and the first leader it makes."""
    return [
        Check(
            pl.col("_kind").is_in(list(TRIBUTE_PAYMENTS)),
            f"tribute kind {{_kind}} is not one of {', '.join(TRIBUTE_PAYMENTS)}",
        ),
        *(
            []
            if standalone
            else [
                Check(
                    (pl.col("_kind") == "none") == (pl.col("deal") == 0),
                    "tribute kind {_kind} in deal {deal}: 'none' exactly in deal 0",
                )
            ]
        ),
        Check(
            (pl.col("_payments") == pl.col("_kind").replace_strict(TRIBUTE_PAYMENTS, default=None))
            & (pl.col("_returns") == pl.col("_payments"))
            & (
                pl.when(pl.col("_kind") == "resisted")
                .then(pl.col("_resisting").is_between(1, 2))
                .otherwise(pl.col("_resisting") == 0)
            ),
            "tribute {tribute}: a single tribute has 1 payment, a double 2, resistance none "
            "(and 1 or 2 resisting seats); one return per payment",
        ),
        Check(
            _moves_ok("payments") & _moves_ok("returns"),
            "tribute {tribute}: a move between two seats 0-3 of one card",
        ),
        Check(pl.col("first_leader").is_between(0, 3), "first_leader {first_leader} is not a seat 0-3"),
        Check(
            (pl.col("_kind") != "single")
            | (
                pl.col("first_leader")
                == pl.col("tribute").struct.field("payments").list.first().struct.field("from")
            ),
            "first_leader {first_leader} after a single tribute {tribute}: the payer leads",
        ),
    ]


def _deal_result_checks() -> list[Check]:
    """The finish order, the upgrade, the levels after and the match's end (rules.md §8-9)."""
    lt = pl.col("level_team")
    w = pl.col("_winner")
    up = pl.col("upgrade")
    before = [pl.col("_b0"), pl.col("_b1")]
    after = [pl.col("_a0"), pl.col("_a1")]
    before_w = pl.when(w == 0).then(before[0]).otherwise(before[1])
    before_l = pl.when(w == 0).then(before[1]).otherwise(before[0])
    after_w = pl.when(w == 0).then(after[0]).otherwise(after[1])
    after_l = pl.when(w == 0).then(after[1]).otherwise(after[0])
    # rules.md §9: a team wins at its own A with 上游 and the partner not last
    won = lt.is_not_null() & (lt == w) & (before_w == _A) & (up >= 2)
    # a_fail_limit: the level team failing at its own A may go back to 2
    may_reset_w = lt.is_not_null() & (lt == w) & (before_w == _A)
    may_reset_l = lt.is_not_null() & (lt != w) & (before_l == _A)
    levels_follow = (
        pl.when(won)
        .then((after_w == _A_PLUS) & (after_l == before_l))
        .otherwise(
            ((after_w == pl.min_horizontal(before_w + up, pl.lit(_A))) | (may_reset_w & (after_w == 0)))
            & ((after_l == before_l) | (may_reset_l & (after_l == 0)))
        )
    )
    return [
        Check(
            permutation(pl.col("finish_order")),
            "finish_order {finish_order} is not a permutation of the seats 0-3",
        ),
        Check(
            w == pl.col("winner_team"),
            "winner_team {winner_team} is not the team of 上游 (finish_order {finish_order})",
        ),
        Check(
            pl.col("_double_down") == pl.col("double_down"),
            "double_down {double_down} does not follow finish_order {finish_order} (double-down: the first two out are partners)",
        ),
        Check(up.is_between(1, 3), "upgrade {upgrade} is not 1, 2 or 3"),
        Check(
            up == pl.col("_upgrade"),
            "upgrade {upgrade} does not follow finish_order {finish_order} (上游's partner 2nd: 3, 3rd: 2, last: 1)",
        ),
        Check(
            levels_follow,
            "levels_after {levels_after} do not follow levels_before {levels_before}, level_team {level_team} "
            "and upgrade {upgrade} of team {winner_team} (rules.md §8-9)",
        ),
        Check(
            pl.when(won).then(pl.col("match_winner") == w).otherwise(pl.col("match_winner").is_null()),
            "match_winner {match_winner} disagrees with levels_after {levels_after} (a team wins by reaching A+)",
        ),
        Check(
            (pl.col("match_over") == (pl.col("capped") | pl.col("match_winner").is_not_null()))
            & ~(pl.col("capped") & pl.col("match_winner").is_not_null()),
            "match_over {match_over}, capped {capped}, match_winner {match_winner}: a match is over exactly "
            "when won or capped, never both",
        ),
    ]


def _derived_checks() -> list[Check]:
    """The ``derived`` block against the actions: counts, bombs, wild-card plays."""
    derived = pl.col("derived").struct
    bomb = pl.element().struct
    wild = pl.element().struct
    return [
        Check(
            pl.col("_actions") == derived.field("plays") + derived.field("passes"),
            "{_actions} actions, but derived counts {derived} plays + passes",
        ),
        Check(
            pl.col("_lead_action") == pl.col("first_leader").cast(pl.String) + " ",
            "the first action is not first_leader {first_leader}'s",
        ),
        Check(
            (derived.field("tricks") >= 1)
            & (derived.field("plays") >= derived.field("tricks"))
            & (derived.field("passes") >= 0)
            & derived.field("jiefeng").is_between(0, derived.field("tricks") - 1),
            "derived {derived}: at least 1 trick, plays ≥ tricks, passes ≥ 0, 0 ≤ jiefeng < tricks",
        ),
        Check(
            derived.field("bombs")
            .list.eval(
                (bomb.field("seat").is_between(0, 3) & bomb.field("class").is_in(BOMB_CLASSES)).fill_null(
                    False
                )
            )
            .list.all()
            & derived.field("wild_plays")
            .list.eval(
                (wild.field("seat").is_between(0, 3) & wild.field("wilds").is_between(1, 2)).fill_null(False)
            )
            .list.all(),
            "derived {derived}: bombs need a seat 0-3 and a class 4…10, sf or joker; wild plays a seat and 1 or 2 wilds",
        ),
    ]


def deal_sequence_checks() -> list[Check]:
    """Checks of a deal against the line before it in the same file (``_p…`` columns).

    ``_adjacent`` is true when that line is the previous line of the file (or the last
    line of the run's previous part) and was good; ``_pline`` is null when there is no
    line before (the run's first line starts a match).
    """
    same = pl.col("_adjacent") & (pl.col("match") == pl.col("_pmatch"))
    new = pl.col("_adjacent") & (pl.col("match") != pl.col("_pmatch"))
    starts = new | pl.col("_pline").is_null()
    kind = pl.col("_kind")
    return [
        Check(
            ~starts | (pl.col("deal") == 0),
            "match {match} starts at deal {deal}: the deals of a match are numbered from 0, in order",
        ),
        Check(
            ~same | (pl.col("deal") == pl.col("_pdeal") + 1),
            "deal {deal} of match {match} follows its deal {_pdeal}: deal indices must be contiguous",
        ),
        Check(
            ~same | ~pl.col("_pover"), "match {match} goes on after its deal {_pdeal} ended it (match_over)"
        ),
        Check(
            ~same | (pl.col("levels_before") == pl.col("_pafter")),
            "levels_before {levels_before} are not the previous deal's levels_after {_pafter}",
        ),
        Check(
            ~same | (pl.col("level_team") == pl.col("_pwinner")),
            "level_team {level_team} is not the team of the previous deal's 上游 ({_pwinner})",
        ),
        Check(
            ~same
            | pl.when(pl.col("_pdouble"))
            .then(kind.is_in(["double", "resisted"]))
            .otherwise(kind.is_in(["single", "resisted"])),
            "tribute kind {_kind} after a deal with double_down {_pdouble}: double (or resisted) after a "
            "double-down, else single (or resisted)",
        ),
        Check(
            ~same | (kind != "resisted") | (pl.col("first_leader") == pl.col("_pfirst")),
            "first_leader {first_leader} after resistance: the previous deal's 上游 ({_pfirst}) leads",
        ),
        Check(
            ~new | (pl.col("match") > pl.col("_pmatch")),
            "match {match} after match {_pmatch}: matches out of order",
        ),
    ]


#: (previous-row column, source expression) carried from one line to the next
DEAL_CARRY = {
    "_pmatch": pl.col("match"),
    "_pdeal": pl.col("deal"),
    "_pover": pl.col("match_over"),
    "_pafter": pl.col("levels_after"),
    "_pwinner": pl.col("winner_team"),
    "_pdouble": pl.col("double_down"),
    "_pfirst": _get("finish_order", 0),
}


# ------------------------------------------------------------------ match records


MATCH_REQUIRED = _required(MATCH_FIELDS)


def match_helpers() -> list[pl.Expr]:
    return [_level(_get("final_levels", 0)).alias("_f0"), _level(_get("final_levels", 1)).alias("_f1")]


def match_checks() -> list[Check]:
    winner = pl.col("winner")
    f0, f1 = pl.col("_f0"), pl.col("_f1")
    won = pl.when(winner == 0).then((f0 == _A_PLUS) & (f1 <= _A)).otherwise((f1 == _A_PLUS) & (f0 <= _A))
    return [
        *_common("matches"),
        *_present(MATCH_REQUIRED),
        Check(pl.col("deals") >= 0, "deals {deals} is negative"),
        Check(
            (pl.col("final_levels").list.len() == 2) & f0.is_between(0, _A_PLUS) & f1.is_between(0, _A_PLUS),
            "final_levels {final_levels} out of range (levels are 2…A, or A+ for the winner)",
        ),
        Check(
            pl.when(winner.is_null()).then((f0 <= _A) & (f1 <= _A)).otherwise(winner.is_in([0, 1]) & won),
            "winner {winner} disagrees with final_levels {final_levels} (the winner, and only it, is at A+)",
        ),
        Check(
            ~(pl.col("capped") & winner.is_not_null())
            & (pl.col("error").is_null() | (winner.is_null() & ~pl.col("capped"))),
            "capped {capped}, winner {winner}, error {error}: a match is won, capped or errored, only one",
        ),
        Check(
            pl.col("error").is_not_null() | pl.col("capped") | winner.is_not_null(),
            "match {match} neither won, capped nor errored (winner null, capped false, error null)",
        ),
        Check(
            pl.col("error").is_not_null() | (pl.col("deals") >= 1),
            "deals {deals}: a match that is not errored has played at least one deal",
        ),
    ]


def match_sequence_checks() -> list[Check]:
    new = pl.col("_adjacent")
    return [
        Check(
            ~new | (pl.col("match") > pl.col("_pmatch")),
            "match {match} after match {_pmatch}: matches out of order",
        )
    ]


MATCH_CARRY = {"_pmatch": pl.col("match")}


# ------------------------------------------------------------------ running them


@dataclass(frozen=True)
class Rules:
    """Everything needed to check one kind of record."""

    helpers: list[pl.Expr]
    rows: list[Check]
    computed: dict[str, tuple[tuple[str, ...], Callable[[pl.DataFrame], pl.Series]]]
    sequence: list[Check]
    carry: dict[str, pl.Expr]


def rules_for(kind: str, columns: Iterable[str] | None = None, standalone: bool = False) -> Rules:
    """The checks of ``deals`` or ``matches`` records whose fields are all in ``columns``.

    A frame read without some fields (``hands``, ``actions``…) is checked on the rest.
    ``standalone``: the deals of a run of deal setups (see :func:`deal_checks`); they are
    not checked against the line before them.
    """
    if kind == "deals":
        computed = {"_two_decks": (("hands", "_hands"), two_decks)}
        sequence = [] if standalone else deal_sequence_checks()
        rules = Rules(deal_helpers(), deal_checks(standalone), computed, sequence, DEAL_CARRY)
    else:
        rules = Rules(match_helpers(), match_checks(), {}, match_sequence_checks(), MATCH_CARRY)
    if columns is None:
        return rules
    have = set(columns)

    def usable(expr: pl.Expr) -> bool:
        return set(expr.meta.root_names()) <= have

    helpers = [h for h in rules.helpers if usable(h)]
    have |= {h.meta.output_name() for h in helpers}
    computed = {name: (needs, f) for name, (needs, f) in rules.computed.items() if set(needs) <= have}
    have |= set(computed)
    carry = {name: e for name, e in rules.carry.items() if usable(e)}
    have |= set(carry) | {"_line", "_adjacent", "_pline", "_pok"}
    rows = [c for c in rules.rows if usable(c.ok)]
    sequence = [c for c in rules.sequence if usable(c.ok)]
    return Rules(helpers, rows, computed, sequence, carry)


def _text(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def _format(message: str, row: dict) -> str:
    return message.format_map({k: _text(v) for k, v in row.items()})


@dataclass
class Carry:
    """The last row of a checked chunk, for the sequence checks of the next one."""

    line: int
    ok: bool
    values: dict

    def next_part(self) -> Carry:
        """The same row seen from the first line of the run's next part."""
        return Carry(0, self.ok, self.values)


@dataclass
class Sequence:
    """Where a run's sequence checks stand between its parts (pass one per run)."""

    carry: Carry | None = None

    def forget(self) -> None:
        """The next part follows a line that was not checked: compare nothing with it."""
        self.carry = Carry(0, False, {})


def row_checks(frame: pl.DataFrame, lines: pl.Series, rules: Rules) -> pl.DataFrame:
    """The checks of each row alone (a block at a time, in parallel): ``frame`` plus check columns.

    ``lines`` are the rows' line numbers in their file. The result feeds
    :func:`sequence_checks`.
    """
    base = frame.with_columns(rules.helpers)
    computed = [f(base) for _needs, f in rules.computed.values()]
    base = base.with_columns(lines.alias("_line"), *computed)
    row_oks = [c.ok.fill_null(False).alias(f"_r{i}") for i, c in enumerate(rules.rows)]
    return base.with_columns(
        *row_oks, *[e.alias(f"_c{name}") for name, e in rules.carry.items()]
    ).with_columns(pl.all_horizontal([f"_r{i}" for i in range(len(row_oks))]).alias("_row_ok"))


def sequence_checks(
    base: pl.DataFrame, rules: Rules, carry: Carry | None
) -> tuple[list[tuple[int, str]], pl.Series, Carry | None]:
    """The checks between consecutive lines, over :func:`row_checks` output (blocks in file order).

    Returns ``(bad, good, carry)``: ``(line, reason)`` of each bad row (its first failing
    check), a boolean mask of the good rows, and the carry for the file's next block.
    """
    if base.height == 0:
        return [], pl.Series("ok", [], dtype=pl.Boolean), carry
    # the previous line's values: shifted, with the previous block's last row in front
    prev = base.select(
        [pl.col(f"_c{name}").shift(1).alias(name) for name in rules.carry]
        + [pl.col("_line").shift(1).alias("_pline"), pl.col("_row_ok").shift(1).alias("_pok")]
    )
    if carry is not None:
        first = {name: [carry.values.get(name)] for name in rules.carry} | {
            "_pline": [carry.line],
            "_pok": [carry.ok],
        }
        head = pl.DataFrame(first, schema=prev.schema)
        prev = pl.concat([head, prev.slice(1)])
    base = pl.concat([base, prev], how="horizontal").with_columns(
        ((pl.col("_line") == pl.col("_pline") + 1) & pl.col("_pok")).fill_null(False).alias("_adjacent")
    )
    seq_oks = [c.ok.fill_null(False).alias(f"_s{i}") for i, c in enumerate(rules.sequence)]
    checks = rules.rows + rules.sequence
    names = [f"_r{i}" for i in range(len(rules.rows))] + [f"_s{i}" for i in range(len(rules.sequence))]
    base = base.with_columns(seq_oks).with_columns(pl.all_horizontal(names).alias("_ok"))
    good = base.get_column("_ok")
    bad: list[tuple[int, str]] = []
    if not good.all():
        for row in base.filter(~pl.col("_ok")).iter_rows(named=True):
            first_bad = next(i for i, n in enumerate(names) if not row[n])
            bad.append((row["_line"], _format(checks[first_bad].message, row)))
    last = base.select([pl.col(f"_c{name}").alias(name) for name in rules.carry]).row(-1, named=True)
    new_carry = Carry(int(base.get_column("_line")[-1]), bool(base.get_column("_row_ok")[-1]), last)
    return bad, good, new_carry


def find_bad(
    frame: pl.DataFrame, lines: pl.Series, rules: Rules, carry: Carry | None
) -> tuple[list[tuple[int, str]], pl.Series, Carry | None]:
    """Check ``frame`` (its rows at file line numbers ``lines``, in order): both phases.

    Returns ``(bad, good, carry)`` as :func:`sequence_checks`.
    """
    return sequence_checks(row_checks(frame, lines, rules), rules, carry)


__all__ = [
    "BOMB_CLASSES",
    "Carry",
    "Check",
    "HAND_PATTERN",
    "HANDS_TEXT_PATTERN",
    "HEAVY_HELPERS",
    "heavy_helpers",
    "heavy_helpers_from_text",
    "LEVEL_INDEX",
    "Rules",
    "Sequence",
    "deal_checks",
    "deal_sequence_checks",
    "find_bad",
    "row_checks",
    "sequence_checks",
    "match_checks",
    "permutation",
    "rules_for",
]

"""``guandan watch``: a match shown action by action, played now by bots or read from a log.

Both sources give the same :class:`~guandan_cli.review.walk.LoggedDeal` (setup, actions,
names, the deal's end: the one type of a logged deal), and
:func:`frames` turns one into screens by applying its actions to a fresh ``Deal`` one at a
time: the table after every visible action, then the finish and the level change.

A live match ``--seed S`` is match 0 of ``guandan simulate --seed S`` with the same
strategies, so a watched match can be found again in a run.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from pathlib import Path

from guandan_cli.engine.deal import OVER, PLAY, Deal, IllegalActionError
from guandan_cli.engine.match import Match, level_token
from guandan_cli.engine.play import iter_match
from guandan_cli.engine.rules import get_ruleset
from guandan_cli.logreaders.replay import dealless_match_problem, several_runs_problem
from guandan_cli.logs.manifest import PartialConfig, read_manifest
from guandan_cli.logs.reader import LogLineError, sources
from guandan_cli.logs.records import RecordError
from guandan_cli.review.walk import LoggedDeal, match_deals
from guandan_cli.runner.tasks import match_seed
from guandan_cli.view.table import (
    Style,
    TrickLog,
    deal_end_lines,
    play_text,
    render_table,
)


class WatchInputError(ValueError):
    """A run or match that cannot be watched (one line)."""


def live_deals(
    seed: int, strategies: Sequence[str], ruleset: str, max_deals: int | None = None
) -> Iterator[LoggedDeal]:
    """Play match 0 of a run with root ``seed`` deal by deal (the bots play each deal whole)."""
    from guandan_cli.strategies.registry import make_players

    mseed = match_seed(seed, 0)
    match = Match(mseed, get_ruleset(ruleset, max_deals=max_deals))
    players = make_players(list(strategies), mseed)
    for pd in iter_match(match, players):
        u, r = pd.update, pd.deal.result
        end = deal_end_lines(
            r.finish_order,
            r.double_down,
            r.winner_team,
            r.upgrade,
            [level_token(x) for x in u.levels_after],
            u.match_over,
            u.capped,
            u.winner,
        )
        yield LoggedDeal(
            pd.setup, tuple(pd.deal.actions), tuple(strategies), 0, pd.index, mseed, end=tuple(end)
        )


def logged_deals(run: str | os.PathLike, match: int) -> Iterator[LoggedDeal]:
    """The deals of match ``match`` of a run directory, in order."""
    run = Path(run)
    if not run.exists():
        raise WatchInputError(f"no run directory {run}")
    try:
        manifest = read_manifest(run) if run.is_dir() else None
    except ValueError as exc:
        raise WatchInputError(str(exc)) from None
    problem = several_runs_problem(run)
    if problem is not None:
        raise WatchInputError(problem)
    files = sources(run, "deals")  # an unfinished run: its journaled matches too
    if not files:
        raise WatchInputError(f"{run} holds no deals log (is it a guandan run directory?)")
    options = PartialConfig.recorded(manifest)
    if manifest is not None:
        total = options.matches
        if total is not None and not 0 <= match < total:
            raise WatchInputError(f"--match {match} is not in {run}: its matches are 0..{total - 1}")
    found = False
    deals = match_deals(run, match, options)
    while True:
        try:
            logged = next(deals)
        except StopIteration:
            break
        except RecordError as exc:  # a line edited by hand
            raise LogLineError(exc.source, exc.line, f"cannot show this deal: {exc.why}") from None
        found = True
        yield logged
    if not found:
        dealless = dealless_match_problem(run, match)
        raise WatchInputError(dealless or f"--match {match}: no deals of match {match} in {run}")


def frames(
    shown: LoggedDeal, style: Style, seat: int = 0, open_hands: bool = False, legend: str = ""
) -> Iterator[str]:
    """The screens of one deal: the start, one per visible action, the end (each ending in
    ``legend``, the keys, when one is given)."""
    deal = Deal(shown.setup)
    title = (
        f"match {shown.match} (seed {shown.match_seed}) · deal {shown.deal} · "
        f"ruleset {shown.setup.rules.name}"
    )
    names = list(shown.names)

    def screen(note: str, extra: Sequence[str] = ()) -> str:
        hands = {s: deal.hands[s] for s in range(4)} if open_hands else {seat: deal.hands[seat]}
        return render_table(
            title=title,
            level=deal.level,
            levels=shown.setup.levels,
            level_team=shown.setup.level_team,
            names=names,
            counts=deal.card_counts(),
            finished=deal.finished,
            events=deal.events,
            to_move=deal.to_move,
            tribute_kind=deal.tribute_kind,
            resisted_by=deal.resisted_by,
            hands={s: h for s, h in hands.items() if h},
            bottom=seat,
            style=style,
            footer=[note, *extra, *([legend] if legend else [])],
        )

    start = "dealt" if deal.phase != PLAY else f"seat {deal.to_move} leads"
    yield screen(start)
    log = TrickLog(deal.level, style)
    for i, (who, action) in enumerate(shown.actions):
        if who != deal.to_move:  # a log edited by hand: replay() refuses it the same way
            raise IllegalActionError(
                who, action, f"action {i}: it is seat {deal.to_move}'s turn, not seat {who}'s"
            )
        before = len(deal.events)
        deal.apply(action)
        new = deal.events[before:]
        if not new:
            continue  # a tribute or return card is hidden until all are chosen
        for ev in new:
            log.feed(ev)
        last = new[-1]
        if last.kind == PLAY:
            note = f"seat {who} plays {play_text(last.combo, deal.level, style)}"
        elif last.kind == "pass":
            note = f"seat {who} passes"
        else:
            note = (
                f"tribute and return done; seat {deal.leader} leads" if deal.phase == PLAY else "tribute paid"
            )
        if deal.phase == PLAY and deal.top is None and last.kind == "pass":
            note += f" · the trick is over; seat {deal.to_move} leads"
        if deal.phase == OVER:
            break
        yield screen(note)
    yield screen(f"deal {shown.deal} over", ["", *shown.end])


__all__ = ["WatchInputError", "frames", "live_deals", "logged_deals"]

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
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from guandan_cli.engine.deal import OVER, PLAY, Deal, IllegalActionError
from guandan_cli.engine.match import Match
from guandan_cli.engine.play import deal_steps, iter_match, start_deal
from guandan_cli.engine.rules import get_ruleset
from guandan_cli.logreaders.replay import dealless_match_problem, several_runs_problem
from guandan_cli.logs.manifest import RunFolder
from guandan_cli.logs.reader import LogLineError, sources
from guandan_cli.logs.records import RecordError
from guandan_cli.review.walk import LoggedDeal, match_deals
from guandan_cli.runner.tasks import match_seed
from guandan_cli.view.table import (
    Style,
    TableScene,
    TrickLog,
    play_text,
    played_end_lines,
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
        end = played_end_lines(r, u)
        yield LoggedDeal(
            pd.setup, tuple(pd.deal.actions), tuple(strategies), 0, pd.index, mseed, end=tuple(end)
        )


def logged_deals(run: str | os.PathLike, match: int) -> Iterator[LoggedDeal]:
    """The deals of match ``match`` of a run directory, in order."""
    run = Path(run)
    if not run.exists():
        raise WatchInputError(f"no run directory {run}")
    try:
        folder = RunFolder.read(run)
    except ValueError as exc:
        raise WatchInputError(str(exc)) from None
    problem = several_runs_problem(run)
    if problem is not None:
        raise WatchInputError(problem)
    files = sources(run, "deals")  # an unfinished run: its journaled matches too
    if not files:
        raise WatchInputError(f"{run} holds no deals log (is it a guandan run directory?)")
    if folder.manifest is not None:
        total = folder.options.matches
        if total is not None and not 0 <= match < total:
            raise WatchInputError(f"--match {match} is not in {run}: its matches are 0..{total - 1}")
    found = False
    deals = match_deals(folder, match)
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


class _Screens:
    """The screens of one deal as its actions are applied to ``deal``: the table, a note on the
    last action, and the keys (``legend``)."""

    def __init__(
        self,
        deal: Deal,
        title: str,
        names: Sequence[str],
        style: Style,
        seat: int,
        open_hands: bool,
        legend: str,
    ) -> None:
        self.deal = deal
        self.title = title
        self.names = list(names)
        self.style = style
        self.seat = seat
        self.open_hands = open_hands
        self.legend = legend
        self.log = TrickLog(deal.level, style)

    def screen(self, note: str, extra: Sequence[str] = ()) -> str:
        deal, seat = self.deal, self.seat
        hands = {s: deal.hands[s] for s in range(4)} if self.open_hands else {seat: deal.hands[seat]}
        return render_table(
            TableScene(
                title=self.title,
                level=deal.level,
                levels=deal.setup.levels,
                level_team=deal.setup.level_team,
                names=self.names,
                counts=deal.card_counts(),
                finished=deal.finished,
                events=deal.events,
                to_move=deal.to_move,
                tribute_kind=deal.tribute_kind,
                resisted_by=deal.resisted_by,
                hands={s: h for s, h in hands.items() if h},
                bottom=seat,
                footer=[note, *extra, *([self.legend] if self.legend else [])],
            ),
            self.style,
        )

    def start(self) -> str:
        deal = self.deal
        return self.screen("dealt" if deal.phase != PLAY else f"seat {deal.to_move} leads")

    def after(self, who: int, before: int) -> str | None:
        """The screen after ``who``'s action (the deal had ``before`` events), ``None`` when it
        showed nothing (a tribute or return card is hidden until all are chosen) or ended the deal."""
        deal = self.deal
        new = deal.events[before:]
        if not new:
            return None
        for ev in new:
            self.log.feed(ev)
        last = new[-1]
        if last.kind == PLAY:
            note = f"seat {who} plays {play_text(last.combo, deal.level, self.style)}"
        elif last.kind == "pass":
            note = f"seat {who} passes"
        else:
            note = (
                f"tribute and return done; seat {deal.leader} leads" if deal.phase == PLAY else "tribute paid"
            )
        if deal.phase == PLAY and deal.top is None and last.kind == "pass":
            note += f" · the trick is over; seat {deal.to_move} leads"
        return None if deal.phase == OVER else self.screen(note)


def _title(match: int, match_seed: int, deal: int, rules) -> str:
    return f"match {match} (seed {match_seed}) · deal {deal} · ruleset {rules.name}"


def frames(
    shown: LoggedDeal, style: Style, seat: int = 0, open_hands: bool = False, legend: str = ""
) -> Iterator[str]:
    """The screens of one deal: the start, one per visible action, the end (each ending in
    ``legend``, the keys, when one is given)."""
    deal = Deal(shown.setup)
    title = _title(shown.match, shown.match_seed, shown.deal, shown.setup.rules)
    screens = _Screens(deal, title, shown.names, style, seat, open_hands, legend)
    yield screens.start()
    for i, (who, action) in enumerate(shown.actions):
        if who != deal.to_move:  # a log edited by hand: replay() refuses it the same way
            raise IllegalActionError(
                who, action, f"action {i}: it is seat {deal.to_move}'s turn, not seat {who}'s"
            )
        before = len(deal.events)
        deal.apply(action)
        text = screens.after(who, before)
        if deal.phase == OVER:
            break
        if text is not None:
            yield text
    yield screens.screen(f"deal {shown.deal} over", ["", *shown.end])


@dataclass(frozen=True)
class Frame:
    """One screen of a match played now; ``wait``: pause after it (a key, or the delay);
    ``after_thinking``: it follows a bot's long think (keys pressed meanwhile are dropped)."""

    text: str
    wait: bool = True
    after_thinking: bool = False


#: a bot that took this long (seconds) over a decision is shown thinking before its next ones
SLOW_DECISION = 0.25


def live_frames(
    seed: int,
    strategies: Sequence[str],
    ruleset: str,
    max_deals: int | None,
    style: Style,
    seat: int = 0,
    open_hands: bool = False,
    legend: str = "",
) -> Iterator[Frame]:
    """Match 0 of a run with root ``seed``, played one action at a time as it is watched: a
    screen after each visible action, and ``seat N (name) is thinking…`` before a slow bot's
    decision (one that took over ``SLOW_DECISION`` seconds before, or a search)."""
    from guandan_cli.strategies.registry import make_players

    mseed = match_seed(seed, 0)
    match = Match(mseed, get_ruleset(ruleset, max_deals=max_deals))
    players = make_players(list(strategies), mseed)
    slow = [name.split(":")[0] == "search" for name in strategies]
    while not match.over:
        index = match.deal_index
        deal = start_deal(match, match.next_setup(), players)
        screens = _Screens(
            deal, _title(0, mseed, index, deal.setup.rules), strategies, style, seat, open_hands, legend
        )
        yield Frame(screens.start())
        steps = deal_steps(deal, players, mseed, index)
        who, before, took = next(steps, None), len(deal.events), 0.0
        while who is not None:
            if slow[who]:
                yield Frame(screens.screen(f"seat {who} ({strategies[who]}) is thinking…"), wait=False)
            t0 = time.monotonic()
            following = next(steps, None)  # asks ``who`` and applies its action
            took = time.monotonic() - t0
            slow[who] = slow[who] or took > SLOW_DECISION
            text = screens.after(who, before)
            if text is not None:
                yield Frame(text, after_thinking=took > SLOW_DECISION)
            who, before = following, len(deal.events)
        update = match.record(deal.result)
        r = deal.result
        end = played_end_lines(r, update)
        yield Frame(screens.screen(f"deal {index} over", ["", *end]), after_thinking=took > SLOW_DECISION)


__all__ = ["Frame", "WatchInputError", "frames", "live_deals", "live_frames", "logged_deals"]

"""The finished deals of a game that ``guandan play`` saved, before its match ends.

A game's deals reach the run's log only when its match ends; until then the folder holds the
person's answers (``human.jsonl``) and the manifest. The game is deterministic given those:
:func:`finished_deals` plays the match again from its seed, the bots seeded as the runner
seeds them and the person's seat answering from the saved answers, and keeps every deal that
ends before the answers run out. So ``guandan review`` can look at deal 0 while deal 1 is
being played, and what it reviews is the deal that was played (``play --resume`` replays the
same answers the same way).

>>> import tempfile
>>> finished_deals(Path(tempfile.mkdtemp()))
Traceback (most recent call last):
...
guandan_cli.interactive.play.PlayInputError: nothing to resume: no game in ...
"""

from __future__ import annotations

from collections import deque
from pathlib import Path

from guandan_cli.engine.deal import action_text
from guandan_cli.engine.match import Match, deal_seed
from guandan_cli.engine.observation import Observation
from guandan_cli.engine.play import StrategyError, iter_match
from guandan_cli.engine.rules import get_ruleset
from guandan_cli.interactive.play import GameSpec, PlayInputError, stored_game
from guandan_cli.interactive.seat import (
    JOURNAL,
    JournalMismatch,
    read_answers,
    saved_action,
    saved_answer_problem,
)
from guandan_cli.review.walk import LoggedDeal, ReviewInputError
from guandan_cli.runner.tasks import match_seed
from guandan_cli.view.table import played_end_lines


class _AnswersEnd(BaseException):
    """No saved answer is left: the deal being played is the unfinished one (not a bot failure,
    so ``BaseException``: the game loop reports every ``Exception`` as the seat's failure)."""


class SavedAnswers:
    """The person's seat answering from its saved answers, in order (an ``InputSource``)."""

    def __init__(self, path: Path, answers: list[dict]) -> None:
        self.path = path
        self.answers = deque(answers)
        self.used = 0
        self.deal_index = 0

    def start_deal(self, deal_index: int, obs: Observation) -> None:
        self.deal_index = deal_index

    def observe_action(self, obs: Observation) -> None:
        pass

    def choose(self, obs: Observation) -> object:
        if not self.answers:
            raise _AnswersEnd
        entry = self.answers.popleft()
        self.used += 1
        where = f"{self.path}:{self.used}"
        if entry["deal"] != self.deal_index or entry["phase"] != obs.phase:
            raise JournalMismatch(
                f"{where}: saved answer for deal {entry['deal']} ({entry['phase']}), "
                f"but deal {self.deal_index} asks for a {obs.phase}"
            )
        action = saved_action(entry)
        problem = saved_answer_problem(action, obs)
        if problem is not None:
            raise JournalMismatch(f"{where}: saved answer {action_text(action)!r} is not legal: {problem}")
        return action


def finished_deals(out: Path) -> list[LoggedDeal]:
    """The deals of the unfinished game in ``out`` that ended, in order (``PlayInputError`` when
    ``out`` holds no unfinished game; a saved answer that does not fit names its line)."""
    game = stored_game(out)
    path = out / JOURNAL
    try:
        answers = read_answers(path) if path.exists() else []
    except JournalMismatch as exc:
        raise PlayInputError(str(exc)) from None
    source = SavedAnswers(path, answers)
    seed = match_seed(game.seed, 0)
    match = Match(seed, get_ruleset(game.ruleset, a_fail_limit=game.a_fail_limit, max_deals=game.max_deals))
    deals: list[LoggedDeal] = []
    try:
        for pd in iter_match(match, _players(game, seed, source)):
            deals.append(_logged(game, seed, pd, path))
    except _AnswersEnd:
        pass
    except StrategyError as exc:
        cause = exc.__cause__
        if isinstance(cause, JournalMismatch):
            raise PlayInputError(str(cause)) from None
        raise
    return deals


def saved_deal(run: Path, match: int, deal: int | None) -> LoggedDeal | None:
    """Deal ``deal`` (the first when ``None``) of the unfinished game in ``run``, if ``run`` is a
    game saved by ``play`` (``None`` otherwise); ``ReviewInputError`` when that deal has not ended.
    """
    deals = _ended_deals(run, match)
    if deals is None:
        return None
    wanted = 0 if deal is None else deal
    if wanted < len(deals):
        return deals[wanted]
    raise _not_ended(run, wanted, len(deals))


def saved_deals(run: Path, match: int) -> list[LoggedDeal]:
    """Every deal of the unfinished game in ``run`` that has ended (empty if ``run`` is no such
    game); ``ReviewInputError`` when none has ended yet."""
    deals = _ended_deals(run, match)
    if deals is None:
        return []
    if not deals:
        raise _not_ended(run, 0, 0)
    return deals


def _ended_deals(run: Path, match: int) -> list[LoggedDeal] | None:
    """The ended deals of the unfinished game saved by ``play`` in ``run`` (the game replayed
    once), or ``None`` when ``run`` is not such a game."""
    if not (run / JOURNAL).is_file() or _finished(run):
        return None  # not a game of play, or one whose log holds every deal
    if match != 0:
        raise ReviewInputError(f"--match {match}: the game in {run} is one match, match 0")
    try:
        return finished_deals(run)
    except PlayInputError as exc:
        raise ReviewInputError(str(exc)) from None


def _not_ended(run: Path, wanted: int, ended: int) -> ReviewInputError:
    which = "none has" if not ended else "only deal 0 has" if ended == 1 else f"deals 0..{ended - 1} have"
    return ReviewInputError(
        f"deal {wanted} of the game in {run} has not ended yet ({which}); "
        f"play on with: guandan play --resume --out {run}"
    )


def _finished(run: Path) -> bool:
    from guandan_cli.logs.manifest import RunFolder

    try:
        manifest = RunFolder.read(run).manifest
    except ValueError:
        return False  # stored_game names what is wrong with it
    return manifest is not None and manifest.complete


def _players(game: GameSpec, seed: int, source: SavedAnswers) -> list:
    """The four seats as the runner makes them, the person's answering from ``source``."""
    from guandan_cli.strategies.registry import make_players

    players = make_players(list(game.strategies), seed)
    players[game.seat].source = source
    return players


def _logged(game: GameSpec, seed: int, pd, path: Path) -> LoggedDeal:
    """One played deal as review and watch take it."""
    r, u = pd.deal.result, pd.update
    end = played_end_lines(r, u)
    return LoggedDeal(
        pd.setup,
        tuple(pd.deal.actions),
        tuple(game.strategies),
        match=0,
        deal=pd.index,
        match_seed=seed,
        deal_seed=deal_seed(seed, pd.index),
        where=f"{path} (deal {pd.index}, replayed from the saved answers)",
        end=tuple(end),
    )


__all__ = ["SavedAnswers", "finished_deals", "saved_deal", "saved_deals"]

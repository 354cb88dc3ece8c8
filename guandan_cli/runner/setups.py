"""Deal setups as experiment units: where they come from, swapping teams, playing one.

A *setup* is everything a deal starts from (``DealSetup``: the dealt hands, both teams'
levels, the level team and the previous deal's finish order, so the tribute situation).
Experiments that hold the luck of the deal fixed (deal-level duplicates, counterfactuals
such as tribute on/off) take setups from a named source, play each with chosen players
and log the deal exactly like ``simulate`` does, so ``guandan analyze`` reads the result.

The API (small and stable):

- ``SourcedSetup``: a ``DealSetup`` with the seeds it came from (for the log record).
- Sources, each deterministic in its arguments:

  - ``fresh_setup(seed, index, rules)``: deal 0 of match ``index`` of a ``simulate`` run with
    root seed ``seed``: level 2 for both teams, no level team, no tribute.
  - ``random_setup(seed, index, rules)``: the same hands in a random situation drawn from
    ``derived_rng(match seed, "situation")``: the level team is team 0 or 1 (½ each); its
    level is uniform over 3…A, the other team's uniform over 2…A; the previous finish
    order is uniform over the 12 orders whose first finisher is in the level team, so a
    double-down (double tribute), a single tribute from an opponent and a single tribute
    from 上游's own partner each have probability ⅓ (a tribute may still be resisted, as
    the hands decide).
  - ``paying_setup(seed, index, rules)`` / ``resisting_setup(seed, index, rules)``: a
    random situation in which the tribute is paid / resisted (counterfactual experiments,
    ``guandan_cli.experiments``): hands and situation are drawn as by ``random_setup``,
    conditioned on the outcome (module section "conditioned sources").
  - ``source_setup(name, seed, index, rules)``: setup ``index`` of the named source
    (``SETUP_SOURCES``), how a run made of setups is rebuilt (``guandan verify``).
  - ``run_setups(run_dir)``: every logged deal of a run directory in log order (match,
    deal), each rebuilt with ``logs.records.DealRecord.setup``.
  - ``load_setups(source, seed, count, rules)``: ``count`` setups from ``"fresh"``,
    ``"random"`` or a run directory (its first ``count`` deals).

- ``swap_teams(setup)``: the setup with the teams exchanged: every seat's hand moves one
  seat on (seat ``s`` → ``s + 1``), so team 0 holds what team 1 held, in the same order of
  play, and the levels, level team, previous finish order (so the tribute roles) and
  first leader follow. Applying it twice gives each seat its partner's hand.
- ``play_setup(item, players, …)``: play the setup with four players (``Strategy`` objects
  or anything with their methods) and return a ``PlayedSetup``: the finished ``Deal``, the
  ``MatchUpdate`` it implies (levels after, match over) and its deal record, the same dict
  ``simulate`` writes (``guandan_cli.logs.schema.deal_record``).

>>> from guandan_cli.engine.rules import get_ruleset
>>> from guandan_cli.strategies import make_players
>>> item = fresh_setup(seed=1, index=0, rules=get_ruleset("cgr2022"))
>>> played = play_setup(item, make_players(["greedy"] * 4, item.match_seed))
>>> logged = DealRecord.parse(played.record)  # the line as a reader reads it back
>>> logged.winner_team in (0, 1), logged.levels_before
(True, ('2', '2'))
>>> swapped = swap_teams(swap_teams(item.setup))
>>> swapped.hands == tuple(item.setup.hands[s ^ 2] for s in range(4))
True
"""

from __future__ import annotations

import itertools
import os
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from guandan_cli.engine import play as _play
from guandan_cli.engine.cards import HR, deal_hands
from guandan_cli.engine.deal import Deal, DealSetup
from guandan_cli.engine.match import Match, MatchUpdate, deal_seed
from guandan_cli.engine.observation import observe
from guandan_cli.engine.play import play_deal, strategy_error
from guandan_cli.engine.rules import Ruleset
from guandan_cli.engine.seeding import derive_seed, derived_rng
from guandan_cli.logs.records import DealRecord
from guandan_cli.logs.schema import MatchKey, deal_record
from guandan_cli.runner.seeds import match_seed

#: named setup sources (anything else given to ``load_setups`` is a run directory)
SOURCES = ("fresh", "random")


@dataclass(frozen=True)
class SourcedSetup:
    """A deal setup and the seeds it came from (written in its deal record).

    ``match_seed`` also seeds the players of ``play_setup`` callers (``make_players``), so
    the same setup is played by the same seeded players whichever experiment plays it.
    """

    setup: DealSetup
    match_seed: int
    deal_index: int
    deal_seed: int


@dataclass
class PlayedSetup:
    """A played setup: the finished deal, the match update it implies, its deal record."""

    deal: Deal
    update: MatchUpdate
    record: dict


# ------------------------------------------------------------------ sources


def fresh_setup(seed: int, index: int, rules: Ruleset) -> SourcedSetup:
    """Deal 0 of match ``index`` of a run with root seed ``seed``: level 2, no tribute."""
    ms = match_seed(seed, index)
    return SourcedSetup(Match(ms, rules).next_setup(), ms, 0, deal_seed(ms, 0))


def random_setup(seed: int, index: int, rules: Ruleset) -> SourcedSetup:
    """The hands of ``fresh_setup(seed, index)`` in a random situation (module docstring)."""
    ms = match_seed(seed, index)
    ds = deal_seed(ms, 0)
    rng = derived_rng(ms, "situation")
    level_team = rng.randrange(2)
    levels = [0, 0]
    levels[level_team] = rng.randint(1, 12)
    levels[1 - level_team] = rng.randint(0, 12)
    first = rng.choice((level_team, level_team + 2))
    rest = [s for s in range(4) if s != first]
    rng.shuffle(rest)
    order = (first, *rest)
    setup = DealSetup(
        hands=deal_hands(random.Random(ds)),
        level=levels[level_team],
        levels=(levels[0], levels[1]),
        level_team=level_team,
        previous=(order, order[1] == first ^ 2),
        first_leader=None,
        rules=rules,
    )
    return SourcedSetup(setup, ms, 0, ds)


def run_setups(run_dir: str | os.PathLike, rules: Ruleset | None = None) -> Iterator[SourcedSetup]:
    """Every logged deal of the run in ``run_dir``, in log order, as a setup.

    ``rules``: the ruleset to play them under (default: the run's ruleset and options).
    Raises ``ValueError`` when ``run_dir`` holds no run.
    """
    from guandan_cli.engine.rules import get_ruleset
    from guandan_cli.logs.manifest import RunFolder
    from guandan_cli.logs.reader import iter_records, part_files

    path = Path(run_dir)
    folder = RunFolder.read(path)
    if folder.manifest is None:
        raise ValueError(f"setups {str(run_dir)!r}: no run directory (no manifest.json) there")
    if rules is None:
        cfg = folder.options
        rules = get_ruleset(cfg.ruleset, a_fail_limit=cfg.a_fail_limit, max_deals=cfg.max_deals)
    last: dict[int, DealRecord] = {}
    for f in part_files(path, "deals"):
        for line, data in iter_records(f, "deals"):
            rec = DealRecord.parse(data, f, line)
            prev = last.get(rec.match) if rec.deal > 0 else None
            last[rec.match] = rec
            yield SourcedSetup(rec.setup(prev, rules), rec.match_seed, rec.deal, rec.deal_seed)


def load_setups(source: str | os.PathLike, seed: int, count: int, rules: Ruleset) -> list[SourcedSetup]:
    """``count`` setups from ``"fresh"``, ``"random"`` or a run directory (its first ``count`` deals).

    A run directory's setups are played under ``rules`` (``max_deals`` and ``a_fail_limit``
    included). Raises ``ValueError`` naming the source when it cannot give ``count`` setups.
    """
    if count < 0:
        raise ValueError(f"count must not be negative, got {count}")
    if source == "fresh":
        return [fresh_setup(seed, i, rules) for i in range(count)]
    if source == "random":
        return [random_setup(seed, i, rules) for i in range(count)]
    out: list[SourcedSetup] = []
    if count:
        for item in run_setups(source, rules):
            out.append(item)
            if len(out) == count:
                break
    if len(out) < count:
        raise ValueError(
            f"setups {str(source)!r}: the run holds {len(out)} deals, fewer than the {count} asked"
        )
    return out


# ------------------------------------------------------------------ conditioned sources


def _resisted(hands: Sequence[Sequence[int]], order: Sequence[int]) -> bool:
    """Whether the paying side holds both ``HR`` after the previous finish ``order``."""
    first = order[0]
    payers = ((first + 1) % 4, (first + 3) % 4) if order[1] == first ^ 2 else (order[3],)
    return sum(hands[p].count(HR) for p in payers) == 2


def _conditioned_setup(seed: int, index: int, rules: Ruleset, resisted: bool) -> SourcedSetup:
    """Setup ``index``: hands and situation as ``random_setup`` draws them, given the outcome.

    The previous finish order is uniform over the 24 orders whose tribute is resisted
    (``resisted``) or paid; the level team is 上游's team, levels as in ``random_setup``.
    Hands that allow no such order (resistance needs both ``HR`` in one team) are dealt
    again: attempt ``a`` uses match seed ``derive_seed(seed, "setup", index, a)``.
    """
    for attempt in itertools.count():
        ms = derive_seed(seed, "setup", index, attempt)
        ds = deal_seed(ms, 0)
        hands = deal_hands(random.Random(ds))
        orders = [o for o in itertools.permutations(range(4)) if _resisted(hands, o) == resisted]
        if not orders:
            continue
        rng = derived_rng(ms, "situation")
        order = rng.choice(orders)
        level_team = order[0] % 2
        levels = [0, 0]
        levels[level_team] = rng.randint(1, 12)
        levels[1 - level_team] = rng.randint(0, 12)
        setup = DealSetup(
            hands=hands,
            level=levels[level_team],
            levels=(levels[0], levels[1]),
            level_team=level_team,
            previous=(order, order[1] == order[0] ^ 2),
            first_leader=None,
            rules=rules,
        )
        return SourcedSetup(setup, ms, 0, ds)
    raise AssertionError("unreachable")  # pragma: no cover


def paying_setup(seed: int, index: int, rules: Ruleset) -> SourcedSetup:
    """A random situation whose tribute is paid (single or double, not resisted)."""
    return _conditioned_setup(seed, index, rules, resisted=False)


def resisting_setup(seed: int, index: int, rules: Ruleset) -> SourcedSetup:
    """A random situation whose tribute is resisted (the paying side holds both ``HR``).

    >>> from guandan_cli.engine.rules import get_ruleset
    >>> Deal(resisting_setup(1, 0, get_ruleset("cgr2022")).setup).tribute_kind
    'resisted'
    """
    return _conditioned_setup(seed, index, rules, resisted=True)


#: the sources a run of setups may name (``simulate(setups=…)``), index -> setup
SETUP_SOURCES = {
    "fresh": fresh_setup,
    "random": random_setup,
    "paying": paying_setup,
    "resisting": resisting_setup,
}


def source_setup(name: str, seed: int, index: int, rules: Ruleset) -> SourcedSetup:
    """Setup ``index`` of the source ``name`` (one of ``SETUP_SOURCES``) with root ``seed``."""
    try:
        source = SETUP_SOURCES[name]
    except KeyError:
        raise ValueError(
            f"unknown setup source {name!r}: valid sources are {', '.join(SETUP_SOURCES)}"
        ) from None
    return source(seed, index, rules)


# ------------------------------------------------------------------ swapping teams


def _rotate(seat: int) -> int:
    return (seat + 1) % 4


def swap_teams(setup: DealSetup) -> DealSetup:
    """The setup with the teams exchanged: seat ``s``'s hand, role and finish place go to ``s + 1``.

    >>> from guandan_cli.engine.rules import get_ruleset
    >>> s = random_setup(3, 0, get_ruleset("cgr2022")).setup
    >>> t = swap_teams(s)
    >>> t.hands[1] == s.hands[0], t.levels == s.levels[::-1], t.level == s.level
    (True, True, True)
    >>> t.level_team == 1 - s.level_team, t.previous[0] == tuple((x + 1) % 4 for x in s.previous[0])
    (True, True)
    """
    previous = None
    if setup.previous is not None:
        order, double_down = setup.previous
        previous = (tuple(_rotate(s) for s in order), double_down)
    return replace(
        setup,
        hands=tuple(setup.hands[(s - 1) % 4] for s in range(4)),
        levels=(setup.levels[1], setup.levels[0]),
        level_team=None if setup.level_team is None else 1 - setup.level_team,
        previous=previous,
        first_leader=None if setup.first_leader is None else _rotate(setup.first_leader),
    )


# ------------------------------------------------------------------ playing one


def _update_of(item: SourcedSetup, deal: Deal, a_failures: tuple[int, int]) -> MatchUpdate:
    """What the finished deal does to a match in the setup's situation (levels, end, cap)."""
    s = item.setup
    match = Match(item.match_seed, s.rules)
    match.levels = list(s.levels)
    match.level_team = s.level_team
    match.deal_index = item.deal_index
    match.previous = s.previous
    match.a_failures = list(a_failures)
    assert deal.result is not None
    return match.record(deal.result)


def play_setup(
    item: SourcedSetup | DealSetup,
    players: Sequence[object],
    *,
    run_id: str = "",
    match_index: int = 0,
    strategies: Sequence[str] | None = None,
    a_failures: tuple[int, int] = (0, 0),
) -> PlayedSetup:
    """Play one setup with ``players`` (seat order) to the end; see the module docstring.

    Each player's ``start_deal`` is called first, as in a match. The record's ``match`` is
    ``match_index``, its ``strategies`` are ``strategies`` (default: the players' names);
    ``a_failures`` are the teams' failed deals at their own A so far (for ``a_fail_limit``).
    A player that raises or answers illegally raises ``StrategyError``.
    """
    if isinstance(item, DealSetup):
        item = SourcedSetup(item, 0, 0, 0)
    if len(players) != 4:
        raise ValueError(f"need 4 players (seats 0-3), got {len(players)}")
    deal = Deal(item.setup)
    for seat, p in enumerate(players):
        hook = getattr(p, "start_deal", None)
        if hook is not None:
            try:
                hook(item.deal_index, observe(deal, seat))
            except _play.BOT_FAILURES as exc:  # reported like any bot failure
                raise strategy_error(seat, p, item.match_seed, item.deal_index, exc) from exc
    play_deal(deal, players, item.match_seed, item.deal_index)
    update = _update_of(item, deal, a_failures)
    names = (
        list(strategies)
        if strategies is not None
        else [getattr(p, "name", type(p).__name__) for p in players]
    )
    record = deal_record(
        MatchKey(run_id, match_index, item.match_seed, tuple(names)),
        deal_index=item.deal_index,
        deal_seed=item.deal_seed,
        setup=item.setup,
        deal=deal,
        update=update,
    )
    return PlayedSetup(deal, update, record)


__all__ = [
    "SETUP_SOURCES",
    "SOURCES",
    "PlayedSetup",
    "SourcedSetup",
    "fresh_setup",
    "load_setups",
    "paying_setup",
    "play_setup",
    "random_setup",
    "resisting_setup",
    "run_setups",
    "source_setup",
    "swap_teams",
]

"""The match (一局): levels, the level team, upgrades, the A rule, options (rules.md §3, §8–9, §12).

Deal ``i``'s cards come from ``derive_seed(match_seed, "deal", i)`` alone, so two
matches with the same seed see the same cards in deal ``i`` whatever happened before.

>>> m = Match(seed=7)
>>> setup = m.next_setup()
>>> setup.level, setup.previous is None, 0 <= setup.first_leader < 4
(0, True, True)
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from .cards import RANKS, deal_hands
from .deal import DealResult, DealSetup
from .rules import DEFAULT_RULESET, Ruleset, get_ruleset
from .seeding import derive_seed, derived_rng

A = 12  # rank index of A
A_PLUS = 13  # a won match
LEVEL_TOKENS = tuple(RANKS) + ("A+",)


def level_token(level: int) -> str:
    return LEVEL_TOKENS[level]


@dataclass(frozen=True)
class MatchUpdate:
    """What one deal did to the match."""

    deal_index: int
    levels_before: tuple[int, int]
    levels_after: tuple[int, int]
    level_team_before: int | None
    level_team_after: int
    a_failure: int | None  # team that failed at its own A in this deal
    match_over: bool
    winner: int | None
    capped: bool


def deal_seed(match_seed: int, deal_index: int) -> int:
    """The seed deal ``deal_index``'s shuffle comes from."""
    return derive_seed(match_seed, "deal", deal_index)


class Match:
    """Levels and deals of one match. ``next_setup`` then ``record(result)``, until ``over``.

    ``levels[t]`` is team ``t``'s level as a rank index (0 = 2 … 12 = A, 13 = A+ once
    won). ``level_team`` is the team of the previous deal's 上游 (``None`` before the
    first deal). The first deal's leader is drawn from the match seed. A match ends
    with a ``winner`` or, when ``max_deals`` is reached first, ``capped`` with no winner.
    """

    def __init__(self, seed: int, rules: Ruleset | str = DEFAULT_RULESET) -> None:
        self.seed = seed
        self.rules = get_ruleset(rules)
        self.levels = [0, 0]
        self.level_team: int | None = None
        self.deal_index = 0
        self.previous: tuple[tuple[int, ...], bool] | None = None
        self.a_failures = [0, 0]
        self.over = False
        self.capped = False
        self.winner: int | None = None
        self.first_leader = derived_rng(seed, "first_leader").randrange(4)

    @property
    def level(self) -> int:
        """The level the next deal is played at (the level team's; 2 for the first deal)."""
        return 0 if self.level_team is None else self.levels[self.level_team]

    def next_setup(self) -> DealSetup:
        if self.over:
            raise ValueError(f"match {self.seed} is over")
        hands = deal_hands(random.Random(deal_seed(self.seed, self.deal_index)))
        return DealSetup(
            hands=hands,
            level=self.level,
            levels=(self.levels[0], self.levels[1]),
            level_team=self.level_team,
            previous=self.previous,
            first_leader=self.first_leader if self.previous is None else None,
            rules=self.rules,
        )

    def record(self, result: DealResult) -> MatchUpdate:
        """Apply a finished deal's result: upgrade, A rule, a_fail_limit, max_deals.

        Only 上游's team goes up (+3/+2/+1), never past A; a team wins only by taking
        上游 with the partner not last in a deal played at its own A (§9). With
        ``a_fail_limit = N`` the level team's N-th deal at its own A that does not win
        the match sends it back to 2. Reaching ``max_deals`` ends the match unfinished.
        """
        if self.over:
            raise ValueError(f"match {self.seed} is over; no deal can be recorded")
        if sorted(result.finish_order) != [0, 1, 2, 3]:
            raise ValueError(f"finish order {result.finish_order!r} is not a permutation of the seats 0..3")
        before = (self.levels[0], self.levels[1])
        lt = self.level_team
        order = result.finish_order
        winner_team = order[0] & 1
        upgrade = (3, 2, 1)[order.index(order[0] ^ 2) - 1]
        if (winner_team, upgrade) != (result.winner_team, result.upgrade):
            raise ValueError(f"inconsistent deal result {result!r}")
        partner_not_last = upgrade >= 2
        failure = None
        if lt is not None and self.levels[lt] == A:
            if winner_team == lt and partner_not_last:
                self.levels[lt] = A_PLUS
                self.winner = lt
                self.over = True
            else:
                failure = lt
        if not self.over:
            self.levels[winner_team] = min(A, self.levels[winner_team] + upgrade)
            limit = self.rules.a_fail_limit
            if failure is not None:
                self.a_failures[failure] += 1
                if limit is not None and self.a_failures[failure] >= limit:
                    self.levels[failure] = 0
                    self.a_failures[failure] = 0
        self.level_team = winner_team
        self.previous = (result.finish_order, result.double_down)
        self.deal_index += 1
        if not self.over and self.rules.max_deals is not None and self.deal_index >= self.rules.max_deals:
            self.over = True
            self.capped = True
        return MatchUpdate(
            deal_index=self.deal_index - 1,
            levels_before=before,
            levels_after=(self.levels[0], self.levels[1]),
            level_team_before=lt,
            level_team_after=winner_team,
            a_failure=failure,
            match_over=self.over,
            winner=self.winner,
            capped=self.capped,
        )

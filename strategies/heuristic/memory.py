"""Card counting from the public record: what is still unseen by this seat.

``unseen[r]`` counts the cards of rank ``r`` (0..12 naturals without the wilds,
13 = SB, 14 = HR) that are neither played nor in this seat's hand; ``unseen_wild``
the ♥ level cards likewise. The other three hands hold exactly the unseen cards.
"""

from __future__ import annotations

from operator import sub

from guandan_cli.engine.cards import RANK_OF
from guandan_cli.engine.combos import POWER, STRAIGHT_WINDOWS, TUBE_WINDOWS

#: per level and power p, the ranks 0..14 (jokers too) of power above p
_RANKS_ABOVE: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(tuple(r for r in range(15) if POWER[lv][r] > p) for p in range(16)) for lv in range(13)
)


#: per level, the cards of each rank 0..14 in two decks, the two wilds left out
_DECKS = tuple(tuple(6 if r == lv else 8 if r < 13 else 2 for r in range(15)) for lv in range(13))


class Memory:
    __slots__ = (
        "level",
        "wild",
        "played",
        "played_wild",
        "seen_events",
        "last_play",
        "passed_on",
        "top",
        "top_owner",
    )

    def __init__(self, level: int) -> None:
        self.level = level
        self.wild = level * 4 + 1
        self.played = [0] * 15
        self.played_wild = 0
        self.seen_events = 0
        #: last combo each seat played (any trick)
        self.last_play: list = [None, None, None, None]
        #: per seat: the plays it passed on while an opponent of it held the trick
        self.passed_on: list[list] = [[], [], [], []]
        #: the last play seen and its seat (the trick's top when a pass follows)
        self.top: tuple | None = None
        self.top_owner = -1

    def __deepcopy__(self, memo: dict) -> Memory:
        """A copy sharing nothing mutable (written out: the compiled class has no ``__dict__``
        for ``copy`` to walk)."""
        new = Memory(self.level)
        new.played = list(self.played)
        new.played_wild = self.played_wild
        new.seen_events = self.seen_events
        new.last_play = list(self.last_play)
        new.passed_on = [list(p) for p in self.passed_on]
        new.top = self.top
        new.top_owner = self.top_owner
        return new

    def update(self, events) -> None:
        """Count the events after the ``seen_events`` first ones (the state after any split of
        the events into updates is the same)."""
        n = len(events)
        start = self.seen_events
        if start >= n:
            self.seen_events = n
            return
        wild = self.wild
        played = self.played
        played_wild = self.played_wild
        last_play = self.last_play
        passed_on = self.passed_on
        top = self.top
        top_owner = self.top_owner
        for ev in events[start:n]:  # Event(kind, seat, combo, ...)
            kind = ev[0]
            if kind == "play":
                combo = ev[2]
                for f in combo[2]:
                    if f == wild:
                        played_wild += 1
                    else:
                        played[RANK_OF[f]] += 1
                top = last_play[ev[1]] = combo
                top_owner = ev[1]
            elif kind == "pass":
                if top is not None and (top_owner ^ ev[1]) & 1:
                    passed_on[ev[1]].append(top)
        self.played_wild = played_wild
        self.top = top
        self.top_owner = top_owner
        self.seen_events = n

    def unseen(self, hand: tuple[int, ...]) -> tuple[list[int], int]:
        """Unseen counts per rank (15) and unseen wilds, given this seat's hand."""
        wild = self.wild
        un = list(map(sub, _DECKS[self.level], self.played))
        uw = 2 - self.played_wild
        for f in hand:
            if f == wild:
                uw -= 1
            else:
                un[RANK_OF[f]] -= 1
        return un, uw

    @staticmethod
    def higher_exists(t: str, rank: int, size: int, un: list[int], uw: int, lv: int) -> bool:
        """Whether the unseen cards could form a same-type combo beating (t, rank) (bombs aside)."""
        if t == "single":
            p = POWER[lv][rank]
            if uw and 13 > p:
                return True
            for r in _RANKS_ABOVE[lv][p]:
                if un[r]:
                    return True
            return False
        if t == "pair":
            p = POWER[lv][rank]
            for r in _RANKS_ABOVE[lv][p]:
                n = un[r]
                if n >= 2 or (r < 13 and n + uw >= 2 and n >= 1):
                    return True
            return uw >= 2 and 13 > p
        if t in ("triple", "full_house"):
            for r in _RANKS_ABOVE[lv][POWER[lv][rank]]:
                if r < 13 and un[r] and un[r] + uw >= 3:
                    return True
            return False
        if t == "straight":
            for top, ranks in STRAIGHT_WINDOWS:
                if top > rank and sum(1 for r in ranks if not un[r]) <= uw:
                    return True
            return False
        if t == "tube":
            for top, ranks in TUBE_WINDOWS:
                if top > rank and sum(max(0, 2 - un[r]) for r in ranks) <= uw:
                    return True
            return False
        if t == "plate":
            return any(top > rank and min(un[(top - 1) % 13], un[top]) + uw >= 3 for top in range(0, 13))
        return True

"""Weighing worlds by how well they explain the other seats' recent moves, read as the heuristic's.

For a world (the four hands now), the hands each seat held before one of its recent moves
follow from the public record (the cards it played since are added back), and so does
the rest of the position (the trick's top, who was out). A fresh ``HeuristicStrategy``
at that seat and position gives the move the heuristic would have made; a world in which
that move is not the one observed (another declaration, or a play where a pass was seen,
or the reverse) is less likely if the table plays like the heuristic. ``Knowledge.sample``
draws each other seat's hand up to ``tries`` times and keeps the first that explains that
seat's last ``depth`` moves (plays and passes), else the one that explains most: a
rejection step over worlds drawn from ``worlds.Knowledge``; nothing here reads a hidden
card. (Measured: it did not make play stronger, so ``SearchStrategy.explain`` is 0.)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from guandan_cli.strategies.heuristic import HeuristicStrategy
from guandan_cli.strategies.heuristic.plan import combo_signature

from guandan_cli.engine.deal import PASS, PLAY, Deal, DealSetup
from guandan_cli.engine.observation import Observation, observe
from guandan_cli.engine.rules import Ruleset

_PASS_KIND = PASS[0]


@dataclass(frozen=True)
class Move:
    """One observed move to explain: the event's index, the seat, what it did (a play's
    signature, or ``None`` for a pass), the trick's top and owner before it, and per seat the
    cards it played from that move on (added back to a world's hands)."""

    index: int
    seat: int
    signature: tuple | None
    top: object
    top_owner: int
    played_since: tuple[tuple[int, ...], ...]


def recent_moves(obs: Observation, depth: int) -> list[Move]:
    """The last ``depth`` moves (plays and passes on a play to beat) of each seat other than
    ``obs.seat``, most recent first."""
    events = obs.events
    lv = obs.level
    first_play = next((i for i, ev in enumerate(events) if ev[0] == PLAY), len(events))
    picked: list[int] = []
    left = [0 if s == obs.seat else depth for s in range(4)]
    for i in range(len(events) - 1, first_play - 1, -1):
        ev = events[i]
        if left[ev[1]] and (ev[0] == PLAY or ev[0] == _PASS_KIND):
            picked.append(i)
            left[ev[1]] -= 1
            if not any(left):
                break
    if not picked:
        return []
    # the top before each event (a play that leads has none)
    tops: dict[int, tuple[object, int]] = {}
    top, owner = None, -1
    wanted = set(picked)
    for i in range(first_play, picked[0] + 1):
        ev = events[i]
        if ev[0] == PLAY:
            if ev[5]:  # lead
                top, owner = None, -1
            if i in wanted:
                tops[i] = (top, owner)
            top, owner = ev[2], ev[1]
        elif i in wanted:
            tops[i] = (top, owner)
    moves = []
    played = [[], [], [], []]
    j = len(events)
    for i in picked:  # descending: add the plays from i on
        while j > i:
            j -= 1
            ev = events[j]
            if ev[0] == PLAY:
                played[ev[1]].extend(ev[2][2])
        ev = events[i]
        if ev[0] == _PASS_KIND and tops[i][0] is None:
            continue  # (a pass always has a top; kept for safety)
        sig = combo_signature(ev[2], lv) if ev[0] == PLAY else None
        moves.append(Move(i, ev[1], sig, *tops[i], tuple(tuple(p) for p in played)))
    return moves


class Explainer:
    """Counts the recent moves of a seat that a hand fails to explain (module docstring).

    ``explainer.bind(obs, depth)`` gives the ``explain(seat, hand)`` callable that
    ``Knowledge.sample`` takes: only that seat's hand matters (a seat's move depends on its
    own hand and the public record), so each seat's draw is weighed alone.
    """

    def __init__(self, rules: Ruleset) -> None:
        self.rules = rules
        self.players = [HeuristicStrategy(s) for s in range(4)]
        #: moves checked so far
        self.checks = 0

    def bind(self, obs: Observation, depth: int) -> Callable[[int, tuple[int, ...]], int] | None:
        """``explain(seat, hand)`` for the last ``depth`` moves of each other seat at ``obs``
        (``None`` when there is no such move)."""
        moves = recent_moves(obs, depth)
        if not moves:
            return None
        by_seat: list[list[Move]] = [[], [], [], []]
        for m in moves:
            by_seat[m.seat].append(m)

        def explain(seat: int, hand: tuple[int, ...]) -> int:
            return self.mismatches(obs, by_seat[seat], seat, hand, limit=1)

        return explain

    def mismatches(self, obs: Observation, moves: list[Move], seat: int, hand, limit: int = 99) -> int:
        """How many of ``seat``'s ``moves`` the heuristic would not have made holding ``hand``
        now (counting stops at ``limit``)."""
        out = 0
        events = obs.events
        lv = obs.level
        counts = obs.card_counts
        p = self.players[seat]
        for m in moves:
            before = [(0,) * (counts[x] + len(m.played_since[x])) for x in range(4)]
            before[seat] = tuple(sorted(hand + m.played_since[seat]))
            setup = DealSetup(
                hands=tuple(before), level=lv, levels=obs.levels, level_team=obs.level_team, rules=self.rules
            )
            deal = Deal.from_position(
                setup,
                events[: m.index],
                to_move=seat,
                finished=_finish_order(events, m.index, before),
                top=m.top,
                top_owner=m.top_owner,
                tribute_kind=obs.tribute_kind,
                check=False,
            )
            o = observe(deal, seat)
            p.start_deal(0, o)
            a = p.choose_play(o)
            self.checks += 1
            seen = None if a[0] == _PASS_KIND else combo_signature(a, lv)
            if seen != m.signature:
                out += 1
                if out >= limit:
                    break
        return out


def _finish_order(events, upto: int, hands) -> list[int]:
    """The seats out before event ``upto`` (empty hands), in the order of their last plays."""
    out = [s for s in range(4) if not hands[s]]
    if len(out) < 2:
        return out
    last = {}
    for i in range(upto):
        ev = events[i]
        if ev[0] == PLAY and ev[1] in out:
            last[ev[1]] = i
    return sorted(out, key=lambda s: last.get(s, -1))

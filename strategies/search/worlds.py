"""Determinization: the other hands drawn consistently with what one seat has seen.

``Knowledge.of(obs)`` reads an ``Observation`` only (own hand, card counts, the public
events) and keeps what it implies about the hidden cards (rules.md §10–11):

- the *unseen* cards: two decks less the seat's own hand and every card played;
- the cards *known* to be in a hand: a tribute or return card received, until its
  receiver has given or played a card of that face (two decks: a face played may be the
  other copy, so the record only proves the received one while none has left);
- the *tribute cap*: a payer paid its highest card by power (♥ level cards excluded),
  so every card of its dealt hand that it still holds is no higher (or is a ♥ level card).

A world (``Knowledge.sample(rng)``) gives each other seat its known cards and a uniform
random draw of the rest of the unseen cards, of the size its card count says, among the
cards its cap allows. Capped seats draw first, the tightest cap first, so the draw is
uniform over every assignment the record allows (the allowed sets are nested).
Passes prove nothing (a pass is always voluntary) and are not used.

>>> import random
>>> from guandan_cli.engine import deal_hands
>>> from guandan_cli.engine.deal import Deal, DealSetup
>>> from guandan_cli.engine.observation import observe
>>> d = Deal(DealSetup(hands=deal_hands(random.Random(1)), level=0, first_leader=0))
>>> _ = d.apply_unchecked(d.legal_actions()[0])
>>> k = Knowledge.of(observe(d, 1))
>>> len(k.pool), k.need
(80, (26, 0, 27, 27))
>>> hands = k.sample(random.Random(2))
>>> [len(h) for h in hands], hands[1] == tuple(d.hands[1])
([26, 27, 27, 27], True)
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from guandan_cli.engine.cards import RANK_OF
from guandan_cli.engine.combos import POWER
from guandan_cli.engine.deal import PLAY, RETURN, TRIBUTE
from guandan_cli.engine.observation import Observation

#: the power above every card's (no cap)
NO_CAP = 99


@dataclass(frozen=True)
class Knowledge:
    """What one seat knows of the hands it cannot see (module docstring).

    ``hand``: its own hand; ``known``: per seat, the cards known to be there (its own seat:
    empty); ``pool``: the other unseen cards (sorted); ``need``: per seat, how many pool
    cards it holds; ``caps``: per seat, the highest power its pool cards may have
    (``NO_CAP`` when unbounded; a ♥ level card is always allowed).
    """

    seat: int
    level: int
    hand: tuple[int, ...]
    known: tuple[tuple[int, ...], ...]
    pool: tuple[int, ...]
    need: tuple[int, ...]
    caps: tuple[int, ...]

    @classmethod
    def of(cls, obs: Observation, use_caps: bool = True) -> Knowledge:
        """What ``obs`` shows of the hidden hands (``use_caps``: apply the tribute caps)."""
        seat, lv = obs.seat, obs.level
        pw = POWER[lv]
        remaining = [2] * 54
        for f in obs.hand:
            remaining[f] -= 1
        known: list[list[int]] = [[], [], [], []]
        caps = [NO_CAP] * 4
        for ev in obs.events:
            kind = ev[0]
            if kind == PLAY:
                held = known[ev[1]]
                for f in ev[2][2]:
                    remaining[f] -= 1
                    if f in held:
                        held.remove(f)
            elif kind == TRIBUTE or kind == RETURN:
                giver, card = ev[1], ev[3]
                if card in known[giver]:
                    known[giver].remove(card)
                known[ev[4]].append(card)
                if kind == TRIBUTE and use_caps:
                    caps[giver] = min(caps[giver], pw[RANK_OF[card]])
        known[seat] = []
        caps[seat] = NO_CAP
        for s in range(4):
            for f in known[s]:
                remaining[f] -= 1
        pool = tuple(f for f in range(54) for _ in range(max(0, remaining[f])))
        need = tuple(0 if s == seat else obs.card_counts[s] - len(known[s]) for s in range(4))
        knowledge = cls(seat, lv, tuple(obs.hand), tuple(map(tuple, known)), pool, need, tuple(caps))
        # (an end-game study deals fewer than 108 cards: then the pool holds more than the hands)
        if min(need) < 0 or sum(need) > len(pool) or (use_caps and not knowledge._caps_feasible()):
            if use_caps:
                return cls.of(obs, use_caps=False)
            raise ValueError(f"seat {seat}'s observation is inconsistent: counts {obs.card_counts}")
        return knowledge

    def _allowed(self, s: int) -> list[int]:
        """The pool cards seat ``s``'s cap allows."""
        cap = self.caps[s]
        if cap >= NO_CAP:
            return list(self.pool)
        pw = POWER[self.level]
        wild = self.level * 4 + 1
        return [f for f in self.pool if f == wild or pw[RANK_OF[f]] <= cap]

    def _capped_order(self) -> list[int]:
        """The other seats with a cap, tightest first."""
        return sorted(
            (s for s in range(4) if s != self.seat and self.caps[s] < NO_CAP), key=self.caps.__getitem__
        )

    def _caps_feasible(self) -> bool:
        """Whether some assignment meets the caps (nested sets: each prefix of seats fits)."""
        taken = 0
        for s in self._capped_order():
            taken += self.need[s]
            if len(self._allowed(s)) < taken:
                return False
        return True

    def sample(
        self,
        rng: random.Random,
        explain: Callable[[int, tuple[int, ...]], int] | None = None,
        tries: int = 8,
    ) -> tuple[tuple[int, ...], ...]:
        """One world: the four hands (sorted), the own hand as it is (module docstring).

        With ``explain(seat, hand)`` (how many of that seat's observed moves ``hand`` fails
        to explain, ``inference.py``), each seat's draw is tried up to ``tries`` times and the
        first hand that explains everything is kept (else the one that explains most); the
        last seat, which takes the cards left, is explained with the seat drawn before it.
        """
        hands: list[list[int]] = [list(k) for k in self.known]
        hands[self.seat] = list(self.hand)
        order = self._draw_order()
        pool = list(self.pool)
        if not order:
            return tuple(tuple(sorted(h)) for h in hands)
        *drawn, last = order
        for i, s in enumerate(drawn):
            final = i == len(drawn) - 1
            best: tuple[int, list[int], list[int]] | None = None
            for _ in range(tries if explain is not None else 1):
                take, rest = self._draw(s, pool, rng)
                if explain is None:
                    best = (0, take, rest)
                    break
                miss = explain(s, tuple(sorted(self.known[s] + tuple(take))))
                if final and miss == 0:  # the last seat's hand is what is left
                    miss = explain(last, tuple(sorted(self.known[last] + tuple(rest))))
                if best is None or miss < best[0]:
                    best = (miss, take, rest)
                if miss == 0:
                    break
            assert best is not None
            hands[s].extend(best[1])
            pool = best[2]
        hands[last].extend(pool if len(pool) == self.need[last] else rng.sample(pool, self.need[last]))
        return tuple(tuple(sorted(h)) for h in hands)

    def _draw_order(self) -> list[int]:
        """The other seats holding pool cards, in drawing order: capped seats first (the
        tightest cap first), the seat taking the cards left last (uncapped if one is)."""
        capped = [s for s in self._capped_order() if self.need[s]]
        free = [s for s in range(4) if s != self.seat and self.need[s] and s not in capped]
        return capped + free

    def _draw(self, s: int, pool: list[int], rng: random.Random) -> tuple[list[int], list[int]]:
        """Seat ``s``'s pool cards drawn uniformly among those its cap allows, and the rest."""
        cap = self.caps[s]
        n = self.need[s]
        if cap >= NO_CAP:
            idx = rng.sample(range(len(pool)), n)
        else:
            pw = POWER[self.level]
            wild = self.level * 4 + 1
            allowed = [i for i, f in enumerate(pool) if f == wild or pw[RANK_OF[f]] <= cap]
            idx = rng.sample(allowed, n)
        chosen = set(idx)
        return [pool[i] for i in idx], [f for i, f in enumerate(pool) if i not in chosen]

    @property
    def determined(self) -> bool:
        """Whether only one world is possible (every hidden card's seat is known)."""
        free = [s for s in range(4) if self.need[s] > 0]
        return len(set(self.pool)) <= 1 or len(free) <= 1 and sum(self.need) == len(self.pool)

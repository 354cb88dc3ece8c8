"""Fixed-size NumPy encodings of a seat's observation and of a candidate action.

An ``Encoding`` turns an engine ``Observation`` (the seat's own hand and the public
record, nothing else) into a ``state`` vector, and an engine action (a ``Combo``,
``PASS``, or a tribute/return card) into an ``action`` vector. A model scoring a
candidate reads ``concat(state, action)``. Two encodings are registered:

- ``guandan``: this project's layout (825 + 81 values),
  segment by segment in ``GUANDAN_STATE_LAYOUT`` and docs/env.md;
- ``danzero``: the layout the public DanZero agents were trained with (513 + 54),
  after their published feature code (see docs/env.md for its segments and where
  this rebuild departs from their turn-sequence bookkeeping).

Only the ``Observation`` is read, so an encoding cannot see another seat's cards.

>>> import random
>>> from guandan_cli.engine import deal_hands
>>> from guandan_cli.engine.deal import Deal, DealSetup
>>> from guandan_cli.engine.observation import observe
>>> d = Deal(DealSetup(hands=deal_hands(random.Random(1)), level=0, first_leader=0))
>>> enc = get_encoding("danzero")
>>> enc.state(observe(d, 0)).shape, enc.action(d.legal_actions()[0], 0).shape
((513,), (54,))
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from guandan_cli.engine.cards import RANK_OF
from guandan_cli.engine.combos import COMBO_TYPES, Combo
from guandan_cli.engine.deal import RETURN, TRIBUTE
from guandan_cli.engine.observation import Observation

_F32 = np.float32

# ----------------------------------------------------------------------------- shared helpers


def _counts(faces: Sequence[int]) -> np.ndarray:
    """Counts of each face 0..53."""
    if not faces:
        return np.zeros(54, dtype=_F32)
    return np.bincount(faces, minlength=54).astype(_F32)


def _one_hot(index: int, size: int) -> np.ndarray:
    v = np.zeros(size, dtype=_F32)
    if 0 <= index < size:
        v[index] = 1.0
    return v


class _PlayRecord:
    """What the play-phase events say, per seat: cards played, last move, the trick so far."""

    __slots__ = ("played", "last", "trick", "any_play_event")

    def __init__(self, obs: Observation) -> None:
        played: list[list[int]] = [[], [], [], []]
        last: list[tuple[int, ...] | None] = [None, None, None, None]  # () for a pass
        trick_start = 0
        events = obs.events
        any_play = False
        for i, ev in enumerate(events):
            kind = ev.kind
            if kind == "play":
                cards = ev.combo[2]
                played[ev.seat].extend(cards)
                last[ev.seat] = cards
                any_play = True
                if ev.lead:
                    trick_start = i
            elif kind == "pass":
                last[ev.seat] = ()
                any_play = True
        self.played = played
        self.last = last
        self.any_play_event = any_play
        #: per seat, its latest move in the current trick: cards, () for a pass, None if none
        trick: list[tuple[int, ...] | None] = [None, None, None, None]
        if obs.top is not None:
            for ev in events[trick_start:]:
                if ev.kind == "play":
                    trick[ev.seat] = ev.combo[2]
                elif ev.kind == "pass":
                    trick[ev.seat] = ()
        self.trick = trick


@dataclass(frozen=True)
class Encoding:
    """A named pair of encoders with fixed output sizes.

    ``state(obs)`` → ``float32[state_size]``; ``action(a, level)`` →
    ``float32[action_size]``; ``actions(list, level)`` stacks candidates;
    ``decides_cards``: whether tribute/return cards have a meaningful action vector.
    """

    name: str
    state_size: int
    action_size: int
    state: Callable[[Observation], np.ndarray]
    action: Callable[[Combo | int, int], np.ndarray]
    decides_cards: bool

    def actions(self, actions: Sequence[Combo | int], level: int) -> np.ndarray:
        if not actions:
            return np.zeros((0, self.action_size), dtype=_F32)
        return np.stack([self.action(a, level) for a in actions])

    def batch(self, obs: Observation, actions: Sequence[Combo | int]) -> np.ndarray:
        """``[len(actions), state_size + action_size]``: the state beside each candidate."""
        state = self.state(obs)
        acts = self.actions(actions, obs.level)
        return np.hstack((np.broadcast_to(state, (len(acts), self.state_size)), acts)).astype(
            _F32, copy=False
        )


# ----------------------------------------------------------------------------- guandan layout

#: (segment name, size), in order: the state vector of the ``guandan`` encoding
GUANDAN_STATE_LAYOUT: tuple[tuple[str, int], ...] = (
    ("hand", 54),
    ("wilds_held", 3),
    ("unseen", 54),
    ("played_self", 54),
    ("played_next", 54),
    ("played_partner", 54),
    ("played_prev", 54),
    ("trick_self", 57),
    ("trick_next", 57),
    ("trick_partner", 57),
    ("trick_prev", 57),
    ("top_cards", 54),
    ("top_type", 10),
    ("top_key", 15),
    ("top_owner", 4),
    ("cards_left_self", 29),
    ("cards_left_next", 29),
    ("cards_left_partner", 29),
    ("cards_left_prev", 29),
    ("finish_place", 16),
    ("deal_level", 13),
    ("own_level", 14),
    ("opp_level", 14),
    ("level_team", 3),
    ("phase", 3),
    ("return_to", 4),
    ("tribute_kind", 4),
)
#: (segment name, size), in order: the action vector of the ``guandan`` encoding
GUANDAN_ACTION_LAYOUT: tuple[tuple[str, int], ...] = (
    ("cards", 54),
    ("kind", 12),
    ("key", 15),
)
GUANDAN_STATE_SIZE = sum(n for _, n in GUANDAN_STATE_LAYOUT)
GUANDAN_ACTION_SIZE = sum(n for _, n in GUANDAN_ACTION_LAYOUT)
_TYPE_INDEX = {t: i for i, t in enumerate(COMBO_TYPES)}
_TRIBUTE_KINDS = {"none": 0, "single": 1, "double": 2, "resisted": 3}


def _trick_segment(move: tuple[int, ...] | None) -> np.ndarray:
    seg = np.zeros(57, dtype=_F32)
    if move is None:
        seg[56] = 1.0
    elif not move:
        seg[55] = 1.0
    else:
        seg[:54] = _counts(move)
        seg[54] = 1.0
    return seg


def guandan_state(obs: Observation) -> np.ndarray:
    """The ``guandan`` state vector of a seat (layout ``GUANDAN_STATE_LAYOUT``)."""
    seat = obs.seat
    rel = [(seat + k) & 3 for k in range(4)]  # self, next (下家), partner, previous (上家)
    rec = _PlayRecord(obs)
    hand = _counts(obs.hand)
    wild = obs.level * 4 + 1
    all_played = [f for p in rec.played for f in p]
    unseen = 2.0 - hand - _counts(all_played)
    parts = [hand, _one_hot(obs.hand.count(wild), 3), unseen]
    parts += [_counts(rec.played[s]) for s in rel]
    parts += [_trick_segment(rec.trick[s]) for s in rel]
    top = obs.top
    if top is None:
        parts += [np.zeros(54 + 10 + 15 + 4, dtype=_F32)]
    else:
        parts += [
            _counts(top[2]),
            _one_hot(_TYPE_INDEX[top[0]], 10),
            _one_hot(top[1], 15),
            _one_hot((obs.top_owner - seat) & 3, 4),
        ]
    parts += [_one_hot(min(obs.card_counts[s], 28), 29) for s in rel]
    place = np.zeros(16, dtype=_F32)
    for k, s in enumerate(rel):
        place[4 * k + (obs.finished.index(s) + 1 if s in obs.finished else 0)] = 1.0
    parts.append(place)
    team = seat & 1
    lt = obs.level_team
    parts += [
        _one_hot(obs.level, 13),
        _one_hot(obs.levels[team], 14),
        _one_hot(obs.levels[team ^ 1], 14),
        _one_hot(2 if lt is None else (0 if lt == team else 1), 3),
        _one_hot({TRIBUTE: 0, RETURN: 1}.get(obs.phase, 2), 3),
        _one_hot((obs.return_to - seat) & 3 if obs.return_to >= 0 else -1, 4),
        _one_hot(_TRIBUTE_KINDS.get(obs.tribute_kind, 0), 4),
    ]
    return np.concatenate(parts)


def guandan_action(action: Combo | int, level: int) -> np.ndarray:
    """The ``guandan`` action vector: cards, kind (pass, 10 types, card), key rank."""
    v = np.zeros(GUANDAN_ACTION_SIZE, dtype=_F32)
    if type(action) is int:
        v[action] = 1.0
        v[54 + 11] = 1.0
        v[66 + RANK_OF[action]] = 1.0
        return v
    t, r, cards = action
    if t == "pass":
        v[54] = 1.0
        return v
    for f in cards:
        v[f] += 1.0
    v[55 + _TYPE_INDEX[t]] = 1.0
    v[66 + r] = 1.0
    return v


# ----------------------------------------------------------------------------- DanZero layout

#: our face -> DanZero's card index (rank-major, suits in the order H S C D; jokers 52, 53)
DANZERO_CARD = tuple([(f & ~3) | (1, 0, 2, 3)[f & 3] for f in range(52)] + [52, 53])
_DZ = np.array(DANZERO_CARD)

DANZERO_STATE_LAYOUT: tuple[tuple[str, int], ...] = (
    ("my_handcards", 54),
    ("universal_card_flag", 12),
    ("other_handcards", 54),
    ("last_action", 54),
    ("last_teammate_action", 54),
    ("down_played_cards", 54),
    ("teammate_played_cards", 54),
    ("up_played_cards", 54),
    ("down_num_cards_left", 28),
    ("teammate_num_cards_left", 28),
    ("up_num_cards_left", 28),
    ("self_rank", 13),
    ("oppo_rank", 13),
    ("cur_rank", 13),
)
DANZERO_ACTION_LAYOUT: tuple[tuple[str, int], ...] = (("action_cards", 54),)
DANZERO_STATE_SIZE = sum(n for _, n in DANZERO_STATE_LAYOUT)


def _dz_counts(faces: Sequence[int]) -> np.ndarray:
    if not faces:
        return np.zeros(54, dtype=_F32)
    return np.bincount(_DZ[list(faces)], minlength=54).astype(_F32)


def danzero_universal_flags(hand: np.ndarray, level: int) -> np.ndarray:
    """DanZero's 12 flags about the ♥ level cards (``hand``: DanZero-ordered counts).

    Rebuilt rule by rule from their ``proc_universal`` (its quirks kept, since their
    models were trained on them): all zero without a ♥ level card; [1] a suit with a
    5-rank window (windows starting at 2..9) missing at most one card; [2:8] a
    thermometer of the most suits held in one rank; [8] the run of held ranks ending
    at A is 4 long or more; [9] adjacent ranks with 2 and ≥3 suits; [10] three
    adjacent ranks fillable to pairs with one card; [11] adjacent ranks with 2 suits each.
    """
    res = np.zeros(12, dtype=_F32)
    wild = level * 4  # ♥ is DanZero's suit 0
    if hand[wild] == 0:
        return res
    res[0] = 1
    held = [0 if i == wild else hand[i] for i in range(52)]
    for s in range(4):
        if any(sum(1 for j in range(start, start + 5) if held[s + 4 * j] == 0) <= 1 for start in range(8)):
            res[1] = 1
            break
    num = [sum(1 for s in range(4) if held[s + 4 * j] != 0) for j in range(13)]
    top = max(num)
    res[max(2, 8 - top) if top >= 2 else 7 : 8] = 1
    run = 0
    for i in range(13):
        if num[i] != 0:
            run += 1
            if i >= 1:
                if (num[i] == 2 and num[i - 1] >= 3) or (num[i] >= 3 and num[i - 1] == 2):
                    res[9] = 1
                elif num[i] == 2 and num[i - 1] == 2:
                    res[11] = 1
            if i >= 2:
                a, b, c = num[i - 2], num[i - 1], num[i]
                if (
                    (a == 1 and b >= 2 and c >= 2)
                    or (a >= 2 and b == 1 and c >= 2)
                    or (a >= 2 and b >= 2 and c == 1)
                ):
                    res[10] = 1
        else:
            run = 0
    if run >= 4:
        res[8] = 1
    return res


def danzero_state(obs: Observation) -> np.ndarray:
    """The 513-value DanZero state of a seat (layout ``DANZERO_STATE_LAYOUT``)."""
    seat = obs.seat
    down, mate, up = (seat + 1) & 3, (seat + 2) & 3, (seat + 3) & 3
    rec = _PlayRecord(obs)
    hand = _dz_counts(obs.hand)
    all_played = [f for p in rec.played for f in p]
    other = 2.0 - hand - _dz_counts(all_played)
    minus = -np.ones(54, dtype=_F32)
    # the latest move in turn order: none yet, or the 上家 is out → DanZero's [-1] marker
    if not rec.any_play_event or up in obs.finished:
        last = minus
    else:
        ev = next(e for e in reversed(obs.events) if e.kind in ("play", "pass"))
        last = _dz_counts(ev.combo[2]) if ev.kind == "play" else np.zeros(54, dtype=_F32)
    mate_last = rec.last[mate]
    last_mate = minus if mate_last is None or mate in obs.finished else _dz_counts(mate_last)
    team = seat & 1
    counts = obs.card_counts
    return np.concatenate(
        (
            hand,
            danzero_universal_flags(hand, obs.level),
            other,
            last,
            last_mate,
            _dz_counts(rec.played[down]),
            _dz_counts(rec.played[mate]),
            _dz_counts(rec.played[up]),
            _one_hot(min(counts[down], 27), 28),
            _one_hot(min(counts[mate], 27), 28),
            _one_hot(min(counts[up], 27), 28),
            _one_hot(min(obs.levels[team], 12), 13),
            _one_hot(min(obs.levels[team ^ 1], 12), 13),
            _one_hot(obs.level, 13),
        )
    )


def danzero_action(action: Combo | int, level: int) -> np.ndarray:
    """DanZero's 54-value action: the counts of the cards played (zeros for a pass)."""
    if type(action) is int:
        return _dz_counts((action,))
    return _dz_counts(action[2])


# ----------------------------------------------------------------------------- registry

ENCODINGS: dict[str, Encoding] = {
    "guandan": Encoding(
        "guandan", GUANDAN_STATE_SIZE, GUANDAN_ACTION_SIZE, guandan_state, guandan_action, True
    ),
    "danzero": Encoding("danzero", DANZERO_STATE_SIZE, 54, danzero_state, danzero_action, False),
}


def get_encoding(name: str) -> Encoding:
    """The encoding registered under ``name`` (a ``ValueError`` naming the choices otherwise)."""
    try:
        return ENCODINGS[name]
    except KeyError:
        raise ValueError(f"unknown encoding {name!r}: available are {', '.join(sorted(ENCODINGS))}") from None

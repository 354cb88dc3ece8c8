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
from functools import lru_cache

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
    """What a deal's public events say, per seat: cards played, last move, the current trick.

    Built from ``obs.events`` alone and brought up to date incrementally: observations of
    one deal share their events' prefix, so only the events new since the last call are
    read (``_record`` keeps a few deals' records, checked by event identity).
    """

    __slots__ = ("first", "n", "last_event", "played", "last", "trick", "trick_counts", "latest")

    def __init__(self, first) -> None:
        self.first = first
        self.n = 0
        self.last_event = None
        self.played = np.zeros((4, 54), dtype=_F32)
        self.last: list[tuple[int, ...] | None] = [None, None, None, None]  # () for a pass
        self.trick: list[tuple[int, ...] | None] = [None, None, None, None]
        self.trick_counts = np.zeros((4, 54), dtype=_F32)
        self.latest = None  # the latest play or pass event

    def update(self, events: tuple) -> None:
        played, last, trick, trick_counts = self.played, self.last, self.trick, self.trick_counts
        for ev in events[self.n :]:
            kind = ev.kind
            if kind == "play":
                seat = ev.seat
                cards = ev.combo[2]
                if ev.lead:
                    trick[:] = [None, None, None, None]
                    trick_counts[:] = 0.0
                row = trick_counts[seat]
                row[:] = 0.0
                for f in cards:
                    played[seat, f] += 1.0
                    row[f] += 1.0
                last[seat] = cards
                trick[seat] = cards
                self.latest = ev
            elif kind == "pass":
                last[ev.seat] = ()
                trick[ev.seat] = ()
                self.latest = ev
        self.n = len(events)
        self.last_event = events[-1] if events else None


_RECORDS: dict[int, _PlayRecord] = {}
_EMPTY_RECORD = _PlayRecord(None)


def _record(obs: Observation) -> _PlayRecord:
    """The up-to-date play record of the observation's deal (see ``_PlayRecord``)."""
    events = obs.events
    if not events:
        return _EMPTY_RECORD
    first = events[0]
    rec = _RECORDS.get(id(first))
    if (
        rec is None
        or rec.first is not first
        or rec.n > len(events)
        or (rec.n and events[rec.n - 1] is not rec.last_event)
    ):
        if len(_RECORDS) >= 16:
            _RECORDS.pop(next(iter(_RECORDS)))
        rec = _RECORDS[id(first)] = _PlayRecord(first)
    if rec.n != len(events):
        rec.update(events)
    return rec


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


def _offsets(layout: tuple[tuple[str, int], ...]) -> dict[str, int]:
    out, off = {}, 0
    for name, size in layout:
        out[name] = off
        off += size
    return out


_G = _offsets(GUANDAN_STATE_LAYOUT)


def guandan_state(obs: Observation) -> np.ndarray:
    """The ``guandan`` state vector of a seat (layout ``GUANDAN_STATE_LAYOUT``)."""
    seat = obs.seat
    rel = [
        seat,
        (seat + 1) & 3,
        (seat + 2) & 3,
        (seat + 3) & 3,
    ]  # self, next (下家), partner, previous (上家)
    rec = _record(obs)
    out = np.zeros(GUANDAN_STATE_SIZE, dtype=_F32)
    hand = obs.hand
    counts = np.bincount(hand, minlength=54) if hand else np.zeros(54)
    out[0:54] = counts
    out[54 + min(hand.count(obs.level * 4 + 1), 2)] = 1.0
    out[57:111] = 2.0 - counts - rec.played.sum(axis=0)
    out[111:327] = rec.played[rel].ravel()
    top = obs.top
    if top is None:
        for k in range(4):
            out[327 + 57 * k + 56] = 1.0
    else:
        trick = rec.trick
        for k, s in enumerate(rel):
            o = 327 + 57 * k
            move = trick[s]
            if move is None:
                out[o + 56] = 1.0
            elif not move:
                out[o + 55] = 1.0
            else:
                out[o : o + 54] = rec.trick_counts[s]
                out[o + 54] = 1.0
        o = _G["top_cards"]
        for f in top[2]:
            out[o + f] += 1.0
        out[_G["top_type"] + _TYPE_INDEX[top[0]]] = 1.0
        out[_G["top_key"] + top[1]] = 1.0
        out[_G["top_owner"] + ((obs.top_owner - seat) & 3)] = 1.0
    cc = obs.card_counts
    o = _G["cards_left_self"]
    for k, s in enumerate(rel):
        out[o + 29 * k + min(cc[s], 28)] = 1.0
    finished = obs.finished
    o = _G["finish_place"]
    for k, s in enumerate(rel):
        out[o + 4 * k + (finished.index(s) + 1 if s in finished else 0)] = 1.0
    team = seat & 1
    lt = obs.level_team
    out[_G["deal_level"] + obs.level] = 1.0
    out[_G["own_level"] + obs.levels[team]] = 1.0
    out[_G["opp_level"] + obs.levels[team ^ 1]] = 1.0
    out[_G["level_team"] + (2 if lt is None else (0 if lt == team else 1))] = 1.0
    out[_G["phase"] + {TRIBUTE: 0, RETURN: 1}.get(obs.phase, 2)] = 1.0
    if obs.return_to >= 0:
        out[_G["return_to"] + ((obs.return_to - seat) & 3)] = 1.0
    out[_G["tribute_kind"] + _TRIBUTE_KINDS.get(obs.tribute_kind, 0)] = 1.0
    return out


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
    v = np.zeros(54, dtype=_F32)
    for f in faces:
        v[DANZERO_CARD[f]] += 1.0
    return v


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


_D = _offsets(DANZERO_STATE_LAYOUT)


@lru_cache(maxsize=4096)
def _universal_cached(hand: tuple[int, ...], level: int) -> np.ndarray:
    return danzero_universal_flags(_dz_counts(hand), level)


def danzero_state(obs: Observation) -> np.ndarray:
    """The 513-value DanZero state of a seat (layout ``DANZERO_STATE_LAYOUT``)."""
    seat = obs.seat
    down, mate, up = (seat + 1) & 3, (seat + 2) & 3, (seat + 3) & 3
    rec = _record(obs)
    out = np.empty(DANZERO_STATE_SIZE, dtype=_F32)
    hand = obs.hand
    counts = np.bincount(hand, minlength=54).astype(_F32) if hand else np.zeros(54, dtype=_F32)
    dz_hand = counts[_DZ]  # DANZERO_CARD is its own inverse (it swaps ♠ and ♥)
    out[0:54] = dz_hand
    out[54:66] = _universal_cached(hand, obs.level) if (obs.level * 4 + 1) in hand else 0.0
    played = rec.played[:, _DZ]
    out[66:120] = 2.0 - dz_hand - played.sum(axis=0)
    # the latest move in turn order: none yet, or the 上家 is out → DanZero's [-1] marker
    latest = rec.latest
    if latest is None or up in obs.finished:
        out[120:174] = -1.0
    elif latest.kind == "play":
        out[120:174] = _dz_counts(latest.combo[2])
    else:
        out[120:174] = 0.0
    mate_last = rec.last[mate]
    if mate_last is None or mate in obs.finished:
        out[174:228] = -1.0
    else:
        out[174:228] = _dz_counts(mate_last)
    out[228:282] = played[down]
    out[282:336] = played[mate]
    out[336:390] = played[up]
    out[390:513] = 0.0
    cc = obs.card_counts
    out[390 + min(cc[down], 27)] = 1.0
    out[418 + min(cc[mate], 27)] = 1.0
    out[446 + min(cc[up], 27)] = 1.0
    team = seat & 1
    out[474 + min(obs.levels[team], 12)] = 1.0
    out[487 + min(obs.levels[team ^ 1], 12)] = 1.0
    out[500 + obs.level] = 1.0
    return out


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

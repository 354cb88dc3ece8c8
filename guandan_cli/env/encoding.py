"""Fixed-size NumPy encodings of a seat's observation and of a candidate action.

An ``Encoding`` turns an engine ``Observation`` (the seat's own hand and the public
record, nothing else) into a ``state`` vector, and an engine action (a ``Combo``,
``PASS``, or a tribute/return card) into an ``action`` vector. A model scoring a
candidate reads ``concat(state, action)``. Three encodings are registered:

- ``guandan``: this project's layout (825 + 81 values),
  segment by segment in ``GUANDAN_STATE_LAYOUT`` and docs/env.md;
- ``danzero``: the layout the public DanZero agents were trained with (513 + 54),
  after their published feature code, cards in its rank-major order (see docs/env.md
  for its segments and how its turn-sequence bookkeeping is rebuilt);
- ``danzero-danlm``: the same features with every 54-card vector in the suit-major order
  that the DanZero checkpoints published by DanLM read (``DANLM_CARD``).

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


#: DanZero's card index of each of our faces (see the ``danzero`` section below)
DANZERO_CARD = tuple([(f & ~3) | (1, 0, 2, 3)[f & 3] for f in range(52)] + [52, 53])
_NOT_YET = bytes(56) + b"\x01"  # a trick segment: no move yet
_PASSED = bytes(55) + b"\x01\x00"


#: ``_ONE[f]``: an int whose byte ``f`` is 1 (little-endian), so a sum of them is a byte-count vector
_ONE = tuple(1 << (8 * f) for f in range(54))
_ZEROS54 = bytes(54)
_TWO_EACH = int.from_bytes(b"\x02" * 54, "little")
# DanZero's order swaps our suits 0 and 1 within each rank (``DANZERO_CARD``): byte masks for it
_SUIT0 = int.from_bytes(bytes(255 if f < 52 and f % 4 == 0 else 0 for f in range(54)), "little")
_SUIT1 = _SUIT0 << 8
_OTHER_SUITS = int.from_bytes(b"\xff" * 54, "little") ^ _SUIT0 ^ _SUIT1


def _count_int(faces: Sequence[int]) -> int:
    """The face counts of ``faces`` as one int, a byte per face (every count is below 256)."""
    return sum(map(_ONE.__getitem__, faces))


def _to_danzero(counts: int) -> int:
    """Byte-per-face counts in our face order → in DanZero's card order."""
    return (counts & _OTHER_SUITS) | ((counts & _SUIT0) << 8) | ((counts & _SUIT1) >> 8)


def _int_bytes(value: int) -> bytes:
    return value.to_bytes(54, "little")


class _PlayRecord:
    """What a deal's public events say, per seat: cards played, last move, the current trick.

    Built from ``obs.events`` alone and brought up to date incrementally: observations of
    one deal share their events' prefix, so only the events new since the last call are
    read (``_record`` keeps a few deals' records, checked by event identity). Card counts
    are ints with a byte per face (see ``_ONE``: adding a play or subtracting a hand is one
    integer operation; ``_to_danzero`` reorders them). The segments joined for one observing
    seat are cached per seat until an event changes them.
    """

    __slots__ = (
        "first",
        "n",
        "last_event",
        "played",
        "left",
        "last",
        "trick",
        "latest",
        "played_rel",
        "trick_rel",
        "played_dz_rel",
        "top",
        "top_base",
        "hands",
        "hands_dz",
        "dz",
        "left_dz",
        "played_dz",
        "last_dz",
    )

    def __init__(self, first) -> None:
        self.first = first
        self.n = 0
        self.last_event = None
        self.played = [0, 0, 0, 0]  # per seat: the counts of every card it played
        self.left = _TWO_EACH  # 2 − every card played, per face
        self.last: list[int | None] = [None, None, None, None]  # a seat's last move; 0 for a pass
        self.trick: list[bytes] = [_NOT_YET] * 4  # per seat: 54 counts + played/passed/not yet
        self.latest = None  # the latest play or pass event
        self.played_rel: list[bytes | None] = [None] * 4  # per observing seat, until the next play
        self.played_dz_rel: list[bytes | None] = [None] * 4
        self.trick_rel: list[bytes | None] = [None] * 4  # per observing seat, until the next play or pass
        self.top = None  # the top combo whose 79 owner-free bytes are top_base
        self.top_base = b""
        self.hands: list[tuple | None] = [None] * 4  # per observing seat: (hand, its count int, its bytes)
        self.hands_dz: list[tuple | None] = [None] * 4
        self.dz = False  # whether the DanZero-ordered counts below are kept (from the first use on)
        self.left_dz = 0
        self.played_dz = [0, 0, 0, 0]
        self.last_dz: list[bytes | None] = [None, None, None, None]

    def keep_danzero(self) -> None:
        """Keep DanZero-ordered counts too, from now on (only a ``danzero`` state reads them)."""
        if not self.dz:
            self.left_dz = _to_danzero(self.left)
            self.played_dz = [_to_danzero(p) for p in self.played]
            self.last_dz = [None if x is None else _int_bytes(_to_danzero(x)) for x in self.last]
            self.dz = True

    def update(self, events: tuple) -> None:
        played, trick, last = self.played, self.trick, self.last
        one = _ONE
        for ev in events[self.n :]:
            kind = ev.kind
            if kind == "play":
                seat = ev.seat
                if ev.lead:
                    trick[:] = [_NOT_YET] * 4
                counts = sum(map(one.__getitem__, ev.combo[2]))
                self.left -= counts
                played[seat] += counts
                last[seat] = counts
                trick[seat] = counts.to_bytes(54, "little") + b"\x01\x00\x00"
                if self.dz:
                    counts = _to_danzero(counts)
                    self.left_dz -= counts
                    self.played_dz[seat] += counts
                    self.last_dz[seat] = counts.to_bytes(54, "little")
                self.latest = ev
                self.played_rel = [None] * 4
                self.played_dz_rel = [None] * 4
                self.trick_rel = [None] * 4
            elif kind == "pass":
                trick[ev.seat] = _PASSED
                last[ev.seat] = 0
                if self.dz:
                    self.last_dz[ev.seat] = _ZEROS54
                self.latest = ev
                self.trick_rel = [None] * 4
        self.n = len(events)
        self.last_event = events[-1] if events else None

    def hand_counts(self, seat: int, hand: tuple, dz: bool = False) -> tuple[int, bytes]:
        """A seat's hand counts (in DanZero's card order if ``dz``) as an int and as bytes,
        kept while the hand is unchanged."""
        cache = self.hands_dz if dz else self.hands
        got = cache[seat]
        if got is None or got[0] != hand:
            counts = _count_int(hand)
            if dz:
                counts = _to_danzero(counts)
            got = cache[seat] = (hand, counts, _int_bytes(counts))
        return got[1], got[2]


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


_TAIL = _G["cards_left_self"]  # the per-decision scalars, from here to the end
_T_DEAL_LEVEL = _G["deal_level"] - _TAIL
_T_OWN_LEVEL = _G["own_level"] - _TAIL
_T_OPP_LEVEL = _G["opp_level"] - _TAIL
_T_LEVEL_TEAM = _G["level_team"] - _TAIL
_T_PHASE = _G["phase"] - _TAIL
_T_RETURN_TO = _G["return_to"] - _TAIL
_T_TRIBUTE_KIND = _G["tribute_kind"] - _TAIL
_PHASE_INDEX = {TRIBUTE: 0, RETURN: 1}
_NO_TRICK = _NOT_YET * 4
_NO_TOP = bytes(54 + 10 + 15 + 4)


#: one-hot bytes: a seat's cards left (0..28, more counted as 28), a top play's owner, the held wilds
_CARDS_LEFT = tuple(bytes(min(n, 28)) + b"\x01" + bytes(28 - min(n, 28)) for n in range(60))
_OWNER = tuple(bytes(k) + b"\x01" + bytes(3 - k) for k in range(4))
_WILDS = (b"\x01\x00\x00", b"\x00\x01\x00", b"\x00\x00\x01")
_NO_FINISH = b"\x01\x00\x00\x00" * 4
_TAIL_FIXED: dict[tuple, bytes] = {}  # the per-deal scalars after finish_place, by what they encode


def _guandan_fixed_tail(seat: int, obs: Observation) -> bytes:
    """The ``deal_level`` … ``tribute_kind`` segments (cached: they change a few times per deal)."""
    key = (seat, obs.level, obs.levels, obs.level_team, obs.phase, obs.return_to, obs.tribute_kind)
    got = _TAIL_FIXED.get(key)
    if got is None:
        tail = bytearray(GUANDAN_STATE_SIZE - _G["deal_level"])
        base = _T_DEAL_LEVEL
        team = seat & 1
        lt = obs.level_team
        tail[_T_DEAL_LEVEL - base + obs.level] = 1
        tail[_T_OWN_LEVEL - base + obs.levels[team]] = 1
        tail[_T_OPP_LEVEL - base + obs.levels[team ^ 1]] = 1
        tail[_T_LEVEL_TEAM - base + (2 if lt is None else (0 if lt == team else 1))] = 1
        tail[_T_PHASE - base + _PHASE_INDEX.get(obs.phase, 2)] = 1
        if obs.return_to >= 0:
            tail[_T_RETURN_TO - base + ((obs.return_to - seat) & 3)] = 1
        tail[_T_TRIBUTE_KIND - base + _TRIBUTE_KINDS.get(obs.tribute_kind, 0)] = 1
        if len(_TAIL_FIXED) >= 4096:
            _TAIL_FIXED.clear()
        got = _TAIL_FIXED[key] = bytes(tail)
    return got


def _finish_places(rel: tuple[int, ...], finished: tuple[int, ...]) -> bytes:
    out = bytearray(16)
    for k in range(4):
        s = rel[k]
        out[4 * k + (finished.index(s) + 1 if s in finished else 0)] = 1
    return bytes(out)


def guandan_state(obs: Observation) -> np.ndarray:
    """The ``guandan`` state vector of a seat (layout ``GUANDAN_STATE_LAYOUT``)."""
    seat = obs.seat
    rec = _record(obs)
    hand = obs.hand
    counts, counts_b = rec.hand_counts(seat, hand)
    unseen = _int_bytes(rec.left - counts)
    wild = counts_b[obs.level * 4 + 1]
    played = rec.played_rel[seat]
    if played is None:
        p = rec.played
        played = rec.played_rel[seat] = (
            p[seat] | p[(seat + 1) & 3] << 432 | p[(seat + 2) & 3] << 864 | p[(seat + 3) & 3] << 1296
        ).to_bytes(216, "little")
    top = obs.top
    if top is None:
        trick = _NO_TRICK
        top_part = _NO_TOP
    else:
        trick = rec.trick_rel[seat]
        if trick is None:
            t = rec.trick
            trick = rec.trick_rel[seat] = b"".join(
                [t[seat], t[(seat + 1) & 3], t[(seat + 2) & 3], t[(seat + 3) & 3]]
            )
        if top is not rec.top:
            base = bytearray(79)
            for f in top[2]:
                base[f] += 1
            base[54 + _TYPE_INDEX[top[0]]] = 1
            base[64 + top[1]] = 1
            rec.top, rec.top_base = top, bytes(base)
        top_part = rec.top_base + _OWNER[(obs.top_owner - seat) & 3]
    cc = obs.card_counts
    finished = obs.finished
    return np.frombuffer(
        b"".join(
            [
                counts_b,
                _WILDS[wild if wild < 2 else 2],
                unseen,
                played,
                trick,
                top_part,
                _CARDS_LEFT[cc[seat]],
                _CARDS_LEFT[cc[(seat + 1) & 3]],
                _CARDS_LEFT[cc[(seat + 2) & 3]],
                _CARDS_LEFT[cc[(seat + 3) & 3]],
                _NO_FINISH
                if not finished
                else _finish_places((seat, (seat + 1) & 3, (seat + 2) & 3, (seat + 3) & 3), finished),
                _guandan_fixed_tail(seat, obs),
            ]
        ),
        dtype=np.uint8,
    ).astype(_F32)


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
def _universal_cached(hand: tuple[int, ...], level: int) -> bytes:
    return bytes(danzero_universal_flags(_dz_counts(hand), level).astype(np.int8))


_MINUS = b"\xff" * 54  # DanZero's [-1] marker: −1 in every place
_NO_FLAGS = bytes(12)


_DZ_CARDS_LEFT = tuple(bytes(min(n, 27)) + b"\x01" + bytes(27 - min(n, 27)) for n in range(60))
_DZ_RANK = tuple(bytes(min(n, 12)) + b"\x01" + bytes(12 - min(n, 12)) for n in range(20))


def danzero_state(obs: Observation) -> np.ndarray:
    """The 513-value DanZero state of a seat (layout ``DANZERO_STATE_LAYOUT``)."""
    seat = obs.seat
    down, mate, up = (seat + 1) & 3, (seat + 2) & 3, (seat + 3) & 3
    rec = _record(obs)
    hand = obs.hand
    counts, counts_b = rec.hand_counts(seat, hand, dz=True)
    if not rec.dz:
        rec.keep_danzero()
    other = _int_bytes(rec.left_dz - counts)
    flags = _universal_cached(hand, obs.level) if counts_b[obs.level * 4] else _NO_FLAGS
    finished = obs.finished
    # the last entry of DanZero's turn sequence: the latest move (zeros for a pass, and the
    # 上家's own last play when it just went out with it), or the [-1] marker when there was
    # none yet or the 上家 had gone out before it (DANZERO_LAST_ACTION in docs/env.md)
    latest = rec.latest
    last_dz = rec.last_dz
    last = _MINUS if latest is None or (up in finished and latest.seat != up) else last_dz[latest.seat]
    mate_last = last_dz[mate]
    last_mate = _MINUS if mate_last is None or mate in finished else mate_last
    played = rec.played_dz_rel[seat]
    if played is None:
        p = rec.played_dz
        played = rec.played_dz_rel[seat] = (p[down] | p[mate] << 432 | p[up] << 864).to_bytes(162, "little")
    cc = obs.card_counts
    levels = obs.levels
    team = seat & 1
    return np.frombuffer(
        b"".join(
            [
                counts_b,
                flags,
                other,
                last,
                last_mate,
                played,
                _DZ_CARDS_LEFT[cc[down]],
                _DZ_CARDS_LEFT[cc[mate]],
                _DZ_CARDS_LEFT[cc[up]],
                _DZ_RANK[levels[team]],
                _DZ_RANK[levels[team ^ 1]],
                _DZ_RANK[obs.level],
            ]
        ),
        dtype=np.int8,
    ).astype(_F32)


def danzero_action(action: Combo | int, level: int) -> np.ndarray:
    """DanZero's 54-value action: the counts of the cards played (zeros for a pass)."""
    if type(action) is int:
        return _dz_counts((action,))
    return _dz_counts(action[2])


# ----------------------------------------------------------------------------- DanLM's card order

#: the card index of each of our faces in the DanZero checkpoints published by DanLM: suit-major,
#: ``suit * 13 + rank`` with suits H S C D and ranks 2..A as 0..12, then SB 52 and HR 53
DANLM_CARD = tuple([(1, 0, 2, 3)[f & 3] * 13 + (f >> 2) for f in range(52)] + [52, 53])
#: the segments of the DanZero state that hold 54-card vectors (their order changes, nothing else)
DANZERO_CARD_SEGMENTS = (
    "my_handcards",
    "other_handcards",
    "last_action",
    "last_teammate_action",
    "down_played_cards",
    "teammate_played_cards",
    "up_played_cards",
)
#: DanLM's index ``j`` of a card holds what DanZero's order holds at ``_DZ_OF_DANLM[j]``
_DZ_OF_DANLM = [0] * 54
for _face in range(54):
    _DZ_OF_DANLM[DANLM_CARD[_face]] = DANZERO_CARD[_face]
#: a ``danzero`` state indexed by this is the ``danzero-danlm`` state
_DANLM_STATE_INDEX = np.arange(DANZERO_STATE_SIZE)
for _segment in DANZERO_CARD_SEGMENTS:
    _DANLM_STATE_INDEX[_D[_segment] : _D[_segment] + 54] = _D[_segment] + np.array(_DZ_OF_DANLM)


def danlm_state(obs: Observation) -> np.ndarray:
    """The ``danzero`` state with its seven card segments in DanLM's card order."""
    return danzero_state(obs)[_DANLM_STATE_INDEX]


def danlm_action(action: Combo | int, level: int) -> np.ndarray:
    """The cards played, counted in DanLM's card order (zeros for a pass)."""
    v = np.zeros(54, dtype=_F32)
    for f in (action,) if type(action) is int else action[2]:
        v[DANLM_CARD[f]] += 1.0
    return v


# ----------------------------------------------------------------------------- registry

ENCODINGS: dict[str, Encoding] = {
    "guandan": Encoding(
        "guandan", GUANDAN_STATE_SIZE, GUANDAN_ACTION_SIZE, guandan_state, guandan_action, True
    ),
    "danzero": Encoding("danzero", DANZERO_STATE_SIZE, 54, danzero_state, danzero_action, False),
    "danzero-danlm": Encoding("danzero-danlm", DANZERO_STATE_SIZE, 54, danlm_state, danlm_action, False),
}


def get_encoding(name: str) -> Encoding:
    """The encoding registered under ``name`` (a ``ValueError`` naming the choices otherwise)."""
    try:
        return ENCODINGS[name]
    except KeyError:
        raise ValueError(f"unknown encoding {name!r}: available are {', '.join(sorted(ENCODINGS))}") from None

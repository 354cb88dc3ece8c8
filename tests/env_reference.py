"""From-scratch reference encoders (the first, plain NumPy version): an oracle for the fast ones.

They recompute everything from ``obs.events`` at each call, one segment at a time.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from guandan_cli.engine.combos import COMBO_TYPES
from guandan_cli.engine.deal import RETURN, TRIBUTE
from guandan_cli.engine.observation import Observation
from guandan_cli.env.encoding import danzero_universal_flags

_F32 = np.float32
_TYPE_INDEX = {t: i for i, t in enumerate(COMBO_TYPES)}
_TRIBUTE_KINDS = {"none": 0, "single": 1, "double": 2, "resisted": 3}
DANZERO_CARD = tuple([(f & ~3) | (1, 0, 2, 3)[f & 3] for f in range(52)] + [52, 53])
_DZ = np.array(DANZERO_CARD)


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


def reference_guandan_state(obs: Observation) -> np.ndarray:
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


def _dz_counts(faces: Sequence[int]) -> np.ndarray:
    if not faces:
        return np.zeros(54, dtype=_F32)
    return np.bincount(_DZ[list(faces)], minlength=54).astype(_F32)


def reference_danzero_state(obs: Observation) -> np.ndarray:
    """The 513-value DanZero state of a seat (layout ``DANZERO_STATE_LAYOUT``)."""
    seat = obs.seat
    down, mate, up = (seat + 1) & 3, (seat + 2) & 3, (seat + 3) & 3
    rec = _PlayRecord(obs)
    hand = _dz_counts(obs.hand)
    all_played = [f for p in rec.played for f in p]
    other = 2.0 - hand - _dz_counts(all_played)
    minus = -np.ones(54, dtype=_F32)
    # DanZero's turn sequence: each move, then an entry for each seat its turn passes over
    # until this seat: [-1] for a seat that is out, no cards for one skipped by 接风 (which
    # comes after a pass, so it shows what the latest move shows); its last entry
    if not rec.any_play_event:
        last = minus
    else:
        ev = next(e for e in reversed(obs.events) if e.kind in ("play", "pass"))
        last = _dz_counts(ev.combo[2]) if ev.kind == "play" else np.zeros(54, dtype=_F32)
        passed_over = [(ev.seat + k) & 3 for k in range(1, ((seat - ev.seat - 1) & 3) + 1)]
        if passed_over and passed_over[-1] in obs.finished:
            last = minus
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

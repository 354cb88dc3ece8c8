"""``legal_plays`` and ``plays_of_type`` give the same plays, cards and order as before their
tables (full-house rows, sequence tables) were added: a digest of many seeded positions, pinned
from the code without those tables, taken twice (tables cold, then warm)."""

from __future__ import annotations

import hashlib
import random

from guandan_cli.engine import COMBO_TYPES, deal_hands, legal_plays
from guandan_cli.engine.legal import _Hand, plays_of_type

#: the digest of ``_digest()`` by the code of bc64c5c (no full-house rows or sequence tables)
PINNED = "e8561f2052ccb90aba4204c8a5f660acb1282c355c4338fb7a1c225c6c50faa0"


def _digest() -> str:
    rng = random.Random(20261201)
    h = hashlib.sha256()
    for n in range(600):
        hands = deal_hands(rng)
        level = rng.randrange(13)
        hand = hands[0] if n % 3 else tuple(rng.sample(hands[0], rng.randrange(1, 28)))
        lead = legal_plays(hand, level)
        top = rng.choice(legal_plays(hands[1], level))
        for plays in (lead, legal_plays(hand, level, top)):
            h.update(repr([tuple(c) for c in plays]).encode())
        if n % 5 == 0:
            analysed = _Hand(hand, level)
            for t in COMBO_TYPES:
                h.update(repr([tuple(c) for c in plays_of_type(analysed, t)]).encode())
                h.update(repr([tuple(c) for c in plays_of_type(analysed, t, top)]).encode())
    return h.hexdigest()


def test_legal_plays_digest_is_unchanged_with_tables_cold_and_warm() -> None:
    assert _digest() == PINNED
    assert _digest() == PINNED

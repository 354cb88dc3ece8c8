"""Benchmarks behind `guandan bench`: fixed seeded positions, median per call."""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Iterator

from guandan_cli.engine import deal_hands, legal_plays


def _median_us(fn, args_list) -> float:
    times = []
    clock = time.perf_counter_ns
    for args in args_list:
        t0 = clock()
        fn(*args)
        times.append(clock() - t0)
    return statistics.median(times) / 1000.0


def legal_play_positions(positions: int, seed: int) -> tuple[list, list]:
    """Seeded positions: (hand, level) to lead from, and (hand, level, top) to follow."""
    rng = random.Random(seed)
    lead, follow = [], []
    for _ in range(positions):
        hands = deal_hands(rng)
        level = rng.randrange(13)
        lead.append((hands[0], level))
        tops = legal_plays(hands[1], level)
        follow.append((hands[0], level, rng.choice(tops)))
    return lead, follow


def bench_legal_plays(positions: int = 2000, seed: int = 1) -> Iterator[str]:
    lead, follow = legal_play_positions(positions, seed)
    _median_us(legal_plays, lead[:100])  # warm up
    lead_us = _median_us(legal_plays, lead)
    follow_us = _median_us(legal_plays, follow)
    n_lead = statistics.mean(len(legal_plays(*a)) for a in lead)
    n_follow = statistics.mean(len(legal_plays(*a)) for a in follow)
    yield f"legal_plays lead   (27 cards): median {lead_us:8.1f} µs  ({n_lead:.0f} plays on average, {positions} positions)"
    yield f"legal_plays follow (27 cards): median {follow_us:8.1f} µs  ({n_follow:.1f} plays on average, {positions} positions)"

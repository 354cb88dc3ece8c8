"""Statistical checks of the engine's tribute decisions against exact facts (rules.md §13).

Over N random deals the engine's resistance rate (``Deal.tribute_kind == "resisted"``)
must lie within 4 binomial sigmas of the exact probability:

- single tribute: 27·26/(108·107) ≈ 6.07% (the payer holds both HR);
- double tribute: 54·53/(108·107) ≈ 24.77% (the two payers hold both HR between them).

With N = 40,000 the windows are ±0.48 and ±0.86 points, far from what the plausible
wrong rules give (see ``WRONG_RULES``): the test cannot pass by
chance with a wrong rule, and it checks that the wrong rules fail on the same hands.
"""

from __future__ import annotations

import math
import random

import pytest

from guandan_cli.engine.cards import HR, deal_hands
from guandan_cli.engine.deal import Deal, DealSetup
from guandan_cli.engine.seeding import derived_rng

N = 40_000
P_SINGLE = 27 * 26 / (108 * 107)
P_DOUBLE = 54 * 53 / (108 * 107)
P_WILD = 1 - 81 * 80 / (108 * 107)  # a 27-card hand holds at least one of the two wilds


def tolerance(p: float, n: int, sigmas: float = 4.0) -> float:
    return sigmas * math.sqrt(p * (1 - p) / n)


def _orders(rng: random.Random, double_down: bool) -> tuple[int, ...]:
    while True:
        order = list(range(4))
        rng.shuffle(order)
        if (order[1] == order[0] ^ 2) == double_down:
            return tuple(order)


#: wrong resistance rules, on hr = the HR count of each payer
WRONG_RULES = {
    "one big joker resists": lambda hr: sum(hr) >= 1,  # single ≈ 43.9%, double ≈ 75.2%
    "one payer must hold both": lambda hr: max(hr) == 2,  # double ≈ 12.1% (single: the right rule)
    "each payer must hold one": lambda hr: len(hr) == 2 and min(hr) >= 1,  # double ≈ 12.6%, single 0
}


@pytest.fixture(scope="module")
def samples():
    rng = derived_rng("tribute-stats", 1)
    single, double, wild = [], [], 0
    for i in range(N):
        hands = deal_hands(random.Random(rng.getrandbits(63)))
        level = rng.randrange(13)
        wild += (level * 4 + 1) in hands[i % 4]
        for dd, out in ((False, single), (True, double)):
            order = _orders(rng, dd)
            d = Deal(DealSetup(hands=hands, level=level, previous=(order, dd)))
            payers = [(order[0] + 1) % 4, (order[0] + 3) % 4] if dd else [order[3]]
            hr = [hands[p].count(HR) for p in payers]
            resisted = d.tribute_kind == "resisted"
            assert resisted == (sum(hr) == 2)  # the engine agrees with the rule deal by deal
            assert d.tribute_kind == ("resisted" if resisted else ("double" if dd else "single"))
            out.append((resisted, hr))
    return single, double, wild


@pytest.mark.parametrize("kind,p", [("single", P_SINGLE), ("double", P_DOUBLE)])
def test_resistance_rate_matches_exact_probability(samples, kind, p):
    rows = samples[0] if kind == "single" else samples[1]
    rate = sum(r for r, _hr in rows) / len(rows)
    tol = tolerance(p, len(rows))
    assert abs(rate - p) <= tol, f"{kind}: rate {rate:.4%}, expected {p:.4%} ± {tol:.4%}"
    # every wrong rule, applied to the same hands, lands far outside the window
    for name, rule in WRONG_RULES.items():
        wrong = sum(rule(hr) for _r, hr in rows) / len(rows)
        if kind == "single" and name == "one payer must hold both":
            continue  # with one payer this is the right rule
        assert abs(wrong - p) > 5 * tol, f"wrong rule {name!r} would pass: {wrong:.4%}"


def test_wild_card_rate(samples):
    rate = samples[2] / N
    assert abs(rate - P_WILD) <= tolerance(P_WILD, N), rate
    assert round(P_WILD, 3) == 0.439
    assert round(P_SINGLE, 4) == 0.0607 and round(P_DOUBLE, 4) == 0.2477

#!/usr/bin/env python
"""The heuristic planner against an older revision of itself, bit for bit.

Loads ``strategies/heuristic/plan.py`` of ``REV`` (``git show``) as a separate module and
compares it with the working tree's on random hands: whole 27-card hands, 28-card hands
(a tribute received), suit-rich hands (straight flushes to try), random subsets of 1..28
cards, every level, 0..2 wilds. Per hand: ``plan_cost`` (as a float's hex), then
``make_plan`` (groups, cost, level), with the caches emptied so that both searches run;
every fourth hand also the raw search under a small node CAP (nodes, best, windows) and the
plan built under it (the working tree's code pure Python only: ``GUANDAN_PURE_PYTHON=1``; compiled,
the raw search only); every tenth hand (of two decks) the ``combo_signature`` of each legal
lead. Plan costs are compared with ``<``, so "the same" means the same float.

    python scripts/plan_equivalence.py                    # 100,000 hands against bc64c5c
    python scripts/plan_equivalence.py --rev HEAD~3 --hands 20000 --seed 7
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from guandan_cli.engine import deal_hands, legal_plays  # noqa: E402
from guandan_cli.engine.cards import RANK_OF  # noqa: E402

CAPS = (0, 1, 2, 3, 5, 8, 13, 21, 40)


def load_revision(rev: str) -> ModuleType:
    """``strategies/heuristic/plan.py`` as of ``rev``, as a module of its own."""
    src = subprocess.run(
        ["git", "-C", str(ROOT), "show", f"{rev}:strategies/heuristic/plan.py"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(src)
    spec = importlib.util.spec_from_file_location(f"plan_{rev.replace('~', '_')}", f.name)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    Path(f.name).unlink()
    return module


def random_hand(rng: random.Random) -> tuple[tuple[int, ...], int]:
    lv = rng.randrange(13)
    wild = lv * 4 + 1
    deal = deal_hands(rng)
    r = rng.random()
    if r < 0.3:
        hand = list(deal[0])
    elif r < 0.4:
        hand = list(deal[0]) + [rng.choice(deal[1])]
    elif r < 0.55:
        suit = rng.randrange(4)
        pool = [f for f in range(52) if f & 3 == suit] * 2 + rng.sample(range(54), 20)
        hand = rng.sample(pool, rng.randrange(5, 29))
    else:
        hand = rng.sample(deal[0] + deal[1], rng.randrange(1, 29))
    if rng.random() < 0.5:
        hand = [f for f in hand if f != wild] + [wild] * rng.choice((0, 1, 1, 2))
    return tuple(sorted(hand)), lv


def _clear(*modules: ModuleType, counts: bool = True) -> None:
    for m in modules:
        m._CACHE.clear()
        m._CHOICES.clear()
        if counts:
            m._COUNTS_CACHE.clear()


def _plan_key(p) -> tuple:
    return (tuple(tuple(g) for g in p.groups), p.cost.hex(), p.level)


def _cap_defaults(m: ModuleType) -> tuple | None:
    """The defaults of ``m._Search.__init__`` when they can be set (pure Python; else None)."""
    return getattr(m._Search.__init__, "__defaults__", None)


def _plan(m: ModuleType):
    """``m``'s unchecked ``make_plan`` (the public one refuses the 3-copy hands drawn here)."""
    return getattr(m, "_make_plan", m.make_plan)


def _cost(m: ModuleType):
    """``m``'s unchecked ``plan_cost``."""
    return getattr(m, "_plan_cost", m.plan_cost)


def compare(old: ModuleType, new: ModuleType, hands: int, seed: int) -> int:
    """Assert both modules agree on ``hands`` random hands; the number of hands compared."""
    rng = random.Random(seed)
    for k in range(hands):
        hand, lv = random_hand(rng)
        _clear(old, new, counts=k % 3 == 0)  # the counts cache kept across some hands, as in play
        if k & 1:  # the cost first, then the plan built from the kept choice
            a, b = _cost(old)(hand, lv), _cost(new)(hand, lv)
            assert a.hex() == b.hex(), (hand, lv, a, b)
        assert _plan_key(_plan(old)(hand, lv)) == _plan_key(_plan(new)(hand, lv)), (hand, lv)
        if k % 10 == 0 and max(Counter(hand).values()) <= 2:  # the signatures of its legal leads
            for a in legal_plays(hand, lv):
                assert old.combo_signature(a, lv) == new.combo_signature(a, lv), (a, lv)
        if k % 4 == 0:
            cap = rng.choice(CAPS)
            wild = lv * 4 + 1
            c = [0] * 15
            for f in hand:
                if f != wild:
                    c[RANK_OF[f]] += 1
            w = hand.count(wild)
            # a capped search: the old code reads its class's CAP, the new one takes ``cap``
            # (and, pure Python, its default is what make_plan's searches use)
            old_cap, new_defaults = old._Search.CAP, _cap_defaults(new)
            old._Search.CAP = cap
            try:
                so, sn = old._Search(list(c), w, lv), new._Search(list(c), w, lv, cap)
                so.run(0, 0.0)
                sn.run(0, 0.0)
                assert (so.nodes, so.best.hex(), so.best_stack) == (sn.nodes, sn.best.hex(), sn.best_stack), (
                    hand,
                    lv,
                    cap,
                )
                if new_defaults is not None:  # the plan built under the cap (pure Python only)
                    new._Search.__init__.__defaults__ = (cap,)
                    _clear(old, new)
                    assert _plan_key(_plan(old)(hand, lv)) == _plan_key(_plan(new)(hand, lv)), (
                        hand,
                        lv,
                        cap,
                    )
            finally:
                old._Search.CAP = old_cap
                if new_defaults is not None:
                    new._Search.__init__.__defaults__ = new_defaults
                _clear(old, new)
    return hands


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rev", default="bc64c5c", help="the older revision (default bc64c5c)")
    ap.add_argument("--hands", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=1)
    opts = ap.parse_args(argv)
    from guandan_cli.strategies.heuristic import plan

    from guandan_cli.native.compiled import describe

    n = compare(load_revision(opts.rev), plan, opts.hands, opts.seed)
    capped = "" if _cap_defaults(plan) is not None else " (plans under a CAP: pure Python only)"
    print(f"identical on {n} hands (make_plan, plan_cost, CAPs {CAPS}{capped}) against {opts.rev}")
    print(f"the working tree's planner ran {describe()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Deal setups (runner/setups.py): sources, swapping teams, playing one setup like simulate logs it."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from guandan_cli.strategies import GreedyStrategy, HeuristicStrategy, RandomStrategy, make_players

from guandan_cli import simulate
from guandan_cli.engine.deal import Deal, replay
from guandan_cli.engine.rules import get_ruleset
from guandan_cli.engine.seeding import derived_rng
from guandan_cli.logreaders.verify import verify
from guandan_cli.logs.records import DealRecord
from guandan_cli.logs.writer import dumps_line
from guandan_cli.runner.setups import (
    fresh_setup,
    load_setups,
    play_setup,
    random_setup,
    run_setups,
    swap_teams,
)

RULES = get_ruleset("cgr2022")


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("setups") / "run"
    return simulate(5, seed=4, strategies="greedy,random", max_deals=4, workers=1, out=out, progress=False)


def test_fresh_setup_plays_exactly_deal_0_of_a_one_deal_match(tmp_path):
    """A fresh setup played by the run's players gives the very line simulate logs."""
    run = simulate(
        4, seed=9, strategies="greedy,random", max_deals=1, workers=1, out=tmp_path / "r", progress=False
    )
    rules = get_ruleset("cgr2022", max_deals=1)
    lines = run.deals().sort("match")
    for i in range(4):
        item = fresh_setup(9, i, rules)
        assert item.setup.levels == (0, 0) and item.setup.previous is None
        players = make_players(["greedy", "random", "greedy", "random"], item.match_seed)
        played = play_setup(
            item, players, run_id=run.manifest.run_id, match_index=i, strategies=run.config["strategies"]
        )
        logged = [p for p in run.deal_files()]
        assert played.record["match"] == i
        raw = b"".join(f.read_bytes() for f in logged).splitlines()[i] + b"\n"
        assert dumps_line(played.record) == raw
        assert lines.row(i, named=True)["finish_order"] == list(played.deal.result.finish_order)
    assert verify(run.path).ok


def test_random_setups_follow_the_documented_distribution():
    n = 900
    kinds = Counter()
    for i in range(n):
        item = random_setup(5, i, RULES)
        s = item.setup
        lt = s.level_team
        order, dd = s.previous
        assert order[0] in (lt, lt + 2) and sorted(order) == [0, 1, 2, 3]
        assert 1 <= s.levels[lt] <= 12 and 0 <= s.levels[1 - lt] <= 12 and s.level == s.levels[lt]
        assert dd == (order[1] == order[0] ^ 2)
        assert s.hands == fresh_setup(5, i, RULES).setup.hands  # same cards, another situation
        place = order.index(order[0] ^ 2)
        kinds[place] += 1
        assert Deal(s).tribute_kind in ("single", "double", "resisted")
    for place in (1, 2, 3):  # partner 2nd (double tribute), 3rd, last: ⅓ each
        assert abs(kinds[place] / n - 1 / 3) < 0.06, kinds
    assert random_setup(5, 3, RULES) == random_setup(5, 3, RULES)


def test_run_setups_rebuild_every_logged_deal(small_run):
    items = list(run_setups(small_run.path))
    recs = small_run.deals().sort("match", "deal").to_dicts()
    assert len(items) == len(recs) == small_run.counts["deals"]
    by_key = {(r["match_seed"], r["deal"]): r for r in recs}
    for item in items:
        rec = by_key[(item.match_seed, item.deal_index)]
        deal = replay(item.setup, DealRecord.parse(rec).actions())  # the logged actions fit the rebuilt setup
        assert list(deal.result.finish_order) == rec["finish_order"]
    assert items[0].setup.rules.max_deals == 4  # the run's own options by default
    assert load_setups(small_run.path, 0, 3, RULES) == list(run_setups(small_run.path, RULES))[:3]
    with pytest.raises(ValueError, match="fewer than"):
        load_setups(small_run.path, 0, len(items) + 1, RULES)
    with pytest.raises(ValueError, match="no run directory"):
        load_setups(small_run.path / "nowhere", 0, 1, RULES)


def _players(classes, seed):
    return [cls(seat, derived_rng(seed, "seat", seat)) for seat, cls in enumerate(classes)]


@pytest.mark.parametrize("cls", [GreedyStrategy, HeuristicStrategy, RandomStrategy])
def test_swapped_setup_played_by_rotated_players_is_the_same_deal_rotated(cls):
    """Seat s's player and hand move to s+1: the deal is the same, every seat shifted by one."""
    rng = random.Random(2)
    for i in range(6):
        item = (random_setup if i % 2 else fresh_setup)(rng.randrange(10**6), i, RULES)
        seeds = [rng.randrange(10**6) for _ in range(4)]
        players = [cls(s, random.Random(seeds[s])) for s in range(4)]
        rotated = [None] * 4
        for s in range(4):
            rotated[(s + 1) % 4] = cls((s + 1) % 4, random.Random(seeds[s]))
        a = play_setup(item, players).deal
        b = play_setup(swap_teams(item.setup), rotated).deal
        assert b.result.finish_order == tuple((x + 1) % 4 for x in a.result.finish_order)
        assert b.result.winner_team == 1 - a.result.winner_team
        assert b.result.upgrade == a.result.upgrade
        assert [(s + 1) % 4 for s, _ in a.actions] == [s for s, _ in b.actions]
        assert [x for _, x in a.actions] == [x for _, x in b.actions]
        assert b.tribute_kind == a.tribute_kind


def test_swap_teams_twice_gives_partners_hands():
    s = random_setup(1, 2, RULES).setup
    t = swap_teams(swap_teams(s))
    assert t.hands == tuple(s.hands[x ^ 2] for x in range(4))
    assert t.levels == s.levels and t.level_team == s.level_team


def test_play_setup_records_levels_after_and_a_failures():
    """At the level team's own A, a loss of the level team is an A failure (a_fail_limit 1 resets it)."""
    rules = get_ruleset("cgr2022", a_fail_limit=1)
    at_a = 0
    for i in range(60):
        item = random_setup(8, i, rules)
        s = item.setup
        played = play_setup(item, make_players(["greedy"] * 4, item.match_seed))
        res = played.deal.result
        lt = s.level_team
        after = played.record["levels_after"]
        if s.levels[lt] == 12 and res.winner_team == lt and res.upgrade >= 2:
            assert played.update.winner == lt and after[lt] == "A+"
        elif s.levels[lt] == 12:
            at_a += 1
            assert after[lt] == "2" and played.update.a_failure == lt
        else:
            assert played.update.winner is None
    assert at_a > 0
    with pytest.raises(ValueError, match="4 players"):
        play_setup(fresh_setup(1, 0, RULES), make_players(["greedy"] * 4, 1)[:3])


def test_a_record_alone_gives_an_equivalent_setup(small_run):
    """The previous finish order rebuilt from a record's tribute replays every logged deal identically."""
    recs = [DealRecord.parse(r) for r in small_run.deals().sort("match", "deal").to_dicts()]
    prev = None
    kinds = set()
    for rec in recs:
        p = prev if prev is not None and prev.match == rec.match else None
        full = replay(rec.setup(p, RULES), rec.actions())
        alone = replay(rec.setup_alone(RULES), rec.actions())
        assert alone.snapshot() == full.snapshot()
        kinds.add(rec.tribute.kind)
        prev = rec
    assert {"none", "single"} <= kinds

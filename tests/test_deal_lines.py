"""The fast deal line (logs/deal_lines.py) is byte for byte the reference ``dumps_line(deal_record(...))``.

Compared on every deal of many matches: each built-in bot, both rulesets, tribute off and
paid (so resistance and its absence), A-fail limits, capped matches, a bot failing
mid-match, deals played from every setup source, and setups the fast path must hand to
the reference (a ``bool`` seat, a ``Combo`` subclass), plus strings that JSON escapes.
"""

from __future__ import annotations

import json

import pytest
from guandan_cli.strategies import make_players
from guandan_cli.strategies.base import Strategy

from guandan_cli.engine.combos import Combo
from guandan_cli.engine.deal import Deal, DealSetup
from guandan_cli.engine.match import Match, deal_seed
from guandan_cli.engine.play import StrategyError, iter_match, play_deal
from guandan_cli.logs import deal_lines
from guandan_cli.logs.deal_lines import DealLines
from guandan_cli.logs.schema import MatchKey, deal_record
from guandan_cli.logs.writer import dumps_line
from guandan_cli.runner import setups
from guandan_cli.runner.tasks import RunSpec, _classes, match_seed, play_match


def reference_line(lines: DealLines, index, seed, setup, deal, update) -> bytes:
    run_id, match_index, mseed, strategies = lines._ids
    return dumps_line(
        deal_record(
            MatchKey(run_id, match_index, mseed, tuple(strategies)),
            deal_index=index,
            deal_seed=seed,
            setup=setup,
            deal=deal,
            update=update,
        )
    )


def compare_matches(spec: RunSpec, matches: int) -> tuple[int, set]:
    """Play the run's matches; every deal's fast line must equal the reference. Returns
    (deals compared, tribute kinds seen)."""
    rules = spec.rules()
    n, kinds = 0, set()
    for index in range(matches):
        seed = match_seed(spec.seed, index)
        match = Match(seed, rules)
        players = make_players(_classes(spec.strategies), seed)
        lines = DealLines(
            run_id=spec.run_id, match_index=index, match_seed=seed, strategies=list(spec.strategies)
        )
        for pd in iter_match(match, players):
            args = (pd.index, deal_seed(seed, pd.index), pd.setup, pd.deal, pd.update)
            assert lines.line(*args) == reference_line(lines, *args), (spec, index, pd.index)
            n += 1
            kinds.add(pd.deal.tribute_kind)
    return n, kinds


CASES = [
    # (strategies, ruleset options, matches)
    (("random",) * 4, dict(ruleset="cgr2022"), 25),
    (("random",) * 4, dict(ruleset="jiangsu2017"), 25),
    (("random",) * 4, dict(ruleset="cgr2022", a_fail_limit=1), 15),
    (("random",) * 4, dict(ruleset="jiangsu2017", a_fail_limit=2, tribute="paid"), 15),
    (("random",) * 4, dict(ruleset="cgr2022", tribute="off", max_deals=5), 15),
    (("greedy",) * 4, dict(ruleset="cgr2022"), 6),
    (("greedy",) * 4, dict(ruleset="jiangsu2017", a_fail_limit=1), 6),
    (("heuristic", "random", "heuristic", "random"), dict(ruleset="cgr2022", max_deals=8), 3),
    (("greedy", "heuristic", "random", "heuristic"), dict(ruleset="jiangsu2017", max_deals=8), 3),
]


@pytest.mark.parametrize("strategies,options,matches", CASES)
def test_fast_lines_equal_the_reference(strategies, options, matches):
    spec = RunSpec("r-0123", 11, strategies, **options)
    n, kinds = compare_matches(spec, matches)
    assert n >= matches
    if options.get("tribute") != "off" and matches >= 15:
        assert {"single", "double"} <= kinds  # both tribute paths are exercised


def test_every_tribute_kind_and_thousands_of_deals_are_covered():
    total, kinds = 0, set()
    for seed in range(3):
        for ruleset in ("cgr2022", "jiangsu2017"):
            n, k = compare_matches(RunSpec("r", seed, ("random",) * 4, ruleset=ruleset), 15)
            total += n
            kinds |= k
    assert kinds == {"none", "single", "double", "resisted"}
    assert total > 1000


def test_play_match_writes_the_reference_lines_up_to_a_failing_bot():
    class FailsLate(Strategy):
        """Plays like the first legal action, then raises in deal 2."""

        name = "fails-late"

        def start_deal(self, index, obs):
            self.deal = index

        def choose_play(self, obs):
            if self.deal == 2:
                raise RuntimeError("late failure")
            return obs.legal_actions[0]

        def choose_tribute(self, obs):
            return obs.legal_actions[0]

        def choose_return(self, obs):
            return obs.legal_actions[0]

    from guandan_cli.runner import tasks

    tasks.LOCAL_CLASSES["late:FailsLate"] = FailsLate
    try:
        spec = RunSpec("r", 3, ("random", "late:FailsLate", "random", "random"), on_error="record")
        lines, mline, facts = play_match(spec, 0)
        assert facts["error"] is not None and "late failure" in facts["error"]
        assert len(lines) == 2
        seed = match_seed(3, 0)
        match = Match(seed, spec.rules())
        players = make_players(_classes(spec.strategies), seed)
        ref = DealLines(run_id="r", match_index=0, match_seed=seed, strategies=list(spec.strategies))
        with pytest.raises(StrategyError):
            for pd, line in zip(iter_match(match, players), lines, strict=False):
                args = (pd.index, deal_seed(seed, pd.index), pd.setup, pd.deal, pd.update)
                assert line == reference_line(ref, *args)
    finally:
        tasks.forget_loaded()


@pytest.mark.parametrize("source", ["fresh", "random", "paying", "resisting"])
def test_deals_from_setup_sources(source):
    from guandan_cli.engine.rules import get_ruleset

    for ruleset in ("cgr2022", "jiangsu2017"):
        rules = get_ruleset(ruleset)
        for index in range(12):
            item = setups.source_setup(source, 4, index, rules)
            played = setups.play_setup(item, make_players(["random"] * 4, item.match_seed), run_id="x")
            lines = DealLines(
                run_id="x", match_index=0, match_seed=item.match_seed, strategies=["random"] * 4
            )
            line = lines.line(item.deal_index, item.deal_seed, item.setup, played.deal, played.update)
            assert line == dumps_line(played.record)


def play_one(setup: DealSetup, players=None):
    deal = Deal(setup)
    play_deal(deal, players or make_players(["random"] * 4, 1))
    match = Match(1, setup.rules)
    match.levels = list(setup.levels)
    match.level_team = setup.level_team
    match.previous = setup.previous
    return deal, match.record(deal.result)


def test_strings_json_escapes_are_written_as_json_writes_them():
    item = setups.fresh_setup(2, 0, Match(1).rules)
    deal, update = play_one(item.setup)
    names = ['quote"d', "back\\slash", "tab\tnew\nline", "掼蛋 ♠"]
    lines = DealLines(run_id='run "7"\u2028', match_index=0, match_seed=item.match_seed, strategies=names)
    args = (0, item.deal_seed, item.setup, deal, update)
    line = lines.line(*args)
    assert line == reference_line(lines, *args)
    assert json.loads(line)["strategies"] == names


def test_setups_the_fast_path_hands_to_the_reference():
    """A ``bool`` first leader or a play that is a ``Combo`` subclass: the reference writes it."""
    item = setups.fresh_setup(5, 0, Match(1).rules)
    odd = DealSetup(
        hands=item.setup.hands,
        level=item.setup.level,
        levels=item.setup.levels,
        level_team=False,  # json writes false
        first_leader=True,  # a seat 1 that json writes as true
        rules=item.setup.rules,
    )
    deal, update = play_one(odd)
    assert not deal_lines._plain_seats(odd)
    lines = DealLines(run_id="r", match_index=0, match_seed=1, strategies=["random"] * 4)
    args = (0, 7, odd, deal, update)
    assert lines.line(*args) == reference_line(lines, *args)
    assert b'"first_leader":true' in lines.line(*args)

    class Shown(Combo):
        def text(self, symbols=False):
            return "shown:" + super().text(symbols)

    deal = Deal(item.setup)
    while deal.phase != "over":
        action = deal.legal_actions()[0]
        if isinstance(action, Combo) and action[0] != "pass":
            action = Shown(*action)
        deal.apply(action)  # kept as given: equal to a legal play, cards already sorted
    match = Match(1, item.setup.rules)
    update = match.record(deal.result)
    args = (0, item.deal_seed, item.setup, deal, update)
    with pytest.raises(deal_lines._Fallback):
        deal_lines._derived_json(deal)
    assert b" shown:" in lines.line(*args)
    assert lines.line(*args) == reference_line(lines, *args)


@pytest.mark.parametrize("ruleset", ["cgr2022", "jiangsu2017"])
def test_many_more_deals_of_the_slower_bots(ruleset):
    n_greedy, _ = compare_matches(RunSpec("g", 21, ("greedy",) * 4, ruleset=ruleset, a_fail_limit=2), 60)
    n_heur, kinds = compare_matches(RunSpec("h", 22, ("heuristic",) * 4, ruleset=ruleset), 12)
    assert n_greedy > 500 and n_heur > 100
    assert {"single", "double"} <= kinds

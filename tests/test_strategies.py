"""The Strategy interface, the registry/loader, failures, legality and determinism of the built-ins."""

from __future__ import annotations

import random
import re
import textwrap
from collections import Counter
from pathlib import Path

import pytest
from guandan_cli.strategies import (
    BUILTINS,
    GreedyStrategy,
    RandomStrategy,
    Strategy,
    UnknownStrategyError,
    available_strategies,
    load_strategy,
    make_players,
)
from guandan_cli.strategies.heuristic import HeuristicStrategy
from observations import obs_for

from guandan_cli.engine.combos import BOMB_CLASS, Combo
from guandan_cli.engine.deal import PASS, Deal, DealSetup
from guandan_cli.engine.match import Match
from guandan_cli.engine.observation import Observation
from guandan_cli.engine.play import StrategyError, iter_match, play_deal
from guandan_cli.engine.rules import get_ruleset

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "strategies.md"


def play_match(names, seed, max_deals=None, rules="cgr2022"):
    match = Match(seed, get_ruleset(rules, max_deals=max_deals))
    deals = list(iter_match(match, make_players(names, seed)))
    return match, deals


# ---------------------------------------------------------------- registry


def test_builtins_by_name():
    assert load_strategy("random") is RandomStrategy
    assert load_strategy("greedy") is GreedyStrategy
    assert load_strategy("heuristic") is HeuristicStrategy
    assert set(BUILTINS) <= set(available_strategies())
    assert {"random", "greedy", "heuristic"} <= set(available_strategies())


def test_module_class_spec():
    assert load_strategy("guandan_cli.strategies.greedy:GreedyStrategy") is GreedyStrategy
    assert load_strategy(" guandan_cli.strategies.heuristic:HeuristicStrategy ") is HeuristicStrategy
    assert load_strategy(GreedyStrategy) is GreedyStrategy


def test_file_class_spec(tmp_path):
    path = tmp_path / "mybot.py"
    path.write_text(
        textwrap.dedent(
            """
            from guandan_cli.strategies import Strategy

            class FirstLegal(Strategy):
                name = "first_legal"

                def choose_play(self, obs):
                    return obs.legal_actions[0]
            """
        )
    )
    cls = load_strategy(f"{path}:FirstLegal")
    assert cls.name == "first_legal" and issubclass(cls, Strategy)
    match, deals = play_match([f"{path}:FirstLegal", "random"] * 2, seed=5, max_deals=3)
    assert deals


def test_unknown_name_lists_available():
    with pytest.raises(UnknownStrategyError) as exc:
        load_strategy("no_such_bot")
    msg = str(exc.value)
    assert "no_such_bot" in msg
    for name in ("random", "greedy", "heuristic"):
        assert name in msg
    assert "module:Class" in msg and "file.py:Class" in msg


@pytest.mark.parametrize(
    "spec",
    [
        "guandan_cli.strategies.no_such_module:X",
        "guandan_cli.strategies.greedy:NoSuchClass",
        "no/such/file.py:Bot",
    ],
)
def test_bad_specs(spec):
    with pytest.raises(UnknownStrategyError, match=re.escape(spec)):
        load_strategy(spec)


def test_plugin_entry_point(monkeypatch):
    import guandan_cli.strategies.registry as reg

    class FakeEP:
        name = "plugged"

        def load(self):
            return GreedyStrategy

    monkeypatch.setattr(
        reg, "entry_points", lambda group: [FakeEP()] if group == "guandan.strategies" else []
    )
    assert "plugged" in available_strategies()
    assert load_strategy("plugged") is GreedyStrategy


def test_make_players_seeds_and_count():
    a = make_players(["random"] * 4, match_seed=9)
    b = make_players(["random"] * 4, match_seed=9)
    assert [p.seat for p in a] == [0, 1, 2, 3]
    assert [p.rng.random() for p in a] == [p.rng.random() for p in b]
    assert len({p.rng.random() for p in make_players(["random"] * 4, 9)}) == 4  # one rng per seat
    with pytest.raises(ValueError, match="4 strategies"):
        make_players(["random"] * 3, match_seed=1)


# ---------------------------------------------------------------- failures are reported


class Raiser(Strategy):
    name = "raiser"

    def choose_play(self, obs):
        raise RuntimeError("boom")


class Cheater(Strategy):
    name = "cheater"

    def choose_play(self, obs):
        if obs.top is None:
            return PASS  # the leader must play
        return obs.legal_actions[0]


class NotAnAction(Strategy):
    name = "junk"

    def choose_play(self, obs):
        return "S3"


@pytest.mark.parametrize(
    ("bot", "fragment"),
    [(Raiser, "RuntimeError: boom"), (Cheater, "illegal action 'pass'"), (NotAnAction, "'S3'")],
)
def test_strategy_error_names_everything(bot, fragment):
    match = Match(11)
    players = make_players([bot, bot, bot, bot], 11)
    with pytest.raises(StrategyError) as exc:
        list(iter_match(match, players))
    err = exc.value
    assert err.seat == match.first_leader
    assert err.strategy == bot.name
    assert err.match_seed == 11 and err.deal_index == 0
    assert fragment in err.error
    text = str(err)
    for part in (f"seat {err.seat}", repr(bot.name), "match seed 11", "deal 0", fragment):
        assert part in text


def test_strategy_error_in_tribute_phase():
    class BadTribute(GreedyStrategy):
        name = "bad_tribute"

        def choose_tribute(self, obs):
            return 999

    match = Match(3)
    players = make_players([BadTribute] * 4, 3)
    with pytest.raises(StrategyError) as exc:
        list(iter_match(match, players))
    assert exc.value.deal_index >= 1 and "999" in exc.value.error


# ---------------------------------------------------------------- information


class Spy(RandomStrategy):
    """Checks that each observation holds its own hand and nothing private of others."""

    name = "spy"
    deal: Deal | None = None

    def choose_play(self, obs):
        assert obs.seat == self.seat
        assert obs.hand == tuple(self.deal.hands[self.seat])
        assert sum(obs.card_counts) == sum(len(h) for h in self.deal.hands)
        return super().choose_play(obs)


def test_observation_shows_only_own_hand():
    fields = set(Observation.__dataclass_fields__)
    assert not {f for f in fields if "hands" in f}
    deal = Deal(DealSetup(hands=Match(4).next_setup().hands, level=0, first_leader=0))
    spies = [Spy(s, random.Random(s)) for s in range(4)]
    for s in spies:
        s.deal = deal
    play_deal(deal, spies)


# ---------------------------------------------------------------- legality and determinism


@pytest.mark.parametrize(
    "names",
    [
        ["random"] * 4,
        ["greedy"] * 4,
        ["heuristic"] * 4,
        ["heuristic", "random", "heuristic", "random"],
        ["greedy", "heuristic", "greedy", "heuristic"],
        ["heuristic", "greedy", "random", "heuristic"],
    ],
)
@pytest.mark.parametrize("rules", ["cgr2022", "jiangsu2017"])
def test_full_matches_are_legal(names, rules):
    for seed in range(3):
        match, deals = play_match(names, seed, max_deals=40, rules=rules)
        assert deals
        for d in deals:
            assert d.deal.phase == "over"
            # every recorded action replays legally
            from guandan_cli.engine.deal import replay

            replay(d.setup, d.deal.actions)


@pytest.mark.parametrize(
    "names", [["random"] * 4, ["greedy"] * 4, ["heuristic"] * 4, ["heuristic", "random"] * 2]
)
def test_same_seed_same_actions(names):
    def actions(seed):
        _m, deals = play_match(names, seed, max_deals=6)
        return [
            [
                (s, a if isinstance(a, int) else a.text() if a is not PASS else "pass")
                for s, a in d.deal.actions
            ]
            for d in deals
        ]

    assert actions(21) == actions(21)
    assert actions(21) != actions(22)


# ---------------------------------------------------------------- random and greedy


def test_random_is_uniform_and_passes():
    from guandan_cli.engine import parse_cards

    obs = obs_for(parse_cards("S3 D5 C9"), top=Combo.from_text("single:4 S4"), owner=1)
    bot = RandomStrategy(0, random.Random(1))
    seen = Counter(bot.choose_play(obs) for _ in range(3000))
    assert set(seen) == set(obs.legal_actions)  # pass included
    assert min(seen.values()) > 3000 / len(seen) * 0.8


def test_greedy_rules():
    from guandan_cli.engine import parse_cards

    bot = GreedyStrategy(0, random.Random(0))
    hand = parse_cards("S3 D6 C9 SK S8 H8 C8 D8")
    # leads its lowest combination
    assert bot.choose_play(obs_for(hand)).text() == "single:3 S3"
    # cheapest answer
    assert bot.choose_play(obs_for(hand, Combo.from_text("single:5 S5"), 1)).text() == "single:6 D6"
    # a bomb only when nothing else answers
    play = bot.choose_play(obs_for(hand, Combo.from_text("single:A SA"), 1))
    assert play.type in BOMB_CLASS
    assert bot.choose_play(obs_for(parse_cards("S3 D6"), Combo.from_text("single:A SA"), 1)) is PASS


# ---------------------------------------------------------------- the documented example


def _doc_example() -> str:
    text = DOC.read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert blocks, "docs/strategies.md has a python example"
    return blocks[0]


def test_doc_example_bot_plays_a_match(tmp_path):
    path = tmp_path / "example_bot.py"
    path.write_text(_doc_example())
    source = path.read_text()
    cls_name = re.search(r"^class (\w+)\(Strategy\)", source, flags=re.M).group(1)
    match, deals = play_match([f"{path}:{cls_name}", "random"] * 2, seed=2, max_deals=5)
    assert deals and all(d.deal.phase == "over" for d in deals)


def test_doc_mentions_every_builtin():
    text = DOC.read_text()
    for name in BUILTINS:
        assert f"`{name}`" in text


def test_choose_from_legal_shortcut_is_dropped_by_a_subclass_that_overrides_a_choice():
    """``random``'s engine shortcut skips the observation; a subclass changing a choice must not
    be bypassed by it, and one that only adds state keeps it (same draws either way)."""
    from guandan_cli.engine.match import Match
    from guandan_cli.engine.play import iter_match

    class Lowest(RandomStrategy):
        def choose_play(self, obs):
            return obs.legal_actions[0]

    class Named(RandomStrategy):
        name = "named"

    assert RandomStrategy.choose_from_legal is not None
    assert Lowest.choose_from_legal is None
    assert Named.choose_from_legal is not None
    # the shortcut draws exactly what the observation path draws
    logs = []
    for shortcut in (True, False):
        players = [RandomStrategy(s, random.Random(s)) for s in range(4)]
        if not shortcut:
            for p in players:
                p.choose_from_legal = None
        m = Match(seed=11)
        logs.append([pd.deal.actions for pd in iter_match(m, players)])
    assert logs[0] == logs[1]


def test_a_shortcut_answer_outside_the_legal_actions_is_a_strategy_error():
    """A third-party bot's ``choose_from_legal`` answer is checked like any other answer."""
    from guandan_cli.engine.match import Match
    from guandan_cli.engine.play import StrategyError, iter_match

    class Cheat(RandomStrategy):
        name = "cheat"

        def choose_from_legal(self, legal):
            return ("bomb", "A", (0, 0, 0, 0))  # not a legal action, not even a Combo

    players = [Cheat(0, random.Random(0))] + [RandomStrategy(s, random.Random(s)) for s in range(1, 4)]
    with pytest.raises(StrategyError, match="seat 0.*illegal action"):
        list(iter_match(Match(seed=3), players))


def test_a_shortcut_marked_picks_item_plays_as_one_looked_up():
    """``random``'s answers (``picks_item``: always an item of ``legal``) are applied without the
    engine's look-up; a copy of the bot without the mark goes through it and plays the same."""
    from guandan_cli.engine.match import Match
    from guandan_cli.engine.play import iter_match

    class Checked(RandomStrategy):
        name = "checked"

        def choose_from_legal(self, legal):  # not marked: its answer is looked up
            return RandomStrategy.choose_from_legal(self, legal)

    assert RandomStrategy(0, random.Random(0)).choose_from_legal.picks_item is True
    assert getattr(Checked(0, random.Random(0)).choose_from_legal, "picks_item", None) is None
    logs = []
    for cls in (RandomStrategy, Checked):
        m = Match(seed=5)
        players = [cls(s, random.Random(s)) for s in range(4)]
        logs.append([pd.deal.actions for pd in iter_match(m, players)])
    assert logs[0] == logs[1] and len(logs[0]) > 3

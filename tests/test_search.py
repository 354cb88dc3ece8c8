"""The `search` strategy: worlds drawn from what a seat may see, rollouts, candidates, the race,
``evaluate``, determinism and the spec of its options (small budgets: strength is measured by
``scripts/strength.py``, never here)."""

from __future__ import annotations

import dataclasses
import random
from collections import Counter

import pytest
from guandan_cli.strategies import load_strategy, make_players
from guandan_cli.strategies.heuristic import HeuristicStrategy
from guandan_cli.strategies.registry import UnknownStrategyError
from guandan_cli.strategies.search import ActionValue, Knowledge, SearchStrategy, candidate_actions
from guandan_cli.strategies.search.inference import Explainer, recent_moves
from guandan_cli.strategies.search.rollout import Rollouts
from guandan_cli.strategies.search.worlds import NO_CAP

from guandan_cli.engine import deal_hands
from guandan_cli.engine.cards import RANK_OF, full_deck
from guandan_cli.engine.combos import BOMB_CLASS, POWER
from guandan_cli.engine.deal import PASS, PLAY, Deal, DealSetup, replay
from guandan_cli.engine.match import Match
from guandan_cli.engine.observation import observe
from guandan_cli.engine.play import iter_match, play_deal
from guandan_cli.engine.rules import get_ruleset
from guandan_cli.runner.setups import random_setup

RULES = get_ruleset("cgr2022")
SMALL = "search:worlds=3+candidates=3+first=2+batch=1"


def heuristic_positions(seeds, seat=None, every=1):
    """(deal, observation) at decisions of heuristic self-play on random setups (tribute too)."""
    for seed in seeds:
        item = random_setup(7, seed, RULES)
        deal = Deal(item.setup)
        players = [HeuristicStrategy(s) for s in range(4)]
        for p in players:
            p.start_deal(0, observe(deal, p.seat))
        k = 0
        while deal.phase != "over":
            s = deal.to_move
            obs = observe(deal, s)
            if deal.phase == PLAY and (seat is None or s == seat):
                k += 1
                if k % every == 0:
                    yield deal, obs
            action = {"play": players[s].choose_play, "tribute": players[s].choose_tribute}.get(
                deal.phase, players[s].choose_return
            )(obs)
            deal.apply(action)


# ---------------------------------------------------------------- the engine's position deal


def test_a_position_deal_plays_on_exactly_as_the_deal_it_was_read_from():
    """From any position, ``Deal.from_position`` with the true hands replays the rest of the
    deal's actions to the same events, finish order and result."""
    for seed in range(6):
        item = random_setup(3, seed, RULES)
        original = Deal(item.setup)
        play_deal(original, make_players(["heuristic"] * 4, seed))
        actions = original.actions
        cut_at = [i for i, (_s, a) in enumerate(actions) if not isinstance(a, int)][::17]
        for cut in cut_at:
            before = replay(item.setup, actions[:cut])
            pos = Deal.from_position(
                DealSetup(hands=tuple(map(tuple, before.hands)), level=before.level, rules=RULES),
                before.events,
                to_move=before.to_move,
                finished=before.finished,
                top=before.top,
                top_owner=before.top_owner,
                tribute_kind=before.tribute_kind,
            )
            assert pos.passes == before.passes and pos.legal_actions() == before.legal_actions()
            for _seat, a in actions[cut:]:
                pos.apply(a)
            assert pos.events == original.events
            assert pos.result == original.result


def test_a_position_that_does_not_add_up_is_refused():
    hands = tuple(tuple(h) for h in deal_hands(random.Random(1)))
    setup = DealSetup(hands=hands, level=0)
    with pytest.raises(ValueError, match="to_move 4"):
        Deal.from_position(setup, (), to_move=4)
    with pytest.raises(ValueError, match="seat 1 is out but holds 27 cards"):
        Deal.from_position(setup, (), to_move=0, finished=[1])
    with pytest.raises(ValueError, match="do not agree"):
        Deal.from_position(setup, (), to_move=0, top_owner=2)


# ---------------------------------------------------------------- worlds


def _check_world(obs, world, true_hands):
    k = Knowledge.of(obs)
    assert world[obs.seat] == tuple(obs.hand)
    assert [len(h) for h in world] == list(obs.card_counts)
    played = Counter(f for ev in obs.events if ev.kind == "play" for f in ev.combo.cards)
    assert Counter(f for h in world for f in h) + played == Counter(full_deck())
    for s in range(4):
        assert not Counter(k.known[s]) - Counter(world[s])  # known cards are where they are known to be
        assert not Counter(k.known[s]) - Counter(true_hands[s])  # and truly there
        if k.caps[s] < NO_CAP:
            pw = POWER[obs.level]
            wild = obs.level * 4 + 1
            pool_cards = Counter(world[s]) - Counter(k.known[s])
            assert all(f == wild or pw[RANK_OF[f]] <= k.caps[s] for f in pool_cards)


def test_worlds_keep_every_public_fact_and_the_true_hands_are_among_them():
    """Counts, played cards, received tribute/return cards and the tribute caps hold in every
    drawn world, and the true hands meet the same constraints (the caps are rules facts)."""
    rng = random.Random(4)
    capped = 0
    for deal, obs in heuristic_positions(range(12), every=7):
        true_hands = tuple(tuple(h) for h in deal.hands)
        k = Knowledge.of(obs)
        capped += any(c < NO_CAP for c in k.caps)
        _check_world(obs, true_hands, true_hands)
        for _ in range(3):
            _check_world(obs, k.sample(rng), true_hands)
    assert capped  # the random setups include paid tributes


def test_worlds_are_uniform_over_the_unseen_cards():
    """Without caps or known cards, each unseen card lands in each other seat about as often as
    its share of the hidden cards says."""
    d = Deal(DealSetup(hands=deal_hands(random.Random(5)), level=3, first_leader=0))
    obs = observe(d, 0)
    k = Knowledge.of(obs)
    rng = random.Random(1)
    hits = Counter()
    draws = 600
    for _ in range(draws):
        world = k.sample(rng)
        for s in (1, 2, 3):
            hits[s] += world[s].count(k.pool[0])
    copies = k.pool.count(k.pool[0])
    for s in (1, 2, 3):
        assert abs(hits[s] / (draws * copies) - 1 / 3) < 0.06


def test_the_last_seat_with_hidden_cards_makes_a_single_world():
    """With two seats left, the other one holds exactly the unseen cards: one world."""
    found = 0
    for deal, obs in heuristic_positions(range(10)):
        if sum(1 for c in obs.card_counts if c) == 2:
            k = Knowledge.of(obs)
            other = next(s for s in range(4) if s != obs.seat and obs.card_counts[s])
            assert k.determined and k.sample(random.Random(1))[other] == tuple(deal.hands[other])
            found += 1
        elif sum(1 for c in obs.card_counts if c) == 4:
            assert not Knowledge.of(obs).determined
    assert found


def test_an_end_game_study_with_fewer_cards_draws_hands_of_the_right_size():
    """A setup dealing fewer than 108 cards: the unseen cards outnumber the hidden ones."""
    hands = deal_hands(random.Random(2))
    study = (hands[0][:5], hands[1][:3], (), hands[3][:4])
    d = Deal.from_position(DealSetup(hands=study, level=0), (), to_move=0, finished=[2])
    k = Knowledge.of(observe(d, 0))
    assert not k.determined
    world = k.sample(random.Random(1))
    assert [len(h) for h in world] == [5, 3, 0, 4] and world[0] == tuple(sorted(study[0]))


# ---------------------------------------------------------------- what a search seat may read


def _swapped_pair(seed):
    """Two deals, the same public record for seat 0, seats 1 and 3 holding different cards."""
    rng = random.Random(seed)
    hands = deal_hands(random.Random(100 + seed))
    a = Deal(DealSetup(hands=hands, level=seed % 13, first_leader=0))
    for _ in range(rng.randrange(4, 30)):
        if a.phase == "over":
            break
        a.apply(rng.choice(a.legal_actions()))
    h1, h3 = a.hands[1], a.hands[3]
    x, y = rng.choice(sorted((x, y) for x in set(h1) for y in set(h3) if x != y))
    start = [list(h) for h in hands]
    start[1].remove(x)
    start[1].append(y)
    start[3].remove(y)
    start[3].append(x)
    b = replay(
        DealSetup(hands=tuple(tuple(sorted(h)) for h in start), level=seed % 13, first_leader=0), a.actions
    )
    return a, b


def test_decisions_do_not_depend_on_hidden_cards():
    """Two observations that differ only in other seats' cards get the same decision and the
    same values (the model: tests/test_env.py's hidden-information test)."""
    tried = 0
    for seed in range(40):
        a, b = _swapped_pair(seed)
        if a.phase != "play" or a.to_move != 0:
            continue
        oa, ob = observe(a, 0), observe(b, 0)
        assert oa == ob and a.hands[1] != b.hands[1]
        bots = [SearchStrategy(0, random.Random(9), worlds=3, candidates=4, first=2) for _ in range(2)]
        assert bots[0].choose_play(oa) == bots[1].choose_play(ob)
        assert bots[0].evaluate(oa, worlds=2) == bots[1].evaluate(ob, worlds=2)
        tried += 1
        if tried == 3:
            break
    assert tried == 3


def test_a_search_seat_never_reads_another_seats_hand(monkeypatch):
    """The bot is handed observations only: hide every other hand of the deal (a poisoned list)
    while it decides, and it decides all the same."""

    class Poisoned(list):
        def __getitem__(self, i):
            raise AssertionError("a hidden hand was read")

        __iter__ = __len__ = __contains__ = __getitem__

    item = random_setup(2, 1, RULES)
    deal = Deal(item.setup)
    players = make_players([SMALL, "heuristic"] * 2, 1)
    for p in players:
        p.start_deal(0, observe(deal, p.seat))
    decided = 0
    while deal.phase != "over":
        s = deal.to_move
        obs = observe(deal, s)
        p = players[s]
        if s in (0, 2) and deal.phase == PLAY:
            real = deal.hands
            deal.hands = [h if i == s else Poisoned(h) for i, h in enumerate(real)]
            action = p.choose_play(obs)
            deal.hands = real
            decided += 1
        else:
            ask = {"play": p.choose_play, "tribute": p.choose_tribute}.get(deal.phase, p.choose_return)
            action = ask(obs)
        deal.apply(action)
    assert decided > 5


# ---------------------------------------------------------------- rollouts and inference


def test_a_rollout_from_the_first_lead_is_the_heuristics_own_deal():
    """A rollout with the true hands from the start is the deal four fresh heuristics play."""
    for seed in range(4):
        hands = deal_hands(random.Random(seed))
        setup = DealSetup(hands=hands, level=seed, first_leader=seed % 4, rules=RULES)
        deal = Deal(setup)
        obs = observe(deal, deal.to_move)
        first = HeuristicStrategy(obs.seat).choose_play(obs)
        r = Rollouts(RULES)
        value = r.value(obs, r.world_setup(obs, tuple(map(tuple, deal.hands))), first)
        play_deal(deal, [HeuristicStrategy(s) for s in range(4)])
        res = deal.result
        assert value == (res.upgrade if res.winner_team == obs.seat & 1 else -res.upgrade)
        wins = Rollouts(RULES, objective="wins")
        assert wins.value(obs, wins.world_setup(obs, tuple(map(tuple, hands))), first) == (
            1 if value > 0 else -1
        )


def test_the_true_hands_explain_the_heuristics_moves():
    """In heuristic self-play the true hand explains nearly every recent move (a fresh heuristic
    replays it), and a hand drawn at random explains far fewer."""
    ex = Explainer(RULES)
    rng = random.Random(3)
    true_miss = random_miss = moves = 0
    for _deal, obs in heuristic_positions(range(6), seat=0, every=5):
        by_seat = recent_moves(obs, 3)
        true_hands = tuple(tuple(h) for h in _deal.hands)
        world = Knowledge.of(obs).sample(rng)
        for s in (1, 2, 3):
            mine = [m for m in by_seat if m.seat == s]
            moves += len(mine)
            true_miss += ex.mismatches(obs, mine, s, true_hands[s])
            random_miss += ex.mismatches(obs, mine, s, world[s])
    assert moves > 100
    assert true_miss <= 0.03 * moves and random_miss >= 0.2 * moves


# ---------------------------------------------------------------- candidates, race, evaluate


def test_candidates_keep_the_heuristics_choice_pass_and_a_bomb():
    for _deal, obs in heuristic_positions(range(4), every=3):
        choice = HeuristicStrategy(obs.seat).choose_play(obs)
        cands = candidate_actions(obs, choice, 8)
        legal = obs.legal_actions
        assert cands[0] == choice and len(cands) == len(set(cands)) <= 8
        assert all(c in legal for c in cands[1:])
        if obs.top is not None:
            assert PASS in cands[:2]
        bombs = [a for a in legal if a[0] in BOMB_CLASS]
        if bombs and len(cands) < 8:
            assert any(c[0] in BOMB_CLASS for c in cands)


def test_evaluate_values_listed_actions_on_the_same_worlds():
    _deal, obs = next(heuristic_positions([5], seat=1, every=4))
    bot = SearchStrategy(1, random.Random(2), worlds=4)
    plays = [a for a in obs.legal_actions if a is not PASS][:2]
    values = bot.evaluate(obs, [plays[0], plays[1], plays[0]], worlds=5)
    assert [v.action for v in values] == [plays[0], plays[1], plays[0]]
    assert all(isinstance(v, ActionValue) and v.n == 5 for v in values)
    assert values[0].gain == values[2].gain == 0.0 and values[2].mean == values[0].mean  # paired
    assert values[0].low <= values[0].mean <= values[0].high
    default = bot.evaluate(obs, worlds=2)
    assert default[0].action == HeuristicStrategy(1).choose_play(obs)
    assert "n=2" in default[0].text()


def test_evaluate_refuses_an_illegal_action_and_a_non_play_observation():
    _deal, obs = next(heuristic_positions([5], seat=1, every=4))
    bot = SearchStrategy(1, random.Random(2))
    not_held = next(f for f in range(52) if f not in obs.hand)
    from guandan_cli.engine.combos import Combo

    with pytest.raises(ValueError, match="is not legal here"):
        bot.evaluate(obs, [Combo("single", RANK_OF[not_held], (not_held,))], worlds=1)
    tribute = observe(Deal(random_setup(1, 0, RULES).setup), 0)
    with pytest.raises(ValueError, match="play decision"):
        bot.evaluate(tribute)
    with pytest.raises(ValueError, match="worlds"):
        bot.evaluate(obs, worlds=0)


def test_a_search_game_is_legal_and_repeats_with_its_seed():
    def actions(seed):
        match = Match(seed, get_ruleset("cgr2022", max_deals=1))
        deals = list(iter_match(match, make_players([SMALL, "heuristic", "heuristic", SMALL], seed)))
        for d in deals:
            replay(d.setup, d.deal.actions)
        return [d.deal.actions for d in deals]

    assert actions(3) == actions(3)


class _Worlds:
    """World draws that are just the draw's index (for stub rollouts)."""

    def __init__(self) -> None:
        self.drawn = 0
        self.knowledge = Knowledge(0, 0, (), ((),) * 4, (1, 2), (0, 1, 1, 0), (NO_CAP,) * 4)

    def __call__(self) -> int:
        self.drawn += 1
        return self.drawn - 1


class _Values:
    """Stub rollouts: candidate ``i``'s value in world ``w`` is ``table(i, w)``."""

    def __init__(self, table) -> None:
        self.table = table
        self.calls: Counter = Counter()

    def value(self, obs, world, action):
        self.calls[action] += 1
        return self.table(action, world)


def _race(bot: SearchStrategy, table, cands=(0, 1, 2)):
    worlds, values = _Worlds(), _Values(table)
    bot.rollouts = values
    bot._sampler = lambda obs, rng: worlds
    return bot._race(None, list(cands)), worlds.drawn, values.calls


def test_the_duel_spends_worlds_only_on_a_close_call_and_only_on_its_two_moves():
    # candidate 1 gains +1 in 3 worlds of 8, loses 1 in 2 of them (+0.125 per world): at 32
    # worlds that is about 0.9 standard errors (0.14), a close call; candidate 2 is always worse
    def close(i, w):
        return {0: 0, 1: (1, 1, 1, -1, -1, 0, 0, 0)[w % 8], 2: -2}[i]

    assert _race(SearchStrategy(0, random.Random(0), duel=0), close)[:2] == (0, 32)  # no duel
    pick, drawn, calls = _race(SearchStrategy(0, random.Random(0), duel=64), close)
    assert drawn == 64 and calls[0] == calls[1] == 64 and calls[2] == 8  # 2 left the race at 8
    assert pick == 1  # at 64 worlds +0.125 is above one standard error (0.10)
    # a clear gain (every world +1) needs no more worlds; a lost one (below 0) stops it too
    assert _race(SearchStrategy(0, random.Random(0), duel=64), lambda i, w: i == 1)[:2] == (1, 32)
    lost = lambda i, w: {0: 0, 1: (1, -1)[w % 2], 2: -2}[i]  # noqa: E731 - gain 0: not above it
    assert _race(SearchStrategy(0, random.Random(0), duel=64), lost)[:2] == (0, 32)


# ---------------------------------------------------------------- the spec


def test_search_specs_name_budgets_and_refuse_bad_options():
    assert load_strategy("search") is SearchStrategy
    cls = load_strategy("search:worlds=16+candidates=5+gate=1.5+caps=no")
    assert (cls.worlds, cls.candidates, cls.gate, cls.caps, cls.name) == (16, 5, 1.5, False, cls.name)
    assert issubclass(cls, SearchStrategy) and cls.name == "search:worlds=16+candidates=5+gate=1.5+caps=no"
    for spec, fragment in [
        ("search:", "is not OPTION=VALUE"),
        ("search:worlds", "is not OPTION=VALUE"),
        ("search:worlds=0", "is not a whole number of 1 or more"),
        ("search:worlds=1.5", "is not a whole number"),
        ("search:gate=-1", "is not a number of 0 or more"),
        ("search:gate=nan", "is not a number of 0 or more"),
        ("search:caps=maybe", "is not true or false"),
        ("search:objective=fun", "is not one of levels, wins"),
        ("search:rules=house", "is not one of"),
        ("search:worlds=2+worlds=3", "given twice"),
        ("search:speed=9", "no option 'speed'"),
        ("search:duel=-1", "is not a whole number of 0 or more"),
        ("search:sure=x", "is not a number of 0 or more"),
    ]:
        with pytest.raises(UnknownStrategyError, match=fragment):
            load_strategy(spec)
    with pytest.raises(TypeError, match="no option 'speed'"):
        SearchStrategy(0, random.Random(0), speed=9)


def test_search_runs_give_the_same_bytes_with_one_worker_or_two(tmp_path):
    """``simulate`` with a search seat: the same logs whatever the number of workers (the seat's
    rng is the only chance)."""
    from guandan_cli.runner.simulation import simulate

    def logs(workers):
        run = simulate(
            3,
            seed=4,
            strategies=f"{SMALL},heuristic",
            max_deals=1,
            workers=workers,
            out=tmp_path / f"w{workers}",
            progress=False,
        )
        return {p.name: p.read_bytes() for p in sorted(run.path.iterdir()) if p.name.startswith("deals-")}

    one = logs(1)
    assert one and one == logs(2)


def test_bench_prints_the_search_line():
    from click.testing import CliRunner

    from guandan_cli.cli.app import app

    args = ["bench", "--no-legal", "--no-startup", "-n", "1", "--parallel-matches", "0", "-w", "1"]
    res = CliRunner().invoke(
        app, [*args, "--strategies", "random", "--search-positions", "2", "--search", SMALL]
    )
    assert res.exit_code == 0, res.output
    assert f"search {SMALL}: median" in res.stdout and "rollouts/s" in res.stdout
    res = CliRunner().invoke(app, [*args, "--strategies", "random", "--search", "greedy"])
    assert res.exit_code == 2 and "is not a search strategy" in res.stderr


# ---------------------------------------------------------------- the other places a bot sits


def test_a_search_opponent_plays_in_the_single_agent_env():
    """The env's ``others`` take a search spec: an episode runs to its end, reproducibly."""
    np = pytest.importorskip("numpy")
    pytest.importorskip("gymnasium")
    from guandan_cli.env.single_agent import GuandanSingleAgentEnv

    def episode():
        env = GuandanSingleAgentEnv(seat=0, others=(SMALL, "random", SMALL))
        env.reset(seed=3)
        rng = np.random.default_rng(0)
        steps, done, reward = 0, False, 0.0
        while not done:
            _obs, reward, term, trunc, _info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            done, steps = term or trunc, steps + 1
        return steps, reward

    first = episode()
    assert first[0] > 0 and first[1] in (-3.0, -2.0, -1.0, 1.0, 2.0, 3.0)
    assert episode() == first


def test_play_suggests_the_search_strategys_move(tmp_path):
    """``guandan play --hint search:...``: ``?`` answers with the search bot's move, and the
    person who types it back plays on (a bad hint spec is one line, exit 2)."""
    import sys

    if sys.platform == "win32":
        pytest.skip("pseudo-terminals are POSIX")
    pexpect = pytest.importorskip("pexpect", reason="pexpect drives the pseudo-terminal (dev extra)")
    from play_driver import END, PROMPTS, SUGGESTION, WHICH, answer_with_hint, spawn

    args = ["--seed", "3", "--seat", "1", "--max-deals", "1", "--out", str(tmp_path / "g")]
    child = spawn([*args, "--hint", SMALL], tmp_path)
    typed = []
    while len(typed) < 4:
        i = child.expect(PROMPTS)
        assert i != END, child.before
        if i == WHICH:
            child.sendline("2")
            continue
        typed.append(answer_with_hint(child))
    assert child.expect(PROMPTS) not in (END, WHICH), child.before  # the fourth is played
    child.sendintr()  # Ctrl-C at the next question
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130 and len(typed) == 4
    saved = (tmp_path / "g" / "human.jsonl").read_text().splitlines()
    # the moves typed back were accepted, as cards (not the suggestion's words; with the passes
    # the game made for the person where nothing beat the top play)
    assert len(saved) >= 4 and all("(" not in line for line in saved), saved

    # a resume without --hint keeps the game's own: ? still answers with the search's values
    child = spawn(["--resume", "--out", str(tmp_path / "g")], tmp_path)
    assert child.expect(PROMPTS) not in (END, WHICH), child.before
    child.sendline("?")
    child.expect(SUGGESTION)
    assert " worlds" in child.match.group(1), child.match.group(1)
    assert child.expect(PROMPTS) not in (END, WHICH), child.before  # asked again, after the hint
    child.sendintr()
    child.expect(pexpect.EOF)
    child.close()

    from click.testing import CliRunner

    from guandan_cli.cli.app import app

    res = CliRunner().invoke(app, ["play", "--hint", "search:worlds=banana", "--out", str(tmp_path / "h")])
    assert res.exit_code == 2
    assert res.stderr.strip() == (
        "guandan: error: --hint: strategy 'search:worlds=banana': worlds='banana' is not a whole number of 1 or more"
    )


# ---------------------------------------------------------------- the same values every time


def test_evaluate_gives_the_same_values_however_the_position_is_reached():
    """The worlds of ``evaluate`` come from the position and ``seed``, not from the bot's running
    generator: a bot that has just played and evaluated other positions, and a fresh one with
    another generator, value an observation rebuilt from the deal's actions the same; another
    ``seed`` draws other worlds."""
    positions = []
    for deal, obs in heuristic_positions([12], seat=2, every=5):
        positions.append((deal.setup, tuple(deal.actions), obs))
        if len(positions) == 3:
            break
    setup, actions, obs = positions[2]
    again = observe(replay(setup, actions), 2)  # the same position, reached by replaying the record
    assert again is not obs and again == obs
    used = SearchStrategy(2, random.Random(1), worlds=6)
    for _s, _a, other in positions[:2]:
        used.choose_play(other)
        used.evaluate(other, worlds=3)
    fresh = SearchStrategy(2, random.Random(77), worlds=6)
    assert used.evaluate(obs) == fresh.evaluate(again) == fresh.evaluate(again)
    values = [fresh.evaluate(obs, seed=s) for s in range(4)]
    assert len({tuple(v.mean for v in vs) for vs in values}) > 1  # the seed matters


def test_the_world_generator_is_seeded_by_the_position_content():
    """``world_rng``: equal observations (even distinct objects, a hand in another order) start
    the same generator; a different seat, event or seed another one."""
    from guandan_cli.strategies.search import world_rng

    found = heuristic_positions([3], seat=1, every=3)
    (_d1, a), (_d2, b) = next(found), next(found)
    shuffled = dataclasses.replace(a, hand=tuple(reversed(a.hand)))
    assert world_rng(a).random() == world_rng(shuffled).random()
    draws = {world_rng(a).random(), world_rng(b).random(), world_rng(a, 1).random()}
    assert len(draws) == 3


def test_a_continuation_is_the_heuristic_playing_on_in_the_first_world_of_an_evaluation():
    """The next plays after an action, whoever asks: legal, in turn, from the first world an
    evaluation at that seed draws (rebuilt here from the knowledge and the position's seed)."""
    from guandan_cli.strategies.search import world_rng

    _deal, obs = next(heuristic_positions([6], seat=3, every=7))
    action = obs.legal_actions[-1]
    plays = SearchStrategy(3, random.Random(1)).continuation(obs, action, 5, seed=4)
    assert plays == SearchStrategy(3, random.Random(2)).continuation(obs, action, 5, seed=4)
    assert 1 <= len(plays) <= 5
    rollouts = Rollouts()
    world = Knowledge.of(obs).sample(world_rng(obs, 4))
    deal = rollouts.position(obs, rollouts.world_setup(obs, world))
    deal.apply(action)
    for seat, act in plays:
        assert deal.to_move == seat
        deal.apply(act)  # checked: legal in that world

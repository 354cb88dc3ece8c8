"""The environments (guandan_cli.env): PettingZoo's api_test, the action space, seeding,
agreement with the engine, the encodings (and that they read no hidden card)."""

import random
import warnings

import pytest

np = pytest.importorskip("numpy", reason="needs the 'env' extra: pip install -e '.[env]'")
pytest.importorskip("pettingzoo", reason="needs the 'env' extra: pip install -e '.[env]'")

from pettingzoo.test import api_test  # noqa: E402

from guandan_cli.engine import parse_card, parse_cards  # noqa: E402
from guandan_cli.engine.cards import deal_hands  # noqa: E402
from guandan_cli.engine.deal import Deal, DealSetup, replay  # noqa: E402
from guandan_cli.engine.match import Match, deal_seed  # noqa: E402
from guandan_cli.engine.observation import observe  # noqa: E402
from guandan_cli.env import (  # noqa: E402
    N_ACTIONS,
    GuandanDealEnv,
    GuandanMatchEnv,
    GuandanSingleAgentEnv,
    UnknownResetOptionWarning,
    action_index,
    describe_index,
    get_encoding,
)
from guandan_cli.env.encoding import (  # noqa: E402
    DANZERO_CARD,
    DANZERO_STATE_LAYOUT,
    GUANDAN_ACTION_LAYOUT,
    GUANDAN_STATE_LAYOUT,
    danzero_universal_flags,
)
from tests.conftest import ROOT  # noqa: E402


def _random_episode(env, seed, rng):
    """Play an AEC env to its end with uniformly random masked actions; return the steps."""
    env.reset(seed=seed)
    steps = 0
    for _agent in env.agent_iter():
        obs, _r, term, trunc, _info = env.last()
        if term or trunc:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        steps += 1
    return steps


@pytest.mark.parametrize(
    "make",
    [
        lambda: GuandanDealEnv(),
        lambda: GuandanDealEnv(encoding="danzero"),
        lambda: GuandanMatchEnv(),
        lambda: GuandanMatchEnv(encoding="danzero", card_strategy="heuristic", rules="jiangsu2017"),
    ],
    ids=["deal", "deal-danzero", "match", "match-danzero-cards-by-strategy"],
)
def test_pettingzoo_api_test_passes(make):
    with warnings.catch_warnings():  # api_test resets with options={"options": 1} on purpose
        warnings.simplefilter("ignore", UnknownResetOptionWarning)
        api_test(make(), num_cycles=1000)


def test_every_legal_action_has_its_own_index_and_its_description():
    """Over random matches, the legal actions of each decision map to distinct indices
    whose description names the action's type and key."""
    env = GuandanMatchEnv()
    rng = np.random.default_rng(1)
    decisions = 0
    for seed in range(3):
        env.reset(seed=seed)
        for _agent in env.agent_iter():
            if env.terminations[env.agent_selection] or env.truncations[env.agent_selection]:
                env.step(None)
                continue
            legal = env.deal.legal_actions()
            level = env.deal.level
            indices = [action_index(a, level) for a in legal]
            assert len(set(indices)) == len(legal), legal
            for a, i in zip(legal, indices):
                assert 0 <= i < N_ACTIONS
                text = describe_index(i)
                if isinstance(a, int):
                    assert parse_card(text.split()[1]) == a
                elif a.type == "pass":
                    assert text == "pass"
                else:
                    assert text == "joker_bomb" or text.startswith(f"{a.type}:{a.key}")
            env.step(int(rng.choice(indices)))
            decisions += 1
    assert decisions > 300


def test_seeded_resets_are_reproducible():
    def trace(env, seed):
        rng = np.random.default_rng(0)
        env.reset(seed=seed)
        out = []
        for _agent in env.agent_iter(400):
            obs, r, term, trunc, _ = env.last()
            out.append((env.agent_selection, obs["observation"].tobytes(), obs["action_mask"].tobytes(), r))
            if term or trunc:
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        return out

    a, b = GuandanMatchEnv(), GuandanMatchEnv()
    assert trace(a, 11) == trace(b, 11)
    assert trace(a, 11) != trace(a, 12)
    # an unseeded reset after a seeded one continues a reproducible sequence
    a.reset(seed=5)
    b.reset(seed=5)
    a.reset()
    b.reset()
    assert a.deal.setup.hands == b.deal.setup.hands


def test_deal_env_deals_the_engines_cards_and_replays_through_deal():
    rng = np.random.default_rng(2)
    env = GuandanDealEnv()
    for seed in (0, 1, 2):
        _random_episode(env, seed, rng)
        setup = Match(seed).next_setup()
        assert env.deal.setup.hands == setup.hands == deal_hands(random.Random(deal_seed(seed, 0)))
        again = replay(setup, env.deal.actions)
        assert again.snapshot() == env.deal.snapshot()
        # rewards: the winning team's upgrade, from each team's side
        result = env.deal.result
        assert result is not None


def test_deal_env_rewards_are_the_level_change_from_each_side():
    env = GuandanDealEnv()
    env.reset(seed=4)
    rng = np.random.default_rng(4)
    totals = {a: 0.0 for a in env.possible_agents}
    for agent in env.agent_iter():
        obs, r, term, trunc, _ = env.last()
        totals[agent] += r
        if term or trunc:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    result = env.deal.result
    for s, a in enumerate(env.possible_agents):
        assert totals[a] == (result.upgrade if s % 2 == result.winner_team else -result.upgrade)


def test_match_env_follows_the_engines_match_deal_by_deal():
    rng = np.random.default_rng(3)
    env = GuandanMatchEnv()
    _random_episode(env, 9, rng)
    engine = Match(9)
    assert len(env.played) >= 1
    for setup, deal in env.played:
        assert engine.next_setup() == setup
        assert replay(setup, deal.actions).snapshot() == deal.snapshot()
        engine.record(deal.result)
    assert engine.over and engine.winner == env.match.winner
    assert any(s.previous is not None for s, _ in env.played[1:]) or len(env.played) == 1


def test_tribute_and_return_are_masked_steps():
    """A setup with tribute: the mask allows exactly the engine's tribute options as card indices."""
    setup = Match(3).next_setup()
    setup = DealSetup(hands=setup.hands, level=2, levels=(2, 0), level_team=0, previous=((0, 1, 2, 3), False))
    env = GuandanDealEnv()
    env.reset(seed=3, options={"setup": setup})
    deal = env.deal
    if deal.phase == "tribute":
        mask = env.observe(env.agent_selection)["action_mask"]
        assert sorted(np.flatnonzero(mask)) == sorted(389 + f for f in deal.tribute_options(deal.to_move))
        env.step(int(np.flatnonzero(mask)[0]))
        assert env.deal.phase == "return"
        mask = env.observe(env.agent_selection)["action_mask"]
        assert np.flatnonzero(mask).min() >= 389
    else:  # resisted by two big jokers: straight to play
        assert deal.tribute_kind == "resisted"


def test_illegal_index_is_refused_with_the_legal_ones_named():
    env = GuandanDealEnv()
    env.reset(seed=0)
    mask = env.observe(env.agent_selection)["action_mask"]
    bad = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(ValueError, match="not legal"):
        env.step(bad)


@pytest.mark.parametrize("action", [1.5, 1.0, "1", "x", [1], np.float64(1)])
def test_an_action_that_is_not_a_whole_number_is_refused(action):
    """A float index was truncated (``step(1.5)`` played action 1); a text one raised
    int()'s own ``invalid literal`` message. Both name the action and the rule now."""
    env = GuandanDealEnv()
    env.reset(seed=0)
    legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
    assert 1 in legal  # so the float would have been played
    before = list(env.deal.actions)
    with pytest.raises(TypeError, match=r"action .*: an action is a whole-number index 0\.\.442"):
        env.step(action)
    assert list(env.deal.actions) == before


@pytest.mark.parametrize("action", [np.int64(1), np.int8(1), np.array(1)])
def test_numpy_integer_actions_are_taken(action):
    env = GuandanDealEnv()
    env.reset(seed=0)
    env.step(action)
    assert len(env.deal.actions) == 1


@pytest.mark.parametrize("env_class", [GuandanDealEnv, GuandanMatchEnv])
def test_reset_seed_is_a_whole_number(env_class):
    """QA: ``reset(seed="a")`` raised int()'s message, ``reset(seed=np.int64(5))`` random's
    "only supported seed types" and ``seed=1.5`` was taken as 1. A NumPy integer is a seed
    like the int it holds; anything else is refused by name."""
    a, b = env_class(), env_class()
    a.reset(seed=5)
    b.reset(seed=np.int64(5))
    assert a.deal.setup == b.deal.setup
    a.reset()
    b.reset()
    assert a.deal.setup == b.deal.setup
    for bad in ("a", 1.5):
        with pytest.raises(TypeError, match=r"seed .*: a whole number \(or None\)"):
            a.reset(seed=bad)


@pytest.mark.parametrize(
    ("make", "known"),
    [
        (GuandanDealEnv, "known options are 'setup'"),
        (GuandanMatchEnv, "known options are none"),
        (lambda: GuandanSingleAgentEnv(others=["random"] * 3), "known options are 'setup'"),
    ],
)
def test_an_unknown_reset_option_is_named_in_a_warning(make, known):
    """QA: ``reset(options={"setpu": ...})`` was silently ignored (a random deal was played).
    A warning, not an error: PettingZoo's api_test resets with ``options={"options": 1}``."""
    env = make()
    with pytest.warns(
        UnknownResetOptionWarning, match=rf"reset option 'setpu' is unknown to \w+ and ignored: {known}"
    ):
        env.reset(seed=0, options={"setpu": None})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env.reset(seed=0, options={})  # empty options are no options
        env.reset(seed=0, options=None)


@pytest.mark.parametrize("env_class", [GuandanDealEnv, GuandanMatchEnv])
def test_observe_an_unknown_agent_names_the_agents(env_class):
    """QA: ``observe("seat_9")`` raised a bare ``KeyError: 'seat_9'``."""
    env = env_class()
    env.reset(seed=0)
    with pytest.raises(
        ValueError, match=r"agent 'seat_9' is not an agent .*: agents are seat_0, seat_1, seat_2, seat_3"
    ):
        env.observe("seat_9")
    assert env.observe("seat_3")["observation"].shape


def test_single_agent_others_as_a_string_is_refused():
    with pytest.raises(ValueError, match="others: a list of 3 strategies .* got the string 'random'"):
        GuandanSingleAgentEnv(others="random")


# ------------------------------------------------------------------ encodings


def test_layouts_add_up_and_match_docs():
    assert sum(n for _, n in DANZERO_STATE_LAYOUT) == 513
    assert get_encoding("danzero").action_size == 54
    enc = get_encoding("guandan")
    assert enc.state_size == sum(n for _, n in GUANDAN_STATE_LAYOUT)
    assert enc.action_size == sum(n for _, n in GUANDAN_ACTION_LAYOUT)
    doc = (ROOT / "docs" / "env.md").read_text(encoding="utf-8")
    for layout in (GUANDAN_STATE_LAYOUT, GUANDAN_ACTION_LAYOUT, DANZERO_STATE_LAYOUT):
        offset = 0
        for name, size in layout:
            row = f"| `{name}` | {offset} | {size} |"
            assert row in doc, f"docs/env.md lacks the row {row}"
            offset += size


def test_danzero_card_order_is_theirs():
    """Their card index: rank-major, suits H S C D (H2 = 0, S2 = 1, CA = 50, DA = 51), jokers 52/53."""
    expect = {"H2": 0, "S2": 1, "C2": 2, "D2": 3, "S3": 5, "CA": 50, "DA": 51, "SB": 52, "HR": 53}
    for tok, idx in expect.items():
        assert DANZERO_CARD[parse_card(tok)] == idx
    assert sorted(DANZERO_CARD) == list(range(54))


def test_danzero_wild_flags():
    enc = get_encoding("danzero")

    def flags(text, level):
        v = np.zeros(54, dtype=np.float32)
        for f in parse_cards(text):
            v[DANZERO_CARD[f]] += 1
        return danzero_universal_flags(v, level)

    assert not flags("S3 S4 S5 S6 D9", 0).any()  # no ♥2: all zero
    f = flags("H2 S3 S4 S6 S7 D9", 0)  # ♥2 held; spades 3-4-_-6-7 miss one card
    assert f[0] == 1 and f[1] == 1
    assert flags("H2 S3 D9 CK", 0)[1] == 0
    assert enc.state_size == 513


def test_encodings_read_no_hidden_card():
    """Two deals that differ only in other seats' unplayed cards encode identically for seat 0."""
    for seed in range(6):
        rng = random.Random(seed)
        hands = deal_hands(random.Random(100 + seed))
        a = Deal(DealSetup(hands=hands, level=seed % 13, first_leader=seed % 4))
        for _ in range(rng.randrange(0, 60)):
            if a.phase == "over":
                break
            a.apply(rng.choice(a.legal_actions()))
        if a.phase == "over":
            continue
        # swap one held card between seats 1 and 3 (two unplayed, different cards)
        h1, h3 = a.hands[1], a.hands[3]
        pairs = [(x, y) for x in set(h1) for y in set(h3) if x != y]
        if not pairs:
            continue
        x, y = rng.choice(sorted(pairs))
        start = [list(h) for h in hands]
        start[1].remove(x)
        start[1].append(y)
        start[3].remove(y)
        start[3].append(x)
        b = replay(
            DealSetup(hands=tuple(tuple(sorted(h)) for h in start), level=seed % 13, first_leader=seed % 4),
            a.actions,
        )
        assert b.hands[1] != a.hands[1]
        for name in ("guandan", "danzero"):
            enc = get_encoding(name)
            assert np.array_equal(enc.state(observe(a, 0)), enc.state(observe(b, 0))), (name, seed)
            assert np.array_equal(enc.state(observe(a, 2)), enc.state(observe(b, 2))), (name, seed)
            # the seat that holds the swapped card does see it
            assert not np.array_equal(enc.state(observe(a, 1)), enc.state(observe(b, 1)))


def test_guandan_state_counts_cards_consistently():
    """hand + unseen + everything played = two of each face, in every state of a random deal."""
    enc = get_encoding("guandan")
    offsets, off = {}, 0
    for name, size in GUANDAN_STATE_LAYOUT:
        offsets[name] = (off, off + size)
        off += size
    d = Deal(DealSetup(hands=deal_hands(random.Random(8)), level=3, first_leader=1))
    rng = random.Random(8)
    while d.phase != "over":
        v = enc.state(observe(d, d.to_move))
        seg = {k: v[a:b] for k, (a, b) in offsets.items()}
        played = seg["played_self"] + seg["played_next"] + seg["played_partner"] + seg["played_prev"]
        assert np.array_equal(seg["hand"] + seg["unseen"] + played, np.full(54, 2.0))
        assert seg["cards_left_self"].argmax() == len(d.hands[d.to_move])
        d.apply(rng.choice(d.legal_actions()))


def test_single_agent_env_plays_to_the_end_with_the_learners_reward():
    env = GuandanSingleAgentEnv(seat=1, others=("heuristic", "random", "greedy"))
    rng = np.random.default_rng(0)
    obs, info = env.reset(seed=6)
    total, done = 0.0, False
    while not done:
        assert obs["action_mask"].any() and env.action_masks().any()
        obs, r, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        total += r
        done = term or trunc
    result = env.aec.deal.result
    assert total == (result.upgrade if result.winner_team == 1 else -result.upgrade)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    # reproducible
    first = env.reset(seed=6)[0]["observation"]
    assert np.array_equal(
        first,
        GuandanSingleAgentEnv(seat=1, others=("heuristic", "random", "greedy")).reset(seed=6)[0][
            "observation"
        ],
    )


def test_fast_encoders_equal_the_from_scratch_reference():
    """The incremental byte-built encoders equal a plain recomputation from all events,
    for every seat at every decision of random matches (tribute and return included)."""
    from tests.env_reference import reference_danzero_state, reference_guandan_state

    g, z = get_encoding("guandan"), get_encoding("danzero")
    env = GuandanMatchEnv()
    rng = np.random.default_rng(7)
    checked = 0
    for seed in (1, 2):
        env.reset(seed=seed)
        for _agent in env.agent_iter():
            if env.terminations[env.agent_selection] or env.truncations[env.agent_selection]:
                env.step(None)
                continue
            if checked % 3 == 0:
                for seat in range(4):
                    obs = observe(env.deal, seat)
                    assert np.array_equal(g.state(obs), reference_guandan_state(obs))
                    assert np.array_equal(z.state(obs), reference_danzero_state(obs))
            checked += 1
            env.step(int(rng.choice(list(env.legal_index_map()))))
    assert checked > 500


def test_masks_follow_each_reset():
    """Back-to-back resets never show the previous deal's legal actions."""
    env = GuandanDealEnv()
    for seed in range(30):
        env.reset(seed=seed)
        mask = env.observe(env.agent_selection)["action_mask"]
        expect = sorted(action_index(a, env.deal.level) for a in env.deal.legal_actions())
        assert list(np.flatnonzero(mask)) == expect


@pytest.mark.parametrize("encoding", ["guandan", "danzero"])
def test_env_observations_equal_the_reference_at_every_decision(encoding):
    """What ``last()`` gives the seat to move, at every decision of two envs stepped in turn
    (their cached play records interleave), equals the from-scratch encoder; the mask is
    exactly the legal actions' indices, and a caller changing a returned array changes nothing."""
    from tests.env_reference import reference_danzero_state, reference_guandan_state

    reference = reference_guandan_state if encoding == "guandan" else reference_danzero_state
    envs = [GuandanMatchEnv(encoding=encoding), GuandanDealEnv(encoding=encoding)]
    for k, env in enumerate(envs):
        env.reset(seed=20 + k)
    rng = random.Random(3)
    iters = [iter(env.agent_iter(max_iter=600)) for env in envs]
    checked = 0
    while iters:
        for env, it in list(zip(envs, iters)):
            agent = next(it, None)
            if agent is None:
                envs.remove(env)
                iters.remove(it)
                continue
            obs, _r, term, trunc, _info = env.last()
            if term or trunc:
                env.step(None)
                continue
            seat = int(agent[-1])
            assert np.array_equal(obs["observation"], reference(observe(env.deal, seat)))
            expect = sorted(action_index(a, env.deal.level) for a in env.deal.legal_actions())
            assert np.flatnonzero(obs["action_mask"]).tolist() == expect
            obs["observation"][:] = 7.0  # the caller's arrays are its own
            obs["action_mask"][:] = 1
            again = env.observe(agent)
            assert np.array_equal(again["observation"], reference(observe(env.deal, seat)))
            assert np.flatnonzero(again["action_mask"]).tolist() == expect
            other = f"seat_{(seat + 1 + rng.randrange(3)) % 4}"  # a seat not to move: no mask
            assert not env.observe(other)["action_mask"].any()
            env.step(rng.choice(expect))
            checked += 1
    assert checked > 300

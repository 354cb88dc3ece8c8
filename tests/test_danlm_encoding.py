"""The ``danzero-danlm`` encoding feeds DanLM's published DanZero checkpoint what it was
trained on: every 54-card vector suit-major (index = suit * 13 + rank, suits ♥ ♠ ♣ ♦, ranks
2..A as 0..12, small joker 52, big joker 53); and ``last_action`` follows DanZero's turn
sequence (issue 29). Checked on constructed observations against those facts, not a model."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numpy")

from observations import obs_for  # noqa: E402

from guandan_cli.engine import Combo, parse_cards  # noqa: E402
from guandan_cli.engine.cards import FACE_NAMES  # noqa: E402
from guandan_cli.engine.deal import Event  # noqa: E402
from guandan_cli.env import GuandanMatchEnv  # noqa: E402
from guandan_cli.env.encoding import DANZERO_CARD_SEGMENTS, DANZERO_STATE_LAYOUT, get_encoding  # noqa: E402

LM = get_encoding("danzero-danlm")
DZ = get_encoding("danzero")
OFFSET = {}
_at = 0
for _name, _size in DANZERO_STATE_LAYOUT:
    OFFSET[_name] = _at
    _at += _size


def published_index(token: str) -> int:
    """The checkpoint's index of a card, from the published rule alone (not our tables)."""
    if token in ("SB", "HR"):
        return {"SB": 52, "HR": 53}[token]
    return "HSCD".index(token[0]) * 13 + "23456789TJQKA".index(token[1])


def segment(state: np.ndarray, name: str) -> np.ndarray:
    return state[OFFSET[name] : OFFSET[name] + 54]


def ones(vector: np.ndarray) -> dict[int, float]:
    return {int(i): float(vector[i]) for i in np.flatnonzero(vector)}


@pytest.mark.parametrize("face", range(54))
def test_each_card_of_the_hand_lands_at_its_published_index(face):
    state = LM.state(obs_for((face,), level=5))
    assert ones(segment(state, "my_handcards")) == {published_index(FACE_NAMES[face]): 1.0}
    assert ones(LM.action(face, 5)) == {published_index(FACE_NAMES[face]): 1.0}


def test_some_indices_spelled_out():
    """H2 0, HA 12, S2 13, SA 25, C2 26, CK 37, D2 39, DA 51 (rank-major danzero: H2 0, S2 1, DA 51)."""
    hand = parse_cards("H2 HA S2 SA C2 CK D2 DA")
    mine = segment(LM.state(obs_for(hand)), "my_handcards")
    assert sorted(ones(mine)) == [0, 12, 13, 25, 26, 37, 39, 51]
    original = segment(DZ.state(obs_for(hand)), "my_handcards")
    assert sorted(ones(original)) == [0, 1, 2, 3, 46, 48, 49, 51]  # rank-major: H2 S2 C2 D2 CK HA SA DA


def _play(seat: int, text: str, lead: bool = False) -> Event:
    return Event("play", seat, Combo.from_text(text), lead=lead)


def _pass(seat: int) -> Event:
    return Event("pass", seat)


def test_every_card_segment_of_a_trick_uses_the_published_order():
    """Seat 0 to move after 下家 (1) led a pair of 3s, the partner (2) a pair of Ks and the 上家
    (3) a pair of As: each seat's cards in its segment, the latest move and the partner's."""
    events = [
        _play(1, "pair:3 S3 H3", lead=True),
        _play(2, "pair:K CK CK"),
        _play(3, "pair:A DA HA"),
    ]
    hand = parse_cards("H2 D2 HR")
    obs = obs_for(hand, "pair:A DA HA", owner=3, events=events, counts=(3, 25, 25, 25))
    state = LM.state(obs)
    assert ones(segment(state, "down_played_cards")) == {
        published_index("S3"): 1.0,
        published_index("H3"): 1.0,
    }
    assert ones(segment(state, "teammate_played_cards")) == {published_index("CK"): 2.0}
    assert ones(segment(state, "up_played_cards")) == {published_index("DA"): 1.0, published_index("HA"): 1.0}
    assert ones(segment(state, "last_action")) == {published_index("DA"): 1.0, published_index("HA"): 1.0}
    assert ones(segment(state, "last_teammate_action")) == {published_index("CK"): 2.0}
    unseen = segment(state, "other_handcards")  # 2 − own − played
    assert unseen[published_index("HR")] == 1 and unseen[published_index("H2")] == 1
    assert unseen[published_index("CK")] == 0 and unseen[published_index("S3")] == 1
    assert unseen[published_index("SK")] == 2 and unseen.sum() == 108 - 3 - 6
    action = LM.action(Combo.from_text("pair:K HK SK"), 0)
    assert ones(action) == {published_index("HK"): 1.0, published_index("SK"): 1.0}


def test_the_other_segments_are_danzeros():
    """Outside the seven card segments the two encodings agree value for value, and each card
    segment holds the same counts in the other order, at every decision of a few matches."""
    card = set()
    for name in DANZERO_CARD_SEGMENTS:
        card |= set(range(OFFSET[name], OFFSET[name] + 54))
    rest = [i for i in range(LM.state_size) if i not in card]
    env = GuandanMatchEnv(encoding="danzero-danlm")
    rng = np.random.default_rng(5)
    checked = 0
    for seed in (3, 4):
        env.reset(seed=seed)
        for _agent in env.agent_iter(max_iter=400):
            obs, _r, term, trunc, _info = env.last()
            if term or trunc:
                env.step(None)
                continue
            from guandan_cli.engine.observation import observe

            seen = observe(env.deal, env.deal.to_move)
            lm, dz = LM.state(seen), DZ.state(seen)
            assert np.array_equal(obs["observation"], lm)
            assert np.array_equal(lm[rest], dz[rest])
            for name in DANZERO_CARD_SEGMENTS:
                assert sorted(segment(lm, name)) == sorted(segment(dz, name))
            checked += 1
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert checked > 300


# ------------------------------------------------------------------ last_action (both encodings)

MINUS = -np.ones(54)


@pytest.mark.parametrize("enc", [LM, DZ], ids=["danzero-danlm", "danzero"])
def test_last_action_follows_danzeros_turn_sequence(enc):
    """DanZero's client keeps a turn sequence: each move, then [-1] for a seat that is out when
    its turn is passed over, and no cards for a seat 接风 skips; last_action is its last entry
    (their actor's game.py, ``prepare`` and the bookkeeping of ``received_message``)."""
    hand = parse_cards("H2 D2 S9")
    # no move yet in the deal
    assert np.array_equal(segment(enc.state(obs_for(hand)), "last_action"), MINUS)
    # the 上家 (3) goes out with a pair of As: the seat to move sees that play (it must beat it)
    went_out = [_play(2, "single:5 S5", lead=True), _play(3, "pair:A DA HA")]
    obs = obs_for(hand, "pair:A DA HA", owner=3, events=went_out, counts=(3, 20, 20, 0), finished=(3,))
    expect = np.zeros(54)
    expect[[published_index("DA"), published_index("HA")] if enc is LM else [51, 48]] = 1
    assert np.array_equal(segment(enc.state(obs), "last_action"), expect)
    # later, 3's partner (1) leads by 接风 and 2 follows: the 上家's turn is passed over, [-1]
    later = [
        *went_out,
        _pass(0),
        _pass(1),
        _pass(2),
        _play(1, "single:7 S7", lead=True),
        _play(2, "single:8 S8"),
    ]
    obs = obs_for(hand, "single:8 S8", owner=2, events=later, counts=(3, 19, 19, 0), finished=(3,))
    assert np.array_equal(segment(enc.state(obs), "last_action"), MINUS)
    # 接风: seat 1 goes out, everyone passes, its partner (3) leads: the entry of the skipped
    # seat 2 holds no cards, as the pass before it
    jiefeng = [_play(1, "single:K SK", lead=True), _pass(2), _pass(3), _pass(0)]
    obs = obs_for(hand, None, seat=3, events=jiefeng, counts=(20, 0, 20, 3), finished=(1,))
    assert np.array_equal(segment(enc.state(obs), "last_action"), np.zeros(54))
    # the partner out: last_teammate_action is [-1]
    assert np.array_equal(segment(enc.state(obs), "last_teammate_action"), MINUS)


def test_an_onnx_model_gets_the_published_order(tmp_path):
    """A 567-input model scoring only index 25 of the action (♠A in the checkpoint's order, ♠8
    in DanZero's rank-major one: 6 * 4 + 1) plays a ♠A under @danzero-danlm and a ♠8 under
    @danzero whenever it can."""
    pytest.importorskip("onnxruntime")
    import random

    from guandan_cli.strategies.registry import load_strategy
    from test_onnx_strategy import _decisions, linear_model

    weights = np.zeros(567, np.float32)
    weights[513 + 25] = 1.0
    path = linear_model(tmp_path / "m.onnx", weights)
    assert published_index("SA") == 25 and "23456789TJQKA".index("8") * 4 + "HSCD".index("S") == 25
    for name, token in (("danzero-danlm", "SA"), ("danzero", "S8")):
        face = parse_cards(token)[0]
        player = load_strategy(f"onnx:{path}@{name}")(0, random.Random(0))
        seen = 0
        for obs in _decisions(4, seed=3):
            chosen = player.choose_play(obs)
            if any(face in a.cards for a in obs.legal_actions):
                assert face in chosen.cards, (name, token)
                seen += 1
        assert seen > 0

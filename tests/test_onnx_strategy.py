"""`onnx:` model strategies: tiny models built here with the onnx helper."""

import json
import random
import sys

import pytest

np = pytest.importorskip("numpy", reason="needs the 'learn' extra: pip install -e '.[learn]'")
onnx = pytest.importorskip("onnx", reason="needs the 'learn' extra: pip install -e '.[learn]'")
pytest.importorskip("onnxruntime", reason="needs the 'learn' extra: pip install -e '.[learn]'")

from click.testing import CliRunner  # noqa: E402
from guandan_cli.strategies import onnx_model  # noqa: E402
from guandan_cli.strategies.registry import UnknownStrategyError, load_strategy  # noqa: E402
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from guandan_cli.engine import parse_card  # noqa: E402
from guandan_cli.engine.cards import RANK_OF, deal_hands  # noqa: E402
from guandan_cli.engine.combos import POWER  # noqa: E402
from guandan_cli.engine.deal import Deal, DealSetup  # noqa: E402
from guandan_cli.engine.match import Match  # noqa: E402
from guandan_cli.engine.observation import observe  # noqa: E402
from guandan_cli.env.encoding import DANZERO_CARD, get_encoding  # noqa: E402


def linear_model(path, weights, squeeze=False):
    """A one-MatMul model: scores = x @ weights (shape [N, 1], or [N] with ``squeeze``)."""
    w = numpy_helper.from_array(np.asarray(weights, np.float32).reshape(-1, 1), "W")
    nodes = [helper.make_node("MatMul", ["x", "W"], ["s"])]
    out_shape = ["N", 1]
    inits = [w]
    if squeeze:
        inits.append(numpy_helper.from_array(np.array([1], np.int64), "axes"))
        nodes.append(helper.make_node("Squeeze", ["s", "axes"], ["y"]))
        out_shape = ["N"]
    else:
        nodes.append(helper.make_node("Identity", ["s"], ["y"]))
    graph = helper.make_graph(
        nodes,
        "tiny",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", len(weights)])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, out_shape)],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, str(path))
    return str(path)


def _decisions(n_deals=4, seed=0):
    """Observations of the seat to move along random deals (several legal actions each)."""
    rng = random.Random(seed)
    for k in range(n_deals):
        d = Deal(DealSetup(hands=deal_hands(random.Random(seed * 100 + k)), level=k % 13, first_leader=k % 4))
        while d.phase != "over":
            obs = observe(d, d.to_move)
            if len(obs.legal_actions) > 1:
                yield obs
            d.apply(rng.choice(d.legal_actions()))


def test_scores_map_to_the_right_actions(tmp_path):
    """Score = Σ w[face] over the action's cards: the strategy's scores equal that sum,
    computed here from the cards, and it plays the best-scored action."""
    enc = get_encoding("guandan")
    rng = np.random.default_rng(0)
    w_face = rng.standard_normal(54).astype(np.float32)
    weights = np.zeros(enc.state_size + enc.action_size, np.float32)
    weights[enc.state_size : enc.state_size + 54] = w_face
    player = load_strategy(f"onnx:{linear_model(tmp_path / 'w.onnx', weights)}@guandan")(0, random.Random(0))
    checked = 0
    for obs in _decisions():
        expect = [float(sum(w_face[f] for f in a[2])) for a in obs.legal_actions]
        got = player.scores(obs, obs.legal_actions)
        assert np.allclose(got, expect, atol=1e-4)
        best = obs.legal_actions[int(np.argmax(expect))]
        assert player.choose_play(obs) == best
        checked += 1
    assert checked > 100


def test_most_cards_model_and_squeezed_output(tmp_path):
    enc = get_encoding("guandan")
    weights = np.zeros(enc.state_size + enc.action_size, np.float32)
    weights[enc.state_size : enc.state_size + 54] = 1.0  # score = number of cards played
    path = linear_model(tmp_path / "most.onnx", weights, squeeze=True)
    (tmp_path / "most.json").write_text(json.dumps({"encoding": "guandan"}))
    player = load_strategy(f"onnx:{path}")(0, random.Random(0))  # encoding from the sidecar
    for obs in _decisions(2, seed=1):
        assert len(player.choose_play(obs).cards) == max(len(a.cards) for a in obs.legal_actions)


def test_danzero_model_prefers_the_big_joker(tmp_path):
    """A DanZero-width model scoring only the action's big jokers plays one whenever it can."""
    enc = get_encoding("danzero")
    weights = np.zeros(567, np.float32)
    weights[513 + DANZERO_CARD[parse_card("HR")]] = 1.0
    player = load_strategy(f"onnx:{linear_model(tmp_path / 'dz.onnx', weights)}@danzero")(0, random.Random(0))
    seen = 0
    for obs in _decisions(3, seed=2):
        chosen = player.choose_play(obs)
        if any(53 in a.cards for a in obs.legal_actions):
            assert 53 in chosen.cards
            seen += 1
        else:
            assert chosen == obs.legal_actions[0]  # all tie at 0: the first listed
    assert seen > 0 and enc.state_size == 513


def test_tribute_and_return_by_rule_or_by_model(tmp_path):
    setup = Match(3).next_setup()
    enc = get_encoding("guandan")
    weights = np.zeros(enc.state_size + enc.action_size, np.float32)
    weights[enc.state_size : enc.state_size + 54] = np.arange(54)  # the model likes high faces
    path = linear_model(tmp_path / "cards.onnx", weights)
    rule_player = load_strategy(f"onnx:{path}@guandan")(0, random.Random(0))
    (tmp_path / "cards.json").write_text(json.dumps({"encoding": "guandan", "cards": "model"}))
    model_player = load_strategy(f"onnx:{path}")(0, random.Random(0))
    tested = 0
    for seed in range(20):
        setup = Match(seed).next_setup()
        d = Deal(DealSetup(hands=setup.hands, level=5, previous=((0, 2, 1, 3), True)))
        if d.phase != "tribute":
            continue
        obs = observe(d, d.to_move)
        assert rule_player.choose_tribute(obs) == min(obs.legal_actions, key=lambda f: (obs.hand.count(f), f))
        assert model_player.choose_tribute(obs) == max(obs.legal_actions)
        while d.phase == "tribute":
            d.apply(d.legal_actions()[0])
        obs = observe(d, d.to_move)
        power = POWER[obs.level]
        got = rule_player.choose_return(obs)
        assert power[RANK_OF[got]] == min(power[RANK_OF[f]] for f in obs.legal_actions)
        assert model_player.choose_return(obs) == max(obs.legal_actions)
        tested += 1
    assert tested > 0


def test_whole_matches_under_simulate_with_two_workers(tmp_path):
    from guandan_cli import simulate

    enc = get_encoding("danzero")
    rng = np.random.default_rng(3)
    path = linear_model(tmp_path / "r.onnx", rng.standard_normal(enc.state_size + enc.action_size))
    spec = f"onnx:{path}@danzero"
    two = simulate(
        matches=4, seed=5, strategies=[spec, "random", spec, "random"], workers=2, out=tmp_path / "w2"
    )
    one = simulate(
        matches=4, seed=5, strategies=[spec, "random", spec, "random"], workers=1, out=tmp_path / "w1"
    )
    d2, d1 = two.deals(), one.deals()
    assert d2.height > 4 and d2.equals(d1)


def test_bad_specs_fail_in_one_line(tmp_path, monkeypatch):
    enc = get_encoding("guandan")
    path = linear_model(tmp_path / "g.onnx", np.zeros(enc.state_size + enc.action_size))
    cases = {
        f"onnx:{tmp_path / 'missing.onnx'}@guandan": "no file",
        f"onnx:{path}": "no encoding named",
        f"onnx:{path}@nope": "unknown encoding 'nope'",
        f"onnx:{path}@danzero": "expected [N, 567]",
        "onnx:": "give a model file",
    }
    (tmp_path / "junk.onnx").write_text("not a model")
    cases[f"onnx:{tmp_path / 'junk.onnx'}@guandan"] = "not a loadable ONNX model"
    for spec, words in cases.items():
        with pytest.raises(UnknownStrategyError) as info:
            load_strategy(spec)
        assert words in str(info.value) and "\n" not in str(info.value), str(info.value)
    # without onnxruntime: one line naming the extra
    monkeypatch.setitem(sys.modules, "onnxruntime", None)
    monkeypatch.setattr(onnx_model, "_SESSIONS", {})
    with pytest.raises(UnknownStrategyError, match=r"needs onnxruntime: pip install -e '\.\[learn\]'"):
        load_strategy(f"onnx:{path}@guandan")
    # without numpy (the encodings): one line naming the extra
    monkeypatch.setitem(sys.modules, "guandan_cli.env.encoding", None)
    with pytest.raises(UnknownStrategyError, match=r"needs the 'learn' extra: pip install -e '\.\[learn\]'$"):
        load_strategy(f"onnx:{path}@guandan")


def test_compare_command_runs_a_model_file(tmp_path):
    from guandan_cli.cli.app import app

    enc = get_encoding("guandan")
    path = linear_model(tmp_path / "c.onnx", np.ones(enc.state_size + enc.action_size))
    runner = CliRunner()
    res = runner.invoke(
        app,
        [
            "compare",
            f"onnx:{path}",
            "random",
            "--encoding",
            "guandan",
            "-n",
            "2",
            "-q",
            "--workers",
            "1",
            "--out",
            str(tmp_path / "c"),
        ],
    )
    assert res.exit_code == 0, res.output
    assert "random" in res.output and "duplicate pairs" in res.output
    bad = runner.invoke(app, ["compare", f"onnx:{path}", "random", "-q", "--out", str(tmp_path / "d")])
    assert bad.exit_code == 2 and "no encoding named" in bad.output


def test_fingerprint_follows_the_model_file(tmp_path):
    """Retraining a model (same path, new weights) changes the strategy's fingerprint."""
    from guandan_cli.strategies.fingerprint import fingerprint

    enc = get_encoding("danzero")
    width = enc.state_size + enc.action_size
    path = linear_model(tmp_path / "m.onnx", np.zeros(width))
    spec = f"onnx:{path}@danzero"
    before = fingerprint(spec)
    assert fingerprint(spec) == before
    linear_model(tmp_path / "m.onnx", np.ones(width))
    assert fingerprint(spec)["hash"] != before["hash"]

"""Environment throughput next to the engine loop it wraps, and an ONNX model strategy's decision time.

Run from the repository root (needs the ``env`` and ``learn`` extras)::

    python scripts/bench_env.py --deals 200

Prints steps/s on one core (the process is pinned to one CPU where the OS allows) for:
the engine loop (``Deal.legal_actions`` + ``apply_unchecked`` with uniformly random
actions), the AEC deal env with uniformly random masked actions (``last()`` with the
observation and mask, then ``step``) per encoding, and the env without observations
(``last(observe=False)``). Then the mean decision time of ``onnx:`` strategies with an
MLP (hidden 256-256, random weights, built here with ``onnx.helper``) per encoding.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

from guandan_cli.engine.deal import Deal  # noqa: E402
from guandan_cli.engine.match import Match  # noqa: E402
from guandan_cli.engine.observation import observe  # noqa: E402
from guandan_cli.env import GuandanDealEnv, get_encoding  # noqa: E402


def engine_loop(deals: int) -> tuple[int, float]:
    rng = random.Random(0)
    steps = 0
    t = time.perf_counter()
    for seed in range(deals):
        deal = Deal(Match(seed).next_setup())
        while deal.phase != "over":
            deal.apply_unchecked(rng.choice(deal.legal_actions()))
            steps += 1
    return steps, time.perf_counter() - t


def play_deal_loop(deals: int) -> tuple[int, float]:
    """The engine's own game loop (``play_deal``: an observation per decision) with random bots."""
    from guandan_cli.strategies.random_bot import RandomStrategy

    from guandan_cli.engine.play import play_deal

    steps = 0
    t = time.perf_counter()
    for seed in range(deals):
        deal = Deal(Match(seed).next_setup())
        play_deal(deal, [RandomStrategy(s, random.Random(4 * seed + s)) for s in range(4)])
        steps += len(deal.actions)
    return steps, time.perf_counter() - t


def env_loop(deals: int, encoding: str, observe_: bool) -> tuple[int, float]:
    rng = random.Random(0)
    env = GuandanDealEnv(encoding=encoding)
    steps = 0
    t = time.perf_counter()
    for seed in range(deals):
        env.reset(seed=seed)
        for _agent in env.agent_iter():
            obs, _r, term, trunc, _info = env.last(observe_)
            if term or trunc:
                env.step(None)
                continue
            if observe_:
                action = rng.choice(np.flatnonzero(obs["action_mask"]).tolist())
            else:
                action = rng.choice(list(env.legal_index_map()))
            env.step(action)
            steps += 1
    return steps, time.perf_counter() - t


def mlp_model(width: int, path: Path, hidden: int = 256) -> None:
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(0)
    sizes = [width, hidden, hidden, 1]
    inits, nodes, prev = [], [], "x"
    for i, (a, b) in enumerate(zip(sizes, sizes[1:])):
        inits += [
            numpy_helper.from_array((rng.standard_normal((a, b)) / np.sqrt(a)).astype(np.float32), f"W{i}"),
            numpy_helper.from_array(np.zeros(b, np.float32), f"B{i}"),
        ]
        nodes += [
            helper.make_node("MatMul", [prev, f"W{i}"], [f"m{i}"]),
            helper.make_node("Add", [f"m{i}", f"B{i}"], [f"a{i}"]),
        ]
        prev = f"a{i}"
        if i < len(sizes) - 2:
            nodes.append(helper.make_node("Relu", [prev], [f"r{i}"]))
            prev = f"r{i}"
    graph = helper.make_graph(
        nodes,
        "mlp",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", width])],
        [helper.make_tensor_value_info(prev, TensorProto.FLOAT, ["N", 1])],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.save(model, path)


def decision_time(encoding: str, decisions: int) -> tuple[float, float, float]:
    from guandan_cli.strategies.registry import load_strategy

    enc = get_encoding(encoding)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "mlp.onnx"
        mlp_model(enc.state_size + enc.action_size, path)
        player = load_strategy(f"onnx:{path}@{encoding}")(0, random.Random(0))
        rng = random.Random(1)
        times, sizes, enc_times = [], [], []
        seed = 0
        while len(times) < decisions:
            deal = Deal(Match(seed).next_setup())
            seed += 1
            while deal.phase != "over" and len(times) < decisions:
                obs = observe(deal, deal.to_move)
                if len(obs.legal_actions) > 1:
                    t = time.perf_counter()
                    player.choose_play(obs)
                    times.append(time.perf_counter() - t)
                    t = time.perf_counter()
                    enc.batch(obs, obs.legal_actions)
                    enc_times.append(time.perf_counter() - t)
                    sizes.append(len(obs.legal_actions))
                deal.apply_unchecked(rng.choice(deal.legal_actions()))
    return float(np.mean(times)), float(np.mean(enc_times)), float(np.mean(sizes))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=200, help="deals per loop (default 200)")
    parser.add_argument("--decisions", type=int, default=2000, help="model decisions timed (default 2000)")
    parser.add_argument("--repeat", type=int, default=3, help="best of this many rounds (default 3)")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    engine = "engine loop (legal_actions + apply_unchecked)"
    loops = {
        engine: lambda: engine_loop(args.deals),
        "engine play_deal loop (observe + random bots)": lambda: play_deal_loop(args.deals),
        "AEC deal env, guandan obs + mask": lambda: env_loop(args.deals, "guandan", True),
        "AEC deal env, danzero obs + mask": lambda: env_loop(args.deals, "danzero", True),
        "AEC deal env, no observation": lambda: env_loop(args.deals, "guandan", False),
    }
    best = {name: 0.0 for name in loops}
    for _ in range(args.repeat):  # rounds interleave the loops, so a load change hits all alike
        for name, run in loops.items():
            steps, secs = run()
            best[name] = max(best[name], steps / secs)
    base = best[engine]
    print(
        f"steps/s on one core, best of {args.repeat} rounds of {args.deals} deals, uniformly random (masked) actions"
    )
    for name, rate in best.items():
        ratio = "" if name == engine else f"  ({base / rate:.2f}x the engine loop's time per step)"
        print(f"{name:46s} {rate:9,.0f}{ratio}")
    try:
        import onnxruntime  # noqa: F401
    except ImportError:
        print("model decision time: skipped (needs the 'learn' extra: pip install -e '.[learn]')")
        return
    for encoding in ("guandan", "danzero"):
        mean, enc_mean, size = decision_time(encoding, args.decisions)
        print(
            f"onnx strategy, {encoding:8s} MLP 256-256: {mean * 1e3:6.3f} ms/decision "
            f"(encoding {enc_mean * 1e3:.3f} ms; {size:.1f} legal actions on average)"
        )


if __name__ == "__main__":
    main()

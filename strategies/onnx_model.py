"""`onnx:path/model.onnx`: a learned model as a strategy, playing its highest-valued legal action.

The spec names a model file, and the encoding its inputs follow: ``onnx:model.onnx@danzero``,
or a sidecar ``model.json`` beside the file (``{"encoding": "danzero"}``), or the
commands' ``--encoding NAME``. Encodings are those of ``guandan_cli.env.encoding``
(``guandan``, ``danzero``, ``danzero-danlm``: DanLM's published DanZero checkpoint); docs/env.md
has their layouts.

The model contract: one float32 input ``[N, state_size + action_size]`` (the seat's
state beside each of the N legal candidates) and a first output of N scores
(``[N]`` or ``[N, 1]``). The strategy plays the candidate with the highest score (the
first listed on ties); with a single legal action it plays it without asking.

Tribute and return: the model decides them only if the sidecar says
``"cards": "model"`` and the encoding has card actions (``guandan``); otherwise
rules decide. Tribute: of the allowed cards (all of the highest power) the one held
in the fewest copies, then the lowest face. Return: the allowed card of lowest power,
preferring a rank held once (no pair or bomb broken), then the lowest face.

Needs the ``learn`` extra (onnxruntime); the error without it says so in one line.
"""

from __future__ import annotations

import json
from pathlib import Path

from guandan_cli.engine.cards import RANK_OF
from guandan_cli.engine.combos import POWER

from .base import Strategy

PREFIX = "onnx:"
_SESSIONS: dict[str, object] = {}


class OnnxSpecError(ValueError):
    """An ``onnx:`` spec that cannot be loaded (the message names the spec and the problem)."""


def parse_spec(spec: str) -> tuple[Path, str | None]:
    """``onnx:PATH[@ENCODING]`` → (path, encoding or None).

    >>> parse_spec("onnx:models/q.onnx@danzero")
    (PosixPath('models/q.onnx'), 'danzero')
    """
    body = spec[len(PREFIX) :] if spec.startswith(PREFIX) else spec
    path, sep, encoding = body.rpartition("@")
    if not sep:
        return Path(body), None
    return Path(path), encoding


def with_encoding(spec: str, encoding: str | None) -> str:
    """Add ``@ENCODING`` to an ``onnx:`` spec that names none (other specs unchanged).

    >>> with_encoding("onnx:m.onnx", "danzero"), with_encoding("heuristic", "danzero")
    ('onnx:m.onnx@danzero', 'heuristic')
    """
    if encoding is None or not spec.startswith(PREFIX) or parse_spec(spec)[1] is not None:
        return spec
    return f"{spec}@{encoding}"


def apply_encoding(specs: list[str], encoding: str | None) -> list[str]:
    """The commands' ``--encoding NAME``: given to every ``onnx:`` spec that names none.

    >>> apply_encoding(["onnx:m.onnx", "heuristic"], "danzero")
    ['onnx:m.onnx@danzero', 'heuristic']
    """
    if encoding is None:
        return specs
    if not any(s.strip().startswith(PREFIX) for s in specs):
        raise ValueError(f"--encoding {encoding!r} is for onnx: strategies, and none is given")
    return [with_encoding(s.strip(), encoding) for s in specs]


def _session(path: Path, spec: str):
    key = str(path.resolve())
    sess = _SESSIONS.get(key)
    if sess is None:
        try:
            import onnxruntime as ort  # noqa: PLC0415 - optional extra
        except ImportError:
            raise OnnxSpecError(f"strategy {spec!r} needs onnxruntime: pip install -e '.[learn]'") from None
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1  # one worker process per core already
        options.inter_op_num_threads = 1
        try:
            sess = ort.InferenceSession(key, options, providers=["CPUExecutionProvider"])
        except Exception as exc:  # noqa: BLE001 - any load failure is one line
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise OnnxSpecError(f"strategy {spec!r}: {path} is not a loadable ONNX model ({first})") from None
        _SESSIONS[key] = sess
    return sess


def onnx_strategy_class(spec: str) -> type[Strategy]:
    """The strategy class for an ``onnx:`` spec, checked now (file, encoding, input width)."""
    path, encoding_name = parse_spec(spec)
    if not str(path) or str(path) == ".":
        raise OnnxSpecError(f"strategy {spec!r}: give a model file, e.g. 'onnx:models/q.onnx'")
    if not path.is_file():
        raise OnnxSpecError(f"strategy {spec!r}: no file {path}")
    sidecar_path = path.with_suffix(".json")
    sidecar: dict = {}
    if sidecar_path.is_file():
        try:
            sidecar = json.loads(sidecar_path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise OnnxSpecError(f"strategy {spec!r}: sidecar {sidecar_path} is not JSON ({exc})") from None
        if not isinstance(sidecar, dict):
            raise OnnxSpecError(f"strategy {spec!r}: sidecar {sidecar_path} must hold a JSON object")
    encoding_name = encoding_name or sidecar.get("encoding")
    if encoding_name is None:
        raise OnnxSpecError(
            f"strategy {spec!r}: no encoding named: add '@guandan', '@danzero' or '@danzero-danlm' to the spec, "
            f'--encoding NAME, or a sidecar {sidecar_path.name} with {{"encoding": NAME}}'
        )
    cards = sidecar.get("cards", "rule")
    if cards not in ("rule", "model"):
        raise OnnxSpecError(f"strategy {spec!r}: sidecar 'cards' is {cards!r}: expected 'rule' or 'model'")
    try:
        from guandan_cli.env.encoding import get_encoding  # noqa: PLC0415 - numpy only when used
    except ImportError:
        raise OnnxSpecError(f"strategy {spec!r} needs the 'learn' extra: pip install -e '.[learn]'") from None
    try:
        encoding = get_encoding(str(encoding_name))
    except ValueError as exc:
        raise OnnxSpecError(f"strategy {spec!r}: {exc}") from None
    if cards == "model" and not encoding.decides_cards:
        raise OnnxSpecError(f"strategy {spec!r}: the {encoding.name} encoding has no tribute/return actions")
    sess = _session(path, spec)
    inputs = sess.get_inputs()
    width = encoding.state_size + encoding.action_size
    if len(inputs) != 1:
        raise OnnxSpecError(f"strategy {spec!r}: the model takes {len(inputs)} inputs, expected 1")
    shape = inputs[0].shape
    if len(shape) != 2 or (isinstance(shape[1], int) and shape[1] != width):
        raise OnnxSpecError(
            f"strategy {spec!r}: the model's input shape is {shape}, expected [N, {width}] "
            f"for the {encoding.name} encoding ({encoding.state_size} + {encoding.action_size})"
        )
    attrs = {
        "name": spec,
        "model_path": path,
        "fingerprint_files": (path, *([sidecar_path] if sidecar_path.is_file() else [])),
        "encoding": encoding,
        "cards_by_model": cards == "model",
        "__doc__": f"The ONNX model {path} with the {encoding.name} encoding.",
    }
    return type("OnnxModelStrategy", (OnnxModelStrategy,), attrs)


class OnnxModelStrategy(Strategy):
    """Plays the legal action a model scores highest (see the module docstring).

    Build one through ``onnx_strategy_class(spec)`` (or ``load_strategy("onnx:…")``).
    """

    name = "onnx"
    model_path: Path
    encoding = None
    cards_by_model = False

    def __init__(self, seat: int, rng=None) -> None:
        super().__init__(seat, rng)
        self._session = _session(self.model_path, self.name)
        self._input = self._session.get_inputs()[0].name

    def scores(self, obs, actions) -> list[float]:
        """The model's score of each candidate (in the order given)."""
        batch = self.encoding.batch(obs, actions)
        out = self._session.run(None, {self._input: batch})[0]
        return [float(x) for x in out.reshape(len(actions), -1)[:, 0]]

    def _best(self, obs):
        legal = obs.legal_actions
        if len(legal) == 1:
            return legal[0]
        scores = self.scores(obs, legal)
        best = max(range(len(legal)), key=lambda i: (scores[i], -i))
        return legal[best]

    def choose_play(self, obs):
        return self._best(obs)

    def choose_tribute(self, obs):
        if self.cards_by_model:
            return self._best(obs)
        hand = obs.hand
        return min(obs.legal_actions, key=lambda f: (hand.count(f), f))

    def choose_return(self, obs):
        if self.cards_by_model:
            return self._best(obs)
        hand = obs.hand
        power = POWER[obs.level]
        held = {r: 0 for r in range(15)}
        for f in hand:
            held[RANK_OF[f]] += 1
        return min(obs.legal_actions, key=lambda f: (power[RANK_OF[f]], held[RANK_OF[f]] != 1, f))

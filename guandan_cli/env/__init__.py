"""Environments for training agents: PettingZoo AEC envs, a gymnasium wrapper, tensor encodings.

Needs the ``env`` extra (``pip install -e '.[env]'``: numpy, gymnasium, pettingzoo).
The layer sits above the engine and uses only its public API; docs/env.md has the
action space, the encodings' layouts and a random-agent loop.

>>> from guandan_cli.env import GuandanDealEnv
>>> env = GuandanDealEnv()
>>> env.reset(seed=0)
>>> len(env.agents)
4
"""

from __future__ import annotations

try:
    import gymnasium  # noqa: F401
    import numpy  # noqa: F401
    import pettingzoo  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the install
    raise ImportError(
        f"guandan_cli.env needs the 'env' extra ({exc.name} is missing): pip install -e '.[env]'"
    ) from None

from .actions import N_ACTIONS, action_index, describe_index, legal_index_map
from .aec import AGENTS, GuandanDealEnv, GuandanMatchEnv, UnknownResetOptionWarning, env
from .encoding import ENCODINGS, Encoding, get_encoding
from .single_agent import GuandanSingleAgentEnv

__all__ = [
    "AGENTS",
    "ENCODINGS",
    "N_ACTIONS",
    "Encoding",
    "GuandanDealEnv",
    "GuandanMatchEnv",
    "GuandanSingleAgentEnv",
    "UnknownResetOptionWarning",
    "action_index",
    "describe_index",
    "env",
    "get_encoding",
    "legal_index_map",
]

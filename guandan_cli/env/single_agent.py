"""A gymnasium environment where one seat learns and the three others play given strategies.

``GuandanSingleAgentEnv(seat=0, others=("heuristic", "random", "heuristic"))`` wraps a
deal (or, with ``match=True``, a match) environment: ``step(index)`` applies the
learner's decision, then lets the strategies play until the learner is to move again
or the episode ends. Observations are the AEC env's ``{"observation", "action_mask"}``;
``action_masks()`` returns the mask too (the method name MaskablePPO looks for).
``others`` lists the strategies of the other seats in seat order after the learner
(next, partner, previous); their rngs derive from the episode seed.

>>> env = GuandanSingleAgentEnv(seat=1, others=("random", "random", "random"))
>>> obs, info = env.reset(seed=3)
>>> bool(env.action_masks().any())
True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np

from guandan_cli.engine.deal import OVER, PLAY, TRIBUTE
from guandan_cli.engine.observation import observe
from guandan_cli.engine.seeding import derived_rng

from .aec import AGENTS, EngineAction, GuandanDealEnv, GuandanMatchEnv


class GuandanSingleAgentEnv(gym.Env):
    """One learning seat against three strategies (see the module docstring)."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(
        self,
        seat: int = 0,
        others: Sequence[str] = ("heuristic", "heuristic", "heuristic"),
        match: bool = False,
        encoding: str = "guandan",
        rules: str | None = None,
        card_strategy: str | None = None,
        render_mode: str | None = None,
    ) -> None:
        from guandan_cli.strategies.registry import load_strategy  # noqa: PLC0415 - the env layer sits above strategies

        if seat not in range(4):
            raise ValueError(f"seat {seat!r}: a seat is 0..3")
        if isinstance(others, str):
            raise ValueError(
                f"others: a list of 3 strategies (next, partner, previous seat), got the string {others!r}"
            )
        if len(others) != 3:
            raise ValueError(f"others: need 3 strategies (next, partner, previous seat), got {len(others)}")
        kwargs: dict[str, Any] = {
            "encoding": encoding,
            "card_strategy": card_strategy,
            "render_mode": render_mode,
        }
        if rules is not None:
            kwargs["rules"] = rules
        self.aec = GuandanMatchEnv(**kwargs) if match else GuandanDealEnv(**kwargs)
        self.seat = seat
        self.agent = AGENTS[seat]
        self.other_specs = tuple(others)
        self._classes = {(seat + k) % 4: load_strategy(spec) for k, spec in zip((1, 2, 3), others)}
        self.observation_space = self.aec.observation_space(self.agent)
        self.action_space = self.aec.action_space(self.agent)
        self.render_mode = render_mode
        self._players: dict[int, Any] = {}

    def _advance(self) -> None:
        """Let the other seats play until the learner is to move or the episode ends."""
        aec = self.aec
        while aec.agents and aec._live():
            if aec.deal is not self._started_deal:  # a new deal: the strategies' start_deal hook
                self._started_deal = aec.deal
                index = len(getattr(aec, "played", ()))
                for s, p in self._players.items():
                    hook = getattr(p, "start_deal", None)
                    if hook is not None:
                        hook(index, observe(aec.deal, s))
            if aec.agent_selection == self.agent:
                return
            seat = AGENTS.index(aec.agent_selection)
            deal = aec.deal
            obs = observe(deal, seat)
            player = self._players[seat]
            if deal.phase == PLAY:
                action = player.choose_play(obs)
            elif deal.phase == TRIBUTE:
                action = player.choose_tribute(obs)
            else:
                action = player.choose_return(obs)
            index = next((i for i, a in aec.legal_index_map().items() if a == action), None)
            aec.step(EngineAction(action) if index is None else index)

    def _result(self) -> tuple[dict, float, bool, bool, dict]:
        aec = self.aec
        obs = aec.observe(self.agent)
        reward = float(aec._cumulative_rewards.get(self.agent, 0.0))
        aec._cumulative_rewards[self.agent] = 0.0
        terminated = bool(aec.terminations.get(self.agent, False))
        truncated = bool(aec.truncations.get(self.agent, False))
        info = dict(aec.infos.get(self.agent, {}))
        return obs, reward, terminated, truncated, info

    def reset(self, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        super().reset(seed=seed)
        self.aec.reset(seed=seed, options=options)
        episode_seed = self.aec._seed_source.random()  # a value that follows from the seed sequence
        self._players = {
            s: cls(s, derived_rng(episode_seed, "single_agent_other", s)) for s, cls in self._classes.items()
        }
        self._started_deal = None
        self._advance()
        obs, _r, _t, _tr, info = self._result()
        return obs, info

    def step(self, action: Any) -> tuple[dict, float, bool, bool, dict]:
        if self.aec.deal.phase == OVER or not self.aec._live():
            raise RuntimeError("the episode is over: call reset()")
        self.aec.step(action)
        self._advance()
        return self._result()

    def action_masks(self) -> np.ndarray:
        """The learner's action mask (all zeros once the episode is over)."""
        return self.aec.action_mask(self.agent).astype(bool)

    def render(self) -> str | None:
        return self.aec.render()

    def close(self) -> None:
        self.aec.close()

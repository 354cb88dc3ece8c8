"""PettingZoo AEC environments: one deal (``GuandanDealEnv``) and a whole match (``GuandanMatchEnv``).

Agents are ``seat_0`` … ``seat_3`` (teams 0/2 and 1/3). Each step is one decision of
the seat to move: a tribute card, a return card or a play, as an index of the fixed
action space of ``guandan_cli.env.actions`` (``N_ACTIONS`` values). Observations are
``{"observation": float32[state_size], "action_mask": int8[N_ACTIONS]}`` from the
chosen encoding (``guandan`` or ``danzero``, see ``guandan_cli.env.encoding``); the
mask is all zeros for a seat that is not to move.

The environments drive the engine's own ``Deal`` and ``Match``: ``reset(seed=s)``
deals exactly the cards ``Match(seed=s)`` deals, and the actions taken are the
engine's card choices, so ``env.deal.actions`` replays through ``Deal``.

Rewards: the deal env gives each seat, at the end, its team's level change seen
from its side (+3/+2/+1 for the winning team, the negative for the other). The
match env gives +1 / -1 when the match is won / lost (0 to both when ``max_deals``
ends it first, as a truncation). ``card_strategy="heuristic"`` (any strategy name)
makes tribute and return decisions automatic instead of steps.

>>> env = GuandanDealEnv()
>>> env.reset(seed=1)
>>> env.agent_selection in env.agents, bool(env.last()[0]["action_mask"].sum() > 0)
(True, True)
"""

from __future__ import annotations

import operator
import random
import warnings
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from guandan_cli.engine.deal import OVER, PLAY, RETURN, TRIBUTE, Deal, DealSetup, action_text
from guandan_cli.engine.match import Match
from guandan_cli.engine.observation import observe
from guandan_cli.engine.rules import DEFAULT_RULESET, get_ruleset
from guandan_cli.engine.seeding import derived_rng

from .actions import N_ACTIONS, describe_index, legal_index_map
from .encoding import get_encoding

AGENTS = ("seat_0", "seat_1", "seat_2", "seat_3")
_SEAT = {agent: seat for seat, agent in enumerate(AGENTS)}


class UnknownResetOptionWarning(UserWarning):
    """``reset(options=...)`` got a key the env does not use (most likely a typo)."""


class EngineAction:
    """An engine action given to ``step`` instead of an index (any card choice ``Deal.apply`` accepts)."""

    __slots__ = ("action",)

    def __init__(self, action: Any) -> None:
        self.action = action


class _GuandanBase(AECEnv):
    """What both environments share: spaces, masks, observation, stepping one decision."""

    metadata = {"render_modes": ["ansi"], "name": "guandan_v0", "is_parallelizable": False}
    #: the keys ``reset(options=...)`` understands (any other is a typo that would be ignored)
    RESET_OPTIONS: tuple[str, ...] = ()

    def __init__(
        self,
        encoding: str = "guandan",
        rules: str = DEFAULT_RULESET,
        card_strategy: str | None = None,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        self.encoding = get_encoding(encoding)
        self.ruleset = get_ruleset(rules)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r}: available are {self.metadata['render_modes']}")
        self.render_mode = render_mode
        self.card_strategy = card_strategy
        if card_strategy is not None:
            from guandan_cli.strategies.registry import load_strategy  # noqa: PLC0415 - only when asked

            self._card_strategy_class = load_strategy(card_strategy)
        self.possible_agents = list(AGENTS)
        low = -1.0 if self.encoding.name == "danzero" else 0.0
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(low, 2.0, (self.encoding.state_size,), dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (N_ACTIONS,), dtype=np.int8),
            }
        )
        self.observation_spaces = {a: obs_space for a in AGENTS}
        self.action_spaces = {a: spaces.Discrete(N_ACTIONS) for a in AGENTS}
        self._seed_source = random.Random()
        self.deal: Deal | None = None
        self._state = self.encoding.state
        self._legal_deal: Deal | None = None  # the decision whose legal actions are cached
        self._legal_n = -1
        self._legal_phase = ""
        self._legal_map: dict = {}
        self._card_players: list | None = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ seeds

    def _next_seed(self, seed: int | None) -> int:
        """A seeded reset starts a reproducible sequence; later unseeded resets continue it."""
        if seed is not None:
            try:  # an int or a NumPy integer (int() would take 1.5 as 1, random.Random refuses np.int64)
                seed = operator.index(seed)
            except TypeError:
                raise TypeError(f"seed {seed!r}: a whole number (or None)") from None
            self._seed_source = random.Random(seed)
            return seed
        return self._seed_source.randrange(2**63)

    # ------------------------------------------------------------------ decisions

    def legal_index_map(self) -> dict:
        """``{action index: engine action}`` for the seat to move (cached per decision)."""
        deal = self.deal
        # the deal itself, not its id (an id could be reused), and how far it has gone
        if (
            deal is not self._legal_deal
            or len(deal.actions) != self._legal_n
            or deal.phase != self._legal_phase
        ):
            self._legal_map = legal_index_map(deal.legal_actions(), deal.level)
            self._legal_deal, self._legal_n, self._legal_phase = deal, len(deal.actions), deal.phase
        return self._legal_map

    def action_mask(self, agent: str) -> np.ndarray:
        """``int8[N_ACTIONS]``: 1 at the legal indices of ``agent`` (all 0 unless it is to move)."""
        deal = self.deal
        if (
            deal is not None
            and deal.phase != OVER
            and AGENTS[deal.to_move] == agent
            and not self.terminations[agent]
            and not self.truncations[agent]
        ):
            mask = bytearray(N_ACTIONS)  # then a fresh, writable int8 array over it
            for index in self.legal_index_map():
                mask[index] = 1
            return np.frombuffer(mask, dtype=np.int8)
        return np.zeros(N_ACTIONS, dtype=np.int8)

    def _live(self) -> bool:
        return not any(self.terminations.values()) and not any(self.truncations.values())

    def _check_options(self, options: dict | None) -> dict:
        """``options`` (``{}`` for None); an unknown key is warned about rather than silently ignored.

        A warning, not an error: PettingZoo's ``api_test`` resets with an arbitrary key
        (``options={"options": 1}``) and needs that to work.
        """
        options = options or {}
        for key in options:
            if key not in self.RESET_OPTIONS:
                known = ", ".join(repr(k) for k in self.RESET_OPTIONS) or "none"
                warnings.warn(
                    f"reset option {key!r} is unknown to {type(self).__name__} and ignored: "
                    f"known options are {known}",
                    UnknownResetOptionWarning,
                    stacklevel=3,
                )
        return options

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = _SEAT.get(agent)
        if seat is None:  # a bare KeyError('seat_9') would not say what the agents are
            raise ValueError(f"agent {agent!r} is not an agent of this env: agents are {', '.join(AGENTS)}")
        obs = observe(self.deal, seat)
        return {"observation": self._state(obs), "action_mask": self.action_mask(agent)}

    def _act(self, agent: str, action: Any) -> bool:
        """The common start of ``step``: a dead agent's step (``False``), else ``action`` applied
        and the cards a strategy decides played (``True``)."""
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return False
        self._cumulative_rewards[agent] = 0.0
        self._apply_index(action)
        self._auto_cards()
        return True

    def _apply_index(self, action: Any) -> None:
        if isinstance(action, EngineAction):  # a strategy's own card choice, verified by the engine
            self.deal.apply(action.action)
            return
        if action is None:
            raise ValueError(
                f"{self.agent_selection} is to move: the action None is only for finished agents"
            )
        try:  # an int or a NumPy integer (not a float: int() would truncate 1.5 to 1)
            index = operator.index(action)
        except TypeError:
            raise TypeError(
                f"action {action!r}: an action is a whole-number index 0..{N_ACTIONS - 1} "
                "(None only for a finished agent)"
            ) from None
        legal = self.legal_index_map()
        try:
            chosen = legal[index]
        except KeyError:
            shown = describe_index(index) if 0 <= index < N_ACTIONS else "outside the action space"
            raise ValueError(
                f"action {index} ({shown}) is not legal for {self.agent_selection}: legal are {sorted(legal)}"
            ) from None
        self.deal.apply_unchecked(chosen)

    def _auto_cards(self) -> None:
        """Tribute and return by ``card_strategy`` when it is set."""
        deal = self.deal
        while self.card_strategy is not None and deal.phase in (TRIBUTE, RETURN):
            seat = deal.to_move
            player = self._card_players[seat]
            obs = observe(deal, seat)
            card = player.choose_tribute(obs) if deal.phase == TRIBUTE else player.choose_return(obs)
            if card not in obs.legal_actions:
                raise ValueError(
                    f"card strategy {self.card_strategy!r} answered {action_text(card)!r}, "
                    f"which seat {seat} may not give"
                )
            deal.apply_unchecked(card)

    def _make_card_players(self, seed: int) -> None:
        if self.card_strategy is not None:
            cls = self._card_strategy_class
            self._card_players = [cls(s, derived_rng(seed, "card_strategy", s)) for s in range(4)]

    def _start_episode(self) -> None:
        self.agents = list(AGENTS)
        self.rewards = {a: 0.0 for a in AGENTS}
        self._cumulative_rewards = {a: 0.0 for a in AGENTS}
        self.terminations = {a: False for a in AGENTS}
        self.truncations = {a: False for a in AGENTS}
        self.infos = {a: {} for a in AGENTS}
        self._skip_agent_selection = None

    def _select_mover(self) -> None:
        self.agent_selection = AGENTS[self.deal.to_move]

    # ------------------------------------------------------------------ rendering

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        deal = self.deal
        if deal is None:
            return "(no deal yet: call reset)"
        last = deal.events[-1] if deal.events else None
        if last is None:
            shown = "start"
        elif last.kind == "pass":
            shown = f"seat {last.seat} pass"
        else:
            shown = f"seat {last.seat} {last.kind} {action_text(last.combo if last.combo is not None else last.card)}"
        return f"phase {deal.phase}, to move {deal.to_move}, last: {shown}, cards left {deal.card_counts()}"

    def close(self) -> None:
        pass


class GuandanDealEnv(_GuandanBase):
    """One deal as a PettingZoo AEC environment (see the module docstring).

    ``reset(seed=s)`` plays the first deal of ``Match(seed=s)`` (level 2, no tribute);
    ``reset(options={"setup": DealSetup(...)})`` plays a given setup (tribute included).
    """

    metadata = {"render_modes": ["ansi"], "name": "guandan_deal_v0", "is_parallelizable": False}
    RESET_OPTIONS = ("setup",)

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        options = self._check_options(options)
        seed = self._next_seed(seed)
        setup = options.get("setup")
        if setup is None:
            setup = Match(seed, self.ruleset).next_setup()
        elif not isinstance(setup, DealSetup):
            raise ValueError(f"options['setup'] must be a DealSetup, got {type(setup).__name__}")
        self.setup = setup
        self.deal = Deal(setup)
        self._make_card_players(seed)
        self._auto_cards()
        self._start_episode()
        self._select_mover()

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if not self._act(agent, action):
            return
        deal = self.deal
        if deal.phase == OVER:
            result = deal.result
            for s, a in enumerate(AGENTS):
                sign = 1.0 if (s & 1) == result.winner_team else -1.0
                self.rewards[a] = sign * result.upgrade
                self.terminations[a] = True
                self.infos[a] = {"finish_order": result.finish_order, "upgrade": result.upgrade}
            self._accumulate_rewards()
            self.agent_selection = agent
        else:
            self._clear_rewards()
            self._select_mover()


class GuandanMatchEnv(_GuandanBase):
    """A whole match (levels, tribute, the A rule) as a PettingZoo AEC environment.

    ``reset(seed=s)`` starts ``Match(seed=s)``: deal ``i`` has the engine's cards for
    (s, i). Rewards +1 / -1 at the match's end. ``self.match`` is the engine's match,
    ``self.played`` the finished ``(setup, deal)`` pairs.
    """

    metadata = {"render_modes": ["ansi"], "name": "guandan_match_v0", "is_parallelizable": False}

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self._check_options(options)  # it takes none
        seed = self._next_seed(seed)
        self.match = Match(seed, self.ruleset)
        self.played: list[tuple[DealSetup, Deal]] = []
        self._make_card_players(seed)
        self._start_episode()
        self._next_deal()

    def _next_deal(self) -> None:
        self.setup = self.match.next_setup()
        self.deal = Deal(self.setup)
        self._auto_cards()
        self._select_mover()

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if not self._act(agent, action):
            return
        self._clear_rewards()
        deal = self.deal
        if deal.phase == OVER:
            update = self.match.record(deal.result)
            self.played.append((self.setup, deal))
            info = {"deal_index": update.deal_index, "levels": update.levels_after}
            for a in AGENTS:
                self.infos[a] = dict(info)
            if self.match.over:
                for s, a in enumerate(AGENTS):
                    if self.match.winner is None:
                        self.truncations[a] = True
                    else:
                        self.rewards[a] = 1.0 if (s & 1) == self.match.winner else -1.0
                        self.terminations[a] = True
                self._accumulate_rewards()
                self.agent_selection = agent
                return
            self._next_deal()
            return
        self._select_mover()


def env(match: bool = False, **kwargs: Any) -> AECEnv:
    """``GuandanMatchEnv(**kwargs)`` if ``match`` else ``GuandanDealEnv(**kwargs)``."""
    return GuandanMatchEnv(**kwargs) if match else GuandanDealEnv(**kwargs)


__all__ = [
    "AGENTS",
    "EngineAction",
    "GuandanDealEnv",
    "GuandanMatchEnv",
    "PLAY",
    "UnknownResetOptionWarning",
    "env",
]

"""The two-player PettingZoo environment (AEC: the agents act in turn).

``player_0`` and ``player_1`` are the match's players 0 and 1; the opening roll decides who
moves first, so either may act first.  See :mod:`backgammon.env` for the actions, the
observations and the rewards.
"""

from __future__ import annotations

from typing import Any, Unpack

import gymnasium
import numpy as np
import numpy.typing as npt
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from backgammon.env.row import RowTable
from backgammon.env.table import N_ACTIONS, Table, TableKeywords, TableOptions
from backgammon.env.view import checked_render_mode, end_info, observation_space, render

__all__ = ["env", "raw_env"]

AGENTS = ("player_0", "player_1")


class raw_env(AECEnv):  # type: ignore[misc]  # PettingZoo has no type information
    """Backgammon for two agents: one game of money play (or a whole match), with or
    without the cube.  The options (``cube``, ``match_length``, ``observation``,
    ``illegal_reward``) are :class:`~backgammon.env.table.TableOptions`'s."""

    metadata: dict[str, Any] = {  # noqa: RUF012 (PettingZoo reads a class attribute)
        "render_modes": ["human", "ansi"],
        "name": "backgammon_v0",
        "is_parallelizable": False,
    }

    def __init__(self, render_mode: str | None = None, **options: Unpack[TableKeywords]) -> None:
        """An environment with the ``options`` given by name
        (:class:`~backgammon.env.table.TableOptions`)."""
        super().__init__()
        self.render_mode = checked_render_mode(render_mode)
        self.options = TableOptions.of(**options)
        self._ref = Table(self.options)
        self._row = RowTable(self.options)
        self.table: Table | RowTable = self._row
        """The game: on the batched kernel, or (after a ``gnubg_id`` start) a :class:`Table`."""
        self.possible_agents = list(AGENTS)
        self.agents: list[str] = []
        space = observation_space(self.options.observation)
        self.observation_spaces = {a: space for a in AGENTS}
        self.action_spaces = {a: gymnasium.spaces.Discrete(N_ACTIONS) for a in AGENTS}
        self._rng = np.random.default_rng()

    def observation_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        """The same space for both agents: the observation array and the action mask."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        """:data:`~backgammon.env.table.N_ACTIONS` numbered actions."""
        return self.action_spaces[agent]

    def observe(self, agent: str) -> dict[str, npt.NDArray[Any]]:
        """The agent's observation and its action mask (all 0 when it is not to act)."""
        player = AGENTS.index(agent)
        if self.table.to_act == player:
            mask = self.table.action_mask()
        else:
            mask = np.zeros(N_ACTIONS, dtype=np.int8)
        return {"observation": self.table.observe(player), "action_mask": mask}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game or match; the same ``seed`` gives the same dice.  ``options`` may hold
        ``gnubg_id``: start from gnubg's ``PositionID:MatchID`` (other keys are ignored)."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        gnubg_id = (options or {}).get("gnubg_id")
        seed = int(self._rng.integers(2**63))
        if gnubg_id is None:
            self._row.reset(seed)
            self.table = self._row
        else:
            self._ref.reset(seed, gnubg_id)
            self.table = self._ref
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        to_act = self.table.to_act
        assert to_act is not None
        self.agent_selection = AGENTS[to_act]

    def step(self, action: Any) -> None:
        """The selected agent's action; an action outside the mask ends the episode with
        the penalty (see :mod:`backgammon.env`)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        result = self.table.step(action)
        self.rewards = {a: result.rewards[i] for i, a in enumerate(AGENTS)}
        if result.done:
            self.terminations = dict.fromkeys(self.agents, True)
            info = {"illegal_action": agent} if result.illegal else end_info(self.table)
            self.infos = {a: dict(info) for a in self.agents}
        else:
            to_act = self.table.to_act
            assert to_act is not None
            self.agent_selection = AGENTS[to_act]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        """The board as text (``ansi`` returns it, ``human`` prints it)."""
        return render(self.table, AGENTS, self.render_mode)

    def close(self) -> None:
        """Nothing to release."""


def env(**options: Unpack[TableKeywords]) -> AECEnv:
    """:class:`raw_env` with PettingZoo's order checks (reset before step, and so on)."""
    return wrappers.OrderEnforcingWrapper(raw_env(**options))

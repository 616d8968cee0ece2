"""The one-agent Gymnasium environment: the agent against one of the package's bots.

``gymnasium.make("backgammon/Backgammon-v0", opponent="neural")`` once
:mod:`backgammon.env` is imported.  The agent is player 0, the bot player 1; the opening roll
decides who moves first, and the bot's turns are played inside :meth:`BackgammonEnv.step`
(and :meth:`BackgammonEnv.reset` when it moves first).  The actions, observations and rewards
are those of :mod:`backgammon.env`, from the agent's side.
"""

from __future__ import annotations

from typing import Any, Unpack

import gymnasium
import numpy as np
import numpy.typing as npt

from backgammon.env.row import RowTable
from backgammon.env.table import N_ACTIONS, EnvOptionError, Table, TableKeywords, TableOptions
from backgammon.env.view import checked_render_mode, end_info, observation_space, render
from backgammon.players import Player, get

__all__ = ["BackgammonEnv"]

Observation = dict[str, Any]  # "observation" and "action_mask", numpy arrays
NAMES = ("agent", "opponent")


class BackgammonEnv(gymnasium.Env[Observation, np.int64]):
    """Backgammon against a bot: ``opponent`` is a name :func:`backgammon.players.get`
    knows (``random``, ``pubeval``, ``neural``, ``expert``...; ``opponent_options`` are
    passed on) or a :class:`~backgammon.players.Player`.  The other options are
    :class:`~backgammon.env.table.TableOptions`'s."""

    metadata = {"render_modes": ["human", "ansi"], "render_fps": 4}  # noqa: RUF012

    def __init__(
        self,
        opponent: str | Player = "random",
        *,
        opponent_options: dict[str, Any] | None = None,
        render_mode: str | None = None,
        **options: Unpack[TableKeywords],
    ) -> None:
        """An environment against ``opponent`` with the ``options`` given by name
        (:class:`~backgammon.env.table.TableOptions`)."""
        self.render_mode = checked_render_mode(render_mode)
        self.options = TableOptions.of(**options)
        self._ref = Table(self.options)
        self._options = dict(opponent_options or {})
        if isinstance(opponent, str):
            name = opponent.strip().lower()
            self._reseeded = name == "random"
            self.opponent: Player = get(opponent, **self._options)
        elif isinstance(opponent, Player):
            name, self._reseeded = "", False
            self.opponent = opponent
        else:
            raise EnvOptionError(f"opponent is a player's name or a Player, not {opponent!r:.40}")
        self._row: RowTable | None = None
        if name in ("random", "pubeval") and not self._options:  # the kernel's own bots
            self._row = RowTable(self.options, opponent=name)
        self.table: Table | RowTable = self._ref if self._row is None else self._row
        """The game: on the batched kernel when it can play the bot, else (and after a
        ``gnubg_id`` start) a :class:`Table`."""
        self.observation_space: gymnasium.spaces.Space[Observation] = observation_space(
            self.options.observation
        )
        self.action_space = gymnasium.spaces.Discrete(N_ACTIONS)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        """A new game or match (the bot plays first if it wins the opening roll); the same
        ``seed`` gives the same dice and, for the random bot, the same choices.  ``options``
        may hold ``gnubg_id``: start from gnubg's ``PositionID:MatchID``."""
        super().reset(seed=seed)
        if self._reseeded:
            seed_bot = int(self.np_random.integers(2**63))
        gnubg_id = (options or {}).get("gnubg_id")
        seed_game = int(self.np_random.integers(2**63))
        if gnubg_id is None and self._row is not None:  # the bot plays inside the kernel
            self._row.reset(seed_game)
            self.table = self._row
        else:
            if self._reseeded:
                self.opponent = get("random", **{**self._options, "seed": seed_bot})
            self._ref.reset(seed_game, gnubg_id)
            self.table = self._ref
        self._opponent_turns()
        return self._observation(), {}

    def step(self, action: np.int64 | int) -> tuple[Observation, float, bool, bool, dict[str, Any]]:
        """The agent's action, then the bot's until the agent must act again or the episode
        ends; the reward is the agent's points (an illegal action: the penalty)."""
        result = self.table.step(action)
        reward = result.rewards[0]
        info: dict[str, Any] = {}
        if result.illegal:
            info["illegal_action"] = True
        elif not result.done:
            reward += self._opponent_turns()
        if self.table.done and not result.illegal:
            info.update(end_info(self.table))
        if self.render_mode == "human":
            self.render()
        return self._observation(), reward, self.table.done, False, info

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The mask as booleans (what sb3-contrib's MaskablePPO asks for)."""
        return self.table.action_mask().astype(bool)

    def render(self) -> str | None:
        """The board as text (``ansi`` returns it, ``human`` prints it)."""
        return render(self.table, NAMES, self.render_mode)

    def _opponent_turns(self) -> float:
        """The bot's decisions until the agent must act; the agent's points meanwhile (none
        on the kernel, which plays them inside its step)."""
        reward = 0.0
        table = self.table
        while isinstance(table, Table) and table.to_act == 1:
            reward += table.play_bot(self.opponent).rewards[0]
        return reward

    def _observation(self) -> Observation:
        mask = self.table.action_mask()
        return {"observation": self.table.observe(0), "action_mask": mask}

"""The batched environment as a Gymnasium vector environment: N games against a bot.

``gymnasium.make_vec("backgammon/Backgammon-v0", num_envs=N,
vectorization_mode="vector_entry_point", opponent="random")`` once :mod:`backgammon.env` is
imported.  Each sub-environment is :class:`~backgammon.env.single.BackgammonEnv`'s game (the
same spaces, actions and rewards), stepped all together by
:class:`~backgammon.env.batch.BatchEnv` in compiled code.  An episode that ends resets in
the same step (``AutoresetMode.SAME_STEP``): the observation given is the next episode's
first; the ended one's is not kept (its reward is the whole outcome).
"""

from __future__ import annotations

from typing import Any, Unpack

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from backgammon.env.batch import BatchEnv
from backgammon.env.table import N_ACTIONS, EnvOptionError, TableKeywords, TableOptions
from backgammon.env.view import observation_space

__all__ = ["BackgammonVectorEnv"]

Observation = dict[str, npt.NDArray[Any]]


class BackgammonVectorEnv(gymnasium.vector.VectorEnv[Observation, npt.NDArray[Any], Any]):
    """``num_envs`` games of the agent (player 0) against ``opponent`` (``"random"`` or
    ``"pubeval"``); the other options are :class:`~backgammon.env.table.TableOptions`'s."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}  # noqa: RUF012

    def __init__(
        self,
        num_envs: int = 1,
        opponent: str = "random",
        *,
        render_mode: str | None = None,
        **options: Unpack[TableKeywords],
    ) -> None:
        """``num_envs`` games with the ``options`` given by name (no rendering: see the single
        env)."""
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise EnvOptionError(f"num_envs is an integer >= 1, not {num_envs!r:.40}")
        if render_mode is not None:
            raise EnvOptionError("the vector environment does not render: use the single one")
        if not isinstance(opponent, str) or opponent.strip().lower() == "self":
            raise EnvOptionError(f"opponent is 'random' or 'pubeval', not {opponent!r:.40}")
        self.batch = BatchEnv(TableOptions.of(**options), opponent=opponent)
        self.num_envs = num_envs
        self.render_mode = None
        self.single_observation_space = observation_space(self.batch.observation)
        self.single_action_space = gymnasium.spaces.Discrete(N_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._seed: int | None = None

    def reset(
        self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        """New games: ``seed`` fixes them (the same games at any ``num_envs``, the dice and
        the random bot alike); ``options={"first": k}`` plays rows ``k``... of the seed, to
        share one seed's games between processes."""
        if isinstance(seed, list):
            seed = seed[0] if seed else None
        super().reset(seed=seed)
        if seed is None:
            seed = int(self.np_random.integers(2**63))
        first = (options or {}).get("first", 0)
        obs, masks = self.batch.reset(self.num_envs, seed=seed, first=first)
        return self._observation(obs, masks), {}

    def step(
        self, actions: npt.ArrayLike
    ) -> tuple[
        Observation,
        npt.NDArray[np.float64],
        npt.NDArray[np.bool_],
        npt.NDArray[np.bool_],
        dict[str, Any],
    ]:
        """Each game's action, then the bot's turns: the agent's points as rewards; an
        ended episode starts again in the same step."""
        obs, rewards, dones, masks = self.batch.step(np.asarray(actions))
        return (
            self._observation(obs, masks),
            rewards[:, 0].astype(np.float64),
            dones.copy(),
            np.zeros(self.num_envs, np.bool_),
            {},
        )

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The masks as booleans, one row a game (as sb3-contrib asks of a vector env)."""
        return self.batch.masks.copy()

    def _observation(
        self, obs: npt.NDArray[np.float32], masks: npt.NDArray[np.bool_]
    ) -> Observation:
        return {"observation": obs.copy(), "action_mask": masks.astype(np.int8)}

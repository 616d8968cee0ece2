"""Many games stepped together as arrays: the environment for training at speed::

    from backgammon.env.batch import BatchEnv
    env = BatchEnv()                                  # self-play, money, no cube
    obs, masks = env.reset(1024, seed=1)
    while training:
        actions = policy(obs, masks)                  # one action a game
        obs, rewards, dones, masks = env.step(actions)

Each row is a game; a step makes every game's action, then the steps no one chooses (rolls,
lost turns, the next game), so every row is at a decision again.  The actions, masks and
observations are those of :mod:`backgammon.env` (680 actions, Tesauro's or the network's
board block and the 17 entries of the match), the observation from the player to act
(:attr:`BatchEnv.to_act`).  ``rewards`` holds each player's points of the step (``(N, 2)``);
a game whose episode ended (``dones``) starts the next one in the same step, so the
observation and mask given are its next episode's.  With ``opponent="random"`` or
``"pubeval"`` the bot plays player 1 inside the step and the agent is always player 0.

The arrays returned are the environment's own, overwritten by the next step: copy what must
be kept.  :meth:`BatchEnv.plays` gives the boards every legal play leaves, for agents that
judge plays by where they lead.
"""

from __future__ import annotations

import math
from typing import Unpack

import numpy as np
import numpy.typing as npt

from backgammon.env import lockstep, lockview
from backgammon.env.observation import n_observation
from backgammon.env.table import (
    N_ACTIONS,
    EnvOptionError,
    InvalidActionError,
    TableKeywords,
    TableOptions,
)
from backgammon.evaluation.children import scratch
from backgammon.evaluation.encode import encode

__all__ = ["BatchEnv"]

_CAPACITY = 64
"""Plays a game has room for at first; rows grow when a roll has more."""


class BatchEnv:
    """``N`` games in lockstep.  ``options`` and the ones given by name are the single-game
    environments' (:class:`~backgammon.env.table.TableOptions`); ``opponent``: ``None`` (the
    caller acts for both players) or ``"random"`` / ``"pubeval"`` (player 1).  ``stop``:
    an ended episode stays over (phase ``OVER``, no mask) until :meth:`reset`, instead of
    the next starting in the same step (what the one-game environments need)."""

    def __init__(
        self,
        options: TableOptions | None = None,
        /,
        *,
        opponent: str | None = None,
        stop: bool = False,
        **given: Unpack[TableKeywords],
    ) -> None:
        """An environment with the options given; :meth:`reset` makes its games."""
        self.stop = stop
        self.options = TableOptions.of(options, **given)
        self.cube = self.options.rules.cube_enabled
        self.length = self.options.rules.match_length or 0
        self.observation = self.options.observation
        name = "self" if opponent is None else opponent
        if not isinstance(name, str) or name.strip().lower() not in lockstep.OPPONENTS:
            raise EnvOptionError(f"opponent is None, 'random' or 'pubeval', not {opponent!r:.40}")
        self.opponent = name.strip().lower()
        self._bot = lockstep.OPPONENTS[self.opponent]
        reward = self.options.illegal_reward
        self._penalty = math.nan if reward is None else float(reward)
        self.n = 0
        self._work = scratch()
        self._alloc(0, _CAPACITY)

    def _alloc(self, n: int, capacity: int) -> None:
        self.games = lockstep.new_games(n, capacity)
        self.obs = np.zeros((n, n_observation(self.observation)), np.float32)
        self.masks = np.zeros((n, N_ACTIONS), np.bool_)
        self.views = np.zeros((n, 26), np.int8)
        self.to_act = np.zeros(n, np.int8)
        """The player (0 or 1) each observation is seen from, who acts next."""

    # ------------------------------------------------------------------ the array API
    def reset(
        self, n: int, seed: int, first: int = 0
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.bool_]]:
        """``n`` new games from ``seed``: rows ``first`` to ``first + n - 1`` of the seed's
        games (so processes that share out the rows play the games one process would)."""
        for name, value, low in (("n", n, 1), ("seed", seed, 0), ("first", first, 0)):
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise EnvOptionError(f"{name} is an integer >= {low}, not {value!r:.40}")
        capacity = self.games.plays.shape[1] if self.n else _CAPACITY
        self.n = n
        self._alloc(n, capacity)
        self.games.key[:] = lockstep.row_keys(seed, first, n)
        self.games.state[:, lockstep.STOP] = self.stop
        lockstep.start(self.games, self.length, self.cube, self._bot, self._work)
        self._settle()
        return self.obs, self.masks

    def step(
        self, actions: npt.ArrayLike
    ) -> tuple[
        npt.NDArray[np.float32],
        npt.NDArray[np.float32],
        npt.NDArray[np.bool_],
        npt.NDArray[np.bool_],
    ]:
        """One action a game (integers, shape ``(N,)``): ``obs, rewards, dones, masks``.
        An integer the mask refuses ends that game's episode with the penalty, as in the
        single-game environments; anything but ``N`` integers raises
        :class:`~backgammon.env.table.InvalidActionError` and changes nothing."""
        a = np.asarray(actions)
        if a.shape != (self.n,) or not np.issubdtype(a.dtype, np.integer):
            raise InvalidActionError(
                f"actions are {self.n} integers, not an array of {a.dtype} shaped {a.shape}"
            )
        if not self.n:
            raise InvalidActionError("reset the environment before stepping it")
        self.advance(a.astype(np.int64))
        return self.obs, self.games.rewards, self.games.dones, self.masks

    def advance(self, actions: npt.NDArray[np.int64]) -> None:
        """:meth:`step` without its checks, for a caller whose actions are ``N`` int64s
        already (the one-game environments' row, where the checks cost more than the step)."""
        g = self.games
        lockstep.step(g, actions, self.length, self.cube, self._bot, self._penalty, self._work)
        self._settle()

    def sample(self, rng: np.random.Generator) -> npt.NDArray[np.int64]:
        """A uniformly random allowed action for every game (exploration, baselines)."""
        return lockview.pick(self.masks, rng.random(self.n))

    # ------------------------------------------------------------------ reading
    @property
    def rewards(self) -> npt.NDArray[np.float32]:
        """The points each player (columns 0 and 1) won in the last step."""
        return self.games.rewards

    @property
    def scores(self) -> npt.NDArray[np.int64]:
        """Each game's match score (players 0 and 1; 0 in money play)."""
        return self.games.score

    def plays(self, row: int) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int16]]:
        """The legal plays of game ``row`` now (empty unless it must play): the board each
        leaves, seen by the mover (the core's layout), and its actions (one or two, -1 none)."""
        g = self.games
        if g.phase[row] not in (lockstep.MOVING, lockstep.HALF):
            return np.zeros((0, 26), np.int8), np.zeros((0, 2), np.int16)
        n = int(g.n_plays[row])
        names = g.names[row, :n]
        keep = names[:, 0] == g.half[row] if g.phase[row] == lockstep.HALF else slice(None)
        return g.plays[row, :n][keep], names[keep]

    # ------------------------------------------------------------------ inside
    def _settle(self) -> None:
        """Grow the play rows for the games whose roll had more plays than room, finish
        their steps, then write the observations and masks."""
        g = self.games
        while g.need.any():
            capacity = int(g.need.max())
            grown = lockstep.new_games(self.n, 1 << (capacity - 1).bit_length())
            for field in ("state", "board", "plays", "names", "rewards", "dones"):
                old, new = getattr(g, field), getattr(grown, field)
                if field in ("plays", "names"):
                    new[:, : old.shape[1]] = old
                else:
                    new[...] = old
            self.games = g = grown
            rows = np.flatnonzero(g.need > 0).astype(np.int64)
            lockstep.resume(g, rows, self.length, self.cube, self._bot, self._work)
        tesauro = self.observation == "tesauro"
        lockview.observe(
            g, self.obs, self.masks, self.views, self.to_act, self.length, self.cube, tesauro
        )
        if not tesauro:
            self.obs[:, : self.obs.shape[1] - 17] = encode(self.views.astype(np.int64))

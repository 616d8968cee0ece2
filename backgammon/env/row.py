"""One game on the batched kernel: what the one-game environments run on when the kernel
can play their game (a fresh start, the random or pubeval bot), a table with no
:class:`~backgammon.play.match.Match` to keep up at every step.

A :class:`RowTable` is a :class:`~backgammon.env.batch.BatchEnv` of one row that stops at
its episode's end (the final board and rewards are shown, as the table shows them) and
reports how each game ended.  It gives what the environments read of a
:class:`~backgammon.env.table.Table`: the player to act, the mask, observations from either
side, the steps' rewards, the last game's end, and for showing the game the board, the
dice, the cube and the score; the :class:`~backgammon.play.match.Match` (its record) only
when asked for, by replaying the episode's actions through a table.  Its games are held to
the table's by ``tests/env/test_env_row.py``, which replays them through a table with the
same dice.  The dice come from the kernel's generator, keyed by the seed (not the table's
stream).
"""

from __future__ import annotations

import operator
from typing import Unpack

import numpy as np
import numpy.typing as npt

from backgammon.core.position import Position
from backgammon.core.values import GameResult, Move
from backgammon.env import lockstep as ls
from backgammon.env.batch import BatchEnv
from backgammon.env.observation import EXTRAS, board_block, board_size
from backgammon.env.table import (
    N_ACTIONS,
    POINTS,
    InvalidActionError,
    StepResult,
    Table,
    TableKeywords,
    TableOptions,
)
from backgammon.evaluation.children import apply_step
from backgammon.play.dice import check_dice
from backgammon.play.match import Match
from backgammon.play.record import EndReason, GameEnd

__all__ = ["RowTable"]


class RowTable:
    """A game (money) or match on the batched kernel, with the automatic steps (and the
    bot's decisions, ``opponent`` ``"random"`` or ``"pubeval"`` as player 1) taken inside
    :meth:`step`.  The options are :class:`~backgammon.env.table.Table`'s."""

    def __init__(
        self,
        options: TableOptions | None = None,
        /,
        *,
        opponent: str | None = None,
        **given: Unpack[TableKeywords],
    ) -> None:
        """A table with the options given; :meth:`reset` starts its game."""
        self.batch = BatchEnv(options, opponent=opponent, stop=True, **given)
        self.options = self.batch.options
        self.rules = self.options.rules
        self.observation = self.options.observation
        self._seed = 0
        self._actions: list[int] = []  # the episode's, for replaying it as a Match
        self.done = True
        self.last_end: GameEnd | None = None
        """The end of the game that ended last (its winner, points and result)."""
        self._board_size = board_size(self.observation)
        self._mask = np.zeros(N_ACTIONS, np.int8)
        self._action = np.zeros(1, np.int64)
        self._legal: list[int] | None = None

    def reset(self, seed: int) -> None:
        """A new game (money) or match with the kernel's dice of ``seed`` (>= 0)."""
        self.batch.reset(1, seed=seed)
        self._seed = seed
        self._actions = []
        self.last_end = None
        self._settled()

    # ------------------------------------------------------------------ reading
    @property
    def to_act(self) -> int | None:
        """The player (0 or 1) who must choose an action now; None once the episode is over."""
        return None if self.done else int(self.batch.to_act[0])

    @property
    def _state(self) -> npt.NDArray[np.int64]:
        state: npt.NDArray[np.int64] = self.batch.games.state[0]
        return state

    @property
    def view_player(self) -> int:
        """The player :attr:`position` is seen from (the player on roll while a game goes on)."""
        return int(self._state[ls.TURN])

    def _view(self) -> npt.NDArray[np.int8]:
        """The board of :attr:`position` (a double's first half played) as an array."""
        s = self._state
        view: npt.NDArray[np.int8] = self.batch.games.board[0]
        if s[ls.PHASE] != ls.HALF:
            return view
        view = view.copy()
        die = int(s[ls.DIE])
        apply_step(view, view, int(s[ls.HALF_STEPS]) // POINTS, die)
        apply_step(view, view, int(s[ls.HALF_STEPS]) % POINTS, die)
        return view

    @property
    def position(self) -> Position:
        """The board now, seen from :attr:`view_player` (a double's first half played)."""
        return Position(self._view().tolist())

    @property
    def cube_value(self) -> int:
        """The cube's value."""
        return int(self._state[ls.CUBE])

    @property
    def cube_owner(self) -> int | None:
        """The player who owns the cube (None: in the middle)."""
        owner = int(self._state[ls.OWNER])
        return None if owner < 0 else owner

    @property
    def score(self) -> tuple[int, int]:
        """The match score (players 0 and 1)."""
        s = self._state
        return int(s[ls.SCORE]), int(s[ls.SCORE + 1])

    @property
    def plays(self) -> dict[tuple[int, ...], Move]:
        """The legal plays of the roll to be played now, by the actions that make each one
        (only the second action of a double once its first is made)."""
        s, g = self._state, self.batch.games
        if self.done or s[ls.PHASE] not in (ls.MOVING, ls.HALF):
            return {}
        dice = (int(s[ls.DIE]), int(s[ls.DIE + 1]))
        legal = Position(g.board[0].tolist()).legal_moves(dice)
        names = g.names[0, : s[ls.N_PLAYS]].tolist()
        out: dict[tuple[int, ...], Move] = {}
        for move, (first, second) in zip(legal, names, strict=True):
            if s[ls.PHASE] == ls.HALF:
                if first == s[ls.HALF_STEPS]:
                    out[(second,)] = move
            else:
                out[(first,) if second < 0 else (first, second)] = move
        return out

    def legal_actions(self) -> list[int]:
        """The actions allowed now, in increasing order (empty once the episode is over)."""
        if self._legal is None:
            self._legal = self._mask.nonzero()[0].tolist()
        return list(self._legal)

    def action_mask(self) -> npt.NDArray[np.int8]:
        """1 for each action allowed now, 0 for the others (:data:`N_ACTIONS` of them)."""
        return self._mask.copy()

    def dice_left(self) -> tuple[int, ...]:
        """The dice of the roll not yet used by this turn's actions."""
        s = self._state
        phase = s[ls.PHASE]
        if self.done or phase not in (ls.MOVING, ls.HALF):
            return ()
        d1, d2 = int(s[ls.DIE]), int(s[ls.DIE + 1])
        if d1 != d2:
            return (d1, d2)
        return (d1,) * (2 if phase == ls.HALF else 4)

    def observe(self, player: int) -> npt.NDArray[np.float32]:
        """The observation of ``player`` (0 or 1), as the table lays it out."""
        if not self.done and player == self.batch.to_act[0]:
            mine: npt.NDArray[np.float32] = self.batch.obs[0].copy()
            return mine
        s = self._state
        view = self._view()
        if s[ls.TURN] != player:
            view = -view[::-1]
        on_roll = not self.done and s[ls.TURN] == player
        n = self._board_size
        out = np.zeros(n + EXTRAS, dtype=np.float32)
        out[:n] = board_block(self.observation, view.tolist(), on_roll)
        for die in self.dice_left():
            out[n + die - 1] += 1
        length = self.rules.match_length
        score = self.score
        owner = self.cube_owner
        out[n + 6 :] = (
            self.to_act == player,
            on_roll,
            not self.done and s[ls.PHASE] == ls.DOUBLED,
            (self.cube_value.bit_length() - 1) / 6,
            owner == player,
            owner == 1 - player,
            min(score[player] / length, 1.0) if length else 0.0,
            min(score[1 - player] / length, 1.0) if length else 0.0,
            s[ls.CRAWFORD] == 1,
            (length or 0) / 64,
            self.rules.cube_enabled,
        )
        return out

    # ------------------------------------------------------------------ acting
    def step(self, action: object) -> StepResult:
        """Make ``action`` for the player to act, then every automatic step (and the bot's
        decisions) after it; as :meth:`backgammon.env.table.Table.step`."""
        if isinstance(action, bool):
            raise InvalidActionError("an action is an integer, not a bool")
        try:
            a = operator.index(action)  # type: ignore[arg-type]
        except TypeError as exc:
            raise InvalidActionError(f"an action is an integer, not {action!r:.40}") from exc
        if self.done:
            raise InvalidActionError("the episode is over: reset the table")
        illegal = not (0 <= a < N_ACTIONS and self._mask[a])
        self._action[0] = a if not illegal else N_ACTIONS
        self._actions.append(int(self._action[0]))
        self.batch.advance(self._action)
        self._settled()
        rewards = self.batch.games.rewards
        return StepResult((float(rewards[0, 0]), float(rewards[0, 1])), self.done, illegal)

    @property
    def match(self) -> Match:
        """The episode so far as a :class:`~backgammon.play.match.Match` (its record, its
        state): replayed through a :class:`~backgammon.env.table.Table` when asked for, not
        kept up at every step."""
        return self.replay().match

    def replay(self) -> Table:
        """A :class:`~backgammon.env.table.Table` that has played this episode so far: the
        same dice, actions and bot's decisions (the kernel's, made again in a row of its own
        without the bot, so that each can be handed to the table)."""
        mine = RowTable(self.options)
        mine.reset(self._seed)
        dice = _Fed(mine)
        table = Table(self.options)
        table.reset(0, dice=dice)
        bot = ls.OPPONENTS[self.batch.opponent]
        for action in [-1, *self._actions]:
            if action >= 0:
                mine.step(action)
                dice.log()
                table.step(action)
            while bot and mine.to_act == 1:  # the bot's decisions, one action at a time
                g = mine.batch.games
                b = ls.bot_action(g.state, g.board, g.plays, g.names, 0, bot)
                steps = [b] if b >= 0 else [int(g.names[0, -1 - b, 0]), int(g.names[0, -1 - b, 1])]
                for step in steps:
                    mine.step(step)
                    dice.log()
                    table.step(step)
        return table

    # ------------------------------------------------------------------ inside
    def _settled(self) -> None:
        """Read the row after a kernel call: over or not, the mask, and a game's end."""
        s = self._state
        self._legal = None
        self.done = bool(s[ls.PHASE] == ls.OVER)
        if self.done:
            self._mask[:] = 0
        else:
            np.copyto(self._mask, self.batch.masks[0], casting="unsafe")
        if s[ls.RESULT] >= 0:
            result = int(s[ls.RESULT])
            self.last_end = GameEnd(
                int(s[ls.WINNER]),
                int(s[ls.POINTS_WON]),
                GameResult(max(result, 1)),
                EndReason.PLAYED if result else EndReason.DROPPED,
            )


class _Fed:
    """The dice a row threw, handed to a table in the same order."""

    def __init__(self, row: RowTable) -> None:
        self.row = row
        self.throws: list[tuple[int, int]] = []
        self.log()

    def log(self) -> None:
        g = self.row.batch.games
        self.throws.extend((int(a), int(b)) for a, b in g.throws[0, : g.n_throws[0]])

    def roll(self) -> tuple[int, int]:
        return check_dice(self.throws.pop(0))

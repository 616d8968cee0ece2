"""The match both environments drive: actions as numbers, the mask, observations, rewards.

A :class:`Table` holds a :class:`~backgammon.play.match.Match` and turns it into what a
learning agent sees: a fixed set of :data:`N_ACTIONS` numbered actions, the mask of those
allowed now, an observation array from either player's side and the points each player wins.
Every rule is the match's and the core's: the legal plays come from
:meth:`~backgammon.core.position.Position.legal_moves`, the cube, scores and turns from
:mod:`backgammon.play.state`; this module only numbers them (the numbers of a roll's plays
from the compiled search the batched environment uses, checked against the core's count).
Nothing here needs PettingZoo or Gymnasium (see :mod:`backgammon.env` for the encodings and
the environments).
"""

from __future__ import annotations

import operator
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, TypedDict, Unpack

import numpy as np
import numpy.typing as npt
from numba import njit

from backgammon.core.position import Position
from backgammon.core.values import Move
from backgammon.env.observation import EXTRAS, OBSERVATIONS, board_block, board_size
from backgammon.evaluation.children import _KEYS, kept_plays, scratch
from backgammon.play.dice import DiceSource, SeededDice
from backgammon.play.match import Act, ActionKind, GameEnd, Match, MatchError, Phase
from backgammon.play.rules import Rules
from backgammon.players.base import Player
from backgammon.players.driver import decide

__all__ = [
    "DOUBLE",
    "DROP",
    "N_ACTIONS",
    "ROLL",
    "TAKE",
    "EnvOptionError",
    "InvalidActionError",
    "StepResult",
    "Table",
    "TableKeywords",
    "TableOptions",
    "action_of_steps",
    "play_actions",
    "play_key",
    "steps_of_action",
]

POINTS = 26
"""Source points in an action: 0 no step, 1-24 the points, 25 the bar (mover's side)."""
MOVE_ACTIONS = POINTS * POINTS
ROLL = MOVE_ACTIONS
"""Roll without doubling (asked only when the player to act may double)."""
DOUBLE = ROLL + 1
"""Offer the cube."""
TAKE = ROLL + 2
"""Take the cube offered."""
DROP = ROLL + 3
"""Pass (drop) the cube offered: the game is lost at the cube's value."""
N_ACTIONS = ROLL + 4
"""Size of the action space: 676 checker actions and the four cube actions."""
_CUBE_ACTS = {
    ROLL: Act(ActionKind.ROLL),
    DOUBLE: Act(ActionKind.DOUBLE),
    TAKE: Act(ActionKind.TAKE),
    DROP: Act(ActionKind.DROP),
}
"""The match's act for each number that is not a checker action (a roll throws the dice)."""


class EnvOptionError(ValueError):
    """An environment option (cube, match length, opponent, start) that cannot be used."""


class InvalidActionError(ValueError):
    """An action that is not an integer, a step after the episode, or numbers that name no
    play.  An integer the mask refuses is no error: it costs its player the penalty."""


@dataclass(frozen=True)
class StepResult:
    """What one action led to: the points each player won (players 0 and 1), whether the
    episode is over, and whether the action was refused as illegal."""

    rewards: tuple[float, float]
    done: bool
    illegal: bool = False


# --------------------------------------------------------------------------- encoding
def _uses(src: int, dst: int, die: int) -> bool:
    """True when a step src/dst can be the die's: its distance, or a bear-off with more."""
    return src - dst == die if dst else die >= src


def play_key(move: Move, dice: Sequence[int]) -> tuple[int, ...]:
    """The source points that name a legal play of ``dice``: ``(larger die's, smaller
    die's)`` for a non-double (0: that die is not played), the four sources from the highest
    down (0 padded) for a double.

    Two plays with the same key reach the same position, so each legal play (one per
    resulting position) has its own key.

    >>> from backgammon.core import Position
    >>> pos = Position.initial()
    >>> play_key(pos.parse_move("8/5 6/5", (3, 1)), (3, 1))
    (8, 6)
    >>> play_key(pos.parse_move("13/7(2)", (3, 3)), (3, 3))
    (13, 13, 10, 10)
    """
    hi, lo = max(dice), min(dice)
    if hi == lo:
        sources = sorted((s for s, _t, _h in move), reverse=True)
        return (*sources, *[0] * (4 - len(sources)))
    if len(move) == 2:
        (s1, t1, _h1), (s2, t2, _h2) = move
        if _uses(s1, t1, hi) and _uses(s2, t2, lo):
            return (s1, s2)
        if _uses(s1, t1, lo) and _uses(s2, t2, hi):
            return (s2, s1)
    elif len(move) == 1:
        s, t, _h = move[0]
        if _uses(s, t, hi):
            return (s, 0)
        if _uses(s, t, lo):
            return (0, s)
    raise InvalidActionError(f"{move} is not a play of {hi}{lo}")


def play_actions(move: Move, dice: Sequence[int]) -> tuple[int, ...]:
    """The action numbers that make a legal play: one, or two for a double of 3-4 steps."""
    return _actions_of_key(play_key(move, dice))


def _actions_of_key(key: tuple[int, ...]) -> tuple[int, ...]:
    if len(key) == 4 and key[2]:
        return (POINTS * key[0] + key[1], POINTS * key[2] + key[3])
    return (POINTS * key[0] + key[1],)


def steps_of_action(action: int) -> tuple[int, int]:
    """The two source points a checker action names (0: none), or :class:`InvalidActionError`
    for a cube action or a number outside the space."""
    if not 0 <= action < MOVE_ACTIONS:
        raise InvalidActionError(f"{action} is not a checker action (0-{MOVE_ACTIONS - 1})")
    return divmod(action, POINTS)


def action_of_steps(first: int, second: int) -> int:
    """The checker action naming the source points ``first`` and ``second`` (0: none)."""
    if not (0 <= first < POINTS and 0 <= second < POINTS):
        raise InvalidActionError(f"source points are 0-25, not {first} and {second}")
    return POINTS * first + second


# --------------------------------------------------------------------------- the table
def rules_for(cube: bool, match_length: int | None) -> Rules:
    """The rules of the options: money or a match, with the cube (up to 64) or cubeless."""
    if not isinstance(cube, bool):
        raise EnvOptionError(f"cube is True or False, not {cube!r:.40}")
    try:
        if match_length is None:
            return Rules.money(max_cube=64 if cube else 1)
        return Rules.match(match_length, max_cube=64 if cube else 1)
    except ValueError as exc:
        raise EnvOptionError(str(exc)) from exc


class TableKeywords(TypedDict, total=False):
    """:class:`TableOptions` given by name, as every environment takes them (typed, so that
    editors and type checkers show and check ``cube=``, ``match_length=`` and the others)."""

    cube: bool
    match_length: int | None
    observation: str
    illegal_reward: float | None


@dataclass(frozen=True)
class TableOptions:
    """The options every environment shares, declared and checked here once (a bad one
    raises :class:`EnvOptionError`): ``cube`` (the doubling cube up to 64), ``match_length``
    (None: money play), ``observation`` (``"tesauro"`` or ``"net"``) and ``illegal_reward``
    (what an action outside the mask costs; None: minus three times the cube)."""

    cube: bool = False
    match_length: int | None = None
    observation: str = "tesauro"
    illegal_reward: float | None = None
    rules: Rules = field(init=False, repr=False, compare=False)
    """The rules of ``cube`` and ``match_length``."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "rules", rules_for(self.cube, self.match_length))
        if self.observation not in OBSERVATIONS:
            raise EnvOptionError(
                f"observation is one of {', '.join(OBSERVATIONS)}, not {self.observation!r:.40}"
            )
        reward = self.illegal_reward
        if reward is not None and (isinstance(reward, bool) or not isinstance(reward, int | float)):
            raise EnvOptionError(f"illegal_reward is a number, not {reward!r:.40}")

    @classmethod
    def of(
        cls, options: TableOptions | None = None, /, **given: Unpack[TableKeywords]
    ) -> TableOptions:
        """``options`` (default: the defaults) with the ones ``given`` by name in their
        place: how each environment takes ``cube=``, ``match_length=`` and the others."""
        base = cls() if options is None else options
        return replace(base, **given) if given else base


Choices = dict[int, "Move | dict[int, Move] | None"]


class Table:
    """A game (money) or match the environments drive, with automatic steps taken for the
    players: rolls, a turn with no play, and the roll when no double is possible.

    ``observation`` is ``"tesauro"`` or ``"net"`` (:mod:`backgammon.env.observation`).
    ``illegal_reward`` is what an action outside the mask costs its player (default: minus
    three times the cube's value, the most a game can cost); that action ends the episode.
    """

    def __init__(
        self, options: TableOptions | None = None, /, **given: Unpack[TableKeywords]
    ) -> None:
        """A table with ``options`` and the ones ``given`` by name (:class:`TableOptions`)."""
        self.options = TableOptions.of(options, **given)
        self.rules = self.options.rules
        self.observation = self.options.observation
        self.illegal_reward = self.options.illegal_reward
        self.match = Match(rules=self.rules, dice=SeededDice(0))
        self.done = True
        self.last_end: GameEnd | None = None
        """The end of the game that ended last (its winner, points and result)."""
        self._choices: Choices = {}
        self._legal: list[int] = []
        self._half: tuple[int, int] | None = None  # a double's first two sources, chosen
        self._view: tuple[Position, int] = (Position.initial(), 0)
        self._seen_end: GameEnd | None = None
        self._board_size = board_size(self.observation)
        self._work: tuple[npt.NDArray[Any], ...] | None = None  # the search's, made once
        self._names = np.empty((0, 2), np.int64)

    # ------------------------------------------------------------------ starting
    def reset(
        self, seed: int, gnubg_id: str | None = None, *, dice: DiceSource | None = None
    ) -> None:
        """A new game (money) or match with dice from ``seed`` (or the throws of ``dice``,
        to replay given games); from gnubg's ``PositionID:MatchID`` when given (its match
        length must agree with the options)."""
        if dice is None:
            dice = SeededDice(seed)
        if gnubg_id is None:
            self.match = Match(rules=self.rules, dice=dice)
        else:
            if not isinstance(gnubg_id, str):
                raise EnvOptionError(f"gnubg_id is text, not {type(gnubg_id).__name__}")
            try:
                match = Match.from_gnubg_id(gnubg_id, rules=self.rules, dice=dice)
            except ValueError as exc:
                raise EnvOptionError(f"cannot start from {gnubg_id!r}: {exc}") from exc
            if match.phase not in (Phase.OPENING, Phase.ROLL, Phase.MOVE, Phase.DOUBLED):
                raise EnvOptionError(f"{gnubg_id!r} is not a game in play")
            self.match = match
        self.done = False
        self.last_end = self._seen_end = self.match.state.last_end
        self._half = None
        self._view = (self.match.position, self.match.on_roll or 0)
        self._advance([0.0, 0.0])

    # ------------------------------------------------------------------ reading
    @property
    def to_act(self) -> int | None:
        """The player (0 or 1) who must choose an action now; None once the episode is over."""
        return None if self.done else self.match.turn

    @property
    def position(self) -> Position:
        """The board now, seen from :attr:`view_player` (a double's first half played)."""
        return self._view[0]

    @property
    def view_player(self) -> int:
        """The player :attr:`position` is seen from (the player on roll while a game goes on)."""
        return self._view[1]

    @property
    def cube_value(self) -> int:
        """The cube's value."""
        return self.match.state.cube_value

    @property
    def cube_owner(self) -> int | None:
        """The player who owns the cube (None: in the middle)."""
        return self.match.state.cube_owner

    @property
    def score(self) -> tuple[int, int]:
        """The match score (players 0 and 1)."""
        return self.match.state.score

    @property
    def plays(self) -> dict[tuple[int, ...], Move]:
        """The legal plays of the roll to be played now, by the actions that make each one
        (only the second action of a double once its first is made)."""
        out: dict[tuple[int, ...], Move] = {}
        for a, then in self._choices.items():
            if isinstance(then, dict):
                out.update({(a, b): m for b, m in then.items()})
            elif then is not None:
                out[(a,)] = then
        return out

    def legal_actions(self) -> list[int]:
        """The actions allowed now, in increasing order (empty once the episode is over)."""
        return list(self._legal)

    def action_mask(self) -> npt.NDArray[np.int8]:
        """1 for each action allowed now, 0 for the others (:data:`N_ACTIONS` of them)."""
        mask = np.zeros(N_ACTIONS, dtype=np.int8)
        mask[self._legal] = 1
        return mask

    def dice_left(self) -> tuple[int, ...]:
        """The dice of the roll not yet used by this turn's actions."""
        if self.done or self.match.phase is not Phase.MOVE:
            return ()
        d1, d2 = self._dice()
        if d1 != d2:
            return (d1, d2)
        return (d1,) * (2 if self._half is not None else 4)

    def observe(self, player: int) -> npt.NDArray[np.float32]:
        """The observation of ``player`` (0 or 1), as :mod:`backgammon.env.observation` lays
        it out."""
        position, seen_from = self._view
        if seen_from != player:
            position = position.flip()
        s = self.match.state
        on_roll = not self.done and s.on_roll == player
        n = self._board_size
        out = np.zeros(n + EXTRAS, dtype=np.float32)
        out[:n] = board_block(self.observation, position.board, on_roll)
        for die in self.dice_left():
            out[n + die - 1] += 1
        length = self.rules.match_length
        out[n + 6 :] = (
            self.to_act == player,
            on_roll,
            not self.done and s.phase is Phase.DOUBLED,
            (s.cube_value.bit_length() - 1) / 6,
            s.cube_owner == player,
            s.cube_owner == 1 - player,
            min(s.score[player] / length, 1.0) if length else 0.0,
            min(s.score[1 - player] / length, 1.0) if length else 0.0,
            s.crawford_game,
            (length or 0) / 64,
            self.rules.cube_enabled,
        )
        return out

    # ------------------------------------------------------------------ acting
    def step(self, action: object) -> StepResult:
        """Make ``action`` for the player to act, then every automatic step after it.

        An integer outside the mask ends the episode: its player gets
        :attr:`illegal_reward`, the other nothing.  Anything but an integer raises
        :class:`InvalidActionError`, as does a step once the episode is over.
        """
        if isinstance(action, bool):
            raise InvalidActionError("an action is an integer, not a bool")
        try:
            a = operator.index(action)  # type: ignore[arg-type]
        except TypeError as exc:
            raise InvalidActionError(f"an action is an integer, not {action!r:.40}") from exc
        player = self.to_act
        if player is None:
            raise InvalidActionError("the episode is over: reset the table")
        rewards = [0.0, 0.0]
        if a not in self._choices:
            penalty = self.illegal_reward
            if penalty is None:
                penalty = -3.0 * self.match.cube_value
            rewards[player] = float(penalty)
            self._finish()
            return StepResult((rewards[0], rewards[1]), True, illegal=True)
        then = self._choices[a]
        if a in _CUBE_ACTS:
            self.match.apply(_CUBE_ACTS[a])
        elif isinstance(then, dict):  # the first half of a double: its second is asked next
            self._half = steps_of_action(a)
            self._view = (self._partial(next(iter(then.values()))), player)
            self._set_choices(then)
            return StepResult((0.0, 0.0), False)
        else:
            assert then is not None
            self._play(then)
        self._advance(rewards)
        return StepResult((rewards[0], rewards[1]), self.done)

    def play_bot(self, bot: Player) -> StepResult:
        """Let ``bot`` make the decision the player to act faces, then every automatic step."""
        if self.to_act is None:
            raise InvalidActionError("the episode is over: reset the table")
        decision = decide(bot, self.match)
        if decision.kind is ActionKind.MOVE:
            assert isinstance(decision.move, Move)
            self._play(decision.move)
        else:
            self.match.apply(decision)
        rewards = [0.0, 0.0]
        self._advance(rewards)
        return StepResult((rewards[0], rewards[1]), self.done)

    # ------------------------------------------------------------------ inside
    def _dice(self) -> tuple[int, int]:
        dice = self.match.dice
        assert dice is not None
        return dice

    def _partial(self, move: Move) -> Position:
        """The mover's board after a double's two highest steps (a stable sort: the steps from
        one point keep the order the play lists them in)."""
        steps = sorted(move, key=lambda step: -step[0])[:2]
        return self.match.position.apply_steps(steps)

    def _play(self, move: Move) -> None:
        """Play ``move`` for the player on roll, keeping the board it leaves in view."""
        mover = self.match.on_roll
        assert mover is not None
        self._view = (self.match.position.play(move), 1 - mover)
        self._half = None
        self.match.apply(Act(ActionKind.MOVE, move))

    def _choices_of(self, legal: list[Move]) -> Choices:
        """The legal plays by their first action, and for a double of 3-4 steps by its
        second: their names from the compiled search, which lists the plays in the core's
        order (``tests/env/test_env_batch.py`` holds it to it)."""
        dice = self._dice()
        if self._work is None:
            self._work = scratch()
        if len(self._names) < len(legal):
            self._names = np.empty((max(len(legal), 64), 2), np.int64)
        board = np.array(self.match.position.board, dtype=np.int8)
        n = _play_names(board, max(dice), min(dice), self._work, _KEYS, self._names)
        if n != len(legal):  # pragma: no cover (the tests hold the search to the core)
            raise MatchError(f"the search found {n} plays of {dice}, the rules {len(legal)}")
        choices: Choices = {}
        for move, (first, second) in zip(legal, self._names[:n].tolist(), strict=True):
            if second < 0:
                choices[first] = move
            else:
                half = choices.setdefault(first, {})
                assert isinstance(half, dict)
                half[second] = move
        return choices

    def _set_choices(self, choices: Mapping[int, Move | dict[int, Move] | None]) -> None:
        self._choices = dict(choices)
        self._legal = sorted(choices)

    def _finish(self) -> None:
        self.done = True
        self._set_choices({})

    def _collect(self, rewards: list[float]) -> None:
        """Add the points of a game that has just ended; a money game ends the episode."""
        end = self.match.state.last_end
        if end is None or end is self._seen_end:
            return
        self._seen_end = self.last_end = end
        rewards[end.winner] += end.points
        rewards[1 - end.winner] -= end.points
        if self.rules.is_money or self.match.is_over:
            self._finish()

    def _advance(self, rewards: list[float]) -> None:
        """Take the steps no one chooses until a player must choose or the episode ends, and
        set out that player's choices."""
        m = self.match
        self._collect(rewards)
        while not self.done:
            phase = m.phase
            if phase is Phase.OPENING:
                m.apply(_CUBE_ACTS[ROLL])
            elif phase is Phase.ROLL:
                if m.may_double():
                    self._set_choices({ROLL: None, DOUBLE: None})
                    break
                m.apply(_CUBE_ACTS[ROLL])
            elif phase is Phase.MOVE:
                legal = m.legal_moves()
                if legal != [Move()]:
                    self._set_choices(self._choices_of(legal))
                    break
                self._play(Move())  # a match resumed with dice it cannot play
            elif phase is Phase.DOUBLED:
                self._set_choices({TAKE: None, DROP: None})
                break
            else:  # pragma: no cover (resignations are not offered)
                raise MatchError(f"the environment cannot go on from the phase {phase}")
            self._collect(rewards)
        if not self.done:
            on_roll = m.on_roll
            assert on_roll is not None
            self._view = (m.position, on_roll)


@njit(cache=True)
def _play_names(board: Any, hi: int, lo: int, work: Any, keys: Any, out: Any) -> int:
    """The actions of each legal play of ``hi``-``lo`` from ``board`` (the mover's view) into
    ``out``, in the rules core's order (-1: no second action); gives how many."""
    n = kept_plays(board, hi, lo, work, keys)
    srcs, keep = work[3], work[6]
    m = 0
    for j in range(n):
        if keep[j]:
            if m < out.shape[0]:
                out[m, 0] = POINTS * srcs[j, 0] + srcs[j, 1]
                out[m, 1] = POINTS * srcs[j, 2] + srcs[j, 3] if srcs[j, 2] else -1
            m += 1
    return m

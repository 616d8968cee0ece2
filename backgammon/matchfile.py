"""A format-level model of a match file, shared by the .mat and SGF readers and writers.

A :class:`MatchRecord` is what a match file says: header information, then games, each
with the score it started at, the actions in order (rolls with the steps as written, cube
actions, an accepted resignation) and how it ended.  Readers fill it and check every play
against the rules core while they read (so a file that parses is a file whose plays are
legal); writers turn it back into text.  Converting to and from a live ``Match`` is done in
:mod:`backgammon.mat` / :mod:`backgammon.sgf` on top of this model.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from backgammon.board import (
    BAR,
    OFF,
    AmbiguousMoveError,
    IllegalMoveError,
    InvalidMoveTextError,
    Move,
    Position,
    Step,
)

__all__ = [
    "Action",
    "Double",
    "Drop",
    "GameEnd",
    "GameRecord",
    "GameReplay",
    "MatchFileError",
    "MatchRecord",
    "Resign",
    "Roll",
    "Take",
    "crawford_games",
]


class MatchFileError(ValueError):
    """A match file that cannot be read; ``line`` is the 1-based line number (or None)."""

    def __init__(self, message: str, line: int | None = None) -> None:
        self.line = line
        self.message = message
        super().__init__(f"line {line}: {message}" if line is not None else message)


@dataclass(frozen=True)
class Roll:
    """A roll and the play made with it; ``steps`` are single-die steps in file order.

    ``played`` is False for dice that were rolled but not played (the player resigned
    after rolling; gnubg's ``MOVE_SETDICE``).  An empty ``steps`` with ``played`` is a
    lost turn (R10).
    """

    player: int
    dice: tuple[int, int]
    steps: tuple[Step, ...] = ()
    played: bool = True

    @property
    def move(self) -> Move:
        """The play as a core :class:`Move` (steps in file order)."""
        return Move(self.steps)


@dataclass(frozen=True)
class Double:
    """``player`` offers the cube at ``value`` (a beaver is a double by the taker)."""

    player: int
    value: int


@dataclass(frozen=True)
class Take:
    """``player`` accepts the pending double."""

    player: int


@dataclass(frozen=True)
class Drop:
    """``player`` passes the pending double and loses the game (R24)."""

    player: int


@dataclass(frozen=True)
class Resign:
    """``player`` resigned a single (1), gammon (2) or backgammon (3) and it was accepted."""

    player: int
    level: int


Action = Roll | Double | Take | Drop | Resign


@dataclass(frozen=True)
class GameEnd:
    """How a game ended: the winner, the points scored and whether by resignation."""

    winner: int
    points: int
    resigned: bool = False


@dataclass(frozen=True)
class GameRecord:
    """One game: its 1-based number, the score before it, its actions and its end."""

    number: int
    score: tuple[int, int]
    actions: tuple[Action, ...] = ()
    end: GameEnd | None = None


@dataclass(frozen=True)
class MatchRecord:
    """A whole match file.

    ``length`` 0 is a money session.  ``info`` holds the header as ``(tag, value)`` pairs
    named as in .mat headers (``Site``, ``Event``, ``Round``, ``EventDate`` as
    ``yyyy.mm.dd``, ``Transcriber``, XG's ``Player 1`` …); ``comment`` is the free match
    comment.  ``warnings`` lists, with line numbers, what a lenient reader found odd.
    """

    length: int
    players: tuple[str, str] = ("Player 0", "Player 1")
    games: tuple[GameRecord, ...] = ()
    info: tuple[tuple[str, str], ...] = ()
    comment: str = ""
    crawford: bool = True
    jacoby: bool = False
    application: str = ""
    warnings: tuple[str, ...] = field(default=(), compare=False)

    def tag(self, name: str) -> str | None:
        """The value of a header tag, or None."""
        for key, value in self.info:
            if key == name:
                return value
        return None


def crawford_games(record: MatchRecord) -> list[bool]:
    """For each game, whether it is the Crawford game (gnubg's rule: the first game in
    which exactly one side is one point away; R28)."""
    out: list[bool] = []
    seen = False
    n = record.length
    for game in record.games:
        a, b = game.score
        is_it = bool(record.crawford and n and not seen and ((a == n - 1) != (b == n - 1)))
        seen = seen or is_it
        out.append(is_it)
    return out


def _step_pips(step: Step) -> int:
    return step[0] - step[1]


class GameReplay:
    """Follows one game action by action with the rules core, checking each one.

    Used by the readers: it knows the position (from the side to move), the cube and
    whose turn it is, and raises :class:`MatchFileError` with the given line number on an
    action that cannot happen.
    """

    def __init__(self) -> None:
        self.position = Position.initial()
        self.turn: int | None = None  # player to act next; None before the opening roll
        self.cube = 1
        self.pending: int | None = None  # player who offered a pending double
        self.pending_value = 1
        self.rolled: tuple[int, int] | None = None  # dice rolled but not played
        self.end: GameEnd | None = None
        self.last_was_drop = False

    def _need_turn(self, player: int, what: str, line: int | None) -> None:
        if self.end is not None:
            raise MatchFileError(f"{what} after the game was over", line)
        if self.turn is not None and player != self.turn:
            raise MatchFileError(
                f"{what} by player {player}, but player {self.turn} is on turn", line
            )

    def resolve(
        self,
        player: int,
        dice: tuple[int, int],
        segments: Sequence[Step],
        text: str,
        line: int | None,
        marks_hits: bool = True,
    ) -> tuple[tuple[Step, ...], list[str]]:
        """The steps of the play meant by ``segments`` (from/to/hit as written), checked.

        Single-die steps that replay legally keep their written order (hit marks are
        recomputed); anything else (combined moves such as ``24/15``) is resolved through
        :meth:`Position.parse_move` and comes back expanded, with a warning.
        """
        warnings: list[str] = []
        pos = self.position
        if pos.legal_moves(dice) == [] and not segments:
            return (), warnings
        die_values = {dice[0], dice[1]}
        simple = all(
            _step_pips(seg) in die_values or (seg[1] == OFF and _step_pips(seg) < max(dice))
            for seg in segments
        )
        steps: tuple[Step, ...] | None = None
        if simple and segments:
            replayed = _replay_steps(pos, segments)
            if replayed is not None:
                target = pos.play(replayed)
                if any(pos.play(m) == target for m in pos.legal_moves(dice)) and _uses_dice(
                    replayed, dice
                ):
                    steps = replayed
        if steps is None:
            try:
                move = pos.parse_move(text, dice)
            except (InvalidMoveTextError, IllegalMoveError, AmbiguousMoveError) as exc:
                raise MatchFileError(
                    f"{text.strip()!r} with {dice[0]}{dice[1]}: {exc}", line
                ) from exc
            steps = tuple(move)
            if segments:
                warnings.append(
                    f"line {line}: {text.strip()!r} written as a combined move; "
                    f"read as {' '.join(f'{s}/{t}' for s, t, _ in steps)}"
                )
        written_hits = {t for _, t, hit in segments if hit}
        actual_hits = {t for _, t, hit in steps if hit}
        if marks_hits and segments and written_hits != actual_hits:
            warnings.append(f"line {line}: hit marks in {text.strip()!r} corrected")
        return steps, warnings

    def roll(self, roll: Roll, line: int | None) -> None:
        """Apply a roll (with its play, already resolved by :meth:`resolve`)."""
        self._need_turn(roll.player, "a roll", line)
        if self.pending is not None:
            raise MatchFileError("a roll while a double is pending", line)
        if self.rolled is not None:
            raise MatchFileError("a second roll before the first was played", line)
        if self.turn is None:
            self.turn = roll.player
        if not roll.played:
            self.rolled = roll.dice
            return
        try:
            target = self.position.play(roll.steps)
        except IllegalMoveError as exc:
            raise MatchFileError(f"illegal play {Move(roll.steps)}: {exc}", line) from exc
        legal = self.position.legal_moves(roll.dice)
        if (roll.steps or legal) and not any(self.position.play(m) == target for m in legal):
            raise MatchFileError(f"illegal play {Move(roll.steps)} with {roll.dice}", line)
        self.position = target
        self.turn = 1 - roll.player
        outcome = target.outcome()
        if outcome is not None:
            self.end = GameEnd(roll.player, outcome.points * self.cube)

    def double(self, action: Double, line: int | None) -> bool:
        """Apply a double; returns True when it was a beaver (a double by the taker)."""
        if self.end is not None:
            raise MatchFileError("a double after the game was over", line)
        if self.turn is None:
            raise MatchFileError("a double before the opening roll", line)
        beaver = self.pending is not None and action.player != self.pending
        if not beaver:
            self._need_turn(action.player, "a double", line)
            if self.rolled is not None:
                raise MatchFileError("a double after the dice were rolled", line)
        if beaver:
            self.cube = self.pending_value  # a beaver takes the double first
        self.pending = action.player
        self.pending_value = action.value
        return beaver

    def take(self, action: Take, line: int | None) -> None:
        """Accept the pending double."""
        if self.pending is None or action.player == self.pending:
            raise MatchFileError("a take with no double pending", line)
        self.cube = self.pending_value
        self.pending = None

    def drop(self, action: Drop, line: int | None) -> None:
        """Pass the pending double: the doubler wins the value before the double."""
        if self.pending is None or action.player == self.pending:
            raise MatchFileError("a drop with no double pending", line)
        self.end = GameEnd(self.pending, self.cube)
        self.pending = None
        self.last_was_drop = True

    def resign(self, action: Resign, line: int | None) -> None:
        """An accepted resignation."""
        if self.end is not None:
            raise MatchFileError("a resignation after the game was over", line)
        self.end = GameEnd(1 - action.player, action.level * self.cube, resigned=True)

    def apply(self, action: Action, line: int | None = None) -> None:
        """Apply any action (rolls must already be resolved)."""
        if isinstance(action, Roll):
            self.roll(action, line)
        elif isinstance(action, Double):
            self.double(action, line)
        elif isinstance(action, Take):
            self.take(action, line)
        elif isinstance(action, Drop):
            self.drop(action, line)
        else:
            self.resign(action, line)


def _uses_dice(steps: Sequence[Step], dice: tuple[int, int]) -> bool:
    """True when the steps use distinct dice of the roll (bear-offs may use a larger die)."""
    dice_left = [dice[0]] * 4 if dice[0] == dice[1] else [dice[0], dice[1]]
    for s, t, _ in steps:
        pips = s - t
        if pips in dice_left:
            dice_left.remove(pips)
        elif t == OFF and any(d > pips for d in dice_left):
            dice_left.remove(min(d for d in dice_left if d > pips))
        else:
            return False
    return True


def _replay_steps(pos: Position, segments: Iterable[Step]) -> tuple[Step, ...] | None:
    """The segments applied one by one with hits recomputed, or None if one cannot move."""
    b = list(pos.board)
    out: list[Step] = []
    for s, t, _ in segments:
        if not 1 <= s <= BAR or not OFF <= t < s or b[s] <= 0:
            return None
        hit = False
        if t > 0:
            if b[t] < -1:
                return None
            hit = b[t] == -1
        b[s] -= 1
        if t > 0:
            if hit:
                b[t] = 1
                b[0] -= 1
            else:
                b[t] += 1
        out.append((s, t, hit))
    return tuple(out)

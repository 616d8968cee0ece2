"""A format-level model of a match file, shared by the .mat and SGF readers and writers.

A :class:`MatchFile` is what a match file says: header information, then games, each
with the score it started at, the actions in order (rolls with the steps as written, cube
actions, an accepted resignation) and how it ended.  Readers fill it and check every play
against the rules core while they read (so a file that parses is a file whose plays are
legal); writers turn it back into text.  Converting to and from a live ``Match`` is done in
:mod:`backgammon.mat` / :mod:`backgammon.sgf` on top of this model.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

from backgammon import match as bm
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
from backgammon.ids import GameState, MatchIdFields, encode_match_id
from backgammon.rules import Rules

__all__ = [
    "Action",
    "Double",
    "Drop",
    "GameEnd",
    "GameFile",
    "GameReplay",
    "MatchFile",
    "MatchFileError",
    "Pass",
    "Resign",
    "Roll",
    "Take",
    "crawford_games",
    "from_match",
    "to_match",
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
    line: int | None = field(default=None, compare=False)

    @property
    def move(self) -> Move:
        """The play as a core :class:`Move` (steps in file order)."""
        return Move(self.steps)


@dataclass(frozen=True)
class Double:
    """``player`` offers the cube at ``value`` (a beaver is a double by the taker)."""

    player: int
    value: int
    line: int | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Take:
    """``player`` accepts the pending double."""

    player: int
    line: int | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Drop:
    """``player`` passes the pending double and loses the game (R24)."""

    player: int
    line: int | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Resign:
    """``player`` resigned a single (1), gammon (2) or backgammon (3) and it was accepted."""

    player: int
    level: int
    line: int | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Pass:
    """``player`` is on the bar against a closed board: the turn passes without a roll
    (R13).  gnubg writes a roll with no play instead; both are read."""

    player: int
    line: int | None = field(default=None, compare=False)


Action = Roll | Double | Take | Drop | Resign | Pass


@dataclass(frozen=True)
class GameEnd:
    """How a game ended: the winner, the points scored and whether by resignation."""

    winner: int
    points: int
    resigned: bool = False


@dataclass(frozen=True)
class GameFile:
    """One game: its 1-based number, the score before it, its actions and its end."""

    number: int
    score: tuple[int, int]
    actions: tuple[Action, ...] = ()
    end: GameEnd | None = None


@dataclass(frozen=True)
class MatchFile:
    """A whole match file.

    ``length`` 0 is a money session.  ``info`` holds the header as ``(tag, value)`` pairs
    named as in .mat headers (``Site``, ``Event``, ``Round``, ``EventDate`` as
    ``yyyy.mm.dd``, ``Transcriber``, XG's ``Player 1`` …); ``comment`` is the free match
    comment.  ``warnings`` lists, with line numbers, what a lenient reader found odd.
    """

    length: int
    players: tuple[str, str] = ("Player 0", "Player 1")
    games: tuple[GameFile, ...] = ()
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


def crawford_games(record: MatchFile) -> list[bool]:
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

    def __init__(self, jacoby: bool = False) -> None:
        self.jacoby = jacoby  # money play: gammons count single while the cube is centred
        self.position = Position.initial()
        self.turn: int | None = None  # player to act next; None before the opening roll
        self.cube = 1
        self.owner: int | None = None  # None: centred
        self.pending: int | None = None  # player who offered a pending double
        self.pending_value = 1
        self.rolled: tuple[int, int] | None = None  # dice rolled but not played
        self.end: GameEnd | None = None

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
            base = 1 if self.jacoby and self.owner is None else outcome.points  # R31
            self.end = GameEnd(roll.player, base * self.cube)

    def double(self, action: Double, line: int | None) -> bool:
        """Apply a double; returns True when it was a beaver (a double by the taker)."""
        if self.end is not None:
            raise MatchFileError("a double after the game was over", line)
        if self.turn is None:
            raise MatchFileError("a double before the opening roll", line)
        beaver = self.pending is not None and action.player != self.pending
        if self.pending is not None and not beaver:
            raise MatchFileError("a second double while the first awaits an answer", line)
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
        self.owner = action.player
        self.pending = None

    def drop(self, action: Drop, line: int | None) -> None:
        """Pass the pending double: the doubler wins the value before the double."""
        if self.pending is None or action.player == self.pending:
            raise MatchFileError("a drop with no double pending", line)
        self.end = GameEnd(self.pending, self.cube)
        self.pending = None

    def resign(self, action: Resign, line: int | None) -> None:
        """An accepted resignation."""
        if self.end is not None:
            raise MatchFileError("a resignation after the game was over", line)
        # Scored as offered, Jacoby or not (R21), as gnubg and Match score it.
        self.end = GameEnd(1 - action.player, action.level * self.cube, resigned=True)

    def closed_out(self) -> bool:
        """True when the player on turn is on the bar against a closed board (R13)."""
        pos = self.position
        return pos.bar[0] > 0 and all(pos.opponent_checkers(p) >= 2 for p in range(19, 25))

    def pass_turn(self, action: Pass, line: int | None) -> None:
        """The closed-out player on turn passes without rolling (R13)."""
        self._need_turn(action.player, "a pass", line)
        if self.turn is None or self.pending is not None or self.rolled is not None:
            raise MatchFileError("a pass is only possible before rolling", line)
        if not self.closed_out():
            raise MatchFileError(f"player {action.player} passes but can enter", line)
        self.position = self.position.flip()
        self.turn = 1 - action.player

    def implied_pass(self, player: int, line: int | None) -> Pass | None:
        """A pass the file left out: ``player`` acts while the other, closed out, is on turn."""
        if (
            self.turn is not None
            and player != self.turn
            and self.pending is None
            and self.rolled is None
            and self.end is None
            and self.closed_out()
        ):
            action = Pass(self.turn, line)
            self.pass_turn(action, line)
            return action
        return None

    def apply(self, action: Action, line: int | None = None) -> None:
        """Apply any action (rolls must already be resolved)."""
        line = action.line if line is None else line
        if isinstance(action, Pass):
            self.pass_turn(action, line)
        elif isinstance(action, Roll):
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


# ----------------------------------------------------------------------------- Match <-> file


def from_match(match: bm.Match, players: tuple[str, str] = ("Player 0", "Player 1")) -> MatchFile:
    """The file model of a live match (what a match file can say about it).

    Files do not hold tied opening throws, rejected resignations or the order in which a
    resignation was offered and answered: only accepted resignations are written.
    """
    rules = match.rules
    length = rules.match_length or 0
    games: list[GameFile] = []
    for actions in match.record.games:
        number, score = 1, (0, 0)
        out: list[Action] = []
        rolled: tuple[int, tuple[int, int]] | None = None
        offered: tuple[int, int] | None = None
        end: GameEnd | None = None
        for a in actions:
            if isinstance(a, bm.GameStart):
                number, score = a.game, a.score
            elif isinstance(a, bm.OpeningRoll):
                if a.die0 != a.die1:
                    rolled = (
                        0 if a.die0 > a.die1 else 1,
                        (max(a.die0, a.die1), min(a.die0, a.die1)),
                    )
            elif isinstance(a, bm.Roll):
                rolled = (a.player, (max(a.dice), min(a.dice)))  # gnubg writes larger first
            elif isinstance(a, bm.Play):
                dice = rolled[1] if rolled is not None else (0, 0)
                out.append(Roll(a.player, dice, tuple(a.move)))
                rolled = None
            elif isinstance(a, bm.Pass):
                out.append(Pass(a.player))
            elif isinstance(a, (bm.Double, bm.Beaver, bm.Raccoon)):
                out.append(Double(a.player, a.value))
            elif isinstance(a, bm.Take):
                out.append(Take(a.player))
            elif isinstance(a, bm.Drop):
                out.append(Drop(a.player))
            elif isinstance(a, bm.Resign):
                offered = (a.player, int(a.level))
            elif isinstance(a, bm.Reject):
                offered = None
            elif isinstance(a, bm.Accept):
                if offered is not None:
                    if rolled is not None:
                        out.append(Roll(rolled[0], rolled[1], (), played=False))
                        rolled = None
                    out.append(Resign(offered[0], offered[1]))
                offered = None
            elif isinstance(a, bm.GameEnd):
                end = GameEnd(a.winner, a.points, a.reason is bm.EndReason.RESIGNED)
        if rolled is not None and out:  # an unfinished game stopped after a roll
            out.append(Roll(rolled[0], rolled[1], (), played=False))
        if not out and end is None:
            continue  # a game not yet begun
        games.append(GameFile(number, score, tuple(out), end))
    return MatchFile(
        length=length,
        players=players,
        games=tuple(games),
        crawford=rules.crawford and length > 1,
        jacoby=rules.jacoby,
    )


@contextmanager
def _refused(what: str, line: int | None) -> Iterator[None]:
    """Turn the Match's refusal of an action into a MatchFileError at the action's line."""
    try:
        yield
    except ValueError as exc:
        raise MatchFileError(f"{what} refused by the rules: {exc}", line) from exc


def to_match(record: MatchFile, warnings: list[str] | None = None) -> bm.Match:
    """Replay a file model through :class:`Match`, so every action is checked by the rules.

    Raises :class:`MatchFileError` (with the line of the action when known) on an action
    the rules refuse; odd but readable things are appended to ``warnings``.
    """
    notes: list[str] = warnings if warnings is not None else []
    length = record.length or None
    beavers = any(_has_beaver(g) for g in record.games)
    try:
        if length is None:
            rules = Rules.money(jacoby=record.jacoby, beavers=beavers, raccoons=beavers)
        else:
            rules = Rules.match(length, crawford=record.crawford or length == 1)
    except ValueError as exc:
        raise MatchFileError(f"the file's rules are refused: {exc}") from exc
    first = record.games[0] if record.games else None
    if first is not None and first.score != (0, 0):
        crawford = crawford_games(record)[0]
        fields = MatchIdFields(
            game_state=GameState.NONE,
            match_length=record.length,
            score=first.score,
            crawford=crawford,
            no_jacoby=not record.jacoby,
        )
        gnubg_id = f"{Position.initial().position_id()}:{encode_match_id(fields)}"
        try:
            match = bm.Match.from_gnubg_id(gnubg_id, rules=rules)
        except ValueError as exc:
            raise MatchFileError(f"cannot start at score {first.score}: {exc}") from exc
    else:
        match = bm.Match(rules=rules)
    for game in record.games:
        if match.is_over:
            notes.append(f"game {game.number} comes after the match was over: ignored")
            break
        if match.score != game.score:
            notes.append(
                f"game {game.number}: the file says score {game.score}, the play gives "
                f"{match.score}"
            )
        _replay_game(match, game, notes)
    return match


def _has_beaver(game: GameFile) -> bool:
    pending: int | None = None
    for a in game.actions:
        if isinstance(a, Double):
            if pending is not None and a.player != pending:
                return True
            pending = a.player
        elif isinstance(a, (Take, Drop)):
            pending = None
    return False


def _replay_game(m: bm.Match, game: GameFile, notes: list[str]) -> None:
    start = m.game_number
    for a in game.actions:
        line = a.line
        if m.game_number != start or m.is_over:
            raise MatchFileError(f"game {game.number} goes on after it was over", line)
        if isinstance(a, Pass):
            if m.turn == a.player and m.phase is bm.Phase.ROLL:
                with _refused("a pass", line):
                    m.roll(player=a.player)
            continue
        if isinstance(a, Roll):
            if m.phase is bm.Phase.OPENING:
                hi, lo = max(a.dice), min(a.dice)
                if hi == lo:
                    raise MatchFileError(f"an opening roll of {hi}{lo} (R3: never a double)", line)
                throw = (hi, lo) if a.player == 0 else (lo, hi)
                with _refused("the opening roll", line):
                    m.roll(throw)
            else:
                done = m.record.games[-1][-1]
                if m.turn != a.player and isinstance(done, bm.Pass) and done.player == a.player:
                    # The match passed this closed-out player already (R13).
                    notes.append(f"line {line}: closed out, the dice {a.dice} are not rolled (R13)")
                    continue
                if m.turn != a.player:
                    raise MatchFileError(
                        f"a roll by player {a.player}, but player {m.turn} is on turn", line
                    )
                closed = m.state.position
                if closed.bar[0] > 0 and all(
                    closed.opponent_checkers(p) >= 2 for p in range(19, 25)
                ):
                    notes.append(f"line {line}: closed out, the dice {a.dice} are not rolled (R13)")
                    with _refused("a pass", line):
                        m.roll(player=a.player)
                    continue
                with _refused("a roll", line):
                    m.roll(a.dice, player=a.player)
            if a.played and m.phase is bm.Phase.MOVE:
                with _refused("a play", line):
                    m.move(Move(a.steps), player=a.player)
        elif isinstance(a, Double):
            if m.phase is bm.Phase.DOUBLED:
                if m.state.beavers == 0:
                    with _refused("a beaver", line):
                        m.beaver(player=a.player)
                else:
                    with _refused("a raccoon", line):
                        m.raccoon(player=a.player)
            else:
                with _refused("a double", line):
                    m.double(player=a.player)
        elif isinstance(a, Take):
            with _refused("a take", line):
                m.take(player=a.player)
        elif isinstance(a, Drop):
            with _refused("a drop", line):
                m.drop(player=a.player)
        else:
            with _refused("a resignation", line):
                m.resign(a.level, player=a.player)
            with _refused("accepting it", line):
                m.accept_resignation(player=1 - a.player)
    if game.end is not None:
        last = m.state.last_end if m.game_number != start or m.is_over else None
        if last is None:
            raise MatchFileError(f"game {game.number} is not over, but the file gives a result")
        if (last.winner, last.points) != (game.end.winner, game.end.points):
            notes.append(
                f"game {game.number}: the file's result {game.end.winner}+{game.end.points} "
                f"differs from the play's {last.winner}+{last.points}"
            )

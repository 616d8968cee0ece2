"""What the .mat and SGF readers and writers share besides the errors
(:mod:`~backgammon.records.errors`): a match as a file writes it, action by action.

Everyone else holds a :class:`~backgammon.play.record.MatchRecord`.  The readers return one
and the writers take one; in between, a game is what the file says (``File…`` actions:
a throw and its play as one row, the steps as written, the line each came from for an
error).  A reader fills a game while it drives a :class:`~backgammon.play.match.Match`
through it (:func:`apply_action`), so a file that parses is a file whose plays the rules
accept; :func:`to_record` replays the games under the match's own rules (Crawford, dead
cubes, the match's end) into the record, and :func:`from_record` turns a record back into
what a writer lays out.  Only :func:`as_written` and :func:`written_name` are for others.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field, replace
from typing import Any

from backgammon.core.position import Position
from backgammon.core.turn import EntryError, TurnEntry
from backgammon.core.values import (
    OFF,
    AmbiguousMoveError,
    IllegalMoveError,
    InvalidMoveTextError,
    Move,
    Step,
    short_repr,
)
from backgammon.play import match as bm
from backgammon.play.dice import FixedDice
from backgammon.play.ids import state_at_score
from backgammon.play.record import MatchRecord
from backgammon.play.rules import MAX_CUBE_LIMIT, Rules
from backgammon.records.errors import MatchFileError

__all__: list[str] = []


# ----------------------------------------------------------------------------- the model


@dataclass(frozen=True)
class FileRoll:
    """A roll and the play made with it; ``steps`` are single-die steps in file order.

    ``played`` is False for dice that were rolled but not played (the player resigned
    after rolling; gnubg's ``MOVE_SETDICE``).  An empty ``steps`` with ``played`` is a
    lost turn (R10), or gnubg's dance for a closed-out player (R13).
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
class FileDouble:
    """``player`` offers the cube at ``value`` (a beaver or raccoon is a double by the
    player who was doubled)."""

    player: int
    value: int
    line: int | None = field(default=None, compare=False)


@dataclass(frozen=True)
class FileTake:
    """``player`` accepts the pending double."""

    player: int
    line: int | None = field(default=None, compare=False)


@dataclass(frozen=True)
class FileDrop:
    """``player`` passes the pending double and loses the game (R24)."""

    player: int
    line: int | None = field(default=None, compare=False)


@dataclass(frozen=True)
class FileResign:
    """``player`` resigned a single (1), gammon (2) or backgammon (3) and it was accepted."""

    player: int
    level: int
    line: int | None = field(default=None, compare=False)


@dataclass(frozen=True)
class FilePass:
    """``player`` is on the bar against a closed board: the turn passes without a roll
    (R13).  gnubg writes a roll with no play instead; both are read."""

    player: int
    line: int | None = field(default=None, compare=False)


FileAction = FileRoll | FileDouble | FileTake | FileDrop | FileResign | FilePass
"""One action of a game as a file holds it."""


@dataclass(frozen=True)
class FileGameEnd:
    """How a game ended: the winner, the points scored and whether by resignation."""

    winner: int
    points: int
    resigned: bool = False


@dataclass(frozen=True)
class GameFile:
    """One game: its 1-based number, the score before it, its actions and its end."""

    number: int
    score: tuple[int, int]
    actions: tuple[FileAction, ...] = ()
    end: FileGameEnd | None = None


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


# ----------------------------------------------------------------------------- file -> Match


@contextmanager
def _refused(what: str, line: int | None) -> Iterator[None]:
    """Turn the Match's refusal of an action into a MatchFileError at the action's line."""
    try:
        yield
    except ValueError as exc:
        raise MatchFileError(f"{what} refused by the rules: {exc}", line) from exc


def reading_match(jacoby: bool = False) -> bm.Match:
    """The Match a reader drives through one game of a file: money rules with every cube
    convention a file may show (beavers, raccoons, any cube), so that reading checks the
    plays and the order of the actions; :func:`to_match` applies the match's own rules.
    It has no dice to throw: every throw comes from the file."""
    rules = Rules.money(jacoby=jacoby, beavers=True, raccoons=True, max_cube=MAX_CUBE_LIMIT)
    return bm.Match(rules=rules, dice=FixedDice(()))


def game_end(match: bm.Match, start: int) -> FileGameEnd | None:
    """How game ``start`` of ``match`` ended, or None while it goes on."""
    if match.game_number == start and not match.is_over:
        return None
    last = match.state.last_end
    if last is None:  # a match resumed over (from an ID) records no end
        return None
    return FileGameEnd(last.winner, last.points, last.reason is bm.EndReason.RESIGNED)


def closed_out_player(match: bm.Match) -> tuple[int, bool] | None:
    """The player on the bar against a closed board whose turn is being passed (R13), and
    whether the Match already passed it (True) or waits for it (it may double first)."""
    s = match.state
    if s.phase is not bm.Phase.ROLL or s.on_roll is None:
        return None
    if s.position.is_closed_out:
        return s.on_roll, False
    last = s.games[-1][-1] if s.games and s.games[-1] else None
    if isinstance(last, bm.Pass):
        return last.player, True
    return None


def unwritten_pass(match: bm.Match, actions: Sequence[FileAction]) -> tuple[int, bool] | None:
    """The closed-out player whose pass (R13) a reader has not put in ``actions`` (the
    game's file actions so far) yet, and whether the Match already made it."""
    closed = closed_out_player(match)
    if closed is not None and closed[1] and actions and actions[-1].player == closed[0]:
        return None  # the file's dance (or pass) for that turn is read already
    return closed


def position_for(match: bm.Match, player: int, what: str, line: int | None) -> Position:
    """The position ``player`` is about to roll in (from that side), or MatchFileError when
    the game does not stand before a roll of that player."""
    phase = match.phase
    if phase is bm.Phase.OPENING:
        return Position.initial()
    if phase is bm.Phase.DOUBLED:
        raise MatchFileError(f"a {what} while a double is pending", line)
    if phase is bm.Phase.MOVE:
        raise MatchFileError(f"a {what} before the dice rolled were played", line)
    if phase is not bm.Phase.ROLL:
        raise MatchFileError(f"a {what} after the game was over", line)
    if match.turn != player:
        raise MatchFileError(
            f"a {what} by player {player}, but player {match.turn} is on turn", line
        )
    return match.position


def apply_action(match: bm.Match, action: FileAction, notes: list[str] | None = None) -> None:
    """Make one file action on ``match`` (rolls must hold a resolved play).

    The file's ways of writing what the Match does by itself are read here: a closed-out
    player's roll or pass (R13) is the Match's pass, wherever the Match made it.  Anything
    the Match refuses raises :class:`MatchFileError` at the action's line; what was read
    leniently is appended to ``notes``.
    """
    notes = notes if notes is not None else []
    line, p, m = action.line, action.player, match
    if isinstance(action, FilePass):
        closed = closed_out_player(m)
        if closed is None or closed[0] != p:
            raise MatchFileError(f"player {p} passes but is not closed out", line)
        if not closed[1]:
            _act(m, "a pass", line, bm.ActionKind.ROLL, player=p)
        return
    if isinstance(action, FileRoll):
        if m.phase is bm.Phase.OPENING:
            hi, lo = max(action.dice), min(action.dice)
            if hi == lo:
                raise MatchFileError(f"an opening roll of {hi}{lo} (R3: never a double)", line)
            throw = (hi, lo) if p == 0 else (lo, hi)
            _act(m, "the opening roll", line, bm.ActionKind.ROLL, dice=throw)
        else:
            closed = closed_out_player(m)
            if closed is not None and closed[0] == p and not action.steps:
                # gnubg rolls for a closed-out player, who dances; the Match passes (R13).
                notes.append(
                    f"line {line}: closed out, the dice {action.dice} are not rolled (R13)"
                )
                if not closed[1]:
                    _act(m, "a pass", line, bm.ActionKind.ROLL, player=p)
                return
            position_for(m, p, "roll", line)
            _act(m, "a roll", line, bm.ActionKind.ROLL, dice=action.dice, player=p)
        if not action.played:
            return
        if m.phase is bm.Phase.MOVE:
            _act(m, "a play", line, bm.ActionKind.MOVE, play=Move(action.steps), player=p)
        elif action.steps:
            raise MatchFileError(
                f"{Move(action.steps)}: no play is possible with {action.dice}", line
            )
    elif isinstance(action, FileDouble):
        if m.phase is not bm.Phase.DOUBLED:
            _act(m, "a double", line, bm.ActionKind.DOUBLE, player=p)
        elif m.state.beavers == 0:
            _act(m, "a beaver", line, bm.ActionKind.BEAVER, player=p)
        else:
            _act(m, "a raccoon", line, bm.ActionKind.RACCOON, player=p)
    elif isinstance(action, FileTake | FileDrop):
        take = isinstance(action, FileTake)
        what = "a take" if take else "a drop"
        if m.phase is not bm.Phase.DOUBLED:
            raise MatchFileError(f"{what} with no double pending", line)
        _act(m, what, line, bm.ActionKind.TAKE if take else bm.ActionKind.DROP, player=p)
    else:
        _act(m, "a resignation", line, bm.ActionKind.RESIGN, level=action.level, player=p)
        _act(m, "accepting it", line, bm.ActionKind.ACCEPT, player=1 - p)


def _act(match: bm.Match, what: str, line: int | None, kind: bm.ActionKind, **how: Any) -> None:
    """Make an action on ``match``; a refusal becomes a MatchFileError at ``line``."""
    with _refused(what, line):
        match.act(kind, **how)


def game_actions(match: bm.Match, game: GameFile, notes: list[str]) -> Iterator[FileAction]:
    """The game's actions, each checked to come while the game goes on; the caller makes
    each on ``match`` before asking for the next.  At the end the file's result is checked
    against the Match's (a difference is noted)."""
    start = match.game_number
    for action in game.actions:
        if game_end(match, start) is not None:
            raise MatchFileError(f"game {game.number} goes on after it was over", action.line)
        yield action
    if game.end is not None:
        last = game_end(match, start)
        if last is None:
            raise MatchFileError(f"game {game.number} is not over, but the file gives a result")
        if (last.winner, last.points) != (game.end.winner, game.end.points):
            notes.append(
                f"game {game.number}: the file's result {game.end.winner}+{game.end.points} "
                f"differs from the play's {last.winner}+{last.points}"
            )


def replay_game(match: bm.Match, game: GameFile, notes: list[str]) -> None:
    """Play one file game on ``match`` action by action (see :func:`apply_action`)."""
    for action in game_actions(match, game, notes):
        apply_action(match, action, notes)


def match_games(record: MatchFile, match: bm.Match, notes: list[str]) -> Iterator[GameFile]:
    """The record's games, each checked to begin where ``match`` stands (the caller plays
    each on ``match`` before asking for the next); games after the match was over are
    noted and left out."""
    unfinished: GameFile | None = None  # the game before, if it has actions but no end
    for game in record.games:
        if match.is_over:
            notes.append(f"game {game.number} comes after the match was over: ignored")
            return
        if unfinished is not None and game.actions:
            raise MatchFileError(
                f"game {game.number} begins before game {unfinished.number} is over",
                game.actions[0].line,
            )
        if match.score != game.score:
            notes.append(
                f"game {game.number}: the file says score {game.score}, the play gives "
                f"{match.score}"
            )
        start = match.game_number
        yield game
        unfinished = game if game.actions and game_end(match, start) is None else None


def starting_match(record: MatchFile, numbered: bool = False) -> bm.Match:
    """The match as it stands before the file's first game: the file's rules (beavers and
    the cube's ceiling read from its plays), at the first game's score; ``numbered``: its
    games numbered as the file numbers them (a file may begin with game 2)."""
    length = record.length or None
    beavers = any(_has_beaver(g) for g in record.games)
    max_cube = _max_cube(record)
    try:
        if length is None:
            rules = Rules.money(
                jacoby=record.jacoby, beavers=beavers, raccoons=beavers, max_cube=max_cube
            )
        else:
            rules = Rules.match(length, crawford=record.crawford or length == 1, max_cube=max_cube)
    except ValueError as exc:
        raise MatchFileError(f"the file's rules are refused: {exc}") from exc
    first = record.games[0] if record.games else None
    number = first.number if first is not None and numbered else 1
    if first is None or (first.score == (0, 0) and number == 1):
        return bm.Match(rules=rules)
    try:
        crawford = crawford_games(record)[0]
        state = state_at_score(rules, first.score, crawford)
    except ValueError as exc:
        raise MatchFileError(f"cannot start at score {first.score}: {exc}") from exc
    if number != 1:
        start = bm.GameStart(number, first.score, crawford)
        state = replace(state, game_number=number, games=((start,),))
    return bm.Match.from_state(state)


def to_match(record: MatchFile, warnings: list[str] | None = None) -> bm.Match:
    """Replay a file model through :class:`Match` under the match's rules.

    Raises :class:`MatchFileError` (with the line of the action when known) on an action
    the rules refuse; odd but readable things are appended to ``warnings``.
    """
    notes: list[str] = warnings if warnings is not None else []
    match = starting_match(record)
    for game in match_games(record, match, notes):
        replay_game(match, game, notes)
    return match


def to_record(record: MatchFile, warnings: list[str] | None = None) -> MatchRecord:
    """The file model as the match record it replays to (:func:`to_match`), with what the
    file says beside the play: the header, and the dice shown for a closed-out player's dance
    kept on the record's pass (R13)."""
    notes: list[str] = warnings if warnings is not None else []
    match = starting_match(record, numbered=True)
    danced: dict[int, tuple[int, int]] = {}  # flat index of a pass -> the dice a file shows
    for game in match_games(record, match, notes):
        for action in game_actions(match, game, notes):
            before = _entries(match)
            apply_action(match, action, notes)
            if not isinstance(action, FileRoll) or action.steps or not action.played:
                continue
            flat = list(match.record.actions())
            made = flat[before:] if _entries(match) > before else flat[-1:]
            where = before if _entries(match) > before else len(flat) - 1
            if made and isinstance(made[0], bm.Pass) and made[0].player == action.player:
                danced[where] = action.dice
    games: list[tuple[bm.Action, ...]] = []
    k = 0
    for game_entries in match.record.games:
        out: list[bm.Action] = []
        for a in game_entries:
            out.append(
                bm.Pass(a.player, danced[k]) if k in danced and isinstance(a, bm.Pass) else a
            )
            k += 1
        games.append(tuple(out))
    return MatchRecord(
        match.record.rules,
        tuple(games),
        match.record.start,
        players=record.players,
        info=record.info,
        comment=record.comment,
        application=record.application,
    )


def _entries(match: bm.Match) -> int:
    return sum(len(g) for g in match.record.games)


def _max_cube(record: MatchFile) -> int:
    """The cube's ceiling a file was played under: 64 (R26), or the largest value it
    reached when higher (gnubg lets a cube go past 64), up to the package's 2**15."""
    values = [a.value for g in record.games for a in g.actions if isinstance(a, FileDouble)]
    top = max(values, default=1)
    if top <= 64:
        return 64
    return min(1 << (top - 1).bit_length(), 1 << 15)


def _has_beaver(game: GameFile) -> bool:
    pending: int | None = None
    for a in game.actions:
        if isinstance(a, FileDouble):
            if pending is not None and a.player != pending:
                return True
            pending = a.player
        elif isinstance(a, (FileTake, FileDrop)):
            pending = None
    return False


# ----------------------------------------------------------------------------- written plays


def resolve_play(
    position: Position,
    dice: tuple[int, int],
    segments: Sequence[Step],
    text: str,
    line: int | None,
    marks_hits: bool = True,
) -> tuple[tuple[Step, ...], list[str]]:
    """The steps of the play meant by ``segments`` (from/to/hit as written) in ``position``
    (the roller's side), and what was read leniently.

    Single-die steps that make a legal play keep their written order (hit marks are taken
    from the board); anything else (combined moves such as ``24/15``) is resolved through
    :meth:`Position.parse_move` and comes back expanded, with a warning.
    """
    warnings: list[str] = []
    pos = position
    if not segments and not pos.legal_moves(dice):
        return (), warnings
    die_values = {dice[0], dice[1]}
    simple = all(s - t in die_values or (t == OFF and s - t < max(dice)) for s, t, _ in segments)
    steps: tuple[Step, ...] | None = None
    if simple and segments:
        entry = TurnEntry(pos, dice)
        with suppress(EntryError):
            for s, t, _hit in segments:
                entry.add(s, t)
        if entry.move is not None and len(entry.steps) == len(segments):
            steps = entry.steps  # one die each, in the written order
    if steps is None:
        try:
            steps = tuple(pos.parse_move(text, dice))
        except (InvalidMoveTextError, IllegalMoveError, AmbiguousMoveError) as exc:
            raise MatchFileError(
                f"{short_repr(text.strip(), 60)} with {dice[0]}{dice[1]}: {exc}", line
            ) from exc
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

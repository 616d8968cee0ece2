"""What the .mat and SGF readers share besides the errors (:mod:`~backgammon.records.errors`):
reading a match in one pass, each action made on a :class:`~backgammon.play.match.Match` as
it is read, and resolving a written play against the legal ones.

A reader makes each action it reads twice (:class:`MatchReading`): on the game's reading
match, with every cube convention a file may show (its refusals are the reading's errors,
raised at once), and on the match under the file's own rules (Crawford, dead cubes, the
match's end), whose first refusal is raised when the file has been read without a reading
error, as if the file were checked first and replayed after.  Whether beavers are allowed
and the cube's ceiling are known only from the whole file: the match runs without either
limit, and its record gets the file's rules at the end, a cube past the file's ceiling
being refused then at its line.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
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

Make = Callable[[bm.Match, list[str]], None]
"""One action as read: made on a match, what was read leniently noted in the list."""


# ----------------------------------------------------------------------------- actions


@contextmanager
def _refused(what: str, line: int | None) -> Iterator[None]:
    """Turn the Match's refusal of an action into a MatchFileError at the action's line."""
    try:
        yield
    except ValueError as exc:
        raise MatchFileError(f"{what} refused by the rules: {exc}", line) from exc


def _act(match: bm.Match, what: str, line: int | None, kind: bm.ActionKind, **how: Any) -> None:
    """Make an action on ``match``; a refusal becomes a MatchFileError at ``line``."""
    with _refused(what, line):
        match.act(kind, **how)


def reading_match(jacoby: bool = False) -> bm.Match:
    """The Match a reader drives through one game of a file: money rules with every cube
    convention a file may show (beavers, raccoons, any cube), so that reading checks the
    plays and the order of the actions.  It has no dice to throw: every throw comes from
    the file."""
    rules = Rules.money(jacoby=jacoby, beavers=True, raccoons=True, max_cube=MAX_CUBE_LIMIT)
    return bm.Match(rules=rules, dice=FixedDice(()))


def game_end(match: bm.Match, start: int) -> bm.GameEnd | None:
    """How game ``start`` of ``match`` ended, or None while it goes on."""
    if match.game_number == start and not match.is_over:
        return None
    return match.state.last_end  # None for a match resumed over (from an ID)


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


def passing(player: int, line: int | None) -> Make:
    """``player``, on the bar against a closed board, passes without a roll (R13); gnubg
    writes a roll with no play instead (:func:`rolling`), and the Match may have passed."""

    def make(m: bm.Match, notes: list[str]) -> None:
        closed = closed_out_player(m)
        if closed is None or closed[0] != player:
            raise MatchFileError(f"player {player} passes but is not closed out", line)
        if not closed[1]:
            _act(m, "a pass", line, bm.ActionKind.ROLL, player=player)

    return make


def rolling(
    player: int,
    dice: tuple[int, int],
    steps: tuple[Step, ...] = (),
    played: bool = True,
    line: int | None = None,
) -> Make:
    """``player`` rolls ``dice`` and plays ``steps`` (single-die steps in file order; not
    ``played``: rolled, then resigned).  No steps is a lost turn (R10), or gnubg's dance
    for a closed-out player (R13), which is the Match's pass wherever it made it."""

    def make(m: bm.Match, notes: list[str]) -> None:
        p = player
        if m.phase is bm.Phase.OPENING:
            hi, lo = max(dice), min(dice)
            if hi == lo:
                raise MatchFileError(f"an opening roll of {hi}{lo} (R3: never a double)", line)
            throw = (hi, lo) if p == 0 else (lo, hi)
            _act(m, "the opening roll", line, bm.ActionKind.ROLL, dice=throw)
        else:
            closed = closed_out_player(m)
            if closed is not None and closed[0] == p and not steps:
                # gnubg rolls for a closed-out player, who dances; the Match passes (R13).
                notes.append(f"line {line}: closed out, the dice {dice} are not rolled (R13)")
                if not closed[1]:
                    _act(m, "a pass", line, bm.ActionKind.ROLL, player=p)
                return
            position_for(m, p, "roll", line)
            _act(m, "a roll", line, bm.ActionKind.ROLL, dice=dice, player=p)
        if not played:
            return
        if m.phase is bm.Phase.MOVE:
            _act(m, "a play", line, bm.ActionKind.MOVE, play=Move(steps), player=p)
        elif steps:
            raise MatchFileError(f"{Move(steps)}: no play is possible with {dice}", line)

    return make


def doubling(player: int, line: int | None) -> Make:
    """``player`` offers the cube (a beaver or raccoon when a double is pending)."""

    def make(m: bm.Match, notes: list[str]) -> None:
        if m.phase is not bm.Phase.DOUBLED:
            _act(m, "a double", line, bm.ActionKind.DOUBLE, player=player)
        elif m.state.beavers == 0:
            _act(m, "a beaver", line, bm.ActionKind.BEAVER, player=player)
        else:
            _act(m, "a raccoon", line, bm.ActionKind.RACCOON, player=player)

    return make


def answering(player: int, take: bool, line: int | None) -> Make:
    """``player`` takes (or drops, losing the game, R24) the pending double."""

    def make(m: bm.Match, notes: list[str]) -> None:
        what = "a take" if take else "a drop"
        if m.phase is not bm.Phase.DOUBLED:
            raise MatchFileError(f"{what} with no double pending", line)
        _act(m, what, line, bm.ActionKind.TAKE if take else bm.ActionKind.DROP, player=player)

    return make


def resigning(player: int, level: int, line: int | None) -> Make:
    """``player`` resigns a single (1), gammon (2) or backgammon (3), and it is accepted."""

    def make(m: bm.Match, notes: list[str]) -> None:
        _act(m, "a resignation", line, bm.ActionKind.RESIGN, level=level, player=player)
        _act(m, "accepting it", line, bm.ActionKind.ACCEPT, player=1 - player)

    return make


# ----------------------------------------------------------------------------- one pass


@dataclass
class _Played:
    """The match under the file's rules as the reading goes: what it made, and its first
    refusal (with the count of actions before it, to tell which came first)."""

    match: bm.Match | None = None
    error: tuple[int, MatchFileError, int] | None = None
    over: bool = False  # the match ended before a game of the file: the rest is ignored
    count: int = 0
    start: int = 0  # the game number the current game began with
    first: bool = True  # no action of the current game made yet
    unfinished: int | None = None  # the game before, if it has actions but no end
    danced: dict[int, tuple[int, int]] = field(default_factory=dict)
    cubes: list[tuple[int, bm.MatchState, Make, int]] = field(default_factory=list)


class MatchReading:
    """A match file read in one pass (see the module docstring): the reader begins each
    game, makes each action as it reads it (:meth:`do`) and ends the game; :meth:`record`
    and :meth:`match` give what it read, or raise the first refusal of the file's rules.

    ``numbered`` keeps the file's game numbers (a file may begin with game 2).
    """

    def __init__(self, length: int, crawford: bool, jacoby: bool, numbered: bool = True) -> None:
        self.length = length
        self.crawford = crawford and length > 1
        self.jacoby = jacoby
        self.numbered = numbered
        self.notes: list[str] = []  # what the match under the file's rules found odd
        self.m = reading_match()  # the reading match of the current game
        self.number = 0
        self.last_player: int | None = None  # who made the game's last action as read
        self.beavered = False
        self.top_cube = 1
        self._start = 0
        self._held: tuple[int | None, Make] | None = None  # a roll waiting for its play
        self._played = _Played()

    # ------------------------------------------------------------------------- the reading

    def begin_game(self, number: int, score: tuple[int, int], jacoby: bool = False) -> None:
        """A game of the file begins: its number and the score the file gives before it."""
        self._flush()
        self.m = reading_match(jacoby)
        self._start = self.m.game_number
        self.number = number
        self.last_player = None
        self._begin_played(number, score)

    def unwritten_pass(self) -> tuple[int, bool] | None:
        """The closed-out player whose pass (R13) the file has not shown yet (see
        :func:`closed_out_player`), and whether the Match already made it."""
        closed = closed_out_player(self.m)
        if closed is not None and closed[1] and self.last_player == closed[0]:
            return None  # the file's dance (or pass) for that turn is read already
        return closed

    def over(self) -> bm.GameEnd | None:
        """How the current game ended as read, or None while it goes on."""
        return game_end(self.m, self._start)

    def do(
        self,
        player: int,
        line: int | None,
        make: Make,
        *,
        cube: int | None = None,
        dance: tuple[int, int] | None = None,
        hold: bool = False,
    ) -> None:
        """Make an action ``player`` made at ``line`` (see :func:`rolling` and the others):
        ``cube``, the value written for an offer of the cube; ``dance``, the dice of a roll
        with no play (a closed-out player's, R13); ``hold``, a roll whose play may follow
        (:meth:`play_held`)."""
        self._flush()
        if cube is not None:
            self.beavered = self.beavered or self.m.phase is bm.Phase.DOUBLED
            self.top_cube = max(self.top_cube, cube)
        make(self.m, [])
        self.last_player = player
        if hold:
            self._held = (line, make)
        else:
            self._do_played(line, make, cube is not None, dance)

    def play_held(
        self, player: int, dice: tuple[int, int], steps: tuple[Step, ...], line: int
    ) -> None:
        """The play of the held roll (SGF's ``DI`` then the move): made on the reading
        match, and as one roll and play at ``line`` on the match under the file's rules."""
        with _refused("a play", line):
            self.m.move(Move(steps), player=player)
        self._held = None
        dance = None if steps else dice
        self._do_played(line, rolling(player, dice, steps, True, line), False, dance)

    def passed(self, player: int) -> None:
        """The Match passed ``player``'s turn after the last line read (R13)."""
        self._flush()
        self._do_played(None, passing(player, None), False, None)

    def end_game(self) -> bm.GameEnd | None:
        """The current game is read: how it ended as read (None if it goes on)."""
        self._flush()
        end = self.over()
        self._end_played(end)
        return end

    # ------------------------------------------------------------------------- the match

    def _flush(self) -> None:
        if self._held is not None:
            line, make = self._held
            self._held = None
            self._do_played(line, make, False, None)

    def _fail(self, exc: MatchFileError) -> None:
        p = self._played
        if p.error is None:
            p.error = (p.count, exc, len(self.notes))

    def _rules(self, beavers: bool, max_cube: int) -> Rules:
        length = self.length or None
        try:
            if length is None:
                return Rules.money(
                    jacoby=self.jacoby, beavers=beavers, raccoons=beavers, max_cube=max_cube
                )
            return Rules.match(length, crawford=self.crawford or length == 1, max_cube=max_cube)
        except ValueError as exc:
            raise MatchFileError(f"the file's rules are refused: {exc}") from exc

    def _starting(self, number: int, score: tuple[int, int]) -> bm.Match:
        """The match as it stands before the file's first game, without the limits that
        only the whole file tells (see the module docstring)."""
        rules = self._rules(True, MAX_CUBE_LIMIT)
        number = number if self.numbered else 1
        if score == (0, 0) and number == 1:
            return bm.Match(rules=rules)
        n = self.length
        crawford = bool(self.crawford and n and ((score[0] == n - 1) != (score[1] == n - 1)))
        try:
            state = state_at_score(rules, score, crawford)
        except ValueError as exc:
            raise MatchFileError(f"cannot start at score {score}: {exc}") from exc
        if number != 1:
            start = bm.GameStart(number, score, crawford)
            state = replace(state, game_number=number, games=((start,),))
        return bm.Match.from_state(state)

    def _begin_played(self, number: int, score: tuple[int, int]) -> None:
        p = self._played
        if p.error is not None or p.over:
            return
        try:
            if p.match is None:
                p.match = self._starting(number, score)
            m = p.match
            if m.is_over:
                self.notes.append(f"game {number} comes after the match was over: ignored")
                p.over = True
                return
            if m.score != score:
                self.notes.append(
                    f"game {number}: the file says score {score}, the play gives {m.score}"
                )
            p.start = m.game_number
            p.first = True
        except MatchFileError as exc:
            self._fail(exc)

    def _do_played(
        self, line: int | None, make: Make, cube: bool, dance: tuple[int, int] | None
    ) -> None:
        p = self._played
        p.count += 1
        if p.error is not None or p.over or p.match is None:
            return
        m = p.match
        try:
            if p.first and p.unfinished is not None:
                raise MatchFileError(
                    f"game {self.number} begins before game {p.unfinished} is over", line
                )
            p.first = False
            if game_end(m, p.start) is not None:
                raise MatchFileError(f"game {self.number} goes on after it was over", line)
            if cube:
                p.cubes.append((p.count, m.state, make, len(self.notes)))
            before = _entries(m)
            make(m, self.notes)
            if dance is not None:
                flat = list(m.record.actions())
                grew = _entries(m) > before
                where = before if grew else len(flat) - 1
                made = flat[before:] if grew else flat[-1:]
                if made and isinstance(made[0], bm.Pass):
                    p.danced[where] = dance
        except MatchFileError as exc:
            self._fail(exc)

    def _end_played(self, end: bm.GameEnd | None) -> None:
        p = self._played
        p.count += 1
        if p.error is not None or p.over or p.match is None:
            return
        last = game_end(p.match, p.start)
        try:
            if end is not None:
                if last is None:
                    raise MatchFileError(
                        f"game {self.number} is not over, but the file gives a result"
                    )
                if (last.winner, last.points) != (end.winner, end.points):
                    self.notes.append(
                        f"game {self.number}: the file's result {end.winner}+{end.points} "
                        f"differs from the play's {last.winner}+{last.points}"
                    )
        except MatchFileError as exc:
            self._fail(exc)
        p.unfinished = self.number if not p.first and last is None else None

    def _final_rules(self) -> Rules:
        """The file's rules: beavers if it shows one, the cube's ceiling 64 (R26) or the
        largest value it reached when higher (gnubg lets a cube go past 64), up to 2**15."""
        top = self.top_cube
        max_cube = 64 if top <= 64 else min(1 << (top - 1).bit_length(), 1 << 15)
        return self._rules(self.beavered, max_cube)

    def record(
        self,
        players: tuple[str, str],
        info: Sequence[tuple[str, str]] = (),
        comment: str = "",
        application: str = "",
        danced: bool = True,
        notes: list[str] | None = None,
    ) -> MatchRecord:
        """The match record the file plays to under its own rules, with what the file says
        beside the play: the header, and (``danced``) the dice shown for a closed-out
        player's dance kept on the record's pass (R13).  Raises the first refusal of the
        file's rules, if any; what the play found odd before it goes into ``notes``."""
        self._flush()
        p = self._played
        if p.match is None and p.error is None:
            try:
                p.match = bm.Match(rules=self._rules(True, MAX_CUBE_LIMIT))
            except MatchFileError as exc:
                self._fail(exc)
        rules = self._final_rules()
        error = p.error
        for count, state, make, noted in p.cubes:
            if error is not None and count >= error[0]:
                break
            if state.cube_value * 4 <= rules.max_cube:
                continue
            try:
                make(bm.Match.from_state(replace(state, rules=rules)), [])
            except MatchFileError as exc:
                error = (count, exc, noted)
                break
        if notes is not None:
            notes.extend(self.notes if error is None else self.notes[: error[2]])
        if error is not None:
            raise error[1]
        assert p.match is not None
        record = p.match.record
        games: list[tuple[bm.Action, ...]] = []
        k = 0
        for game_entries in record.games:
            out: list[bm.Action] = []
            for a in game_entries:
                dice = p.danced.get(k) if danced else None
                out.append(bm.Pass(a.player, dice) if dice and isinstance(a, bm.Pass) else a)
                k += 1
            games.append(tuple(out))
        start = None if record.start is None else replace(record.start, rules=rules)
        return MatchRecord(
            rules,
            tuple(games),
            start,
            players=players,
            info=tuple(info),
            comment=comment,
            application=application,
        )


def _entries(match: bm.Match) -> int:
    return sum(len(g) for g in match.record.games)


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

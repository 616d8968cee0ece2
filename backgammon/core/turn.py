"""A play entered one step at a time: the rules of a turn, written once for every face.

A :class:`TurnEntry` holds the steps entered so far for one roll.  It checks each step
against the dice and the rules of a turn (R5-R17 of docs/rules.md), lists the steps that
can come next, takes steps back and says when the steps make a complete legal play.  The
terminal, the web board and the match-file readers all enter plays through it;
:class:`backgammon.play.match.Match` takes the finished play.

    >>> from backgammon.core.position import Position
    >>> entry = TurnEntry(Position.initial(), (3, 1))
    >>> entry.enter("8/5")
    >>> entry.next_steps()[:3]
    [(24, 23), (8, 7), (6, 5)]
    >>> str(entry.add(6, 5))
    '8/5 6/5'
    >>> entry.back(); entry.steps
    ((8, 5, False),)
"""

from __future__ import annotations

from collections.abc import Sequence

from backgammon.core.notation import Segment, parse_segments
from backgammon.core.position import Position
from backgammon.core.values import (
    BAR,
    OFF,
    AmbiguousMoveError,
    IllegalMoveError,
    InvalidMoveTextError,
    Move,
    Step,
    short_repr,
)

__all__ = ["EntryError", "TurnEntry", "format_partial"]

Board = tuple[int, ...]


class EntryError(IllegalMoveError):
    """A step or play that cannot be entered now (the steps entered so far are kept)."""


def single_step(board: Board, src: int, die: int) -> Step | None:
    """One checker moved ``die`` pips from ``src``, if that die alone allows it (R5-R15).

    The whole-roll rules (use both dice, the larger one, R9-R10) are the entry's concern.
    """
    if board[src] <= 0:
        return None
    if board[BAR] > 0 and src != BAR:
        return None  # R12: the bar comes first
    dst = src - die
    if dst > 0:
        if board[dst] < -1:
            return None  # R6: a closed point
        return (src, dst, board[dst] == -1)
    if any(x > 0 for x in board[7:]):
        return None  # R14: all checkers home before bearing off
    if dst < 0 and any(board[k] > 0 for k in range(src + 1, 7)):
        return None  # R15: a larger number only from the highest point
    return (src, OFF, False)


def _after(board: Board, step: Step) -> Board:
    return Position._trusted(board).apply_steps((step,)).board


class TurnEntry:
    """A play of ``dice`` being entered for the side to move in ``position``.

    Nothing here is final: :meth:`back` and :meth:`undo` take steps back.  ``move`` is the
    legal play the steps make once they make one (the empty play when none is legal).
    """

    def __init__(self, position: Position, dice: Sequence[int]) -> None:
        """Start entering a play of ``dice``; every legal play is known from the start."""
        self.position = position
        self.legal = position.legal_moves(dice)  # checks the dice (DiceError)
        self.dice: tuple[int, int] = (int(dice[0]), int(dice[1]))
        self._targets: dict[Board, Move] = {}
        for move in self.legal:
            self._targets.setdefault(position.apply_steps(move).board, move)
        self._steps: list[tuple[Step, int]] = []  # each step with the die it used
        self._finishes: dict[tuple[Board, tuple[int, ...]], bool] = {}

    # ------------------------------------------------------------------ state
    @property
    def steps(self) -> tuple[Step, ...]:
        """The steps entered so far, in order."""
        return tuple(step for step, _die in self._steps)

    @property
    def board(self) -> Board:
        """The board after the steps entered so far (mover's side)."""
        return self.current.board

    @property
    def current(self) -> Position:
        """The position after the steps entered so far, still from the mover's side."""
        return self.position.apply_steps(self.steps)

    @property
    def dice_left(self) -> tuple[int, ...]:
        """The numbers not yet used by the steps entered (larger first)."""
        left = list(self._all_dice())
        for _step, die in self._steps:
            if die in left:
                left.remove(die)
        return tuple(left)

    def _all_dice(self) -> tuple[int, ...]:
        d1, d2 = self.dice
        return (d1,) * 4 if d1 == d2 else (max(d1, d2), min(d1, d2))

    @property
    def move(self) -> Move | None:
        """The legal play the entered steps make, once they make one."""
        if not self.legal:
            return Move()
        board = self.board
        if board in self._targets and not self._onward(board, self.dice_left):
            return self._targets[board]
        return None  # R9: a play that reaches a legal result early must still use its dice

    @property
    def is_complete(self) -> bool:
        """True when the steps entered make a legal play (R9-R10: as much of the roll as
        the rules require)."""
        return self.move is not None

    # ------------------------------------------------------------------ entering
    def undo(self) -> None:
        """Take back every step entered."""
        self._steps.clear()

    def back(self) -> None:
        """Take back the last step entered (nothing when there is none)."""
        if self._steps:
            self._steps.pop()

    def choose(self, number: int) -> Move:
        """Pick the ``number``-th legal play of :attr:`legal` (from 1) as the whole play."""
        if isinstance(number, bool) or not isinstance(number, int):
            raise EntryError(f"a play number is a whole number, not {short_repr(number)}")
        if not 1 <= number <= len(self.legal):
            raise EntryError(f"there is no play number {number}: choose 1-{len(self.legal)}")
        return self.set_play(self.legal[number - 1])

    def set_play(self, move: Move) -> Move:
        """Replace the steps entered by the whole legal play ``move``."""
        try:
            target = self.position.apply_steps(move).board
        except IllegalMoveError as exc:
            raise EntryError(f"{move} is not a legal play of {self._roll_text()}") from exc
        if target not in self._targets:
            raise EntryError(f"{move} is not a legal play of {self._roll_text()}")
        left = list(self._all_dice())
        steps: list[tuple[Step, int]] = []
        for s, t, hit in move:
            larger = [d for d in left if d > s - t] if t == OFF else []
            die = s - t if s - t in left else min(larger, default=s - t)
            if die in left:
                left.remove(die)
            steps.append(((s, t, hit), die))
        self._steps = steps
        return self._targets[target]

    def add(self, src: int, dst: int) -> Move | None:
        """Move one checker from ``src`` to ``dst`` (one die or several); the play once
        it is complete.  Raises :class:`EntryError` when no legal play continues so."""
        if not all(isinstance(x, int) and not isinstance(x, bool) for x in (src, dst)):
            raise EntryError(
                f"a step is two point numbers, not {short_repr(src)}/{short_repr(dst)}"
            )
        if not (1 <= src <= BAR and OFF <= dst < src):
            raise EntryError(f"{src}/{dst} is not a move from a point to a lower one")
        return self._add_segments([(src, dst, False)], f"{src}/{dst}")

    def enter(self, text: str) -> Move | None:
        """Add the steps that ``text`` names; return the play once it is complete.

        A whole play (any lenient gnubg spelling) or part of one is accepted; text that
        cannot be used raises a :class:`ValueError` subclass (InvalidMoveTextError,
        AmbiguousMoveError or EntryError) and leaves the steps entered so far unchanged.
        """
        if not isinstance(text, str):
            raise InvalidMoveTextError(f"a play is text such as 13/8, not {type(text).__name__}")
        text = text.strip()
        if text.isdigit():
            return self.choose(int(text))
        whole_error: IllegalMoveError | None = None
        if not self._steps:
            try:
                move = self.position.parse_move(text, self.dice)
            except AmbiguousMoveError:
                raise
            except IllegalMoveError as exc:
                whole_error = exc
            else:
                return self.set_play(move)
        segments = parse_segments(text)
        if not segments:
            raise InvalidMoveTextError("type a play such as 13/8, or a number from the list")
        try:
            return self._add_segments(segments, text)
        except EntryError:
            if whole_error is not None:
                raise EntryError(str(whole_error)) from whole_error
            raise

    def next_steps(self) -> list[tuple[int, int]]:
        """Every single-die step (from, to) that can come next and still end in a legal play,
        highest source first."""
        found = {(step[0], step[1]) for step, _rest in self._onward(self.board, self.dice_left)}
        return sorted(found, key=lambda st: (-st[0], -st[1]))

    def sequences(self) -> list[list[tuple[int, int]]]:
        """Every order of single-die steps, from the steps entered so far, that ends in a
        legal play (what a board that moves checkers die by die may offer)."""
        out: list[list[tuple[int, int]]] = []
        seen: set[tuple[tuple[int, int], ...]] = set()

        def walk(board: Board, dice: tuple[int, ...], path: list[tuple[int, int]]) -> None:
            onward = self._onward(board, dice)
            done = not onward and (board in self._targets or not self.legal)
            if done and tuple(path) not in seen:
                seen.add(tuple(path))
                out.append(path)
            for step, rest in onward:
                walk(_after(board, step), rest, [*path, (step[0], step[1])])

        walk(self.board, self.dice_left, [])
        return out

    # ------------------------------------------------------------------ search
    def _add_segments(self, segments: Sequence[Segment], text: str) -> Move | None:
        found = self._expand(self.board, list(self.dice_left), segments)
        if found is None:
            done = format_partial(self.steps)
            raise EntryError(
                f"{short_repr(text)} cannot follow {done} with {self._dice_text()}"
                if self._steps
                else f"{short_repr(text)} is not (part of) a legal play of {self._roll_text()}"
            )
        self._steps.extend(found)
        return self.move

    def _roll_text(self) -> str:
        return f"{self.dice[0]}{self.dice[1]}"

    def _dice_text(self) -> str:
        return "".join(str(d) for d in self.dice_left) or "no dice left"

    def _expand(
        self, board: Board, dice: list[int], segments: Sequence[Segment]
    ) -> list[tuple[Step, int]] | None:
        """Single-die steps (with their dice) for ``segments`` that still lead to a legal play."""
        if not segments:
            return [] if self._can_finish(board, tuple(dice)) else None
        src, dst, _hit = segments[0]

        def walk(
            b: Board, point: int, left: list[int], path: list[tuple[Step, int]]
        ) -> list[tuple[Step, int]] | None:
            options = [(die, single_step(b, point, die)) for die in sorted(set(left))]
            options.sort(key=lambda o: o[1] is None or o[1][1] != dst)  # one die, if it can
            for die, step in options:
                if step is None:
                    continue
                t = step[1]
                if t < dst or (t == OFF and dst != OFF):
                    continue
                rest = list(left)
                rest.remove(die)
                nb = _after(b, step)
                if t == dst:
                    tail = self._expand(nb, rest, segments[1:])
                    if tail is not None:
                        return [*path, (step, die), *tail]
                else:
                    deeper = walk(nb, t, rest, [*path, (step, die)])
                    if deeper is not None:
                        return deeper
            return None

        return walk(board, src, dice, [])

    def _onward(self, board: Board, dice: tuple[int, ...]) -> list[tuple[Step, tuple[int, ...]]]:
        """The single-die steps from ``board`` that still end in a legal play, each with the
        dice left after it."""
        out: list[tuple[Step, tuple[int, ...]]] = []
        for die in sorted(set(dice), reverse=True):
            rest = _without(dice, die)
            for src in range(BAR, 0, -1):
                step = single_step(board, src, die)
                if step is not None and self._can_finish(_after(board, step), rest):
                    out.append((step, rest))
        return out

    def _can_finish(self, board: Board, dice: tuple[int, ...]) -> bool:
        """True when some use of the remaining ``dice`` reaches a legal play's result."""
        if board in self._targets or (not self.legal and not dice):
            return True
        key = (board, dice)
        known = self._finishes.get(key)
        if known is None:
            known = any(
                step is not None and self._can_finish(_after(board, step), rest)
                for die in set(dice)
                for rest in (_without(dice, die),)
                for src in range(BAR, 0, -1)
                for step in (single_step(board, src, die),)
            )
            self._finishes[key] = known
        return known


def _without(dice: tuple[int, ...], die: int) -> tuple[int, ...]:
    rest = list(dice)
    rest.remove(die)
    return tuple(rest)


def format_partial(steps: Sequence[Step]) -> str:
    """Steps entered so far in gnubg notation (or "nothing")."""
    return str(Move(steps)) if steps else "nothing"

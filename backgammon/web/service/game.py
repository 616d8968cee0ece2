"""A web match: a :class:`~backgammon.play.match.Match` with its auditable dice, who may act, the
actions as stored, the state as a seat sees it, and the bot's answers.

This is the only module of the web layer that talks to ``Match``; every rule is decided
there.  An action is stored as a small JSON object and a match is rebuilt by replaying them.
"""

from __future__ import annotations

import copy
import itertools
from collections.abc import Sequence
from typing import Any

from backgammon.core.position import Position
from backgammon.core.turn import EntryError, TurnEntry
from backgammon.core.values import (
    AmbiguousMoveError,
    IllegalMoveError,
    InvalidMoveTextError,
    Move,
    short_repr,
)
from backgammon.play.dice import AuditableDice, FixedDice, verify
from backgammon.play.match import (
    Accept,
    Action,
    Beaver,
    Double,
    Drop,
    EndReason,
    GameEnd,
    GameStart,
    Match,
    NotYourTurnError,
    OpeningRoll,
    Pass,
    Phase,
    Play,
    Raccoon,
    Reject,
    Resign,
    Roll,
    Take,
)
from backgammon.play.rules import Rules
from backgammon.svg import LastPlay, match_svg
from backgammon.web.errors import BadNameError, check_name
from backgammon.web.schemas import CubeView, GameEndView, RulesView, StateView
from backgammon.web.store.database import MatchRow

__all__ = [
    "ActionError",
    "Game",
    "action_dict",
    "log_line",
    "orderings",
]

# What the move log says for the actions that carry nothing but their player.
_SAID: dict[type, str] = {
    Take: "takes",
    Drop: "passes",
    Beaver: "beavers",
    Raccoon: "raccoons",
    Accept: "accepts",
    Reject: "rejects",
}


class ActionError(ValueError):
    """An action refused by the rules or by the seat's situation; nothing was changed."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code = status, code


def action_dict(raw: dict[str, Any]) -> dict[str, Any]:
    """An API action normalised: 'pass' is 'drop', steps as lists."""
    action = dict(raw)
    if action.get("action") == "pass":
        action["action"] = "drop"
    if "steps" in action:
        action["steps"] = [list(s) for s in action["steps"]]
    return action


def orderings(
    position: Position, dice: Sequence[int], moves: Sequence[Move] | None = None
) -> list[list[tuple[int, int]]]:
    """Every order of single-die steps that makes a legal play (the core's turn entry).

    The page offers as targets only the next steps of these sequences, so a checker can be
    moved die by die in any order that keeps a legal play reachable.
    """
    return TurnEntry(position, dice).sequences()


def _entered(position: Position, dice: Sequence[int], steps: Sequence[Any]) -> TurnEntry:
    """The turn entry after ``steps`` (pairs of point numbers), each checked by the core."""
    entry = TurnEntry(position, dice)
    for step in steps:
        if not isinstance(step, (list, tuple)) or len(step) != 2:
            raise EntryError(f"a step is [from, to], not {short_repr(step)}")
        entry.add(step[0], step[1])
    return entry


_Log = tuple[int, list[str], tuple[int, int] | None, tuple[str, ...]]
"""What :meth:`Game.log` has written: the actions read, their lines, the throw waiting for
its play, and the names it used."""


class _Dice(AuditableDice):
    """The match's auditable dice, copied in constant time (a copy throws on from the same
    place: the stream is shared through :func:`itertools.tee`), not by throwing again every
    die thrown so far, which made acting cost more the longer a match went on."""

    def __init__(self, seed: bytes) -> None:
        super().__init__(seed)
        self._stream = itertools.tee(self._stream, 1)[0]

    def __copy__(self) -> _Dice:
        twin = _Dice.__new__(_Dice)
        twin.__dict__.update(self.__dict__)
        twin._stream = copy.copy(self._stream)
        return twin


class Game:
    """The live state of one web match, rebuilt from its stored actions."""

    def __init__(self, row: MatchRow) -> None:
        self.row = row
        self.match = Match(rules=rules_of(row), dice=_Dice(bytes.fromhex(row.seed)))
        self.actions: list[dict[str, Any]] = []
        self.names = list(row.names)
        """The names at the table: the row's, as renamed by 'name' actions."""
        self._log: _Log = (0, [], None, ())

    @staticmethod
    def commitment_of(seed: bytes) -> str:
        """The published commitment to a seed: its SHA-256 in hex."""
        return AuditableDice(seed).commitment

    @classmethod
    def replay(cls, row: MatchRow, actions: Sequence[dict[str, Any]]) -> Game:
        """The game after its stored actions, replayed through Match (dice from the seed)."""
        game = cls(row)
        for action in actions:
            game.apply(int(action["seat"]), dict(action))
        return game

    def copy(self, *, dice: bool = True) -> Game:
        """An independent copy to act on (the match state itself is immutable); its dice go
        on from the same throw, or, with ``dice=False``, it throws none (a bot's copy, which
        a worker process can unpickle)."""
        twin = Game.__new__(Game)
        twin.row, twin.actions, twin.names = self.row, list(self.actions), list(self.names)
        twin._log = self._log  # its list of lines is replaced, never changed
        twin.match = copy.copy(self.match)
        if dice:
            twin.match.dice_source = copy.copy(self.match.dice_source)
        else:
            twin.match.dice_source = FixedDice(())
        return twin

    def extended(self, stored: Sequence[tuple[int | None, dict[str, Any]]]) -> Game:
        """This game after the further ``stored`` actions (itself when there are none)."""
        if not stored:
            return self
        game = self.copy()
        for _seat, action in stored:
            game.apply(int(action["seat"]), dict(action))
        return game

    @property
    def seq(self) -> int:
        """Number of accepted actions."""
        return len(self.actions)

    @property
    def is_over(self) -> bool:
        """True when the match has been won."""
        return self.match.is_over

    def actor(self) -> int | None:
        """The seat that must act now (None at an opening roll, which either may throw,
        and once the match is over)."""
        return self.match.turn

    def may_act(self, seat: int | None) -> bool:
        """True when ``seat`` is the one to act (either seat may throw an opening roll)."""
        m = self.match
        if seat is None or m.is_over:
            return False
        return m.turn is None or m.turn == seat

    def apply(self, seat: int, action: dict[str, Any]) -> dict[str, Any]:
        """Make ``action`` for ``seat`` through :meth:`Match.act`, which checks it (once)
        before it changes anything; returns it as stored.  An ActionError (or any refusal)
        leaves the game exactly as it was."""
        m = self.match
        if m.is_over:
            raise ActionError(409, "match_over", "the match is over")
        kind = action.get("action")
        if kind == "name":
            return self._rename(seat, action)
        if kind not in _KINDS:
            raise ActionError(400, "unknown_action", f"unknown action {short_repr(kind)}")
        if not self.may_act(seat):
            raise ActionError(409, "not_your_turn", "it is not your turn to act")
        stored: dict[str, Any] = {"seat": seat, "action": kind}
        level = action.get("level") or "single"
        play = _play_of(action, m)
        try:
            made = m.act(kind, player=seat, play=play, level=level)
        except NotYourTurnError as exc:
            raise ActionError(409, "not_your_turn", str(exc)) from exc
        except (IllegalMoveError, InvalidMoveTextError, AmbiguousMoveError) as exc:
            raise ActionError(400, "illegal_move", str(exc)) from exc
        except ValueError as exc:
            raise ActionError(409, "not_allowed", str(exc)) from exc
        if kind == "roll":
            thrown = next((_dice_of(a) for a in made if isinstance(a, (Roll, OpeningRoll))), None)
            stored["dice"] = thrown
            if "dice" in action and action["dice"] != thrown:
                raise ActionError(500, "replay", "stored dice differ from the seed's")
        elif kind == "move":
            move = next(a.move for a in made if isinstance(a, Play))
            stored["move"] = str(move)
            stored["steps"] = [[s, t] for s, t, _h in move]
        elif kind == "resign":
            stored["level"] = level
        self.actions.append(stored)
        return stored

    def _rename(self, seat: int, action: dict[str, Any]) -> dict[str, Any]:
        """A seat names itself, before the first throw of the match."""
        if seat == self.row.bot_seat:
            raise ActionError(409, "not_allowed", "the bot's name is fixed")
        if any(a["action"] != "name" for a in self.actions):
            raise ActionError(409, "not_allowed", "names are chosen before the first roll")
        try:
            name = check_name(action.get("name"))
        except BadNameError as exc:
            raise ActionError(400, "bad_name", str(exc)) from exc
        stored = {"seat": seat, "action": "name", "name": name}
        self.names[seat] = name
        self.actions.append(stored)
        return stored

    # ------------------------------------------------------------------ views
    def view(self, row: MatchRow, seat: int | None, replay: bool = False) -> StateView:
        """The state as ``seat`` sees it (None: a spectator), checked against its schema."""
        m = self.match
        mine = self.may_act(seat) and not replay
        actions = [str(a) for a in m.legal_actions() if str(a) != "raccoon"] if mine else []
        over = m.is_over
        return StateView(
            id=row.id,
            seq=self.seq,
            seat=seat,
            names=list(self.names),
            rules=RulesView(
                money=m.rules.match_length is None, jacoby=m.rules.jacoby, beavers=m.rules.beavers
            ),
            bot=row.bot,
            length=row.length,
            score=list(m.score),
            game=m.game_number,
            phase=str(m.phase),
            turn=m.turn,
            on_roll=m.on_roll,
            cube=CubeView(value=m.cube_value, owner=m.cube_owner, offered=_offered(m)),
            crawford=m.is_crawford_game,
            dice=list(m.dice) if m.dice else None,
            resignation=m.resignation.name.lower() if m.resignation else None,
            gnubg_id=m.gnubg_id(),
            xgid=m.xgid(),
            over=over,
            winner=m.winner,
            commitment=row.commitment,
            actions=actions,
            plays=orderings(m.position, m.dice) if "move" in actions and m.dice else [],
            log=self.log(row),
            ended=self.last_end(),
            svg=self.svg(row, seat, [], None, [], "right"),
            seed=row.seed if over else None,
            rolls=[list(r) for r in m.record.rolls()] if over else None,
            dice_verified=verify(m.record, row.seed, row.commitment) if over else None,
            rated=row.rated,
        )

    def log(self, row: MatchRow) -> list[str]:
        """The match so far in words, plays in gnubg notation ("Ann 31: 8/5 6/5").  The lines
        of the actions seen before are kept (every action of a match sends its whole log)."""
        names = self.names
        seen, lines, pending, named = self._log
        if named != tuple(names):
            seen, lines, pending = 0, [], None
        lines = list(lines)
        count = seen
        for a in itertools.islice(self.match.record.actions(), seen, None):
            count += 1
            line, pending = log_line(a, names, pending)
            if line is not None:
                lines.append(line)
        self._log = (count, lines, pending, tuple(names))
        return list(lines)

    def last_end(self) -> GameEndView | None:
        """The most recent game's end: who won it, how, the points and the score after it."""
        game, score, end = 0, (0, 0), None
        for a in self.match.record.actions():
            if isinstance(a, GameStart):
                game, score = a.game, a.score
            elif isinstance(a, GameEnd):
                after = list(score)
                after[a.winner] += a.points
                end = GameEndView.model_validate(
                    {
                        "game": game,
                        "winner": a.winner,
                        "points": a.points,
                        "result": a.result.name.lower(),
                        "reason": str(a.reason),
                        "score": after,
                    }
                )
        return end

    def svg(
        self,
        row: MatchRow,
        seat: int | None,
        steps: Sequence[tuple[int, int]],
        selected: int | None,
        highlight: Sequence[int],
        home: str,
    ) -> str:
        """The board from ``seat``'s side (seat 0's for spectators), partial ``steps`` made."""
        m = self.match
        viewer = 0 if seat is None else seat
        position = m.position
        dice = m.dice
        left: tuple[int, ...] | None = None
        if steps:
            if not self.may_act(seat) or dice is None:
                raise ActionError(409, "not_your_turn", "only the player to move can move")
            try:
                entry = _entered(position, dice, steps)
                position, left = entry.current, entry.dice_left
            except EntryError as exc:
                raise ActionError(
                    400, "illegal_move", "those steps do not start a legal play"
                ) from exc
        if not all(0 <= p <= 25 for p in [*highlight, *([] if selected is None else [selected])]):
            raise ActionError(422, "bad_parameter", "points are 0-25")
        return match_svg(
            m,
            viewer=viewer,
            position=position,
            names=(self.names[0], self.names[1]),
            highlight=highlight,
            selected=selected,
            home="left" if home == "left" else "right",
            interactive=True,
            dice_left=left,
            last_play=self.last_play(),
        )

    def last_play(self) -> LastPlay | None:
        """The play just made, while the other player has not thrown yet (a double and its
        answer may come between): who made it, with which dice, its steps.  The board keeps
        it in sight, so a player sees what the bot did however fast it answered."""
        m = self.match
        games = m.record.games
        if m.dice is not None or not games:
            return None
        game = games[-1]
        for k in range(len(game) - 1, -1, -1):
            a = game[k]
            if isinstance(a, Play):
                throws = (
                    _throw(b) for b in game[k - 1 :: -1] if isinstance(b, (Roll, OpeningRoll))
                )
                thrown = next(throws, None) if k else None
                if thrown is None or a.player == m.on_roll:
                    return None
                return a.player, thrown, [(s, t) for s, t, _h in a.move]
            if isinstance(a, (Roll, OpeningRoll, Pass, GameStart, GameEnd)):
                return None
        return None

    def export(self, row: MatchRow, fmt: str) -> str:
        """The match as gnubg's .mat or SGF text (players named as on the page)."""
        from backgammon.records import mat, sgf

        writer = mat.write if fmt == "mat" else sgf.write
        return writer(self.match, (self.names[0], self.names[1]))


Throw = tuple[int, int] | None


def log_line(a: Action, names: Sequence[str], pending: Throw) -> tuple[str | None, Throw]:
    """The move log's line for the record entry ``a`` (None for a roll: its play tells it),
    and the throw waiting for its play after it."""
    if isinstance(a, GameStart):
        extra = " (Crawford)" if a.crawford else ""
        return f"Game {a.game}, score {a.score[0]}-{a.score[1]}{extra}", pending
    if isinstance(a, OpeningRoll):
        if a.die0 == a.die1:
            return f"Opening roll {a.die0}-{a.die1}: a tie, roll again", pending
        return f"Opening roll: {names[0]} {a.die0}, {names[1]} {a.die1}", (a.die0, a.die1)
    if isinstance(a, Roll):
        return None, a.dice
    if isinstance(a, Play):
        dice = f" {max(pending)}{min(pending)}" if pending else ""  # high die first, as gnubg
        return f"{names[a.player]}{dice}: {a.move or NO_PLAY}", None
    if isinstance(a, Pass):  # closed out on the bar: no throw, the turn said as any without play
        return f"{names[a.player]}: {NO_PLAY}", pending
    if isinstance(a, Double):
        return f"{names[a.player]} doubles to {a.value}", pending
    if isinstance(a, Resign):
        return f"{names[a.player]} resigns a {a.level.name.lower()}", pending
    if isinstance(a, (Take, Drop, Beaver, Raccoon, Accept, Reject)):
        return f"{names[a.player]} {_SAID[type(a)]}", pending
    return f"{names[a.winner]} wins {_points(a.points)}{_how(a)}", pending


NO_PLAY = "no play"
"""What the log says for a turn without a play (no legal play, or closed out on the bar)."""


def _points(n: int) -> str:
    return f"{n} point" if n == 1 else f"{n} points"


def _how(end: GameEnd) -> str:
    """How a game ended, for the log: nothing for a single played out."""
    kind = end.result.name.lower()
    if end.reason is EndReason.DROPPED:
        return " (double passed)"
    if end.reason is EndReason.RESIGNED:
        return f" (resigned a {kind})"
    return "" if kind == "single" else f" ({kind})"


_KINDS = ("roll", "move", "double", "take", "drop", "beaver", "resign", "accept", "reject")
"""The actions a seat may send (besides 'name'); a raccoon is not offered on the web."""


def _play_of(action: dict[str, Any], m: Match) -> list[Any] | str | None:
    """A move action's play as :meth:`Match.act` takes it: its steps, else its text."""
    if action.get("action") != "move":
        return None
    if m.dice is None:
        raise ActionError(409, "not_allowed", "roll the dice before playing")
    if "steps" in action:
        steps = action["steps"]
        if not isinstance(steps, list):
            raise ActionError(400, "illegal_move", "'steps' is a list of [from, to] pairs")
        return steps
    text = action.get("move")
    if not isinstance(text, str):
        raise ActionError(400, "missing_move", "a move needs 'move' (text) or 'steps'")
    return text


def _throw(a: Roll | OpeningRoll) -> tuple[int, int]:
    """The two numbers of a throw (an opening roll's: the two players' dice)."""
    return (a.die0, a.die1) if isinstance(a, OpeningRoll) else a.dice


def _dice_of(a: Roll | OpeningRoll) -> list[int]:
    """The numbers a roll entry records (an opening roll: player 0's die, then player 1's)."""
    return list(_throw(a))


def rules_of(row: MatchRow) -> Rules:
    """The rules a stored match is played by: a match of ``row.length`` points, or a money
    session (length 0) with its Jacoby and beaver options."""
    return Rules(match_length=row.length or None, jacoby=row.jacoby, beavers=row.beavers)


def _offered(m: Match) -> int | None:
    """The value a pending double (or beaver) offers, None when no double is pending."""
    return 2 * m.cube_value if m.phase is Phase.DOUBLED else None

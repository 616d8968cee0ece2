"""A match state as gnubg's ``PositionID:MatchID`` and as an XGID, and back (formats.md
§2-§3), as GNU Backgammon writes and reads them.

The text coding is :mod:`backgammon.ids.gnubg` (which knows nothing of matches); this module gives
its fields their meaning in a :class:`~backgammon.play.state.MatchState`, and refuses IDs
that no game can reach.

>>> s = state_from_gnubg_id("4HPwATDgc/ABMA:cIkKAAAAAAAA")
>>> s.phase, s.on_roll, s.dice
(<Phase.MOVE: 'move'>, 1, (5, 2))
>>> gnubg_id(s)
'4HPwATDgc/ABMA:cIkKAAAAAAAA'
"""

from __future__ import annotations

from backgammon.core.position import Position
from backgammon.core.values import GameResult
from backgammon.ids.fibs import (
    FIBS_UNLIMITED,
    BoardLine,
    InvalidBoardLineError,
    format_board_line,
    parse_board_line,
)
from backgammon.ids.gnubg import GameState, MatchIdFields, encode_match_id, split_gnubg_id
from backgammon.ids.xgid import XgidFields, format_xgid, parse_xgid
from backgammon.play.record import EndReason, GameEnd, GameStart
from backgammon.play.rules import Rules, RulesError
from backgammon.play.state import MatchError, MatchState, Phase

__all__ = [
    "IllegalPositionError",
    "board_line",
    "gnubg_id",
    "match_id",
    "match_id_fields",
    "state_at_score",
    "state_from_board_line",
    "state_from_gnubg_id",
    "state_from_xgid",
    "xgid",
]


class IllegalPositionError(MatchError):
    """An ID whose position no game can reach: both players on the bar against closed boards
    (gnubg: "Illegal position"), or a player with every checker off while the game goes on."""


_END_REASONS = {
    GameState.OVER: EndReason.PLAYED,
    GameState.DROPPED: EndReason.DROPPED,
    GameState.RESIGNED: EndReason.RESIGNED,
}


# ------------------------------------------------------------------------------ writing
def match_id_fields(s: MatchState) -> MatchIdFields:
    """The state as gnubg's Match ID fields."""
    r = s.rules
    if s.phase is Phase.OPENING:
        state, on_roll, turn = GameState.NONE, 0, 0
    elif s.phase is Phase.OVER:
        assert s.last_end is not None and s.on_roll is not None
        state = {v: k for k, v in _END_REASONS.items()}[s.last_end.reason]
        on_roll = turn = s.on_roll
        # As gnubg shows it: the player who accepted the resignation, or who dropped.
        if s.last_end.reason is EndReason.RESIGNED:
            turn = 1 - s.resigner
        elif s.last_end.reason is EndReason.DROPPED:
            turn = s.responder
    else:
        assert s.on_roll is not None and s.turn is not None
        state, on_roll, turn = GameState.PLAYING, s.on_roll, s.turn
    return MatchIdFields(
        cube_value=s.cube_value,
        cube_owner=s.cube_owner,
        dice_owner=on_roll,
        crawford=s.crawford_game,
        game_state=state,
        turn=turn,
        doubled=s.phase is Phase.DOUBLED or s.resumed is Phase.DOUBLED,
        resigned=(
            s.resigned
            if s.phase is Phase.RESIGNED
            else int(s.last_end.result)
            if s.phase is Phase.OVER
            and s.last_end is not None
            and s.last_end.reason is EndReason.RESIGNED
            else 0
        ),
        dice=s.dice or (),
        match_length=r.match_length or 0,
        score=s.score,
        no_jacoby=not (r.is_money and r.jacoby),
    )


def match_id(s: MatchState) -> str:
    """gnubg's Match ID of the state."""
    return encode_match_id(match_id_fields(s))


def gnubg_id(s: MatchState) -> str:
    """gnubg's ``PositionID:MatchID`` (the position from the player holding the dice)."""
    pos = Position.initial() if s.phase is Phase.OPENING else s.position
    return f"{pos.position_id()}:{match_id(s)}"


def xgid(s: MatchState) -> str:
    """The XGID.  A pending resignation cannot be written in an XGID: the state before the
    offer is written.  Before an opening roll the initial position is written with player 1
    (bottom) to roll."""
    r = s.rules
    on_roll = 1 if s.on_roll is None else s.on_roll
    pos = Position.initial() if s.phase is Phase.OPENING else s.position
    action = ""
    if s.phase is Phase.DOUBLED or s.resumed is Phase.DOUBLED:
        action = "DBR"[s.beavers]
    return format_xgid(
        XgidFields(
            position=pos,
            cube_value=s.cube_value,
            cube_owner=s.cube_owner,
            on_roll=on_roll,
            dice=s.dice or (),
            cube_action=action,
            score=s.score,
            crawford=s.crawford_game,
            jacoby=r.jacoby,
            beavers=r.beavers,
            match_length=r.match_length or 0,
            max_cube=r.max_cube,
        )
    )


# ------------------------------------------------------------------------------ reading
def state_from_gnubg_id(text: str, rules: Rules | None = None) -> MatchState:
    """The state gnubg's ``PositionID:MatchID`` describes.

    ``rules`` may add what the ID cannot hold (beavers, a cube limit); its match length must
    agree with the ID.  The game number is not in the ID and starts at 1.
    """
    position, f = split_gnubg_id(text)
    _check_rules(rules)
    length = f.match_length or None
    if rules is None:
        rules = Rules(
            match_length=length,
            jacoby=f.jacoby,
            max_cube=max(64, f.cube_value * (2 if f.doubled else 1)),
        )
    elif rules.match_length != length:
        raise MatchError(f"the ID's match length {f.match_length} disagrees with the rules")
    if rules.is_money and f.jacoby != rules.jacoby:
        raise MatchError("the ID's Jacoby flag (bit 66) disagrees with the rules")
    phase: Phase
    resumed: Phase | None = None
    beavers = 0
    on_roll: int | None = f.dice_owner
    if f.game_state is GameState.NONE:
        phase, on_roll = Phase.OPENING, None
    elif f.game_state is not GameState.PLAYING:
        if length is None or max(f.score) < length:
            raise MatchError("the ID shows a finished game but not a finished match")
        phase = Phase.OVER
        # Who acted last, as gnubg keeps it (see match_id_fields).
        if f.game_state is GameState.RESIGNED and f.doubled:
            resumed = Phase.DOUBLED
            beavers = int(1 - f.turn == f.dice_owner)  # the doubler resigned a beaver
        elif f.game_state is GameState.DROPPED:
            beavers = int(f.turn == f.dice_owner)  # the doubler dropped a beaver
    elif f.doubled and f.resigned:
        # The player who had to answer the double resigned; turn is the other one.
        phase, resumed = Phase.RESIGNED, Phase.DOUBLED
        if f.turn != f.dice_owner:
            beavers = 1  # the doubler resigned instead of answering a beaver
    elif f.doubled:
        phase = Phase.DOUBLED
        if f.turn == f.dice_owner:
            beavers = 1  # the doubler must answer: a beaver is pending (as gnubg holds it)
    elif f.resigned:
        phase, resumed = Phase.RESIGNED, Phase.MOVE if f.dice else Phase.ROLL
        if f.turn == f.dice_owner:
            raise MatchError("the ID's turn bit is the resigning player")
    else:
        phase = Phase.MOVE if f.dice else Phase.ROLL
        if f.turn != f.dice_owner:
            raise MatchError("the ID's turn and dice owner differ with nothing pending")
    return _checked_state(
        rules=rules,
        position=position,
        phase=phase,
        on_roll=on_roll,
        dice=f.dice,
        cube_value=f.cube_value,
        cube_owner=f.cube_owner,
        beavers=beavers,
        resigned=f.resigned if phase in (Phase.RESIGNED, Phase.OVER) else 0,
        resumed=resumed,
        score=f.score,
        crawford=f.crawford,
        end_reason=_END_REASONS.get(f.game_state, EndReason.PLAYED),
    )


def state_from_xgid(text: str, rules: Rules | None = None) -> MatchState:
    """The state an XGID describes (``rules`` may add raccoons or automatic doubles)."""
    x = parse_xgid(text)
    _check_rules(rules)
    length = x.match_length or None
    if rules is None:
        rules = Rules(
            match_length=length,
            jacoby=x.jacoby,
            beavers=x.beavers,
            max_cube=max(x.max_cube, x.cube_value),
        )
    elif rules.match_length != length:
        raise MatchError(f"the XGID's match length {x.match_length} disagrees with the rules")
    phase = Phase.DOUBLED if x.cube_action else Phase.MOVE if x.dice else Phase.ROLL
    resumed = None
    if length is not None and max(x.score) >= length:
        phase = Phase.OVER  # an XGID has no game state: a won match is over
        if x.cube_action:  # ended by resigning instead of answering a double, kept as written
            resumed = Phase.DOUBLED
    return _checked_state(
        rules=rules,
        position=x.position,
        phase=phase,
        on_roll=x.on_roll,
        dice=x.dice,
        cube_value=x.cube_value,
        cube_owner=x.cube_owner,
        beavers="DBR".index(x.cube_action) if x.cube_action else 0,
        resigned=0,
        resumed=resumed,
        score=x.score,
        crawford=x.crawford,
    )


def _check_rules(rules: object) -> None:
    if rules is not None and not isinstance(rules, Rules):
        raise RulesError(f"rules are a Rules value or None, not {type(rules).__name__}")


def state_at_score(rules: Rules, score: tuple[int, int], crawford: bool = False) -> MatchState:
    """A match under ``rules`` about to begin a game at ``score`` (``crawford``: that game is
    the Crawford game), refused as an ID holding the same would be."""
    return _checked_state(
        rules=rules,
        position=Position.initial(),
        phase=Phase.OPENING,
        on_roll=None,
        dice=(),
        cube_value=1,
        cube_owner=None,
        beavers=0,
        resigned=0,
        score=score,
        crawford=crawford,
    )


def _checked_state(
    *,
    rules: Rules,
    position: Position,
    phase: Phase,
    on_roll: int | None,
    dice: tuple[int, ...],
    cube_value: int,
    cube_owner: int | None,
    beavers: int,
    resigned: int,
    score: tuple[int, int],
    crawford: bool,
    end_reason: EndReason = EndReason.PLAYED,
    resumed: Phase | None = None,
) -> MatchState:
    """The state read from an ID, refused unless the rules and the game allow it."""
    n = rules.match_length
    if cube_value > rules.max_cube:
        raise MatchError(f"cube {cube_value} is over the maximum {rules.max_cube}")
    if crawford and (n is None or not rules.crawford):
        raise MatchError("a Crawford game needs a match played with the Crawford rule")
    if crawford and n is not None and n - 1 not in score:
        raise MatchError(f"a Crawford game needs a side 1 away, not {score[0]}-{score[1]}")
    if crawford and (cube_value != 1 or phase is Phase.DOUBLED):
        raise MatchError("no doubling in the Crawford game: its cube stays at 1 (R: Crawford)")
    if n is not None and cube_owner is None and cube_value != 1:
        raise MatchError(f"a centred cube is at 1 in a match, not {cube_value}")
    if phase is Phase.OVER:
        winner = 0 if score[0] >= score[1] else 1
    else:
        winner = None
        if n is not None and max(score) >= n:
            raise MatchError("a score has reached the match length: the match is over")
        if phase is not Phase.OPENING and position.is_game_over():
            raise IllegalPositionError("a player has borne off every checker: the game is over")
    if phase is not Phase.OPENING and position.is_closed_out and position.flip().is_closed_out:
        raise IllegalPositionError("both players are on the bar against closed boards")
    if (beavers and not rules.beavers) or (beavers > 1 and not rules.raccoons):
        raise MatchError("a beaver or raccoon is pending but the rules do not allow it")
    if phase is Phase.MOVE and len(dice) != 2:
        raise MatchError("dice are needed to play")
    post = n is not None and rules.crawford and not crawford and (n - 1) in score and n > 1
    pair = (dice[0], dice[1]) if len(dice) == 2 else None
    return MatchState(
        rules=rules,
        score=score,
        game_number=1,
        crawford_game=crawford,
        post_crawford=post,
        phase=phase,
        on_roll=on_roll,
        position=Position.initial() if phase is Phase.OPENING else position,
        dice=pair if phase in (Phase.MOVE, Phase.RESIGNED, Phase.OVER) else None,
        cube_value=cube_value,
        cube_owner=cube_owner,
        beavers=beavers,
        resigned=resigned if phase is Phase.RESIGNED else 0,
        resumed=resumed if phase in (Phase.RESIGNED, Phase.OVER) else None,
        winner=winner,
        last_end=(
            GameEnd(winner, 0, GameResult(resigned or 1), end_reason)
            if winner is not None
            else None
        ),
        games=((GameStart(1, score, crawford),),),
    )


# ------------------------------------------------------------------------------ FIBS board
def board_line(
    s: MatchState,
    *,
    player: int = 1,
    names: tuple[str, str] = ("player0", "player1"),
    gnubg: bool = False,
) -> str:
    """The FIBS board line of the state for ``player`` ("you": colour O, moving from 24 to
    1), formats.md §8.  ``names`` are players 0 and 1.  With ``gnubg`` the line is written
    as gnubg writes it to its external player 1: names and scores in the order opponent,
    player (player 0, player 1) unless a double is pending, dice in both fields, money as
    length 0, and the last field 0 only in the Crawford game."""
    if s.phase not in (Phase.ROLL, Phase.MOVE, Phase.DOUBLED) or s.on_roll is None:
        raise MatchError(f"a board line is written while rolling, moving or doubled, not {s.phase}")
    if s.beavers:
        raise MatchError("a board line cannot show a pending beaver or raccoon")
    if player not in (0, 1):
        raise MatchError(f"player is 0 or 1, not {player!r}")
    you, opp = player, 1 - player
    mine = s.on_roll == you
    pos = s.position if mine else s.position.flip()
    doubled = s.phase is Phase.DOUBLED
    order = (opp, you) if gnubg and not doubled else (you, opp)
    dice = s.dice or (0, 0)
    dice_fields = (dice, dice) if gnubg else (dice, (0, 0)) if mine else ((0, 0), dice)
    off_you, off_opp = pos.off
    bar_you, bar_opp = (0, 0) if gnubg else pos.bar
    return format_board_line(
        BoardLine(
            player=names[order[0]],
            opponent=names[order[1]],
            match_length=s.rules.match_length or (0 if gnubg else FIBS_UNLIMITED),
            score=s.score[order[0]],
            opponent_score=s.score[order[1]],
            board=pos.board,
            turn=1 if mine else -1,
            dice=dice_fields[0],
            opponent_dice=dice_fields[1],
            cube=s.cube_value,
            may_double=s.cube_owner in (None, you),
            opponent_may_double=s.cube_owner in (None, opp),
            doubled=int(doubled),
            off=off_you,
            opponent_off=off_opp,
            on_bar=bar_you,
            opponent_on_bar=bar_opp,
            did_crawford=int(s.post_crawford),
            redoubles=int(not s.crawford_game) if gnubg else 0,
        )
    )


def state_from_board_line(
    text: str, rules: Rules | None = None, *, gnubg: bool = False
) -> MatchState:
    """The state a FIBS board line describes, with the line's player ("you") as player 1
    and the opponent as player 0 (as in gnubg's lines); ``gnubg`` reads gnubg's order of
    names and scores (see :func:`board_line`).  Raises :class:`InvalidBoardLineError`."""
    line = parse_board_line(text)
    try:
        return _state_of_line(line, rules, gnubg)
    except (MatchError, RulesError) as exc:
        raise InvalidBoardLineError(f"board line: {exc}") from exc


def _state_of_line(line: BoardLine, rules: Rules | None, gnubg: bool) -> MatchState:
    if line.turn == 0:
        raise MatchError("the line shows a finished game (turn 0)")
    _check_rules(rules)
    # gnubg's reading: both may-double flags off means the cube has been turned.
    doubled = bool(line.doubled) or not (line.may_double or line.opponent_may_double)
    theirs, yours = line.score, line.opponent_score
    if not (gnubg and not doubled):
        theirs, yours = yours, theirs
    score = (theirs, yours)
    length = None if line.match_length in (0, FIBS_UNLIMITED) else line.match_length
    if length is not None and length > 64:
        raise MatchError(f"match length {length} is over 64")
    if rules is None:
        rules = Rules(match_length=length, max_cube=max(64, line.cube * 2))
    elif rules.match_length != length:
        raise MatchError(f"the line's match length {line.match_length} disagrees with the rules")
    mine = line.turn == line.colour
    pos = line.position_of_player()
    dice = line.dice if mine else line.opponent_dice
    if dice == (0, 0):
        dice = line.opponent_dice if mine else line.dice
    if doubled and dice != (0, 0):
        raise MatchError("a double awaits an answer but the dice are rolled")
    if line.may_double != line.opponent_may_double:
        owner: int | None = 1 if line.may_double else 0
    else:
        owner = None
    one_away = length is not None and length - 1 in score
    crawford = one_away and not line.did_crawford and not line.redoubles
    return _checked_state(
        rules=rules,
        position=pos if mine else pos.flip(),
        phase=Phase.DOUBLED if doubled else Phase.MOVE if dice != (0, 0) else Phase.ROLL,
        on_roll=1 if mine else 0,
        dice=dice if dice != (0, 0) else (),
        cube_value=line.cube,
        cube_owner=owner,
        beavers=0,
        resigned=0,
        score=score,
        crawford=bool(crawford and rules.crawford),
    )

"""Any position in the browser: ``/position`` is an editor (``/position?id=ID`` opens a gnubg
ID or XGID), ``GET /api/position?id=`` reads an ID and ``POST /api/position`` makes one edit
(a checker added or taken off, whose turn, the dice, the cube, the score, the match length,
Crawford) and answers with the new position's IDs and board.

The page keeps nothing but the ID: every edit is made here, through the ids and the match
layer, which refuse what cannot be (16 checkers, a score past the length, a cube on the
wrong side in the Crawford game ...); a refused edit is a 4xx and the page keeps its ID.
White is player 0 (drawn at the bottom, its points numbered 1-24 as it moves, 25 its bar),
Black player 1.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from backgammon.core.position import Position, encode_position_id
from backgammon.core.values import BAR
from backgammon.ids.gnubg import (
    GameState,
    InvalidMatchIdError,
    encode_match_id,
    split_gnubg_id,
)
from backgammon.play.match import Match
from backgammon.svg import match_svg
from backgammon.web.errors import ApiError
from backgammon.web.schemas import PositionEdit

__all__ = ["NAMES", "edited", "view"]

NAMES = ("White", "Black")
"""Players 0 and 1 in the editor."""


def _checkers(board: list[int], edit: PositionEdit) -> None:
    """Make ``edit``'s checker change on ``board`` (White's view: White positive)."""
    p = edit.point
    if p is None:
        return
    sign = 1 if edit.side == 0 else -1
    slot = p if p != BAR or edit.side == 0 else 0  # Black's bar is slot 0
    mine = max(sign * board[slot], 0)
    if edit.change == "add":
        board[slot] = sign * (mine + 1)
    elif edit.change == "remove":
        if mine == 0:
            raise ApiError(422, "no_checker", f"{NAMES[edit.side]} has no checker there")
        board[slot] = sign * (mine - 1)
    elif mine:
        board[slot] = 0


def edited(match: Match, edit: PositionEdit) -> Match:
    """``match``'s position after ``edit``, as a game in play (no double or resignation
    pending); ApiError 422 for what the rules refuse."""
    position, fields = split_gnubg_id(match.gnubg_id())
    white = position if fields.dice_owner == 0 else position.flip()
    board = list(Position.initial().board if edit.start else white.board)
    _checkers(board, edit)
    turn = fields.dice_owner if edit.turn is None else edit.turn
    length = fields.match_length if edit.length is None else edit.length
    score = fields.score if edit.score is None else (edit.score[0], edit.score[1])
    dice = fields.dice if edit.dice is None else tuple(edit.dice)
    owner = fields.cube_owner
    if edit.owner is not None:
        owner = None if edit.owner == "centre" else edit.owner
    if len(dice) == 1:
        raise ApiError(422, "bad_dice", "give two dice, or none")
    try:
        moved = Position(board)
        fields = dataclasses.replace(
            fields,
            cube_value=fields.cube_value if edit.cube is None else edit.cube,
            cube_owner=owner,
            dice_owner=turn,
            turn=turn,
            crawford=bool(length) and (fields.crawford if edit.crawford is None else edit.crawford),
            game_state=GameState.PLAYING,
            doubled=False,
            resigned=0,
            dice=dice,
            match_length=length,
            score=score if length else (0, 0),
        )
        text = f"{encode_position_id(moved if turn == 0 else moved.flip())}:"
        return Match.from_gnubg_id(text + encode_match_id(fields))
    except (InvalidMatchIdError, ValueError) as exc:
        message = str(exc).replace("the side to move", NAMES[0]).replace("the opponent", NAMES[1])
        raise ApiError(422, "refused", message) from exc


def view(match: Match) -> dict[str, Any]:
    """The editor's picture of ``match``: its IDs, board (from White's side) and fields."""
    on_roll = match.on_roll if match.on_roll is not None else 0
    pips = match.position.pip_counts()
    return {
        "gnubgid": match.gnubg_id(),
        "xgid": match.xgid(),
        "svg": match_svg(match, viewer=0, names=NAMES, interactive=True),
        "turn": on_roll,
        "phase": str(match.phase),
        "dice": list(match.dice) if match.dice else [],
        "cube": match.cube_value,
        "owner": "centre" if match.cube_owner is None else match.cube_owner,
        "may_double": match.may_double(on_roll),
        "score": list(match.score),
        "length": match.rules.match_length or 0,
        "crawford": match.is_crawford_game,
        "pips": [pips[0], pips[1]] if on_roll == 0 else [pips[1], pips[0]],
        "names": list(NAMES),
    }

"""The text IDs of a backgammon state, both ways: gnubg's Position ID, Match ID and GNUbg ID
(:mod:`~backgammon.ids.gnubg`), XG's XGID (:mod:`~backgammon.ids.xgid`) and the FIBS board
line (:mod:`~backgammon.ids.fibs`).  Text to fields and back; what the fields mean in a
match is :mod:`backgammon.play.ids`.

>>> gnubg_id_from_xgid("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:3:0:10")
'4HPwATDgc/ABMA:cIkKAAAAAAAA'
>>> decode_position_id("4HPwATDgc/ABMA").pip_counts()
(167, 167)
"""

from __future__ import annotations

from backgammon.core.position import (
    decode_position_id,
    encode_position_id,
    position_from_xgid,
    xgid_position,
)
from backgammon.ids.fibs import (
    FIBS_UNLIMITED,
    BoardLine,
    InvalidBoardLineError,
    format_board_line,
    parse_board_line,
)
from backgammon.ids.gnubg import (
    GameState,
    InvalidMatchIdError,
    MatchIdFields,
    decode_match_id,
    encode_match_id,
    split_gnubg_id,
)
from backgammon.ids.xgid import (
    InvalidXgidError,
    XgidFields,
    format_xgid,
    gnubg_id_from_xgid,
    match_id_fields_from_xgid,
    parse_xgid,
    xgid_from_gnubg_id,
)

__all__ = [
    "FIBS_UNLIMITED",
    "BoardLine",
    "GameState",
    "InvalidBoardLineError",
    "InvalidMatchIdError",
    "InvalidXgidError",
    "MatchIdFields",
    "XgidFields",
    "decode_match_id",
    "decode_position_id",
    "encode_match_id",
    "encode_position_id",
    "format_board_line",
    "format_xgid",
    "gnubg_id_from_xgid",
    "match_id_fields_from_xgid",
    "parse_board_line",
    "parse_xgid",
    "position_from_xgid",
    "split_gnubg_id",
    "xgid_from_gnubg_id",
    "xgid_position",
]

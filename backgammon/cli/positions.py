"""A position named on the command line (a Position ID, a gnubg ID or an XGID), and dice."""

from __future__ import annotations

from backgammon.cli.errors import UsageError
from backgammon.core.position import Position
from backgammon.core.values import short_repr
from backgammon.ids.gnubg import InvalidMatchIdError, split_gnubg_id
from backgammon.ids.xgid import InvalidXgidError, parse_xgid
from backgammon.play.match import Match

__all__ = ["parse_dice", "position_from_text"]


def position_from_text(text: str) -> tuple[Position, Match | None]:
    """A position (and the match state, if given) from a Position ID, gnubg ID or XGID.  An
    ID whose match part is malformed (a short Match ID, dice 77, an eleventh XGID field) is
    a UsageError, never read as something else; one whose fields are well formed but make
    no match to play (a finished game) still gives its position."""
    text = text.strip()
    xgid = text.startswith("XGID=") or len(text.split(":")[0]) == 26
    if xgid or ":" in text:
        try:
            parse_xgid(text) if xgid else split_gnubg_id(text)
        except (InvalidXgidError, InvalidMatchIdError) as exc:
            raise UsageError(str(exc)) from exc
        try:
            match = Match.from_xgid(text) if xgid else Match.from_gnubg_id(text)
        except ValueError:
            if xgid:
                return Position.from_xgid(text), None
            return Position.from_position_id(text.split(":")[0]), None
        return match.position, match
    return Position.from_position_id(text), None


def parse_dice(text: str) -> tuple[int, int]:
    """Dice written as two digits 1-6 (``31``, ``3-1``, ``3 1``)."""
    text = text.strip().replace("-", "").replace(" ", "").replace(",", "")
    if len(text) != 2 or not all(c in "123456" for c in text):
        raise UsageError(f"dice are two digits 1-6, like 31, not {short_repr(text)}")
    return int(text[0]), int(text[1])

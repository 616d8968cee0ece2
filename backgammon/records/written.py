"""What a match file writes of a :class:`~backgammon.play.record.MatchRecord`, shared by the
.mat and SGF writers: each game's written entries with the dice shown beside them, a
player's name as written, and a live match's record as a file holds it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from backgammon.play import match as bm
from backgammon.play.record import MatchRecord

__all__ = ["as_written", "written_name"]

Written = tuple[bm.Action, int, tuple[int, int] | None]
"""A record entry a file writes, the player it is written for and the dice shown with it:
a play (its roll's dice), a roll that was not played, a pass (a dance's dice, if kept), a
cube action, or an accepted resignation's offer."""

WrittenGame = tuple[bm.GameStart, list[Written], bm.GameEnd | None]
"""A game as a file writes it: its start, its written entries in order, and its end."""


def written_name(name: str, default: str) -> str:
    """A player's name as a file holds it: on one line, runs of spaces as one (as gnubg
    reads a name back), ``default`` when nothing is left."""
    return " ".join(name.split()) or default


def written_players(record: MatchRecord) -> tuple[str, str]:
    """The record's players as a file writes their names."""
    players = record.players
    return written_name(players[0], "Player 0"), written_name(players[1], "Player 1")


def as_written(match: bm.Match, players: tuple[str, str] = ("Player 0", "Player 1")) -> MatchRecord:
    """A live match's record as a file holds it: each roll larger die first (gnubg's way),
    the players' names on one line (:func:`written_name`)."""
    games = tuple(
        tuple(
            bm.Roll(a.player, (max(a.dice), min(a.dice))) if isinstance(a, bm.Roll) else a
            for a in game
        )
        for game in match.record.games
    )
    names = (written_name(players[0], "Player 0"), written_name(players[1], "Player 1"))
    return replace(match.record, games=games, players=names)


def written_game(game: Sequence[bm.Action]) -> WrittenGame | None:
    """One game of a record as a file writes it (None for a game not yet begun).

    Files hold no tied opening throws, rejected resignations or the order in which a
    resignation was offered and answered: only accepted resignations are written.
    """
    start = bm.GameStart(1, (0, 0), False)
    out: list[Written] = []
    rolled: Written | None = None
    offered: bm.Resign | None = None
    end: bm.GameEnd | None = None
    for a in game:
        if isinstance(a, bm.GameStart):
            start = a
        elif isinstance(a, bm.OpeningRoll):
            if a.die0 != a.die1:
                dice = a.dice
                rolled = (a, 0 if a.die0 > a.die1 else 1, dice)
        elif isinstance(a, bm.Roll):
            rolled = (a, a.player, a.dice)
        elif isinstance(a, bm.Play):
            out.append((a, a.player, rolled[2] if rolled else (0, 0)))
            rolled = None
        elif isinstance(a, bm.Pass):
            out.append((a, a.player, a.dice))
        elif isinstance(a, bm.Double | bm.Beaver | bm.Raccoon | bm.Take | bm.Drop):
            out.append((a, a.player, None))
        elif isinstance(a, bm.Resign):
            offered = a
        elif isinstance(a, bm.Reject):
            offered = None
        elif isinstance(a, bm.Accept):
            if offered is not None:
                if rolled is not None:
                    out.append(rolled)
                    rolled = None
                out.append((offered, offered.player, None))
            offered = None
        elif isinstance(a, bm.GameEnd):
            end = a
    if rolled is not None:  # an unfinished game stopped after a roll, the opening's too
        out.append(rolled)
    if not out and end is None:
        return None
    return start, out, end


def written_games(record: MatchRecord) -> list[WrittenGame]:
    """The record's games a file writes (:func:`written_game`), leaving out those not begun."""
    return [g for g in map(written_game, record.games) if g is not None]


def crawford_games(record: MatchRecord, starts: Sequence[bm.GameStart]) -> list[bool]:
    """For each written game (by its start), whether it is the Crawford game (gnubg's rule:
    the first game in which exactly one side is one point away; R28)."""
    out: list[bool] = []
    seen = False
    n = record.rules.match_length or 0
    crawford = record.rules.crawford and n > 1
    for start in starts:
        a, b = start.score
        is_it = bool(crawford and n and not seen and ((a == n - 1) != (b == n - 1)))
        seen = seen or is_it
        out.append(is_it)
    return out

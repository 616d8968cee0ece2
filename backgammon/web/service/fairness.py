"""No engine help to a seat of a rated match in play: a hint, an evaluation, a rollout or an
analysis is refused (403 ``rated_in_play``) to a logged-in account seated in a rated match
that both seats hold and that is not over, and to anyone asking about the position (and
dice) of such a match this process is serving."""

from __future__ import annotations

from backgammon.play.match import Match
from backgammon.web.errors import ApiError
from backgammon.web.service.server import Server
from backgammon.web.store.accounts import Accounts

__all__ = ["EngineBar"]


class EngineBar:
    """The one check in front of every engine route (see the module's docstring)."""

    def __init__(self, server: Server, accounts: Accounts) -> None:
        self.server, self.accounts = server, accounts

    async def check(self, session: str | None, asked: Match | None = None) -> None:
        """Refuse (403) engine help to the login ``session`` (its cookie) if it holds a seat
        of a rated match in play, or on ``asked`` if it is such a match's position now."""
        if asked is not None:
            self.check_position(asked)
        name = await self.server.db(self.accounts.session_player, session)
        if name is not None and await self.server.db(self.accounts.playing_rated, name):
            raise ApiError(
                403, "rated_in_play", "no engine help while you play a rated match: after it"
            )

    def check_position(self, asked: Match) -> None:
        """Refuse (403) ``asked`` when it is the position of a rated match in play here,
        with its dice (a position asked without dice matches any)."""
        position = asked.gnubg_id().split(":")[0]
        for live in list(self.server.live.values()):
            game = live.game
            if not live.row.rated or game.is_over:
                continue
            m = game.match
            same_dice = asked.dice is None or m.dice is None or sorted(asked.dice) == sorted(m.dice)
            if same_dice and m.gnubg_id().split(":")[0] == position:
                raise ApiError(
                    403, "rated_in_play", "this is the position of a rated match in play"
                )

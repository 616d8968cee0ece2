"""A match in memory (:class:`Live`) and the small rules the live server applies to it: who
holds a seat, what a new match's clock is, when its bot is due, how a state is pushed."""

from __future__ import annotations

import contextlib
import secrets
from dataclasses import dataclass, field
from typing import Any

from fastapi import WebSocket

from backgammon.web.schemas import NewMatch
from backgammon.web.service.game import Game
from backgammon.web.service.sockets import Outbox
from backgammon.web.store.database import MatchRow, hash_token

__all__ = ["Live", "bot_due", "close_replaced", "default_clock", "holds", "hosts", "pushed"]


@dataclass
class Live:
    """A match in memory: its stored facts, the game as last read or made, its watchers.

    ``game`` is only ever replaced by a game with more actions, never changed in place:
    the database decides, and any process may have stored more actions since.
    """

    row: MatchRow
    game: Game
    sockets: dict[WebSocket, int | None] = field(default_factory=dict)
    views: dict[tuple[int, int | None], str] = field(default_factory=dict)
    chatty: set[WebSocket] = field(default_factory=set)
    """The sockets that asked for presence and chat messages too (``?presence=1``)."""
    outboxes: dict[WebSocket, Outbox] = field(default_factory=dict)
    """Each socket's queue of messages (a slow one holds up only itself)."""
    told: dict[str, Any] | None = None
    """The presence last sent: it is sent again only when it changes."""

    def state_json(self, game: Game, seat: int | None) -> str:
        """The state as ``seat`` sees ``game``, as JSON (made once per action and seat: the
        reply, the pushes and the reads all send the same text)."""
        key = (game.seq, seat)
        text = self.views.get(key)
        if text is None:
            if len(self.views) > 16:
                self.views.clear()
            text = self.views[key] = game.view(self.row, seat).model_dump_json()
        return text

    def send(self, ws: WebSocket, text: str) -> None:
        """Queue ``text`` for ``ws`` (one of the watchers), in order, without waiting."""
        outbox = self.outboxes.get(ws)
        if outbox is not None:
            outbox.offer(text)

    def presence(self) -> dict[str, Any]:
        """Which seats have a page open on this match here, and whether seat 1 has come."""
        seats = set(self.sockets.values())
        arrived = self.row.arrived or self.game.seq > 0 or 1 in seats
        return {"type": "presence", "present": [0 in seats, 1 in seats], "arrived": arrived}


def holds(row: MatchRow, seat: int, token: str | None) -> bool:
    """True when ``token`` holds ``seat`` of ``row``."""
    return bool(token) and secrets.compare_digest(hash_token(token or ""), row.token_hashes[seat])


def hosts(row: MatchRow, token: str | None) -> bool:
    """True when ``token`` holds seat 0 of ``row``: the one who made the invitation, who is
    not offered it in the lobby and may not take its other seat too."""
    return holds(row, 0, token)


async def close_replaced(ws: WebSocket) -> None:
    """Close a socket whose seat's token has been replaced."""
    with contextlib.suppress(Exception):
        await ws.close(code=4403, reason="this seat's token has been replaced: log in again")


def pushed(state_json: str) -> str:
    """The WebSocket message carrying a state."""
    return '{"type": "state", "state": ' + state_json + "}"


def default_clock(spec: NewMatch) -> tuple[int, int] | None:
    """The match's (delay, reserve): as asked, else on by default in a rated match (the
    reserve 60 s a point, 10 minutes for a money session)."""
    clock = spec.clock if "clock" in spec.model_fields_set else None
    if clock is None and ("clock" in spec.model_fields_set or not spec.rated):
        return None
    delay = 12 if clock is None else clock.delay
    reserve = None if clock is None else clock.reserve
    if reserve is None:
        reserve = 600 if spec.money else 60 * spec.length
    return delay, reserve


def bot_due(row: MatchRow, game: Game) -> bool:
    """True when the match's bot is the one to act."""
    return row.bot is not None and not game.is_over and game.actor() == row.bot_seat

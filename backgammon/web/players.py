"""The accounts' routes: sign-up, login sessions, players' pages and the leaderboard, who is
online, joining a rated match, a match's chat and presence; and the two guards they need,
the cross-site check on cookie-authenticated changes and the login limiter."""

from __future__ import annotations

import collections
import json
import time
from typing import Annotated, Any

from fastapi import APIRouter, Body, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field, StrictStr

from backgammon.web.accounts import CHAT_LINE_LENGTH, SESSION_DAYS, Accounts
from backgammon.web.errors import ApiError
from backgammon.web.errors import body as error_body
from backgammon.web.game import Game
from backgammon.web.schemas import Name
from backgammon.web.server import Server
from backgammon.web.store import Locked, MatchRow

__all__ = ["COOKIE", "LoginLimiter", "SameOrigin", "players_router"]

COOKIE = "bg_session"
"""The login session's cookie (HttpOnly, SameSite=Lax)."""

Password = Annotated[StrictStr, Field(min_length=8, max_length=200)]


class Credentials(BaseModel):
    """A name and a password (sign-up and login)."""

    model_config = ConfigDict(extra="forbid")

    name: Name
    password: Password


class NewPassword(BaseModel):
    """The password now and the new one."""

    model_config = ConfigDict(extra="forbid")

    password: Password
    new_password: Password


class ChatIn(BaseModel):
    """A line to say at the table."""

    model_config = ConfigDict(extra="forbid")

    text: StrictStr = Field(min_length=1, max_length=CHAT_LINE_LENGTH)


class SameOrigin:
    """ASGI middleware: a request that carries cookies and may change something (any method
    but GET/HEAD/OPTIONS, or a WebSocket) is refused 403 when the browser says it comes from
    another site: its ``Origin`` is not this host, or its ``Sec-Fetch-Site`` is
    ``cross-site``/``same-site``.  A same-origin page sends its ``Origin`` and passes;
    a program without cookies is not concerned."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        kind = scope["type"]
        if kind in ("http", "websocket") and _cross_site(scope):
            if kind == "websocket":
                await send({"type": "websocket.close", "code": 4403})
                return
            payload = json.dumps(
                error_body("cross_site", "a request from another site may not act for you")
            ).encode()
            headers = [(b"content-type", b"application/json")]
            await send({"type": "http.response.start", "status": 403, "headers": headers})
            await send({"type": "http.response.body", "body": payload})
            return
        await self.app(scope, receive, send)


def _cross_site(scope: Any) -> bool:
    if scope["type"] == "http" and scope["method"] in ("GET", "HEAD", "OPTIONS"):
        return False
    headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope.get("headers", ())}
    if "cookie" not in headers:
        return False
    fetch_site = headers.get("sec-fetch-site")
    if fetch_site is not None and fetch_site not in ("same-origin", "none"):
        return True
    origin = headers.get("origin")
    if origin is None:
        return False
    return bool(origin == "null" or origin.split("://", 1)[-1] != headers.get("host", ""))


class LoginLimiter:
    """At most ``per_name`` failed logins per name and ``per_address`` per client address
    in ``window`` seconds (in this process): more is refused 429 before the password is
    even checked."""

    def __init__(self, per_name: int = 5, per_address: int = 20, window: float = 300.0) -> None:
        self.limits = {"name": per_name, "address": per_address}
        self.window = window
        self._failures: dict[tuple[str, str], collections.deque[float]] = {}

    def _recent(self, key: tuple[str, str]) -> collections.deque[float]:
        times = self._failures.setdefault(key, collections.deque())
        while times and times[0] < time.monotonic() - self.window:
            times.popleft()
        return times

    def check(self, name: str, address: str) -> None:
        """Refuse (429) a login of ``name`` from ``address`` that is over a limit."""
        for key in (("name", name.casefold()), ("address", address)):
            times = self._recent(key)
            if len(times) >= self.limits[key[0]]:
                wait = int(times[0] + self.window - time.monotonic()) + 1
                raise ApiError(429, "too_many_logins", f"too many failed logins: wait {wait} s")

    def failed(self, name: str, address: str) -> None:
        """Count a failed login."""
        if len(self._failures) > 100_000:
            self._failures.clear()
        for key in (("name", name.casefold()), ("address", address)):
            self._recent(key).append(time.monotonic())

    def succeeded(self, name: str) -> None:
        """The name's failures are forgotten."""
        self._failures.pop(("name", name.casefold()), None)


def _with_session(response: Response, request: Request, token: str) -> Response:
    response.set_cookie(
        COOKIE,
        token,
        httponly=True,
        samesite="lax",
        secure=request.url.scheme == "https",
        max_age=SESSION_DAYS * 86400,
    )
    return response


def players_router(server: Server, accounts: Accounts, limiter: LoginLimiter) -> APIRouter:
    """The routes of accounts, players, joining, chat and presence."""
    router = APIRouter()

    async def me(request: Request) -> str | None:
        return await server.db(accounts.session_player, request.cookies.get(COOKIE))

    async def need_me(request: Request) -> str:
        name = await me(request)
        if name is None:
            raise ApiError(401, "login_required", "log in first")
        return name

    def rate(row: MatchRow, game: Game) -> None:
        if game.match.winner is not None:
            accounts.settle(row.id, row.length, game.match.winner)

    server.finished = rate

    @router.post("/api/accounts", status_code=201)
    async def sign_up(credentials: Credentials, request: Request) -> Response:
        """Make an account (and log in): the name is yours, the rating starts at 1500."""
        player = await server.db(
            accounts.create, credentials.name, credentials.password, write=True
        )
        token = await server.db(accounts.open_session, player.name, write=True)
        return _with_session(JSONResponse(player.public(), 201), request, token)

    @router.post("/api/session")
    async def log_in(credentials: Credentials, request: Request) -> Response:
        """Log in: the answer sets the session cookie (401 for a wrong name or password)."""
        address = request.client.host if request.client else "?"
        limiter.check(credentials.name, address)
        name = await server.db(accounts.check_password, credentials.name, credentials.password)
        if name is None:
            limiter.failed(credentials.name, address)
            raise ApiError(401, "bad_login", "wrong name or password")
        limiter.succeeded(name)
        token = await server.db(accounts.open_session, name, write=True)
        player = await server.db(accounts.player, name)
        assert player is not None
        return _with_session(JSONResponse(player.public()), request, token)

    @router.get("/api/session")
    async def who(request: Request) -> dict[str, Any]:
        """Who is logged in here (``player`` null for a guest)."""
        name = await me(request)
        player = None if name is None else await server.db(accounts.player, name)
        return {"player": None if player is None else player.public()}

    @router.delete("/api/session", status_code=204)
    async def log_out(request: Request) -> Response:
        """Log out: the session ends and its cookie is cleared."""
        token = request.cookies.get(COOKIE)
        if token:
            await server.db(accounts.close_session, token, write=True)
        response = Response(status_code=204)
        response.delete_cookie(COOKIE)
        return response

    @router.post("/api/accounts/password")
    async def change_password(change: NewPassword, request: Request) -> dict[str, Any]:
        """Change your password (the current one is asked); your other sessions end."""
        name = await need_me(request)
        address = request.client.host if request.client else "?"
        limiter.check(name, address)
        if await server.db(accounts.check_password, name, change.password) is None:
            limiter.failed(name, address)
            raise ApiError(401, "bad_login", "wrong password")
        token = request.cookies.get(COOKIE, "")
        await server.db(accounts.set_password, name, change.new_password, token, write=True)
        return {"name": name}

    @router.get("/api/players/{name:path}")
    async def player(name: str) -> dict[str, Any]:
        """A player: rating, experience, rating history, matches (unfinished first, with
        their PR where analysed) and whether they are online."""
        found = await server.db(accounts.player, name[:64])
        if found is None:
            raise ApiError(404, "no_such_player", "there is no such player")
        history = await server.db(accounts.history, found.name)
        matches = await server.db(accounts.matches, found.name)
        online = found.name in await server.db(accounts.online)
        prs = [m["pr"] for m in matches if m["pr"] is not None]
        return found.public() | {
            "online": online,
            "history": history,
            "matches": matches,
            "pr_trend": prs[::-1],
        }

    @router.get("/api/players")
    async def leaderboard() -> dict[str, Any]:
        """The highest rated players."""
        return {"players": [p.public() for p in await server.db(accounts.leaderboard)]}

    @router.get("/api/online")
    async def online() -> dict[str, Any]:
        """Who is online now (seen in the last two minutes)."""
        return {"players": await server.db(accounts.online)}

    @router.post("/api/matches/{match_id}/join", status_code=201)
    async def join(match_id: str, request: Request) -> JSONResponse:
        """Take the free seat of a rated match as the logged-in account; the answer holds
        the seat's token."""
        name = await need_me(request)
        live = await server.load(match_id)
        if not live.row.rated:
            raise ApiError(409, "not_rated", "join a rated match; a friend's match has a link")

        def check(match: Locked) -> None:
            row = match.row()
            if row.invited is not None and row.invited.casefold() != name.casefold():
                raise ApiError(403, "not_invited", "this match is for another player")
            holders = accounts.seat_holders(match.conn, match_id)
            if holders.get(0) == name:
                raise ApiError(409, "own_match", "you cannot play yourself")
            if 1 in holders:
                raise ApiError(409, "seat_taken", "this invitation has been taken")
            accounts.add_seat(match.conn, match_id, 1, name)

        token = await server.claim(live, name, check)
        return server.seat_response(match_id, 1, token)

    @router.get("/api/matches/{match_id}/presence")
    async def presence(match_id: str) -> dict[str, Any]:
        """Which seats have the match open here, whether seat 1 has come, and the accounts
        holding the seats."""
        live = await server.load(match_id)
        holders = await server.db(accounts.holders, match_id)
        return server.presence(live) | {"players": [holders.get(0), holders.get(1)]}

    @router.get("/api/matches/{match_id}/chat")
    async def chat(match_id: str, since: int = 0) -> dict[str, Any]:
        """The match's chat (anyone watching may read it)."""
        await server.load(match_id)
        lines = await server.db(accounts.chat, match_id, max(0, since))
        return {"lines": [line.__dict__ for line in lines]}

    @router.post("/api/matches/{match_id}/chat", status_code=201)
    async def say(
        match_id: str,
        line: Annotated[ChatIn, Body()],
        request: Request,
    ) -> dict[str, Any]:
        """Say a line at the table (a seat only: its token or cookie)."""
        live = await server.load(match_id)
        token = request.headers.get("authorization", "").removeprefix("Bearer ").strip()
        seat = await server.seat_of(live, token or request.cookies.get(f"bg_{match_id}"))
        if seat is None:
            raise ApiError(403, "spectator", "spectators read the chat; the players write it")
        text = " ".join(line.text.split())
        if not text.isprintable() or not text:
            raise ApiError(422, "bad_text", "a chat line is printable text")
        name = live.game.names[seat]
        said = await server.db(accounts.say, match_id, seat, name, text, write=True)
        await server.send_chatty(live, {"type": "chat", "line": said.__dict__})
        return dict(said.__dict__)

    return router

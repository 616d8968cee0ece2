"""The accounts' routes: sign-up, login sessions, players' pages and the leaderboard, who is
online, joining a rated match, a match's chat and presence (guarded by
:class:`~backgammon.web.guards.LoginLimiter`)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Request
from fastapi.responses import JSONResponse, Response

from backgammon.web.api import seat_cookie, seat_response
from backgammon.web.errors import ApiError
from backgammon.web.guards import SIGN_UPS, LoginLimiter
from backgammon.web.schemas import ChatIn, Credentials, NewAccount, NewPassword
from backgammon.web.service.live import holds
from backgammon.web.service.passwords import Passwords
from backgammon.web.service.server import Server
from backgammon.web.store.accounts import SESSION_DAYS, Accounts
from backgammon.web.store.database import Locked

__all__ = ["COOKIE", "players_router"]

COOKIE = "bg_session"
"""The login session's cookie (HttpOnly, SameSite=Lax)."""


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


def _address(request: Request) -> str:
    """The client's address (a proxy's forwarded one only when the operator trusts it)."""
    return request.client.host if request.client else "?"


def players_router(
    server: Server, accounts: Accounts, limiter: LoginLimiter, passwords: Passwords
) -> APIRouter:
    """The routes of accounts, players, joining, chat and presence."""
    router = APIRouter()

    async def me(request: Request) -> str | None:
        return await server.db(accounts.session_player, request.cookies.get(COOKIE))

    async def need_me(request: Request) -> str:
        name = await me(request)
        if name is None:
            raise ApiError(401, "login_required", "log in first")
        return name

    @router.post("/api/accounts", status_code=201)
    async def sign_up(credentials: NewAccount, request: Request) -> Response:
        """Make an account (and log in): the name is yours, the rating starts at 1500."""
        limiter.admit(None, _address(request))
        hashed = await passwords.hash(credentials.password)
        player = await server.db(
            accounts.create, credentials.name, hashed, _address(request), SIGN_UPS, write=True
        )
        token = await server.db(accounts.open_session, player.name, write=True)
        return _with_session(JSONResponse(player.public(), 201), request, token)

    @router.post("/api/session")
    async def log_in(credentials: Credentials, request: Request) -> Response:
        """Log in: the answer sets the session cookie (401 for a wrong name or password)."""
        limiter.admit(credentials.name, _address(request))
        found = await server.db(accounts.password_of, credentials.name)
        if not await passwords.check(None if found is None else found[1], credentials.password):
            raise ApiError(401, "bad_login", "wrong name or password")
        assert found is not None
        name = found[0]
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

    async def new_seat_tokens(name: str) -> dict[str, str]:
        """New tokens for ``name``'s seats in rated matches not over (match id -> token):
        the old ones, in cookies kept 90 days, hold them no more."""
        seats = await server.db(accounts.rated_seats, name)
        return {match_id: await server.reseat(match_id, seat) for match_id, seat in seats}

    @router.delete("/api/session", status_code=204)
    async def log_out(request: Request) -> Response:
        """Log out: the session ends, its cookie is cleared, and the seats of the account's
        rated matches in play are taken back (``POST .../join`` logged in gives them again)."""
        token = request.cookies.get(COOKIE)
        response = Response(status_code=204)
        name = await me(request)
        if token:
            await server.db(accounts.close_session, token, write=True)
        if name is not None:
            for match_id in await new_seat_tokens(name):
                response.delete_cookie(f"bg_{match_id}")
        response.delete_cookie(COOKIE)
        return response

    @router.post("/api/accounts/password")
    async def change_password(change: NewPassword, request: Request) -> Response:
        """Change your password (the current one is asked); your other sessions end, and so
        do the seat tokens of your rated matches in play (this browser gets new ones)."""
        name = await need_me(request)
        limiter.admit(name, _address(request))
        found = await server.db(accounts.password_of, name)
        if not await passwords.check(None if found is None else found[1], change.password):
            raise ApiError(401, "bad_login", "wrong password")
        token = request.cookies.get(COOKIE, "")
        hashed = await passwords.hash(change.new_password)
        await server.db(accounts.set_password, name, hashed, token, write=True)
        response = JSONResponse({"name": name})
        for match_id, seat_token in (await new_seat_tokens(name)).items():
            seat_cookie(response, request, match_id, seat_token)
        return response

    @router.get("/api/players/{name:path}")
    async def player(name: str) -> dict[str, Any]:
        """A player: rating, experience, rating history, matches (unfinished first, with
        their PR where analysed, a rated one its result and rating change) and whether they
        are online."""
        found = await server.db(accounts.player, name[:64])
        if found is None:
            raise ApiError(404, "no_such_player", "there is no such player")
        history = await server.db(accounts.history, found.name)
        matches = await server.db(accounts.matches, found.name)
        online = found.name in await server.db(accounts.online)
        prs = [m["pr"] for m in matches if m["pr"] is not None]
        changes = {h["match"]: h for h in history}
        for m in matches:  # a rated match: won or lost, and the rating before and after
            h = changes.get(m["id"])
            m["rating"] = None if h is None else {k: h[k] for k in ("won", "before", "after")}
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
        held = await server.db(accounts.holders, match_id)
        mine = [seat for seat, holder in held.items() if holder == name]
        cookie = request.cookies.get(f"bg_{match_id}")
        if mine and 1 in held and not (await server.refresh(live)).is_over:
            if holds(live.row, mine[0], cookie):
                raise ApiError(409, "seat_taken", "you hold this seat already")
            # Your own seat again (after a logout): a new token, the old one no more.
            return seat_response(request, match_id, mine[0], await server.reseat(match_id, mine[0]))

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
        return seat_response(request, match_id, 1, token)

    @router.get("/api/matches/{match_id}/presence")
    async def presence(match_id: str) -> dict[str, Any]:
        """Which seats have the match open here, whether seat 1 has come, and the accounts
        holding the seats."""
        live = await server.load(match_id)
        holders = await server.db(accounts.holders, match_id)
        return live.presence() | {"players": [holders.get(0), holders.get(1)]}

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

"""The matches' routes: the JSON + WebSocket API of a match (create, claim, act, watch,
replay, download) and its pages, over a :class:`~backgammon.web.service.server.Server` (see
:data:`~backgammon.web.schemas.API_DOC`)."""

from __future__ import annotations

import contextlib
import json
import logging
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Body, Header, Query, Request, WebSocket
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from pydantic import ValidationError
from sqlalchemy.engine import Connection
from starlette.websockets import WebSocketDisconnect

from backgammon.web.api import page, seat_cookie, seat_response
from backgammon.web.api.players import COOKIE
from backgammon.web.errors import ApiError, validation_message
from backgammon.web.errors import body as error_body
from backgammon.web.guards import INVITATION_TTL
from backgammon.web.schemas import (
    DEFAULT_BOT,
    ActionIn,
    NewMatch,
    SeatName,
    StateView,
)
from backgammon.web.service.game import ActionError, Game, action_dict
from backgammon.web.service.live import Live, hosts, pushed
from backgammon.web.service.server import Server
from backgammon.web.store.accounts import Accounts
from backgammon.web.store.database import STORAGE_FAILURES, MatchRow, Store

__all__ = ["UNAVAILABLE", "matches_router"]

UNAVAILABLE = 1011
"""The close code of a WebSocket the server cannot serve now (its database is down)."""

_log = logging.getLogger("backgammon.web")


Auth = Annotated[str | None, Header(description="Bearer <seat token> (or the seat's cookie)")]


def _token(authorization: str | None, cookie: str | None) -> str | None:
    if authorization:
        scheme, _, value = authorization.partition(" ")
        if scheme.lower() != "bearer" or not value.strip():
            raise ApiError(401, "bad_authorization", "use 'Authorization: Bearer <token>'")
        return value.strip()
    return cookie


def _json(text: str) -> Response:
    return Response(text, media_type="application/json")


async def _receive_action(ws: WebSocket) -> dict[str, Any]:
    """The next action sent on ``ws``: a JSON text frame holding an action object.

    Anything else (a binary frame, malformed JSON, an invalid action) is an ApiError; the
    connection stays open.
    """
    message = await ws.receive()
    if message["type"] == "websocket.disconnect":
        raise WebSocketDisconnect(message.get("code", 1000))
    text = message.get("text")
    if text is None:
        raise ApiError(400, "invalid_request", "send actions as JSON text frames, not binary")
    try:
        parsed = json.loads(text)
    except ValueError as exc:
        raise ApiError(400, "malformed_json", "the message is not JSON") from exc
    if not isinstance(parsed, dict):
        raise ApiError(400, "invalid_request", "send an action object")
    try:
        action = ActionIn.model_validate(parsed)
    except ValidationError as exc:
        raise ApiError(400, "invalid_request", validation_message(exc.errors())) from exc
    return action_dict(action.model_dump(exclude_none=True))


def matches_router(server: Server, accounts: Accounts, store: Store) -> APIRouter:
    """The routes of the matches of ``server`` and the site's pages."""
    router = APIRouter()

    @router.get("/", response_class=HTMLResponse, include_in_schema=False)
    async def home() -> str:
        return page("index.html")

    @router.get("/favicon.ico", include_in_schema=False)
    async def favicon() -> Response:
        return Response(status_code=204)

    @router.get("/p/{name:path}", response_class=HTMLResponse, include_in_schema=False)
    async def player_page(name: str) -> str:
        if await server.db(accounts.player, name[:64]) is None:
            raise ApiError(404, "no_such_player", "there is no such player")
        return page("player.html")

    @router.get("/m/{match_id}", response_class=HTMLResponse, include_in_schema=False)
    async def match_page(match_id: str) -> str:
        await server.load(match_id)
        return page("match.html")

    @router.get("/m/{match_id}/join/{token}", include_in_schema=False)
    async def join(match_id: str, token: str, request: Request) -> Response:
        live = await server.load(match_id)
        await server.seat_of(live, token)
        response = RedirectResponse(f"/m/{match_id}", status_code=303)
        seat_cookie(response, request, match_id, token)
        return response

    @router.get("/api/bots")
    async def bots() -> dict[str, Any]:
        """The bots to play against (name -> name at the table) and the default one."""
        return {"bots": dict(server.bots.names), "default": DEFAULT_BOT}

    @router.post("/api/matches", status_code=201)
    async def create_match(spec: NewMatch, request: Request) -> JSONResponse:
        """Create a match; the answer holds your seat's token and link (keep them secret).
        A rated one (logged in) waits for another account to join it."""
        host = then = None
        if spec.rated:
            host = await server.db(accounts.session_player, request.cookies.get(COOKIE))
            if host is None:
                raise ApiError(401, "login_required", "log in to play a rated match")
            if spec.money:
                raise ApiError(422, "bad_rules", "a money session is not rated")
            opponent = server.bots.names.get(spec.bot) if spec.opponent == "bot" else None

            def then(conn: Connection, made: MatchRow) -> None:
                assert host is not None
                accounts.add_seat(conn, made.id, 0, host)
                if opponent is not None:
                    accounts.add_seat(conn, made.id, 1, opponent)

        row, tokens = await server.create(spec, host=host, then=then)
        body: dict[str, Any] = {
            "id": row.id,
            "seat": 0,
            "token": tokens[0],
            "link": f"/m/{row.id}/join/{tokens[0]}",
            "watch": f"/m/{row.id}",
            "commitment": row.commitment,
        }
        if row.bot is None and not row.public and not row.rated:
            body["invite"] = f"/m/{row.id}/join/{tokens[1]}"
        response = JSONResponse(body, status_code=201)
        seat_cookie(response, request, row.id, tokens[0])
        return response

    @router.delete("/api/matches/{match_id}", status_code=204)
    async def withdraw(match_id: str, request: Request, authorization: Auth = None) -> Response:
        """Withdraw your invitation (seat 0's token or cookie) while no one has joined it:
        it leaves the lobby and the match is closed (409 ``joined`` once someone has)."""
        live = await server.load(match_id)
        if not hosts(live.row, _token(authorization, request.cookies.get(f"bg_{match_id}"))):
            raise ApiError(403, "not_host", "only the one who made the invitation withdraws it")
        await server.expire(live, withdraw=True)
        return Response(status_code=204)

    @router.get("/api/lobby")
    async def lobby(request: Request) -> dict[str, Any]:
        """Open invitations (newest first): take a public one with POST .../claim, a rated
        one (logged in) with POST .../join; a rated one shows its host's rating; ``yours``
        marks those you made (your seat's cookie), which you wait on rather than join.
        An invitation no one joins expires after an hour."""
        since = server.now() - INVITATION_TTL
        rows = await server.db(lambda: store.open_invitations(since=since))
        ratings = await server.db(accounts.ratings, [r.names[0] for r in rows if r.rated])
        return {
            "invitations": [
                {"id": r.id, "host": r.names[0], "length": r.length, "money": r.length == 0}
                | {"jacoby": r.jacoby, "beavers": r.beavers, "created": r.created}
                | {"yours": hosts(r, request.cookies.get(f"bg_{r.id}"))}
                | {"rated": r.rated, "invited": r.invited, "rating": ratings.get(r.names[0])}
                for r in rows
            ]
        }

    @router.post("/api/matches/{match_id}/claim", status_code=201)
    async def claim(
        match_id: str,
        request: Request,
        seat_name: Annotated[SeatName, Body()],
        authorization: Auth = None,
    ) -> JSONResponse:
        """Take the free seat of a public invitation; the answer holds its token."""
        live = await server.load(match_id)
        if hosts(live.row, _token(authorization, request.cookies.get(f"bg_{match_id}"))):
            raise ApiError(409, "own_invitation", "this is your own invitation: wait for a guest")
        if live.row.rated:
            raise ApiError(409, "rated", "log in and join: POST /api/matches/{id}/join")
        token = await server.claim(live, seat_name.name)
        return seat_response(request, match_id, 1, token)

    @router.post("/api/matches/{match_id}/rematch", status_code=201)
    async def rematch(match_id: str, request: Request, authorization: Auth = None) -> JSONResponse:
        """A new match like this finished one, the same seats holding the same tokens."""
        live = await server.load(match_id)
        token = _token(authorization, request.cookies.get(f"bg_{match_id}"))
        seat = await server.seat_of(live, token)
        if seat is None or token is None:
            raise ApiError(403, "spectator", "only the players can ask for a rematch")
        return seat_response(request, await server.rematch(live, seat), seat, token)

    @router.get("/api/matches/{match_id}", response_model=StateView)
    async def get_state(match_id: str, request: Request, authorization: Auth = None) -> Response:
        """The match as seen by your seat (or as a spectator)."""
        live = await server.load(match_id)
        seat = await server.seat_of(
            live, _token(authorization, request.cookies.get(f"bg_{match_id}"))
        )
        return _json(live.state_json(await server.refresh(live), seat))

    @router.post("/api/matches/{match_id}/actions", response_model=StateView)
    async def post_action(
        match_id: str,
        request: Request,
        action: Annotated[ActionIn, Body()],
        authorization: Auth = None,
    ) -> Response:
        """Act for your seat; the answer is the new state as soon as your action is stored
        (a bot's answer follows through the WebSocket)."""
        live = await server.load(match_id)
        seat = await server.seat_of(
            live, _token(authorization, request.cookies.get(f"bg_{match_id}"))
        )
        action_in = action_dict(action.model_dump(exclude_none=True))
        game = await server.act(live, seat, action_in, reply=True)
        return _json(live.state_json(game, seat))

    @router.get("/api/matches/{match_id}/board.svg")
    async def board(
        match_id: str,
        request: Request,
        steps: Annotated[
            str, Query(max_length=200, description="partial play, e.g. '24-18,13-11'")
        ] = "",
        selected: Annotated[int | None, Query(description="a point 0-25")] = None,
        highlight: Annotated[
            str, Query(max_length=200, description="points 0-25 to highlight, e.g. '18,13'")
        ] = "",
        home: Literal["right", "left"] = "right",
        at: Annotated[
            int | None, Query(description="replay: the board after this many actions")
        ] = None,
        authorization: Auth = None,
    ) -> Response:
        """The board as SVG from your side, optionally with a partial play made on it."""
        live = await server.load(match_id)
        seat = await server.seat_of(
            live, _token(authorization, request.cookies.get(f"bg_{match_id}"))
        )
        try:
            step_list = [(int(a), int(b)) for a, b in (s.split("-") for s in steps.split(",") if s)]
            marks = [int(p) for p in highlight.split(",") if p]
        except ValueError as exc:
            raise ApiError(
                400, "bad_query", "steps are like '24-18,13-11', highlight like '18,13'"
            ) from exc
        if any(not 0 <= p <= 25 for p in [*marks, *([] if selected is None else [selected])]):
            raise ApiError(422, "bad_parameter", "selected and highlight are points 0-25")
        if at is not None and at < 0:
            raise ApiError(422, "bad_parameter", "at is a number of actions, 0 or more")
        game = await server.refresh(live)
        if at is not None:
            game = await _replayed(live, at)
        try:
            svg = game.svg(live.row, seat, step_list, selected, marks, home)
        except ActionError as exc:
            raise ApiError(exc.status, exc.code, str(exc)) from exc
        return Response(svg, media_type="image/svg+xml")

    async def _replayed(live: Live, at: int) -> Game:
        if not (await server.refresh(live)).is_over:
            raise ApiError(409, "not_over", "replay is for finished matches")
        actions = live.game.actions
        if not 0 <= at <= len(actions):
            raise ApiError(400, "bad_step", f"step must be 0-{len(actions)}")
        return Game.replay(live.row, actions[:at])

    @router.get("/api/matches/{match_id}/replay/{at}", response_model=StateView)
    async def replay(
        match_id: str, at: int, request: Request, authorization: Auth = None
    ) -> StateView:
        """A finished match as it was after ``at`` actions (step-by-step replay)."""
        live = await server.load(match_id)
        seat = await server.seat_of(
            live, _token(authorization, request.cookies.get(f"bg_{match_id}"))
        )
        return (await _replayed(live, at)).view(live.row, seat, replay=True)

    @router.get("/api/matches/{match_id}/match.{fmt}")
    async def download(match_id: str, fmt: Literal["mat", "sgf"]) -> Response:
        """The finished match as a gnubg .mat or SGF file."""
        live = await server.load(match_id)
        if not (await server.refresh(live)).is_over:
            raise ApiError(409, "not_over", "the match is still being played")
        try:
            text = live.game.export(live.row, fmt)
        except ActionError as exc:
            raise ApiError(exc.status, exc.code, str(exc)) from exc
        media = "application/x-go-sgf" if fmt == "sgf" else "text/plain"
        return Response(
            text,
            media_type=media,
            headers={"Content-Disposition": f'attachment; filename="match-{match_id}.{fmt}"'},
        )

    @router.websocket("/api/matches/{match_id}/ws")
    async def socket(ws: WebSocket, match_id: str) -> None:
        try:
            live = await server.load(match_id)
            token = ws.query_params.get("token") or ws.cookies.get(f"bg_{match_id}")
            seat = await server.seat_of(live, token)
        except ApiError as exc:
            await ws.close(code=4000 + exc.status, reason=exc.message)
            return
        except STORAGE_FAILURES as exc:  # the database is down: said, not a crashed handler
            _log.warning("storage unavailable: %s", exc)
            await ws.accept()
            await ws.close(code=UNAVAILABLE, reason="the match store cannot be reached now")
            return
        await ws.accept()
        live = server.attach(live, ws, seat, chatty=ws.query_params.get("presence") == "1")
        try:
            live.send(ws, pushed(live.state_json(await server.refresh(live), seat)))
            while True:
                try:
                    action = await _receive_action(ws)
                    await server.act(live, seat, action)
                except ApiError as exc:
                    error = {"type": "error", **error_body(exc.code, exc.message)}
                    live.send(ws, json.dumps(error))
        except WebSocketDisconnect:
            pass
        except STORAGE_FAILURES as exc:
            _log.warning("storage unavailable: %s", exc)
            with contextlib.suppress(Exception):
                await ws.close(code=UNAVAILABLE, reason="the match store cannot be reached now")
        finally:
            server.detach(live, ws)

    return router

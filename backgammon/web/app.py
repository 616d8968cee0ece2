"""The web server: a JSON + WebSocket API over stored matches, and the page that uses it.

Every rule is decided by :class:`backgammon.match.Match` on the server.  An action is
checked on a copy of the match, stored in one committed transaction, and only then applied
and acknowledged; a match in memory is always the replay of its stored actions.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
import secrets
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from importlib import resources
from typing import Annotated, Any, Literal

from fastapi import Body, FastAPI, Header, Query, Request, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    ValidationError,
    field_validator,
)
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.websockets import WebSocketDisconnect

from backgammon import __version__
from backgammon.rules import RulesError
from backgammon.web.analysis import analysis_router, shutdown_analyses
from backgammon.web.engine import engine_router
from backgammon.web.errors import ApiError, check_name, validation_message
from backgammon.web.errors import body as error_body
from backgammon.web.game import (
    BOTS,
    DEFAULT_BOT,
    ActionError,
    Game,
    action_dict,
    bot_action,
    rules_of,
)
from backgammon.web.store import MatchRow, Store, StoreError, hash_token

__all__ = ["create_app"]

_log = logging.getLogger("backgammon.web")

API_DOC = """
Play backgammon over HTTP and WebSockets.

* `POST /api/matches` creates a match and returns the secret token of each seat you get
  (the creator's seat 0; against a human also the invitation link with seat 1's token).
* Authenticate as a seat with `Authorization: Bearer <token>` or the `bg_<match id>` cookie
  set by the seat's link `/m/<id>/join/<token>`.  Without a token you are a spectator.
* `POST /api/matches` takes `length` 1-25, or `money: true` with `jacoby`/`beavers`; against
  a human, `public: true` lists the invitation in `GET /api/lobby` instead of giving an
  invitation link, and `POST /api/matches/{id}/claim` takes its free seat.
* `GET /api/matches/{id}` is the state as seen by you; `POST /api/matches/{id}/actions`
  acts (`roll`, `move`, `double`, `take`, `drop`, `beaver`, `resign`, `accept`, `reject`,
  and `name` to choose your name before the first roll).  A `move` is `steps` or `move`
  text in gnubg notation, read as leniently as the terminal reads it.
* `POST /api/matches/{id}/rematch` (a seat of a finished match): the same seats, names and
  rules in a new match; both players' calls lead to the same one.
* WebSocket `/api/matches/{id}/ws` (same authentication): the server sends
  `{"type": "state", "state": {...}}` after every change; you may send an action object as
  in `POST .../actions` and get back either a state or `{"type": "error", "error": ...}`.
* Errors are `{"error": {"code": ..., "message": ...}}` with a 4xx status, everywhere
  (validation, unknown routes, wrong methods, WebSocket frames); types are strict (`"3"` is
  not a length), messages repeat at most a few dozen characters of the input, and a refused
  action changes nothing.
* Names are 1-31 printable characters without a colon (gnubg keeps 31 and ends a .mat
  name at its first colon).
"""


class NewMatch(BaseModel):
    """How to start a match (types are strict: ``"3"`` or ``true`` is not a length)."""

    model_config = ConfigDict(extra="forbid")

    length: StrictInt = Field(1, ge=1, le=25, description="match length in points")
    opponent: Literal["bot", "human"] = "bot"
    bot: StrictStr = Field(DEFAULT_BOT, max_length=40, description="bot (see GET /api/bots)")
    name: StrictStr = Field("Guest", max_length=200, description="your name (1-31 characters)")
    money: StrictBool = Field(False, description="a money session instead of a match")
    jacoby: StrictBool = Field(False, description="money: gammons count only once doubled")
    beavers: StrictBool = Field(False, description="money: beavers allowed")
    public: StrictBool = Field(False, description="against a human: list it in the lobby")

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        return check_name(value)


class ActionIn(BaseModel):
    """One action of a seat (types are strict)."""

    model_config = ConfigDict(extra="forbid")

    action: Literal[
        "roll",
        "move",
        "double",
        "take",
        "drop",
        "pass",
        "beaver",
        "resign",
        "accept",
        "reject",
        "name",
    ]
    move: StrictStr | None = Field(
        None, max_length=200, description="a play in gnubg notation, e.g. '8/5 6/5'"
    )
    steps: list[tuple[StrictInt, StrictInt]] | None = Field(
        None, max_length=8, description="a play as (from, to) steps, points from the mover's side"
    )
    level: Literal["single", "gammon", "backgammon"] | None = Field(
        None, description="for resign: what is resigned"
    )
    name: StrictStr | None = Field(
        None, max_length=200, description="for name: your name at the table (before the first roll)"
    )
    seq: StrictInt | None = Field(
        None, description="optional: the number of actions you have seen (refused if stale)"
    )

    @field_validator("name")
    @classmethod
    def _name(cls, value: str | None) -> str | None:
        return None if value is None else check_name(value)


class SeatName(BaseModel):
    """The name to sit down with."""

    model_config = ConfigDict(extra="forbid")

    name: StrictStr = Field("Guest", max_length=200, description="your name (1-31 characters)")

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        return check_name(value)


class Cube(BaseModel):
    """The doubling cube."""

    value: int
    owner: int | None = Field(description="seat owning the cube, None when centred")
    offered: int | None = Field(None, description="the value a pending double offers")


class Rules(BaseModel):
    """How the match is played."""

    money: bool = Field(description="a money session (length 0) rather than a match")
    jacoby: bool
    beavers: bool


class GameEnd(BaseModel):
    """How the most recent game ended."""

    game: int
    winner: int
    points: int
    result: Literal["single", "gammon", "backgammon"]
    reason: Literal["played", "dropped", "resigned"]
    score: list[int] = Field(description="the score after it")


class State(BaseModel):
    """A match as one seat (or a spectator) sees it."""

    id: str
    seq: int = Field(description="number of accepted actions")
    seat: int | None = Field(description="your seat (0 or 1), None for a spectator")
    names: list[str]
    rules: Rules
    bot: str | None
    length: int = Field(description="match length, 0 for a money session")
    score: list[int]
    game: int = Field(description="game number, from 1")
    phase: str = Field(description="opening, roll, move, doubled, resigned or over")
    turn: int | None = Field(description="seat to act (None: opening roll, either may throw)")
    on_roll: int | None
    cube: Cube
    crawford: bool
    dice: list[int] | None
    resignation: str | None = Field(description="a pending resignation: single/gammon/...")
    gnubg_id: str
    xgid: str
    over: bool
    winner: int | None
    commitment: str = Field(description="SHA-256 of the dice seed, published at the start")
    actions: list[str] = Field(description="what you may do now")
    plays: list[list[tuple[int, int]]] = Field(
        description="when you are to move: every order of (from, to) steps of each legal play"
    )
    log: list[str] = Field(description="the match so far, plays in gnubg notation")
    ended: GameEnd | None = Field(description="the most recent game's end (None before one)")
    svg: str = Field(description="the board from your side")
    seed: str | None = Field(None, description="the dice seed, revealed when the match is over")
    rolls: list[list[int]] | None = Field(None, description="every throw, when the match is over")
    dice_verified: bool | None = Field(
        None, description="whether every throw is the seed's (when over)"
    )


@dataclass
class Live:
    """A match in memory: its stored facts, the game rebuilt from its actions, watchers."""

    row: MatchRow
    game: Game
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    sockets: dict[WebSocket, int | None] = field(default_factory=dict)


class Server:
    """The matches of one database, loaded lazily and kept in memory."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.live: dict[str, Live] = {}

    def load(self, match_id: str) -> Live:
        """The live match, rebuilt from the database by replaying its actions if needed."""
        live = self.live.get(match_id)
        if live is None:
            row = self.store.get_match(match_id)
            if row is None:
                raise ApiError(404, "no_such_match", f"there is no match {match_id!r}")
            game = Game.replay(row, [a for _seat, a in self.store.actions(match_id)])
            live = self.live[match_id] = Live(row, game)
        return live

    def seat_of(self, live: Live, token: str | None) -> int | None:
        """The seat a token holds, None for a spectator; a wrong token is an error."""
        if not token:
            return None
        digest = hash_token(token)
        for seat, stored in enumerate(live.row.token_hashes):
            if secrets.compare_digest(digest, stored):
                return seat
        raise ApiError(403, "bad_token", "this token does not hold a seat in this match")

    def create(self, spec: NewMatch) -> tuple[MatchRow, list[str]]:
        """Store a new match; returns it with the two seat tokens."""
        if spec.opponent == "bot" and spec.bot not in BOTS:
            raise ApiError(422, "no_such_bot", f"unknown bot {spec.bot!r}; try {sorted(BOTS)}")
        tokens = [secrets.token_urlsafe(18), secrets.token_urlsafe(18)]
        seed = secrets.token_bytes(32)
        bot = spec.bot if spec.opponent == "bot" else None
        names = (spec.name, BOTS[spec.bot] if bot else "Friend")
        public = spec.public and bot is None  # seat 1 is claimed from the lobby
        row = MatchRow(
            id=secrets.token_urlsafe(8),
            created=time.time(),
            length=0 if spec.money else spec.length,
            bot=bot,
            bot_seat=1 if bot else None,
            token_hashes=(hash_token(tokens[0]), "" if public else hash_token(tokens[1])),
            seed=seed.hex(),
            commitment=Game.commitment_of(seed),
            names=names,
            jacoby=spec.jacoby,
            beavers=spec.beavers,
            public=public,
        )
        try:
            rules_of(row)
        except RulesError as exc:
            raise ApiError(422, "bad_rules", str(exc)) from exc
        self.store.create_match(row)
        return row, tokens

    def create_rematch(self, live: Live) -> MatchRow:
        """Store a rematch of ``live``'s match: same seats, tokens, names and rules."""
        seed = secrets.token_bytes(32)
        row = dataclasses.replace(
            live.row,
            id=secrets.token_urlsafe(8),
            created=time.time(),
            seed=seed.hex(),
            commitment=Game.commitment_of(seed),
            names=(live.game.names[0], live.game.names[1]),
            public=False,
            rematch_of=live.row.id,
        )
        self.store.create_match(row)
        return row

    def seat_response(self, match_id: str, seat: int, token: str) -> JSONResponse:
        """The answer that gives a seat of ``match_id``: its token, link and cookie."""
        link = f"/m/{match_id}/join/{token}"
        body = {"id": match_id, "seat": seat, "token": token, "link": link}
        response = JSONResponse(body, status_code=201)
        response.set_cookie(
            f"bg_{match_id}", token, httponly=True, samesite="lax", max_age=90 * 24 * 3600
        )
        return response

    async def act(self, live: Live, seat: int | None, action: dict[str, Any]) -> None:
        """Check, store, then apply one action of ``seat``; then let the bot answer."""
        async with live.lock:
            self._act_locked(live, seat, action)
        await self.broadcast(live)
        await self.run_bot(live)

    def _act_locked(self, live: Live, seat: int | None, action: dict[str, Any]) -> None:
        if seat is None:
            raise ApiError(403, "spectator", "spectators cannot act: open your seat's link")
        seq = action.pop("seq", None)
        if seq is not None and seq != live.game.seq:
            raise ApiError(
                409, "stale", f"you have seen {seq} actions but the match has {live.game.seq}"
            )
        game = live.game
        try:
            stored = game.apply(seat, action)  # Match checks first: a refusal changes nothing
        except ActionError as exc:
            raise ApiError(exc.status, exc.code, str(exc)) from exc
        try:
            self.store.append(live.row.id, game.seq - 1, seat, stored, over=game.is_over)
        except StoreError as exc:
            # Not stored, so not accepted: rebuild the game from what is stored.
            live.game = Game.replay(live.row, [a for _s, a in self.store.actions(live.row.id)])
            raise ApiError(503, "storage", str(exc)) from exc

    async def run_bot(self, live: Live) -> None:
        """Let the bot make every action that is its to make, each stored like any other."""
        if live.row.bot is None or live.row.bot_seat is None:
            return
        while True:
            async with live.lock:
                game = live.game
                if game.actor() != live.row.bot_seat:
                    return
                try:
                    action = await asyncio.to_thread(bot_action, live.row.bot, game)
                    self._act_locked(live, live.row.bot_seat, action)
                except Exception:  # a bot failure must not fail the human's accepted action
                    _log.exception("bot %s failed in match %s", live.row.bot, live.row.id)
                    return
            await self.broadcast(live)
            await asyncio.sleep(0)

    async def broadcast(self, live: Live) -> None:
        """Send the new state to every open WebSocket of the match."""
        for ws, seat in list(live.sockets.items()):
            try:
                await ws.send_json({"type": "state", "state": live.game.view(live.row, seat)})
            except Exception:
                live.sockets.pop(ws, None)


Auth = Annotated[str | None, Header(description="Bearer <seat token> (or the seat's cookie)")]


def _token(authorization: str | None, cookie: str | None) -> str | None:
    if authorization:
        scheme, _, value = authorization.partition(" ")
        if scheme.lower() != "bearer" or not value.strip():
            raise ApiError(401, "bad_authorization", "use 'Authorization: Bearer <token>'")
        return value.strip()
    return cookie


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


def _page(name: str) -> str:
    return resources.files("backgammon.web").joinpath("static", name).read_text("utf-8")


def create_app(database: str = "backgammon.sqlite3") -> FastAPI:
    """The ASGI application over the SQLite ``database`` (a path or sqlite:/// URL)."""
    store = Store(database)
    server = Server(store)

    async def resume() -> None:
        # A bot whose turn it was when the server died plays on.
        for match_id in store.match_ids(unfinished_bot_matches=True):
            await server.run_bot(server.load(match_id))

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        task = asyncio.create_task(resume())
        yield
        task.cancel()
        store.close()
        shutdown_analyses()

    app = FastAPI(title="backgammon", description=API_DOC, version=__version__, lifespan=lifespan)
    app.state.server = server
    app.include_router(engine_router())
    app.include_router(analysis_router(database))

    @app.exception_handler(ApiError)
    async def _api_error(_request: Request, exc: ApiError) -> JSONResponse:
        return JSONResponse(error_body(exc.code, exc.message), status_code=exc.status)

    @app.exception_handler(RequestValidationError)
    async def _bad_request(_request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = exc.errors()
        first = errors[0] if errors else {}
        if first.get("type") == "json_invalid":
            return JSONResponse(
                error_body("malformed_json", "the body is not JSON"), status_code=400
            )
        return JSONResponse(error_body("invalid_request", validation_message(errors)), 400)

    @app.exception_handler(Exception)
    async def _internal(_request: Request, exc: Exception) -> JSONResponse:
        _log.error("internal error", exc_info=exc)
        return JSONResponse(error_body("internal", "internal server error"), status_code=500)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(_request: Request, exc: StarletteHTTPException) -> JSONResponse:
        codes = {404: "not_found", 405: "method_not_allowed"}
        code = codes.get(exc.status_code, "http_error")
        return JSONResponse(
            error_body(code, str(exc.detail)), status_code=exc.status_code, headers=exc.headers
        )

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    async def home() -> str:
        return _page("index.html")

    static = str(resources.files("backgammon.web").joinpath("static"))
    app.mount("/static", StaticFiles(directory=static), name="static")

    @app.get("/favicon.ico", include_in_schema=False)
    async def favicon() -> Response:
        return Response(status_code=204)

    @app.get("/m/{match_id}", response_class=HTMLResponse, include_in_schema=False)
    async def match_page(match_id: str) -> str:
        server.load(match_id)
        return _page("match.html")

    @app.get("/m/{match_id}/join/{token}", include_in_schema=False)
    async def join(match_id: str, token: str) -> Response:
        live = server.load(match_id)
        server.seat_of(live, token)
        response = RedirectResponse(f"/m/{match_id}", status_code=303)
        response.set_cookie(
            f"bg_{match_id}", token, httponly=True, samesite="lax", max_age=90 * 24 * 3600
        )
        return response

    @app.get("/api/bots")
    async def bots() -> dict[str, Any]:
        """The bots to play against (name -> name at the table) and the default one."""
        return {"bots": dict(BOTS), "default": DEFAULT_BOT}

    @app.post("/api/matches", status_code=201)
    async def create_match(spec: NewMatch, request: Request) -> JSONResponse:
        """Create a match; the answer holds your seat's token and link (keep them secret)."""
        row, tokens = server.create(spec)
        live = server.load(row.id)
        await server.run_bot(live)
        body: dict[str, Any] = {
            "id": row.id,
            "seat": 0,
            "token": tokens[0],
            "link": f"/m/{row.id}/join/{tokens[0]}",
            "watch": f"/m/{row.id}",
            "commitment": row.commitment,
        }
        if row.bot is None and not row.public:
            body["invite"] = f"/m/{row.id}/join/{tokens[1]}"
        response = JSONResponse(body, status_code=201)
        response.set_cookie(
            f"bg_{row.id}", tokens[0], httponly=True, samesite="lax", max_age=90 * 24 * 3600
        )
        return response

    @app.get("/api/lobby")
    async def lobby() -> dict[str, Any]:
        """Open public invitations (newest first): join one with POST .../claim."""
        rows = store.open_invitations()
        return {
            "invitations": [
                {"id": r.id, "host": r.names[0], "length": r.length, "money": r.length == 0}
                | {"jacoby": r.jacoby, "beavers": r.beavers, "created": r.created}
                for r in rows
            ]
        }

    @app.post("/api/matches/{match_id}/claim", status_code=201)
    async def claim(match_id: str, seat_name: Annotated[SeatName, Body()]) -> JSONResponse:
        """Take the free seat of a public invitation; the answer holds its token."""
        live = server.load(match_id)
        token = secrets.token_urlsafe(18)
        async with live.lock:
            if not live.row.public or not store.claim_seat(match_id, hash_token(token)):
                raise ApiError(409, "seat_taken", "this invitation has been taken")
            live.row = dataclasses.replace(
                live.row, token_hashes=(live.row.token_hashes[0], hash_token(token))
            )
        with contextlib.suppress(ApiError):  # the host may have rolled: the seat is still given
            await server.act(live, 1, {"action": "name", "name": seat_name.name})
        return server.seat_response(match_id, 1, token)

    @app.post("/api/matches/{match_id}/rematch", status_code=201)
    async def rematch(match_id: str, request: Request, authorization: Auth = None) -> JSONResponse:
        """A new match like this finished one, the same seats holding the same tokens."""
        live = server.load(match_id)
        token = _token(authorization, request.cookies.get(f"bg_{match_id}"))
        seat = server.seat_of(live, token)
        if seat is None or token is None:
            raise ApiError(403, "spectator", "only the players can ask for a rematch")
        if not live.game.is_over:
            raise ApiError(409, "not_over", "the match is still being played")
        async with live.lock:
            new_id = store.rematch_of(match_id) or server.create_rematch(live).id
        return server.seat_response(new_id, seat, token)

    @app.get("/api/matches/{match_id}", response_model=State)
    async def get_state(
        match_id: str, request: Request, authorization: Auth = None
    ) -> dict[str, Any]:
        """The match as seen by your seat (or as a spectator)."""
        live = server.load(match_id)
        seat = server.seat_of(live, _token(authorization, request.cookies.get(f"bg_{match_id}")))
        await server.run_bot(live)  # in case a bot's turn was interrupted
        return live.game.view(live.row, seat)

    @app.post("/api/matches/{match_id}/actions", response_model=State)
    async def post_action(
        match_id: str,
        request: Request,
        action: Annotated[ActionIn, Body()],
        authorization: Auth = None,
    ) -> dict[str, Any]:
        """Act for your seat; the answer is the new state (after any bot reply)."""
        live = server.load(match_id)
        seat = server.seat_of(live, _token(authorization, request.cookies.get(f"bg_{match_id}")))
        await server.act(live, seat, action_dict(action.model_dump(exclude_none=True)))
        return live.game.view(live.row, seat)

    @app.get("/api/matches/{match_id}/board.svg")
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
        live = server.load(match_id)
        seat = server.seat_of(live, _token(authorization, request.cookies.get(f"bg_{match_id}")))
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
        game = live.game
        if at is not None:
            game = _replayed(live, at)
        try:
            svg = game.svg(live.row, seat, step_list, selected, marks, home)
        except ActionError as exc:
            raise ApiError(exc.status, exc.code, str(exc)) from exc
        return Response(svg, media_type="image/svg+xml")

    def _replayed(live: Live, at: int) -> Game:
        if not live.game.is_over:
            raise ApiError(409, "not_over", "replay is for finished matches")
        actions = [a for _s, a in store.actions(live.row.id)]
        if not 0 <= at <= len(actions):
            raise ApiError(400, "bad_step", f"step must be 0-{len(actions)}")
        return Game.replay(live.row, actions[:at])

    @app.get("/api/matches/{match_id}/replay/{at}", response_model=State)
    async def replay(
        match_id: str, at: int, request: Request, authorization: Auth = None
    ) -> dict[str, Any]:
        """A finished match as it was after ``at`` actions (step-by-step replay)."""
        live = server.load(match_id)
        seat = server.seat_of(live, _token(authorization, request.cookies.get(f"bg_{match_id}")))
        return _replayed(live, at).view(live.row, seat, replay=True)

    @app.get("/api/matches/{match_id}/match.{fmt}")
    async def download(match_id: str, fmt: Literal["mat", "sgf"]) -> Response:
        """The finished match as a gnubg .mat or SGF file."""
        live = server.load(match_id)
        if not live.game.is_over:
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

    @app.websocket("/api/matches/{match_id}/ws")
    async def socket(ws: WebSocket, match_id: str) -> None:
        try:
            live = server.load(match_id)
            token = ws.query_params.get("token") or ws.cookies.get(f"bg_{match_id}")
            seat = server.seat_of(live, token)
        except ApiError as exc:
            await ws.close(code=4000 + exc.status, reason=exc.message)
            return
        await ws.accept()
        live.sockets[ws] = seat
        try:
            await ws.send_json({"type": "state", "state": live.game.view(live.row, seat)})
            while True:
                try:
                    action = await _receive_action(ws)
                    await server.act(live, seat, action)
                except ApiError as exc:
                    await ws.send_json({"type": "error", **error_body(exc.code, exc.message)})
        except WebSocketDisconnect:
            pass
        finally:
            live.sockets.pop(ws, None)

    return app

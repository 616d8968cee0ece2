"""The web API's schemas, every request and response model: what a client sends (strictly
typed) and the state it receives.

The state a seat sees is made as a :class:`StateView` and sent as its JSON, so the page, the
WebSocket pushes and the OpenAPI document share one schema.
"""

from __future__ import annotations

import itertools
import unicodedata
from typing import Annotated, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
)

from backgammon.web.errors import account_name, check_name

__all__ = [
    "API_DOC",
    "BOTS",
    "CHAT_LINE_LENGTH",
    "COMMON",
    "DEFAULT_BOT",
    "MAX_CANDIDATES",
    "MAX_TRIALS",
    "AccountName",
    "ActionIn",
    "ChatIn",
    "ClockIn",
    "ClockView",
    "Credentials",
    "CubeView",
    "GameEndView",
    "NewAccount",
    "NewMatch",
    "NewPassword",
    "PositionEdit",
    "RolloutIn",
    "RulesView",
    "SeatName",
    "StateView",
    "StrongPassword",
    "strong_password",
]

BOTS: dict[str, str] = {
    "random": "Beginner bot",
    "pubeval": "Intermediate bot",
    "expert": "Expert bot",
    "strong": "Strong bot",
}
"""Bot (a :func:`backgammon.players.get` name) -> its name at the table."""

DEFAULT_BOT = "expert"
"""The bot a match gets when none is named (the strongest available)."""

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
* Accounts (optional): `POST /api/accounts` signs up, `POST /api/session` logs in (the
  `bg_session` cookie), `GET /api/players/{name}` is a player's rating and history; a
  logged-in `POST /api/matches` with `rated: true` makes a rated match that another account
  takes with `POST /api/matches/{id}/join`; `/api/matches/{id}/chat` is the table's chat.
* Names are 1-31 printable characters without a colon (gnubg keeps 31 and ends a .mat
  name at its first colon).
"""


Name = Annotated[StrictStr, Field(max_length=200), AfterValidator(check_name)]
"""A player's name as a client sends it: checked by :func:`check_name` (bounded first, so a
huge one is refused before it is read)."""


class ClockIn(BaseModel):
    """A match's time control: a delay per action, then a reserve for the whole match."""

    model_config = ConfigDict(extra="forbid")

    delay: StrictInt = Field(12, ge=0, le=120, description="free seconds for each action")
    reserve: StrictInt | None = Field(
        None, ge=10, le=7200, description="seconds for the match past the delays (60 a point)"
    )


class NewMatch(BaseModel):
    """How to start a match (types are strict: ``"3"`` or ``true`` is not a length)."""

    model_config = ConfigDict(extra="forbid")

    length: StrictInt = Field(1, ge=1, le=25, description="match length in points")
    opponent: Literal["bot", "human"] = "bot"
    bot: StrictStr = Field(DEFAULT_BOT, max_length=40, description="bot (see GET /api/bots)")
    name: Name = Field("Guest", description="your name (1-31 characters)")
    money: StrictBool = Field(False, description="a money session instead of a match")
    jacoby: StrictBool = Field(False, description="money: gammons count only once doubled")
    beavers: StrictBool = Field(False, description="money: beavers allowed")
    public: StrictBool = Field(False, description="against a human: list it in the lobby")
    rated: StrictBool = Field(
        False, description="logged in: the match moves both players' ratings (not money)"
    )
    invite: Name | None = Field(
        None, description="a rated match against a human: the only account that may join"
    )
    clock: ClockIn | None = Field(
        None,
        description="time control (omitted: on in a rated match, off otherwise; null: off); "
        "a seat whose reserve runs out loses the match",
    )


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
    name: Name | None = Field(
        None, description="for name: your name at the table (before the first roll)"
    )
    seq: StrictInt | None = Field(
        None, description="optional: the number of actions you have seen (refused if stale)"
    )


class SeatName(BaseModel):
    """The name to sit down with."""

    model_config = ConfigDict(extra="forbid")

    name: Name = Field("Guest", description="your name (1-31 characters)")


class CubeView(BaseModel):
    """The doubling cube."""

    model_config = ConfigDict(extra="forbid")

    value: int
    owner: int | None = Field(description="seat owning the cube, None when centred")
    offered: int | None = Field(None, description="the value a pending double offers")


class RulesView(BaseModel):
    """How the match is played (the page's view of :class:`backgammon.play.rules.Rules`)."""

    model_config = ConfigDict(extra="forbid")

    money: bool = Field(description="a money session (length 0) rather than a match")
    jacoby: bool
    beavers: bool


class GameEndView(BaseModel):
    """How the most recent game ended (the page's view of the record's ``GameEnd``)."""

    model_config = ConfigDict(extra="forbid")

    game: int
    winner: int
    points: int
    result: Literal["single", "gammon", "backgammon"]
    reason: Literal["played", "dropped", "resigned"]
    score: list[int] = Field(description="the score after it")


class ClockView(BaseModel):
    """The match's clock as of its last action (``since``): the running seat's reserve
    starts to fall ``delay`` seconds after it, and the match is lost at ``deadline``."""

    model_config = ConfigDict(extra="forbid")

    delay: int
    reserve: list[float] = Field(description="each seat's reserve left, in seconds")
    running: int | None = Field(description="the seat whose clock runs")
    since: float = Field(description="when it started (seconds since the epoch)")
    deadline: float | None = Field(description="when the running seat loses on time")


class StateView(BaseModel):
    """A match as one seat (or a spectator) sees it."""

    model_config = ConfigDict(extra="forbid")

    id: str
    seq: int = Field(description="number of accepted actions")
    seat: int | None = Field(description="your seat (0 or 1), None for a spectator")
    names: list[str]
    rules: RulesView
    bot: str | None
    rated: bool = Field(
        False, description="a rated match: the ratings move by it, no engine help until it is over"
    )
    length: int = Field(description="match length, 0 for a money session")
    score: list[int]
    game: int = Field(description="game number, from 1")
    phase: str = Field(description="opening, roll, move, doubled, resigned or over")
    turn: int | None = Field(description="seat to act (None: opening roll, either may throw)")
    on_roll: int | None
    cube: CubeView
    crawford: bool
    dice: list[int] | None
    resignation: str | None = Field(description="a pending resignation: single/gammon/...")
    gnubg_id: str
    xgid: str
    over: bool
    winner: int | None
    clock: ClockView | None = Field(None, description="time control, null when untimed")
    closed: str | None = Field(None, description="closed unfinished: withdrawn/expired/abandoned")
    lost_on_time: int | None = Field(None, description="the seat that lost on time")
    commitment: str = Field(description="SHA-256 of the dice seed, published at the start")
    actions: list[str] = Field(description="what you may do now")
    plays: list[list[tuple[int, int]]] = Field(
        description="when you are to move: every order of (from, to) steps of each legal play"
    )
    log: list[str] = Field(description="the match so far, plays in gnubg notation")
    ended: GameEndView | None = Field(description="the most recent game's end (None before one)")
    svg: str = Field(description="the board from your side")
    seed: str | None = Field(None, description="the dice seed, revealed when the match is over")
    rolls: list[list[int]] | None = Field(None, description="every throw, when the match is over")
    dice_verified: bool | None = Field(
        None, description="whether every throw is the seed's (when over)"
    )


CHAT_LINE_LENGTH = 300
"""The longest chat line, in characters."""
MAX_TRIALS = 1296
"""The most trials a rollout from the web may play per candidate."""
MAX_CANDIDATES = 5
"""The most plays one rollout may compare."""

Password = Annotated[StrictStr, Field(min_length=8, max_length=200)]
"""A password as it is checked (one chosen before the strength rules still logs in)."""

COMMON = frozenset(
    (
        "password",
        "password1",
        "passw0rd",
        "123456789",
        "1234567890",
        "qwertyui",
        "qwertyuiop",
        "qwerty123",
        "iloveyou",
        "sunshine",
        "football",
        "baseball",
        "welcome1",
        "trustno1",
        "princess",
        "superman",
        "letmein1",
        "backgammon",
        "1q2w3e4r",
        "zaq12wsx",
        "abc12345",
        "azertyui",
        "dragon12",
        "monkey12",
    )
)
"""Passwords among the first any guesser tries (beside the runs the rules refuse)."""


def strong_password(password: str) -> str:
    """``password`` if it is not among the first guessed: at least 8 characters besides
    spaces (in NFKC form), 4 different ones, not a run such as 12345678 or abcdefgh, not
    one of :data:`COMMON`; else ValueError."""
    text = unicodedata.normalize("NFKC", password)
    if len("".join(text.split())) < 8:
        raise ValueError("a password has at least 8 characters besides spaces")
    steps = {ord(b) - ord(a) for a, b in itertools.pairwise(text.casefold())}
    if len(set(text)) < 4 or steps in ({1}, {-1}) or text.casefold() in COMMON:
        raise ValueError("this password is among the first guessed: choose a longer phrase")
    return password


StrongPassword = Annotated[Password, AfterValidator(strong_password)]
"""A new password: :data:`Password` passing :func:`strong_password`."""

AccountName = Annotated[StrictStr, Field(max_length=200), AfterValidator(account_name)]
"""An account's name: :func:`~backgammon.web.errors.account_name` (NFKC, no fillers)."""


class Credentials(BaseModel):
    """A name and a password (login)."""

    model_config = ConfigDict(extra="forbid")

    name: AccountName
    password: Password


class NewAccount(BaseModel):
    """The name and password of a new account (sign-up)."""

    model_config = ConfigDict(extra="forbid")

    name: AccountName
    password: StrongPassword


class NewPassword(BaseModel):
    """The password now and the new one."""

    model_config = ConfigDict(extra="forbid")

    password: Password
    new_password: StrongPassword


class ChatIn(BaseModel):
    """A line to say at the table."""

    model_config = ConfigDict(extra="forbid")

    text: StrictStr = Field(min_length=1, max_length=CHAT_LINE_LENGTH)


class PositionEdit(BaseModel):
    """One edit of the position ``id``: on ``point`` (White's numbering, 25 the bar), ``add``
    a checker of ``side``, ``remove`` one or ``clear`` the side's checkers; or set what is
    given of turn, dice ([] for none), cube, cube owner (null: centred), score, length (0:
    money) and Crawford; ``start`` puts the checkers as a game starts."""

    id: str = Field(min_length=1, max_length=100, description="a gnubg ID or an XGID")
    point: int | None = Field(default=None, ge=1, le=25)
    side: Literal[0, 1] = 0
    change: Literal["add", "remove", "clear"] = "add"
    start: bool = False
    turn: Literal[0, 1] | None = None
    dice: list[Annotated[int, Field(ge=1, le=6)]] | None = Field(default=None, max_length=2)
    cube: int | None = Field(default=None, ge=1, le=4096)
    owner: Literal[0, 1, "centre"] | None = None
    score: list[Annotated[int, Field(ge=0, le=64)]] | None = Field(
        default=None, min_length=2, max_length=2
    )
    length: int | None = Field(default=None, ge=0, le=64)
    crawford: bool | None = None


class RolloutIn(BaseModel):
    """What to roll out: the position (gnubg ID or XGID); with dice in it, the plays
    ``moves`` (else the ``top`` plays at 0-ply); without, its ``cube`` decision or the
    position itself; and how."""

    id: str = Field(min_length=1, max_length=100, description="a gnubg ID or an XGID")
    moves: list[Annotated[str, Field(max_length=40)]] | None = Field(
        default=None, max_length=MAX_CANDIDATES, description="the plays to roll out"
    )
    top: int = Field(default=MAX_CANDIDATES, ge=1, le=MAX_CANDIDATES)
    cube: bool = False
    trials: int = Field(default=144, ge=1, le=MAX_TRIALS)
    truncate: int = Field(default=0, ge=0, le=200, description="plies, 0: to the end")
    plies: int = Field(default=0, ge=0, le=1, description="the bots' lookahead")
    seed: int = Field(default=0, ge=0, le=2**31 - 1)

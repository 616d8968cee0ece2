"""The web layer's one error shape and the checks on what a client sends.

Every refusal is ``{"error": {"code", "message"}}`` with a 4xx status, whether it comes
from the rules, from request validation, from an unknown route or from a WebSocket frame;
a message never echoes more than :data:`ECHO` characters of the input.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any

from backgammon.core.values import clip, short_repr

__all__ = [
    "ECHO",
    "MESSAGE",
    "NAME_LENGTH",
    "ApiError",
    "BadNameError",
    "account_name",
    "body",
    "bounded",
    "check_name",
    "skeleton",
    "validation_message",
]

ECHO = 40
"""The most characters of a client's input an error message repeats."""

MESSAGE = 300
"""The longest error message sent."""

NAME_LENGTH = 31
"""The longest player name: gnubg keeps 31 characters of a name (MAX_NAME_LEN 32)."""


class ApiError(Exception):
    """An error answered as ``{"error": {"code", "message"}}`` with an HTTP status (and
    ``headers``, such as ``Retry-After``)."""

    def __init__(
        self, status: int, code: str, message: str, headers: dict[str, str] | None = None
    ) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, bounded(message)
        self.headers = headers

    def __reduce__(self) -> tuple[type[ApiError], tuple[Any, ...]]:
        """Pickled whole, as a worker process raises it to the server."""
        return (ApiError, (self.status, self.code, self.message, self.headers))


class BadNameError(ValueError):
    """A player name that is empty, too long or holds characters a match file cannot."""


def bounded(message: str) -> str:
    """``message`` cut to at most :data:`MESSAGE` characters."""
    return clip(message, MESSAGE - 1)


def body(code: str, message: str) -> dict[str, Any]:
    """The one error shape."""
    return {"error": {"code": code, "message": bounded(message)}}


def check_name(name: object) -> str:
    """``name`` as a player name: 1-31 printable characters, no colon, spaces collapsed.

    gnubg's .mat reader ends the first name at the first colon and keeps 31 characters;
    a newline or other control character would break a .mat or SGF line.
    """
    if not isinstance(name, str):
        raise BadNameError(f"a name is text, not {short_repr(name, ECHO)}")
    if ":" in name or not name.replace(" ", "").isprintable():
        raise BadNameError(
            f"a name may not hold a colon, a line break or control characters: "
            f"{short_repr(name, ECHO)}"
        )
    text = " ".join(name.split(" "))
    text = " ".join(text.split())
    if not text:
        raise BadNameError("a name needs at least one visible character")
    if len(text) > NAME_LENGTH:
        raise BadNameError(f"a name has at most {NAME_LENGTH} characters, not {len(text)}")
    return text


_INVISIBLE = frozenset("\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u2800\u3164\uffa0\ufeff")
"""Characters that show nothing (fillers, blanks) though Python calls them printable."""

_CONFUSABLE = str.maketrans(
    dict(
        zip(
            "авьсԁеёһіјкӏмноорԛѕтуѵԝхαβεηικνορτυχω01i|",
            "abbcdeehljklmhoopqstyvwxabenlkvoptuxwolll",
            strict=True,
        )
    )
)
"""Letters of other scripts, and digits, taken for the Latin letters they look like (a
name's skeleton is in one case, so "i" and "l" count as one letter)."""


def account_name(name: str) -> str:
    """``name`` as an account's name: :func:`check_name`'s rules on its NFKC form (full-width
    and other compatibility forms become the plain letters), with no invisible filler."""
    text = check_name(unicodedata.normalize("NFKC", name))
    hidden = [c for c in text if c in _INVISIBLE or unicodedata.category(c) in ("Cf", "Zs")]
    if any(c != " " for c in hidden):
        raise BadNameError("a name may not hold invisible characters or fillers")
    return text


def skeleton(name: str) -> str:
    """What ``name`` looks like, for telling names apart as people read them: its NFKC form
    in one case, look-alike letters of other scripts (Cyrillic, Greek) and digits taken for
    the Latin letters they mimic, spaces ignored."""
    text = unicodedata.normalize("NFKC", name).casefold().translate(_CONFUSABLE)
    return "".join(text.split()).replace("rn", "m")


def validation_message(errors: Sequence[Mapping[str, Any]]) -> str:
    """The first of pydantic's errors in a line: where, then what (input not repeated)."""
    first = errors[0] if errors else {}
    loc = [str(p)[:ECHO] for p in first.get("loc", ()) if p not in ("body", "query", "path")]
    where = ".".join(loc)
    what = str(first.get("msg", "invalid request"))
    ctx = first.get("ctx") or {}
    if "error" in ctx:  # a validator's own ValueError
        what = str(ctx["error"])
    text = f"{where}: {what}" if where else what
    return bounded(text)


MAX_BODY = 1024 * 1024
"""The largest request body read (a match file upload is the largest legitimate one)."""


class BodyLimit:
    """ASGI middleware: a request body over ``limit`` bytes is refused with 413 before it is
    read (by its Content-Length) or as soon as it passes the limit (a chunked body), so one
    large request cannot take the server's memory."""

    def __init__(self, app: Any, limit: int = MAX_BODY) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", ()):
            if name == b"content-length" and (not value.isdigit() or int(value) > self.limit):
                await self._refuse(send)
                return
        seen = 0
        refused = False

        async def counted() -> Any:
            nonlocal seen, refused
            if refused:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:  # answered now; the app sees the client gone
                    refused = True
                    await self._refuse(send)
                    return {"type": "http.disconnect"}
            return message

        async def unless_refused(message: Any) -> None:
            if not refused:
                await send(message)

        try:
            await self.app(scope, counted, unless_refused)
        except Exception:
            if not refused:
                raise

    async def _refuse(self, send: Any) -> None:
        message = f"the request body is over {self.limit // 1024} KB"
        payload = json.dumps(body("too_large", message)).encode()
        headers = [(b"content-type", b"application/json"), (b"connection", b"close")]
        await send({"type": "http.response.start", "status": 413, "headers": headers})
        await send({"type": "http.response.body", "body": payload})

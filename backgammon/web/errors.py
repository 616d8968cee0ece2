"""The web layer's one error shape and the checks on what a client sends.

Every refusal is ``{"error": {"code", "message"}}`` with a 4xx status, whether it comes
from the rules, from request validation, from an unknown route or from a WebSocket frame;
a message never echoes more than :data:`ECHO` characters of the input.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from backgammon.core.values import clip, short_repr

__all__ = [
    "ECHO",
    "MESSAGE",
    "NAME_LENGTH",
    "ApiError",
    "BadNameError",
    "body",
    "bounded",
    "check_name",
    "validation_message",
]

ECHO = 40
"""The most characters of a client's input an error message repeats."""

MESSAGE = 300
"""The longest error message sent."""

NAME_LENGTH = 31
"""The longest player name: gnubg keeps 31 characters of a name (MAX_NAME_LEN 32)."""


class ApiError(Exception):
    """An error answered as ``{"error": {"code", "message"}}`` with an HTTP status."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, bounded(message)


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

"""The server's guards, in front of the routes: the cross-site check on cookie-authenticated
changes (:class:`SameOrigin`), the security headers, the login limiter and the per-client
token bucket."""

from __future__ import annotations

import base64
import collections
import hashlib
import json
import re
import threading
import time
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from backgammon.web.errors import ApiError
from backgammon.web.errors import body as error_body

__all__ = [
    "INVITATION_TTL",
    "LEFT_AFTER",
    "SIGN_UPS",
    "LoginLimiter",
    "RateLimiter",
    "SameOrigin",
    "SecurityHeaders",
    "content_security_policy",
]


INVITATION_TTL = 3600.0
"""An invitation no one has joined expires after this many seconds."""
LEFT_AFTER = 86400.0
"""A match unfinished with no action for this many seconds, and no clock running, has been
left by both players: it is closed (unrated)."""
SIGN_UPS = 3
"""The most accounts made from one address in 24 hours (kept in the store, so every process
and a restart count them)."""


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
    """Every login (right or wrong) and sign-up is counted before any password is checked:
    at most ``per_pair`` for one name from one address and ``per_address`` from one address
    in ``window`` seconds (in this process); more is refused 429.  A name is limited only
    together with the address trying it, so no one can lock an account out for others."""

    def __init__(self, per_pair: int = 10, per_address: int = 30, window: float = 300.0) -> None:
        self.per_pair, self.per_address, self.window = per_pair, per_address, window
        self._attempts: dict[tuple[str, ...], collections.deque[float]] = {}

    def _recent(self, key: tuple[str, ...], now: float) -> collections.deque[float]:
        times = self._attempts.setdefault(key, collections.deque())
        while times and times[0] < now - self.window:
            times.popleft()
        return times

    def admit(self, name: str | None, address: str) -> None:
        """Count an attempt on ``name`` (None: a sign-up) from ``address``, or refuse it
        (429) when one of its limits is reached."""
        now = time.monotonic()
        if len(self._attempts) > 100_000:  # bounded memory: the oldest counts go first
            self._attempts.clear()
        keys: list[tuple[tuple[str, ...], int]] = [(("address", address), self.per_address)]
        if name is not None:
            keys.append((("pair", name.casefold(), address), self.per_pair))
        for key, limit in keys:
            times = self._recent(key, now)
            if len(times) >= limit:
                wait = int(times[0] + self.window - now) + 1
                raise ApiError(
                    429,
                    "too_many_logins",
                    f"too many logins from here: wait {wait} s",
                    {"Retry-After": str(wait)},
                )
        for key, _limit in keys:
            self._attempts[key].append(now)


@dataclass
class RateLimiter:
    """A token bucket per client: ``burst`` requests at once, then ``rate`` a second."""

    rate: float = 2.0
    burst: float = 10.0
    _buckets: dict[str, tuple[float, float]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def wait(self, client: str) -> float:
        """0 if ``client`` may go now (a token is spent), else the seconds until it may."""
        now = time.monotonic()
        with self._lock:
            if len(self._buckets) > 10000:  # forget clients idle long enough to be full
                full = self.burst / self.rate
                self._buckets = {k: v for k, v in self._buckets.items() if now - v[1] < full}
            tokens, then = self._buckets.get(client, (self.burst, now))
            tokens = min(self.burst, tokens + (now - then) * self.rate)
            if tokens < 1:
                self._buckets[client] = (tokens, now)
                return (1 - tokens) / self.rate
            self._buckets[client] = (tokens - 1, now)
            return 0.0


def _inline_script_hashes() -> list[str]:
    """The CSP sources of the inline scripts of the site's pages (their SHA-256), so that
    they run and no other inline script does."""
    folder = resources.files("backgammon.web").joinpath("static")
    found = []
    for item in sorted(folder.iterdir(), key=lambda i: i.name):
        if item.name.endswith(".html"):
            for script in re.findall(r"<script>(.*?)</script>", item.read_text("utf-8"), re.S):
                digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
                found.append(f"'sha256-{digest}'")
    return found


def content_security_policy() -> str:
    """The site's Content-Security-Policy: its own scripts (and its pages' inline ones by
    hash), styles, images and connections only, and never in a frame."""
    scripts = " ".join(["'self'", *_inline_script_hashes()])
    return (
        f"default-src 'self'; script-src {scripts}; style-src 'self' 'unsafe-inline'; "
        "img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; "
        "form-action 'self'; frame-ancestors 'none'"
    )


class SecurityHeaders:
    """ASGI middleware: every answer says ``X-Content-Type-Options: nosniff`` and
    ``X-Frame-Options: DENY``, and every page but the API's own documentation (whose viewer
    starts from an inline script of FastAPI's) carries :func:`content_security_policy`."""

    UNCONFINED = ("/docs", "/redoc")

    def __init__(self, app: Any) -> None:
        self.app = app
        self.policy = content_security_policy().encode()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        confined = not scope["path"].startswith(self.UNCONFINED)

        async def send_with_headers(message: Any) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", ()))
                headers += [(b"x-content-type-options", b"nosniff"), (b"x-frame-options", b"DENY")]
                if confined:
                    headers.append((b"content-security-policy", self.policy))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)

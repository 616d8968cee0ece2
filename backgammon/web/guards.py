"""The server's guards, in front of the routes: the cross-site check on cookie-authenticated
changes (:class:`SameOrigin`), the login limiter and the per-client token bucket."""

from __future__ import annotations

import collections
import json
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from backgammon.web.errors import ApiError
from backgammon.web.errors import body as error_body

__all__ = ["LoginLimiter", "RateLimiter", "SameOrigin"]


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

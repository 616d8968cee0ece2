"""Passwords hashed and checked off the event loop and off the database's writer: argon2
takes a fair share of a core and 64 MiB each time, so it runs on its own few threads, and a
crowd of sign-ups or logins beyond them is refused at once (429) rather than queued without
bound.  Passwords are compared in Unicode's NFKC form, whatever form a keyboard sent."""

from __future__ import annotations

import asyncio
import unicodedata
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from backgammon.web.errors import ApiError
from backgammon.web.store.accounts import hash_password, verify_password

__all__ = ["HASHERS", "WAITING", "Passwords", "normal"]

T = TypeVar("T")

HASHERS = 2
"""Passwords hashed or checked at once (threads)."""
WAITING = 16
"""Hashes or checks waiting at most, beyond those running; more are refused (429)."""


def normal(password: str) -> str:
    """``password`` in NFKC form: the same characters typed on any keyboard match."""
    return unicodedata.normalize("NFKC", password)


class Passwords:
    """The hashing threads of one application, with their bounded queue."""

    def __init__(self, hashers: int = HASHERS, waiting: int = WAITING) -> None:
        self.threads = ThreadPoolExecutor(hashers, thread_name_prefix="backgammon-hash")
        self.limit = hashers + waiting
        self.pending = 0

    async def _run(self, fn: Callable[..., T], *args: object) -> T:
        if self.pending >= self.limit:
            raise ApiError(
                429, "busy", "too many logins at once: try again shortly", {"Retry-After": "1"}
            )
        self.pending += 1
        try:
            return await asyncio.get_running_loop().run_in_executor(self.threads, fn, *args)
        finally:
            self.pending -= 1

    async def hash(self, password: str) -> str:
        """The hash to keep of ``password`` (in its normal form)."""
        return await self._run(hash_password, normal(password))

    async def check(self, stored: str | None, password: str) -> bool:
        """Whether ``password`` matches the hash ``stored`` (None: no account, checked all
        the same); a hash made before passwords were normalised matches its own form."""
        if await self._run(verify_password, stored, normal(password)):
            return True
        if stored is None or normal(password) == password:
            return False
        return await self._run(verify_password, stored, password)

    def close(self) -> None:
        """Stop the threads (the server is ending)."""
        self.threads.shutdown(wait=False, cancel_futures=True)

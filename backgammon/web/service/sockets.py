"""Each WebSocket's outbox: messages to a socket are queued (a bounded queue) and sent by its
own task, each send within a time limit, so a socket that never reads holds up nothing but
itself; a socket whose queue overflows or whose send times out is dropped (closed), and its
page, which reconnects, gets the whole current state again."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable

from fastapi import WebSocket

__all__ = ["QUEUE", "SEND_TIMEOUT", "SLOW", "Outbox"]

_log = logging.getLogger("backgammon.web")

QUEUE = 64
"""Messages waiting for one socket at most: a socket this far behind is dropped."""
SEND_TIMEOUT = 10.0
"""Seconds one message may take to be sent to a socket before the socket is dropped."""
SLOW = 4008
"""The close code of a socket dropped for not keeping up (the page reconnects)."""


class Outbox:
    """The queue of messages to ``ws`` and the task that sends them in order; ``dropped``
    is called once when the socket is given up (too slow, or gone)."""

    def __init__(
        self,
        ws: WebSocket,
        dropped: Callable[[], None],
        *,
        size: int = QUEUE,
        timeout: float = SEND_TIMEOUT,
    ) -> None:
        self.ws, self.dropped, self.timeout = ws, dropped, timeout
        self.queue: asyncio.Queue[str] = asyncio.Queue(size)
        self.closed = False
        self.task = asyncio.create_task(self._send())

    def offer(self, text: str) -> None:
        """Queue ``text`` without waiting; a socket whose queue is full is dropped."""
        if self.closed:
            return
        try:
            self.queue.put_nowait(text)
        except asyncio.QueueFull:
            _log.info("a WebSocket %d messages behind is dropped", self.queue.maxsize)
            self.drop()

    def drop(self) -> None:
        """Give up the socket: its task stops and it is closed as too slow."""
        if self.closed:
            return
        self.closed = True
        self.task.cancel()
        self.dropped()
        asyncio.get_running_loop().create_task(self._close())

    async def _close(self) -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.ws.close(code=SLOW, reason="too slow"), self.timeout)

    def finish(self) -> None:
        """The socket closed by itself: stop sending (nothing more is queued)."""
        self.closed = True
        self.task.cancel()

    async def _send(self) -> None:
        while True:
            text = await self.queue.get()
            try:
                await asyncio.wait_for(self.ws.send_text(text), self.timeout)
            except asyncio.CancelledError:
                raise
            except Exception:  # timed out, or the socket is gone
                self.drop()
                return

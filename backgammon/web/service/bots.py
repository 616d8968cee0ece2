"""The bots: made by name in one place (:func:`bot`), and thinking off the event loop, each
decision in the shared pool of bot workers with a time limit and retries, so a slow or
crashing bot never holds up the server or its other matches."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from backgammon.core.values import Move
from backgammon.play.match import ActionKind
from backgammon.players import Player, decide
from backgammon.players import get as get_player
from backgammon.web.schemas import BOTS, DEFAULT_BOT
from backgammon.web.service.game import Game
from backgammon.web.service.gnubg import engine_player, is_engine
from backgammon.web.service.jobs import WorkerPool, shared
from backgammon.workers import result_within

__all__ = ["BotFailed", "BotPool", "bot", "bot_action", "warm_up"]

_log = logging.getLogger("backgammon.web")

STARTUP = 120.0
"""Seconds a new worker may take to start and load its bot (not counted as thinking)."""

_made: dict[tuple[str, tuple[tuple[str, Any], ...]], Player] = {}

Decider = Callable[[str, Game], dict[str, Any]]


def bot(name: str, **options: Any) -> Player:
    """The player ``name`` of :func:`backgammon.players.get` with ``options`` (``plies``),
    or the server's engine (``gnubg[:PLIES]``, one per worker), made once per process: the
    one place the web makes a bot."""
    key = (name, tuple(sorted(options.items())))
    if key not in _made:
        _made[key] = engine_player(name) if is_engine(name) else get_player(name, **options)
    return _made[key]


def bot_action(name: str, game: Game) -> dict[str, Any]:
    """The bot's next action in ``game`` (it is the bot's to act), decided by the player
    ``name`` from :mod:`backgammon.players`, as a stored action."""
    decision = decide(bot(name), game.match)
    if decision.kind is ActionKind.MOVE:
        move = decision.move if decision.move is not None else Move()
        return {"action": "move", "steps": [[s, t] for s, t, _h in move]}
    return {"action": str(decision.kind)}


def warm_up(names: Sequence[str]) -> None:
    """Load the bots ``names`` (their networks) in this process, before a match needs them."""
    for name in names:
        bot(name)


class BotFailed(RuntimeError):
    """The bot gave no answer after every attempt (it raised, crashed or ran out of time)."""


class BotPool:
    """Bot decisions in ``processes`` worker processes: each attempt has ``timeout``
    seconds, and a failure is tried again up to ``attempts`` times in all.  ``names``: the
    bots to play against (name -> name at the table), the server's engine among them."""

    def __init__(
        self,
        processes: int = 2,
        timeout: float = 10.0,
        attempts: int = 3,
        names: dict[str, str] | None = None,
    ) -> None:
        if processes < 1 or timeout <= 0 or attempts < 1:
            raise ValueError("a bot pool needs >= 1 process, a positive timeout, >= 1 attempt")
        self.processes, self.timeout, self.attempts = processes, timeout, attempts
        self.names = dict(BOTS) if names is None else names

    @property
    def pool(self) -> WorkerPool:
        """The process's shared pool of this many bot workers, each warmed up with the
        default bot."""
        return shared(f"bots-{self.processes}", self.processes, (warm_up, ([DEFAULT_BOT],)))

    def warm(self) -> None:
        """Start the workers and load the default bot before the first match needs it."""
        self.pool.executor()

    async def decide(self, decider: Decider, name: str, game: Game) -> dict[str, Any]:
        """``decider(name, game)`` run in a worker; :class:`BotFailed` after every attempt."""
        problem = "no attempt"
        for attempt in range(self.attempts):
            pool = self.pool
            executor = pool.executor()
            try:
                if not all(f.done() for f in pool.warming):  # a new worker is not thinking yet
                    warming = [asyncio.wrap_future(f) for f in pool.warming]
                    await asyncio.wait_for(asyncio.gather(*warming), STARTUP)
                future = executor.submit(decider, name, game.copy(dice=False))
                return await result_within(future, self.timeout)
            except TimeoutError:  # the warm-up's or the decision's (WorkerTimeout)
                problem = f"no answer within {self.timeout:g} s"
                pool.discard(executor)
            except BrokenProcessPool:
                problem = "its worker process died"
                pool.discard(executor)
            except Exception as exc:  # the bot's own error, raised in the worker
                problem = f"{type(exc).__name__}: {exc}"
            _log.warning("bot %s, attempt %d: %s", name, attempt + 1, problem)
            await asyncio.sleep(0.05 * 2**attempt)
        raise BotFailed(f"the {name} bot failed {self.attempts} times ({problem})")

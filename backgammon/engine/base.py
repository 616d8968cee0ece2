"""One interface for every engine, modelled on python-chess's ``chess.engine``: a frozen
:class:`Limit` says how hard to think, an :class:`EngineProtocol` answers with asyncio, and
:class:`SimpleEngine` wraps any protocol in plain blocking calls on a thread of its own.

An engine answers four questions about a position seen from the side on roll (with its cube
and score as a :class:`~backgammon.evaluation.cube.CubeState`): :meth:`~EngineProtocol.evaluate`
(the five probabilities, cubeless equity, the cube's values and the proper action),
:meth:`~EngineProtocol.candidates` (the ranked plays of a roll), :meth:`~EngineProtocol.choose`
(a play) and :meth:`~EngineProtocol.cube_action` (a cube decision); ``play(match)`` makes
the one decision a match is waiting for through :func:`~backgammon.players.decide`.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from backgammon.core.position import Position
from backgammon.core.values import Move
from backgammon.evaluation.cube import CubeAction, CubeDecision, CubeState
from backgammon.evaluation.probabilities import Probabilities
from backgammon.play.match import Match
from backgammon.players.base import RankedMove
from backgammon.players.driver import Decision, decide

if TYPE_CHECKING:
    from backgammon.engine.gnubg import GnubgReport

__all__ = [
    "NO_LIMIT",
    "EngineCapabilityError",
    "EnginePlayer",
    "EngineProtocol",
    "Evaluation",
    "Limit",
    "LimitError",
    "SimpleEngine",
    "proper_action",
]

T = TypeVar("T")

NO_CUBE = "the cube is not available: no double"
"""The proper action said when the side on roll may not double (as ``backgammon eval``)."""


class LimitError(ValueError):
    """A limit no engine can keep (negative plies, a time that is not positive)."""


class EngineCapabilityError(ValueError):
    """The engine cannot answer this kind of question (a UBGI engine gives no evaluations)."""


@dataclass(frozen=True)
class Limit:
    """How hard an engine thinks on one call: ``plies`` of lookahead (None: the engine's
    setting) and ``time``, the seconds it has to answer before it is killed and restarted
    (None: the engine's default)."""

    plies: int | None = None
    time: float | None = None

    def __post_init__(self) -> None:
        if self.plies is not None and not 0 <= self.plies <= 7:
            raise LimitError(f"plies must be 0-7, not {self.plies!r}")
        if self.time is not None and not self.time > 0:
            raise LimitError(f"a time limit must be positive, not {self.time!r}")


NO_LIMIT = Limit()
"""The engine's own settings: no plies given, its default time limit."""


@dataclass(frozen=True)
class Evaluation:
    """A position judged by an engine for its side on roll, before the roll.

    ``equity`` is the cubeless money equity of ``probabilities``; the cube's values are in
    EMG as the engine gives them (``double_take`` and ``double_pass`` None when the side on
    roll may not double); ``proper`` is the cube action in gnubg's words, lower case.
    """

    plies: int | None
    probabilities: Probabilities
    equity: float
    no_double: float
    double_take: float | None
    double_pass: float | None
    proper: str

    @property
    def action(self) -> CubeAction:
        """DOUBLE when the proper action is to double (or redouble), else NO_DOUBLE."""
        doubles = self.proper.startswith(("double", "redouble"))
        return CubeAction.DOUBLE if doubles else CubeAction.NO_DOUBLE

    @property
    def response(self) -> CubeAction:
        """What the other side should answer a double with: TAKE, PASS or BEAVER."""
        answer = self.proper.rpartition(",")[2].strip()
        return {"pass": CubeAction.PASS, "beaver": CubeAction.BEAVER}.get(answer, CubeAction.TAKE)


def proper_action(d: CubeDecision, cube: CubeState) -> str:
    """The proper cube action in gnubg's words: "no double, take", "double, pass", "too good
    to double, pass", ... ("redouble" once the side on roll owns the cube)."""
    verb = "redouble" if cube.cube_owner == 1 else "double"
    answer = {CubeAction.PASS: "pass", CubeAction.BEAVER: "beaver"}.get(d.response, "take")
    if d.action is CubeAction.DOUBLE:
        first = verb
    elif d.no_double >= d.double_pass and d.double_take >= d.double_pass:
        first = f"too good to {verb}"
    else:
        first = f"no {verb}"
    return f"{first}, {answer}"


class EngineProtocol:
    """An engine as coroutines; one question at a time (a lock orders them).  Subclasses
    answer what they can; the others raise :class:`EngineCapabilityError`."""

    name = "engine"

    def __init__(self) -> None:
        self.lock = asyncio.Lock()

    async def evaluate(
        self, position: Position, cube: CubeState | None = None, limit: Limit = NO_LIMIT
    ) -> Evaluation:
        """``position`` judged for its side on roll before it rolls."""
        raise EngineCapabilityError(f"{self.name} gives no evaluations")

    async def candidates(
        self,
        position: Position,
        dice: Sequence[int],
        cube: CubeState | None = None,
        limit: Limit = NO_LIMIT,
    ) -> list[RankedMove]:
        """The plays of ``dice`` the engine ranks, best first ([] when none is legal)."""
        raise EngineCapabilityError(f"{self.name} gives no ranked plays")

    async def choose(
        self,
        position: Position,
        dice: Sequence[int],
        cube: CubeState | None = None,
        limit: Limit = NO_LIMIT,
    ) -> Move | None:
        """The engine's play of ``dice`` (None when none is legal)."""
        ranked = await self.candidates(position, dice, cube, limit)
        return ranked[0].move if ranked else None

    async def cube_action(
        self, position: Position, cube: CubeState, offered: bool = False, limit: Limit = NO_LIMIT
    ) -> CubeAction:
        """As :meth:`Player.cube_action`: DOUBLE or NO_DOUBLE for the side on roll, or, with
        ``offered``, the opponent's TAKE, PASS or BEAVER; ``position`` and ``cube`` are the
        side on roll's."""
        e = await self.evaluate(position, cube, limit)
        if offered:
            return e.response
        return e.action if cube.may_double() else CubeAction.NO_DOUBLE

    async def accept_resignation(
        self,
        position: Position,
        points: int,
        cube: CubeState | None = None,
        limit: Limit = NO_LIMIT,
    ) -> bool:
        """True if the opponent of the side on roll accepts its resignation of ``points``:
        when they are at least what it expects to win, cubeless."""
        e = await self.evaluate(position, cube, limit)
        return points >= -e.equity

    async def analyse_file(self, path: str | Path, limit: Limit = NO_LIMIT) -> GnubgReport:
        """The engine's own analysis of a whole match file (gnubg's ``analyse match``)."""
        raise EngineCapabilityError(f"{self.name} does not analyse match files itself")

    async def play(self, match: Match, limit: Limit = NO_LIMIT) -> Decision:
        """The decision ``match`` waits for (roll or double, the play, the answer to a
        double or a resignation), as :func:`~backgammon.players.decide` makes it."""
        loop = asyncio.get_running_loop()
        return await asyncio.to_thread(decide, EnginePlayer(_Bridge(self, loop), limit), match)

    async def quit(self) -> None:
        """End the engine (its process, if it has one)."""


class _Bridge:
    """Blocking calls into a protocol running on ``loop`` (another thread's)."""

    def __init__(self, protocol: EngineProtocol, loop: asyncio.AbstractEventLoop) -> None:
        self.protocol = protocol
        self.loop = loop

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()


class SimpleEngine:
    """Blocking calls to an engine: its protocol runs on an event loop in a thread of this
    object's own, as python-chess's ``SimpleEngine``.  Close it (or use ``with``)."""

    def __init__(self, protocol: EngineProtocol | Coroutine[Any, Any, EngineProtocol]) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()
        self._closed = False
        if isinstance(protocol, EngineProtocol):
            protocol = _ready(protocol)
        try:
            self.protocol: EngineProtocol = self._run(protocol)
        except BaseException:
            self._stop()
            raise
        self.name = self.protocol.name

    @classmethod
    def popen_gnubg(cls, *args: Any, **kwargs: Any) -> SimpleEngine:
        """GNU Backgammon as an engine (:func:`backgammon.engine.gnubg.popen_gnubg`)."""
        from backgammon.engine.gnubg import popen_gnubg

        return cls(popen_gnubg(*args, **kwargs))

    @classmethod
    def popen_ubgi(cls, command: str | Sequence[str], **kwargs: Any) -> SimpleEngine:
        """Any UBGI engine (:func:`backgammon.engine.ubgi.popen_ubgi`)."""
        from backgammon.engine.ubgi import popen_ubgi

        return cls(popen_ubgi(command, **kwargs))

    def _run(self, coro: Coroutine[Any, Any, T]) -> T:
        if self._closed:
            coro.close()
            raise EngineCapabilityError("the engine is closed")
        future: Future[T] = asyncio.run_coroutine_threadsafe(coro, self._loop)
        return future.result()

    def evaluate(
        self, position: Position, cube: CubeState | None = None, limit: Limit = NO_LIMIT
    ) -> Evaluation:
        """As :meth:`EngineProtocol.evaluate`, blocking."""
        return self._run(self.protocol.evaluate(position, cube, limit))

    def candidates(
        self,
        position: Position,
        dice: Sequence[int],
        cube: CubeState | None = None,
        limit: Limit = NO_LIMIT,
    ) -> list[RankedMove]:
        """As :meth:`EngineProtocol.candidates`, blocking."""
        return self._run(self.protocol.candidates(position, dice, cube, limit))

    def choose(
        self,
        position: Position,
        dice: Sequence[int],
        cube: CubeState | None = None,
        limit: Limit = NO_LIMIT,
    ) -> Move | None:
        """As :meth:`EngineProtocol.choose`, blocking."""
        return self._run(self.protocol.choose(position, dice, cube, limit))

    def cube_action(
        self, position: Position, cube: CubeState, offered: bool = False, limit: Limit = NO_LIMIT
    ) -> CubeAction:
        """As :meth:`EngineProtocol.cube_action`, blocking."""
        return self._run(self.protocol.cube_action(position, cube, offered, limit))

    def analyse_file(self, path: str | Path, limit: Limit = NO_LIMIT) -> GnubgReport:
        """As :meth:`EngineProtocol.analyse_file`, blocking."""
        return self._run(self.protocol.analyse_file(path, limit))

    def play(self, match: Match, limit: Limit = NO_LIMIT) -> Decision:
        """The decision ``match`` waits for, made by the engine (an action: make it with
        :meth:`Match.apply`)."""
        return decide(EnginePlayer(self, limit), match)

    def close(self) -> None:
        """Quit the engine and stop the thread (again: nothing)."""
        if self._closed:
            return
        try:
            self._run(self.protocol.quit())
        finally:
            self._stop()

    def _stop(self) -> None:
        self._closed = True
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        if not self._loop.is_running():
            self._loop.close()

    def __enter__(self) -> SimpleEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


async def _ready(protocol: EngineProtocol) -> EngineProtocol:
    return protocol


class EnginePlayer:
    """An engine as a :class:`~backgammon.players.Player` (a bot for ``play``, selfplay,
    the environments), thinking within ``limit`` on every decision."""

    def __init__(self, engine: SimpleEngine | _Bridge, limit: Limit = NO_LIMIT) -> None:
        self.engine = engine
        self.limit = limit
        self.name = engine.protocol.name

    def _run(self, coro: Coroutine[Any, Any, T]) -> T:
        if isinstance(self.engine, _Bridge):
            return self.engine.run(coro)
        return self.engine._run(coro)

    def choose_move(
        self, position: Position, dice: Sequence[int], cube: CubeState | None = None
    ) -> Move | None:
        return self._run(self.engine.protocol.choose(position, dice, cube, self.limit))

    def cube_action(self, position: Position, cube: CubeState, offered: bool = False) -> CubeAction:
        return self._run(self.engine.protocol.cube_action(position, cube, offered, self.limit))

    def accept_resignation(
        self, position: Position, points: int, cube: CubeState | None = None
    ) -> bool:
        protocol = self.engine.protocol
        return self._run(protocol.accept_resignation(position, points, cube, self.limit))

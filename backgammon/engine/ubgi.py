"""Any UBGI engine (Universal Backgammon Interface, draft 0.01) as an engine: the program
started once, ``ubgi`` answered up to ``readyok``, then an XGID a line, each answered with
the engine's action (a play as ``from/to`` steps, roll, double, take, drop).

UBGI gives a decision and no numbers: such an engine chooses plays and cube actions, and
raises :class:`~backgammon.engine.base.EngineCapabilityError` when asked for an evaluation
or ranked plays.  Plies are set with ``setoption name plies`` when the engine offers it.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence

from backgammon.core.position import Position
from backgammon.core.values import Move
from backgammon.engine.base import NO_LIMIT, EngineCapabilityError, Limit
from backgammon.engine.process import Child, EngineOutputError, ProcessProtocol
from backgammon.evaluation.cube import CubeAction, CubeState
from backgammon.ids.xgid import XgidFields, format_xgid

__all__ = ["UbgiProtocol", "popen_ubgi", "program_name", "xgid_of"]

_ANSWERS = {
    "take": CubeAction.TAKE,
    "drop": CubeAction.PASS,
    "pass": CubeAction.PASS,
    "beaver": CubeAction.BEAVER,
    "double": CubeAction.DOUBLE,
    "roll": CubeAction.NO_DOUBLE,
}


def xgid_of(
    position: Position, cube: CubeState | None, dice: Sequence[int] = (), offered: bool = False
) -> str:
    """The XGID of ``position`` with its side on roll to act (``dice`` rolled, or with
    ``offered`` its double awaiting an answer) at the score and cube of ``cube``."""
    c = cube if cube is not None else CubeState()
    fields = XgidFields(
        position=position,
        cube_value=c.cube_value,
        cube_owner=None if c.cube_owner == 0 else (1 if c.cube_owner == 1 else 0),
        on_roll=1,
        dice=tuple(dice),
        cube_action="D" if offered else "",
        score=(c.score[1], c.score[0]),
        crawford=c.crawford,
        jacoby=c.jacoby,
        beavers=c.beavers,
        match_length=c.match_length,
        max_cube=1 << 15,
    )
    return format_xgid(fields)


class UbgiProtocol(ProcessProtocol):
    """A UBGI engine started from ``argv``; ``plies`` is sent as its ``plies`` option."""

    def __init__(
        self, argv: Sequence[str], *, plies: int | None = None, timeout: float | None = 60.0
    ) -> None:
        if not argv:
            raise EngineCapabilityError("a UBGI engine needs a command")
        super().__init__(argv, timeout)
        self.name = program_name(argv[0])
        self.plies = Limit(plies=plies).plies
        self.options: dict[str, str] = {}
        self.id: dict[str, str] = {}
        self._plies_set: int | None = None

    async def hello(self, child: Child) -> None:
        self._plies_set = None
        await child.send(["ubgi"])
        while True:
            line = await child.readline(self.timeout)
            word, _, rest = line.partition(" ")
            if word == "id":
                key, _, value = rest.partition(" ")
                self.id[key] = value
            elif word == "option":
                parts = rest.split()
                if len(parts) >= 2 and parts[0] == "name":
                    self.options[parts[1]] = rest
            elif word == "readyok":
                break
        if "name" in self.id:
            self.name = self.id["name"]

    async def _ask(self, xgid: str, limit: Limit) -> str:
        plies = limit.plies if limit.plies is not None else self.plies
        lines = []
        if plies is not None and plies != self._plies_set:
            if "plies" not in self.options:
                raise EngineCapabilityError(f"{self.name} has no plies option")
            lines.append(f"setoption name plies value {plies}")
            self._plies_set = plies
        try:
            out = await self.exchange([*lines, xgid], limit, lambda line: True)
        except BaseException:
            self._plies_set = None
            raise
        answer = out[-1].strip()
        if answer == "sorry":
            self._plies_set = None  # the option may have been refused too
            raise EngineOutputError(f"{self.name} cannot answer {xgid}")
        return answer

    async def choose(
        self,
        position: Position,
        dice: Sequence[int],
        cube: CubeState | None = None,
        limit: Limit = NO_LIMIT,
    ) -> Move | None:
        legal = position.legal_moves(tuple(dice))
        if not legal:
            return None
        answer = await self._ask(xgid_of(position, cube, dice), limit)
        try:
            return position.parse_move(
                answer.replace("25/", "bar/").replace("/0", "/off"), tuple(dice)
            )
        except ValueError as exc:
            raise EngineOutputError(f"{self.name} answered an illegal play: {answer!r}") from exc

    async def cube_action(
        self, position: Position, cube: CubeState, offered: bool = False, limit: Limit = NO_LIMIT
    ) -> CubeAction:
        answer = await self._ask(xgid_of(position, cube, offered=offered), limit)
        action = _ANSWERS.get(answer.split(" ")[0].lower())
        wanted = (
            (CubeAction.TAKE, CubeAction.PASS, CubeAction.BEAVER)
            if offered
            else (CubeAction.DOUBLE, CubeAction.NO_DOUBLE)
        )
        if action is None or action not in wanted:
            raise EngineOutputError(f"{self.name} answered {answer!r} to a cube question")
        return action

    async def accept_resignation(
        self,
        position: Position,
        points: int,
        cube: CubeState | None = None,
        limit: Limit = NO_LIMIT,
    ) -> bool:
        raise EngineCapabilityError(f"{self.name} (UBGI) cannot answer a resignation")


def program_name(program: str) -> str:
    """A short name for an engine's program (its file name)."""
    return program.rstrip("/").rpartition("/")[2] or program


async def popen_ubgi(
    command: str | Sequence[str], *, plies: int | None = None, timeout: float | None = 60.0
) -> UbgiProtocol:
    """A UBGI engine started from ``command`` (a shell-like string or an argument list;
    no shell runs it) and ready."""
    argv = shlex.split(command) if isinstance(command, str) else list(command)
    protocol = UbgiProtocol(argv, plies=plies, timeout=timeout)
    await protocol.running()
    return protocol

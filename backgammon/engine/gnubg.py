"""GNU Backgammon as an engine: Debian's ``gnubg -t -q`` (or one found on the PATH, or
given) kept running, commands on its standard input, what it prints parsed.

Each question sets the position with ``set gnubgid`` (the score, cube and dice in its
Match ID), asks ``eval`` or ``hint``, and ends with a word gnubg does not know, whose
complaint marks the end of the answer.  Plies, noise and any other ``set`` command are
passed through as gnubg's own evaluation settings.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from backgammon.core.position import Position
from backgammon.engine.base import NO_CUBE, NO_LIMIT, Evaluation, Limit
from backgammon.engine.process import Child, EngineOutputError, ProcessProtocol
from backgammon.evaluation.cube import CubeState
from backgammon.evaluation.probabilities import Probabilities
from backgammon.ids.gnubg import MatchIdFields, encode_match_id
from backgammon.players.base import RankedMove
from backgammon.records.gnubg_analysis import GnubgAnalysis, read_gnubg_analysis

__all__ = [
    "GNUBG",
    "GnubgNotFoundError",
    "GnubgProtocol",
    "GnubgReport",
    "find_gnubg",
    "gnubg_id",
    "parse_candidates",
    "parse_evaluation",
    "popen_gnubg",
]

GNUBG = "/usr/games/gnubg"
"""Where Debian installs gnubg (``/usr/games`` is not always on the PATH)."""

_END = "zzend"
_PROBS = r"(\d\.\d+) (\d\.\d+) (\d\.\d+) - \d\.\d+ (\d\.\d+) (\d\.\d+)"
_MOVE = re.compile(
    r"^\s*\d+\.\s+(?:Cubeful|Cubeless)\s+(\d+)-ply\s+(.+?)\s+Eq\.:\s+([+-]?\d+\.\d+)"
)
_MOVE_PROBS = re.compile(rf"^\s+{_PROBS}\s*$")
_ROW = re.compile(
    r"^\s*(static|\d+ ply):\s+" + r"\s+".join([r"(-?\d\.\d+)"] * 5) + r"\s+"
    r"([+-]?\d+\.\d+)\s+([+-]?\d+\.\d+)"
)
_CUBE_VALUE = re.compile(
    r"^\d\. (No (?:re)?double|(?:Re)?[Dd]ouble, (?:pass|take)|"
    r"(?:Re)?[Dd]ouble, beaver)\s+([+-]\d+\.\d+)"
)
_CLOSE = re.compile(r"^Close or actual cube decisions\s+(\d+)\s+(\d+)")
_RATE = re.compile(r"^Error rate mEMG \(MWC\)\s+(-?[\d.]+)\s+\([^)]*\)\s+(-?[\d.]+)")
_KINDS = ("chequerplay", "cubedecision")
_PROPER = re.compile(r"^Proper cube action:\s*(.*?)\s*(?:\([\d.]+%\))?\s*$")


def _ends(word: str) -> Callable[[str], bool]:
    """Whether a line is gnubg's complaint about ``word``: the end of an answer."""
    return lambda line: f"`{word}'" in line


class GnubgNotFoundError(ValueError):
    """No gnubg program where it was looked for."""


def find_gnubg(path: str | None = None) -> str:
    """The gnubg program: ``path`` if given, else ``gnubg`` on the PATH, else Debian's."""
    if path is not None:
        found = shutil.which(path)
        if found is None:
            raise GnubgNotFoundError(f"no gnubg program at {path!r}")
        return found
    found = shutil.which("gnubg")
    if found is not None:
        return found
    if Path(GNUBG).is_file():
        return GNUBG
    raise GnubgNotFoundError("gnubg is not installed (apt install gnubg) or not on the PATH")


def gnubg_id(position: Position, cube: CubeState | None, dice: Sequence[int] = ()) -> str:
    """The gnubg ID of ``position`` with its side on roll to act (with ``dice`` rolled if
    given), the score and cube of ``cube`` (a centred money cube by default)."""
    c = cube if cube is not None else CubeState()
    owner = None if c.cube_owner == 0 else (0 if c.cube_owner == 1 else 1)
    fields = MatchIdFields(
        cube_value=c.cube_value,
        cube_owner=owner,
        crawford=c.crawford,
        dice=tuple(sorted(dice, reverse=True)) if dice else (),
        match_length=c.match_length,
        score=c.score,
        no_jacoby=not c.jacoby,
    )
    return f"{position.position_id()}:{encode_match_id(fields)}"


def _probabilities(groups: Sequence[str]) -> Probabilities:
    return Probabilities.of([float(x) for x in groups])


def parse_evaluation(lines: Sequence[str]) -> Evaluation:
    """gnubg's answer to ``eval``: the deepest row of probabilities, and the cube analysis
    when it printed one (none when the side on roll may not double)."""
    rows = [m for m in map(_ROW.match, lines) if m]
    if not rows:
        raise EngineOutputError("gnubg printed no evaluation")
    last = rows[-1]
    label = last.group(1)
    plies = 0 if label == "static" else int(label.split()[0])
    probs = _probabilities(last.groups()[1:6])
    values: dict[str, float] = {}
    proper = NO_CUBE
    if any(line.startswith("Cube analysis") for line in lines):
        for line in lines:
            m = _CUBE_VALUE.match(line)
            if m:
                key = m.group(1).lower().replace("redouble", "double")
                values[key.split(",")[-1].strip() if "," in key else "no double"] = float(
                    m.group(2)
                )
            p = _PROPER.match(line)
            if p:
                proper = p.group(1).lower()
        if "no double" not in values or "pass" not in values:
            raise EngineOutputError("gnubg's cube analysis lacks a value")
    nd = values.get("no double", float(last.group(8)))
    return Evaluation(
        plies,
        probs,
        probs.equity(),
        nd,
        values.get("take", values.get("beaver")) if values else None,
        values.get("pass") if values else None,
        proper,
    )


def parse_candidates(
    lines: Sequence[str], position: Position, dice: Sequence[int]
) -> list[RankedMove]:
    """gnubg's answer to ``hint``: each play (read in gnubg notation against ``position``),
    its probabilities after the play, cubeful equity (EMG) and plies, best first."""
    out: list[RankedMove] = []
    for i, line in enumerate(lines):
        m = _MOVE.match(line)
        if not m:
            continue
        p = _MOVE_PROBS.match(lines[i + 1]) if i + 1 < len(lines) else None
        if p is None:
            raise EngineOutputError(f"gnubg printed a play without its probabilities: {line!r}")
        try:
            move = position.parse_move(m.group(2), tuple(dice))
        except ValueError as exc:
            raise EngineOutputError(f"gnubg printed a play we cannot read: {m.group(2)!r}") from exc
        out.append(RankedMove(move, _probabilities(p.groups()), float(m.group(3)), int(m.group(1))))
    return out


class GnubgProtocol(ProcessProtocol):
    """gnubg driven through its text mode; ``plies`` (None: gnubg's own setting), ``noise``
    and ``settings`` (any gnubg commands, sent once at start) shape its evaluations."""

    name = "gnubg"
    quit_lines = ("quit", "y")
    merge_errors = True  # its complaints (on standard error) mark the ends of answers

    def __init__(
        self,
        path: str | None = None,
        *,
        plies: int | None = None,
        noise: float | None = None,
        settings: Sequence[str] = (),
        timeout: float | None = 120.0,
    ) -> None:
        super().__init__([find_gnubg(path), "-t", "-q"], timeout)
        self.plies = Limit(plies=plies).plies
        self.noise = noise
        self.settings = list(settings)
        self.asked = 0
        self._plies_set: int | None = None
        self._beavers: bool | None = None

    async def hello(self, child: Child) -> None:
        self._plies_set = self._beavers = None
        lines = [
            "set display off",
            "set output digits 5",
            "set output mwc off",
            "set player 0 human",
            "set player 1 human",
        ]
        if self.noise is not None:
            for kind in _KINDS:
                lines += [
                    f"set evaluation {kind} evaluation noise {self.noise}",
                    f"set evaluation {kind} evaluation deterministic on",
                ]
        lines += self.settings
        await child.send([*lines, f"{_END}0"])
        seconds = self.timeout
        while True:
            if (await child.readline(seconds)).startswith(f"Unknown keyword `{_END}0'"):
                return

    def _setup(self, cube: CubeState, limit: Limit) -> list[str]:
        lines = []
        plies = limit.plies if limit.plies is not None else self.plies
        if plies is not None and plies != self._plies_set:
            lines += [
                f"set evaluation chequerplay evaluation plies {plies}",
                f"set evaluation cubedecision evaluation plies {plies}",
            ]
            self._plies_set = plies
        if cube.is_money and cube.beavers != self._beavers:
            lines.append(f"set beavers {'on' if cube.beavers else 'off'}")
            self._beavers = cube.beavers
        return lines

    async def ask(
        self,
        command: str,
        position: Position,
        cube: CubeState | None,
        dice: Sequence[int],
        limit: Limit,
    ) -> list[str]:
        """gnubg's lines in answer to ``command`` at the position."""
        c = cube if cube is not None else CubeState()
        self.asked += 1
        end = f"{_END}{self.asked}"
        lines = [*self._setup(c, limit), f"set gnubgid {gnubg_id(position, c, dice)}", command, end]
        try:
            out = await self.exchange(lines, limit, _ends(end))
        except BaseException:
            self._plies_set = self._beavers = None
            raise
        errors = [line for line in out if line.startswith(("Illegal", "Invalid", "No game"))]
        if errors:
            raise EngineOutputError(f"gnubg refused the position: {errors[0]}")
        return out

    async def analyse_file(self, path: str | Path, limit: Limit = NO_LIMIT) -> GnubgReport:
        """gnubg's own ``analyse match`` of a .mat or .sgf file at ``limit.plies`` (else
        the engine's plies; else gnubg's analysis settings), read back from the SGF it
        saves.  ``limit.time`` bounds the whole analysis (no bound by default)."""
        source = Path(path)
        kind = "sgf" if source.suffix.lower() == ".sgf" else "mat"
        plies = limit.plies if limit.plies is not None else self.plies
        with tempfile.TemporaryDirectory(prefix="backgammon-gnubg-") as folder:
            copy, saved = Path(folder) / f"in.{kind}", Path(folder) / "out.sgf"
            try:
                shutil.copyfile(source, copy)
            except OSError as exc:
                raise GnubgNotFoundError(f"cannot read {source}: {exc.strerror}") from exc
            lines = []
            if plies is not None:
                lines += [f"set analysis {k} evaluation plies {plies}" for k in _KINDS]
            self.asked += 1
            end = f"{_END}{self.asked}"
            lines += [
                f"load match {copy}" if kind == "sgf" else f"import mat {copy}",
                "analyse match",
                "show statistics match",
                f"save match {saved}",
                end,
            ]
            out = await self.exchange(lines, Limit(time=limit.time or 1e9), _ends(end))
            if not saved.exists():
                raise EngineOutputError(f"gnubg did not analyse {source.name}")
            analysis = read_gnubg_analysis(saved.read_text("utf-8"))
        close, rates = _statistics(out)
        return GnubgReport(analysis, close, rates, plies)

    async def evaluate(
        self, position: Position, cube: CubeState | None = None, limit: Limit = NO_LIMIT
    ) -> Evaluation:
        return parse_evaluation(await self.ask("eval", position, cube, (), limit))

    async def candidates(
        self,
        position: Position,
        dice: Sequence[int],
        cube: CubeState | None = None,
        limit: Limit = NO_LIMIT,
    ) -> list[RankedMove]:
        if not position.legal_moves(tuple(dice)):
            return []
        out = await self.ask("hint 10000", position, cube, dice, limit)
        return parse_candidates(out, position, dice)


@dataclass(frozen=True)
class GnubgReport:
    """gnubg's analysis of a match file: its verdicts as the SGF it saved holds them, and
    from its statistics what the file does not hold (close or actual cube decisions per
    player) with the overall error rates it printed (mEMG, to 0.1)."""

    analysis: GnubgAnalysis
    close_cube: tuple[int, int]
    printed_rates: tuple[float, float]
    plies: int | None

    def error_rate(self, player: int) -> float:
        """gnubg's overall error rate of ``player`` (mEMG per decision) from its numbers."""
        return self.analysis.error_rate(player, self.close_cube[player])


def _statistics(lines: Sequence[str]) -> tuple[tuple[int, int], tuple[float, float]]:
    close = [m for m in map(_CLOSE.match, lines) if m]
    rates = [m for m in map(_RATE.match, lines) if m]
    if not close or not rates:
        raise EngineOutputError("gnubg printed no statistics of the match")
    c, r = close[-1], rates[-1]  # the last rate printed is the overall one
    return (int(c.group(1)), int(c.group(2))), (-float(r.group(1)), -float(r.group(2)))


async def popen_gnubg(
    path: str | None = None,
    *,
    plies: int | None = None,
    noise: float | None = None,
    settings: Sequence[str] = (),
    timeout: float | None = 120.0,
) -> GnubgProtocol:
    """gnubg started and ready (python-chess's ``popen_uci``): see :class:`GnubgProtocol`."""
    protocol = GnubgProtocol(path, plies=plies, noise=noise, settings=settings, timeout=timeout)
    await protocol.running()
    return protocol

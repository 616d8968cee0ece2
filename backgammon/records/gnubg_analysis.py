"""GNU Backgammon's own analysis, read from an SGF file it analysed: its verdict on every
play (the ranked candidates, the one played, luck, marks), on every cube decision (its
evaluations), and each game's statistics (``GS``), as gnubg stored them: nothing is
recomputed, so these are gnubg's numbers beside ours.

gnubg writes, on a move node, ``A[i][move E ver 3 p1..p5 equity plies…]…`` (``i`` the
played candidate), ``LU[luck]`` and a mark (``DO[]`` doubtful, ``BM[1]`` bad, ``BM[2]``
very bad); on a cube node ``DA[E ver 3 … p1..p5 x y p1..p5 x y]``; on each game's root
``GS[M:…][C:…][D:…]`` (gnubg's ``RestoreGS`` order).  The statistics hold no count of
close cube decisions, so the overall error rate takes it from gnubg's statistics.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from backgammon.records.errors import MatchFileError
from backgammon.records.sgf import game_nodes, point_of_letter

__all__ = [
    "GnubgAnalysis",
    "GnubgCandidate",
    "GnubgCube",
    "GnubgGame",
    "GnubgMove",
    "GnubgStats",
    "read_gnubg_analysis",
]

_MARKS = {"DO": "doubtful", "BM": "bad", "TE": "interesting", "IT": "interesting"}
_MOVE = re.compile(r"^[1-6][1-6]([a-z]*)$")
Pair = tuple[float, float]


@dataclass(frozen=True)
class GnubgCandidate:
    """One play gnubg ranked: its steps (from, to) for the player, the five probabilities
    after it (None for a rollout), its equity (EMG) and gnubg's depth (None: a rollout)."""

    steps: tuple[tuple[int, int], ...]
    probabilities: tuple[float, float, float, float, float] | None
    equity: float
    plies: int | None

    def __str__(self) -> str:
        return " ".join(
            f"{'bar' if s == 25 else s}/{'off' if t == 0 else t}" for s, t in self.steps
        )


@dataclass(frozen=True)
class GnubgMove:
    """gnubg's verdict on one play: the candidates best first, the index of the one
    played, its luck (EMG, None when not given) and mark ('' unmarked)."""

    game: int
    player: int
    dice: tuple[int, int]
    played: int
    candidates: tuple[GnubgCandidate, ...]
    luck: float | None
    mark: str

    @property
    def error(self) -> float:
        """What the play cost by gnubg's ranking (EMG, 0 for its best)."""
        return self.candidates[0].equity - self.candidates[self.played].equity


@dataclass(frozen=True)
class GnubgCube:
    """gnubg's evaluations at a cube decision: ``action`` is what was done there (double,
    take, drop, or the roll after a cube decision not taken); ``outputs`` its evaluations
    as stored (no double then double/take: five probabilities, then its two values)."""

    game: int
    player: int
    action: str
    outputs: tuple[tuple[float, ...], ...]
    mark: str


@dataclass(frozen=True)
class GnubgStats:
    """One game's statistics as gnubg stored them, per player (0, 1): unforced and total
    moves, the errors of checker play and of cube decisions (EMG, MWC), luck (EMG, MWC)."""

    unforced: tuple[int, int]
    moves: tuple[int, int]
    checker_error: tuple[Pair, Pair]
    cube_decisions: tuple[int, int]
    cube_error: tuple[Pair, Pair]
    luck: tuple[Pair, Pair]


@dataclass(frozen=True)
class GnubgGame:
    """One game's verdicts and statistics (None when gnubg did not analyse it)."""

    number: int
    moves: tuple[GnubgMove, ...]
    cubes: tuple[GnubgCube, ...]
    stats: GnubgStats | None


@dataclass(frozen=True)
class GnubgAnalysis:
    """gnubg's analysis of a match, as stored in its SGF file."""

    players: tuple[str, str]
    games: tuple[GnubgGame, ...]

    @property
    def analysed(self) -> bool:
        """Whether gnubg analysed every game (each has its statistics)."""
        return bool(self.games) and all(g.stats is not None for g in self.games)

    def _stats(self) -> list[GnubgStats]:
        if not self.analysed:
            raise MatchFileError("gnubg has not analysed every game of this file")
        return [g.stats for g in self.games if g.stats is not None]

    def unforced(self, player: int) -> int:
        """The player's plays with a choice, over the match."""
        return sum(s.unforced[player] for s in self._stats())

    def checker_error(self, player: int) -> float:
        """The player's checker-play errors over the match (EMG)."""
        return sum(s.checker_error[player][0] for s in self._stats())

    def cube_error(self, player: int) -> float:
        """The player's cube errors over the match (EMG)."""
        return sum(s.cube_error[player][0] for s in self._stats())

    def checker_rate(self, player: int) -> float:
        """gnubg's checker-play error rate (mEMG per unforced play)."""
        n = self.unforced(player)
        return 1000.0 * self.checker_error(player) / n if n else 0.0

    def error_rate(self, player: int, close_cube: int) -> float:
        """gnubg's overall error rate (mEMG per decision), given the player's close or
        actual cube decisions (gnubg's statistics count them; the file does not)."""
        n = self.unforced(player) + close_cube
        total = self.checker_error(player) + self.cube_error(player)
        return 1000.0 * total / n if n else 0.0


def _floats(tokens: list[str]) -> list[float]:
    return [float(t) for t in tokens]


def _candidate(value: str, player: int) -> GnubgCandidate:
    tokens = value.split()
    has_move = bool(tokens) and tokens[0] not in ("E", "R")
    letters, rest = (tokens[0], tokens[1:]) if has_move else ("", tokens)
    steps = tuple(
        (point_of_letter(letters[i], player), point_of_letter(letters[i + 1], player))
        for i in range(0, len(letters), 2)
    )
    if rest and rest[0] == "R":
        i = rest.index("Score") if "Score" in rest else -1
        if i < 0:
            raise MatchFileError(f"a rolled-out play without its score: {value[:60]!r}")
        return GnubgCandidate(steps, None, float(rest[i + 1]), None)
    if not rest or rest[0] != "E":
        raise MatchFileError(f"an analysed play gnubg did not write: {value[:60]!r}")
    body = rest[3:] if rest[1:2] == ["ver"] else rest[1:]
    numbers = _floats(body[:6])
    p = (numbers[0], numbers[1], numbers[2], numbers[3], numbers[4])
    return GnubgCandidate(steps, p, numbers[5], int(body[6].rstrip("C")))


def _mark(props: dict[str, list[str]]) -> str:
    for key, word in _MARKS.items():
        if key in props:
            return "very bad" if key == "BM" and props[key][0] == "2" else word
    return ""


def _stats(values: list[str]) -> GnubgStats | None:
    parts = {v[0]: v[2:].split() for v in values if len(v) > 2 and v[1] == ":"}
    if "M" not in parts:
        return None
    m = parts["M"]
    ints = [int(x) for x in m[:12]]
    err = _floats(m[12:16])
    cube_error: tuple[Pair, Pair] = ((0.0, 0.0), (0.0, 0.0))
    decisions = (0, 0)
    if "C" in parts:
        c = parts["C"]
        decisions = (int(c[0]), int(c[1]))
        f = _floats(c[20:44])
        cube_error = (
            (sum(f[0:12:2]), sum(f[1:12:2])),
            (sum(f[12:24:2]), sum(f[13:24:2])),
        )
    luck: tuple[Pair, Pair] = ((0.0, 0.0), (0.0, 0.0))
    if "D" in parts:
        d = _floats(parts["D"][10:14])
        luck = ((d[0], d[1]), (d[2], d[3]))
    return GnubgStats(
        (ints[0], ints[1]),
        (ints[2], ints[3]),
        ((err[0], err[1]), (err[2], err[3])),
        decisions,
        cube_error,
        luck,
    )


def _game(number: int, nodes: list[dict[str, list[str]]]) -> GnubgGame:
    moves: list[GnubgMove] = []
    cubes: list[GnubgCube] = []
    for props in nodes[1:]:
        colour = "W" if "W" in props else "B" if "B" in props else None
        if colour is None:
            continue
        player = 0 if colour == "W" else 1
        value = props[colour][0]
        if "DA" in props:
            words = props["DA"][0].split()
            body = words[3:] if words[1:2] == ["ver"] else words[1:]
            numbers = _floats([w for w in body[4:] if _is_number(w)])
            outputs = tuple(tuple(numbers[i : i + 7]) for i in range(0, len(numbers) - 6, 7))
            kind = value if value in ("double", "take", "drop") else "roll"
            mark = _mark(props) if kind != "roll" else ""  # there the mark is the play's
            cubes.append(GnubgCube(number, player, kind, outputs, mark))
        move = _MOVE.match(value)
        if move and "A" in props:
            index, *candidates = props["A"]
            ranked = tuple(_candidate(c, player) for c in candidates)
            played = int(index)
            if not 0 <= played < len(ranked):
                raise MatchFileError(f"gnubg's played index {played} is not among its plays")
            luck = float(props["LU"][0]) if "LU" in props else None
            dice = (int(value[0]), int(value[1]))
            moves.append(GnubgMove(number, player, dice, played, ranked, luck, _mark(props)))
    return GnubgGame(number, tuple(moves), tuple(cubes), _stats(nodes[0].get("GS", [])))


def _is_number(word: str) -> bool:
    try:
        float(word)
    except ValueError:
        return False
    return True


def read_gnubg_analysis(text: str) -> GnubgAnalysis:
    """gnubg's analysis in SGF ``text`` (a file gnubg saved after ``analyse match``)."""
    games = game_nodes(text)
    try:
        read = tuple(_game(i + 1, nodes) for i, nodes in enumerate(games))
    except (ValueError, IndexError) as exc:
        if isinstance(exc, MatchFileError):
            raise
        raise MatchFileError(f"gnubg's analysis cannot be read: {exc}") from exc
    root = games[0][0] if games and games[0] else {}
    players = (root.get("PW", ["White"])[0], root.get("PB", ["Black"])[0])
    return GnubgAnalysis(players, read)

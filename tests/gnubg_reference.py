"""Positions from played games and gnubg's answers for them (test and benchmark helper).

GNU Backgammon's own move generator comes from the PyPI package ``gnubg-nn`` (a test-only
dependency).  Games are played by gnubg's 0-ply bot with, now and then, a random legal play
so that odd positions (many checkers back, several on the bar, closed boards) show up too.
"""

from __future__ import annotations

import random
import re
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import gnubg_nn
import numpy as np

from backgammon import Position
from backgammon.evaluation.bearoff import position_index
from backgammon.evaluation.bearoff2 import N_SIDE
from backgammon.evaluation.cube import CubeState
from backgammon.evaluation.probabilities import game_over_probs
from backgammon.ids.gnubg import GameState, MatchIdFields, encode_match_id

Case = tuple[Position, int, int]


def to_gnubg(pos: Position) -> list[list[int]]:
    """gnubg's board: [not on roll, on roll], each 25 slots from its own side."""
    not_on_roll, on_roll = pos.arrays()
    return [list(not_on_roll), list(on_roll)]


def gnubg_results(pos: Position, d1: int, d2: int) -> set[str]:
    """gnubg's distinct results of a roll, as board keys with the mover still on roll."""
    return set(gnubg_nn.moves(to_gnubg(pos), d1, d2))


def our_results(pos: Position, d1: int, d2: int) -> set[str]:
    """Our distinct results of a roll, in the same key form as gnubg_results."""
    return {gnubg_nn.key_of_board(to_gnubg(pos.play(m).flip())) for m in pos.legal_moves((d1, d2))}


def played_game_cases(games: int, seed: int, explore: float = 0.15) -> Iterator[Case]:
    """Every (position, roll) met in games of gnubg 0-ply against itself."""
    rng = random.Random(seed)
    for _ in range(games):
        pos = Position.initial()
        while pos.outcome() is None:
            d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
            yield pos, d1, d2
            keys = gnubg_nn.moves(to_gnubg(pos), d1, d2)
            if not keys:
                pos = pos.flip()
                continue
            if rng.random() < explore:
                key = rng.choice(sorted(keys))
            else:
                steps = gnubg_nn.best_move(to_gnubg(pos), d1, d2)
                key = gnubg_nn.key_of_board(
                    to_gnubg(pos.play([(s, t, False) for s, t in steps]).flip())
                )
            after = gnubg_nn.board_from_position_key(key)
            pos = Position.from_arrays(after[0], after[1]).flip()


def all_rolls(pos: Position) -> Iterator[Case]:
    """The position with each of the 21 rolls."""
    for d1 in range(1, 7):
        for d2 in range(1, d1 + 1):
            yield pos, d1, d2


def bearoff_cases(count: int, seed: int) -> Iterator[Case]:
    """Random bear-offs with gaps, sometimes with a straggler outside or on the bar."""
    rng = random.Random(seed)
    for _ in range(count):
        b = [0] * 26
        n = rng.randint(1, 14)
        points = rng.sample(range(1, 7), rng.randint(1, 6))
        for _ in range(n):
            b[rng.choice(points)] += 1
        if rng.random() < 0.2:
            b[rng.choice([7, 8, 9, 12, 20, 25])] += 1
        # Opponent: a few checkers somewhere on its home side (our 19-24) or our home.
        for _ in range(rng.randint(1, 15)):
            q = rng.choice(
                [0, 1, 2, 3, 4, 5, 6, 19, 20, 21, 22, 23, 24]
                if rng.random() < 0.3
                else [19, 20, 21, 22, 23, 24]
            )
            if b[q] <= 0:
                b[q] -= 1
        yield Position(b), rng.randint(1, 6), rng.randint(1, 6)


def blocked_cases(count: int, seed: int) -> Iterator[Position]:
    """Positions where the opponent holds many points, so that often only part of a roll
    can be played: where the maximum-dice and larger-die rules (R9) decide."""
    rng = random.Random(seed)
    made = 0
    while made < count:
        b = [0] * 26
        closed = rng.sample(range(1, 25), rng.randint(5, 9))
        for p in closed:
            b[p] = -2
        spare = 15 - 2 * len(closed)
        if spare > 0 and rng.random() < 0.5:
            b[0] = -min(spare, rng.randint(0, 2))
        free = [p for p in range(1, 26) if b[p] == 0]
        mine = rng.randint(1, 15)
        for _ in range(mine):
            b[rng.choice(free)] += 1
        try:
            yield Position(b)
        except ValueError:
            continue
        made += 1


class Comparison:
    """Tallies of a differential run: how many cases, of which kinds, and the mismatches."""

    def __init__(self) -> None:
        self.cases = 0
        self.kinds: dict[str, int] = {}
        self.mismatches: list[str] = []

    def check(self, pos: Position, d1: int, d2: int) -> None:
        """Compare one case with gnubg and count what kind of case it is."""
        self.cases += 1
        plays = pos.legal_moves((d1, d2))
        ours = {gnubg_nn.key_of_board(to_gnubg(pos.play(m).flip())) for m in plays}
        theirs = gnubg_results(pos, d1, d2)
        if ours != theirs or len(plays) != len(ours):
            self.mismatches.append(
                f"{pos.position_id()} {d1}{d2}: ours {len(ours)}, gnubg {len(theirs)}"
            )
        for kind in self.kinds_of(pos, d1, d2, plays):
            self.kinds[kind] = self.kinds.get(kind, 0) + 1

    @staticmethod
    def kinds_of(pos: Position, d1: int, d2: int, plays: list) -> Iterator[str]:  # type: ignore[type-arg]
        b = pos.board
        if d1 == d2:
            yield "doubles"
        if b[25]:
            yield "bar entry"
            if all(b[p] <= -2 for p in range(19, 25)):
                yield "closed board"
        if not plays:
            yield "no play"
        if any(t == 0 for m in plays for _, t, _ in m):
            yield "bear-off"
        full = 4 if d1 == d2 else 2
        if plays and len(plays[0]) < full:
            yield "partial roll (R9)"
            if d1 != d2 and pos.legal_moves((d1, d1)) and pos.legal_moves((d2, d2)):
                yield "larger-die rule (R9)"
        if d1 != d2:
            for s in range(1, 26):
                if (
                    b[s] > 0
                    and s - d1 > 0
                    and s - d2 > 0
                    and b[s - d1] < -1
                    and b[s - d2] < -1
                    and s - d1 - d2 > 0
                    and b[s - d1 - d2] >= -1
                ):
                    yield "blocked intermediate (R7)"
                    break


class CubeCase(NamedTuple):
    """A match cube decision with gnubg's answer (gnubg-nn's 0-ply probabilities)."""

    position: Position
    probs: tuple[float, float, float, float, float]
    length: int
    away: tuple[int, int]  # (side on roll, opponent)
    gnubg_doubles: bool  # a double that is not too good
    gnubg_takes: bool


def cube_cases(count: int, seed: int) -> list[CubeCase]:
    """Positions from gnubg's self-play where the side on roll has 55-92% cubeless chances
    (cube decisions are not trivial there), each at a random match score (pre-Crawford, or
    post-Crawford with the side on roll trailing) with a centred cube, and gnubg's decision."""
    rng = random.Random(seed)
    cases = []
    for pos, _, _ in played_game_cases(4000, seed=seed):
        if pos.is_game_over() or rng.random() < 0.5:
            continue
        probs = gnubg_nn.probabilities(to_gnubg(pos), 0)
        if 0.55 <= probs[0] <= 0.92:
            cases.append((pos, tuple(float(v) for v in probs)))
        if len(cases) >= count:
            break
    out = []
    for pos, probs in cases:
        length = rng.choice([3, 5, 7, 9, 11])
        if rng.random() < 0.2:
            x_away, o_away = rng.randint(2, length), 1
        else:
            x_away, o_away = rng.randint(2, length), rng.randint(2, length)
        gnubg_nn.set.score(o_away, x_away, 0)  # gnubg-nn: (opponent away, side on roll away)
        key = gnubg_nn.key_of_board(to_gnubg(pos))
        double, take, too_good, *_ = gnubg_nn.evaluate_cube_decision(key, 0, -1, b"X", 1, probs)
        p5 = (probs[0], probs[1], probs[2], probs[3], probs[4])
        out.append(
            CubeCase(pos, p5, length, (x_away, o_away), bool(double) and not too_good, bool(take))
        )
    return out


GNUBG = "/usr/games/gnubg"
_PROBS = re.compile(r"^\s+([\d.]+) ([\d.]+) ([\d.]+) - ([\d.]+) ([\d.]+) ([\d.]+)\s*$")


@dataclass
class GnubgCube:
    """One cube decision: the position (side on roll's view), our cube state, and what
    gnubg printed (its probabilities and action) once it has run."""

    position: Position
    state: CubeState
    probs: tuple[float, float, float, float, float] = (0.0, 0.0, 0.0, 0.0, 0.0)
    doubles: bool = False
    takes: bool = True


def _match_id(state: CubeState) -> str:
    """gnubg's Match ID with player 0 (the side on roll) to roll."""
    owner = None if state.cube_owner == 0 else (0 if state.cube_owner == 1 else 1)
    return encode_match_id(
        MatchIdFields(
            cube_value=state.cube_value,
            cube_owner=owner,
            dice_owner=0,
            crawford=state.crawford,
            game_state=GameState.PLAYING,
            turn=0,
            match_length=state.match_length,
            score=state.score,
            no_jacoby=not state.jacoby,
        )
    )


def ask_gnubg_cube(cases: list[GnubgCube], plies: int = 0) -> float:
    """Fill in Debian gnubg's probabilities and proper cube actions at ``plies`` (one gnubg
    process; every case must allow a double); its seconds."""
    cmds = [
        "set output digits 5",
        f"set evaluation cubedecision evaluation plies {plies}",
        "set player 0 human",
        "set player 1 human",
    ]
    for c in cases:
        money = c.state.is_money
        cmds += [
            "new session" if money else f"new match {c.state.match_length}",
            f"set jacoby {'on' if c.state.jacoby else 'off'}" if money else "",
            "set beavers off",
            f"set matchid {_match_id(c.state)}",
            f"set board {c.position.position_id()}",
            "hint",
        ]
    start = time.perf_counter()
    out = subprocess.run(
        [GNUBG, "-t", "-q"],
        input="\n".join(x for x in cmds if x) + "\n",
        capture_output=True,
        text=True,
        timeout=3600,
        check=False,
    ).stdout
    seconds = time.perf_counter() - start
    blocks = out.split("Cube analysis")[1:]
    if len(blocks) != len(cases):
        raise SystemExit(f"gnubg gave {len(blocks)} cube analyses for {len(cases)} cases")
    for c, block in zip(cases, blocks, strict=True):
        lines = block.splitlines()
        found = [m for m in map(_PROBS.match, lines) if m]
        w, wg, wbg, _, lg, lbg = (float(v) for v in found[0].groups())
        c.probs = (w, wg, wbg, lg, lbg)
        action = next(line for line in lines if line.startswith("Proper cube action:"))
        words = action.split(":", 1)[1].strip().lower()
        c.doubles = words.startswith(("double", "redouble"))
        c.takes = "pass" not in words
    return seconds


# ---------------------------------------------------------------------------- two-sided bear-offs

GNUBG_TS = Path(gnubg_nn.__file__).with_name("data") / "gnubg_ts0.bd"
"""gnubg's two-sided bear-off database (6 checkers on 6 points), shipped in gnubg-nn; the
same bytes as the one Debian's gnubg makes at install (/var/lib/gnubg) and reads."""


def board_of(mine: tuple[int, ...], theirs: tuple[int, ...]) -> list[int]:
    """The 26-number board with these home boards (each counted from its own side)."""
    b = [0] * 26
    b[1:7] = mine
    for p, c in enumerate(theirs):
        b[24 - p] = -c
    return b


def board_from_points(mine: dict[int, int], theirs: dict[int, int]) -> np.ndarray:
    """A board from the side on roll's checkers and the other side's, each by its own point
    numbers (25: the bar)."""
    b = np.zeros(26, dtype=np.int64)
    for point, n in mine.items():
        b[point] += n
    for point, n in theirs.items():
        b[25 - point] -= n
    return b


def gnubg_two_sided_table() -> np.ndarray:
    """gnubg's two-sided database (shipped in gnubg-nn) as ``(924, 924, 4)`` equities in our
    index order.  Its file is a 40-byte header, then per (on roll, opponent) in gnubg's
    index order four 16-bit equities (0x8000 + 32767 x equity): cubeless, cube owned,
    centred, owned by the opponent."""
    raw = np.fromfile(GNUBG_TS, dtype="<u2", offset=40).reshape(N_SIDE, N_SIDE, 4)
    equities = (raw.astype(np.int64) - 0x8000) / 32767.0
    ours = np.zeros(N_SIDE, dtype=np.int64)  # gnubg's index -> ours
    for k in range(1, N_SIDE):
        ours[k] = position_index(gnubg_nn.bearoff_id_2_pos(k))
    assert sorted(ours.tolist()) == list(range(N_SIDE))
    table = np.empty_like(equities)
    table[np.ix_(ours, ours)] = equities
    return table


def ask_gnubg_money_hints(positions: list[Position]) -> list[tuple[float, dict[str, float], str]]:
    """Debian gnubg's 0-ply cube analysis of each position (money, centred cube, side on roll
    to play; one gnubg process): its cubeless equity, its cubeful equities by name (No
    double, Double take, Double pass) and its proper cube action."""
    cmds = ["set output digits 5", "set player 0 human", "set player 1 human"]
    cmds += ["set evaluation cubedecision evaluation plies 0"]
    for pos in positions:
        cmds += [
            "new session",
            "set jacoby off",
            "set beavers off",
            f"set matchid {_match_id(CubeState())}",
            f"set board {pos.position_id()}",
            "hint",
        ]
    out = subprocess.run(
        [GNUBG, "-t", "-q"],
        input="\n".join(cmds) + "\n",
        capture_output=True,
        text=True,
        timeout=3600,
        check=False,
    ).stdout
    blocks = out.split("Cube analysis")[1:]
    if len(blocks) != len(positions):
        raise SystemExit(f"gnubg gave {len(blocks)} cube analyses for {len(positions)} cases")
    answers = []
    for block in blocks:
        lines = [line.strip() for line in block.splitlines()]
        cubeless = float(next(line for line in lines if "cubeless equity" in line).split()[-1])
        values = {}
        for line in lines:
            m = re.match(r"^\d\. (.*?)\s+([+-]\d\.\d+)", line)
            if m:
                values[m.group(1).replace(",", "")] = float(m.group(2))
        action = next(line for line in lines if line.startswith("Proper cube action:"))
        answers.append((cubeless, values, action.split(":", 1)[1].strip()))
    return answers


class GnubgNet:
    """gnubg's 0-ply net (gnubg-nn) as an :class:`~backgammon.evaluation.evaluator.Evaluator`:
    our analysis with it measures our definitions against gnubg's, its net's error aside."""

    def evaluate(self, boards: np.ndarray) -> np.ndarray:
        b = np.asarray(boards)
        over, exact = game_over_probs(b)
        out = np.array(exact, dtype=np.float64)
        for i, row in enumerate(b):
            if not over[i]:
                not_on_roll, on_roll = Position(tuple(int(v) for v in row)).arrays()
                out[i] = gnubg_nn.probabilities([list(not_on_roll), list(on_roll)], 0)
        return out

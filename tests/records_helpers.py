"""Helpers for the match-file tests: random legal matches and the real gnubg."""

from __future__ import annotations

import random
import subprocess
from pathlib import Path

from backgammon.core.position import Position
from backgammon.play.dice import FixedDice
from backgammon.play.match import ActionKind, Match, Phase, ResignationError
from backgammon.play.record import (
    Action,
    GameStart,
    MatchRecord,
    OpeningRoll,
    Pass,
    Play,
    Reject,
    Roll,
)
from backgammon.play.rules import Rules
from backgammon.records.walk import Visitor, walk

GNUBG = "/usr/games/gnubg"

# What gnubg prints when an import goes wrong (import.c, sgf.c).
GNUBG_COMPLAINTS = (
    "WARNING",
    "Warning",
    "Unrecognised",
    "not a valid",
    "doesn't follow",
    "garbage",
    "No game in progress",
    "Illegal",
    "illegal",
    "Invalid",
    "invalid",
    "rror",
)


def random_game(
    rng: random.Random,
    m: Match,
    resign_rate: float = 0.01,
    double_rate: float = 0.05,
    larger_first: bool = True,
    greedy: bool = False,
) -> dict[int, tuple[int, int]]:
    """Play one game of random legal play on ``m`` (rules R3, R10, R13, R21-R29); the dice a
    file shows for each closed-out player's dance (R13), by the pass's index in the game,
    as gnubg writes that turn: a roll with no play."""
    start = m.game_number
    danced: dict[int, tuple[int, int]] = {}

    def entries() -> tuple[Action, ...]:
        return m.record.games[-1]

    def dance() -> None:
        k = len(entries()) - 1
        danced[k] = (rng.randint(1, 6), rng.randint(1, 6))

    a, b = rng.sample(range(1, 7), 2)  # R3: the opening roll is never a double
    first = True
    while m.game_number == start and not m.is_over:
        game = entries()
        if isinstance(game[-1], Pass) and len(game) - 1 not in danced:
            dance()  # the Match passed the closed-out player already
            continue
        p = m.turn if not first else (0 if a > b else 1)
        assert p is not None
        closed = not first and m.position.is_closed_out  # the Match waits for the pass
        if not first and rng.random() < resign_rate:
            dice = (rng.randint(1, 6), rng.randint(1, 6))
            if rng.random() < 0.5 and m.position.legal_moves(dice) and not closed:
                m.roll((max(dice), min(dice)), player=p)
            m.act(ActionKind.RESIGN, level=rng.randint(1, 3), player=p)
            m.act(ActionKind.ACCEPT, player=1 - p)
            break
        length = m.rules.match_length or 0
        may_double = (
            not first
            and m.may_double(p)
            and m.cube_value < 64
            and (length == 0 or m.score[p] + m.cube_value < length)  # R29
        )
        if may_double and rng.random() < double_rate:
            m.double(player=p)
            if rng.random() < 0.7:
                m.take(player=1 - p)
            else:
                m.drop(player=1 - p)
                break
        dice = (max(a, b), min(a, b)) if first else (rng.randint(1, 6), rng.randint(1, 6))
        if larger_first or rng.random() < 0.5:
            dice = (max(dice), min(dice))
        else:
            dice = (min(dice), max(dice))
        if closed:
            m.roll(player=p)  # R13: the turn passes
            dance()
            continue
        m.roll((a, b) if first else dice)
        first = False
        if m.phase is not Phase.MOVE:
            continue
        position = m.position
        moves = position.legal_moves(m.dice or dice)
        if greedy:  # hit and close the home board: reaches closed-out turns (R13)
            rng.shuffle(moves)
            moves.sort(key=lambda mv: -_blocking(position.play(mv)))
        m.move(rng.choice(moves) if not greedy else moves[0], player=p)
    return danced


def _blocking(after: Position) -> int:
    """How well the side that just moved blocks (``after`` is seen from its opponent)."""
    b = after.board
    return 10 * b[25] + sum(1 for p in range(19, 25) if b[p] <= -2)


def _with_dances(
    m: Match, dances: list[dict[int, tuple[int, int]]], players: tuple[str, str]
) -> MatchRecord:
    """The match's record with the dice of each dance kept on its pass (R13)."""
    games = tuple(
        tuple(
            Pass(a.player, danced[k]) if isinstance(a, Pass) and k in danced else a
            for k, a in enumerate(game)
        )
        for game, danced in zip(m.record.games, [*dances, {}], strict=False)
    )
    return MatchRecord(m.record.rules, games, players=players)


def random_record(
    seed: int, length: int, max_games: int = 3, larger_first: bool = True
) -> MatchRecord:
    """A random legal match to ``length`` (0: a money session of ``max_games`` games)."""
    rng = random.Random(seed)
    rules = Rules.match(length) if length else Rules.money()
    m = Match(rules=rules, dice=FixedDice(()))
    dances: list[dict[int, tuple[int, int]]] = []
    while len(dances) < max_games and not m.is_over:
        dances.append(random_game(rng, m, resign_rate=0.02, larger_first=larger_first))
    return _with_dances(m, dances, ("alice", "bob"))


class _Signature(Visitor):
    """Each game's entries, a play as the board it leaves (player 0's side)."""

    def __init__(self) -> None:
        self.games: list[list[object]] = []

    def begin_game(self, match: Match, start: GameStart) -> None:
        self.games.append([("score", start.score)])

    def visit_step(self, match: Match, step: Action) -> None:
        if isinstance(step, Play):
            after = match.position.play(step.move)  # from the roller's opponent
            board = after.board if step.player else after.flip().board
            self.games[-1].append(("play", step.player, board))
        elif isinstance(step, Pass):
            self.games[-1].append(("pass", step.player, step.dice))
        elif isinstance(step, Reject):  # a file holds no rejected resignation
            self.games[-1].pop()
        else:
            self.games[-1].append(step)

    def visit_automatic(self, match: Match, step: Play | Pass) -> None:
        kind = "play" if isinstance(step, Play) else "pass"
        self.games[-1].append((kind, step.player, getattr(step, "dice", None)))

    def end_game(self, match: Match, end: object) -> None:
        self.games[-1].append(("end", end))


def play_signature(record: MatchRecord) -> list[list[object]]:
    """What two records must share to hold the same match: per game, each entry with
    the position after a play (not the order its steps were written in) and the end; a
    rejected resignation is left out, as a file leaves it out."""
    sig = _Signature()
    walk(record, sig)
    return [g for g in sig.games if len(g) > 1]


def run_gnubg(commands: list[str], cwd: Path | None = None, timeout: float = 120) -> str:
    """Run ``gnubg -t -q`` with commands on stdin; its whole output."""
    done = subprocess.run(
        [GNUBG, "-t", "-q"],
        input="\n".join(commands) + "\n",
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd,
        check=False,
    )
    return done.stdout + done.stderr


def complaints(output: str) -> list[str]:
    """The lines of gnubg's output that report a problem."""
    return [line for line in output.splitlines() if any(c in line for c in GNUBG_COMPLAINTS)]


def _try_resign(m: Match, rng: random.Random) -> bool:
    """Offer a random resignation; after a rejected one, a smaller offer is refused (and
    leaves the match as it was), as in gnubg."""
    try:
        m.resign(rng.choice(["single", "gammon", "backgammon"]))
    except ResignationError:
        return False
    return True


def random_match(seed: int, length: int, max_games: int = 3) -> Match:
    """Seeded random legal play through :class:`Match` (a money session for length 0)."""
    rng = random.Random(seed)
    m = Match(length=length) if length else Match()
    while not m.is_over and m.game_number <= max_games:
        phase = m.phase
        if phase is Phase.OPENING:
            if m.game_number == max_games and not length and m.record.games[-1][1:]:
                break
            m.roll(tuple(rng.sample(range(1, 7), 2)))  # no ties: files do not hold them
        elif phase is Phase.DOUBLED:
            m.take() if rng.random() < 0.7 else m.drop()
        elif phase is Phase.RESIGNED:
            m.accept_resignation() if rng.random() < 0.8 else m.reject_resignation()
        elif phase is Phase.ROLL:
            r = rng.random()
            if r < 0.05 and m.may_double():
                m.double()
            elif r < 0.06 and _try_resign(m, rng):
                pass
            elif m.position.is_closed_out:
                m.roll()
            else:
                m.roll((rng.randint(1, 6), rng.randint(1, 6)))
        else:
            moves = m.legal_moves()
            if not (rng.random() < 0.01 and _try_resign(m, rng)):
                m.move(rng.choice(moves))
        if not length and m.game_number > max_games:
            break
    return m


def closed_out_game() -> MatchRecord:
    """A money game (greedy blocking play, the first seed that gives one) where a player on
    the bar faces a closed board and dances, the dice of the dance kept on its pass."""
    for seed in range(500):
        m = Match(rules=Rules.money(), dice=FixedDice(()))
        danced = random_game(random.Random(seed), m, 0, 0, greedy=True)
        if danced:
            return _with_dances(m, [danced], ("a", "b"))
    raise AssertionError("no closed-out turn in the scripted game")


def beavered_money_match() -> Match:
    """A money game with Jacoby: double, beaver, raccoon, take, then a resigned gammon at
    cube 8 (R20-R21, R31-R32)."""
    m = Match(rules=Rules.money(jacoby=True, beavers=True, raccoons=True))
    m.roll((3, 1))
    m.move("8/5 6/5")
    m.double()
    m.beaver()
    m.raccoon()
    m.take()
    m.roll((6, 5))
    m.move("24/13")
    m.resign("gammon")
    m.accept_resignation()
    return m


def beavered_then_played() -> Match:
    """A money game: double, beaver, take, then the doubler rolls and plays (gnubg writes no
    line for that take)."""
    m = Match(rules=Rules.money(beavers=True))
    m.roll((1, 3))
    m.move("8/5 6/5")
    m.double()
    m.beaver()
    m.take()
    m.roll((4, 2))
    m.move("8/4 6/4")
    return m


def written(game: tuple[Action, ...]) -> list[object]:
    """Each entry of a record's game that a .mat file writes (``mat.rows``), a play as
    ``(player, dice, steps)`` with the dice of its roll, a roll not played as
    ``(player, dice, None)`` and a dance as ``(player, dice, ())``."""
    from backgammon.records import mat

    shown = {id(a) for a, _ in mat.rows(game)}
    out: list[object] = []
    dice: tuple[int, int] | None = None
    for a in game:
        if isinstance(a, OpeningRoll | Roll):
            dice = a.dice
        if id(a) not in shown:
            continue
        if isinstance(a, Play):
            out.append((a.player, dice, tuple(a.move)))
        elif isinstance(a, OpeningRoll | Roll):
            out.append(
                (
                    0
                    if isinstance(a, OpeningRoll) and a.die0 > a.die1
                    else getattr(a, "player", 1),
                    dice,
                    None,
                )
            )
        elif isinstance(a, Pass) and a.dice is not None:
            out.append((a.player, a.dice, ()))
        else:
            out.append(a)
    return out

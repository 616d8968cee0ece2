"""Helpers for the match-file tests: random legal matches and the real gnubg."""

from __future__ import annotations

import random
import subprocess
from pathlib import Path

from backgammon.core.position import Position
from backgammon.play.match import Match, Phase, ResignationError
from backgammon.play.rules import Rules
from backgammon.records.matchfile import (
    FileAction,
    FileDouble,
    FileDrop,
    FileResign,
    FileRoll,
    FileTake,
    GameFile,
    MatchFile,
    apply_action,
    game_end,
    reading_match,
    unwritten_pass,
)

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
    number: int,
    score: tuple[int, int],
    length: int,
    crawford_game: bool,
    resign_rate: float = 0.01,
    double_rate: float = 0.05,
    larger_first: bool = True,
    greedy: bool = False,
) -> GameFile:
    """One game of random legal play (rules R3, R10, R13, R21-R29), as the file model: a
    closed-out player's turn is written as gnubg writes it, a roll that dances."""
    m = reading_match()
    actions: list[FileAction] = []

    def do(action: FileAction) -> None:
        apply_action(m, action)
        actions.append(action)

    a, b = rng.sample(range(1, 7), 2)  # R3: the opening roll is never a double
    opener = 0 if a > b else 1
    first = True
    while game_end(m, 1) is None:
        closed = unwritten_pass(m, actions)
        passed = closed is not None and closed[1]  # the Match passed it already (R13)
        p = opener if first else closed[0] if closed is not None else m.turn
        assert p is not None
        if not first and not passed and rng.random() < resign_rate:
            dice = (rng.randint(1, 6), rng.randint(1, 6))
            if rng.random() < 0.5 and m.position.legal_moves(dice):
                do(FileRoll(p, (max(dice), min(dice)), (), played=False))
            do(FileResign(p, rng.randint(1, 3)))
            break
        may_double = (
            not first
            and not crawford_game
            and m.may_double(p)
            and m.cube_value < 64
            and (length == 0 or score[p] + m.cube_value < length)  # R29
        )
        if may_double and rng.random() < double_rate:
            do(FileDouble(p, m.cube_value * 2))
            if rng.random() < 0.7:
                do(FileTake(1 - p))
            else:
                do(FileDrop(1 - p))
                break
        dice = (max(a, b), min(a, b)) if first else (rng.randint(1, 6), rng.randint(1, 6))
        first = False
        if larger_first or rng.random() < 0.5:
            dice = (max(dice), min(dice))
        else:
            dice = (min(dice), max(dice))
        position = m.position
        moves = [] if passed else position.legal_moves(dice)
        if greedy and moves:  # hit and close the home board: reaches closed-out turns (R13)
            rng.shuffle(moves)
            moves.sort(key=lambda mv: -_blocking(position.play(mv)))
        move = (rng.choice(moves) if not greedy else moves[0]) if moves else ()
        do(FileRoll(p, dice, tuple(move)))
    return GameFile(number, score, tuple(actions), game_end(m, 1))


def _blocking(after: Position) -> int:
    """How well the side that just moved blocks (``after`` is seen from its opponent)."""
    b = after.board
    return 10 * b[25] + sum(1 for p in range(19, 25) if b[p] <= -2)


def random_record(
    seed: int, length: int, max_games: int = 3, larger_first: bool = True
) -> MatchFile:
    """A random legal match to ``length`` (0: a money session of ``max_games`` games)."""
    rng = random.Random(seed)
    score = [0, 0]
    games: list[GameFile] = []
    crawford_seen = False
    while len(games) < max_games and (length == 0 or max(score) < length):
        n = length
        crawford_game = bool(
            n > 1 and not crawford_seen and ((score[0] == n - 1) != (score[1] == n - 1))
        )
        crawford_seen = crawford_seen or crawford_game
        game = random_game(
            rng,
            len(games) + 1,
            (score[0], score[1]),
            length,
            crawford_game,
            resign_rate=0.02,
            larger_first=larger_first,
        )
        games.append(game)
        assert game.end is not None
        score[game.end.winner] += game.end.points
    return MatchFile(
        length=length, players=("alice", "bob"), games=tuple(games), crawford=length > 1
    )


def play_signature(record: MatchFile) -> list[list[tuple[object, ...]]]:
    """What two records must share to hold the same match: per game, each action with
    the position after a play (not the order its steps were written in) and the end."""
    out: list[list[tuple[object, ...]]] = []
    for game in record.games:
        m = reading_match()
        sig: list[tuple[object, ...]] = [("score", game.score)]
        for action in game.actions:
            if isinstance(action, FileRoll):
                # The roller's side: the initial position, the Match's, or (a closed-out
                # player the Match passed already) the other side of it.
                before = m.position if m.on_roll in (None, action.player) else m.position.flip()
                after = before.play(action.steps)  # from the roller's opponent
                board = after.board if action.player else after.flip().board
                sig.append(("roll", action.player, action.dice, action.played, board))
            else:
                fields = [v for k, v in vars(action).items() if k != "line"]
                sig.append((type(action).__name__, *fields))
            apply_action(m, action)
        sig.append(("end", game.end))
        out.append(sig)
    return out


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


def closed_out_game() -> GameFile:
    """A game (greedy blocking play, the first seed that gives one) where a player on the
    bar faces a closed board and dances."""
    for seed in range(500):
        game = random_game(random.Random(seed), 1, (0, 0), 0, False, 0, 0, greedy=True)
        m = reading_match()
        for k, a in enumerate(game.actions):
            closed = unwritten_pass(m, game.actions[:k])
            if isinstance(a, FileRoll) and closed is not None and closed[0] == a.player:
                assert a.steps == ()
                return game
            apply_action(m, a)
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

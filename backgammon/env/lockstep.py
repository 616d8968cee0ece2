"""The compiled stepping of many games at once (numba), for :mod:`backgammon.env.batch`.

Every game of a batch is a row of a few arrays (:class:`Games`); one call of :func:`step`
makes each game's action, then every automatic step after it (rolls, lost turns, the
opening, the next game or episode, and the opponent's decisions when there is one), in
place (:mod:`backgammon.env.lockview` writes what the agent sees).  The legal plays and
their action numbers come from the rollouts' kernel
(:func:`backgammon.evaluation.children.kept_plays`), named as :mod:`backgammon.env.table`
names them; the cube, the scores, Crawford and the ends of games are those of
:mod:`backgammon.play.state`, written again here for speed and held to it by
``tests/env/test_env_batch.py``, which replays thousands of batched games through
:class:`~backgammon.play.match.Match`.

Dice come from a counter-based generator: a game's row ``k`` (counted across processes)
draws from ``splitmix64(key_k + counter)``, so a seed gives the same games at any batch size
and however the rows are shared out.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt
from numba import njit

from backgammon.core.position import Position
from backgammon.env.lowlevel import borrow, copy_board
from backgammon.env.table import DOUBLE, DROP, N_ACTIONS, POINTS, ROLL, TAKE
from backgammon.evaluation.children import _KEYS, apply_step, kept_plays
from backgammon.players.pubeval import CONTACT_WEIGHTS, RACE_WEIGHTS

__all__ = [
    "OPPONENTS",
    "Games",
    "bot_action",
    "new_games",
    "resume",
    "row_keys",
    "start",
    "step",
    "to_act",
]

OPPONENTS = {"self": 0, "random": 1, "pubeval": 2}
"""Who plays player 1: nobody (the caller acts for both), or a bot played inside a step."""

OPENING, ROLLING, MOVING, DOUBLED, HALF, OVER = 0, 1, 2, 3, 4, 5
"""A game's phase: before the opening roll; a player who may double must choose to roll or
double; the dice are rolled and must be played; a double awaits an answer; a double of 3-4
steps has its first action made; the episode is over (only in a row set to ``STOP``)."""

MAX_THROWS = 64
"""Throws one game may make in a step (its log; the opening's ties repeat)."""

_INITIAL = np.array(Position.initial().board, dtype=np.int8)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


class Games(NamedTuple):
    """The state of a batch, one row per game.  ``board`` is the side on roll's view;
    ``plays`` the boards each legal play leaves (the mover's view) and ``names`` their one or
    two actions (-1: none), ``n_plays`` how many; ``need`` the plays a game found that did
    not fit (then :func:`resume` after growing the arrays).  The scalars of a game are
    columns of one ``int64`` array, ``state`` (the fields before ``board`` are its views):
    the compiled code is handed a few arrays, not one per field (numba counts a reference
    up and down for every array a call is given, which cost more than the rules)."""

    turn: npt.NDArray[np.int64]
    phase: npt.NDArray[np.int64]
    dice: npt.NDArray[np.int64]
    cube: npt.NDArray[np.int64]
    owner: npt.NDArray[np.int64]
    score: npt.NDArray[np.int64]
    crawford: npt.NDArray[np.int64]  # 0 no, 1 the Crawford game, 2 after it
    half: npt.NDArray[np.int64]
    key: npt.NDArray[np.uint64]
    counter: npt.NDArray[np.int64]
    n_plays: npt.NDArray[np.int64]
    need: npt.NDArray[np.int64]
    n_throws: npt.NDArray[np.int64]
    throws: npt.NDArray[np.int64]
    state: npt.NDArray[np.int64]
    board: npt.NDArray[np.int8]
    plays: npt.NDArray[np.int8]
    names: npt.NDArray[np.int16]
    rewards: npt.NDArray[np.float32]
    dones: npt.NDArray[np.bool_]


TURN, PHASE, DIE, CUBE, OWNER, SCORE, CRAWFORD, HALF_STEPS = 0, 1, 2, 4, 5, 6, 8, 9
KEY, COUNTER, N_PLAYS, NEED, N_THROWS, DONE = 10, 11, 12, 13, 14, 15
STOP, WINNER, POINTS_WON, RESULT, THROWS = 16, 17, 18, 19, 20
"""The columns of ``Games.state`` (``DIE`` and ``SCORE`` two each, ``THROWS`` the log;
``DONE``: the episode ended in this step, copied to ``dones``; ``STOP``: the row stays
``OVER`` at its episode's end instead of starting the next; the last game's end: its
``WINNER``, ``POINTS_WON`` and ``RESULT``, 1-3 the kind of win, 0 a drop, -1 none)."""
_WIDTH = THROWS + 2 * MAX_THROWS


def new_games(n: int, capacity: int) -> Games:
    """Arrays for ``n`` games with room for ``capacity`` plays a game."""
    st = np.zeros((n, _WIDTH), np.int64)
    st[:, CUBE] = 1
    st[:, OWNER] = -1
    st[:, HALF_STEPS] = -1
    st[:, RESULT] = -1
    return Games(
        turn=st[:, TURN],
        phase=st[:, PHASE],
        dice=st[:, DIE : DIE + 2],
        cube=st[:, CUBE],
        owner=st[:, OWNER],
        score=st[:, SCORE : SCORE + 2],
        crawford=st[:, CRAWFORD],
        half=st[:, HALF_STEPS],
        key=st[:, KEY].view(np.uint64),
        counter=st[:, COUNTER],
        n_plays=st[:, N_PLAYS],
        need=st[:, NEED],
        n_throws=st[:, N_THROWS],
        throws=st[:, THROWS:].reshape(n, MAX_THROWS, 2),
        state=st,
        board=np.zeros((n, 26), np.int8),
        plays=np.zeros((n, capacity, 26), np.int8),
        names=np.zeros((n, capacity, 2), np.int16),
        rewards=np.zeros((n, 2), np.float32),
        dones=np.zeros(n, np.bool_),
    )


def row_keys(seed: int, first: int, n: int) -> npt.NDArray[np.uint64]:
    """The generator keys of rows ``first`` to ``first + n - 1`` of ``seed``."""
    keys: npt.NDArray[np.uint64] = _row_keys(np.uint64(seed % 2**64), np.uint64(first), n)
    return keys


@njit(cache=True)
def _mix(x: Any) -> Any:
    """splitmix64's finaliser: a well-mixed 64-bit word of ``x``."""
    x = (x ^ (x >> np.uint64(30))) * _M1
    x = (x ^ (x >> np.uint64(27))) * _M2
    return x ^ (x >> np.uint64(31))


@njit(cache=True)
def _row_keys(seed: Any, first: Any, n: int) -> Any:
    out = np.empty(n, np.uint64)
    base = _mix(seed * _GOLDEN + np.uint64(1))
    for i in range(n):
        out[i] = _mix(base + (first + np.uint64(i)) * _GOLDEN)
    return out


@njit(cache=True)
def _below(s: Any, i: int, n: int) -> int:
    """A uniform number 0 to ``n - 1`` (n <= 2**16) from row ``i``'s stream, by rejection."""
    if n == 1:
        return 0
    bits = 1
    while (1 << bits) < n:
        bits += 1
    while True:
        x = _mix(np.uint64(s[i, KEY]) + np.uint64(s[i, COUNTER]) * _GOLDEN)
        s[i, COUNTER] += 1
        for part in range(64 // bits):
            v = np.int64((x >> np.uint64(part * bits)) & np.uint64((1 << bits) - 1))
            if v < n:
                return int(v)


@njit(cache=True)
def _throw(s: Any, i: int) -> tuple[int, int]:
    a = _below(s, i, 6) + 1
    b = _below(s, i, 6) + 1
    k = s[i, N_THROWS]
    if k >= MAX_THROWS:
        raise ValueError("a game threw more dice in one step than its log holds")
    s[i, THROWS + 2 * k] = a
    s[i, THROWS + 2 * k + 1] = b
    s[i, N_THROWS] = k + 1
    return a, b


@njit(cache=True)
def _turn_round(board: Any, i: int) -> None:
    """Row ``i`` of ``board`` seen from the other side, in place."""
    for p in range(13):
        a = board[i, p]
        board[i, p] = -board[i, 25 - p]
        board[i, 25 - p] = -a


@njit(cache=True)
def _closed_out(b: Any, i: int) -> bool:
    """The mover is on the bar and every entry point is held (R13)."""
    if b[i, 25] <= 0:
        return False
    for p in range(19, 25):  # noqa: SIM110 (numba compiles loops)
        if b[i, p] > -2:
            return False
    return True


@njit(cache=True)
def to_act(s: Any, i: int) -> int:
    """The player who must choose in game ``i`` now (``s``: ``Games.state``)."""
    t = s[i, TURN]
    return int(1 - t if s[i, PHASE] == DOUBLED else t)


@njit(cache=True)
def _may_double(s: Any, i: int, length: int) -> bool:
    """R23-R29 for the player on roll (the cube in use), as
    :func:`backgammon.play.state._double_refusal`."""
    p = s[i, TURN]
    owner, cube = s[i, OWNER], s[i, CUBE]
    if s[i, CRAWFORD] == 1:
        return False
    if owner >= 0 and owner != p:
        return False
    if length > 0 and s[i, SCORE + p] + cube >= length:
        return False
    return bool(cube * 2 <= 64)


@njit(cache=True)
def _new_game(s: Any, i: int) -> None:
    s[i, PHASE] = OPENING
    s[i, CUBE] = 1
    s[i, OWNER] = -1
    s[i, HALF_STEPS] = -1
    s[i, N_PLAYS] = 0


@njit(cache=True)
def _new_episode(s: Any, i: int) -> None:
    s[i, SCORE] = 0
    s[i, SCORE + 1] = 0
    s[i, CRAWFORD] = 0
    _new_game(s, i)


@njit(cache=True)
def _end_episode(s: Any, i: int) -> None:
    """The episode is over: the row stops (``STOP``) or begins the next one."""
    s[i, DONE] = 1
    if s[i, STOP]:
        s[i, PHASE] = OVER
    else:
        _new_episode(s, i)


@njit(cache=True)
def _end_game(s: Any, out: Any, i: int, winner: int, result: int, points: int, length: int) -> None:
    """Score a game (R27-R28) into the rewards ``out`` (``result``: 1-3 the kind of win, 0
    a drop); a money game or a won match ends the episode."""
    out[i, winner] += points
    out[i, 1 - winner] -= points
    s[i, SCORE + winner] += points
    s[i, WINNER] = winner
    s[i, POINTS_WON] = points
    s[i, RESULT] = result
    if length == 0 or s[i, SCORE + winner] >= length:
        if s[i, STOP] and length == 0:  # money: the next game's cube, as the match shows
            s[i, CUBE] = 1
            s[i, OWNER] = -1
        elif s[i, STOP] and s[i, CRAWFORD] == 1:  # a match's Crawford game is over
            s[i, CRAWFORD] = 2
        _end_episode(s, i)
        return
    if s[i, CRAWFORD] == 1:
        s[i, CRAWFORD] = 2
    elif s[i, CRAWFORD] == 0 and (s[i, SCORE] == length - 1 or s[i, SCORE + 1] == length - 1):
        s[i, CRAWFORD] = 1
    _new_game(s, i)


@njit(cache=True)
def _pass_turn(s: Any, board: Any, i: int) -> None:
    """The turn goes to the other player, the board turned round."""
    _turn_round(board, i)
    s[i, TURN] = 1 - s[i, TURN]
    s[i, PHASE] = ROLLING
    s[i, N_PLAYS] = 0


@njit(cache=True)
def _roll(s: Any, board: Any, i: int) -> bool:
    """Roll for the player on roll (True: its plays are to be found), or pass without
    rolling when closed out (R13)."""
    if _closed_out(board, i):
        _pass_turn(s, board, i)
        return False
    a, b = _throw(s, i)
    s[i, DIE] = a
    s[i, DIE + 1] = b
    s[i, PHASE] = MOVING
    return True


@njit(cache=True)
def _advance(s: Any, board: Any, names: Any, i: int, length: int, cube_on: bool) -> bool:
    """Automatic steps until a player must choose (False) or dice are thrown whose plays
    are to be found (True)."""
    while True:
        ph = s[i, PHASE]
        if ph == OPENING:
            a, b = _throw(s, i)
            if a == b:
                continue  # R3: thrown again
            for p in range(26):
                board[i, p] = _INITIAL[p]
            s[i, TURN] = 0 if a > b else 1
            s[i, DIE] = a
            s[i, DIE + 1] = b
            s[i, PHASE] = MOVING
            return True
        if ph == ROLLING:
            if cube_on and _may_double(s, i, length):
                return False
            if _roll(s, board, i):
                return True
            continue
        if ph == MOVING and s[i, N_PLAYS] == 1 and names[i, 0, 0] == 0:
            _pass_turn(s, board, i)  # a roll with no legal play (R10)
            continue
        return False


@njit(cache=True)
def _play(s: Any, board: Any, plays: Any, out: Any, i: int, j: int, length: int) -> None:
    """Play the legal play ``j``: the game ends if the mover has borne off all 15 (R18-R19)."""
    mover = s[i, TURN]
    left = 0
    theirs = 0
    back = False
    for p in range(26):
        n = plays[i, j, p]
        if n > 0:
            left += n
        elif n < 0:
            theirs -= n
            if p <= 6:
                back = True  # on the bar (0) or in the winner's home board
    for p in range(26):  # the board the play leaves, seen by the other side
        board[i, p] = -plays[i, j, 25 - p]
    s[i, TURN] = 1 - mover
    if left == 0:
        result = 1 if theirs < 15 else (3 if back else 2)
        _end_game(s, out, i, mover, result, result * s[i, CUBE], length)
        return
    s[i, PHASE] = ROLLING
    s[i, HALF_STEPS] = -1
    s[i, N_PLAYS] = 0


@njit(cache=True)
def _act(
    s: Any,
    board: Any,
    plays: Any,
    names: Any,
    out: Any,
    i: int,
    a: int,
    length: int,
    penalty: float,
) -> bool:
    """Make action ``a`` in game ``i``; an action the mask refuses ends the episode with
    the penalty (NaN: minus three cubes).  True when it threw dice whose plays are to be
    found."""
    ph = s[i, PHASE]
    if ph == ROLLING and a == ROLL:
        return _roll(s, board, i)
    if ph == ROLLING and a == DOUBLE:
        s[i, PHASE] = DOUBLED
        return False
    if ph == DOUBLED and a == TAKE:
        s[i, CUBE] *= 2
        s[i, OWNER] = 1 - s[i, TURN]
        s[i, PHASE] = ROLLING
        return False
    if ph == DOUBLED and a == DROP:
        _end_game(s, out, i, s[i, TURN], 0, s[i, CUBE], length)
        return False
    if ph == MOVING or ph == HALF:  # noqa: SIM109 (numba compiles this form)
        for j in range(s[i, N_PLAYS]):
            first, second = names[i, j, 0], names[i, j, 1]
            if ph == MOVING and first == a:
                if second < 0:
                    _play(s, board, plays, out, i, j, length)
                else:
                    s[i, HALF_STEPS] = a
                    s[i, PHASE] = HALF
                return False
            if ph == HALF and first == s[i, HALF_STEPS] and second == a:
                _play(s, board, plays, out, i, j, length)
                return False
    actor = to_act(s, i)
    out[i, actor] += -3.0 * s[i, CUBE] if np.isnan(penalty) else penalty
    if ph == HALF and s[i, STOP]:  # the board stays as seen: the double's first half played
        apply_step(board[i], board[i], s[i, HALF_STEPS] // POINTS, s[i, DIE])
        apply_step(board[i], board[i], s[i, HALF_STEPS] % POINTS, s[i, DIE])
    s[i, RESULT] = -1
    _end_episode(s, i)
    return False


@njit(cache=True)
def _pubeval(after: Any, race: bool, wc: Any, wr: Any) -> float:
    """Tesauro's pubeval of a board the mover has just played (as
    :func:`backgammon.players.pubeval.pubeval_scores`)."""
    w = wr if race else wc
    total = 0.0
    left = 0
    for j in range(24):
        n = after[24 - j]
        k = 5 * j
        if n == -1:
            total += w[k]
        elif n == 1:
            total += w[k + 1]
        elif n >= 2:
            total += w[k + 2]
            if n == 3:
                total += w[k + 3]
            elif n >= 4:
                total += w[k + 4] * (n - 3) / 2.0
    for p in range(26):
        if after[p] > 0:
            left += after[p]
    if left == 0:
        return 99999999.0
    return float(total + w[120] * (-after[0] / 2.0) + w[121] * ((15 - left) / 15.0))


@njit(cache=True)
def _is_race(b: Any) -> bool:
    mine = 0
    theirs = 25
    for p in range(26):
        if b[p] > 0:
            mine = p
    for p in range(25, -1, -1):
        if b[p] < 0:
            theirs = p
    return mine < theirs


@njit(cache=True)
def _bot_action(
    s: Any, board: Any, plays: Any, names: Any, i: int, opponent: int, wc: Any, wr: Any
) -> int:
    """The bot's action: never doubles, always takes; the play is uniformly random among the
    legal plays (``random``) or pubeval's best, the first on ties."""
    ph = s[i, PHASE]
    if ph == ROLLING:
        return ROLL
    if ph == DOUBLED:
        return TAKE
    n = s[i, N_PLAYS]
    j = 0
    if opponent == 1:
        j = int(_below(s, i, n))
    else:
        race = _is_race(board[i])
        best = -1e300
        for k in range(n):
            v = _pubeval(plays[i, k], race, wc, wr)
            if v > best:
                best = v
                j = k
    return names[i, j, 0] if names[i, j, 1] < 0 else -1 - j


def _weights() -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    return CONTACT_WEIGHTS.astype(np.float64), RACE_WEIGHTS.astype(np.float64)


_WC, _WR = _weights()


def bot_action(
    s: npt.NDArray[np.int64],
    board: npt.NDArray[np.int8],
    plays: npt.NDArray[np.int8],
    names: npt.NDArray[np.int16],
    i: int,
    opponent: int,
) -> int:
    """The decision the bot ``opponent`` would make in game ``i`` (drawing from its dice
    stream as inside a step): an action, or ``-1 - j`` for the legal play ``j`` of a
    double of 3-4 steps (its two actions)."""
    return int(_bot_action(s, board, plays, names, i, opponent, _WC, _WR))


@njit(cache=True)
def _clear(s: Any, out: Any) -> None:
    """Every row's per-step outputs emptied before a reset or a step writes them."""
    for i in range(s.shape[0]):
        s[i, N_THROWS] = 0
        s[i, DONE] = 0
        s[i, NEED] = 0
        s[i, RESULT] = -1
        out[i, 0] = 0.0
        out[i, 1] = 0.0


START, RESUME, SKIP = -1, -2, -3
"""What :func:`_run` does with a row besides an action: begin a new episode, find its
plays again (the arrays grew), or nothing."""


@njit(cache=True)
def _run(
    s: Any,
    board: Any,
    plays: Any,
    names: Any,
    out: Any,
    todo: Any,
    clear: bool,
    length: int,
    cube_on: bool,
    opponent: int,
    penalty: float,
    wc: Any,
    wr: Any,
    work: Any,
) -> None:
    """Each row's action (or ``todo`` code), then its automatic steps and the bot's
    decisions until the agent must choose, or its plays do not fit (then ``need`` says how
    many rows the game wants).  One function, so that ``work`` (13 arrays) is handed only
    to the search: numba counts a reference up and down for every array a call is given."""
    s, board, plays, names, out, work = (
        borrow(s),
        borrow(board),
        borrow(plays),
        borrow(names),
        borrow(out),
        borrow(work),
    )
    if clear:
        _clear(s, out)
    leaves, srcs, keep = work[0], work[3], work[6]
    cap = plays.shape[1]
    for i in range(s.shape[0]):
        a = todo[i]
        if a == SKIP:
            continue
        find = False
        if a == START:
            _new_episode(s, i)
        elif a == RESUME:
            s[i, NEED] = 0
            find = True
        else:
            find = _act(s, board, plays, names, out, i, a, length, penalty)
        while True:
            if find:  # the legal plays of the roll into the row
                d0, d1 = s[i, DIE], s[i, DIE + 1]
                n = kept_plays(board[i], max(d0, d1), min(d0, d1), work, _KEYS)
                m = 0
                for j in range(n):
                    if not keep[j]:
                        continue
                    if m < cap:
                        copy_board(plays[i, m], leaves[j])
                        names[i, m, 0] = POINTS * srcs[j, 0] + srcs[j, 1]
                        names[i, m, 1] = POINTS * srcs[j, 2] + srcs[j, 3] if srcs[j, 2] else -1
                    m += 1
                s[i, N_PLAYS] = m
                if m > cap:
                    s[i, NEED] = m
                    break
            find = _advance(s, board, names, i, length, cube_on)
            if find:
                continue
            if opponent == 0 or to_act(s, i) == 0 or s[i, PHASE] == OVER:
                break
            b = _bot_action(s, board, plays, names, i, opponent, wc, wr)
            if b < 0:  # a double of 3-4 steps: both its actions
                j = -1 - b
                _act(s, board, plays, names, out, i, names[i, j, 0], length, np.nan)
                b = names[i, j, 1]
            find = _act(s, board, plays, names, out, i, b, length, np.nan)


Work = tuple[npt.NDArray[Any], ...]
"""The search's working arrays (:func:`backgammon.evaluation.children.scratch`)."""


def _call(
    g: Games,
    todo: npt.NDArray[np.int64],
    clear: bool,
    length: int,
    cube_on: bool,
    opponent: int,
    penalty: float,
    work: Work,
) -> None:
    _run(
        g.state,
        g.board,
        g.plays,
        g.names,
        g.rewards,
        todo,
        clear,
        length,
        cube_on,
        opponent,
        penalty,
        _WC,
        _WR,
        work,
    )
    np.not_equal(g.state[:, DONE], 0, out=g.dones)


def start(g: Games, length: int, cube_on: bool, opponent: int, work: Work) -> None:
    """Begin a new episode in every row (its key set) and settle it."""
    todo = np.full(len(g.state), START, np.int64)
    _call(g, todo, True, length, cube_on, opponent, np.nan, work)


def step(
    g: Games,
    actions: npt.NDArray[np.int64],
    length: int,
    cube_on: bool,
    opponent: int,
    penalty: float,
    work: Work,
) -> None:
    """Every game's action, then its automatic steps; ``need`` > 0 marks the games to
    :func:`resume` once their rows have room."""
    if len(actions) and actions.min() < 0:  # no action, as any other number the mask refuses
        actions = np.where(actions < 0, N_ACTIONS, actions)
    _call(g, actions, True, length, cube_on, opponent, penalty, work)


def resume(
    g: Games,
    rows: npt.NDArray[np.int64],
    length: int,
    cube_on: bool,
    opponent: int,
    work: Work,
) -> None:
    """Find again the plays of the games ``rows`` (after the play arrays grew) and settle them."""
    todo = np.full(len(g.state), SKIP, np.int64)
    todo[rows] = RESUME
    _call(g, todo, False, length, cube_on, opponent, np.nan, work)

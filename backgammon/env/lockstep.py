"""The compiled stepping of many games at once (numba), for :mod:`backgammon.env.batch`.

Every game of a batch is a row of a few arrays (:class:`Games`); one call of :func:`step`
makes each game's action, then every automatic step after it (rolls, lost turns, the
opening, the next game or episode, and the opponent's decisions when there is one), and
writes what the agent sees into preallocated arrays.  The legal plays and their action
numbers come from the rollouts' kernel (:func:`backgammon.evaluation.children.kept_plays`),
named as :mod:`backgammon.env.table` names them; the cube, the scores, Crawford and the ends
of games are those of :mod:`backgammon.play.state`, written again here for speed and held
to it by ``tests/env/test_env_batch.py``, which replays thousands of batched games through
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
from backgammon.env.table import DOUBLE, DROP, POINTS, ROLL, TAKE
from backgammon.evaluation.children import _KEYS, apply_step, kept_plays, scratch
from backgammon.players.pubeval import CONTACT_WEIGHTS, RACE_WEIGHTS

__all__ = [
    "OPPONENTS",
    "Games",
    "new_games",
    "observe",
    "pick",
    "resume",
    "row_keys",
    "start",
    "step",
    "to_act",
]

OPPONENTS = {"self": 0, "random": 1, "pubeval": 2}
"""Who plays player 1: nobody (the caller acts for both), or a bot played inside a step."""

OPENING, ROLLING, MOVING, DOUBLED, HALF = 0, 1, 2, 3, 4
"""A game's phase: before the opening roll; a player who may double must choose to roll or
double; the dice are rolled and must be played; a double awaits an answer; a double of 3-4
steps has its first action made."""

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
    not fit (then :func:`resume` after growing the arrays)."""

    board: npt.NDArray[np.int8]
    turn: npt.NDArray[np.int8]
    phase: npt.NDArray[np.int8]
    dice: npt.NDArray[np.int8]
    cube: npt.NDArray[np.int64]
    owner: npt.NDArray[np.int8]
    score: npt.NDArray[np.int64]
    crawford: npt.NDArray[np.int8]  # 0 no, 1 the Crawford game, 2 after it
    half: npt.NDArray[np.int64]
    key: npt.NDArray[np.uint64]
    counter: npt.NDArray[np.uint64]
    plays: npt.NDArray[np.int8]
    names: npt.NDArray[np.int16]
    n_plays: npt.NDArray[np.int64]
    need: npt.NDArray[np.int64]
    throws: npt.NDArray[np.int8]
    n_throws: npt.NDArray[np.int64]
    rewards: npt.NDArray[np.float32]
    dones: npt.NDArray[np.bool_]


def new_games(n: int, capacity: int) -> Games:
    """Arrays for ``n`` games with room for ``capacity`` plays a game."""
    return Games(
        board=np.zeros((n, 26), np.int8),
        turn=np.zeros(n, np.int8),
        phase=np.zeros(n, np.int8),
        dice=np.zeros((n, 2), np.int8),
        cube=np.ones(n, np.int64),
        owner=np.full(n, -1, np.int8),
        score=np.zeros((n, 2), np.int64),
        crawford=np.zeros(n, np.int8),
        half=np.full(n, -1, np.int64),
        key=np.zeros(n, np.uint64),
        counter=np.zeros(n, np.uint64),
        plays=np.zeros((n, capacity, 26), np.int8),
        names=np.zeros((n, capacity, 2), np.int16),
        n_plays=np.zeros(n, np.int64),
        need=np.zeros(n, np.int64),
        throws=np.zeros((n, MAX_THROWS, 2), np.int8),
        n_throws=np.zeros(n, np.int64),
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
def _below(g: Any, i: int, n: int) -> int:
    """A uniform number 0 to ``n - 1`` (n <= 2**16) from row ``i``'s stream, by rejection."""
    if n == 1:
        return 0
    bits = 1
    while (1 << bits) < n:
        bits += 1
    while True:
        x = _mix(g.key[i] + g.counter[i] * _GOLDEN)
        g.counter[i] += np.uint64(1)
        for part in range(64 // bits):
            v = np.int64((x >> np.uint64(part * bits)) & np.uint64((1 << bits) - 1))
            if v < n:
                return int(v)


@njit(cache=True)
def _throw(g: Any, i: int) -> tuple[int, int]:
    a = _below(g, i, 6) + 1
    b = _below(g, i, 6) + 1
    k = g.n_throws[i]
    if k >= MAX_THROWS:
        raise ValueError("a game threw more dice in one step than its log holds")
    g.throws[i, k, 0] = a
    g.throws[i, k, 1] = b
    g.n_throws[i] = k + 1
    return a, b


@njit(cache=True)
def _flip(src: Any, dst: Any) -> None:
    for p in range(26):
        dst[p] = -src[25 - p]


@njit(cache=True)
def _closed_out(b: Any) -> bool:
    """The mover is on the bar and every entry point is held (R13)."""
    if b[25] <= 0:
        return False
    for p in range(19, 25):  # noqa: SIM110 (numba compiles loops)
        if b[p] > -2:
            return False
    return True


@njit(cache=True)
def to_act(g: Any, i: int) -> int:
    """The player who must choose in game ``i`` now."""
    return int(1 - g.turn[i] if g.phase[i] == DOUBLED else g.turn[i])


@njit(cache=True)
def _may_double(g: Any, i: int, length: int, cube_on: bool) -> bool:
    """R23-R29 for the player on roll, as :func:`backgammon.play.state._double_refusal`."""
    p = g.turn[i]
    if not cube_on or g.crawford[i] == 1:
        return False
    if g.owner[i] >= 0 and g.owner[i] != p:
        return False
    if length > 0 and g.score[i, p] + g.cube[i] >= length:
        return False
    return bool(g.cube[i] * 2 <= 64)


@njit(cache=True)
def _new_game(g: Any, i: int) -> None:
    g.phase[i] = OPENING
    g.cube[i] = 1
    g.owner[i] = -1
    g.half[i] = -1
    g.n_plays[i] = 0


@njit(cache=True)
def _new_episode(g: Any, i: int) -> None:
    g.score[i, 0] = 0
    g.score[i, 1] = 0
    g.crawford[i] = 0
    _new_game(g, i)


@njit(cache=True)
def _end_game(g: Any, i: int, winner: int, points: int, length: int) -> None:
    """Score a game (R27-R28); a money game or a won match ends the episode."""
    g.rewards[i, winner] += points
    g.rewards[i, 1 - winner] -= points
    g.score[i, winner] += points
    if length == 0 or g.score[i, winner] >= length:
        g.dones[i] = True
        _new_episode(g, i)
        return
    if g.crawford[i] == 1:
        g.crawford[i] = 2
    elif g.crawford[i] == 0 and (g.score[i, 0] == length - 1 or g.score[i, 1] == length - 1):
        g.crawford[i] = 1
    _new_game(g, i)


@njit(cache=True)
def _find_plays(g: Any, i: int, work: Any) -> bool:
    """The legal plays of game ``i``'s roll into its rows; False when they do not fit."""
    hi = max(g.dice[i, 0], g.dice[i, 1])
    lo = min(g.dice[i, 0], g.dice[i, 1])
    n = kept_plays(g.board[i], hi, lo, work, _KEYS)
    leaves, srcs, keep = work[0], work[3], work[6]
    cap = g.plays.shape[1]
    m = 0
    for j in range(n):
        if not keep[j]:
            continue
        if m < cap:
            for p in range(26):  # element by element: a slice costs numba a view
                g.plays[i, m, p] = leaves[j, p]
            g.names[i, m, 0] = POINTS * srcs[j, 0] + srcs[j, 1]
            g.names[i, m, 1] = POINTS * srcs[j, 2] + srcs[j, 3] if srcs[j, 2] else -1
        m += 1
    g.n_plays[i] = m
    if m > cap:
        g.need[i] = m
        return False
    return True


@njit(cache=True)
def _pass_turn(g: Any, i: int) -> None:
    """The turn goes to the other player, the board turned round."""
    tmp = np.empty(26, np.int8)
    _flip(g.board[i], tmp)
    g.board[i] = tmp
    g.turn[i] = 1 - g.turn[i]
    g.phase[i] = ROLLING
    g.n_plays[i] = 0


@njit(cache=True)
def _advance(g: Any, i: int, length: int, cube_on: bool, work: Any) -> bool:
    """Automatic steps until a player must choose; False when the plays did not fit."""
    while True:
        ph = g.phase[i]
        if ph == OPENING:
            a, b = _throw(g, i)
            if a == b:
                continue  # R3: thrown again
            g.board[i] = _INITIAL
            g.turn[i] = 0 if a > b else 1
            g.dice[i, 0] = a
            g.dice[i, 1] = b
            g.phase[i] = MOVING
            return _find_plays(g, i, work)
        if ph == ROLLING:
            if _may_double(g, i, length, cube_on):
                return True
            if not _roll(g, i, work):
                return False
            continue
        if ph == MOVING and g.n_plays[i] == 1 and g.names[i, 0, 0] == 0:
            _pass_turn(g, i)  # a roll with no legal play (R10)
            continue
        return True


@njit(cache=True)
def _roll(g: Any, i: int, work: Any) -> bool:
    """Roll for the player on roll, or pass without rolling when closed out (R13)."""
    if _closed_out(g.board[i]):
        _pass_turn(g, i)
        return True
    a, b = _throw(g, i)
    g.dice[i, 0] = a
    g.dice[i, 1] = b
    g.phase[i] = MOVING
    return _find_plays(g, i, work)


@njit(cache=True)
def _play(g: Any, i: int, j: int, length: int) -> None:
    """Play the legal play ``j``: the game ends if the mover has borne off all 15 (R18-R19)."""
    after = g.plays[i, j]
    mover = g.turn[i]
    left = 0
    theirs = 0
    back = False
    for p in range(26):
        if after[p] > 0:
            left += after[p]
        elif after[p] < 0:
            theirs -= after[p]
            if p <= 6:
                back = True  # on the bar (0) or in the winner's home board
    if left == 0:
        result = 1 if theirs < 15 else (3 if back else 2)
        _end_game(g, i, mover, result * g.cube[i], length)
        return
    tmp = np.empty(26, np.int8)
    _flip(after, tmp)
    g.board[i] = tmp
    g.turn[i] = 1 - mover
    g.phase[i] = ROLLING
    g.half[i] = -1
    g.n_plays[i] = 0


@njit(cache=True)
def _act(g: Any, i: int, a: int, length: int, penalty: float, work: Any) -> bool:
    """Make action ``a`` in game ``i``; an action the mask refuses ends the episode with
    the penalty (NaN: minus three cubes).  False when the next plays did not fit."""
    ph = g.phase[i]
    if ph == ROLLING and a == ROLL:
        return _roll(g, i, work)
    if ph == ROLLING and a == DOUBLE:
        g.phase[i] = DOUBLED
        return True
    if ph == DOUBLED and a == TAKE:
        g.cube[i] *= 2
        g.owner[i] = 1 - g.turn[i]
        g.phase[i] = ROLLING
        return True
    if ph == DOUBLED and a == DROP:
        _end_game(g, i, g.turn[i], g.cube[i], length)
        return True
    if ph == MOVING or ph == HALF:  # noqa: SIM109 (numba compiles this form)
        for j in range(g.n_plays[i]):
            first, second = g.names[i, j, 0], g.names[i, j, 1]
            if ph == MOVING and first == a:
                if second < 0:
                    _play(g, i, j, length)
                else:
                    g.half[i] = a
                    g.phase[i] = HALF
                return True
            if ph == HALF and first == g.half[i] and second == a:
                _play(g, i, j, length)
                return True
    actor = to_act(g, i)
    g.rewards[i, actor] += -3.0 * g.cube[i] if np.isnan(penalty) else penalty
    g.dones[i] = True
    _new_episode(g, i)
    return True


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
def _bot_action(g: Any, i: int, opponent: int, wc: Any, wr: Any) -> int:
    """The bot's action: never doubles, always takes; the play is uniformly random among the
    legal plays (``random``) or pubeval's best, the first on ties."""
    ph = g.phase[i]
    if ph == ROLLING:
        return ROLL
    if ph == DOUBLED:
        return TAKE
    n = g.n_plays[i]
    j = 0
    if opponent == 1:
        j = int(_below(g, i, n))
    else:
        race = _is_race(g.board[i])
        best = -1e300
        for k in range(n):
            s = _pubeval(g.plays[i, k], race, wc, wr)
            if s > best:
                best = s
                j = k
    return g.names[i, j, 0] if g.names[i, j, 1] < 0 else -1 - j


@njit(cache=True)
def _settle(
    g: Any, i: int, length: int, cube_on: bool, opponent: int, wc: Any, wr: Any, work: Any
) -> None:
    """Automatic steps and the bot's decisions until the agent must choose (or the plays
    do not fit: then ``need`` says how many rows the game wants)."""
    while True:
        if not _advance(g, i, length, cube_on, work):
            return
        if opponent == 0 or to_act(g, i) == 0:
            return
        a = _bot_action(g, i, opponent, wc, wr)
        if a < 0:  # a double of 3-4 steps: both its actions
            j = -1 - a
            _act(g, i, g.names[i, j, 0], length, np.nan, work)
            a = g.names[i, j, 1]
        if not _act(g, i, a, length, np.nan, work):
            return


def _weights() -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    return CONTACT_WEIGHTS.astype(np.float64), RACE_WEIGHTS.astype(np.float64)


_WC, _WR = _weights()


@njit(cache=True)
def _clear_row(g: Any, i: int) -> None:
    """Row ``i``'s per-step outputs emptied before a reset or a step writes them."""
    g.n_throws[i] = 0
    g.rewards[i, 0] = 0.0
    g.rewards[i, 1] = 0.0
    g.dones[i] = False
    g.need[i] = 0


@njit(cache=True)
def _start(g: Any, length: int, cube_on: bool, opponent: int, wc: Any, wr: Any) -> None:
    work = scratch()
    for i in range(g.turn.shape[0]):
        _clear_row(g, i)
        _new_episode(g, i)
        _settle(g, i, length, cube_on, opponent, wc, wr, work)


@njit(cache=True)
def _step(
    g: Any,
    actions: Any,
    length: int,
    cube_on: bool,
    opponent: int,
    penalty: float,
    wc: Any,
    wr: Any,
) -> None:
    work = scratch()
    for i in range(g.turn.shape[0]):
        _clear_row(g, i)
        if _act(g, i, actions[i], length, penalty, work):
            _settle(g, i, length, cube_on, opponent, wc, wr, work)


@njit(cache=True)
def _resume(g: Any, rows: Any, length: int, cube_on: bool, opponent: int, wc: Any, wr: Any) -> None:
    work = scratch()
    for i in rows:
        g.need[i] = 0
        if _find_plays(g, i, work):
            _settle(g, i, length, cube_on, opponent, wc, wr, work)


def start(g: Games, length: int, cube_on: bool, opponent: int) -> None:
    """Begin a new episode in every row (its key set) and settle it."""
    _start(g, length, cube_on, opponent, _WC, _WR)


def step(
    g: Games,
    actions: npt.NDArray[np.int64],
    length: int,
    cube_on: bool,
    opponent: int,
    penalty: float,
) -> None:
    """Every game's action, then its automatic steps; ``need`` > 0 marks the games to
    :func:`resume` once their rows have room."""
    _step(g, actions, length, cube_on, opponent, penalty, _WC, _WR)


def resume(
    g: Games, rows: npt.NDArray[np.int64], length: int, cube_on: bool, opponent: int
) -> None:
    """Find again the plays of the games ``rows`` (after the play arrays grew) and settle them."""
    _resume(g, rows, length, cube_on, opponent, _WC, _WR)


@njit(cache=True)
def _observe(
    g: Any, obs: Any, mask: Any, views: Any, seen: Any, length: int, cube_on: bool, tesauro: bool
) -> None:
    """Each game's observation, from the player to act, and its mask, as
    :meth:`backgammon.env.table.Table.observe` and ``action_mask`` give them."""
    n_board = obs.shape[1] - 17
    view = np.empty(26, np.int8)
    for i in range(g.turn.shape[0]):
        me = to_act(g, i)
        seen[i] = me
        ph = g.phase[i]
        board = g.board[i]
        if ph == HALF:  # the board after the double's two highest steps
            die = g.dice[i, 0]
            apply_step(board, view, g.half[i] // POINTS, die)
            apply_step(view, view, g.half[i] % POINTS, die)
        else:
            for p in range(26):
                view[p] = board[p]
        if me != g.turn[i]:
            _flip(view.copy(), view)
        for p in range(26):
            views[i, p] = view[p]
        on_roll = me == g.turn[i]
        o = obs[i]
        o[:] = 0.0
        if tesauro:
            _tesauro(view, on_roll, o)
        # the dice left, then the match
        if ph == MOVING or ph == HALF:  # noqa: SIM109 (numba compiles this form)
            d1, d2 = g.dice[i, 0], g.dice[i, 1]
            if d1 != d2:
                o[n_board + d1 - 1] += 1
                o[n_board + d2 - 1] += 1
            else:
                o[n_board + d1 - 1] = 2 if ph == HALF else 4
        e = n_board + 6
        o[e] = 1.0
        o[e + 1] = on_roll
        o[e + 2] = ph == DOUBLED
        c, bits = g.cube[i], 0
        while c > 1:
            c >>= 1
            bits += 1
        o[e + 3] = bits / 6
        o[e + 4] = g.owner[i] == me
        o[e + 5] = g.owner[i] == 1 - me
        if length:
            o[e + 6] = min(g.score[i, me] / length, 1.0)
            o[e + 7] = min(g.score[i, 1 - me] / length, 1.0)
        o[e + 8] = g.crawford[i] == 1
        o[e + 9] = length / 64
        o[e + 10] = cube_on
        m = mask[i]
        m[:] = False
        if ph == ROLLING:
            m[ROLL] = True
            m[DOUBLE] = True
        elif ph == DOUBLED:
            m[TAKE] = True
            m[DROP] = True
        else:
            for j in range(g.n_plays[i]):
                if ph == MOVING:
                    m[g.names[i, j, 0]] = True
                elif g.names[i, j, 0] == g.half[i]:
                    m[g.names[i, j, 1]] = True


@njit(cache=True)
def _tesauro(b: Any, on_roll: bool, o: Any) -> None:
    """Tesauro's 198 inputs of a board (:func:`backgammon.env.observation.board_block`)."""
    mine_total = 0
    theirs_total = 0
    for p in range(26):
        mine = max(b[p], 0)
        theirs = max(-b[25 - p], 0)
        mine_total += mine
        theirs_total += theirs
        if 1 <= p <= 24:
            for side, n in ((0, mine), (96, theirs)):
                k = side + 4 * (p - 1)
                o[k] = n >= 1
                o[k + 1] = n >= 2
                o[k + 2] = n >= 3
                o[k + 3] = max(n - 3, 0) / 2
    o[192] = max(b[25], 0) / 2
    o[193] = max(-b[0], 0) / 2
    o[194] = (15 - mine_total) / 15
    o[195] = (15 - theirs_total) / 15
    o[196] = on_roll
    o[197] = not on_roll


def observe(
    g: Games,
    obs: npt.NDArray[np.float32],
    mask: npt.NDArray[np.bool_],
    views: npt.NDArray[np.int8],
    seen: npt.NDArray[np.int8],
    length: int,
    cube_on: bool,
    tesauro: bool,
) -> None:
    """Write every game's observation (the board block too when ``tesauro``; else only the
    observer's board into ``views``), its mask, and the observer (the player to act)."""
    _observe(g, obs, mask, views, seen, length, cube_on, tesauro)


@njit(cache=True)
def _pick(masks: Any, u: Any, out: Any) -> None:
    for i in range(masks.shape[0]):
        m = masks[i]
        count = 0
        for a in range(m.shape[0]):
            count += m[a]
        r = min(int(u[i] * count), count - 1)
        for a in range(m.shape[0]):
            if m[a]:
                if r == 0:
                    out[i] = a
                    break
                r -= 1


def pick(masks: npt.NDArray[np.bool_], u: npt.NDArray[np.float64]) -> npt.NDArray[np.int64]:
    """For each row, the allowed action at the fraction ``u`` (0-1) of its allowed ones:
    uniformly random actions when ``u`` is uniform."""
    out = np.zeros(len(masks), np.int64)
    _pick(masks, u, out)
    return out

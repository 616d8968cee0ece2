"""What the agents of the batched environment see: each game's observation and mask written
into arrays from :class:`~backgammon.env.lockstep.Games` (numba), and a random allowed action
a game, as :mod:`backgammon.env.table` gives them one game at a time."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
from numba import njit

from backgammon.env.lockstep import (
    CRAWFORD,
    CUBE,
    DIE,
    DOUBLED,
    HALF,
    HALF_STEPS,
    MOVING,
    N_PLAYS,
    OWNER,
    PHASE,
    ROLLING,
    SCORE,
    TURN,
    Games,
)
from backgammon.env.observation import tesauro as _tesauro
from backgammon.env.table import DOUBLE, DROP, POINTS, ROLL, TAKE
from backgammon.evaluation.children import apply_step

__all__ = ["observe", "pick"]


@njit(cache=True)
def _observe(
    s: Any,
    boards: Any,
    names: Any,
    obs: Any,
    mask: Any,
    views: Any,
    seen: Any,
    length: int,
    cube_on: bool,
    tesauro: bool,
) -> None:
    """Each game's observation, from the player to act, and its mask, as
    :meth:`backgammon.env.table.Table.observe` and ``action_mask`` give them."""
    n_board = obs.shape[1] - 17
    view = np.empty(26, np.int8)
    for i in range(s.shape[0]):
        ph = s[i, PHASE]
        on_roll = ph != DOUBLED
        me = s[i, TURN] if on_roll else 1 - s[i, TURN]
        seen[i] = me
        if ph == HALF:  # the board after the double's two highest steps
            die = s[i, DIE]
            apply_step(boards[i], view, s[i, HALF_STEPS] // POINTS, die)
            apply_step(view, view, s[i, HALF_STEPS] % POINTS, die)
        else:
            for p in range(26):
                view[p] = boards[i, p]
        if on_roll:
            for p in range(26):
                views[i, p] = view[p]
        else:
            for p in range(26):
                views[i, p] = -view[25 - p]
        if tesauro:  # every entry of the board block written
            _tesauro(views, i, on_roll, obs)
        else:
            for k in range(n_board):
                obs[i, k] = 0.0
        for k in range(n_board, obs.shape[1]):
            obs[i, k] = 0.0
        # the dice left, then the match
        if ph == MOVING or ph == HALF:  # noqa: SIM109 (numba compiles this form)
            d1, d2 = s[i, DIE], s[i, DIE + 1]
            if d1 != d2:
                obs[i, n_board + d1 - 1] += 1
                obs[i, n_board + d2 - 1] += 1
            else:
                obs[i, n_board + d1 - 1] = 2 if ph == HALF else 4
        e = n_board + 6
        obs[i, e] = 1.0
        obs[i, e + 1] = on_roll
        obs[i, e + 2] = ph == DOUBLED
        c, bits = s[i, CUBE], 0
        while c > 1:
            c >>= 1
            bits += 1
        obs[i, e + 3] = bits / 6
        obs[i, e + 4] = s[i, OWNER] == me
        obs[i, e + 5] = s[i, OWNER] == 1 - me
        if length:
            obs[i, e + 6] = min(s[i, SCORE + me] / length, 1.0)
            obs[i, e + 7] = min(s[i, SCORE + 1 - me] / length, 1.0)
        obs[i, e + 8] = s[i, CRAWFORD] == 1
        obs[i, e + 9] = length / 64
        obs[i, e + 10] = cube_on
        for k in range(mask.shape[1]):
            mask[i, k] = False
        if ph == ROLLING:
            mask[i, ROLL] = True
            mask[i, DOUBLE] = True
        elif ph == DOUBLED:
            mask[i, TAKE] = True
            mask[i, DROP] = True
        else:
            for j in range(s[i, N_PLAYS]):
                if ph == MOVING:
                    mask[i, names[i, j, 0]] = True
                elif names[i, j, 0] == s[i, HALF_STEPS]:
                    mask[i, names[i, j, 1]] = True


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
    _observe(g.state, g.board, g.names, obs, mask, views, seen, length, cube_on, tesauro)


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


_BYTES = np.uint64(0x0101010101010101)
_LOW = np.uint64(0x00FF00FF00FF00FF)


@njit(cache=True)
def _pick_words(words: Any, u: Any, out: Any) -> None:
    """:func:`_pick` on the masks' bytes eight at a time (``uint64`` words of 0/1 bytes):
    a word's byte sum counts its allowed actions, and zero words are skipped."""
    for i in range(words.shape[0]):
        acc = np.uint64(0)
        for w in range(words.shape[1]):  # each byte lane at most 255 words of 0/1
            acc += words[i, w]
        acc = (acc & _LOW) + ((acc >> np.uint64(8)) & _LOW)
        count = int((acc * np.uint64(0x0001000100010001)) >> np.uint64(48))
        r = min(int(u[i] * count), count - 1)
        for w in range(words.shape[1]):
            x = words[i, w]
            if x == 0:
                continue
            c = int((x * _BYTES) >> np.uint64(56))
            if r >= c:
                r -= c
                continue
            for k in range(8):
                if (x >> np.uint64(8 * k)) & np.uint64(1):
                    if r == 0:
                        out[i] = 8 * w + k
                        break
                    r -= 1
            break


def pick(masks: npt.NDArray[np.bool_], u: npt.NDArray[np.float64]) -> npt.NDArray[np.int64]:
    """For each row, the allowed action at the fraction ``u`` (0-1) of its allowed ones:
    uniformly random actions when ``u`` is uniform."""
    out = np.zeros(len(masks), np.int64)
    n = masks.shape[1] if masks.ndim == 2 else 0
    if masks.flags.c_contiguous and n % 8 == 0 and 0 < n < 8 * 255:
        _pick_words(masks.view(np.uint64), u, out)
    else:
        _pick(masks, u, out)
    return out

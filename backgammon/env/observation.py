"""Observations: the board and the match as one ``float32`` array from a player's side.

Two layouts of the board block, then the same 17 entries about the roll and the match:

``"tesauro"`` (198 board entries, the default)
    Tesauro's TD-Gammon inputs: for each of the observer's points 1-24 (from the
    observer's side) four units for ``n`` checkers, ``n >= 1``, ``n >= 2``, ``n >= 3`` and
    ``(n - 3) / 2``; the same 96 for the opponent's points (from the opponent's side); the
    observer's and the opponent's checkers on the bar / 2 and borne off / 15; then 1, 0 when
    the observer is on roll (holds or will throw the dice) and 0, 1 when the opponent is.

``"net"`` (215 board entries)
    The inputs of this package's own networks, layout 1 of
    :func:`backgammon.evaluation.encode.encode` (Tesauro's 192 units, then eleven features of
    each side and a race flag), with the observer in the place of the side on roll.  Richer,
    and about twenty times slower to compute than ``"tesauro"``.

The 17 entries after the board block, in order: how many of each face 1-6 the player on roll
still has to play this turn (0-4; a double's second action sees two); the observer must act;
the observer is on roll; a double awaits an answer; log2 of the cube's value / 6; the
observer owns the cube; the opponent owns it; the observer's and the opponent's scores /
the match length (capped at 1); the Crawford game; the match length / 64; the cube is in
use.  The match entries are 0 in money play.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
from numba import njit

from backgammon.evaluation.encode import N_INPUTS, encode

__all__ = [
    "EXTRAS",
    "OBSERVATIONS",
    "board_block",
    "board_blocks",
    "board_size",
    "n_observation",
    "tesauro",
    "upper_bounds",
]

OBSERVATIONS = ("tesauro", "net")
"""The layouts of the board block."""

EXTRAS = 17
"""Entries after the board block."""

_TESAURO = 198
_UNITS = np.array(
    [[n >= 1, n >= 2, n >= 3, max(n - 3, 0) / 2] for n in range(16)], dtype=np.float32
)


def board_size(kind: str) -> int:
    """Length of the board block of layout ``kind``."""
    return _TESAURO if kind == "tesauro" else N_INPUTS


def n_observation(kind: str) -> int:
    """Length of a whole observation of layout ``kind``."""
    return board_size(kind) + EXTRAS


def upper_bounds(kind: str) -> npt.NDArray[np.float32]:
    """The largest value of each entry (the smallest are all 0): 8 for the board block
    (15 checkers on the bar give 7.5), 4 for the dice counts, 1 for the rest."""
    return np.concatenate(
        [np.full(board_size(kind), 8.0), np.full(6, 4.0), np.ones(EXTRAS - 6)]
    ).astype(np.float32)


def board_block(kind: str, board: Sequence[int], on_roll: bool) -> npt.NDArray[np.float32]:
    """The board block of a 26-number board seen from the observer (the core's layout,
    :attr:`backgammon.core.position.Position.board`); ``on_roll``: the observer is."""
    if kind == "net":
        inputs: npt.NDArray[np.float32] = encode(np.asarray([board], dtype=np.int64))[0]
        return inputs.astype(np.float32)
    out = np.empty((1, _TESAURO), dtype=np.float32)
    tesauro(np.asarray(board, dtype=np.int64).reshape(1, 26), 0, on_roll, out)
    block: npt.NDArray[np.float32] = out[0]
    return block


@njit(cache=True)
def tesauro(b: Any, i: int, on_roll: bool, o: Any) -> None:
    """Tesauro's 198 inputs of board ``b[i]`` into ``o[i]``, every entry written (no zeros
    needed first), compiled for one board and for the batched rows alike: a numpy version
    costs a single-game step more than the rules.  A point's four units come from the
    table :func:`board_blocks` reads too (a tenth sooner than comparing there)."""
    mine_total = 0
    theirs_total = 0
    for p in range(26):
        mine = max(b[i, p], 0)
        theirs = max(-b[i, 25 - p], 0)
        mine_total += mine
        theirs_total += theirs
        if 1 <= p <= 24:
            k = 4 * (p - 1)
            for u in range(4):
                o[i, k + u] = _UNITS[mine, u]
                o[i, 96 + k + u] = _UNITS[theirs, u]
    o[i, 192] = max(b[i, 25], 0) / 2
    o[i, 193] = max(-b[i, 0], 0) / 2
    o[i, 194] = (15 - mine_total) / 15
    o[i, 195] = (15 - theirs_total) / 15
    o[i, 196] = on_roll
    o[i, 197] = not on_roll


def board_blocks(
    kind: str, boards: Sequence[Sequence[int]], on_roll: bool
) -> npt.NDArray[np.float32]:
    """:func:`board_block` of many boards at once, one row each: e.g. the positions every
    legal play leaves, for an agent that judges plays by where they lead."""
    b = np.asarray(boards, dtype=np.int64).reshape(-1, 26)
    if kind == "net":
        inputs: npt.NDArray[np.float32] = encode(b).astype(np.float32)
        return inputs
    n = len(b)
    mine = np.maximum(b, 0)
    theirs = np.maximum(-b[:, ::-1], 0)
    out = np.empty((n, _TESAURO), dtype=np.float32)
    out[:, :96] = _UNITS[mine[:, 1:25]].reshape(n, 96)
    out[:, 96:192] = _UNITS[theirs[:, 1:25]].reshape(n, 96)
    out[:, 192] = mine[:, 25] / 2
    out[:, 193] = theirs[:, 25] / 2
    out[:, 194] = (15 - mine.sum(axis=1)) / 15
    out[:, 195] = (15 - theirs.sum(axis=1)) / 15
    out[:, 196] = on_roll
    out[:, 197] = not on_roll
    return out

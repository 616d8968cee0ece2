"""The batched kernel's numba intrinsics (backgammon.env.lowlevel): views that hold no
reference are the arrays themselves, and a board copy copies the 26 points and no more."""

from __future__ import annotations

import numpy as np
from numba import njit

from backgammon.env.lowlevel import borrow, copy_board


@njit
def _write_through(a: np.ndarray, pair: tuple[np.ndarray, np.ndarray]) -> int:
    view = borrow(a)
    first, second = borrow(pair)
    view[0] = 7
    first[1] = 8
    second[0, 1] = 9
    return int(view.sum() + first.sum() + second.sum())


def test_a_borrowed_view_is_the_array_itself() -> None:
    a, b, c = np.zeros(3, np.int64), np.zeros(2, np.int8), np.zeros((2, 2), np.int16)
    assert _write_through(a, (b, c)) == 24
    assert a.tolist() == [7, 0, 0] and b.tolist() == [0, 8] and c.tolist() == [[0, 9], [0, 0]]


@njit
def _copy_rows(dst: np.ndarray, i: int, src: np.ndarray, j: int) -> None:
    copy_board(dst[i], src[j])


def test_a_board_copy_is_the_26_points_of_the_row() -> None:
    src = np.arange(-30, 48, dtype=np.int8).reshape(3, 26)
    dst = np.full((3, 27), 99, np.int8)
    _copy_rows(dst[:, :26].copy(), 0, src, 0)  # a fresh contiguous row is accepted
    rows = np.full((4, 26), 99, np.int8)
    _copy_rows(rows, 2, src, 1)
    assert rows[2].tolist() == src[1].tolist()
    assert (rows[[0, 1, 3]] == 99).all()

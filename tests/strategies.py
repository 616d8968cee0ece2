"""Hypothesis strategies of positions, shared by the tests of the core and of the engine's
inputs and children."""

from __future__ import annotations

import random

from hypothesis import strategies as st

from backgammon import Position
from backgammon.core.values import CHECKERS


@st.composite
def played_positions(draw: st.DrawFn) -> Position:
    """A position reached by random legal play from the start."""
    rng: random.Random = draw(st.randoms(use_true_random=False))
    plies = draw(st.integers(0, 160))
    pos = Position.initial()
    for _ in range(plies):
        if pos.outcome() is not None:
            break
        moves = pos.legal_moves((rng.randint(1, 6), rng.randint(1, 6)))
        pos = pos.play(rng.choice(moves)) if moves else pos.flip()
    return pos


@st.composite
def any_positions(draw: st.DrawFn) -> Position:
    """Any legal arrangement: each side's 15 checkers on points, the bar or off."""
    b = [0] * 26
    for sign, bar_index in ((1, 25), (-1, 0)):
        for _ in range(draw(st.integers(0, CHECKERS))):
            spot = draw(st.integers(0, 25))  # 0 and 25 stand for this side's bar
            spot = bar_index if spot in (0, 25) else spot
            if b[spot] * sign >= 0:  # never on a point the other side holds
                b[spot] += sign
    return Position(b)

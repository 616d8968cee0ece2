"""The order of the plays of non-doubles that may bear off, against the search it replaced.

Move generation gives the plays of a roll in a fixed order, and choosing among equal plays
keeps the first, so the direct generator of these plays (``movegen._generate_two_off``) must
give the same plays in the same order as the search over both orders of the dice that it
replaced, kept here as the reference.
"""

from __future__ import annotations

import itertools
import random

from gnubg_reference import bearoff_cases

from backgammon.core import movegen
from backgammon.core.values import BAR, Move, Step

_P = tuple(32**i for i in range(26))


def search_two(b: list[int], occupied: list[int], hi_die: int, lo_die: int) -> list[Move]:
    """The former generator: both orders of the dice, step by step; each result once
    under an exact key (each point a digit in base 32 holding the change of its count)."""
    P = _P
    two: dict[int, tuple[Step, Step]] = {}
    one: tuple[dict[int, Step], dict[int, Step]] = ({}, {})
    first_sources = [BAR] if b[25] else occupied
    out = sum(x for x in b[7:] if x > 0)
    for order, (da, db) in enumerate(((hi_die, lo_die), (lo_die, hi_die))):
        for s1 in first_sources:
            t1 = s1 - da
            if t1 > 0:
                x1 = b[t1]
                if x1 < -1:
                    continue
                hit1 = x1 == -1
            else:
                if out:
                    continue
                if t1 < 0 and s1 < occupied[0]:
                    continue  # R15: a larger number bears off only from the highest point
                t1 = 0
                hit1 = False
            b[s1] -= 1
            key1 = -P[s1]
            out1 = out - (s1 > 6 and t1 <= 6)
            if t1:
                if hit1:
                    b[t1] = 1
                    b[0] -= 1
                    key1 += 2 * P[t1] - 1
                else:
                    b[t1] += 1
                    key1 += P[t1]
            step1 = (s1, t1, hit1)
            # The highest point holding a checker of ours now (what R15 asks of the second).
            if s1 != occupied[0] or b[s1]:
                high = occupied[0]
            else:
                high = max(occupied[1] if len(occupied) > 1 else 0, t1)
            second: tuple[int, ...]
            if b[25]:
                second = (BAR,)
            elif t1 and t1 not in occupied:
                second = (*occupied, t1)
            else:
                second = tuple(occupied)
            found = False
            for s2 in second:
                if b[s2] <= 0:
                    continue
                t2 = s2 - db
                if t2 > 0:
                    x2 = b[t2]
                    if x2 < -1:
                        continue
                    key = key1 - P[s2] + (2 * P[t2] - 1 if x2 == -1 else P[t2])
                    step2 = (s2, t2, x2 == -1)
                else:
                    if out1:
                        continue
                    if t2 < 0 and s2 < high:
                        continue
                    key = key1 - P[s2]
                    step2 = (s2, 0, False)
                found = True
                if key not in two:
                    two[key] = (step1, step2)
            if not found and not two:
                one[order].setdefault(key1, step1)  # R9: this die alone
            b[s1] += 1
            if t1:
                if hit1:
                    b[t1] = -1
                    b[0] += 1
                else:
                    b[t1] -= 1
    new = tuple.__new__
    if two:
        return [new(Move, steps) for steps in two.values()]
    # R9: if only one number can be played, play the larger if it can be played.
    singles = one[0] or one[1]
    return [new(Move, (step,)) for step in singles.values()]


def _may_bear_off(b: list[int], hi: int, lo: int) -> bool:
    """Whether ``generate`` gives this case to the direct generator of bear-offs."""
    occupied = [s for s in range(24, 0, -1) if b[s] > 0]
    if hi == lo or b[BAR]:
        return False
    return not occupied or (sum(b[s] for s in occupied if s > 6) < 2 and occupied[0] - hi <= 6)


def _same(b: list[int], hi: int, lo: int) -> None:
    occupied = [s for s in range(24, 0, -1) if b[s] > 0]
    assert movegen.generate(tuple(b), hi, lo) == search_two(list(b), occupied, hi, lo), (b, hi, lo)


def test_small_bear_offs_all_rolls_same_plays_same_order() -> None:
    """Up to three checkers home, perhaps one outside, the opponent's in our home."""
    cases = 0
    for k in range(1, 4):
        for ours in itertools.combinations_with_replacement(range(1, 7), k):
            for outside in (0, 7, 9, 12):
                base = [0] * 26
                for p in ours:
                    base[p] += 1
                if outside:
                    base[outside] += 1
                free = [p for p in range(1, 7) if not base[p]]
                for theirs in itertools.product((0, -1, -2), repeat=len(free)):
                    if sum(theirs) % 3:  # a third of them, enough and quick
                        continue
                    b = list(base)
                    for p, x in zip(free, theirs, strict=True):
                        b[p] = x
                    for hi in range(2, 7):
                        for lo in range(1, hi):
                            if _may_bear_off(b, hi, lo):
                                _same(b, hi, lo)
                                cases += 1
    assert cases > 50_000


def test_random_bear_offs_same_plays_same_order() -> None:
    rng = random.Random(40)
    cases = 0
    for pos, d1, d2 in bearoff_cases(20_000, seed=40):
        b = list(pos.board)
        b[0] = -rng.randint(0, 2) if b[0] == 0 else b[0]
        hi, lo = max(d1, d2), min(d1, d2)
        if _may_bear_off(b, hi, lo):
            _same(b, hi, lo)
            cases += 1
    assert cases > 10_000

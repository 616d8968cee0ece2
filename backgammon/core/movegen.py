"""Move generation: every legal play of a roll, one per distinct result (R5-R17).

:meth:`backgammon.core.position.Position.legal_moves` checks the dice and calls
:func:`generate`; the board is the 26-number tuple described in
:mod:`backgammon.core.position`.
"""

from __future__ import annotations

from backgammon.core.values import BAR, Move, Step

__all__ = ["generate"]

# Exact incremental keys for generated plays: each point is a digit in base 32 holding the
# change of its signed count (|change| <= 15 < 16), so different results have different keys.
_P = tuple(32**i for i in range(26))
_POINTS_DOWN = tuple(range(24, 0, -1))


# --------------------------------------------------------------------- generation
#
# Distinct results are what count (R10), so the generators enumerate results, not spellings.
#
# Non-doubles: a play is a step with each die.  When nothing can be borne off within the
# roll and no checker is on the bar, two steps by different checkers do not interfere, so
# the plays are (larger die, smaller die) pairs of steps legal on the original board, plus
# one checker taking both dice in either order; otherwise a depth-first search tries both
# orders.  Results are kept once each under an exact integer key (see _P).  Nothing can be
# borne off while two checkers are outside the home board, or one that the larger die
# alone does not bring home (a bear-off needs every checker home before its step).
#
# Doubles: a play is fully described by how many steps start from each point, f(s), taken
# in descending order of source (as gnubg does), and different f give different results,
# so enumerating f gives each result exactly once, with no duplicates to remove: nested
# loops over non-increasing sources when no checker is on the bar (checking each bear-off
# as the play goes when one may come: not while the checkers outside need four steps or
# more to come home), a search after the bar's checkers enter otherwise.


def generate(board: tuple[int, ...], hi_die: int, lo_die: int) -> list[Move]:
    """Every legal play of the dice ``hi_die >= lo_die`` on a 26-number board, one per
    resulting position, in a fixed order (what ``Position.legal_moves`` returns).

    >>> from backgammon.core.position import Position
    >>> start = Position.initial().board
    >>> len(generate(start, 6, 6)), len(generate(start, 2, 1))
    (11, 15)
    >>> generate(start, 6, 5)[:2]
    [Move('24/18 13/8'), Move('24/18 8/3')]
    """
    if hi_die == lo_die:
        if board[25]:
            return _generate_double_bar(board, hi_die)
        outside = [s for s in range(7, 25) if board[s] > 0]
        if sum([board[s] * ((s - 7) // hi_die + 1) for s in outside]) >= 4:
            return _generate_double_free(board, hi_die)
        return _generate_double(board, hi_die)
    occupied = [s for s in _POINTS_DOWN if board[s] > 0]
    bar = board[25]
    if bar:
        return _generate_two_bar(board, occupied, hi_die, lo_die)
    if occupied and (sum([board[s] for s in occupied if s > 6]) >= 2 or occupied[0] - hi_die > 6):
        return _generate_two_free(board, occupied, hi_die, lo_die)
    return _generate_two(list(board), occupied, hi_die, lo_die)


def _generate_two_bar(b: tuple[int, ...], occupied: list[int], hi: int, lo: int) -> list[Move]:
    """Non-doubles with checkers on the bar (R12-R13); nothing can be borne off."""
    new = tuple.__new__
    t_hi, t_lo = BAR - hi, BAR - lo
    hi_open, lo_open = b[t_hi] >= -1, b[t_lo] >= -1
    if b[BAR] > 1:  # both dice must enter if they can (R9, R12)
        steps = [(BAR, t, b[t] == -1) for t, ok in ((t_hi, hi_open), (t_lo, lo_open)) if ok]
        return [new(Move, steps)] if len(steps) == 2 else [new(Move, steps[:1])] if steps else []
    # As in _generate_two_free: the entered checker going on (or one from where it
    # entered) is one checker taking both dice, a result told by the blot it hit on the
    # way; every other play is a result no other play gives.
    plays: list[Move] = []
    one_checker: set[int] = set()
    for t1, ok, db in ((t_hi, hi_open, lo), (t_lo, lo_open, hi)):
        if not ok:
            continue
        hit1 = b[t1] == -1
        step1 = (BAR, t1, hit1)
        for s2 in occupied if b[t1] > 0 else [t1, *occupied]:
            t2 = s2 - db
            if t2 <= 0:
                continue  # the entered checker is outside: no bearing off (R14)
            x = b[t2]
            if x < -1:
                continue
            if s2 == t1:
                key = t1 if hit1 else 0
                if key in one_checker:
                    continue
                one_checker.add(key)
            plays.append(new(Move, (step1, (s2, t2, t2 != t1 and x == -1))))
    if plays:
        return plays
    # R9: one number only: the larger if it can enter.
    if hi_open:
        return [new(Move, ((BAR, t_hi, b[t_hi] == -1),))]
    if lo_open:
        return [new(Move, ((BAR, t_lo, b[t_lo] == -1),))]
    return []


def _generate_two_free(b: tuple[int, ...], occupied: list[int], hi: int, lo: int) -> list[Move]:
    """Non-doubles with no checker on the bar and no bear-off possible within the roll.

    Two checkers that each take one die give a result no other play gives, unless one
    lands where the other starts (then one checker takes both dice in effect); only those
    one-checker results can come more than once.  One checker from ``a`` always ends on
    ``a - hi - lo``, so such a result is told by ``a`` and the blot it hit on the way, if any.
    """
    new = tuple.__new__
    hi_src = [s for s in occupied if s > hi and b[s - hi] >= -1]
    lo_steps: list[tuple[int, int, Step]] = []  # the smaller die's steps, made once
    for s in occupied:
        if s > lo and b[s - lo] >= -1:
            t = s - lo
            lo_steps.append((s, t, (s, t, b[t] == -1)))
    plays: list[Move] = []
    add = plays.append
    one_checker: set[int] = set()  # 32 * a + the point of the blot hit on the way (or 0)
    for s1 in hi_src:
        t1 = s1 - hi
        hit1 = b[t1] == -1
        step1 = (s1, t1, hit1)
        last = b[s1] == 1
        up = s1 + lo  # the smaller die from there lands on s1
        for s2, t2, step2 in lo_steps:
            if s2 == t1 or s2 == up:  # noqa: SIM109 (one checker in effect; faster than `in`)
                key = 32 * (s1 if s1 > s2 else s2)  # passing over a point of ours
                if key not in one_checker:
                    one_checker.add(key)
                    add(new(Move, (step1, step2)))
            elif s2 == s1 and last:
                continue
            elif t2 == t1 and hit1:  # the blot is gone: the second checker joins the first
                add(new(Move, (step1, (s2, t2, False))))
            else:
                add(new(Move, (step1, step2)))
        t2 = t1 - lo
        if b[t1] <= 0 and t2 > 0 and b[t2] >= -1:  # the same checker goes on (R7)
            key = 32 * s1 + (t1 if hit1 else 0)
            if key not in one_checker:
                one_checker.add(key)
                add(new(Move, (step1, (t1, t2, b[t2] == -1))))
    for s1, t1, step1 in lo_steps:  # one checker, smaller die first (R7: its landing point open)
        t2 = t1 - hi
        if t2 <= 0 or b[t2] < -1:
            continue
        key = 32 * s1 + (t1 if step1[2] else 0)
        if key not in one_checker:
            one_checker.add(key)
            add(new(Move, (step1, (t1, t2, b[t2] == -1))))
    if plays:
        return plays
    # R9: only one number can be played: the larger if it can be.
    if hi_src:
        return [new(Move, ((s, s - hi, b[s - hi] == -1),)) for s in hi_src]
    return [new(Move, (step,)) for _, _, step in lo_steps]


def _generate_two(b: list[int], occupied: list[int], hi_die: int, lo_die: int) -> list[Move]:
    """Non-doubles in general (bar, bear-off): both orders of the dice, step by step."""
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


def _generate_double_bar(b: tuple[int, ...], die: int) -> list[Move]:
    """Doubles with checkers on the bar: they all enter first (R12-R13), then the numbers
    left move any checker; nothing can be borne off within the roll (an entered checker
    needs every number left to come home), so landing points stay open or closed."""
    entry = BAR - die
    if b[entry] < -1:
        return []  # R13: closed entry point
    new = tuple.__new__
    entering = min(b[BAR], 4)
    prefix: tuple[Step, ...] = ((BAR, entry, b[entry] == -1),) + ((BAR, entry, False),) * (
        entering - 1
    )
    if entering == 4 or b[BAR] > entering:
        return [new(Move, prefix)]
    have = [x if x > 0 else 0 for x in b]
    have[BAR] = 0
    have[entry] += entering
    kept = [False] * 32
    sources = []
    for s in range(24, die, -1):
        if (have[s] or kept[s + die]) and b[s - die] >= -1:
            kept[s] = True
            sources.append(s)
    blot = [x == -1 for x in b]
    blot[entry] = False
    n = len(sources)
    found: list[list[Move]] = [[], [], [], [], []]

    def search(start: int, left: int, steps: tuple[Step, ...], previous: int) -> None:
        more = False
        for i in range(start, n):
            s = sources[i]
            if not have[s]:
                continue
            more = True
            t = s - die
            step = (s, t, blot[t] and s != previous)
            if left == 1:
                found[4].append(new(Move, steps + (step,)))  # noqa: RUF005 (faster)
                continue
            have[s] -= 1
            have[t] += 1
            search(i, left - 1, steps + (step,), s)  # noqa: RUF005 (faster)
            have[s] += 1
            have[t] -= 1
        if not more:
            found[len(steps)].append(new(Move, steps))  # R9: as many as possible

    search(0, 4 - entering, prefix, BAR)
    return next(plays for plays in reversed(found) if plays)


def _generate_double_free(b: tuple[int, ...], die: int) -> list[Move]:
    """Doubles with no checker on the bar and no bear-off possible within the roll.

    Every landing point's openness is then fixed for the whole roll, so a play is a
    multiset of up to four step sources, taken in descending order (as in
    :func:`_generate_double`); nested loops over non-increasing sources enumerate each
    multiset, hence each result, exactly once.
    """
    kept = [False] * 32
    sources = []
    for s in range(24, die, -1):
        if (b[s] > 0 or kept[s + die]) and b[s - die] >= -1:
            kept[s] = True
            sources.append(s)
    have = [x if x > 0 else 0 for x in b]  # checkers on each point as the play goes on
    # Each source's step, made once: the first landing on a blot hits it (R11), a step
    # from the same point as the one before lands where that one hit.
    first: list[Step | None] = [None] * 26
    again: list[Step | None] = [None] * 26
    for s in sources:
        first[s] = (s, s - die, b[s - die] == -1)
        again[s] = (s, s - die, False)
    # The sources from each one down (itself included), and below it.
    down: list[list[int]] = [[]] * 26
    below: list[list[int]] = [[]] * 26
    for i, s in enumerate(sources):
        down[s] = sources[i:]
        below[s] = sources[i + 1 :]
    new = tuple.__new__
    four: list[Move] = []
    three: list[Move] = []
    two: list[Move] = []
    one: list[Move] = []
    for s1 in sources:
        if not have[s1]:
            continue
        t1 = s1 - die
        have[s1] -= 1
        have[t1] += 1
        step1 = first[s1]
        more1 = False
        for s2 in down[s1]:
            if not have[s2]:
                continue
            more1 = True
            t2 = s2 - die
            step2 = again[s2] if s2 == s1 else first[s2]
            have[s2] -= 1
            have[t2] += 1
            more2 = False
            for s3 in down[s2]:
                if not have[s3]:
                    continue
                more2 = True
                t3 = s3 - die
                step3 = again[s3] if s3 == s2 else first[s3]
                have[s3] -= 1
                have[t3] += 1
                if have[s3]:  # the fourth step: from s3 again, or from a lower source
                    four.append(new(Move, (step1, step2, step3, again[s3])))
                for s4 in below[s3]:
                    if have[s4]:
                        four.append(new(Move, (step1, step2, step3, first[s4])))
                if not four:  # R9: as many numbers as possible
                    three.append(new(Move, (step1, step2, step3)))
                have[s3] += 1
                have[t3] -= 1
            if not more2 and not (four or three):
                two.append(new(Move, (step1, step2)))
            have[s2] += 1
            have[t2] -= 1
        if not more1 and not (four or three or two):
            one.append(new(Move, (step1,)))
        have[s1] += 1
        have[t1] -= 1
    return four or three or two or one


def _generate_double(b: tuple[int, ...], die: int) -> list[Move]:
    """Doubles with no checker on the bar when something may be borne off within the roll:
    as :func:`_generate_double_free`, each step that bears off allowed only with every
    checker home and, for a larger number, none left on a higher point (R14-R15), as the
    play goes on.  Landing points stay open or closed (a bear-off opens none)."""
    kept = [False] * 32
    sources = []
    for s in range(24, 0, -1):
        t = s - die
        if (b[s] > 0 or kept[s + die]) and (t <= 0 or b[t] >= -1):
            kept[s] = True
            sources.append(s)
    have = [x if x > 0 else 0 for x in b]  # checkers on each point; borne off: to 0
    outside = sum(have[7:25])  # checkers outside the home board
    first: list[Step | None] = [None] * 26
    again: list[Step | None] = [None] * 26
    dest = [0] * 26  # where a step from s lands (0: off)
    enter = [0] * 26  # 1 if that step brings a checker home
    off = [False] * 26  # the step bears off, then needs everything home (R14)
    over = [False] * 26  # with a larger number, also nothing higher (R15)
    for s in sources:
        t = s - die
        if t > 0:
            first[s], again[s] = (s, t, b[t] == -1), (s, t, False)
            dest[s], enter[s] = t, s > 6 >= t
        else:
            first[s] = again[s] = (s, 0, False)
            off[s], over[s] = True, t < 0
    down: list[list[int]] = [[]] * 26  # the sources from each one down, itself included
    for i, s in enumerate(sources):
        down[s] = sources[i:]

    def barred(s: int) -> bool:
        """Whether a checker on ``s`` may not be borne off now (R14-R15)."""
        return bool(outside or (over[s] and any(have[s + 1 : 7])))

    new = tuple.__new__
    four: list[Move] = []
    three: list[Move] = []
    two: list[Move] = []
    one: list[Move] = []
    for s1 in sources:
        if not have[s1] or (off[s1] and barred(s1)):
            continue
        t1 = dest[s1]
        have[s1] -= 1
        have[t1] += 1
        outside -= enter[s1]
        step1 = first[s1]
        more1 = False
        for s2 in down[s1]:
            if not have[s2] or (off[s2] and barred(s2)):
                continue
            more1 = True
            t2 = dest[s2]
            step2 = again[s2] if s2 == s1 else first[s2]
            have[s2] -= 1
            have[t2] += 1
            outside -= enter[s2]
            more2 = False
            for s3 in down[s2]:
                if not have[s3] or (off[s3] and barred(s3)):
                    continue
                more2 = True
                t3 = dest[s3]
                step3 = again[s3] if s3 == s2 else first[s3]
                have[s3] -= 1
                have[t3] += 1
                outside -= enter[s3]
                for s4 in down[s3]:
                    if not have[s4] or (off[s4] and barred(s4)):
                        continue
                    step4 = again[s4] if s4 == s3 else first[s4]
                    four.append(new(Move, (step1, step2, step3, step4)))
                if not four:  # R9: as many numbers as possible
                    three.append(new(Move, (step1, step2, step3)))
                have[s3] += 1
                have[t3] -= 1
                outside += enter[s3]
            if not more2 and not (four or three):
                two.append(new(Move, (step1, step2)))
            have[s2] += 1
            have[t2] -= 1
            outside += enter[s2]
        if not more1 and not (four or three or two):
            one.append(new(Move, (step1,)))
        have[s1] += 1
        have[t1] -= 1
        outside += enter[s1]
    return four or three or two or one

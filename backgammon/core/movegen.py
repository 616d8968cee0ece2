"""Move generation: every legal play of a roll, one per distinct result (R5-R17).

:meth:`backgammon.core.position.Position.legal_moves` checks the dice and calls
:func:`generate`; the board is the 26-number tuple described in
:mod:`backgammon.core.position`.
"""

from __future__ import annotations

from backgammon.core.values import BAR, Move, Step

__all__ = ["generate"]

_POINTS_DOWN = tuple(range(24, 0, -1))
_OUTSIDE_DOWN = tuple(range(24, 6, -1))


# --------------------------------------------------------------------- generation
#
# Distinct results are what count (R10), so the generators enumerate results, not spellings.
#
# Non-doubles: a play is a step with each die.  When nothing can be borne off within the
# roll and no checker is on the bar, two steps by different checkers do not interfere, so
# the plays are (larger die, smaller die) pairs of steps legal on the original board, plus
# one checker taking both dice in either order.  Nothing can be borne off while two
# checkers are outside the home board, or one that the larger die alone does not bring home
# (a bear-off needs every checker home before its step).  Otherwise the plays are those of
# a search over both orders of the dice, larger first, keeping each result's first
# spelling; a direct enumeration gives them in that order (_generate_two_off).
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
        need = 4  # steps the checkers outside need to come home, counted from the back
        for s in _OUTSIDE_DOWN:
            x = board[s]
            if x > 0:
                need -= x * ((s - 7) // hi_die + 1)
                if need <= 0:
                    return _generate_double_free(board, hi_die)
        return _generate_double(board, hi_die)
    if board[25]:
        return _generate_two_bar(board, hi_die, lo_die)
    occupied = [s for s in _POINTS_DOWN if board[s] > 0]
    if occupied and (occupied[0] - hi_die > 6 or sum([board[s] for s in occupied if s > 6]) >= 2):
        return _generate_two_free(board, occupied, hi_die, lo_die)
    return _generate_two_off(board, occupied, hi_die, lo_die)


def _generate_two_bar(b: tuple[int, ...], hi: int, lo: int) -> list[Move]:
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
    occupied = [s for s in _POINTS_DOWN if b[s] > 0]
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


def _generate_two_off(b: tuple[int, ...], occupied: list[int], hi: int, lo: int) -> list[Move]:
    """Non-doubles with no checker on the bar when something may be borne off: the plays of
    a search over both orders of the dice (the larger first; then the smaller first for
    new results only), in its order, without the search (tests/core/test_movegen_order.py).

    Every first-and-second step pair of the larger die first is a play; only one checker
    taking both dice (told by its start and the blot hit on the way) can repeat.  With the
    smaller die first, a result is new only for one checker taking both dice, or when the
    first step lets the larger die bear off (bringing the last checker home, or leaving the
    highest point): two bear-offs are then told by their two points.
    """
    if not occupied:
        return []
    new = tuple.__new__
    high0 = occupied[0]
    out0 = b[high0] if high0 > 6 else 0  # at most one checker is outside (see generate)
    second_high = occupied[1] if len(occupied) > 1 else 0
    lo_steps: list[tuple[int, int, Step]] = []  # t <= 0: a bear-off, checked as the play goes
    for s in occupied:
        t = s - lo
        if t > 0:
            if b[t] >= -1:
                lo_steps.append((s, t, (s, t, b[t] == -1)))
        else:
            lo_steps.append((s, t, (s, 0, False)))
    plays: list[Move] = []
    add = plays.append
    one_checker: set[int] = set()  # 32 * start + the point of the blot hit on the way (or 0)
    both_off: set[int] = set()  # 32 * higher + lower point of two bear-offs
    firsts: list[Step] = []  # the larger die's legal steps (R9: if only one number can be played)
    for s1 in occupied:  # the larger die first
        t1 = s1 - hi
        if t1 > 0:
            x = b[t1]
            if x < -1:
                continue
            hit1 = x == -1
        elif out0 or (t1 < 0 and s1 < high0):
            continue  # R14-R15
        else:
            t1, hit1 = 0, False
        step1 = (s1, t1, hit1)
        firsts.append(step1)
        last = b[s1] == 1
        out1 = out0 - (s1 > 6 >= t1)
        high1 = high0 if s1 != high0 or not last else max(second_high, t1)
        up = s1 + lo  # the smaller die from there lands on s1
        for s2, t2, step2 in lo_steps:
            if t2 <= 0 and (out1 or (t2 < 0 and s2 < high1)):
                continue
            if s2 == t1 or s2 == up:  # noqa: SIM109 (one checker in effect)
                key = 32 * (s1 if s1 > s2 else s2)
                if key in one_checker:
                    continue
                one_checker.add(key)
                add(new(Move, (step1, step2)))
            elif s2 == s1 and last:
                continue
            elif t2 == t1 and hit1:  # the blot is gone: the second checker joins the first
                add(new(Move, (step1, (s2, t2, False))))
            else:
                if not t1 and t2 <= 0:
                    both_off.add(32 * s1 + s2 if s1 > s2 else 32 * s2 + s1)
                add(new(Move, (step1, step2)))
        if t1 and b[t1] <= 0:  # the same checker goes on (R7)
            t2 = t1 - lo
            if t2 > 0:
                if b[t2] < -1:
                    continue
                step2 = (t1, t2, b[t2] == -1)
            elif out1 or (t2 < 0 and t1 < high1):
                continue
            else:
                step2 = (t1, 0, False)
            key = 32 * s1 + (t1 if hit1 else 0)
            if key not in one_checker:
                one_checker.add(key)
                add(new(Move, (step1, step2)))
    lo_firsts: list[Step] = []
    for s1 in occupied:  # the smaller die first: new results only
        t1 = s1 - lo
        if t1 > 0:
            x = b[t1]
            if x < -1:
                continue
            hit1 = x == -1
        elif out0 or (t1 < 0 and s1 < high0):
            continue
        else:
            t1, hit1 = 0, False
        step1 = (s1, t1, hit1)
        lo_firsts.append(step1)
        last = b[s1] == 1
        out1 = out0 - (s1 > 6 >= t1)
        high1 = high0 if s1 != high0 or not last else max(second_high, t1)
        up = s1 + hi  # the larger die from there lands on s1
        if out1 == out0 and high1 == high0:
            # Nothing newly allowed to bear off: only one checker taking both dice.
            if up <= 24 and b[up] > 0:
                key = 32 * up
                if key not in one_checker:
                    one_checker.add(key)
                    add(new(Move, (step1, (up, s1, False))))
            others: list[int] = []
        else:
            others = occupied
        for s2 in others:
            if s2 == t1 or s2 == up:  # noqa: SIM109 (one checker in effect)
                if s2 == up:
                    key = 32 * up
                    step2 = (up, s1, False)
                else:  # t1 is a point of ours: no hit on the way
                    t2 = t1 - hi
                    if t2 > 0:
                        if b[t2] < -1:
                            continue
                        step2 = (t1, t2, b[t2] == -1)
                    elif out1 or (t2 < 0 and t1 < high1):
                        continue
                    else:
                        step2 = (t1, 0, False)
                    key = 32 * s1
                if key not in one_checker:
                    one_checker.add(key)
                    add(new(Move, (step1, step2)))
                continue
            if s2 == s1 and last:
                continue
            t2 = s2 - hi
            if t2 > 0 or out1 or (t2 < 0 and s2 < high1):
                continue  # the larger die first makes it (or it is not legal)
            if not out0 and (t2 == 0 or s2 >= high0):
                continue  # legal before the first step: made with the larger die first
            if not t1:
                key = 32 * s1 + s2 if s1 > s2 else 32 * s2 + s1
                if key in both_off:
                    continue
                both_off.add(key)
            add(new(Move, (step1, (s2, 0, False))))
        if t1 and (b[t1] <= 0 or not others):  # the same checker goes on (R7)
            t2 = t1 - hi
            if t2 > 0:
                if b[t2] < -1:
                    continue
                step2 = (t1, t2, b[t2] == -1)
            elif out1 or (t2 < 0 and t1 < high1):
                continue
            else:
                step2 = (t1, 0, False)
            key = 32 * s1 + (t1 if hit1 else 0)
            if key not in one_checker:
                one_checker.add(key)
                add(new(Move, (step1, step2)))
    if plays:
        return plays
    # R9: only one number can be played: the larger if it can be.
    return [new(Move, (step,)) for step in firsts or lo_firsts]


def _generate_double_bar(b: tuple[int, ...], die: int) -> list[Move]:
    """Doubles with checkers on the bar: they all enter first (R12-R13), then the numbers
    left move any checker; nothing can be borne off within the roll (an entered checker
    needs every number left to come home), so landing points stay open or closed, and the
    numbers left are enumerated as in :func:`_generate_double_free`."""
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
    first: list[Step | None] = [None] * 26  # as in _generate_double_free (entry: no blot now)
    again: list[Step | None] = [None] * 26
    for s in range(24, die, -1):
        t = s - die
        if (have[s] or kept[s + die]) and b[t] >= -1:
            kept[s] = True
            sources.append(s)
            first[s] = (s, t, b[t] == -1)
            again[s] = (s, t, False)
    down: list[list[int]] = [[]] * 26  # the sources from each one down, and below it
    below: list[list[int]] = [[]] * 26
    for i, s in enumerate(sources):
        down[s] = sources[i:]
        below[s] = sources[i + 1 :]
    left = 4 - entering
    p = (*prefix, None, None)  # the entering steps, padded for the tuples below
    three: list[Move] = []
    two: list[Move] = []
    one: list[Move] = []
    for s1 in sources:
        if not have[s1]:
            continue
        step1 = first[s1]
        if left == 1:
            one.append(new(Move, (p[0], p[1], p[2], step1)))
            continue
        t1 = s1 - die
        have[s1] -= 1
        have[t1] += 1
        more1 = False
        for s2 in down[s1]:
            n2 = have[s2]
            if not n2:
                continue
            more1 = True
            step2 = again[s2] if s2 == s1 else first[s2]
            if left == 2:
                two.append(new(Move, (p[0], p[1], step1, step2)))
                continue
            # The third step: from s2 again, or from a lower source with a checker.
            if n2 > 1:
                three.append(new(Move, (p[0], step1, step2, again[s2])))
            t2 = s2 - die
            gives = kept[t2] and not have[t2]
            if gives:
                have[t2] = 1
            for s3 in below[s2]:
                if have[s3]:
                    three.append(new(Move, (p[0], step1, step2, first[s3])))
            if gives:
                have[t2] = 0
            if not three:  # R9: as many numbers as possible
                two.append(new(Move, (p[0], step1, step2)))
        if not more1 and not (three or two):
            one.append(new(Move, (*prefix, step1)))
        have[s1] += 1
        have[t1] -= 1
    return three or two or one or [new(Move, prefix)]


def _generate_double_free(b: tuple[int, ...], die: int) -> list[Move]:
    """Doubles with no checker on the bar and no bear-off possible within the roll.

    Every landing point's openness is then fixed for the whole roll, so a play is a
    multiset of up to four step sources, taken in descending order (as in
    :func:`_generate_double`); nested loops over non-increasing sources enumerate each
    multiset, hence each result, exactly once.
    """
    kept = [False] * 32
    sources = []
    # Checkers on each point as the play goes on: read only on sources, which start with
    # ours, none, or a blot of theirs (-1, counted as none).
    have = list(b)
    # Each source's step, made once: the first landing on a blot hits it (R11), a step
    # from the same point as the one before lands where that one hit.
    first: list[Step | None] = [None] * 26
    again: list[Step | None] = [None] * 26
    for s in range(24, die, -1):
        t = s - die
        if (b[s] > 0 or kept[s + die]) and b[t] >= -1:
            kept[s] = True
            sources.append(s)
            first[s] = (s, t, b[t] == -1)
            again[s] = (s, t, False)
            if b[s] < 0:
                have[s] = 0
    # The sources from each one down (itself included), and below it.
    down: list[list[int]] = [[]] * 26
    below: list[list[int]] = [[]] * 26
    for i, s in enumerate(sources):
        down[s] = sources[i:]
        below[s] = sources[i + 1 :]
    new = tuple.__new__
    four: list[Move] = []
    add4 = four.append
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
        for s2 in down[s1]:
            if not have[s2]:
                continue
            t2 = s2 - die
            step2 = again[s2] if s2 == s1 else first[s2]
            have[s2] -= 1
            have[t2] += 1
            for s3 in down[s2]:
                n3 = have[s3]
                if not n3:
                    continue
                t3 = s3 - die
                step3 = again[s3] if s3 == s2 else first[s3]
                # The fourth step: from s3 again, or from a lower source that has a checker
                # (only whether it has one counts, so have[] changes only where t3 gives one).
                if n3 > 1:
                    add4(new(Move, (step1, step2, step3, again[s3])))
                if kept[t3] and not have[t3]:
                    have[t3] = 1
                    for s4 in below[s3]:
                        if have[s4]:
                            add4(new(Move, (step1, step2, step3, first[s4])))
                    have[t3] = 0
                else:
                    for s4 in below[s3]:
                        if have[s4]:
                            add4(new(Move, (step1, step2, step3, first[s4])))
                if not four:  # R9: as many numbers as possible
                    three.append(new(Move, (step1, step2, step3)))
            if not (four or three):  # no third step from here either
                two.append(new(Move, (step1, step2)))
            have[s2] += 1
            have[t2] -= 1
        if not (four or three or two):  # no second step from here either
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
    # A checker on s may not be borne off now (R14-R15) while one is outside or, with a
    # larger number, one is on a higher point: tested inline below (a call costs more).

    new = tuple.__new__
    four: list[Move] = []
    three: list[Move] = []
    two: list[Move] = []
    one: list[Move] = []
    for s1 in sources:
        if not have[s1] or (off[s1] and (outside or (over[s1] and any(have[s1 + 1 : 7])))):
            continue
        t1 = dest[s1]
        have[s1] -= 1
        have[t1] += 1
        outside -= enter[s1]
        step1 = first[s1]
        more1 = False
        for s2 in down[s1]:
            if not have[s2] or (off[s2] and (outside or (over[s2] and any(have[s2 + 1 : 7])))):
                continue
            more1 = True
            t2 = dest[s2]
            step2 = again[s2] if s2 == s1 else first[s2]
            have[s2] -= 1
            have[t2] += 1
            outside -= enter[s2]
            more2 = False
            for s3 in down[s2]:
                if not have[s3] or (off[s3] and (outside or (over[s3] and any(have[s3 + 1 : 7])))):
                    continue
                more2 = True
                t3 = dest[s3]
                step3 = again[s3] if s3 == s2 else first[s3]
                have[s3] -= 1
                have[t3] += 1
                outside -= enter[s3]
                for s4 in down[s3]:
                    if not have[s4] or (
                        off[s4] and (outside or (over[s4] and any(have[s4 + 1 : 7])))
                    ):
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

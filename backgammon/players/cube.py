"""Cube decisions from cubeless probabilities: money (Janowski) and match play (a MET).

Everything here works on plain values so it does not depend on the match layer: a
:class:`CubeState` says the match length (0 for money), the score, the cube value and owner,
whether this is the Crawford game and the money rules in force, all from the point of view
of the side on roll (:meth:`CubeState.from_match` reads them off a ``Match``).

Money: cubeful equity is Janowski's interpolation between the dead-cube equity and the
fully-live-cube equity, weighted by a cube efficiency ``x``.  Match: the same idea in match
winning chances (MWC) over the match-equity table.  Take points are computed level by level
as gnubg does: the dead-cube take point at the doubled value, mixed by ``x`` with the live one
in which the taker may redouble (its cash point being the doubler's take point one level up),
until a level where the redouble would be dead.  The Crawford game and dead cubes (a cube
that cannot usefully be turned) remove the corresponding doubling windows.
"""

from __future__ import annotations

import enum
import itertools
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from backgammon.players.met import KAZAROSS_XG2, MatchEquityTable

if TYPE_CHECKING:
    from backgammon.match import Match

__all__ = [
    "CubeAction",
    "CubeDecision",
    "CubeState",
    "CubeStateError",
    "cube_decision",
    "cube_efficiency",
    "money_equity",
]

Probs = tuple[float, float, float, float, float]


class CubeStateError(ValueError):
    """Impossible cube or score values."""


class CubeAction(enum.Enum):
    """What a player does with the cube."""

    NO_DOUBLE = "no double"
    DOUBLE = "double"
    TAKE = "take"
    PASS = "pass"
    BEAVER = "beaver"


@dataclass(frozen=True)
class CubeState:
    """Cube and score as plain values, from the point of view of the side on roll.

    ``cube_owner`` is 0 for a centred cube, 1 if the side on roll owns it, -1 if the
    opponent does.  ``score`` is the points each side has won so far ``(on roll, other)``;
    ``match_length`` 0 means a money game.
    """

    match_length: int = 0
    score: tuple[int, int] = (0, 0)
    cube_value: int = 1
    cube_owner: int = 0
    crawford: bool = False
    jacoby: bool = False
    beavers: bool = False

    def __post_init__(self) -> None:
        if self.match_length < 0:
            raise CubeStateError(f"match length must be >= 0, got {self.match_length}")
        v = self.cube_value
        if v < 1 or v & (v - 1):
            raise CubeStateError(f"cube value must be a power of two, got {v}")
        if self.cube_owner not in (-1, 0, 1):
            raise CubeStateError(f"cube owner must be -1, 0 or 1, got {self.cube_owner}")
        if self.cube_owner == 0 and v != 1 and self.match_length:
            raise CubeStateError("a centred cube has value 1 in a match")
        if self.match_length:
            a, b = self.score
            if not (0 <= a < self.match_length and 0 <= b < self.match_length):
                raise CubeStateError(
                    f"score {self.score} impossible in a {self.match_length}-point match"
                )
            if self.crawford and min(self.away) != 1:
                raise CubeStateError("the Crawford game needs a side 1 away")
            if self.crawford and self.cube_value != 1:
                raise CubeStateError("no doubling in the Crawford game")
            if self.jacoby or self.beavers:
                raise CubeStateError("Jacoby and beavers are money-game rules")
        elif self.crawford:
            raise CubeStateError("the Crawford rule is for matches")

    @classmethod
    def from_match(cls, match: Match, player: int | None = None) -> CubeState:
        """The cube, score and rules of ``match`` (Crawford, Jacoby, beavers) from
        ``player``'s side; by default from the player on roll, the side ``match.position``
        is seen from (player 0 before the opening roll), so the two go together."""
        if player is None:
            player = match.on_roll if match.on_roll is not None else 0
        rules = match.rules
        owner = match.cube_owner
        score = match.score
        return cls(
            match_length=rules.match_length or 0,
            score=(score[player], score[1 - player]),
            cube_value=match.cube_value,
            cube_owner=0 if owner is None else (1 if owner == player else -1),
            crawford=match.is_crawford_game,
            jacoby=rules.is_money and rules.jacoby,
            beavers=rules.is_money and rules.beavers,
        )

    @property
    def is_money(self) -> bool:
        """True for a money game."""
        return self.match_length == 0

    @property
    def away(self) -> tuple[int, int]:
        """Points each side still needs ``(on roll, other)`` (matches only)."""
        return self.match_length - self.score[0], self.match_length - self.score[1]

    @property
    def post_crawford(self) -> bool:
        """True after the Crawford game (a side is 1 away and this is not the Crawford game)."""
        return not self.is_money and not self.crawford and min(self.away) == 1

    def flip(self) -> CubeState:
        """The same state from the other side's point of view."""
        return CubeState(
            self.match_length,
            (self.score[1], self.score[0]),
            self.cube_value,
            -self.cube_owner,
            self.crawford,
            self.jacoby,
            self.beavers,
        )

    def may_double(self) -> bool:
        """True if the side on roll is allowed to double and the cube is not dead for it."""
        if self.cube_owner == -1 or self.crawford:
            return False
        if self.is_money:
            return True
        return self.away[0] > self.cube_value  # a cube that already wins the match is dead


class CubeDecision(NamedTuple):
    """The three cubeful equities (doubler's view) and what each side should do.

    Money equities are per unit of the *current* cube; match values are match winning
    chances.  ``action`` is the doubler's (DOUBLE or NO_DOUBLE) and ``response`` the
    taker's (TAKE, PASS or BEAVER) if a double were offered.
    """

    no_double: float
    double_take: float
    double_pass: float
    action: CubeAction
    response: CubeAction


def cube_efficiency(race: bool, pips: int) -> float:
    """Janowski's cube efficiency: 0.68 in contact; in a race it grows with the pip count."""
    if not race:
        return 0.68
    return min(0.7, max(0.6, 0.55 + 0.00125 * pips))


def _win_loss_values(p: Probs) -> tuple[float, float]:
    """Average points won when winning and lost when losing (gammons included)."""
    win, wg, wbg, lg, lbg = p
    w = 1.0 + (wg + wbg) / win if win > 1e-9 else 1.0
    lose = 1.0 - win
    l_ = 1.0 + (lg + lbg) / lose if lose > 1e-9 else 1.0
    return w, l_


def _interp(p: float, knots: list[tuple[float, float]]) -> float:
    for (x0, y0), (x1, y1) in itertools.pairwise(knots):
        if p <= x1:
            return y0 if x1 <= x0 else y0 + (y1 - y0) * (p - x0) / (x1 - x0)
    return knots[-1][1]


def money_equity(p: Probs, owner: int, x: float, jacoby: bool = False) -> float:
    """Janowski cubeful money equity per unit cube for the side on roll.

    ``owner``: 0 centred, 1 we own the cube, -1 the opponent does.  With the Jacoby rule
    and a centred cube gammons do not count.
    """
    win = p[0]
    if jacoby and owner == 0:
        w = l_ = 1.0
    else:
        w, l_ = _win_loss_values(p)
    dead = win * w - (1.0 - win) * l_
    tp = (l_ - 0.5) / (w + l_ + 0.5)
    cp = (l_ + 1.0) / (w + l_ + 0.5)
    knots = [(0.0, -l_)]
    if owner <= 0:
        knots.append((tp, -1.0))
    if owner >= 0:
        knots.append((cp, 1.0))
    knots.append((1.0, w))
    live = _interp(win, knots)
    return x * live + (1.0 - x) * dead


def _money(p: Probs, state: CubeState, x: float) -> CubeDecision:
    nd = money_equity(p, state.cube_owner, x, state.jacoby)
    dt = 2.0 * money_equity(p, -1, x)
    dp = 1.0
    return _decide(nd, dt, dp, state, beaver=state.beavers and dt < 0.0)


def _decide(nd: float, dt: float, dp: float, state: CubeState, beaver: bool) -> CubeDecision:
    double = state.may_double() and min(dt, dp) > nd
    if dt > dp:
        response = CubeAction.PASS
    elif beaver:
        response = CubeAction.BEAVER
    else:
        response = CubeAction.TAKE
    return CubeDecision(nd, dt, dp, CubeAction.DOUBLE if double else CubeAction.NO_DOUBLE, response)


def _match_mwc(
    p: Probs, state: CubeState, cube: int, owner: int, x: float, met: MatchEquityTable
) -> float:
    """Cubeful MWC of the side on roll with the cube at ``cube`` owned by ``owner``."""
    a, b = state.away
    post = state.crawford or state.post_crawford  # games after this one are post-Crawford

    def mwc(me: int, opp: int) -> float:
        return met.equity(me, opp, post)

    win, wg, wbg, lg, lbg = p
    outcomes = (
        (win - wg, mwc(a - cube, b)),
        (wg - wbg, mwc(a - 2 * cube, b)),
        (wbg, mwc(a - 3 * cube, b)),
        (1.0 - win - lg, mwc(a, b - cube)),
        (lg - lbg, mwc(a, b - 2 * cube)),
        (lbg, mwc(a, b - 3 * cube)),
    )
    dead = sum(q * m for q, m in outcomes)
    if x == 0.0:
        return dead
    lose = 1.0 - win

    def avg(scale: int, winning: bool) -> float:
        if winning:
            if win < 1e-9:
                return mwc(a - scale, b)
            return (
                (win - wg) * mwc(a - scale, b)
                + (wg - wbg) * mwc(a - 2 * scale, b)
                + wbg * mwc(a - 3 * scale, b)
            ) / win
        if lose < 1e-9:
            return mwc(a, b - scale)
        return (
            (lose - lg) * mwc(a, b - scale)
            + (lg - lbg) * mwc(a, b - 2 * scale)
            + lbg * mwc(a, b - 3 * scale)
        ) / lose

    def take_point(mine: bool, k: int) -> float:
        """The winning chance the taker needs to take a double to ``k`` (then owning it):
        the dead-cube point, mixed by the cube efficiency with the live one in which the
        taker may redouble (whose cash point is the doubler's take point one level up)."""
        if mine:
            w, lo = avg(k, True), avg(k, False)
            pass_, cash = mwc(a, b - k // 2), mwc(a - k, b)
            redouble = a > k
        else:
            w, lo = 1.0 - avg(k, False), 1.0 - avg(k, True)
            pass_, cash = 1.0 - mwc(a - k // 2, b), 1.0 - mwc(a, b - k)
            redouble = b > k
        if w <= lo:
            return 0.0
        dead = min(max((pass_ - lo) / (w - lo), 0.0), 1.0)
        if not redouble or k >= 64 * cube or cash <= lo:
            return dead
        cash_point = 1.0 - take_point(not mine, 2 * k)
        live_tp = min(max(cash_point * (pass_ - lo) / (cash - lo), 0.0), 1.0)
        return x * live_tp + (1.0 - x) * dead

    w1, l1 = avg(cube, True), avg(cube, False)
    i_can = owner >= 0 and not state.crawford and a > cube
    they_can = owner <= 0 and not state.crawford and b > cube
    knots = [(0.0, l1)]
    if they_can:
        knots.append((take_point(True, 2 * cube), mwc(a, b - cube)))
    if i_can:
        cp = 1.0 - take_point(False, 2 * cube)
        if cp >= knots[-1][0]:
            knots.append((cp, mwc(a - cube, b)))
    knots.append((1.0, w1))
    live = _interp(win, knots)
    return x * live + (1.0 - x) * dead


def cube_decision(
    probs: Probs | list[float],
    state: CubeState,
    x: float = 0.68,
    met: MatchEquityTable = KAZAROSS_XG2,
) -> CubeDecision:
    """Double or not, and take, pass or beaver, for the side on roll's probabilities."""
    p = tuple(float(v) for v in probs)
    if len(p) != 5:
        raise ValueError(f"need five probabilities, got {len(p)}")
    p5: Probs = (p[0], p[1], p[2], p[3], p[4])
    if state.is_money:
        return _money(p5, state, x)
    a, b = state.away
    v = state.cube_value
    nd = _match_mwc(p5, state, v, state.cube_owner, x, met)
    dt = _match_mwc(p5, state, 2 * v, -1, x, met)
    dp = met.equity(a - v, b, state.crawford or state.post_crawford)
    return _decide(nd, dt, dp, state, beaver=False)

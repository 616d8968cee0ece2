"""Cubeful values from cubeless probabilities: money (Janowski) and match play (a MET).

Everything here works on plain values so it does not depend on the match layer: a
:class:`CubeState` says the match length (0 for money), the score, the cube value and owner,
whether this is the Crawford game and the money rules in force, all from the point of view
of the side on roll (:meth:`CubeState.from_match` reads them off a ``Match``).

The method is gnubg's at 0-ply.  Money: Janowski's interpolation between the dead-cube
equity and the fully-live-cube one (linear between take and cash points), weighted by the
cube life ``x``; Jacoby and beavers respected.  Match: the same in match winning chances
(MWC) over the match-equity table, the live cash points found level by level from the
highest cube that would be dead (with the taker's automatic redouble) down to the current
one; the Crawford game, 2-away/2-away and cubes dead for both sides leave the dead-cube MWC.
:func:`to_emg` expresses an MWC as equity normalised to a money game (EMG).  Lookahead
(1- and 2-ply) is in :class:`~backgammon.evaluation.search.Searcher`.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

import numpy as np
import numpy.typing as npt
from numpy.typing import ArrayLike

from backgammon.evaluation.met import KAZAROSS_XG2, MatchEquityTable
from backgammon.evaluation.probabilities import MONEY_WEIGHTS

if TYPE_CHECKING:
    from backgammon.play.match import Match

__all__ = [
    "CubeAction",
    "CubeDecision",
    "CubeState",
    "CubeStateError",
    "best_cube_value",
    "cube_decision",
    "cube_efficiency",
    "cube_values",
    "cubeful",
    "dead_cube_weights",
    "decision_from_values",
    "double_pass_value",
    "emg_to_mwc",
    "money_equity",
    "to_emg",
]

Probs = tuple[float, float, float, float, float]
FloatArray = npt.NDArray[np.float64]
Ratios = tuple[FloatArray, FloatArray]


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

    def doubled(self) -> CubeState:
        """The cube after the side on roll doubles and is taken: twice the value, the
        opponent's."""
        return CubeState(
            self.match_length,
            self.score,
            2 * self.cube_value,
            -1,
            False,
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
    """Janowski's cube efficiency as gnubg sets it: 0.68 in contact; in a race it grows
    with the pip count of the side on roll, from 0.6 to 0.7."""
    if not race:
        return 0.68
    return min(0.7, max(0.6, 0.55 + 0.00125 * pips))


def _rows(probs: ArrayLike) -> FloatArray:
    p = np.asarray(probs, dtype=np.float64)
    if p.shape[-1:] != (5,):
        raise ValueError(f"need five probabilities, got shape {p.shape}")
    return p.reshape(-1, 5)


def _divide(num: ArrayLike, den: ArrayLike, otherwise: float) -> FloatArray:
    """``num / den``, or ``otherwise`` where ``den`` is zero."""
    n, d = np.asarray(num, dtype=np.float64), np.asarray(den, dtype=np.float64)
    ok = np.abs(d) > 1e-12
    return np.asarray(np.where(ok, n / np.where(ok, d, 1.0), otherwise))


def _lerp(
    p: FloatArray, x0: FloatArray, y0: FloatArray, x1: FloatArray, y1: FloatArray
) -> FloatArray:
    """The line through (x0, y0) and (x1, y1) at p (y1 where the two x coincide)."""
    span = x1 - x0
    ok = np.abs(span) > 1e-12
    return np.where(ok, y0 + (y1 - y0) * (p - x0) / np.where(ok, span, 1.0), y1)


def _ratios(p: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    """Share of gammons (not backgammons) and of backgammons among wins, then among losses."""
    win, lose = p[:, 0], 1.0 - p[:, 0]
    w = np.where(win > 0.0, win, 1.0)
    lo = np.where(lose > 0.0, lose, 1.0)
    g0 = np.where(win > 0.0, (p[:, 1] - p[:, 2]) / w, 0.0)
    b0 = np.where(win > 0.0, p[:, 2] / w, 0.0)
    g1 = np.where(lose > 0.0, (p[:, 3] - p[:, 4]) / lo, 0.0)
    b1 = np.where(lose > 0.0, p[:, 4] / lo, 0.0)
    return g0, b0, g1, b1


# ---------------------------------------------------------------------------- money


def _money_cubeful(p: FloatArray, owner: int, x: FloatArray, jacoby: bool) -> FloatArray:
    """Janowski's cubeful money equity per unit cube: the dead-cube equity and the
    fully-live one (linear between the take and cash points) mixed by the cube life ``x``.
    With Jacoby and a centred cube gammons count neither dead nor beyond the cash point."""
    win = p[:, 0]
    gp = 0.0 if (jacoby and owner == 0) else 1.0
    dead = 2.0 * win - 1.0 + gp * (p[:, 1] - p[:, 3] + p[:, 2] - p[:, 4])
    usable = (win > 1e-7) & (win < 1.0 - 1e-7)
    ws = np.where(usable, win, 0.5)
    rw = 1.0 + (p[:, 1] + p[:, 2]) / ws
    rl = 1.0 + (p[:, 3] + p[:, 4]) / (1.0 - ws)
    tp = (rl - 0.5) / (rw + rl + 0.5)
    cp = (rl + 1.0) / (rw + rl + 0.5)
    zero, one = np.zeros_like(win), np.ones_like(win)
    if owner == 0:
        low = -one if jacoby else _lerp(win, zero, -rl, tp, -one)
        high = one if jacoby else _lerp(win, cp, one, one, rw)
        live = np.where(win < tp, low, np.where(win < cp, _lerp(win, tp, -one, cp, one), high))
    elif owner == 1:
        live = np.where(win < cp, _lerp(win, zero, -rl, cp, one), _lerp(win, cp, one, one, rw))
    else:
        live = np.where(win < tp, _lerp(win, zero, -rl, tp, -one), _lerp(win, tp, -one, one, rw))
    return np.where(usable, dead * (1.0 - x) + live * x, dead)


# ---------------------------------------------------------------------------- match


def _cubeful_match_needed(state: CubeState, cube: int) -> bool:
    """False where the cube can no longer matter and the MWC is the dead-cube one: both
    sides win the match with a single game, 2-away/2-away, or the Crawford game."""
    a, b = state.away
    if a <= cube and b <= cube:
        return False
    if a == 2 and b == 2:
        return False
    return not state.crawford


class _Met:
    """MWC of the side on roll after the game, by points each side still needs."""

    def __init__(self, state: CubeState, met: MatchEquityTable) -> None:
        self.a, self.b = state.away
        self.post = state.crawford or state.post_crawford
        self.met = met
        self._seen: dict[tuple[int, int], float] = {}

    def __call__(self, won: int, lost: int) -> float:
        """The side on roll wins ``won`` points and loses ``lost`` (one of them zero)."""
        key = (won, lost)
        value = self._seen.get(key)
        if value is None:
            value = self._seen[key] = self.met.equity(self.a - won, self.b - lost, self.post)
        return value

    def win(self, v: int, g: FloatArray, b: FloatArray) -> FloatArray:
        """Average MWC when the side on roll wins with cube ``v`` and these gammon ratios."""
        return (1.0 - g - b) * self(v, 0) + g * self(2 * v, 0) + b * self(3 * v, 0)

    def lose(self, v: int, g: FloatArray, b: FloatArray) -> FloatArray:
        """Average MWC when the side on roll loses with cube ``v`` and the other's ratios."""
        return (1.0 - g - b) * self(0, v) + g * self(0, 2 * v) + b * self(0, 3 * v)


def _cash_points(
    ratios: tuple[FloatArray, FloatArray, FloatArray, FloatArray],
    m: _Met,
    state: CubeState,
    cube: int,
) -> tuple[FloatArray, FloatArray]:
    """Fully-live cash points at cube ``cube``, each in its own side's winning chances:
    (side on roll, other side).  From the highest level where a double would be dead (its
    take point is the dead one, the taker's automatic redouble allowed for) down to
    ``cube``: a side's cash point is where the other's take, holding the doubled cube with
    its own live cash point one level up, stops being worth more than passing.  ``ratios``
    are :func:`_ratios` of the probabilities, ``m`` the MWC lookups of ``state``."""
    g0, b0, g1, b1 = ratios
    a, b = state.away

    # Per side k (0 = on roll): its away, the other's, its gammon ratios and the other's,
    # and MWC lookups from k's side.
    def from_me(won: int, lost: int) -> float:
        return m(won, lost)

    def from_other(won: int, lost: int) -> float:
        return 1.0 - m(lost, won)

    sides: tuple[tuple[int, int, Ratios, Ratios, Callable[[int, int], float]], ...] = (
        (a, b, (g0, b0), (g1, b1), from_me),
        (b, a, (g1, b1), (g0, b0), from_other),
    )

    def avg(
        look: Callable[[int, int], float], v: int, gb: tuple[FloatArray, FloatArray], win: bool
    ) -> FloatArray:
        g, bg = gb
        pts = (v, 2 * v, 3 * v)
        vals = [look(q, 0) if win else look(0, q) for q in pts]
        return (1.0 - g - bg) * vals[0] + g * vals[1] + bg * vals[2]

    top = cube
    while a > 2 * top and b > 2 * top:
        top *= 2
    live: dict[int, list[FloatArray]] = {}
    v = top
    while v >= cube:
        cps: list[FloatArray] = []
        for k, (mine, theirs, my_gb, their_gb, look) in enumerate(sides):
            cash = look(v, 0)
            if a <= 2 * v or b <= 2 * v:
                # The doubled cube is dead; the taker redoubles at once if the doubler would
                # win the match with it and the taker would not.
                c = 4 * v if (mine <= 2 * v < theirs) else 2 * v
                dtl = avg(look, c, their_gb, False)
                dtw = avg(look, c, my_gb, True)
                cps.append(_divide(dtl - cash, dtl - dtw, 1.0))
            else:
                rdp = look(0, 2 * v)
                dtw = avg(look, 2 * v, my_gb, True)
                other_cp = live[2 * v][1 - k]
                cps.append(1.0 - other_cp * _divide(cash - dtw, rdp - dtw, 0.0))
        live[v] = cps
        v //= 2
    return live[cube][0], live[cube][1]


def _match_cubeful(
    p: FloatArray, state: CubeState, x: FloatArray, met: MatchEquityTable
) -> FloatArray:
    """Cubeful MWC of the side on roll (gnubg's 0-ply method): the dead-cube MWC and the
    live-cube one, piecewise linear in the winning chance through the cash points the cube
    position allows, mixed by the cube life ``x``."""
    m = _Met(state, met)
    v = state.cube_value
    g0, b0, g1, b1 = _ratios(p)
    win = p[:, 0]
    dead = (
        (win - p[:, 1]) * m(v, 0)
        + (p[:, 1] - p[:, 2]) * m(2 * v, 0)
        + p[:, 2] * m(3 * v, 0)
        + (1.0 - win - p[:, 3]) * m(0, v)
        + (p[:, 3] - p[:, 4]) * m(0, 2 * v)
        + p[:, 4] * m(0, 3 * v)
    )
    if not _cubeful_match_needed(state, v):
        return dead
    cp_me, cp_opp = _cash_points((g0, b0, g1, b1), m, state, v)
    tg, opp_tg = cp_me, 1.0 - cp_opp
    cash, opp_cash = np.full_like(win, m(v, 0)), np.full_like(win, m(0, v))
    mwc_win, mwc_lose = m.win(v, g0, b0), m.lose(v, g1, b1)
    zero, one = np.zeros_like(win), np.ones_like(win)
    if state.cube_owner == 0:
        live = np.where(
            win <= opp_tg,
            _lerp(win, zero, mwc_lose, opp_tg, opp_cash),
            np.where(
                win < tg,
                _lerp(win, opp_tg, opp_cash, tg, cash),
                _lerp(win, tg, cash, one, mwc_win),
            ),
        )
    elif state.cube_owner == 1:
        live = np.where(
            win <= tg, _lerp(win, zero, mwc_lose, tg, cash), _lerp(win, tg, cash, one, mwc_win)
        )
    else:
        live = np.where(
            win <= opp_tg,
            _lerp(win, zero, mwc_lose, opp_tg, opp_cash),
            _lerp(win, opp_tg, opp_cash, one, mwc_win),
        )
    return dead * (1.0 - x) + live * x


# ---------------------------------------------------------------------------- together


def cubeful(
    probs: ArrayLike, state: CubeState, x: ArrayLike = 0.68, met: MatchEquityTable = KAZAROSS_XG2
) -> FloatArray:
    """0-ply cubeful value for the side on roll, leaving the cube where ``state`` has it
    (no cube action now; later doubles are in the live-cube model): money equity per unit
    of the current cube, or the match winning chance.  ``probs`` is one row or ``(N, 5)``,
    ``x`` the cube life (one value or one per row); returns one value per row."""
    p = _rows(probs)
    xs = np.broadcast_to(np.asarray(x, dtype=np.float64), (len(p),))
    if state.is_money:
        return _money_cubeful(p, state.cube_owner, xs, state.jacoby)
    return _match_cubeful(p, state, xs, met)


def double_pass_value(state: CubeState, met: MatchEquityTable = KAZAROSS_XG2) -> float:
    """What the side on roll gets if it doubles and is passed: one unit of the current cube
    (money), or the MWC of winning the cube's points."""
    if state.is_money:
        return 1.0
    a, b = state.away
    return met.equity(a - state.cube_value, b, state.crawford or state.post_crawford)


def cube_values(
    probs: ArrayLike, state: CubeState, x: ArrayLike = 0.68, met: MatchEquityTable = KAZAROSS_XG2
) -> tuple[FloatArray, FloatArray, float]:
    """No double, double/take and double/pass for the side on roll at 0-ply (money per unit
    of the current cube, so double/take counts the doubled cube twice)."""
    nd = cubeful(probs, state, x, met)
    dt = cubeful(probs, state.doubled(), x, met)
    if state.is_money:
        dt = 2.0 * dt
    return nd, dt, double_pass_value(state, met)


def best_cube_value(nd: FloatArray, dt: FloatArray, dp: float, state: CubeState) -> FloatArray:
    """The side on roll's value after its best cube action (no double, or the taker's best
    answer to a double when doubling is at least as good), as gnubg does inside a lookahead."""
    if not state.may_double():
        return nd
    answer = np.minimum(dt, dp)
    return np.where(answer >= nd, answer, nd)


def to_emg(value: ArrayLike, state: CubeState, met: MatchEquityTable = KAZAROSS_XG2) -> FloatArray:
    """A cubeful value as equity normalised to a money game (EMG): money equities are
    already per unit cube; an MWC maps linearly so that losing the cube's points is -1 and
    winning them +1 (gnubg's mwc2eq)."""
    v = np.asarray(value, dtype=np.float64)
    if state.is_money:
        return v
    m = _Met(state, met)
    w, lo = m(state.cube_value, 0), m(0, state.cube_value)
    return np.asarray((2.0 * v - (w + lo)) / (w - lo))


def emg_to_mwc(
    emg: ArrayLike, state: CubeState, met: MatchEquityTable = KAZAROSS_XG2
) -> FloatArray:
    """The inverse of :func:`to_emg` in a match (money: the value itself)."""
    e = np.asarray(emg, dtype=np.float64)
    if state.is_money:
        return e
    m = _Met(state, met)
    w, lo = m(state.cube_value, 0), m(0, state.cube_value)
    return np.asarray(0.5 * (e * (w - lo) + (w + lo)))


def dead_cube_weights(
    state: CubeState, met: MatchEquityTable = KAZAROSS_XG2
) -> tuple[FloatArray, float]:
    """The side on roll's dead-cube value as ``w @ p + c`` of the five probabilities:
    cubeless money equity, or in a match the MWC of each outcome through the table."""
    if state.is_money:
        return MONEY_WEIGHTS
    m = _Met(state, met)
    v = state.cube_value
    w1, w2, w3 = m(v, 0), m(2 * v, 0), m(3 * v, 0)
    l1, l2, l3 = m(0, v), m(0, 2 * v), m(0, 3 * v)
    # p = (win, win g+, win bg, lose g+, lose bg) are cumulative: outcomes are differences.
    return np.array([w1 - l1, w2 - w1, w3 - w2, l2 - l1, l3 - l2]), l1


def money_equity(p: Probs, owner: int, x: float, jacoby: bool = False) -> float:
    """Janowski cubeful money equity per unit cube for the side on roll.

    ``owner``: 0 centred, 1 we own the cube, -1 the opponent does.  With the Jacoby rule
    and a centred cube gammons do not count.
    """
    return float(_money_cubeful(_rows(p), owner, np.array([x]), jacoby)[0])


def decision_from_values(nd: float, dt: float, dp: float, state: CubeState) -> CubeDecision:
    """The doubler's action and the taker's answer from the three cubeful values (the
    doubler's view).  With beavers a taker beavers a double whose take is worth less than
    nothing to the doubler, which the doubler must then count twice."""
    beaver = state.is_money and state.beavers and dt < 0.0
    effective = 2.0 * dt if beaver else dt
    double = state.may_double() and min(effective, dp) >= nd
    if dt > dp:
        response = CubeAction.PASS
    elif beaver:
        response = CubeAction.BEAVER
    else:
        response = CubeAction.TAKE
    action = CubeAction.DOUBLE if double else CubeAction.NO_DOUBLE
    return CubeDecision(nd, dt, dp, action, response)


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
    nd, dt, dp = cube_values(p, state, x, met)
    return decision_from_values(float(nd[0]), float(dt[0]), dp, state)

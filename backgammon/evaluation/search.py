"""Lookahead at 0, 1 and 2 ply with move filtering, wrapping any evaluator.

0-ply is the evaluator (:class:`~backgammon.evaluation.evaluator.CompositeEvaluator` in play).
n-ply averages the 21 rolls of the side on roll, each played with the best of its plays:
candidates are ranked at 0-ply and only the best few are looked at more deeply.  All
candidate plays of a roll are evaluated in one numpy call.

Cubeful lookahead (:meth:`Searcher.cubeful`, :meth:`Searcher.rank_cubeful`) follows gnubg:
every node carries the cube positions it is asked about; a leaf turns its probabilities
into cubeful values (:mod:`~backgammon.evaluation.cube`), where the side on roll also takes
its best cube action unless it is the top of the search; an inner node averages its
children over the 21 rolls, the children asked both about the cube as it is and, where the
side on roll may double, about the doubled cube.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from backgammon.core.position import Position
from backgammon.core.values import Move, iter_weighted_rolls
from backgammon.evaluation.bearoff2 import COLUMN_OF_OWNER, OPPONENT_OWNS, TwoSidedDatabase
from backgammon.evaluation.children import child_boards
from backgammon.evaluation.cube import (
    CubeState,
    best_cube_value,
    cubeful,
    dead_cube_weights,
    double_pass_value,
    to_emg,
)
from backgammon.evaluation.encode import after_boards, boards_array, is_race
from backgammon.evaluation.evaluator import Evaluator
from backgammon.evaluation.met import KAZAROSS_XG2, MatchEquityTable
from backgammon.evaluation.probabilities import MONEY_WEIGHTS, flip_probs
from backgammon.evaluation.prune import PruneNet, default_pruner, pruned_plays

__all__ = [
    "MoveFilter",
    "Searcher",
    "best_in_segments",
    "cube_lives",
    "roll_boards",
    "roll_boards_many",
    "roll_children",
]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

_ROLLS = list(iter_weighted_rolls())
_ROLL_WEIGHTS = np.array([float(w) for _, _, w in _ROLLS])
_ROLL_DICE = np.array([(a, b) for a, b, _ in _ROLLS])
_REMEMBERED = 160
"""Positions whose expansions a searcher keeps (a 2-ply candidate brings about 20)."""


def cube_lives(boards: IntArray) -> FloatArray:
    """gnubg's cube efficiency of each board (side on roll's view): 0.68 in contact, in a
    race 0.55 + 0.00125 per pip of the side on roll within 0.6-0.7, 0 once the game is over."""
    b = np.asarray(boards, dtype=np.int64).reshape(-1, 26)
    pips = (np.maximum(b, 0) * np.arange(26)).sum(axis=1)
    x = np.where(is_race(b), np.clip(0.55 + 0.00125 * pips, 0.6, 0.7), 0.68)
    over = ~(b > 0).any(axis=1) | ~(b < 0).any(axis=1)
    return np.asarray(np.where(over, 0.0, x))


def roll_boards(pos: Position) -> tuple[IntArray, list[tuple[int, int, int, int, float]]]:
    """The boards after every play of every one of the 21 rolls (the turn passing when
    there is none), seen from the side then on roll, made as one array
    (:func:`~backgammon.evaluation.children.child_boards`), and per roll ``(die1, die2,
    start, end, weight)`` into it."""
    boards, per_roll = child_boards([pos.board] * len(_ROLLS), _ROLL_DICE)
    ends: list[int] = np.cumsum(per_roll).tolist()
    starts = [0, *ends[:-1]]
    segments = [
        (a, b, s, e, float(w)) for (a, b, w), s, e in zip(_ROLLS, starts, ends, strict=True)
    ]
    return boards, segments


def roll_boards_many(positions: Sequence[Position]) -> tuple[IntArray, IntArray]:
    """:func:`roll_boards` of many positions as one array, and how many rows each
    ``(position, roll)`` has (positions first, then the rolls in :func:`roll_boards`'s
    order): the plays of a whole ply of a lookahead made and judged together."""
    if not positions:
        return child_boards(np.zeros((0, 26), np.int64), np.zeros((0, 2), np.int64))
    boards = np.repeat(np.array([pos.board for pos in positions]), len(_ROLLS), axis=0)
    return child_boards(boards, np.tile(_ROLL_DICE, (len(positions), 1)))


def best_in_segments(values: FloatArray, counts: IntArray) -> IntArray:
    """The index of the largest of ``values`` in each run of ``counts`` rows (every count
    at least 1; the first of equal ones, as ``np.argmax`` picks): each roll's best play."""
    starts = np.zeros(len(counts), dtype=np.int64)
    np.cumsum(counts[:-1], out=starts[1:])
    seg = np.repeat(np.arange(len(counts)), counts)
    hits = np.flatnonzero(values == np.maximum.reduceat(values, starts)[seg])
    _, first = np.unique(seg[hits], return_index=True)
    return np.asarray(hits[first])


def roll_children(pos: Position) -> tuple[list[Position], list[tuple[int, int, int, int, float]]]:
    """:func:`roll_boards` as positions."""
    boards, segments = roll_boards(pos)
    return [Position(b) for b in boards.tolist()], segments


@dataclass(frozen=True)
class MoveFilter:
    """Which plays a lookahead judges deeper, chosen by their 0-ply values as gnubg's move
    filters choose: those within ``width`` of the best, ``most`` at most, and at least
    ``least`` of them wherever the roll has that many plays.

    >>> MoveFilter(most=8, width=0.16, least=5).pick(np.array([0.3, 0.1, 0.25, -0.5, 0.0, 0.2]))
    [0, 2, 5, 1, 4]
    """

    most: int = 8
    width: float = 0.16
    least: int = 0

    def pick(self, values: FloatArray) -> list[int]:
        """The indices of the plays kept, best first (``values``: their 0-ply values)."""
        order = [int(i) for i in np.argsort(-values, kind="stable")]
        top = values[order[0]]
        near = sum(1 for i in order[: self.most] if values[i] >= top - self.width)
        return order[: max(near, min(self.least, self.most))]


def _flip_values(values: FloatArray, money: bool) -> FloatArray:
    """Cubeful values seen from the other side: minus an equity, one minus an MWC."""
    return -values if money else 1.0 - values


class Searcher:
    """The multi-ply evaluator: evaluates positions and ranks plays at a given depth on top
    of any 0-ply :class:`~backgammon.evaluation.evaluator.Evaluator`."""

    def __init__(
        self,
        evaluator: Evaluator,
        weights: tuple[FloatArray, float] | None = None,
        filter_moves: int = 5,
        filter_width: float = 0.16,
        deep_moves: int = 1,
        odd_blend: float = 1.0,
        prune: int = 0,
        pruner: PruneNet | None = None,
    ) -> None:
        """``weights`` turn probabilities into the equity to maximise (money by default);
        ``filter_moves``/``filter_width`` bound the plays looked at beyond 0-ply and
        ``deep_moves`` the replies looked at inside a 2-ply lookahead.  ``odd_blend`` is
        the weight of a 1-ply judgement asked for, the rest going to the 0-ply one (1: the
        1-ply alone): a net fitted to 2-ply lookahead judges like an even depth, and one
        ply on top of it leans the way odd depths do, which the mean with 0-ply evens out
        (gnubg's "1.5-ply").  ``prune``: inside a lookahead, the full evaluator judges
        only the ``prune`` plays of each roll that the pruning net (``pruner``, the shipped
        one by default) ranks best, as gnubg's pruning nets do (0: every play)."""
        self.evaluator = evaluator
        self.met: MatchEquityTable = KAZAROSS_XG2
        self._recent: dict[tuple[int, ...], Any] = {}
        self.w, self.c = weights if weights is not None else MONEY_WEIGHTS
        self.filter_moves = filter_moves
        self.filter_width = filter_width
        self.deep_moves = deep_moves
        if not 0.0 <= odd_blend <= 1.0:
            raise ValueError(f"odd_blend is a weight in [0, 1], not {odd_blend}")
        self.odd_blend = odd_blend
        if prune < 0:
            raise ValueError(f"prune is a number of plays a roll (0: all), not {prune}")
        self.prune = prune
        self.pruner = (pruner or default_pruner()) if prune else None

    # ------------------------------------------------------------------ 0-ply
    def probs_after(self, boards: IntArray) -> FloatArray:
        """0-ply probabilities for the side that has just played (opponent on roll)."""
        return flip_probs(self.evaluator.evaluate(boards))

    def equity(self, probs: FloatArray) -> FloatArray:
        """The equity being maximised, for each row of probabilities."""
        return np.asarray(probs @ self.w + self.c)

    # ------------------------------------------------------------------ n-ply
    def evaluate(self, position: Position, plies: int = 0) -> FloatArray:
        """Probabilities for the side on roll of a position at ``plies`` (a finished game's
        are exact at any depth); a 1-ply judgement is blended with 0-ply's by ``odd_blend``."""
        p = self._evaluate(position, plies)
        if plies == 1 and self.odd_blend < 1.0:
            p = self.blend_odd(p, self._evaluate(position, 0))
        return p

    def evaluate_many(self, positions: Sequence[Position], plies: int = 0) -> FloatArray:
        """:meth:`evaluate` of many positions, ``(N, 5)``: at 1 ply the 21 rolls' plays of
        them all judged in one batch (rollouts' lookahead players, a ply of all their
        games at once); 2 ply goes one position at a time."""
        if plies != 1:
            return np.array([self.evaluate(p, plies) for p in positions]).reshape(-1, 5)
        out = np.empty((len(positions), 5))
        leaf = [p.is_game_over() or self._exact(p) for p in positions]
        for over, rows in ((True, np.flatnonzero(leaf)), (False, np.flatnonzero(~np.array(leaf)))):
            if not len(rows):
                continue
            some = [positions[i] for i in rows.tolist()]
            if over:
                out[rows] = self._evaluate_many(some, 0)
            elif self.odd_blend < 1.0:
                out[rows] = self.blend_odd(
                    self._evaluate_many(some, 1), self._evaluate_many(some, 0)
                )
            else:
                out[rows] = self._evaluate_many(some, 1)
        return out

    def _evaluate_many(self, positions: Sequence[Position], plies: int) -> FloatArray:
        """0-ply probabilities of ``positions``, or (``plies`` 1, none of them over) the
        mean over the 21 rolls of each one's best play, each distinct position once."""
        if plies <= 0:
            return np.asarray(self.evaluator.evaluate(boards_array(p.board for p in positions)))
        unique: dict[Position, int] = {}
        slot = [unique.setdefault(p, len(unique)) for p in positions]
        looked = list(unique)
        _, per_roll, raw = self._expanded_many(looked)
        probs = flip_probs(raw)
        best = probs[best_in_segments(self.equity(probs), per_roll)]
        total = np.einsum("r,krj->kj", _ROLL_WEIGHTS, best.reshape(len(looked), 21, 5))
        return np.asarray((total / 36.0)[slot])

    def best_after_many(
        self, positions: Sequence[Position], rolls: Sequence[Sequence[int]], plies: int
    ) -> list[Position]:
        """The position after :meth:`best_move`'s play of each ``(position, roll)`` (the
        turn passing when there is none), the plays of all of them judged together at each
        depth: the candidates at 0 ply in one batch, those the filter keeps at ``plies``
        in another."""
        boards, counts = child_boards([p.board for p in positions], rolls)
        eq = self.equity(self.probs_after(boards))
        ends: list[int] = np.cumsum(counts).tolist()
        starts = [0, *ends[:-1]]
        chosen = list(starts)
        deep: list[tuple[int, int, int]] = []  # (game, play, row)
        for k, (start, end) in enumerate(zip(starts, ends, strict=True)):
            if end - start > 1 and plies > 0:
                deep += [(k, i, start + i) for i in self._candidates(eq[start:end], plies)]
            elif end - start > 1:
                chosen[k] = start + int(np.argmax(eq[start:end]))
        if deep:
            afters = [Position(boards[row].tolist()) for _, _, row in deep]
            values = self.equity(flip_probs(self.evaluate_many(afters, plies)))
            best: dict[int, tuple[float, int, int]] = {}
            for (k, i, row), v in zip(deep, values.tolist(), strict=True):
                if k not in best or (-v, i) < (-best[k][0], best[k][1]):
                    best[k] = (v, i, row)
            for k, (_, _, row) in best.items():
                chosen[k] = row
        return [Position(b) for b in boards[chosen].tolist()]

    def blend_odd(self, one: FloatArray, zero: FloatArray) -> FloatArray:
        """A 1-ply judgement ``one`` blended with the 0-ply ``zero`` by ``odd_blend``: one
        more ply leans the way odd depths do, and the mean of the two judges best."""
        return self.odd_blend * one + (1.0 - self.odd_blend) * zero

    def _evaluate(self, pos: Position, plies: int) -> FloatArray:
        if plies <= 0 or pos.is_game_over() or self._exact(pos):
            return np.asarray(self.evaluator.evaluate(boards_array([pos.board]))[0])
        if plies == 1:
            return np.asarray(self._evaluate_many([pos], 1)[0])
        total = np.zeros(5)
        segments, boards, raw = self._expanded(pos)
        all_probs = flip_probs(raw)
        eq = self.equity(all_probs)
        for _, _, start, end, weight in segments:
            keep = self._filter(eq[start:end], self.deep_moves)
            best_p: FloatArray | None = None
            best_e = -np.inf
            for i in keep:
                after = Position(boards[start + i].tolist())
                q = flip_probs(self._evaluate(after, plies - 1))
                e = float(self.equity(q[None, :])[0])
                if e > best_e:
                    best_e, best_p = e, q
            assert best_p is not None
            total += weight * best_p
        return total / 36.0

    def _candidates(self, eq: FloatArray, plies: int) -> list[int]:
        """The plays (by index in ``eq``, their 0-ply equities) a search at ``plies`` judges
        deeper: the filter's count at 1 ply, half of it (two at least) beyond."""
        limit = self.filter_moves if plies == 1 else max(2, self.filter_moves // 2)
        return self._filter(eq, limit)

    def _filter(self, eq: FloatArray, limit: int) -> list[int]:
        order = np.argsort(-eq, kind="stable")
        top = eq[order[0]]
        return [int(i) for i in order[:limit] if eq[i] >= top - self.filter_width]

    # ------------------------------------------------------------------ cubeful
    def _leaf_values(
        self, probs: FloatArray, boards: IntArray, states: Sequence[CubeState], top: bool
    ) -> FloatArray:
        """``(N, S)`` cubeful values of leaves for each cube position (side on roll); in
        money play the two-sided bear-off database's exact values where it covers them."""
        xs = cube_lives(boards)
        exact = self._exact_money(boards) if states and states[0].is_money else None
        cols = []
        for s in states:
            nd = cubeful(probs, s, xs, self.met)
            if exact is not None:
                nd[exact[0]] = exact[1][:, COLUMN_OF_OWNER[s.cube_owner]]
            if top or not s.may_double():
                cols.append(nd)
                continue
            dt = cubeful(probs, s.doubled(), xs, self.met) * (2.0 if s.is_money else 1.0)
            if exact is not None:
                dt[exact[0]] = 2.0 * exact[1][:, OPPONENT_OWNS]
            cols.append(best_cube_value(nd, dt, double_pass_value(s, self.met), s))
        return np.stack(cols, axis=1)

    def _exact(self, position: Position) -> bool:
        """True if the evaluator's two-sided bear-off database knows ``position`` exactly
        (its 0-ply judgement, and in money play its cubeful values, need no lookahead)."""
        db: TwoSidedDatabase | None = getattr(self.evaluator, "two_sided", None)
        return db is not None and db.covers_board(position.board)

    def _exact_money(self, boards: IntArray) -> tuple[npt.NDArray[np.bool_], FloatArray] | None:
        """Where the evaluator's two-sided bear-off database covers ``boards``, and their
        four equities there (:mod:`~backgammon.evaluation.bearoff2`); None if nowhere."""
        db: TwoSidedDatabase | None = getattr(self.evaluator, "two_sided", None)
        if db is None:
            return None
        mask = db.covers(boards)
        if not mask.any():
            return None
        return mask, db.equities(boards[mask])

    def _children(self, states: Sequence[CubeState], top: bool) -> list[CubeState]:
        """The cube positions asked of a child (the opponent on roll): per state the cube as
        it is, then (not at the top, where the side on roll may double) the doubled cube."""
        out = []
        for s in states:
            out.append(s.flip())
            if not top and s.may_double():
                out.append(s.doubled().flip())
        return out

    def _gather(self, child: FloatArray, states: Sequence[CubeState], top: bool) -> FloatArray:
        """A node's values from its children's (already flipped to this side): the best
        cube action of the side on roll for each state (gnubg's GetECF3)."""
        out = np.empty((*child.shape[:-1], len(states)))
        j = 0
        for k, s in enumerate(states):
            nd = child[..., j]
            j += 1
            if not top and s.may_double():
                dt = child[..., j] * (2.0 if s.is_money else 1.0)
                j += 1
                out[..., k] = best_cube_value(nd, dt, double_pass_value(s, self.met), s)
            else:
                out[..., k] = nd
        return out

    def cubeful(
        self, position: Position, states: Sequence[CubeState], plies: int = 0, top: bool = True
    ) -> tuple[FloatArray, FloatArray]:
        """Cubeless probabilities and cubeful values (one per cube position in ``states``,
        each from the side on roll) of ``position`` at ``plies``.  ``top`` leaves out the
        side on roll's cube action now (it is what is being decided).  A 1-ply judgement
        is blended with 0-ply's by ``odd_blend``, as :meth:`evaluate` does."""
        p, v = self.cubeful_many([position], states, plies, top)
        return p[0], v[0]

    def cubeful_many(
        self, positions: Sequence[Position], states: Sequence[CubeState], plies: int, top: bool
    ) -> tuple[FloatArray, FloatArray]:
        """:meth:`cubeful` of many positions at the same cube, ``(N, 5)`` and ``(N, S)``:
        each ply of their lookaheads is one batch (all the candidates of a play, all the
        21 rolls' replies of each)."""
        p, v = self._cubeful(positions, states, plies, top)
        if plies == 1 and self.odd_blend < 1.0:
            p0, v0 = self._cubeful(positions, states, 0, top)
            p, v = self.blend_odd(p, p0), self.blend_odd(v, v0)
        return p, v

    def _cubeful(
        self, positions: Sequence[Position], states: Sequence[CubeState], plies: int, top: bool
    ) -> tuple[FloatArray, FloatArray]:
        n = len(positions)
        probs, values = np.empty((n, 5)), np.empty((n, len(states)))
        # A position the two-sided bear-off database knows exactly (money) needs no lookahead.
        exact = bool(states) and states[0].is_money
        done = [
            plies <= 0 or pos.is_game_over() or (exact and self._exact(pos)) for pos in positions
        ]
        leaves = [i for i, leaf in enumerate(done) if leaf]
        if leaves:
            boards = boards_array(positions[i].board for i in leaves)
            leaf_p = np.asarray(self.evaluator.evaluate(boards))
            probs[leaves] = leaf_p
            values[leaves] = self._leaf_values(leaf_p, boards, states, top)
        inner = [i for i, leaf in enumerate(done) if not leaf]
        if not inner:
            return probs, values
        # Different rolls often lead to the same position (6-2, 5-3 and 2-2 all move 8
        # pips): each is looked into once.
        unique: dict[Position, int] = {}
        slot = [unique.setdefault(positions[i], len(unique)) for i in inner]
        looked = list(unique)
        money = states[0].is_money
        kids = self._children(states, top)
        w, c = dead_cube_weights(states[0], self.met)
        boards, per_roll, raw = self._expanded_many(looked)
        after_p = flip_probs(raw)
        chosen = best_in_segments(after_p @ w + c, per_roll)
        if plies == 1:
            child_p = flip_probs(after_p[chosen])
            child_v = self._leaf_values(child_p, boards[chosen], kids, False)
        else:
            afters = [Position(b) for b in boards[chosen].tolist()]
            child_p, child_v = self._cubeful(afters, kids, plies - 1, False)
        # Each position's 21 rolls, weighted: (positions, rolls, ...) summed over the rolls.
        k = len(looked)
        total_p = np.einsum("r,krj->kj", _ROLL_WEIGHTS, flip_probs(child_p).reshape(k, 21, 5))
        flipped_v = _flip_values(child_v, money).reshape(k, 21, -1)
        total_v = np.einsum("r,krj->kj", _ROLL_WEIGHTS, flipped_v)
        probs[inner] = (total_p / 36.0)[slot]
        values[inner] = self._gather(total_v / 36.0, states, top)[slot]
        return probs, values

    def _expanded(
        self, position: Position
    ) -> tuple[list[tuple[int, int, int, int, float]], IntArray, FloatArray]:
        """The plays of the 21 rolls (:func:`roll_boards`), their boards and 0-ply
        probabilities for the side then on roll (remembered, see :meth:`_expanded_many`)."""
        boards, per_roll, raw = self._expanded_many([position])
        ends: list[int] = np.cumsum(per_roll).tolist()
        segments = [
            (a, b, s, e, float(w))
            for (a, b, w), s, e in zip(_ROLLS, [0, *ends[:-1]], ends, strict=True)
        ]
        return segments, boards, raw

    def _expanded_many(
        self, positions: Sequence[Position]
    ) -> tuple[IntArray, IntArray, FloatArray]:
        """:func:`roll_boards_many` of ``positions`` (each roll's best few by the pruning
        net when it prunes) with the 0-ply probabilities of the boards, those not
        remembered made and judged in one batch.  The last
        :data:`_REMEMBERED` positions' are kept: an analysis asks about the position after
        a play (and each reply's) as a candidate, then about its cube and the roll's luck."""
        found = {p.board: self._recent.pop(p.board, None) for p in positions}
        todo = [p for p in positions if found[p.board] is None]
        if todo:
            boards, per_roll = roll_boards_many(todo)
            if self.pruner is not None:
                boards, per_roll = pruned_plays(self.pruner, boards, per_roll, self.prune)
            raw = np.asarray(self.evaluator.evaluate(boards))
            per_position = per_roll.reshape(len(todo), len(_ROLLS))
            ends = np.cumsum(per_position.sum(axis=1)).tolist()
            for pos, rolls, lo, hi in zip(todo, per_position, [0, *ends[:-1]], ends, strict=True):
                found[pos.board] = (boards[lo:hi], rolls, raw[lo:hi])
        self._recent.update(found)  # the most recently used last
        while len(self._recent) > _REMEMBERED:
            self._recent.pop(next(iter(self._recent)))
        parts = [found[p.board] for p in positions]
        if len(parts) == 1:
            return parts[0]  # type: ignore[no-any-return]
        return (
            np.concatenate([b for b, _, _ in parts]),
            np.concatenate([r for _, r, _ in parts]),
            np.concatenate([p for _, _, p in parts]),
        )

    def roll_values(self, position: Position, state: CubeState) -> dict[tuple[int, int], float]:
        """0-ply cubeful value for the mover of the best play of each of the 21 rolls (the
        turn passing when there is none), every roll's plays evaluated in one batch: what
        the luck of a roll is measured against."""
        segments, boards, theirs = self._expanded(position)
        v = _flip_values(
            self._leaf_values(np.asarray(theirs), boards, [state.flip()], False)[:, 0],
            state.is_money,
        )
        return {(a, b): float(v[start:end].max()) for a, b, start, end, _ in segments}

    def rank_cubeful(
        self,
        position: Position,
        dice: Sequence[int],
        state: CubeState | None,
        plies: int = 0,
        keep: int | MoveFilter | None = None,
        include: Sequence[Move] = (),
    ) -> list[tuple[Move, FloatArray, float, int]]:
        """Legal plays of ``dice`` judged by cubeful value for the mover (money equity per
        unit cube, or MWC) at the cube of ``state``, or by the searcher's cubeless equity
        when ``state`` is None; best first, as ``(move, mover's probabilities, value,
        plies)``.

        Beyond 0-ply the plays the filter keeps (the best ``keep`` by 0-ply value, or those a
        :class:`MoveFilter` ``keep`` picks, or by default all within the searcher's filter
        width up to its count) and the plays in ``include`` are judged at ``plies``; the
        others follow at 0-ply."""
        moves = position.legal_moves(dice)
        if not moves:
            return []
        boards = after_boards(position.board, moves)
        probs = self.probs_after(boards)
        if state is None:
            v0 = self.equity(probs)
        else:
            opp = [state.flip()]
            theirs = self._leaf_values(flip_probs(probs), boards, opp, False)[:, 0]
            v0 = _flip_values(theirs, state.is_money)
        order = [int(i) for i in np.argsort(-v0, kind="stable")]
        if plies <= 0 or len(moves) == 1:
            return [(moves[i], probs[i], float(v0[i]), 0) for i in order]
        if isinstance(keep, MoveFilter):  # its width in EMG, as gnubg's
            chosen = keep.pick(v0 if state is None else to_emg(v0, state, self.met))
        else:
            chosen = self._candidates(v0, plies) if keep is None else order[:keep]
        chosen += [i for i, m in enumerate(moves) if m in include and i not in chosen]
        deep: list[tuple[float, int, FloatArray]] = []
        afters = [position.play(moves[i]) for i in chosen]
        if state is None:
            for i, after in zip(chosen, afters, strict=True):
                q = flip_probs(self.evaluate(after, plies))
                deep.append((float(self.equity(q[None, :])[0]), i, q))
        else:  # every candidate's lookahead in the same batches
            ps, vs = self.cubeful_many(afters, opp, plies, top=False)
            for i, p, v in zip(chosen, ps, vs, strict=True):
                deep.append((float(_flip_values(v, state.is_money)[0]), i, flip_probs(p)))
        deep.sort(key=lambda t: (-t[0], t[1]))
        done = set(chosen)
        return [(moves[i], q, val, plies) for val, i, q in deep] + [
            (moves[i], probs[i], float(v0[i]), 0) for i in order if i not in done
        ]

    def rank_moves(
        self, position: Position, dice: Sequence[int], plies: int = 0
    ) -> list[tuple[Move, FloatArray]]:
        """Legal plays with the mover's probabilities, best first (filtered beyond 0-ply)."""
        ranked = self.rank_all(position, dice, plies)
        if len(ranked) > 1 and plies > 0:
            ranked = [r for r in ranked if r[2] == plies]
        return [(move, p) for move, p, _ in ranked]

    def rank_all(
        self, position: Position, dice: Sequence[int], plies: int = 0
    ) -> list[tuple[Move, FloatArray, int]]:
        """Every legal play with the mover's probabilities and the depth they come from, best
        first: beyond 0-ply the plays the filter keeps, at ``plies``, then the others at
        0-ply in their 0-ply order."""
        moves = position.legal_moves(dice)
        if not moves:
            return []
        probs = self.probs_after(after_boards(position.board, moves))
        eq = self.equity(probs)
        order = [int(i) for i in np.argsort(-eq, kind="stable")]
        if plies <= 0 or len(moves) == 1:
            return [(moves[i], probs[i], 0) for i in order]
        keep = self._candidates(eq, plies)
        scored: list[tuple[float, int, FloatArray]] = []
        for i in keep:
            q = flip_probs(self.evaluate(position.play(moves[i]), plies))
            scored.append((float(self.equity(q[None, :])[0]), i, q))
        scored.sort(key=lambda t: (-t[0], t[1]))
        kept = set(keep)
        return [(moves[i], q, plies) for _, i, q in scored] + [
            (moves[i], probs[i], 0) for i in order if i not in kept
        ]

    def best_move(
        self,
        position: Position,
        dice: Sequence[int],
        plies: int = 0,
        moves: Sequence[Move] | None = None,
    ) -> Move | None:
        """The best legal play of ``dice`` at ``plies``, or None if there is none; ``moves``
        are the legal plays when the caller has them already (generated once)."""
        if moves is None:
            moves = position.legal_moves(dice)
        if not moves:
            return None
        if len(moves) == 1:
            return moves[0]
        if plies <= 0:
            after = after_boards(position.board, moves)
            return moves[int(self.equity(self.probs_after(after)).argmax())]
        return self.rank_moves(position, dice, plies)[0][0]

"""One evaluator interface, and the composite that play uses.

An :class:`Evaluator` gives the five cubeless probabilities
(:mod:`backgammon.evaluation.probabilities`) of a batch of boards, each seen from its side on
roll.  :class:`CompositeEvaluator` routes each board to what knows it best: a finished game
to its exact result, a pure bear-off to the bear-off databases (the two-sided one, exact,
where each side has at most six checkers left; else the one-sided one), the rest to the race
or the contact net.  Lookahead (:class:`~backgammon.evaluation.search.Searcher`) wraps any
evaluator.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from backgammon.evaluation.bearoff import BearoffDatabase, all_bearoffs, home_indices, is_bearoff
from backgammon.evaluation.bearoff2 import MAX_CHECKERS, TwoSidedDatabase
from backgammon.evaluation.encode import is_race
from backgammon.evaluation.probabilities import game_over_probs
from backgammon.evaluation.trailer import TrailerNet, race_gammons

__all__ = ["CompositeEvaluator", "Evaluator"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


@runtime_checkable
class Evaluator(Protocol):
    """Cubeless 0-ply judgement of positions, many at a time (one numpy call is much cheaper
    than many)."""

    def evaluate(self, boards: IntArray) -> FloatArray:
        """The ``(N, 5)`` probabilities of ``(N, 26)`` boards, each for its side on roll."""
        ...


class CompositeEvaluator:
    """Finished games exactly, pure bear-offs from the database, the rest by the nets.

    The nets' five outputs are independent sigmoids; they are made consistent here (a
    gammon is a win, a backgammon a gammon).  In a bear-off the database gives every chance
    exactly (gammons from the rolls each side needs to bear its first checker off); where
    both sides have six checkers or fewer the two-sided database gives the exact chance of
    the best play of both sides (no gammon is possible there).  In a race where one side
    is all home and the other has borne nothing off, ``trailer`` gives the gammons
    (:mod:`backgammon.evaluation.trailer`), which the race net misjudges.
    """

    def __init__(
        self,
        nets: Evaluator,
        bearoff: BearoffDatabase | None = None,
        consistent: bool = True,
        two_sided: TwoSidedDatabase | None = None,
        trailer: TrailerNet | None = None,
    ) -> None:
        """``nets`` (a :class:`~backgammon.evaluation.net.NetPair`) judge contact and race
        positions, ``bearoff`` and ``two_sided`` (optional) pure bear-offs, ``trailer``
        (with ``bearoff``) the gammons of races with a side all home; ``consistent``
        False keeps the nets' raw outputs (what TD training learns from)."""
        self.nets = nets
        self.bearoff = bearoff
        self.consistent = consistent
        self.two_sided = two_sided
        self.trailer = trailer

    def evaluate(self, boards: IntArray) -> FloatArray:
        """The probabilities for the side on roll of each board, finished or not."""
        if self.bearoff is not None and self.consistent and len(boards) and all_bearoffs(boards):
            homes = home_indices(boards)
            if homes[1].min() > 0:  # no side has borne every checker off
                # The databases answer every board (all five chances): the nets are not asked.
                return self._bearoff(boards, np.zeros((len(boards), 5)), homes)
        with_race = getattr(self.nets, "evaluate_with_race", None)
        # (count_nonzero: a third of the time of any() on these small arrays)
        if with_race is not None and not np.count_nonzero(boards[:, ::25]):  # the two bars
            # With no checker on a bar a finished game is a race: the nets' race flags
            # spare the search for finished games in the many batches with none.
            p, race = with_race(boards)
            if not np.count_nonzero(race) or _none_finished(boards):
                return self._consistent(boards, p, race)
        if _none_finished(boards):
            return self._live(boards)
        done, exact = game_over_probs(boards)
        if not done.any():
            return self._live(boards)
        if not done.all():
            exact[~done] = self._live(boards[~done])
        return exact

    def _live(self, boards: IntArray) -> FloatArray:
        with_race = getattr(self.nets, "evaluate_with_race", None)
        if with_race is None:
            return self._consistent(boards, self.nets.evaluate(boards), None)
        return self._consistent(boards, *with_race(boards))

    def _consistent(
        self, boards: IntArray, p: FloatArray, race: npt.NDArray[np.bool_] | None
    ) -> FloatArray:
        """The nets' outputs ``p`` made consistent, pure bear-offs from the database."""
        if not self.consistent:
            return p
        win, gammon, backgammon, lose_gammon, lose_backgammon = p.T  # views, sliced once
        np.minimum(gammon, win, out=gammon)
        np.minimum(backgammon, gammon, out=backgammon)
        np.minimum(lose_gammon, 1.0 - win, out=lose_gammon)
        np.minimum(lose_backgammon, lose_gammon, out=lose_backgammon)
        # A bear-off is a race: with no race among the boards there is none to look up.
        databases = self.bearoff is not None or self.two_sided is not None
        if databases and (race is None or np.count_nonzero(race)):
            bo = is_bearoff(boards)
            if np.count_nonzero(bo):
                p[bo] = self._bearoff(boards[bo], p[bo])
        if self.trailer is not None and self.bearoff is not None:
            races = is_race(boards) if race is None else race
            n = np.count_nonzero(races)
            if n:
                rows = None if n == len(races) else np.flatnonzero(races)
                race_gammons(boards, p, self.bearoff, self.trailer, rows)
        return p

    def _bearoff(
        self, sub: IntArray, q: FloatArray, homes: tuple[IntArray, IntArray] | None = None
    ) -> FloatArray:
        """Probabilities of pure bear-offs: the two-sided database's where it covers them,
        else the one-sided one's (else the nets' ``q``); ``homes``: :func:`home_indices` of
        ``sub`` when the caller has them."""
        index, checkers = home_indices(sub) if homes is None else homes
        two = None
        if self.two_sided is not None:
            # What TwoSidedDatabase.covers says of bear-offs: six checkers or fewer a side.
            two = checkers.max(axis=1) <= MAX_CHECKERS
            covered = np.count_nonzero(two)
            if not covered:
                two = None
            else:
                q[two] = 0.0
                q[two, 0] = self.two_sided.win_probabilities_at(index[two])
                if covered == len(q):
                    return q
        if self.bearoff is not None:
            if two is None:
                q[:, 0], q[:, 1], q[:, 3] = self.bearoff.probabilities_at(index, checkers)
                q[:, 2] = 0.0
                q[:, 4] = 0.0
            else:
                one = ~two
                r = q[one]
                r[:, 0], r[:, 1], r[:, 3] = self.bearoff.probabilities_at(index[one], checkers[one])
                r[:, 2] = 0.0
                r[:, 4] = 0.0
                q[one] = r
        return q


def _none_finished(boards: IntArray) -> bool:
    """True when both sides have checkers left on every board."""
    if not len(boards):
        return True
    return bool(boards.max(axis=1).min() > 0 and boards.min(axis=1).max() < 0)

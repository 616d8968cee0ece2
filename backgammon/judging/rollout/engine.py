"""The lockstep rollout engine: many trials of many candidates played together.

Every live game of a batch moves one ply per step; the plays of all of them (and, with
variance reduction, the plays of all 21 rolls of all of them) are evaluated in one call of
the :class:`~backgammon.evaluation.evaluator.Evaluator`, so the network runs as one matrix
product per step.  Trial ``i`` rolls the dice of ``(seed, i)`` for every candidate (common
random numbers: candidates are compared on the same dice), and a batch's numbers depend only
on its own trials, so any split of the trials over processes or machines adds up to the same.

Values are kept from the *root* side's view: the side on roll in the position rolled out
(before the play, for candidate plays).  Money values are in units of the root cube; match
values are match winning chances.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from backgammon.core.position import Position
from backgammon.core.values import iter_weighted_rolls
from backgammon.evaluation.bearoff import BearoffDatabase, is_bearoff
from backgammon.evaluation.bearoff2 import TwoSidedDatabase, money_decision
from backgammon.evaluation.children import child_boards
from backgammon.evaluation.cube import (
    CubeAction,
    CubeDecision,
    CubeState,
    best_cube_value,
    cube_efficiency,
    cube_values,
    dead_cube_weights,
    decision_from_values,
)
from backgammon.evaluation.encode import boards_array
from backgammon.evaluation.evaluator import CompositeEvaluator, Evaluator
from backgammon.evaluation.met import KAZAROSS_XG2, MatchEquityTable
from backgammon.evaluation.net import NetPair, default_nets
from backgammon.evaluation.probabilities import MONEY_WEIGHTS, flip_probs, game_over_probs
from backgammon.evaluation.prune import default_pruner, pruned_plays
from backgammon.evaluation.search import Searcher, best_in_segments, cube_lives
from backgammon.evaluation.trailer import TrailerNet
from backgammon.judging.rollout.dice import roll_indices, to_dice
from backgammon.players.neural import limit_blas_threads

__all__ = [
    "Candidate",
    "RolloutJob",
    "RolloutSettings",
    "RolloutSettingsError",
    "TrialResults",
    "doubled",
    "evaluator_for",
    "play_trials",
]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

_ROLLS = list(iter_weighted_rolls())
_ROLL_WEIGHTS = np.array([w for _, _, w in _ROLLS]) / 36.0
_ALL_ROLLS = tuple((a, b) for a, b, _ in _ROLLS)
_CACHE_SIZE = 4096
_SLICE = 2048
_TURN_CHUNK = 64


@lru_cache(maxsize=64)
def _dice_of(rolls: tuple[tuple[int, int], ...]) -> IntArray:
    """``rolls`` as an ``(N, 2)`` array (the 21 rolls of every request: one array)."""
    return np.array(rolls, dtype=np.int64).reshape(-1, 2)


class RolloutSettingsError(ValueError):
    """Settings a rollout cannot run with."""


@dataclass(frozen=True)
class RolloutSettings:
    """How to roll out: trials, truncation (plies, 0 = to the end), the bots' lookahead,
    cubeless or cubeful, variance reduction and quasi-random dice, the seed, an optional
    target standard error to stop at (checked after each batch, in trial order), and
    whether trials stop at the bear-off databases as gnubg's do by default
    (:meth:`_Engine.exact_from_here`).  ``prune``: the full net judges only that many plays
    of each roll the pruning net (:mod:`~backgammon.evaluation.prune`) ranks best where an
    estimate is asked for: the luck of the roll, with variance reduction, and the replies
    inside the bots' 1- and 2-ply lookahead (0: every play); the plays of the roll played
    are always all judged by the full net."""

    trials: int = 1296
    truncate: int = 0
    plies: int = 0
    cubeful: bool = False
    variance_reduction: bool = True
    quasi_random: bool = True
    seed: int = 0
    target_se: float | None = None
    min_trials: int = 144
    batch: int = 72
    bearoff_truncation: bool = True
    prune: int = 5

    def __post_init__(self) -> None:
        if self.trials < 1:
            raise RolloutSettingsError(f"trials must be >= 1, got {self.trials}")
        if self.truncate < 0:
            raise RolloutSettingsError(f"truncate must be >= 0, got {self.truncate}")
        if self.plies not in (0, 1, 2):
            raise RolloutSettingsError(f"plies must be 0, 1 or 2, got {self.plies}")
        if self.batch < 1:
            raise RolloutSettingsError(f"batch must be >= 1, got {self.batch}")
        if self.prune < 0:
            raise RolloutSettingsError(f"prune must be >= 0 plays a roll, got {self.prune}")
        if self.target_se is not None and self.target_se <= 0:
            raise RolloutSettingsError(f"target SE must be > 0, got {self.target_se}")


@dataclass(frozen=True)
class Candidate:
    """One thing rolled out: a position from the side to move, whether that side is the
    root's opponent (after a candidate play), its cube state (from the side to move) and
    whether it may double before its first roll."""

    label: str
    board: tuple[int, ...]
    flipped: bool
    cube: CubeState
    cube_first: bool = True


@dataclass(frozen=True)
class RolloutJob:
    """Everything a worker needs to play trials (picklable: sent to processes and Ray)."""

    candidates: tuple[Candidate, ...]
    settings: RolloutSettings
    root: CubeState = field(default_factory=CubeState)
    weights: str | None = None
    bearoff: bool = True
    met: MatchEquityTable = KAZAROSS_XG2


@dataclass
class TrialResults:
    """Per-trial outcomes, ``(candidates, trials, ...)``, root side's view: the five
    probabilities and the cubeful value (money points per root cube, or MWC in a match)
    with the luck already subtracted when variance reduction is on."""

    first: int
    probs: FloatArray
    cubeful: FloatArray


def doubled(state: CubeState) -> CubeState:
    """The cube after the side on roll doubles and the other takes (and owns it)."""
    return CubeState(
        state.match_length,
        state.score,
        2 * state.cube_value,
        -1,
        state.crawford,
        state.jacoby,
        state.beavers,
    )


@lru_cache(maxsize=4)
def evaluator_for(weights: str | None, bearoff: bool) -> CompositeEvaluator:
    """The bots' 0-ply evaluator, made once per process."""
    limit_blas_threads()
    nets = default_nets() if weights is None else NetPair.load(weights)
    if not bearoff:
        return CompositeEvaluator(nets)
    two = TwoSidedDatabase(progress=False)  # read at its first use
    db = BearoffDatabase.load(progress=False)
    return CompositeEvaluator(nets, db, two_sided=two, trailer=TrailerNet.load())


class _Games:
    """The live state of a batch's games (one per trial and candidate)."""

    def __init__(self, job: RolloutJob, count: int) -> None:
        n_c = len(job.candidates)
        self.n = n_c * count
        self.trial = np.repeat(np.arange(count), n_c)  # game g = trial * n_c + candidate
        self.cand = np.tile(np.arange(n_c), count)
        cands = job.candidates
        self.pos = [Position(cands[c].board) for c in self.cand]
        self.cube = [cands[c].cube for c in self.cand]
        self.flipped = np.array([cands[c].flipped for c in self.cand])
        self.cube_first = np.array([cands[c].cube_first for c in self.cand])
        self.alive = np.ones(self.n, dtype=bool)
        self.probs = np.zeros((self.n, 5))
        self.value = np.zeros(self.n)
        self.luck_probs = np.zeros((self.n, 5))
        self.luck_value = np.zeros(self.n)


class _Engine:
    """Plays one batch: the cube, the roll and the play of every live game, ply by ply."""

    def __init__(self, job: RolloutJob, evaluator: Evaluator) -> None:
        self.job = job
        self.s = job.settings
        self.ev = evaluator
        self.met = job.met
        self.root = job.root
        self._weights: dict[CubeState, tuple[FloatArray, float]] = {}
        self._cache: dict[
            tuple[Position, CubeState, tuple[tuple[int, int], ...], int],
            tuple[IntArray, FloatArray],
        ] = {}
        vr = self.s.variance_reduction
        self.pruner = default_pruner() if vr and self.s.prune else None

    # ------------------------------------------------------------ values
    def weights(self, state: CubeState) -> tuple[FloatArray, float]:
        """What the mover maximises: cubeless money equity, or dead-cube MWC in a match."""
        if state.is_money:
            return MONEY_WEIGHTS
        w = self._weights.get(state)
        if w is None:
            w = self._weights[state] = dead_cube_weights(state, self.met)
        return w

    def cube_scale(self, state: CubeState) -> float:
        """Points per game of the mover's equity unit, in root cubes (money), or 1 (MWC)."""
        return state.cube_value / self.root.cube_value if state.is_money else 1.0

    def outcome_value(self, state: CubeState, p: FloatArray) -> float:
        """Cubeful value for the side ``state`` is seen from of a finished game ``p``."""
        points = 1 + int(p[1] > 0.5 or p[3] > 0.5) + int(p[2] > 0.5 or p[4] > 0.5)
        if state.jacoby and state.cube_owner == 0:
            points = 1
        won = p[0] > 0.5
        if state.is_money:
            return (points if won else -points) * self.cube_scale(state)
        a, b = state.away
        k = points * state.cube_value
        post = state.crawford or state.post_crawford
        return self.met.equity(a - k, b, post) if won else self.met.equity(a, b - k, post)

    def horizon_value(
        self, state: CubeState, pos: Position, p: FloatArray, d: CubeDecision | None = None
    ) -> float:
        """Cubeful value for the side on roll of an unfinished game, from its probabilities
        (and its cube decision ``d`` when it was made with others)."""
        if not self.s.cubeful:
            w, c = self.weights(state)
            return float(p @ w + c) * self.cube_scale(state)
        d = self.decision(state, pos, p) if d is None else d
        v = d.no_double
        if state.may_double() and d.action is CubeAction.DOUBLE:
            v = min(d.double_take, d.double_pass)
        return v * self.cube_scale(state)

    def decision(self, state: CubeState, pos: Position, p: FloatArray) -> CubeDecision:
        """The bot's cube decision for the side on roll: exact in money play where the
        two-sided bear-off database covers the position, else gnubg's 0-ply from ``p``."""
        return self.decisions([state], [pos], np.asarray([p]))[0]

    def decisions(
        self, states: list[CubeState], positions: list[Position], probs: FloatArray
    ) -> list[CubeDecision]:
        """:meth:`decision` of each game (its cube state, position and probabilities): the
        games of one cube state valued together, row by row the same numbers as one by
        one."""
        out: list[CubeDecision | None] = [None] * len(states)
        two: TwoSidedDatabase | None = getattr(self.ev, "two_sided", None)
        groups: dict[CubeState, list[int]] = {}
        for k, (state, pos) in enumerate(zip(states, positions, strict=True)):
            exact = money_decision(two, pos.board, state) if two is not None else None
            if exact is not None:
                out[k] = exact
            else:
                groups.setdefault(state, []).append(k)
        for state, ks in groups.items():
            x = [cube_efficiency(positions[k].is_race(), positions[k].pip_counts()[0]) for k in ks]
            p = np.asarray(probs[ks], dtype=np.float64)
            nd, dt, dp = cube_values(p, state, np.asarray(x), self.met)
            for k, a, b in zip(ks, nd.tolist(), dt.tolist(), strict=True):
                out[k] = decision_from_values(a, b, dp, state)
        return [d for d in out if d is not None]

    def cubeful_luck(
        self, states: list[CubeState], answers: list[tuple[IntArray, FloatArray]], rolls: IntArray
    ) -> FloatArray:
        """The luck of roll ``rolls[k]`` for the mover of each game (root cube units, or MWC)
        in a cubeful rollout: the 0-ply cubeful value of each roll's result, the other side
        to act on the cube there, against their average, as gnubg's variance reduction
        measures it (the cubeless equity misses what the cube makes of the game, and its
        variance).  ``answers``: each game's boards after each roll's play and the mover's
        chances there (:meth:`choose`); the games of one cube state are valued together."""
        luck = np.empty(len(states))
        groups: dict[CubeState, list[int]] = {}
        for k, state in enumerate(states):
            groups.setdefault(state, []).append(k)
        for state, ks in groups.items():
            after = np.concatenate([answers[k][0] for k in ks])
            p = np.concatenate([answers[k][1] for k in ks])
            other = state.flip()
            nd, dt, dp = cube_values(flip_probs(p), other, cube_lives(after), self.met)
            theirs = best_cube_value(nd, dt, dp, other).reshape(len(ks), len(_ROLLS))
            mine = -theirs if state.is_money else 1.0 - theirs
            rows = np.arange(len(ks))
            luck[ks] = (mine[rows, rolls[ks]] - mine @ _ROLL_WEIGHTS) * self.cube_scale(state)
        return luck

    def to_root(self, g: _Games, idx: IntArray, turn: int) -> npt.NDArray[np.bool_]:
        """True where the side to move at ``turn`` is the root side."""
        return np.asarray((turn % 2 == 0) != g.flipped[idx])

    def finish(
        self, g: _Games, i: int, mover_probs: FloatArray, mover_value: float, root_side: bool
    ) -> None:
        """End game ``i`` with probabilities and value seen from the side to move."""
        g.alive[i] = False
        if root_side:
            g.probs[i] = mover_probs
            g.value[i] = mover_value
        else:
            g.probs[i] = flip_probs(mover_probs)
            g.value[i] = self.flip_value(g.cube[i], mover_value)

    def flip_value(self, state: CubeState, v: float) -> float:
        return -v if state.is_money else 1.0 - v

    # ------------------------------------------------------------ evaluation
    def evaluate_boards(self, boards: IntArray) -> FloatArray:
        """The evaluator on ``boards`` in slices (a huge matrix product is slower per row)."""
        if len(boards) <= _SLICE:
            return self.ev.evaluate(boards)
        return np.concatenate(
            [self.ev.evaluate(boards[s : s + _SLICE]) for s in range(0, len(boards), _SLICE)]
        )

    def searcher(self, state: CubeState | None = None) -> Searcher:
        """The bots' lookahead (choosing by the weights of ``state``, cubeless money when
        None), pruning the replies' plays as ``prune`` says."""
        weights = None if state is None else self.weights(state)
        return Searcher(self.ev, weights, prune=self.s.prune)

    def evaluate(self, positions: list[Position]) -> FloatArray:
        """Probabilities for the side on roll of each position at the bots' depth."""
        if self.s.plies == 0 or not positions:
            return self.evaluate_boards(boards_array(p.board for p in positions))
        return self.searcher().evaluate_many(positions, self.s.plies)

    def choose(
        self, requests: list[tuple[Position, CubeState, tuple[tuple[int, int], ...]]], keep: int = 0
    ) -> list[tuple[IntArray, FloatArray]]:
        """For each ``(position, cube, rolls)``, the board after the 0-ply best play of each
        roll (a row each; the caller makes a Position of the one it plays) and the mover's
        probabilities there: the plays of every roll of every request evaluated in one call;
        with ``keep``, only that many of each roll's plays, the pruning net's best.
        Positions met before (every trial starts from the same one) are answered from a
        cache."""
        out: list[tuple[IntArray, FloatArray] | None] = []
        todo: dict[tuple[Position, CubeState, tuple[tuple[int, int], ...], int], list[int]] = {}
        for k, request in enumerate(requests):
            key = (*request, keep)
            hit = self._cache.get(key)
            out.append(hit)
            if hit is None:
                todo.setdefault(key, []).append(k)
        if todo:
            keys = list(todo)
            # Every play of every roll of every request as one array (no Position each).
            rolls_of = np.asarray([len(rolls) for _, _, rolls, _ in keys])
            boards = np.repeat(np.array([key[0].board for key in keys]), rolls_of, axis=0)
            dice = np.concatenate([_dice_of(rolls) for _, _, rolls, _ in keys])
            children, per_roll = child_boards(boards, dice)
            if keep and self.pruner is not None:
                children, per_roll = pruned_plays(self.pruner, children, per_roll, keep)
            seg_req = np.repeat(np.repeat(np.arange(len(keys)), rolls_of), per_roll)
            probs = flip_probs(self.evaluate_boards(children))
            wc = [self.weights(state) for _, state, _, _ in keys]
            w = np.array([x[0] for x in wc])
            c = np.array([x[1] for x in wc])
            req_of = seg_req
            eq = np.einsum("ij,ij->i", probs, w[req_of]) + c[req_of]
            best = best_in_segments(eq, per_roll)
            if len(self._cache) > _CACHE_SIZE:
                self._cache.clear()
            s = 0
            for key in keys:
                n = len(key[2])
                answer = (children[best[s : s + n]], probs[best[s : s + n]])
                s += n
                self._cache[key] = answer
                for k in todo[key]:
                    out[k] = answer
        return [o for o in out if o is not None]

    # ------------------------------------------------------------ one ply
    def cube_step(self, g: _Games, turn: int) -> None:
        """The side on roll of each live game doubles if the bot says so; a pass ends it."""
        idx = [
            i
            for i in np.flatnonzero(g.alive).tolist()
            if (turn > 0 or g.cube_first[i]) and g.cube[i].may_double()
        ]
        if not idx:
            return
        probs = self.evaluate([g.pos[i] for i in idx])
        root = self.to_root(g, np.asarray(idx), turn)
        decisions = self.decisions([g.cube[i] for i in idx], [g.pos[i] for i in idx], probs)
        for k, i in enumerate(idx):
            state, d = g.cube[i], decisions[k]
            if d.action is not CubeAction.DOUBLE:
                continue
            if d.response is CubeAction.PASS:
                self.finish(g, i, probs[k], d.double_pass * self.cube_scale(state), root[k])
            else:  # a take (a beaver is played as a take, as gnubg's rollouts do)
                g.cube[i] = doubled(state)

    def move_step(self, g: _Games, turn: int, dice_idx: IntArray) -> None:
        """Every live game plays its roll; with variance reduction the luck of the roll is
        measured against the average of all 21 rolls at 0 ply."""
        idx = np.flatnonzero(g.alive)
        if len(idx) == 0:
            return
        actual = [to_dice(dice_idx[g.trial[i]]) for i in idx]
        root = self.to_root(g, idx, turn)
        if self.s.variance_reduction:
            keep = self.s.prune if self.pruner is not None else 0
            answers = self.choose([(g.pos[i], g.cube[i], _ALL_ROLLS) for i in idx.tolist()], keep)
            played = answers
            if keep and self.s.plies == 0:  # the play made: the full net's best of all
                played = self.choose(
                    [(g.pos[i], g.cube[i], (actual[k],)) for k, i in enumerate(idx.tolist())]
                )
            rolls = np.array([_ALL_ROLLS.index(a) for a in actual])
            if self.s.cubeful:
                lucks = self.cubeful_luck([g.cube[i] for i in idx.tolist()], answers, rolls)
            for k, i in enumerate(idx.tolist()):
                r = int(rolls[k])
                p = answers[k][1]  # (21, 5) for the mover
                mean = _ROLL_WEIGHTS @ p
                if self.s.cubeful:
                    luck_v = float(lucks[k])
                else:
                    w, _ = self.weights(g.cube[i])
                    luck_v = float((p[r] - mean) @ w) * self.cube_scale(g.cube[i])
                if root[k]:
                    g.luck_probs[i] += p[r] - mean
                    g.luck_value[i] += luck_v
                else:
                    g.luck_probs[i] += flip_probs(p[r]) - flip_probs(mean)
                    g.luck_value[i] -= luck_v
                if self.s.plies == 0:
                    g.pos[i] = Position._trusted(tuple(played[k][0][0 if keep else r].tolist()))
        if self.s.plies > 0 or not self.s.variance_reduction:
            if self.s.plies == 0:
                answers = self.choose(
                    [(g.pos[i], g.cube[i], (actual[k],)) for k, i in enumerate(idx.tolist())]
                )
                for k, i in enumerate(idx.tolist()):
                    g.pos[i] = Position._trusted(tuple(answers[k][0][0].tolist()))
            else:  # the games of each cube state (the same weights) together
                by_state: dict[CubeState, list[int]] = {}
                for k, i in enumerate(idx.tolist()):
                    by_state.setdefault(g.cube[i], []).append(k)
                for state, ks in by_state.items():
                    games = [int(idx[k]) for k in ks]
                    afters = self.searcher(state).best_after_many(
                        [g.pos[i] for i in games], [actual[k] for k in ks], self.s.plies
                    )
                    for i, after in zip(games, afters, strict=True):
                        g.pos[i] = after
        # Games that just ended, seen from the side that moved.
        boards = boards_array(g.pos[i].board for i in idx)
        done, exact = game_over_probs(boards)
        for k in np.flatnonzero(done).tolist():
            j = int(idx[k])
            p = flip_probs(exact[k])
            self.finish(g, j, p, self.outcome_value(g.cube[j], p), bool(root[k]))
        for i in idx.tolist():
            if g.alive[i]:
                g.cube[i] = g.cube[i].flip()
        if self.s.bearoff_truncation:
            on = g.alive[idx]
            live = idx[on]
            stop = self.exact_from_here(g, live, boards[on])
            if stop.any():
                self.horizon(g, live[stop], turn + 1)

    def exact_from_here(self, g: _Games, idx: IntArray, boards: IntArray) -> npt.NDArray[np.bool_]:
        """Where gnubg's default rollouts stop at the bear-off databases (``boards``: the
        positions of games ``idx``): cubeless at any pure bear-off (the databases' chances),
        cubeful in money play where the two-sided database covers the position (its exact
        cubeful values); matches play on."""
        none = np.zeros(len(idx), dtype=bool)
        if not len(idx) or getattr(self.ev, "bearoff", None) is None:
            return none
        if not self.s.cubeful:
            return np.asarray(is_bearoff(boards))
        if getattr(self.ev, "two_sided", None) is None:
            return none
        money = np.fromiter((g.cube[i].is_money for i in idx.tolist()), bool, len(idx))
        return money & TwoSidedDatabase.covers(boards)

    def horizon(self, g: _Games, idx: IntArray, turn: int) -> None:
        """End the games of ``idx`` (not finished) by evaluating them for the side on roll."""
        if len(idx) == 0:
            return
        probs = self.evaluate([g.pos[i] for i in idx])
        root = self.to_root(g, idx, turn)
        games = idx.tolist()
        decisions: list[CubeDecision | None] = [None] * len(games)
        if self.s.cubeful:
            decisions = list(
                self.decisions([g.cube[i] for i in games], [g.pos[i] for i in games], probs)
            )
        for k, i in enumerate(games):
            v = self.horizon_value(g.cube[i], g.pos[i], probs[k], decisions[k])
            self.finish(g, i, probs[k], v, bool(root[k]))

    # ------------------------------------------------------------ trials
    def play(self, first: int, count: int) -> TrialResults:
        g = _Games(self.job, count)
        trials = np.arange(first, first + count)
        turns = 0
        dice = np.empty((count, 0), dtype=np.int64)
        turn = 0
        while g.alive.any():
            if self.s.truncate and turn >= self.s.truncate:
                self.horizon(g, np.flatnonzero(g.alive), turn)
                break
            if turn >= turns:
                turns += _TURN_CHUNK
                dice = roll_indices(self.s.seed, trials, turns, self.s.quasi_random)
            if self.s.cubeful:
                self.cube_step(g, turn)
            self.move_step(g, turn, dice[:, turn])
            turn += 1
        n_c = len(self.job.candidates)
        probs = g.probs - g.luck_probs
        value = g.value - g.luck_value
        return TrialResults(
            first,
            probs.reshape(count, n_c, 5).transpose(1, 0, 2).copy(),
            value.reshape(count, n_c).T.copy(),
        )


def play_trials(job: RolloutJob, first: int, count: int) -> TrialResults:
    """Play trials ``first .. first + count - 1`` of every candidate of ``job``."""
    return _Engine(job, evaluator_for(job.weights, job.bearoff)).play(first, count)

"""Lookahead: the batched 1-ply evaluation equals the plain average over the 21 rolls."""

from __future__ import annotations

import numpy as np
import pytest

from backgammon import Position
from backgammon.core.values import iter_rolls
from backgammon.evaluation.bearoff import BearoffDatabase
from backgammon.evaluation.encode import boards_array
from backgammon.evaluation.evaluator import CompositeEvaluator
from backgammon.evaluation.net import default_nets
from backgammon.evaluation.probabilities import flip_probs
from backgammon.evaluation.search import Searcher


@pytest.fixture(scope="module")
def searcher() -> Searcher:
    return Searcher(CompositeEvaluator(default_nets(), BearoffDatabase.load(progress=False)))


def one_ply_by_hand(s: Searcher, pos: Position) -> np.ndarray:
    total = np.zeros(5)
    for a, b in iter_rolls():
        weight = 1 if a == b else 2
        best_p, best_e = None, -np.inf
        moves = pos.legal_moves((a, b))
        afters = [pos.play(m) for m in moves] or [pos.flip()]
        for after in afters:
            if after.is_game_over():
                p = s.probs_after(boards_array([after.board]))[0]
            else:
                p = flip_probs(s.evaluator.evaluate(boards_array([after.board])))[0]
            e = float(s.equity(p[None, :])[0])
            if e > best_e:
                best_p, best_e = p, e
        assert best_p is not None
        total += weight * best_p
    return total / 36


def test_batched_one_ply_equals_the_definition(searcher: Searcher) -> None:
    positions = [Position.initial()]
    pos = Position.initial()
    for d in [(3, 1), (6, 4), (5, 5)]:
        pos = pos.play(pos.legal_moves(d)[0])
        positions.append(pos)
    for p in positions:
        assert np.allclose(searcher.evaluate(p, 1), one_ply_by_hand(searcher, p), atol=1e-12)


def test_bearoff_positions_use_the_database(searcher: Searcher) -> None:
    b = [0] * 26
    b[1], b[2] = 2, 1  # three checkers left, twelve off
    b[24], b[23] = -5, -5  # the opponent: ten left, five off
    composite = searcher.evaluator
    assert isinstance(composite, CompositeEvaluator) and composite.bearoff is not None
    p = composite.evaluate(boards_array([b]))[0]
    assert p[0] == pytest.approx(composite.bearoff.win_probabilities(np.array([b]))[0])
    assert p[1] == p[2] == p[3] == p[4] == 0.0  # both sides have borne off: no gammons


def test_rank_moves_is_sorted_and_complete(searcher: Searcher) -> None:
    pos = Position.initial()
    ranked = searcher.rank_moves(pos, (4, 2), plies=0)
    assert sorted(str(m) for m, _ in ranked) == sorted(str(m) for m in pos.legal_moves((4, 2)))
    eq = [float(searcher.equity(p[None, :])[0]) for _, p in ranked]
    assert eq == sorted(eq, reverse=True)
    assert searcher.best_move(pos, (4, 2), 0) == ranked[0][0]
    deep = searcher.rank_moves(pos, (4, 2), plies=1)
    assert 1 <= len(deep) <= searcher.filter_moves


class PipRace:
    """A toy evaluator: the winning chance from the pip counts alone."""

    def evaluate(self, boards: np.ndarray) -> np.ndarray:
        mine = (np.maximum(boards, 0) * np.arange(26)).sum(axis=1)
        theirs = (np.maximum(-boards, 0) * (25 - np.arange(26))).sum(axis=1)
        out = np.zeros((len(boards), 5))
        out[:, 0] = 1.0 / (1.0 + np.exp((mine - theirs - 8) / 20.0))
        return out


def test_the_lookahead_wraps_any_evaluator() -> None:
    toy = Searcher(PipRace())
    pos = Position.initial().play(Position.initial().legal_moves((6, 5))[0])
    assert np.allclose(toy.evaluate(pos, 1), one_ply_by_hand(toy, pos), atol=1e-12)
    assert toy.best_move(pos, (6, 6), 1) in pos.legal_moves((6, 6))


def test_finished_games_are_exact_at_any_depth(searcher: Searcher) -> None:
    b = [0] * 26
    b[1] = -1  # the side on roll has borne off; the other has one checker left
    won = Position(b)
    assert won.is_game_over()
    for plies in (0, 1):
        assert np.array_equal(searcher.evaluate(won, plies), [1.0, 0, 0, 0, 0])
    # In a batch, finished and live boards each get their own.
    both = boards_array([won.board, Position.initial().board])
    p = searcher.evaluator.evaluate(both)
    assert np.array_equal(p[0], [1.0, 0, 0, 0, 0])
    assert np.array_equal(p[1], searcher.evaluate(Position.initial()))


def test_a_blended_one_ply_is_the_mean_of_its_0_and_1_ply_and_2_ply_stays_pure(
    searcher: Searcher,
) -> None:
    from backgammon.evaluation.cube import CubeState

    blended = Searcher(searcher.evaluator, odd_blend=0.5)
    pos = Position.initial().play(Position.initial().parse_move("13/11 24/23", (2, 1)))
    p0, p1 = searcher.evaluate(pos, 0), searcher.evaluate(pos, 1)
    assert np.allclose(blended.evaluate(pos, 1), (p0 + p1) / 2, atol=1e-12)
    assert np.array_equal(blended.evaluate(pos, 0), p0)
    states = [CubeState(match_length=5, score=(1, 2))]
    (q0, v0), (q1, v1) = searcher.cubeful(pos, states, 0), searcher.cubeful(pos, states, 1)
    q, v = blended.cubeful(pos, states, 1)
    assert np.allclose(q, (q0 + q1) / 2) and np.allclose(v, (v0 + v1) / 2)
    mid = Position.initial().play(Position.initial().parse_move("8/5 6/5", (3, 1)))
    assert np.array_equal(blended.evaluate(mid, 2), searcher.evaluate(mid, 2))
    ranked = blended.rank_all(Position.initial(), (4, 3), 1)
    best = ranked[0]
    expect = flip_probs(blended.evaluate(Position.initial().play(best[0]), 1))
    assert best[2] == 1 and np.allclose(best[1], expect)
    with pytest.raises(ValueError, match="odd_blend"):
        Searcher(searcher.evaluator, odd_blend=1.5)


def cubeful_by_hand(
    s: Searcher, pos: Position, states: list, plies: int, top: bool
) -> tuple[np.ndarray, np.ndarray]:
    """The cubeful lookahead by its definition, one position and one roll at a time."""
    from backgammon.evaluation.cube import dead_cube_weights

    board = boards_array([pos.board])
    if plies <= 0 or pos.is_game_over():
        p = s.evaluator.evaluate(board)
        return p[0], s._leaf_values(p, board, states, top)[0]
    money = states[0].is_money
    kids = s._children(states, top)
    w, c = dead_cube_weights(states[0], s.met)
    total_p, total_v = np.zeros(5), np.zeros(len(kids))
    for a, b in iter_rolls():
        weight = 1 if a == b else 2
        afters = [pos.play(m) for m in pos.legal_moves((a, b))] or [pos.flip()]
        probs = flip_probs(s.evaluator.evaluate(boards_array([x.board for x in afters])))
        best = afters[int(np.argmax(probs @ w + c))]
        cp, cv = cubeful_by_hand(s, best, kids, plies - 1, False)
        total_p += weight * flip_probs(cp)
        total_v += weight * (-cv if money else 1.0 - cv)
    return total_p / 36, s._gather(total_v / 36, states, top)


def test_batched_cubeful_lookahead_equals_one_position_at_a_time(searcher: Searcher) -> None:
    """Many positions' lookaheads in shared batches (a repeat, a race and a finished game
    among them) give what each gives alone by the definition, to float32 rounding."""
    from backgammon.evaluation.cube import CubeState

    start = Position.initial()
    opening = start.play(start.parse_move("8/5 6/5", (3, 1)))
    race = Position([0, 3, 3, 3, 2, 2, 2] + [0] * 11 + [-3, -3, -3, -3, -2, -1, 0, 0])
    won = [0] * 26
    won[1] = -1
    positions = [opening, start.play(start.parse_move("24/13", (6, 5))), opening, race]
    match = CubeState(match_length=5, score=(1, 2))
    for states, plies, n in (
        ([CubeState()], 1, 4),
        ([match], 1, 4),
        ([match, match.doubled()], 2, 3),
    ):
        batch = [*positions[:n], Position(won)]
        batch_p, batch_v = searcher.cubeful_many(batch, states, plies, False)
        for k, pos in enumerate(batch):
            p, v = cubeful_by_hand(searcher, pos, states, plies, False)
            assert np.allclose(batch_p[k], p, atol=1e-6), (plies, k)
            assert np.allclose(batch_v[k], v, atol=1e-6), (plies, k)


def one_ply_pruned_by_hand(s: Searcher, pos: Position, keep: int) -> np.ndarray:
    """The 1-ply average where each roll's best play is chosen among the ``keep`` plays
    the pruning net scores highest (the earlier of equal scores)."""
    assert s.pruner is not None
    total = np.zeros(5)
    for a, b in iter_rolls():
        afters = [pos.play(m) for m in pos.legal_moves((a, b))] or [pos.flip()]
        boards = boards_array([after.board for after in afters])
        scores = s.pruner.scores(boards)
        kept = sorted(sorted(range(len(afters)), key=lambda i: -scores[i])[:keep])
        probs = s.probs_after(boards[kept])
        total += (1 if a == b else 2) * probs[int(np.argmax(s.equity(probs)))]
    return total / 36


def test_a_pruned_lookahead_chooses_among_the_pruning_nets_best(searcher: Searcher) -> None:
    """With ``prune`` k, each roll's play inside the lookahead is the full net's best of
    the k plays the pruning net ranks highest (gnubg's pruning nets), and the full net
    is asked about no other."""
    seen: list[int] = []

    class Counting:
        two_sided = None

        def evaluate(self, boards: np.ndarray) -> np.ndarray:
            seen.append(len(boards))
            return searcher.evaluator.evaluate(boards)

    start = Position.initial()
    pos = start.play(start.parse_move("13/11 6/5", (2, 1)))
    pruned = Searcher(searcher.evaluator, prune=2)
    assert np.allclose(pruned.evaluate(pos, 1), one_ply_pruned_by_hand(pruned, pos, 2), atol=1e-6)
    assert not np.allclose(pruned.evaluate(pos, 1), searcher.evaluate(pos, 1), atol=1e-6)
    counted = Searcher(Counting(), prune=2)  # type: ignore[arg-type]
    counted.evaluate(pos, 1)
    assert seen == [len(list(iter_rolls())) * 2]  # every roll here has two plays or more


def test_pruning_that_keeps_every_play_changes_nothing(searcher: Searcher) -> None:
    """A pruning width above any roll's number of plays gives the unpruned lookahead to
    the bit (the same boards in the same batches), cubeless and cubeful."""
    from backgammon.evaluation.cube import CubeState

    start = Position.initial()
    positions = [start.play(start.parse_move("24/18 13/10", (6, 3))), start]
    # Fresh searchers: what a searcher remembers decides what goes into its batches.
    wide = Searcher(searcher.evaluator, prune=10_000)
    full = Searcher(searcher.evaluator)
    for plies in (1, 2):
        assert np.array_equal(
            wide.evaluate(positions[0], plies), full.evaluate(positions[0], plies)
        )
        p, v = wide.cubeful_many(positions, [CubeState()], plies, False)
        q, u = full.cubeful_many(positions, [CubeState()], plies, False)
        assert np.array_equal(p, q) and np.array_equal(v, u)


def test_a_negative_pruning_width_is_refused(searcher: Searcher) -> None:
    with pytest.raises(ValueError, match="prune"):
        Searcher(searcher.evaluator, prune=-1)


def test_plays_of_many_positions_together_are_each_ones_best_move(searcher: Searcher) -> None:
    """:meth:`Searcher.best_after_many` (the rollouts' lookahead bots, all games of a ply
    at once) plays what :meth:`Searcher.best_move` plays for each position alone, at 0
    and 1 ply, pruned and blended or not; :meth:`Searcher.evaluate_many` judges as
    :meth:`Searcher.evaluate` does, to float32 rounding."""
    from gnubg_reference import played_game_cases

    cases = [(p, (a, b)) for p, a, b in played_game_cases(3, seed=4)][:120]
    positions, rolls = [p for p, _ in cases], [d for _, d in cases]
    for plies, kw in ((0, {}), (1, {}), (1, {"odd_blend": 0.5, "prune": 5})):
        s = Searcher(searcher.evaluator, **kw)  # type: ignore[arg-type]
        many = s.best_after_many(positions, rolls, plies)
        for (pos, dice), after in zip(cases, many, strict=True):
            m = Searcher(searcher.evaluator, **kw).best_move(pos, dice, plies)  # type: ignore[arg-type]
            assert after == (pos.flip() if m is None else pos.play(m)), (plies, kw)
        values = s.evaluate_many(positions[:40], plies)
        alone = [Searcher(searcher.evaluator, **kw).evaluate(p, plies) for p in positions[:40]]  # type: ignore[arg-type]
        assert np.allclose(values, alone, atol=1e-6)

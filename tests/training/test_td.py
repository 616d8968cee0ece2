"""TD(lambda) training: reproducible from a seed, resumable, and it learns."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np

from backgammon.core.position import Position
from backgammon.evaluation.evaluator import CompositeEvaluator
from backgammon.evaluation.net import NetPair
from backgammon.evaluation.probabilities import flip_probs
from backgammon.training.nets import random_pair
from backgammon.training.selfplay import greedy_game, greedy_games
from backgammon.training.td import main, play_training_game

SMALL = ["--hidden", "8", "--race-hidden", "4", "--every", "1", "--keep-every", "1000"]


def weights(path: Path) -> list[np.ndarray]:
    ev = NetPair.load(path)
    return [ev.contact.w1, ev.contact.w2, ev.race.w1, ev.race.b2]


def test_same_seed_same_weights_and_resume_continues_exactly(tmp_path: Path) -> None:
    a, b, c = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    assert main(["--games", "3", "--dir", str(a), "--seed", "5", *SMALL]) == 0
    assert main(["--games", "3", "--dir", str(b), "--seed", "5", *SMALL]) == 0
    for x, y in zip(weights(a / "latest.npz"), weights(b / "latest.npz"), strict=True):
        assert np.array_equal(x, y)
    # Two games, stop, resume to three: the same as three in one go.
    assert main(["--games", "2", "--dir", str(c), "--seed", "5", *SMALL]) == 0
    assert main(["--games", "3", "--dir", str(c), "--resume", *SMALL]) == 0
    for x, y in zip(weights(a / "latest.npz"), weights(c / "latest.npz"), strict=True):
        assert np.array_equal(x, y)
    assert NetPair.load(c / "latest.npz").meta["games"] == 3


def test_training_can_start_from_a_fitted_stage(tmp_path: Path) -> None:
    # --start continues a fitted net with TD (same shape, moved weights), reproducibly,
    # and --resume then goes on from the checkpoint, not from the start again.
    start = tmp_path / "stage.npz"
    main(["--games", "0", "--dir", str(tmp_path / "s"), "--seed", "9", *SMALL])
    (tmp_path / "s" / "latest.npz").rename(start)
    a, b = tmp_path / "a", tmp_path / "b"
    for d in (a, b):
        assert main(["--games", "2", "--dir", str(d), "--start", str(start), *SMALL]) == 0
    for x, y, z in zip(
        weights(a / "latest.npz"), weights(b / "latest.npz"), weights(start), strict=True
    ):
        assert np.array_equal(x, y) and x.shape == z.shape
    assert not np.array_equal(weights(a / "latest.npz")[0], weights(start)[0])
    assert NetPair.load(a / "latest.npz").meta["started_from"] == str(start)
    assert main(["--games", "3", "--dir", str(a), "--resume", "--start", str(start), *SMALL]) == 0
    assert NetPair.load(a / "latest.npz").meta["games"] == 3


def test_other_seed_other_weights(tmp_path: Path) -> None:
    main(["--games", "0", "--dir", str(tmp_path / "a"), "--seed", "1", *SMALL])
    main(["--games", "0", "--dir", str(tmp_path / "b"), "--seed", "2", *SMALL])
    x = weights(tmp_path / "a" / "latest.npz")[0]
    y = weights(tmp_path / "b" / "latest.npz")[0]
    assert not np.array_equal(x, y)


def test_a_game_moves_the_outputs_towards_the_result() -> None:
    ev = random_pair(np.random.default_rng(0), hidden=8, race_hidden=4)
    before = ev.contact.w2.copy()
    plies, err = play_training_game(ev, random.Random(0), alpha=0.1, lam=0.7)
    assert plies > 10 and err > 0
    assert not np.array_equal(before, ev.contact.w2)
    # alpha 0 leaves the weights alone.
    frozen = ev.contact.w2.copy()
    play_training_game(ev, random.Random(1), alpha=0.0, lam=0.7)
    assert np.array_equal(frozen, ev.contact.w2)


def test_average_of_checkpoints(tmp_path: Path) -> None:
    a, b = tmp_path / "a.npz", tmp_path / "b.npz"
    rng = np.random.default_rng(3)
    random_pair(rng, hidden=8, race_hidden=4).save(a)
    random_pair(rng, hidden=8, race_hidden=4).save(b)
    assert main(["--dir", str(tmp_path), "--average", str(a), str(b)]) == 0
    mean = NetPair.load(tmp_path / "average.npz")
    x, y = NetPair.load(a), NetPair.load(b)
    assert np.allclose(mean.contact.w1, (x.contact.w1 + y.contact.w1) / 2)
    assert np.allclose(mean.race.b2, (x.race.b2 + y.race.b2) / 2)
    assert [s["file"] for s in mean.meta["averaged_from"]] == ["a.npz", "b.npz"]


def test_games_side_by_side_are_the_same_games_and_all_end() -> None:
    # One game side by side is exactly the single game (same dice, same plays).
    ev = random_pair(np.random.default_rng(3), hidden=8, race_hidden=4)
    raw = CompositeEvaluator(ev, consistent=False)

    def judge(b: np.ndarray) -> np.ndarray:
        return flip_probs(raw.evaluate(b))

    one = greedy_game(random.Random(8), judge)
    (together,) = greedy_games(random.Random(8), judge, 1)
    assert one[0] == together[0] and np.array_equal(one[1], together[1])
    games = greedy_games(random.Random(8), judge, 5)
    assert len(games) == 5
    for states, result in games:
        assert states[0] == Position.initial().board
        assert result[0] in (0.0, 1.0)  # the winner's exact result
        assert len(set(states)) > 10


def test_batched_training_runs_and_checkpoints(tmp_path: Path) -> None:
    args = ["--dir", str(tmp_path), "--seed", "5", "--batch", "4", *SMALL]
    assert main(["--games", "6", *args]) == 0
    assert NetPair.load(tmp_path / "latest.npz").meta["games"] == 6

"""Fitting the pruning net (backgammon.training.prune): the data it generates is every play
of every roll of the games' positions, and a fit ranks plays better than the net it starts
from."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from backgammon.evaluation.prune import COUNTS, PruneNet
from backgammon.judging.rollout.engine import evaluator_for
from backgammon.training.prune import check, fit, generate, main


def test_generate_keeps_every_play_of_every_roll() -> None:
    boards, eq, counts = generate(evaluator_for(None, True), games=2, seed=5)
    assert len(counts) % 21 == 0 and len(counts) >= 2 * 21 * 10  # games last 10+ turns
    assert counts.min() >= 1 and counts.sum() == len(boards) == len(eq)
    assert np.all(np.abs(eq) <= 3.0)
    again = generate(evaluator_for(None, True), games=2, seed=5)
    assert np.array_equal(again[0], boards)  # seeded


def test_a_fit_ranks_plays_better_than_the_net_it_starts_from() -> None:
    boards, eq, counts = generate(evaluator_for(None, True), games=6, seed=6)
    rng = np.random.default_rng(0)
    start = PruneNet(
        (rng.standard_normal((26 * COUNTS, 8)) * 0.1).astype(np.float32),
        np.zeros(8, np.float32),
        (rng.standard_normal(8) * 0.1).astype(np.float32),
        0.0,
    )
    fitted = fit(boards, eq, counts, hidden=8, epochs=3, seed=0, rolls_a_batch=64)
    pruned, missed_start, loss_start = check(start, boards, eq, counts, keep=3)
    _, missed, loss = check(fitted, boards, eq, counts, keep=3)
    print(f"{pruned} rolls pruned: best lost {missed_start} -> {missed}")
    assert pruned > 500
    assert missed < 0.6 * missed_start and loss < 0.6 * loss_start


def test_the_command_writes_and_checks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data, net = str(tmp_path / "d.npz"), str(tmp_path / "n.npz")
    assert main(["generate", "--games", "1", "--seed", "3", "--out", data]) == 0
    assert main(["fit", "--data", data, "--hidden", "4", "--epochs", "1", "--out", net]) == 0
    assert PruneNet.load(net).embed.shape == (26 * COUNTS, 4)
    assert main(["check", "--weights", net, "--data", data, "--keep", "3"]) == 0
    assert "keep 3:" in capsys.readouterr().out

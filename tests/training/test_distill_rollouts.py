"""Labels by rollouts: each position gets its own rollout whatever shares its job or
backend, and relabelling rolls out the positions whose labels the nets doubt most."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path

import numpy as np
import pytest
from test_distill import positions

from backgammon.core.position import Position
from backgammon.evaluation.bearoff import BearoffDatabase
from backgammon.evaluation.encode import class_masks
from backgammon.evaluation.evaluator import CompositeEvaluator
from backgammon.evaluation.net import NetPair
from backgammon.evaluation.probabilities import cubeless_equity
from backgammon.evaluation.search import Searcher
from backgammon.judging.rollout import RolloutSettings, rollout
from backgammon.judging.rollout.engine import RolloutSettingsError
from backgammon.judging.rollout.local import ProcessPool
from backgammon.training import distill
from backgammon.training.distill import (
    Generated,
    RelabelError,
    generate,
    main,
    relabel,
    rolled_out,
    two_ply,
)
from backgammon.training.nets import random_pair


@pytest.fixture(scope="module")
def net_file(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("nets") / "w.npz"
    random_pair(np.random.default_rng(4), hidden=8, race_hidden=4).save(path)
    return str(path)


def test_rollout_labels_are_each_positions_own_rollout(net_file: str) -> None:
    """Rolled out together, each position gets what a rollout of it alone gives."""
    pos = Position.initial()
    sample = [pos]
    for dice in [(3, 1), (6, 4), (5, 5)]:
        pos = pos.play(pos.legal_moves(dice)[0])
        sample.append(pos)
    settings = RolloutSettings(trials=6, truncate=3, batch=4, seed=7)
    together = rolled_out(sample, settings, net_file)
    for p, q in zip(sample, together, strict=True):
        alone = rollout(p, settings=settings, workers=1, weights=net_file)
        assert np.allclose(q, alone.candidates[0].probabilities, atol=1e-12)
    assert rolled_out([], settings, net_file).shape == (0, 5)


def test_rollout_labels_do_not_depend_on_how_many_positions_share_a_job(
    net_file: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Positions go in jobs of ROLLOUT_POSITIONS (memory grows with a job's positions) and
    get the same labels however they are split."""
    pos, sample = Position.initial(), []
    for dice in [(3, 1), (6, 4), (5, 5), (2, 1), (6, 6)]:
        pos = pos.play(pos.legal_moves(dice)[0])
        sample.append(pos)
    settings = RolloutSettings(trials=4, truncate=3, batch=4, seed=3)
    whole = rolled_out(sample, settings, net_file)
    monkeypatch.setattr(distill, "ROLLOUT_POSITIONS", 2)
    split = rolled_out(sample, settings, net_file)
    assert split.shape == (5, 5)
    assert np.allclose(split, whole, atol=1e-12)


def test_rollout_labels_are_the_same_on_any_backend(net_file: str) -> None:
    """Trial i's dice depend on the seed and i alone, so labels rolled out in other batches
    on other processes are the same (to float32 rounding: the nets judge other batches)."""
    pos, sample = Position.initial(), []
    for dice in [(3, 1), (6, 4), (5, 5), (2, 1)]:
        pos = pos.play(pos.legal_moves(dice)[0])
        sample.append(pos)
    settings = RolloutSettings(trials=6, truncate=4, batch=6, seed=5)
    here = rolled_out(sample, settings, net_file)
    spread = dataclasses.replace(settings, batch=2)
    assert np.allclose(rolled_out(sample, spread, net_file, ProcessPool(2)), here, atol=1e-6)
    other_dice = dataclasses.replace(settings, seed=6)
    assert not np.allclose(rolled_out(sample, other_dice, net_file), here)


def test_generate_labels_by_rollouts_on_request(net_file: str) -> None:
    """Batch k of rollout labels uses the settings' seed plus k, so the data are
    reproducible and each label is its position's rollout."""
    searcher = Searcher(CompositeEvaluator(NetPair.load(net_file), BearoffDatabase.load()))
    settings = RolloutSettings(trials=4, truncate=2, batch=4, seed=11)
    boards, probs, _ = generate(
        searcher, 1, random.Random(3), progress=False, chunk=10**6, rollout=(settings, net_file)
    )
    expected = rolled_out(positions(boards), settings, net_file)
    assert np.allclose(probs, expected, atol=1e-6)
    assert not np.allclose(probs, two_ply(searcher, positions(boards)), atol=1e-3)
    again = generate(
        searcher, 1, random.Random(3), progress=False, chunk=10**6, rollout=(settings, net_file)
    )
    assert np.array_equal(again[1], probs)


@pytest.fixture(scope="module")
def two_ply_data(net_file: str) -> Generated:
    searcher = Searcher(CompositeEvaluator(NetPair.load(net_file), BearoffDatabase.load()))
    return generate(searcher, 2, random.Random(8), progress=False, plies=2)


def test_relabel_rolls_out_where_zero_ply_and_label_disagree_most(
    net_file: str, two_ply_data: Generated
) -> None:
    """The share of positions furthest (in equity) from the nets' 0-ply get their rollouts
    as labels; every other label is kept as it was."""
    boards, probs, _ = two_ply_data
    ev = NetPair.load(net_file)
    settings = RolloutSettings(trials=4, truncate=2, batch=4, seed=5)
    new, chosen = relabel(ev, boards, probs, 0.25, settings, net_file)
    assert len(chosen) == round(0.25 * len(boards)) > 0
    gap = np.abs(cubeless_equity(ev.evaluate(boards.astype(np.int64))) - cubeless_equity(probs))
    others = np.setdiff1d(np.arange(len(boards)), chosen)
    assert gap[chosen].min() >= gap[others].max()
    assert np.array_equal(new[others], probs[others])
    expected = rolled_out(positions(boards[chosen]), settings, net_file)
    assert np.allclose(new[chosen], expected, atol=1e-6)
    assert not np.allclose(new[chosen], probs[chosen], atol=1e-3)
    assert np.array_equal(relabel(ev, boards, probs, 0.0, settings, net_file)[0], probs)
    assert len(relabel(ev, boards[:3], probs[:3], 1.0, settings, net_file)[1]) == 3


def test_relabel_only_rolls_out_positions_of_the_classes_named(
    net_file: str, two_ply_data: Generated
) -> None:
    """With ``only``, the share is of the positions of those classes (race, crashed,
    contact), the furthest of them from 0-ply are rolled out, and no other label moves."""
    boards, probs, _ = two_ply_data
    ev = NetPair.load(net_file)
    settings = RolloutSettings(trials=2, truncate=2, batch=2, seed=3)
    race = class_masks(boards.astype(np.int64))["race"]
    assert 0 < race.sum() < len(boards)
    new, chosen = relabel(ev, boards, probs, 1.0, settings, net_file, only=("race",))
    assert np.array_equal(chosen, np.flatnonzero(race))
    assert np.array_equal(new[~race], probs[~race])
    assert not np.allclose(new[race], probs[race], atol=1e-3)
    half = relabel(ev, boards, probs, 0.5, settings, net_file, only=("race",))[1]
    assert len(half) == round(0.5 * race.sum()) and race[half].all()
    gap = np.abs(cubeless_equity(ev.evaluate(boards.astype(np.int64))) - cubeless_equity(probs))
    assert gap[half].min() >= gap[np.setdiff1d(np.flatnonzero(race), half)].max()
    with pytest.raises(RelabelError, match="bearoff"):
        relabel(ev, boards, probs, 1.0, settings, net_file, only=("bearoff",))


@pytest.mark.parametrize("share", [-0.1, 1.5, float("nan")])
def test_relabel_refuses_a_share_outside_zero_to_one(
    net_file: str, two_ply_data: Generated, share: float
) -> None:
    boards, probs, _ = two_ply_data
    settings = RolloutSettings(trials=2, truncate=1, batch=2, seed=1)
    with pytest.raises(RelabelError):
        relabel(NetPair.load(net_file), boards, probs, share, settings, net_file)


def test_relabel_refuses_labels_not_matching_the_boards(
    net_file: str, two_ply_data: Generated
) -> None:
    boards, probs, _ = two_ply_data
    settings = RolloutSettings(trials=2, truncate=1, batch=2, seed=1)
    with pytest.raises(RelabelError):
        relabel(NetPair.load(net_file), boards, probs[1:], 0.5, settings, net_file)
    with pytest.raises(RelabelError):
        relabel(NetPair.load(net_file), boards[:, :25], probs, 0.5, settings, net_file)


def test_command_line_relabels_a_data_file(
    net_file: str, two_ply_data: Generated, tmp_path: Path
) -> None:
    """``distill relabel`` writes the same boards with :func:`relabel`'s labels (seeded by
    ``--seed``) and decision groups, and refuses a bad share without writing anything."""
    boards, probs, groups = two_ply_data
    src, out = tmp_path / "d.npz", tmp_path / "r.npz"
    np.savez_compressed(src, boards=boards, probs=probs, groups=groups)
    argv = ["relabel", "--weights", net_file, "--data", str(src), "--out", str(out)]
    assert main([*argv, "--share", "0.2", "--rollout-trials", "4", "--truncate", "2"]) == 0
    written = np.load(out)
    assert np.array_equal(written["boards"], boards)
    assert np.array_equal(written["groups"], groups)
    settings = RolloutSettings(trials=4, truncate=2, batch=4, seed=1, bearoff_truncation=True)
    expected, _ = relabel(NetPair.load(net_file), boards, probs, 0.2, settings, net_file)
    assert np.array_equal(written["probs"], expected)
    out.unlink()
    spread = ["--share", "0.2", "--rollout-trials", "4", "--truncate", "2", "--workers", "2"]
    assert main([*argv, *spread]) == 0
    assert np.allclose(np.load(out)["probs"], expected, atol=1e-6)
    out.unlink()
    with pytest.raises(RelabelError):
        main([*argv, "--share", "2"])
    with pytest.raises(RolloutSettingsError, match="workers"):
        main([*argv, "--share", "0.2", "--workers", "0"])
    assert not out.exists()


@pytest.mark.slow
def test_command_line_rolls_labels_out_on_ray(
    net_file: str, two_ply_data: Generated, tmp_path: Path
) -> None:
    """``distill relabel --ray local``: the batches run as Ray tasks, with this process's
    labels."""
    import ray

    boards, probs, groups = two_ply_data
    src, out = tmp_path / "d.npz", tmp_path / "r.npz"
    np.savez_compressed(src, boards=boards, probs=probs, groups=groups)
    argv = ["relabel", "--weights", net_file, "--data", str(src), "--out", str(out)]
    on_ray = ["--share", "0.2", "--rollout-trials", "4", "--truncate", "2", "--ray", "local"]
    try:
        assert main([*argv, *on_ray, "--rollout-batch", "2"]) == 0
        assert ray.is_initialized()
    finally:
        ray.shutdown()
    settings = RolloutSettings(trials=4, truncate=2, batch=4, seed=1, bearoff_truncation=True)
    expected, _ = relabel(NetPair.load(net_file), boards, probs, 0.2, settings, net_file)
    assert np.allclose(np.load(out)["probs"], expected, atol=1e-6)

"""The net pair: its input layout travels with the weights, and moving to a longer layout
keeps the function."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from gnubg_reference import board_from_points, played_game_cases

from backgammon.evaluation.encode import boards_array, is_back_game, is_crashed, is_race, n_inputs
from backgammon.evaluation.net import BLOCK, NetPair
from backgammon.training.nets import random_net, random_pair, sgd_step, with_inputs


def _boards() -> np.ndarray:
    return boards_array(pos.board for pos, _, _ in played_game_cases(3, seed=2))


def test_longer_layout_keeps_the_function(tmp_path: Path) -> None:
    ev = random_pair(np.random.default_rng(3), hidden=8, race_hidden=4)
    grown = with_inputs(ev, 2)
    assert grown.inputs == 2 and ev.inputs == 1
    assert grown.contact.w1.shape == (n_inputs(2), 8)
    b = _boards()
    assert np.allclose(grown.evaluate(b), ev.evaluate(b), atol=1e-12)
    grown.save(tmp_path / "g.npz")
    loaded = NetPair.load(tmp_path / "g.npz")
    assert loaded.inputs == 2
    assert np.array_equal(loaded.evaluate(b), grown.evaluate(b))
    with pytest.raises(ValueError, match="input layout"):
        with_inputs(grown, 1)


def test_weights_that_do_not_fit_the_layout_are_refused() -> None:
    rng = np.random.default_rng(1)
    short = random_net(n_inputs(1), 4, rng)
    with pytest.raises(ValueError, match="takes 215 inputs"):
        NetPair(short, short, {"inputs": 2})
    fresh = random_pair(rng, hidden=4, race_hidden=4, inputs=2)
    assert fresh.inputs == 2 and fresh.race.w1.shape[0] == n_inputs(2)


def test_crashed_and_back_game_nets_judge_their_boards(tmp_path: Path) -> None:
    """Each board to exactly one net: races to the race net, crashed contact to the crashed
    net, other back games to the back-game net, the rest to the contact net."""
    rng = np.random.default_rng(5)
    ev = random_pair(rng, hidden=8, race_hidden=4)
    holder = board_from_points({22: 3, 20: 2, 6: 5, 5: 3, 4: 2}, {6: 5, 4: 4, 2: 3, 1: 3})
    crashed_holder = board_from_points({22: 2, 20: 2, 1: 11}, {6: 4, 4: 4, 2: 4, 1: 3})
    b = np.concatenate([_boards(), [holder, -holder[::-1], crashed_holder]])
    x, race = ev.encode(b)
    crashed = is_crashed(b) & ~race
    back = is_back_game(b) & ~crashed
    assert crashed[-1] and is_back_game(b)[-1]
    contact = ~race & ~crashed & ~back
    assert crashed.any() and back.any() and contact.any() and race.any()
    four = NetPair(
        ev.contact, ev.race, {}, random_net(n_inputs(1), 6, rng), random_net(n_inputs(1), 5, rng)
    )
    out = four.evaluate(b)
    assert np.allclose(out[contact | race], ev.evaluate(b)[contact | race], rtol=0, atol=1e-6)
    assert four.crashed is not None and four.back is not None
    assert np.allclose(out[crashed], four.crashed(x[crashed]), atol=1e-12)
    assert np.allclose(out[back], four.back(x[back]), atol=1e-12)
    four.save(tmp_path / "four.npz")
    assert np.array_equal(NetPair.load(tmp_path / "four.npz").evaluate(b), out)
    names = [name for name, _net, _mask in four.masks(b, race)]
    assert names == ["contact", "race", "crashed", "back"]
    masks = np.array([mask for _name, _net, mask in four.masks(b, race)])
    assert (masks.sum(axis=0) == 1).all()
    assert np.array_equal(masks[0], contact)
    # Without a crashed net, crashed back games are the back net's, the other crashed boards
    # the contact net's.
    two = NetPair(ev.contact, ev.race, {}, back=four.back)
    kept = dict((name, mask) for name, _net, mask in two.masks(b, race))
    assert np.array_equal(kept["back"], is_back_game(b)) and set(kept) == {
        "contact",
        "race",
        "back",
    }


def test_play_in_float32_follows_the_weights() -> None:
    # Play reads float32 copies of the weights: a change in place (training) must reach it
    # once announced, an assigned array at once.
    net = random_net(6, 4, np.random.default_rng(3))
    x = np.random.default_rng(4).random((5, 6))
    before = net(x)
    w2 = net.w2
    w2 *= 2.0  # in place, as an optimiser does
    assert np.array_equal(net(x), before)  # not announced: the copies are kept
    net.changed()
    assert np.allclose(net(x), net.forward(x)[1], rtol=0, atol=1e-6)
    assert not np.allclose(net(x), before, rtol=0, atol=1e-3)
    net.b2 = net.b2 + 1.0
    assert np.allclose(net(x), net.forward(x)[1], rtol=0, atol=1e-6)
    target = np.full((5, 5), 0.9)
    after_step = net(x)
    sgd_step(net, x, target, 0.5)
    assert not np.allclose(net(x), after_step, rtol=0, atol=1e-4)
    assert np.allclose(net(x), net.forward(x)[1], rtol=0, atol=1e-6)


def test_a_large_batch_is_judged_block_by_block_as_each_board_alone() -> None:
    # Batches beyond BLOCK boards are split (for the caches); splitting changes nothing
    # but float32 rounding, and the race flags come back in order.
    ev = random_pair(np.random.default_rng(5), hidden=16, race_hidden=8)
    b = np.concatenate([_boards()] * (2 * BLOCK // len(_boards()) + 2))
    assert len(b) > 2 * BLOCK
    probs, race = ev.evaluate_with_race(b)
    alone = np.concatenate([ev.evaluate_with_race(b[i : i + 1])[0] for i in range(0, len(b), 97)])
    assert np.allclose(probs[::97], alone, atol=1e-6)
    assert np.array_equal(race, is_race(b))

"""The 1-ply distillation stage: its labels are the 1-ply search's, it is reproducible from a
seed, and fitting moves the nets towards the labels."""

from __future__ import annotations

import random
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from backgammon.core.position import Position
from backgammon.core.values import Move
from backgammon.evaluation.bearoff import BearoffDatabase, is_bearoff
from backgammon.evaluation.encode import encode, is_back_game, is_crashed, is_race
from backgammon.evaluation.evaluator import CompositeEvaluator
from backgammon.evaluation.net import NetPair
from backgammon.evaluation.probabilities import OUTPUT_NAMES
from backgammon.evaluation.search import Searcher
from backgammon.judging.rollout import RolloutSettings
from backgammon.judging.rollout.engine import RolloutSettingsError
from backgammon.players import UnknownPlayerError
from backgammon.training import distill
from backgammon.training.distill import (
    Generated,
    generate,
    main,
    one_ply,
    rolled_out,
    two_ply,
)
from backgammon.training.fit import FitDataError, average, calibrate, fit, rank_error
from backgammon.training.nets import random_pair, widen, with_inputs
from backgammon.training.selfplay import Choose, ExploreError, Judge, Visit, greedy_game


@pytest.fixture(scope="module")
def searcher() -> Searcher:
    ev = random_pair(np.random.default_rng(4), hidden=8, race_hidden=4)
    return Searcher(CompositeEvaluator(ev, BearoffDatabase.load()))


@pytest.fixture(scope="module")
def data(searcher: Searcher) -> Generated:
    return generate(searcher, 3, random.Random(9), progress=False)


def positions(boards: np.ndarray) -> list[Position]:
    return [Position(tuple(int(v) for v in row)) for row in boards]


def test_labels_are_the_one_ply_evaluation(searcher: Searcher, data: Generated) -> None:
    boards, probs, _ = data
    sample = positions(boards[:: max(1, len(boards) // 25)])
    batched = one_ply(searcher, sample)
    for pos, p in zip(sample, batched, strict=True):
        assert np.allclose(p, searcher.evaluate(pos, 1), atol=1e-12)
    assert np.allclose(probs[:: max(1, len(boards) // 25)], batched, atol=1e-6)


def test_generated_positions_are_live_and_not_pure_bearoffs(
    data: Generated,
) -> None:
    boards, probs, _ = data
    assert len(boards) > 100  # three games: the positions played into and alternatives
    assert not is_bearoff(boards.astype(np.int64)).any()
    assert all(not p.is_game_over() for p in positions(boards))
    assert ((probs >= 0) & (probs <= 1)).all()
    assert (probs[:, 1] <= probs[:, 0] + 1e-6).all()  # a gammon is a win


def test_same_seed_same_data(searcher: Searcher, data: Generated) -> None:
    again = generate(searcher, 3, random.Random(9), progress=False)
    assert all(np.array_equal(a, b) for a, b in zip(again, data, strict=True))
    other = generate(searcher, 3, random.Random(10), progress=False)
    assert len(other[0]) != len(data[0]) or not np.array_equal(other[0], data[0])


def test_fitting_reduces_the_error_on_the_labels(searcher: Searcher, data: Generated) -> None:
    boards, probs, _ = data
    ev = random_pair(np.random.default_rng(4), hidden=8, race_hidden=4)
    x = boards.astype(np.int64)
    before = float(((ev.evaluate(x) - probs) ** 2).mean())
    fit(ev, boards, probs, epochs=20, lr=3e-3, batch=32, seed=1, progress=False)
    after = float(((ev.evaluate(x) - probs) ** 2).mean())
    assert after < 0.5 * before


def test_decision_groups_are_the_plays_of_one_roll(
    searcher: Searcher, data: Generated, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Decision k's positions are all among the plays self-play weighed at its k-th choice;
    the numbers start at 0 and never go down, and a decision keeps at most three plays."""
    seen: list[set[tuple[int, ...]]] = []
    play = greedy_game

    def spy(
        rng: random.Random,
        judge: Judge,
        visit: Visit,
        explore: float = 0.0,
        choose: Choose | None = None,
        opponent: Choose | None = None,
        dances: bool = False,
    ) -> object:
        def record(after: np.ndarray, eq: np.ndarray, best: int) -> None:
            seen.append({tuple(int(v) for v in row) for row in after})
            visit(after, eq, best)

        return play(rng, judge, record, explore, choose, opponent, dances)

    monkeypatch.setattr(distill, "greedy_game", spy)
    boards, _, groups = generate(searcher, 3, random.Random(9), progress=False)
    assert np.array_equal(boards, data.boards) and np.array_equal(groups, data.groups)
    assert groups[0] == 0 and (np.diff(groups) >= 0).all()
    assert np.bincount(groups).max() == 3
    assert all(tuple(int(v) for v in row) in seen[g] for row, g in zip(boards, groups, strict=True))


def _contact_rank_error(ev: NetPair, data: Generated) -> float:
    b = data.boards.astype(np.int64)
    contact = ~is_race(b)
    x = encode(b[contact])
    return rank_error(ev.contact, x, data.probs[contact], data.groups[contact])


def test_a_rank_loss_fits_the_differences_between_the_plays_of_a_roll(
    data: Generated,
) -> None:
    """With the rank loss the net's equity differences within decisions end closer to the
    labels' than a fit of the same length without it."""
    fitted = []
    for rank in (0.0, 16.0):
        ev = random_pair(np.random.default_rng(4), hidden=8, race_hidden=4)
        fit(ev, data.boards, data.probs, 20, 3e-3, 32, 1, False, groups=data.groups, rank=rank)
        fitted.append(_contact_rank_error(ev, data))
    assert fitted[1] < 0.8 * fitted[0]


def test_fit_refuses_data_it_cannot_fit(data: Generated) -> None:
    ev = random_pair(np.random.default_rng(4), hidden=8, race_hidden=4)
    before = ev.contact.w1.copy()
    boards, probs, groups = data
    for kwargs, match in [
        ({"rank": 1.0}, "groups"),
        ({"rank": -1.0, "groups": groups}, ">= 0"),
        ({"rank": float("nan"), "groups": groups}, ">= 0"),
        ({"rank": float("inf"), "groups": groups}, ">= 0"),
        ({"groups": groups[1:]}, "do not match"),
    ]:
        with pytest.raises(FitDataError, match=match):
            fit(ev, boards, probs, 1, 1e-3, 32, 1, False, **kwargs)  # type: ignore[arg-type]
    with pytest.raises(FitDataError, match="do not match"):
        fit(ev, boards, probs[1:], 1, 1e-3, 32, 1, False)
    assert np.array_equal(ev.contact.w1, before)


def test_command_line_generates_and_fits(tmp_path: Path) -> None:
    w = tmp_path / "w.npz"
    random_pair(np.random.default_rng(1), hidden=8, race_hidden=4).save(w)
    d = tmp_path / "data" / "d.npz"  # the folder is made
    assert (
        main(["generate", "--weights", str(w), "--games", "1", "--seed", "3", "--out", str(d)]) == 0
    )
    out = tmp_path / "new.npz"
    assert (
        main(["fit", "--weights", str(w), "--data", str(d), "--out", str(out), "--epochs", "2"])
        == 0
    )
    new = NetPair.load(out)
    assert new.meta["history"][-1]["distill"] == [str(d)]
    assert not np.array_equal(new.contact.w1, NetPair.load(w).contact.w1)
    groups = np.load(d)["groups"]
    assert len(groups) == len(np.load(d)["boards"]) and groups[0] == 0
    ranked = tmp_path / "ranked.npz"
    fit_args = ["fit", "--weights", str(w), "--out", str(ranked), "--epochs", "2"]
    assert main([*fit_args, "--data", str(d), str(d), "--rank", "8"]) == 0
    # the second file's decisions are numbered on from the first's
    expected = NetPair.load(w)
    two = [np.load(d)[k] for k in ("boards", "probs")]
    fit(
        expected,
        np.concatenate([two[0], two[0]]),
        np.concatenate([two[1], two[1]]),
        2,
        1e-3,
        128,
        1,
        False,
        groups=np.concatenate([groups, groups + groups[-1] + 1]),
        rank=8.0,
    )
    assert np.allclose(NetPair.load(ranked).contact.w1, expected.contact.w1, atol=1e-12)
    ranked.unlink()
    plain = tmp_path / "plain.npz"  # data written before decisions were recorded
    np.savez_compressed(plain, boards=np.load(d)["boards"], probs=np.load(d)["probs"])
    with pytest.raises(FitDataError, match=r"plain\.npz"):
        main([*fit_args, "--data", str(d), str(plain), "--rank", "8"])
    assert not ranked.exists()
    r = tmp_path / "r.npz"
    args = ["generate", "--weights", str(w), "--games", "1", "--seed", "3", "--out", str(r)]
    assert main([*args, "--rollout-trials", "4", "--truncate", "2"]) == 0
    rolled = np.load(r)
    assert np.array_equal(rolled["boards"], np.load(d)["boards"])  # the same games
    settings = RolloutSettings(trials=4, truncate=2, batch=4, seed=3)
    first = positions(rolled["boards"][:3])
    assert np.allclose(rolled["probs"][:3], rolled_out(first, settings, str(w)), atol=1e-6)
    bad = tmp_path / "bad.npz"
    bad_args = ["generate", "--weights", str(w), "--games", "1", "--out", str(bad)]
    with pytest.raises(RolloutSettingsError, match="trials"):
        main([*bad_args, "--rollout-trials", "-1"])
    with pytest.raises(RolloutSettingsError, match="truncate"):
        main([*bad_args, "--rollout-trials", "4", "--truncate", "-2"])
    assert not bad.exists()


def _plain_and(
    tmp_path: Path, net_seed: int, games: list[str], *option: str
) -> tuple[Path, list[str], Any, Any]:
    """A small random net, and ``distill generate`` run with ``games`` twice: plainly and
    with ``option``; the net's file, the common arguments and both outputs."""
    w = tmp_path / "w.npz"
    random_pair(np.random.default_rng(net_seed), hidden=8, race_hidden=4).save(w)
    args = ["generate", "--weights", str(w), *games]
    plain, other = tmp_path / "p.npz", tmp_path / "o.npz"
    assert main([*args, "--out", str(plain)]) == 0
    assert main([*args, "--out", str(other), *option]) == 0
    return w, args, np.load(plain), np.load(other)


def test_odd_blend_labels_are_the_players_one_ply(tmp_path: Path) -> None:
    """``--odd-blend 0.5`` labels each position with the mean of its 1- and 0-ply
    probabilities, as the player's 1-ply (``odd_blend``) judges it; the same games as plain
    1-ply labels, other labels; a weight outside 0-1 is refused and writes nothing."""
    w, args, a, b = _plain_and(tmp_path, 2, ["--games", "1", "--seed", "5"], "--odd-blend", "0.5")
    assert np.array_equal(a["boards"], b["boards"])
    player = Searcher(CompositeEvaluator(NetPair.load(w), BearoffDatabase.load()), odd_blend=0.5)
    for row, p in zip(b["boards"][:5], b["probs"][:5], strict=True):
        assert np.allclose(p, player.evaluate(Position(tuple(int(v) for v in row)), 1), atol=1e-6)
    assert not np.allclose(a["probs"], b["probs"], atol=1e-4)
    bad = tmp_path / "bad.npz"
    for share in ("1.5", "x"):
        with pytest.raises(SystemExit):
            main([*args, "--out", str(bad), "--odd-blend", share])
    assert not bad.exists()


def test_command_line_explores_on_request(tmp_path: Path) -> None:
    """``--explore`` plays that share of turns at random: other games, still labelled at 1-ply
    and grouped by decision; a share that is not a probability writes nothing.
    ``--play-plies 1`` plays other games too."""
    w, args, a, b = _plain_and(tmp_path, 1, ["--games", "2", "--seed", "3"], "--explore", "0.3")
    assert a["boards"].shape != b["boards"].shape or not np.array_equal(a["boards"], b["boards"])
    ev = Searcher(CompositeEvaluator(NetPair.load(w), BearoffDatabase.load()))
    first = positions(b["boards"][:4])
    assert np.allclose(b["probs"][:4], one_ply(ev, first), atol=1e-6)
    assert b["groups"][0] == 0 and (np.diff(b["groups"]) >= 0).all()
    searched = tmp_path / "s.npz"
    assert main([*args, "--out", str(searched), "--play-plies", "1"]) == 0
    c = np.load(searched)
    assert a["boards"].shape != c["boards"].shape or not np.array_equal(a["boards"], c["boards"])
    bad = tmp_path / "bad.npz"
    with pytest.raises(ExploreError):
        main([*args, "--out", str(bad), "--explore", "1.5"])
    assert not bad.exists()


def test_command_line_keeps_the_positions_after_a_dance_on_request(tmp_path: Path) -> None:
    """``--dances`` keeps, besides every position kept without it (the same games), the
    position after each lost turn (mostly a checker that cannot enter; the other side on
    roll), labelled as the rest."""
    w, _, a, b = _plain_and(
        tmp_path, 3, ["--games", "4", "--seed", "2", "--plies", "0"], "--dances"
    )
    plain = [tuple(r) for r in a["boards"].tolist()]
    more = [tuple(r) for r in b["boards"].tolist()]
    extra = [r for r in more if r not in plain]
    assert len(extra) >= 2 and len(more) == len(plain) + len(extra)
    assert [r for r in more if r in plain] == plain
    rolls = [(d1, d2) for d1 in range(1, 7) for d2 in range(1, d1 + 1)]
    for r in extra:  # the side not on roll had a roll it could not play
        assert any(not Position(r).flip().legal_moves(roll) for roll in rolls)
    ev = CompositeEvaluator(NetPair.load(w), BearoffDatabase.load())
    assert np.allclose(b["probs"], ev.evaluate(b["boards"].astype(np.int64)), atol=1e-6)


def test_command_line_plays_against_an_opponent_on_request(tmp_path: Path) -> None:
    """``--opponent`` (a player's name or a weights file) plays one side of each game: other
    games, whose positions are still labelled by the generating net; an unknown opponent
    writes nothing."""
    w, other = tmp_path / "w.npz", tmp_path / "other.npz"
    random_pair(np.random.default_rng(1), hidden=8, race_hidden=4).save(w)
    random_pair(np.random.default_rng(2), hidden=8, race_hidden=4).save(other)
    args = ["generate", "--weights", str(w), "--games", "2", "--seed", "3"]
    plain = tmp_path / "p.npz"
    assert main([*args, "--out", str(plain)]) == 0
    a = np.load(plain)
    ev = Searcher(CompositeEvaluator(NetPair.load(w), BearoffDatabase.load()))
    for name in ("pubeval", str(other)):
        out = tmp_path / f"o-{len(name)}.npz"
        assert main([*args, "--out", str(out), "--opponent", name]) == 0
        b = np.load(out)
        assert a["boards"].shape != b["boards"].shape or not np.array_equal(
            a["boards"], b["boards"]
        )
        first = positions(b["boards"][:4])
        assert np.allclose(b["probs"][:4], one_ply(ev, first), atol=1e-6)
    bad = tmp_path / "bad.npz"
    with pytest.raises(UnknownPlayerError):
        main([*args, "--out", str(bad), "--opponent", "nobody"])
    assert not bad.exists()


def test_games_can_choose_their_plays_by_a_deeper_search(
    searcher: Searcher, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With ``play_plies`` each decision's first position is the play the search chose at
    that depth (the k-th search is decision k), and the games differ from the 0-ply ones."""
    calls: list[tuple[Position, Move, int]] = []
    original = Searcher.best_move

    def spy(
        self: Searcher,
        pos: Position,
        dice: Sequence[int],
        plies: int = 0,
        moves: Sequence[Move] | None = None,
    ) -> Move | None:
        move = original(self, pos, dice, plies, moves)
        assert move is not None
        calls.append((pos, move, plies))
        return move

    monkeypatch.setattr(Searcher, "best_move", spy)
    boards, probs, groups = generate(searcher, 2, random.Random(9), progress=False, play_plies=1)
    assert calls and all(plies == 1 for _, _, plies in calls)
    for k in np.unique(groups):  # the play chosen and others, each once
        kept = boards[groups == k]
        assert len({tuple(int(v) for v in row) for row in kept}) == len(kept)
    for k in np.unique(groups):
        pos, move, _ = calls[k]
        first = boards[int(np.flatnonzero(groups == k)[0])]
        assert tuple(int(v) for v in first) == pos.play(move).board
    plain = generate(searcher, 2, random.Random(9), progress=False)
    assert len(plain.boards) != len(boards) or not np.array_equal(plain.boards, boards)
    assert np.allclose(probs[:3], one_ply(searcher, positions(boards[:3])), atol=1e-6)


def test_widening_keeps_the_function(data: Generated) -> None:
    ev = random_pair(np.random.default_rng(4), hidden=8, race_hidden=4)
    wide = widen(ev.contact, 12, np.random.default_rng(0))
    assert wide.hidden == 12
    x = encode(data[0].astype(np.int64))
    assert np.allclose(wide(x), ev.contact(x), atol=1e-12)
    with pytest.raises(ValueError, match="shrink"):
        widen(ev.contact, 4, np.random.default_rng(0))


def test_two_ply_labels_are_the_two_ply_search(searcher: Searcher) -> None:
    pos = Position.initial()
    sample = [pos]
    for dice in [(3, 1), (6, 4), (5, 5), (2, 1)]:
        pos = pos.play(pos.legal_moves(dice)[0])
        sample.append(pos)
    batched = two_ply(searcher, sample, chunk=2)
    for p, q in zip(sample, batched, strict=True):
        assert np.allclose(q, searcher.evaluate(p, 2), atol=1e-12)


def test_zero_ply_labels_are_the_nets_own_and_the_games_the_same(
    searcher: Searcher, data: Generated
) -> None:
    """``plies=0`` labels each position with the evaluator's own probabilities (an anchor for
    fits aimed elsewhere); the games and positions are those of any other depth."""
    boards, probs, groups = generate(searcher, 3, random.Random(9), progress=False, plies=0)
    assert np.array_equal(boards, data.boards) and np.array_equal(groups, data.groups)
    assert np.allclose(probs, searcher.evaluator.evaluate(boards.astype(np.int64)), atol=1e-6)
    assert not np.allclose(probs, data.probs, atol=1e-3)


def test_generate_labels_at_two_plies_on_request(searcher: Searcher) -> None:
    boards, probs, _ = generate(
        searcher, 1, random.Random(3), alternatives=0, progress=False, plies=2
    )
    sample = positions(boards[:: max(1, len(boards) // 6)])
    expected = two_ply(searcher, sample)
    assert np.allclose(probs[:: max(1, len(boards) // 6)], expected, atol=1e-6)


def test_a_cube_window_keeps_only_positions_with_those_winning_chances(
    searcher: Searcher, data: Generated
) -> None:
    boards, _, _ = generate(searcher, 3, random.Random(9), progress=False, cube_window=(0.55, 0.92))
    win = searcher.evaluator.evaluate(boards.astype(np.int64))[:, 0]
    assert len(boards) and ((win >= 0.55) & (win <= 0.92)).all()
    # The same games: what the window drops is kept without it.
    everything = searcher.evaluator.evaluate(data.boards.astype(np.int64))[:, 0]
    assert len(boards) == ((everything >= 0.55) & (everything <= 0.92)).sum() < len(data.boards)


def test_back_games_keeps_only_the_back_games_of_the_same_games(
    searcher: Searcher, data: Generated
) -> None:
    boards, _, _ = generate(searcher, 3, random.Random(9), progress=False, back_games=True)
    assert len(boards) and is_back_game(boards).all()
    assert len(boards) == is_back_game(data.boards).sum() < len(data.boards)


def test_a_filter_that_keeps_nothing_saves_an_empty_file(tmp_path: Path) -> None:
    """Games in which no position passes the filter give an empty data file, not a crash."""
    w = tmp_path / "w.npz"
    random_pair(np.random.default_rng(4), hidden=8, race_hidden=4).save(w)
    out = tmp_path / "d.npz"
    args = ["generate", "--weights", str(w), "--games", "1", "--seed", "3", "--out", str(out)]
    assert main([*args, "--cube-window", "0.999", "1.0"]) == 0
    made = np.load(out)
    assert made["boards"].shape == (0, 26) and made["probs"].shape == (0, 5)
    assert len(made["groups"]) == 0


def test_a_crashed_net_is_fitted_on_its_own_boards(tmp_path: Path) -> None:
    """``--crashed`` starts the third net from the contact net; ``--only`` leaves the
    others as they were; ``--crashed-only`` data are crashed contact boards alone."""
    w = tmp_path / "w.npz"
    random_pair(np.random.default_rng(1), hidden=8, race_hidden=4).save(w)
    d = tmp_path / "d.npz"
    argv = ["generate", "--weights", str(w), "--games", "6", "--seed", "5", "--out", str(d)]
    assert main([*argv, "--crashed-only"]) == 0
    boards = np.load(d)["boards"].astype(np.int64)
    assert len(boards) and (is_crashed(boards) & ~is_race(boards)).all()
    out = tmp_path / "c.npz"
    fit_argv = ["fit", "--weights", str(w), "--data", str(d), "--out", str(out)]
    assert main([*fit_argv, "--epochs", "2", "--crashed", "--only", "crashed"]) == 0
    old, new = NetPair.load(w), NetPair.load(out)
    assert new.crashed is not None
    assert np.array_equal(new.contact.w1, old.contact.w1)
    assert np.array_equal(new.race.w1, old.race.w1)
    assert not np.array_equal(new.crashed.w1, old.contact.w1)


def test_a_back_game_net_is_fitted_on_its_own_boards(tmp_path: Path) -> None:
    """``--back`` starts a back-game net from the contact net, and ``--only back`` fits it
    alone, on the back games of the data; the other nets stay as they were."""
    w = tmp_path / "w.npz"
    random_pair(np.random.default_rng(1), hidden=8, race_hidden=4).save(w)
    d = tmp_path / "d.npz"
    argv = ["generate", "--weights", str(w), "--games", "6", "--seed", "5", "--out", str(d)]
    assert main([*argv, "--back-games", "--explore", "0.5"]) == 0  # random turns: back games
    assert len(np.load(d)["boards"])
    out = tmp_path / "b.npz"
    fit_argv = ["fit", "--weights", str(w), "--data", str(d), "--out", str(out)]
    assert main([*fit_argv, "--epochs", "2", "--back", "--only", "back"]) == 0
    old, new = NetPair.load(w), NetPair.load(out)
    assert new.back is not None and new.crashed is None
    assert [name for name, _ in new.nets()] == ["contact", "race", "back"]
    assert np.array_equal(new.contact.w1, old.contact.w1)
    assert np.array_equal(new.race.w1, old.race.w1)
    assert not np.array_equal(new.back.w1, old.contact.w1)


def test_average_is_the_mean_of_the_weights(tmp_path: Path) -> None:
    """A soup of nets of one shape: each array the mean of theirs, a net averaged with itself
    the same net; nets of other shapes or layouts are refused, and no file is written."""
    rng = np.random.default_rng(6)
    a, b, c = (random_pair(rng, hidden=8, race_hidden=4) for _ in range(3))
    soup = average([a, b, c])
    for name, net in soup.nets():
        for key, value in net.arrays("").items():
            parts = [dict(ev.nets())[name].arrays("")[key] for ev in (a, b, c)]
            assert np.allclose(value, (parts[0] + parts[1] + parts[2]) / 3, atol=1e-15)
    same = average([a, a])
    for name, net in same.nets():
        for key, value in net.arrays("").items():
            assert np.array_equal(value, dict(a.nets())[name].arrays("")[key])
    boards = np.array([Position.initial().board], dtype=np.int64)
    assert np.allclose(same.evaluate(boards), a.evaluate(boards))
    with pytest.raises(FitDataError, match="one shape"):
        average([a, random_pair(rng, hidden=9, race_hidden=4)])
    with pytest.raises(FitDataError, match="one shape"):
        average([a, with_inputs(a, 2)])
    with pytest.raises(FitDataError, match="nothing"):
        average([])
    paths = []
    for i, ev in enumerate((a, b, c)):
        paths.append(tmp_path / f"n{i}.npz")
        ev.save(paths[-1])
    out = tmp_path / "soup.npz"
    argv = ["average", "--weights", str(paths[0]), "--with", str(paths[1]), str(paths[2])]
    assert main([*argv, "--out", str(out)]) == 0
    saved = NetPair.load(out)
    assert np.array_equal(saved.contact.w1, soup.contact.w1)
    assert saved.meta["history"][-1]["average"] == [str(p) for p in paths]
    assert len(saved.meta["history"][-1]["steps"]) == 2
    wide = tmp_path / "wide.npz"
    random_pair(rng, hidden=9, race_hidden=4).save(wide)
    refused = tmp_path / "refused.npz"
    with pytest.raises(FitDataError):
        main(["average", "--weights", str(paths[0]), "--with", str(wide), "--out", str(refused)])
    assert not refused.exists()


def test_calibration_recovers_a_scale_and_shift_of_the_outputs(data: Generated) -> None:
    """Labels that are sigmoid(a * z + c) of an output's own sum z give back that a and c:
    the calibrated net reproduces them; the other outputs and the hidden layer are kept, and
    the net's own outputs as labels are a fixed point."""
    ev = random_pair(np.random.default_rng(8), hidden=8, race_hidden=4)
    x = encode(data.boards.astype(np.int64))
    h, y = ev.contact.forward(x)
    z = h @ ev.contact.w2 + ev.contact.b2
    target = y.copy()
    target[:, 2] = 1 / (1 + np.exp(-(0.7 * z[:, 2] - 0.4)))
    target[:, 4] = 1 / (1 + np.exp(-(1.3 * z[:, 4] + 0.2)))
    new = calibrate(ev.contact, x, target, [2, 4])
    assert np.allclose(new.forward(x)[1], target, atol=1e-6)
    assert np.array_equal(new.w1, ev.contact.w1) and np.array_equal(new.b1, ev.contact.b1)
    assert np.array_equal(new.w2[:, [0, 1, 3]], ev.contact.w2[:, [0, 1, 3]])
    assert np.allclose(new.w2[:, 2], 0.7 * ev.contact.w2[:, 2], rtol=1e-4)
    assert np.array_equal(ev.contact.forward(x)[1], y)  # the net given is left as it was
    same = calibrate(ev.contact, x, y, range(5))
    assert np.allclose(same.forward(x)[1], y, atol=1e-9)


def test_calibration_to_labels_that_never_happen_stays_finite(data: Generated) -> None:
    """With no backgammon at all among the labels the output is driven near 0, not to an
    infinite shift (nor a warning on the way)."""
    ev = random_pair(np.random.default_rng(8), hidden=8, race_hidden=4)
    x = encode(data.boards.astype(np.int64))
    target = ev.contact.forward(x)[1]
    target[:, 2] = 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        new = calibrate(ev.contact, x, target, [2])
    assert np.isfinite(new.w2).all() and np.isfinite(new.b2).all()
    assert new.forward(x)[1][:, 2].max() < 1e-3


def test_calibrated_outputs_average_what_their_labels_average(data: Generated) -> None:
    """The shift makes each calibrated output's mean that of its labels (clipped to [0, 1],
    as rollouts with variance reduction can stray a little outside)."""
    ev = random_pair(np.random.default_rng(9), hidden=8, race_hidden=4)
    x = encode(data.boards.astype(np.int64))
    target = np.random.default_rng(3).uniform(-0.01, 1.0, (len(x), 5))
    new = calibrate(ev.contact, x, target, range(5))
    assert np.allclose(new.forward(x)[1].mean(axis=0), np.clip(target, 0, 1).mean(axis=0))


def test_calibration_refuses_labels_it_cannot_use(data: Generated) -> None:
    ev = random_pair(np.random.default_rng(8), hidden=8, race_hidden=4)
    x = encode(data.boards.astype(np.int64))
    with pytest.raises(FitDataError, match="do not match"):
        calibrate(ev.contact, x, data.probs[1:], [2])
    with pytest.raises(FitDataError, match="do not match"):
        calibrate(ev.contact, x, data.probs[:, :4], [2])
    with pytest.raises(FitDataError, match="no positions"):
        calibrate(ev.contact, x[:0], data.probs[:0], [2])


def test_command_line_calibrates_chosen_outputs_of_chosen_nets(
    tmp_path: Path, data: Generated
) -> None:
    """``calibrate --outputs backgammon`` changes the contact net's backgammon output alone and
    records the data; a net with no positions in the data is refused and nothing written."""
    w = tmp_path / "w.npz"
    random_pair(np.random.default_rng(1), hidden=8, race_hidden=4).save(w)
    contact = data.boards[~is_race(data.boards.astype(np.int64))]
    d = tmp_path / "d.npz"
    np.savez_compressed(d, boards=contact, probs=data.probs[: len(contact)])
    out = tmp_path / "cal.npz"
    argv = ["calibrate", "--weights", str(w), "--data", str(d), "--out", str(out)]
    assert main([*argv, "--outputs", "backgammon"]) == 0
    old, new = NetPair.load(w), NetPair.load(out)
    changed = [
        k for k in range(5) if not np.array_equal(new.contact.w2[:, k], old.contact.w2[:, k])
    ]
    assert changed == [OUTPUT_NAMES.index("backgammon")]
    assert np.array_equal(new.race.w2, old.race.w2)
    assert new.meta["history"][-1]["calibrate"] == [str(d)]
    refused = tmp_path / "refused.npz"
    argv[-1] = str(refused)
    with pytest.raises(FitDataError, match="no positions"):
        main([*argv, "--only", "race"])
    assert not refused.exists()
    with pytest.raises(FitDataError, match="no crashed net"):
        main([*argv, "--only", "crashed"])
    assert not refused.exists()
    other = tmp_path / "other.npz"
    np.savez_compressed(other, boards=contact)
    with pytest.raises(FitDataError, match=r"other\.npz has no probs"):
        main(
            ["calibrate", "--weights", str(w), "--data", str(d), str(other), "--out", str(refused)]
        )
    with pytest.raises(FitDataError, match=r"other\.npz has no probs"):
        main(["fit", "--weights", str(w), "--data", str(other), "--out", str(refused)])
    assert not refused.exists()

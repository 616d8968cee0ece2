"""The Player protocol, get(), and every player returning legal plays."""

from __future__ import annotations

import doctest

import numpy as np
import pytest
from gnubg_reference import played_game_cases

from backgammon import Position, players
from backgammon.evaluation import probabilities
from backgammon.evaluation.cube import cubeful, dead_cube_weights
from backgammon.evaluation.encode import boards_array
from backgammon.evaluation.search import cube_lives
from backgammon.players import (
    CubeAction,
    CubeAdviser,
    CubeState,
    MoveRanker,
    Player,
    UnknownPlayerError,
    driver,
    get,
)
from backgammon.players.neural import NeuralPlayer


@pytest.fixture(scope="module")
def neural() -> Player:
    return get("neural", plies=0)


def test_get_makes_players_that_follow_the_protocol(neural: Player) -> None:
    for player in (get("random", seed=1), get("pubeval"), neural, get("expert")):
        assert isinstance(player, Player)
    assert get("strong").name == "neural-1ply"  # type: ignore[attr-defined]


def test_get_rejects_unknown_names_and_options() -> None:
    with pytest.raises(UnknownPlayerError):
        get("deep blue")
    with pytest.raises(UnknownPlayerError):
        get("pubeval", plies=2)
    with pytest.raises(UnknownPlayerError):
        get("random", colour="red")
    with pytest.raises(ValueError):
        get("neural", plies=3)


def test_players_choose_legal_moves(neural: Player) -> None:
    players = [get("random", seed=3), get("pubeval"), neural]
    n = 0
    for pos, d1, d2 in played_game_cases(3, seed=21):
        legal = pos.legal_moves((d1, d2))
        for player in players:
            move = player.choose_move(pos, (d1, d2))
            if legal:
                assert move in legal
            else:
                assert move is None
        n += 1
    assert n > 100


def test_no_legal_play_gives_none(neural: Player) -> None:
    # R10: on the bar against a closed board the turn is lost.
    b = [0] * 26
    b[25] = 1
    b[5] = 14
    for p in range(19, 25):
        b[p] = -2
    b[18] = -3
    pos = Position(b)
    assert pos.legal_moves((6, 6)) == []
    for player in (get("random"), get("pubeval"), neural):
        assert player.choose_move(pos, (6, 6)) is None


def test_lookahead_players_choose_legal_moves() -> None:
    pos = Position.initial()
    one = get("neural", plies=1)
    assert one.choose_move(pos, (6, 5)) in pos.legal_moves((6, 5))


def test_the_net_finds_the_obvious_plays(neural: Player) -> None:
    pos = Position.initial()
    # 3-1 opening: making the 5-point (8/5 6/5) is the standard best play.
    assert str(neural.choose_move(pos, (3, 1))) == "8/5 6/5"
    # Bearing off the last two checkers beats anything else.
    b = [0, 1, 1, *([0] * 16), -3, -3, -3, -3, -3, 0, 0]
    end = Position(b)
    move = neural.choose_move(end, (2, 1))
    assert move is not None and end.play(move).is_game_over()


def test_cube_actions_respect_crawford(neural: Player) -> None:
    state = CubeState(match_length=5, score=(1, 4), crawford=True)
    assert neural.cube_action(Position.initial(), state) is CubeAction.NO_DOUBLE
    assert neural.cube_action(Position.initial(), CubeState(), offered=True) is CubeAction.TAKE
    assert get("pubeval").cube_action(Position.initial(), CubeState()) is CubeAction.NO_DOUBLE


def test_resignations(neural: Player) -> None:
    assert get("random").accept_resignation(Position.initial(), 1)
    assert not get("pubeval").accept_resignation(Position.initial(), 1)
    assert neural.accept_resignation(Position.initial(), 2)  # a gammon at the start: yes
    with pytest.raises(ValueError):
        neural.accept_resignation(Position.initial(), 4)


def test_resignation_rule_compares_points_with_equity() -> None:
    class Fixed(NeuralPlayer):
        def probabilities(self, position: Position, plies: int | None = None) -> np.ndarray:
            # The resigner (on roll) surely loses a gammon: win 0, lose gammon 1.
            return np.array([0.0, 0.0, 0.0, 1.0, 0.0])

    player = Fixed(bearoff=False)
    assert not player.accept_resignation(Position.initial(), 1)
    assert player.accept_resignation(Position.initial(), 2)
    match = CubeState(match_length=7, score=(0, 0))
    assert not player.accept_resignation(Position.initial(), 1, match)
    assert player.accept_resignation(Position.initial(), 2, match)


def test_dead_cube_weights_give_match_winning_chances() -> None:
    state = CubeState(match_length=5, score=(3, 3))
    w, c = dead_cube_weights(state)
    # A sure single win at 2-away/2-away leaves us 1-away vs 2-away (Crawford next).
    assert float(w @ np.array([1.0, 0, 0, 0, 0]) + c) == pytest.approx(0.67736)
    # A sure gammon loss loses the match.
    assert float(w @ np.array([0.0, 0, 0, 1.0, 0]) + c) == pytest.approx(0.0)


def test_the_net_ranks_plays_and_advises_on_the_cube(neural: Player) -> None:
    assert isinstance(neural, MoveRanker) and isinstance(neural, CubeAdviser)
    assert not isinstance(get("pubeval"), MoveRanker)
    assert not isinstance(get("random"), CubeAdviser)
    assert isinstance(neural, NeuralPlayer)
    pos, dice = Position.initial(), (4, 2)
    ranked = neural.ranked_moves(pos, dice)
    assert sorted(str(r.move) for r in ranked) == sorted(str(m) for m in pos.legal_moves(dice))
    assert ranked[0].move == neural.choose_move(pos, dice)
    assert [r.equity for r in ranked] == sorted((r.equity for r in ranked), reverse=True)
    # With no cube the plays are ranked by cubeless money equity.
    assert all(r.plies == 0 and r.equity == pytest.approx(r.probabilities.equity()) for r in ranked)
    # With a centred money cube, at 0-ply a play's value is the opponent's cubeful equity (on
    # roll after the play) with the sign changed: Janowski's formula over its probabilities.
    for r in neural.ranked_moves(pos, dice, CubeState()):
        after = pos.play(r.move)
        x = cube_lives(boards_array([after.board]))
        theirs = cubeful(r.probabilities.flip(), CubeState(), x)[0]
        assert r.plies == 0 and r.mwc is None and r.equity == pytest.approx(-theirs)
    # In a match the plays are ranked by cubeful match winning chances, as the bot plays them.
    state = CubeState(match_length=5, score=(3, 2))
    in_match = neural.ranked_moves(pos, (6, 4), state)
    assert in_match[0].move == neural.choose_move(pos, (6, 4), state)
    assert all(r.mwc is not None and 0.0 <= r.mwc <= 1.0 for r in in_match)
    assert [r.mwc for r in in_match] == sorted((r.mwc or 0.0 for r in in_match), reverse=True)
    assert neural.ranked_moves(pos.flip(), (6, 6)) != []
    decision = neural.cube_decision(pos, CubeState())
    assert decision.action is neural.cube_action(pos, CubeState())


def test_lookahead_ranks_the_filtered_plays_first() -> None:
    one = get("strong")
    assert isinstance(one, NeuralPlayer)
    pos, dice = Position.initial(), (4, 2)
    ranked = one.ranked_moves(pos, dice)
    depths = [r.plies for r in ranked]
    deep = depths.count(1)
    assert 1 <= deep <= 5 and depths == [1] * deep + [0] * (len(ranked) - deep)
    assert ranked[0].move == one.choose_move(pos, dice)
    assert len(ranked) == len(pos.legal_moves(dice))


@pytest.mark.parametrize("module", [players, driver, probabilities], ids=lambda m: m.__name__)
def test_docstring_examples(module: object) -> None:
    result = doctest.testmod(module)  # type: ignore[arg-type]
    assert result.attempted > 0 and result.failed == 0


def test_the_zero_ply_choice_is_the_best_ranked_play(neural: Player) -> None:
    # The 0-ply player judges every candidate at once from after_boards; the ranking goes
    # through Position.play one play at a time: both must pick the same play.
    assert isinstance(neural, NeuralPlayer)
    state = CubeState(match_length=7, score=(2, 5))
    for i, (pos, d1, d2) in enumerate(played_game_cases(4, seed=13)):
        if len(pos.legal_moves((d1, d2))) < 2:
            continue
        cube = state if i % 2 else None
        assert (
            neural.choose_move(pos, (d1, d2), cube)
            == neural.ranked_moves(pos, (d1, d2), cube)[0].move
        )

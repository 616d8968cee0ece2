"""pubeval: Tesauro's published weights and encoding, checked against gnubg's copy."""

from __future__ import annotations

import gnubg_nn
import numpy as np
from gnubg_reference import played_game_cases, to_gnubg

from backgammon import Position
from backgammon.players.basic import PubevalPlayer
from backgammon.players.pubeval import CONTACT_WEIGHTS, RACE_WEIGHTS, pubeval_scores


def test_weight_vectors_have_122_entries() -> None:
    assert CONTACT_WEIGHTS.shape == (122,) and RACE_WEIGHTS.shape == (122,)
    # Spot values from Tesauro's published listing.
    assert CONTACT_WEIGHTS[0] == 0.25696 and CONTACT_WEIGHTS[-1] == -2.75800
    assert RACE_WEIGHTS[1] == -0.17160 and RACE_WEIGHTS[-1] == 3.42040


def test_scores_match_gnubg_pub_eval_score() -> None:
    checked = races = 0
    for pos, d1, d2 in played_game_cases(12, seed=5):
        for move in pos.legal_moves((d1, d2))[:4]:
            after = pos.play(move).flip()  # the mover's view, as pubeval wants
            if after.is_game_over():
                continue
            not_on_roll, on_roll = after.arrays()
            ref = gnubg_nn.pub_eval_score([list(on_roll), list(not_on_roll)])
            ours = pubeval_scores(np.array([after.board]), after.is_race())[0]
            assert abs(ref - ours) < 1e-4, (after, ref, ours)
            checked += 1
            races += after.is_race()
    assert checked > 1000 and races > 50


def test_player_picks_gnubgs_pubeval_move() -> None:
    player = PubevalPlayer()
    compared = 0
    for pos, d1, d2 in played_game_cases(10, seed=9):
        moves = pos.legal_moves((d1, d2))
        if len(moves) < 2:
            continue
        ours = player.choose_move(pos, (d1, d2))
        steps = gnubg_nn.pub_best_move(to_gnubg(pos), d1, d2)  # 0-based points, -1 = off
        theirs = pos.play(
            [(s + 1, max(t + 1, 0), False) for s, t in zip(steps[::2], steps[1::2], strict=True)]
        )
        assert ours is not None and pos.play(ours) == theirs
        compared += 1
    assert compared > 300


def test_bearing_off_the_last_checker_is_best() -> None:
    # One checker left on the 1-point; any roll bears it off (R18).
    pos = Position([0, 1, *([0] * 17), -3, -3, -3, -3, -3, 0, 0])
    move = PubevalPlayer().choose_move(pos, (6, 5))
    assert move is not None and pos.play(move).outcome() is not None

"""The rules core (backgammon/board.py): positions, IDs and the rules of movement R1-R19.

Hand-written cases name the rule they check.  Points are numbered from the mover's side;
`pos(mine, theirs)` places the opponent's checkers by OUR point numbers (0 = their bar).
"""

from __future__ import annotations

import json

import pytest
from reference import REFERENCE

from backgammon import GameResult, IllegalMoveError, InvalidPositionError, Move, Outcome, Position


def pos(mine: dict[int, int], theirs: dict[int, int] | None = None) -> Position:
    """A position from {point: count} for the mover and the opponent (our numbering)."""
    b = [0] * 26
    for p, n in mine.items():
        b[p] += n
    for p, n in (theirs or {}).items():
        b[p] -= n
    return Position(b)


def plays(position: Position, dice: tuple[int, int]) -> set[str]:
    return {str(m) for m in position.legal_moves(dice)}


def results(position: Position, dice: tuple[int, int]) -> set[Position]:
    return {position.play(m) for m in position.legal_moves(dice)}


# --------------------------------------------------------------------------- board, start


def test_r1_r2_initial_position() -> None:
    start = Position.initial()
    assert start.position_id() == "4HPwATDgc/ABMA"
    for p, n in {24: 2, 13: 5, 8: 3, 6: 5}.items():
        assert start.checkers(p) == n
    assert start.pip_counts() == (167, 167)
    assert start.off == (0, 0) and start.bar == (0, 0)
    assert start.flip() == start
    assert start.outcome() is None


def test_r1_opponent_point_is_25_minus_ours() -> None:
    start = Position.initial()
    # The opponent's 24-point (its back checkers) is our 1-point.
    assert start.opponent_checkers(1) == 2
    assert start.opponent_checkers(12) == 5


# --------------------------------------------------------------------------- moving


def test_r5_each_die_is_a_move_one_or_two_checkers() -> None:
    got = plays(Position.initial(), (6, 5))
    assert "24/13" in got  # one checker takes both numbers
    assert "24/18 13/8" in got  # two checkers one each


def test_r6_closed_point_cannot_be_landed_on_but_can_be_passed() -> None:
    p = pos({13: 1, 1: 14}, {8: 2, 10: 2, 11: 2, 2: 2})
    # 13/8 lands on a closed point; 13/7 passes over closed points 8, 10 and 11.
    assert plays(p, (5, 6)) == {"13/7"}


def test_r7_intermediate_landing_must_be_open() -> None:
    blocked = pos({13: 1, 1: 14}, {7: 2, 9: 2})
    assert blocked.legal_moves((6, 4)) == []  # 13/7 and 13/9 both closed: no way to 13/3
    open_nine = pos({13: 1, 1: 14}, {7: 2})
    assert plays(open_nine, (6, 4)) == {"13/3"}


def test_r7_r11_hit_on_the_way_is_marked_and_sent_to_bar() -> None:
    p = pos({13: 1, 1: 14}, {11: 1, 10: 2})
    (move,) = p.legal_moves((2, 3))
    assert str(move) == "13/11*/8"
    after = p.play(move)
    assert after.bar == (1, 0)  # the opponent (now on roll) has a checker on the bar


def test_r8_doubles_are_played_four_times() -> None:
    got = Position.initial().legal_moves((6, 6))
    assert all(len(m) == 4 for m in got)
    assert "13/7(4)" in {str(m) for m in got}


def test_r9_both_numbers_must_be_played_when_possible() -> None:
    # 6 first is blocked (8 closed); 1 then 6 works, so the single 1 is not a legal play.
    p = pos({14: 1, 1: 14}, {8: 2})
    assert plays(p, (6, 1)) == {"14/7"}


def test_r9_only_one_number_playable_play_the_larger() -> None:
    # 13/7 or 13/8, but not both (2 closed; no bearing off with a checker out).
    p = pos({13: 1, 1: 14}, {2: 2})
    assert plays(p, (6, 5)) == {"13/7"}


def test_r9_only_the_smaller_number_playable() -> None:
    p = pos({13: 1, 1: 14}, {2: 2, 7: 2})
    assert plays(p, (6, 5)) == {"13/8"}


def test_r9_doubles_as_many_as_possible() -> None:
    # One checker can move three times with 4s from 20 (16, 12, 8) but 4 is closed.
    p = pos({20: 1, 1: 14}, {4: 2})
    assert plays(p, (4, 4)) == {"20/8"}


def test_r10_no_legal_play_loses_the_turn() -> None:
    closed = pos({25: 1, 6: 14}, {19: 2, 20: 2, 21: 2, 22: 2, 23: 2, 24: 2})
    for d1 in range(1, 7):
        for d2 in range(1, d1 + 1):
            assert closed.legal_moves((d1, d2)) == []


def test_r10_plays_reaching_same_position_are_one_play() -> None:
    got = Position.initial().legal_moves((6, 5))
    assert len(got) == len({Position.initial().play(m) for m in got}) == 7


def test_r12_bar_checkers_move_first() -> None:
    p = pos({25: 1, 13: 5, 6: 9}, {18: 2})
    for move in p.legal_moves((4, 2)):
        assert move[0][0] == 25
    two_on_bar = pos({25: 2, 13: 5, 6: 8})
    assert plays(two_on_bar, (4, 3)) == {"bar/22 bar/21"}


def test_r13_entering_and_closed_entry_points() -> None:
    # 25-6 = 19 is closed, so the 6 cannot enter; the 5 enters and the 6 may move any checker,
    # the entered one included.
    p = pos({25: 1, 13: 2, 6: 12}, {19: 2})
    got = plays(p, (6, 5))
    assert "bar/14" in got
    assert "bar/20 13/7" in got
    assert all(m[0][:2] == (25, 20) for m in p.legal_moves((6, 5)))


def test_r13_both_entry_points_closed_no_play() -> None:
    p = pos({25: 1, 13: 2, 6: 12}, {19: 2, 20: 2})
    assert p.legal_moves((6, 5)) == []


def test_r14_no_bearing_off_with_a_checker_outside() -> None:
    p = pos({7: 1, 6: 4, 1: 10})
    for move in p.legal_moves((6, 1)):
        assert 7 in {s for s, _, _ in move}  # the 7 must come in, possibly then bear off
    assert plays(p, (6, 1)) == {"7/1 6/5", "7/off"}  # 7/6 then 6/off: home, then off


def test_r15_exact_higher_and_lower_numbers() -> None:
    # gnubg vector: three on the 1-point, two on the 2-point, roll 64 -> 2/off(2) only.
    p = pos({1: 3, 2: 2}, {19: 3, 20: 3, 21: 3, 22: 3, 23: 2, 24: 1})
    assert plays(p, (6, 4)) == {"2/off(2)"}
    # The 4 cannot bear off from 2 while 5 is occupied: it must be played inside (5/1),
    # or the 3 comes first (5/2) and then the 4 bears off from the highest point.
    q = pos({5: 1, 2: 1}, {24: 1})
    assert plays(q, (4, 3)) == {"5/1 2/off", "5/off"}


def test_r15_higher_number_only_from_the_highest_point() -> None:
    # A published library's bug: bearing off with a higher number from a lower point.
    p = pos({5: 1, 2: 1}, {24: 1})
    for move in p.legal_moves((6, 6)):
        first = move[0]
        assert first[0] == 5  # the 6 must take the checker on 5 first
    with pytest.raises(IllegalMoveError):
        Position.from_simple(
            "0 3 2 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 -3 -3 -3 -3 -2 -1 0"
        ).parse_move("2/off 1/off", (6, 4))


def test_r16_bearing_off_is_not_compulsory() -> None:
    p = pos({6: 1, 3: 1, 1: 1})
    got = plays(p, (3, 2))
    assert "6/3 3/1" in got or "6/1" in got or "6/4 3/off" in got
    assert any("off" not in m for m in got)


def test_r17_hit_checker_must_come_home_before_bearing_off() -> None:
    p = pos({25: 1, 6: 4, 5: 5, 4: 5})
    for move in p.legal_moves((6, 6)):
        assert all(t != 0 for _, t, _ in move)
    assert "bar/1" in plays(p, (6, 6))


def test_r18_r19_outcomes() -> None:
    # The mover bears off its last checker: the opponent (on roll after) lost.
    last = pos({1: 1}, {7: 15})
    (move,) = last.legal_moves((6, 5))
    after = last.play(move)
    assert after.outcome() == Outcome(False, GameResult.GAMMON)  # R19: none off, none back
    # Single: the loser bore off at least one.
    assert pos({}, {19: 14}).outcome() == Outcome(True, GameResult.SINGLE)
    # Backgammon: none off and a checker in the winner's home board or on the bar.
    assert pos({}, {19: 14, 3: 1}).outcome() == Outcome(True, GameResult.BACKGAMMON)
    assert pos({}, {19: 14, 0: 1}).outcome() == Outcome(True, GameResult.BACKGAMMON)
    assert pos({}, {19: 15}).outcome() == Outcome(True, GameResult.GAMMON)
    assert Outcome(True, GameResult.BACKGAMMON).points == 3
    assert Position.initial().is_game_over() is False


# --------------------------------------------------------------------------- ids


def test_position_id_vectors() -> None:
    vectors = json.loads((REFERENCE / "vectors.json").read_text())
    for v in vectors["position_ids"]:
        p = Position.from_position_id(v["id"])
        assert list(p.arrays()[0]) == v["not_on_roll"], v["note"]
        assert list(p.arrays()[1]) == v["on_roll"], v["note"]
        assert p.position_id() == v["id"]
        assert Position.from_arrays(v["not_on_roll"], v["on_roll"]) == p


def test_xgid_position_vectors() -> None:
    vectors = json.loads((REFERENCE / "vectors.json").read_text())
    assert len(vectors["xgids"]) >= 5
    for v in vectors["xgids"]:
        p = Position.from_xgid(v["xgid"])
        assert p.position_id() == v["gnubg_cli"][0], v["xgid"]
        turn = int(v["xgid"].split(":")[3])
        assert p.xgid_position(bottom_on_roll=turn == 1) == v["xgid"][5:31]


def test_simple_board_round_trip() -> None:
    p = Position.from_simple("0 3 2 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 -3 -3 -3 -3 -2 -1 0")
    assert p.position_id() == "7e4OAAA3AAAAAA"
    assert Position.from_simple(p.simple()) == p


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("4HPwATDgc/AB", "14 characters"),
        ("4HPwATDgc/AB!A", "bad characters"),
        ("//////////////", "does not describe"),
    ],
)
def test_bad_position_ids(text: str, message: str) -> None:
    with pytest.raises(InvalidPositionError, match=message):
        Position.from_position_id(text)


def test_bad_boards() -> None:
    with pytest.raises(InvalidPositionError, match="16 checkers"):
        pos({6: 16})
    with pytest.raises(InvalidPositionError, match="opponent has 16"):
        pos({}, {6: 16})
    with pytest.raises(InvalidPositionError, match="26 numbers"):
        Position([0] * 25)
    with pytest.raises(InvalidPositionError, match="both sides"):
        Position.from_arrays([0] * 18 + [1] + [0] * 6, [0] * 5 + [1] + [0] * 19)
    with pytest.raises(InvalidPositionError, match="26 characters"):
        Position.from_xgid("XGID=-b----E-C---eE---c-e----B:0:0:1:52:0:0:3:0:10")
    with pytest.raises(InvalidPositionError, match="bad character"):
        Position.from_xgid("-b----E-C---eE---c-e----B?")
    with pytest.raises(ValueError, match="dice"):
        Position.initial().legal_moves((7, 1))


def test_repr_and_str() -> None:
    p = Position.initial()
    assert eval(repr(p)) == p
    assert "4HPwATDgc/ABMA" in str(p)
    assert repr(Move([(24, 18, False), (18, 13, False)])) == "Move('24/13')"


def test_play_rejects_impossible_steps() -> None:
    with pytest.raises(IllegalMoveError):
        Position.initial().play([(23, 20, False)])
    with pytest.raises(IllegalMoveError):
        Position.initial().play([(13, 12, False), (12, 11, False), (6, 1, False)][2:])

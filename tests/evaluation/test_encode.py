"""Network inputs: shapes, batching, symmetry and hand-checked features."""

from __future__ import annotations

import gnubg_nn
import numpy as np
import pytest
from gnubg_reference import board_from_points, played_game_cases, to_gnubg
from hypothesis import given, settings
from strategies import any_positions

from backgammon import Move, Position
from backgammon.evaluation.encode import (
    BACK_GAME_PIPS,
    CLASSES,
    N_INPUTS,
    after_boards,
    after_boards_many,
    boards_array,
    class_masks,
    encode,
    encode_with_race,
    is_back_game,
    is_crashed,
    is_race,
    n_inputs,
    shot_masks,
)


def sample_positions(n: int = 300) -> list[Position]:
    out = []
    for pos, _, _ in played_game_cases(8, seed=11):
        out.append(pos)
        if len(out) == n:
            break
    return out


def test_batch_equals_one_by_one() -> None:
    positions = sample_positions()
    batch = encode(boards_array(p.board for p in positions))
    assert batch.shape == (len(positions), N_INPUTS)
    for i in range(0, len(positions), 37):
        single = encode(boards_array([positions[i].board]))[0]
        assert np.array_equal(single, batch[i])


def test_flipping_swaps_the_two_sides() -> None:
    positions = sample_positions()
    x = encode(boards_array(p.board for p in positions))
    y = encode(boards_array(p.flip().board for p in positions))
    assert np.array_equal(x[:, :96], y[:, 96:192])  # Tesauro units: mine <-> theirs
    assert np.array_equal(x[:, 192:203], y[:, 203:214])  # per-side features
    assert np.array_equal(x[:, -1], y[:, -1])  # contact is symmetric


def test_race_flag_agrees_with_the_core() -> None:
    positions = sample_positions()
    flags = is_race(boards_array(p.board for p in positions))
    assert [bool(f) for f in flags] == [p.is_race() for p in positions]
    assert any(flags) and not all(flags)


def test_initial_position_features() -> None:
    x = encode(boards_array([Position.initial().board]))[0]
    mine = x[192:203]
    # pips, blots, home points, longest prime, back checkers, anchors, (shots),
    # blockers in front of the rearmost checker, outfield checkers, bar, off.
    assert mine[0] * 100 == 167
    assert mine[1] == 0  # no blots
    assert mine[2] * 6 == 1  # the 6-point
    assert mine[3] * 6 == 1
    assert mine[4] * 5 == 2  # two back checkers on the 24-point
    assert mine[5] * 3 == 1  # the 24-point anchor
    assert round(mine[7] * 6) == 1  # in front of our 24-point (18-23): their 6-point, our 19
    assert mine[8] * 15 == 8  # 8-point and mid-point checkers
    assert mine[9] == 0 and mine[10] == 0
    # Tesauro units of our 6-point (5 checkers): >=1, >=2, >=3, (5-3)/2.
    units = x[:96].reshape(24, 4)
    assert list(units[5]) == [1.0, 1.0, 1.0, 1.0]


def _shots_reference(board: tuple[int, ...]) -> int:
    """Rolls (of 36) that bring some mover checker exactly onto an opponent blot, by
    single dice, their sum or multiples of a double, ignoring blocking points."""
    count = 0
    for a in range(1, 7):
        for b in range(1, 7):
            reach = {a, b, a + b} if a != b else {a, 2 * a, 3 * a, 4 * a}
            if any(
                board[s] > 0 and s - d >= 1 and board[s - d] == -1
                for s in range(1, 26)
                for d in reach
            ):
                count += 1
    return count


def test_shot_counts_follow_their_definition() -> None:
    positions = sample_positions(200)
    masks = shot_masks(boards_array(p.board for p in positions))
    for pos, mask in zip(positions, masks, strict=True):
        assert int(mask).bit_count() == _shots_reference(pos.board)


def test_after_boards_are_the_positions_after_each_play() -> None:
    # Played games give bar entries, hits, bear-offs and doubles (R5-R17 plays).
    cases = 0
    for pos, d1, d2 in played_game_cases(30, seed=5):
        moves = pos.legal_moves((d1, d2))
        if not moves:
            continue
        expected = boards_array(pos.play(m).board for m in moves)
        assert np.array_equal(after_boards(pos.board, moves), expected)
        cases += 1
    assert cases > 500


def _side_reference(board: tuple[int, ...]) -> list[float]:
    """The per-side features of the side on roll, by their definitions, one board at a time."""
    mine = [max(board[p], 0) for p in range(26)]  # index = point, 25 = bar
    made = [p for p in range(1, 25) if mine[p] >= 2]
    prime = run = 0
    for p in range(1, 25):
        run = run + 1 if mine[p] >= 2 else 0
        prime = max(prime, run)
    rear = max((p for p in range(1, 26) if mine[p]), default=0)
    blockers = sum(1 for p in range(max(rear - 6, 1), rear) if board[p] <= -2)
    return [
        sum(p * mine[p] for p in range(1, 26)) / 100,
        sum(1 for p in range(1, 25) if mine[p] == 1) / 5,
        sum(1 for p in made if p <= 6) / 6,
        prime / 6,
        sum(mine[19:26]) / 5,
        sum(1 for p in made if p >= 19) / 3,
        _shots_reference(board) / 36,
        blockers / 6,
        sum(mine[7:19]) / 15,
        mine[25] / 2,
        (15 - sum(mine)) / 15,
    ]


def _units_reference(board: tuple[int, ...]) -> list[float]:
    """Tesauro's four units of each of the side on roll's points 1-24, by definition."""
    return [u for p in range(1, 25) for n in [max(board[p], 0)] for u in _TESAURO[min(n, 4)](n)]


_TESAURO = [
    lambda n: [0, 0, 0, 0],
    lambda n: [1, 0, 0, 0],
    lambda n: [1, 1, 0, 0],
    lambda n: [1, 1, 1, 0],
    lambda n: [1, 1, 1, (n - 3) / 2],
]


@settings(max_examples=300, deadline=None)
@given(any_positions())
def test_any_arrangement_is_encoded_by_the_definitions(pos: Position) -> None:
    """Checkers on either bar, off or anywhere: the compiled encoder gives each side's
    units and features as defined, the race flag as the core has it, in both precisions."""
    b = boards_array([pos.board])
    for dtype in (np.float32, np.float64):
        x, race = encode_with_race(b, 2, dtype)
        row = x[0].astype(np.float64)
        assert x.dtype == dtype
        for side, board in ((0, pos.board), (1, pos.flip().board)):
            assert list(row[96 * side : 96 * side + 96]) == _units_reference(board)
            f = 192 + 11 * side
            assert np.allclose(row[f : f + 11], _side_reference(board), atol=1e-6)
            e = N_INPUTS + 7 * side
            assert np.allclose(row[e : e + 7], _extra_reference(board), atol=1e-6)
        assert bool(race[0]) == (row[N_INPUTS - 1] == 1.0) == pos.is_race()


def test_side_features_follow_their_definitions() -> None:
    positions = sample_positions(200)
    x = encode(boards_array(p.board for p in positions))
    for pos, row in zip(positions, x, strict=True):
        assert np.allclose(row[192:203], _side_reference(pos.board), atol=1e-12)
        assert np.allclose(row[203:214], _side_reference(pos.flip().board), atol=1e-12)


def _escapes_reference(board: tuple[int, ...], p: int) -> int:
    """Rolls (of 36) that move a checker on point ``p`` its whole roll (a double: two steps)
    onto a point the opponent has not made, through one he has not made; points past the
    12 ahead count as open."""

    def open_(d: int) -> bool:
        return d > 12 or p - d < 1 or board[p - d] > -2

    return sum(open_(a + b) and (open_(a) or open_(b)) for a in range(1, 7) for b in range(1, 7))


def _extra_reference(board: tuple[int, ...]) -> list[float]:
    """Layout 2's features of the side on roll, by their definitions, one board at a time."""
    mine = [max(board[p], 0) for p in range(26)]
    rear = max((p for p in range(1, 26) if mine[p]), default=0)
    front = min((q for q in range(0, 25) if board[q] < 0), default=25)
    checkers = [p for p in range(1, 26) for _ in range(mine[p])]
    mean = sum(checkers) / max(len(checkers), 1)
    anchors = [p for p in range(1, 25) if mine[p] >= 2]
    return [
        (_escapes_reference(board, rear) if rear else 36) / 36,
        min(_escapes_reference(board, p) for p in range(13, 26)) / 36,
        sum(mine[p] * (p - 6) * _escapes_reference(board, p) for p in range(7, 26)) / 3600,
        sum(max(p - front + 1, 0) for p in checkers) / 152,
        (sum(1 for q in range(19, 25) if board[q] <= -2) / 6) ** 2,
        sum(max(p - mean, 0) ** 2 for p in checkers) / max(len(checkers), 1) / 100,
        max(anchors, default=0) / 24,
    ]


def test_layout_two_appends_features_that_follow_their_definitions() -> None:
    positions = sample_positions(200)
    b = boards_array(p.board for p in positions)
    x = encode(b, 2)
    assert x.shape == (len(positions), n_inputs(2))
    assert np.array_equal(x[:, :N_INPUTS], encode(b))  # layout 1 is a prefix
    for pos, row in zip(positions, x, strict=True):
        assert np.allclose(row[N_INPUTS : N_INPUTS + 7], _extra_reference(pos.board), atol=1e-12)
        assert np.allclose(row[N_INPUTS + 7 :], _extra_reference(pos.flip().board), atol=1e-12)
    for i in range(0, len(positions), 37):
        assert np.array_equal(encode(b[i : i + 1], 2)[0], x[i])


def test_escapes_behind_a_prime() -> None:
    # Our back checker on the 24-point (R1 numbering from the side on roll); the opponent
    # holds a full prime on our 18- to 23-points: no roll moves it (R5: a point of two or
    # more opposing checkers is closed); with nothing in front every roll gets out.
    board = [0] * 26
    board[24] = 1
    board[6] = 14
    for q in range(18, 24):
        board[q] = -2
    board[1] = -3
    extra = encode(boards_array([tuple(board)]), 2)[0, N_INPUTS:]
    assert extra[0] == 0.0
    board[18:24] = [0] * 6
    board[1] = -15
    extra = encode(boards_array([tuple(board)]), 2)[0, N_INPUTS:]
    assert extra[0] == 1.0
    with pytest.raises(ValueError, match="input layout"):
        n_inputs(3)


def test_after_boards_of_plays_of_different_lengths() -> None:
    # Not what legal_moves gives (R9: a roll's plays are equally long), but a caller may
    # pass partial plays: each is applied step by step, an empty one only flips the board.
    for pos, d1, d2 in played_game_cases(6, seed=9):
        moves = pos.legal_moves((d1, d2))
        if not moves or len(moves[0]) < 2:
            continue
        plays = [moves[0], Move(moves[-1][:1]), Move(), *moves[1:3]]
        expected = boards_array(pos.play(m).board for m in plays)
        assert np.array_equal(after_boards(pos.board, plays), expected)


def test_classes_agree_with_gnubg() -> None:
    """gnubg's classes: crashed is a contact position where either side has crashed its
    board; a race (gnubg's classes between "over" and "crashed": race and the bear-offs)
    has no contact; the rest is contact.  Each board is in exactly one class."""
    positions = [pos for pos, _, _ in played_game_cases(300, seed=17) if not pos.is_game_over()]
    b = boards_array(p.board for p in positions)
    theirs = [gnubg_nn.classify(to_gnubg(p)) for p in positions]
    expected = {
        "crashed": [c == gnubg_nn.c_crashed for c in theirs],
        "race": [gnubg_nn.c_over < c < gnubg_nn.c_crashed for c in theirs],
        "contact": [c == gnubg_nn.c_contact for c in theirs],
    }
    assert min(sum(v) for v in expected.values()) > 200  # each class is met often enough
    classes = class_masks(b)
    assert {k: [bool(x) for x in v] for k, v in classes.items()} == expected
    assert tuple(classes) == CLASSES
    assert (sum(m.astype(int) for m in classes.values()) == 1).all()


def test_crashed_boards_by_hand() -> None:
    """Six checkers or fewer left, not counting an ace-point pile (gnubg's class)."""

    def board(mine: dict[int, int], theirs: dict[int, int]) -> list[int]:
        cells = [0] * 26
        for point, n in mine.items():
            cells[point] = n
        for point, n in theirs.items():
            cells[25 - point] = -n  # their points counted from their side
        return cells

    contact = {24: 2, 13: 5, 8: 3}  # their checkers: 10 spread, far from crashed
    cases = [
        ({6: 3, 5: 3, 20: 9}, False),  # fifteen left
        ({6: 2, 5: 2, 4: 2, 20: 1}, False),  # seven left, none piled
        ({6: 2, 5: 2, 4: 1, 20: 1}, True),  # six left
        ({1: 5, 6: 2, 5: 2, 20: 3}, False),  # twelve left, five on the ace: seven more
        ({1: 5, 6: 2, 5: 2, 20: 2}, True),  # eleven left, five on the ace: six more
        ({2: 4, 6: 2, 5: 2, 20: 1}, True),  # nine left, four on the deuce: 9 - 3 = 6
        ({1: 2, 2: 3, 6: 2, 20: 3}, True),  # ace and deuce piles: 10 - 5 + 1 = 6
        ({1: 2, 2: 1, 6: 3, 5: 2, 20: 1}, False),  # a pile on the ace of 2 only: 9 > 8
    ]
    b = boards_array([board(mine, contact) for mine, _ in cases])
    assert list(is_crashed(b)) == [crashed for _, crashed in cases]
    flipped = boards_array([[-x for x in reversed(board(mine, contact))] for mine, _ in cases])
    assert list(is_crashed(flipped)) == [crashed for _, crashed in cases]  # either side


def test_a_back_game_is_two_points_held_in_the_opponents_home_while_behind() -> None:
    """The definition of ``is_back_game``: a side holds two points of its opponent's home
    board (two or more checkers each) and trails the race by ``BACK_GAME_PIPS`` or more."""
    # Mover: 3 on its 22-point and 2 on its 20 (the opponent's 3 and 5 points), the rest home.
    holder = {22: 3, 20: 2, 6: 5, 5: 3, 4: 2}  # 66 + 40 + 30 + 15 + 8 = 159 pips
    runner = {6: 5, 4: 4, 2: 3, 1: 3}  # 30 + 16 + 6 + 3 = 55 pips, still in contact
    b = board_from_points(holder, runner)
    assert is_back_game(b[None])[0]
    # The same seen from the other side is the same game.
    flipped = -b[::-1]
    assert is_back_game(flipped[None])[0]
    # One point held is not a back game, nor are single checkers on the second point.
    assert not is_back_game(board_from_points({22: 3, 20: 1, 6: 6, 5: 3, 4: 2}, runner)[None])[0]
    # Not behind enough: the holder's pips within BACK_GAME_PIPS of the other side's.
    ahead = {13: 6, 12: 4, 11: 5}  # 78 + 48 + 55 = 181 pips: the holder leads
    assert not is_back_game(board_from_points(holder, ahead)[None])[0]
    assert BACK_GAME_PIPS <= 159 - 55


@pytest.mark.parametrize("version", [1, 2])
def test_float32_inputs_are_the_float64_inputs(version: int) -> None:
    # Play encodes in float32: the same inputs rounded, the same race flags.
    b = boards_array(p.board for p in sample_positions())
    x64, race64 = encode_with_race(b, version)
    x32, race32 = encode_with_race(b, version, dtype=np.float32)
    assert x32.dtype == np.float32 and x64.dtype == np.float64
    assert np.array_equal(race32, race64)
    assert np.allclose(x32, x64, rtol=0, atol=1e-6)


def test_after_boards_many_are_each_boards_after_boards() -> None:
    # Many rolls at once, lost turns (R10) among them: a lost turn gives the board itself
    # seen from the opponent, as playing an empty play does.
    boards, move_lists, expected = [], [], []
    for pos, d1, d2 in played_game_cases(10, seed=7):
        for dice in ((d1, d2), (6, 6), (5, 4)):
            moves = pos.legal_moves(dice)
            boards.append(pos.board)
            move_lists.append(moves)
            plays = moves or [Move()]
            expected.append(boards_array(pos.play(m).board for m in plays))
    after, counts = after_boards_many(boards, move_lists)
    assert counts.tolist() == [len(e) for e in expected]
    assert np.array_equal(after, np.concatenate(expected))
    assert sum(not m for m in move_lists) > 0
    as_lists = [[[list(step) for step in m] for m in moves] for moves in move_lists]
    assert np.array_equal(after_boards_many(boards, as_lists)[0], after)
    empty, none = after_boards_many([], [])
    assert empty.shape == (0, 26) and none.shape == (0,)

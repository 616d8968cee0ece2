"""The turn entry: a play entered whole or step by step, checked against the rules of a turn."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from matchhelp import random_position

from backgammon.core.position import Position
from backgammon.core.turn import EntryError, TurnEntry
from backgammon.core.values import BAR, OFF, IllegalMoveError, Move


def test_whole_play_in_any_spelling() -> None:
    entry = TurnEntry(Position.initial(), (6, 5))
    assert str(entry.enter("24-13")) == "24/13"
    assert entry.is_complete and entry.dice_left == ()


def test_play_in_steps_then_undo() -> None:
    entry = TurnEntry(Position.initial(), (6, 5))
    assert entry.enter("24/18") is None
    assert entry.dice_left == (5,)
    assert entry.current.board[18] == 1 and entry.current.board[24] == 1
    entry.undo()
    assert entry.steps == () and entry.dice_left == (6, 5)
    assert entry.enter("13/8") is None
    assert str(entry.enter("13/7")) == "13/8 13/7"


def test_back_takes_one_step() -> None:
    entry = TurnEntry(Position.initial(), (2, 2))
    entry.enter("13/11")
    entry.enter("13/11")
    entry.back()
    assert entry.steps == ((13, 11, False),) and entry.dice_left == (2, 2, 2)
    entry.undo()
    entry.back()  # nothing to take back: nothing happens
    assert entry.steps == ()


def test_refused_text_changes_nothing() -> None:
    entry = TurnEntry(Position.initial(), (6, 5))
    entry.enter("24/18")
    before = (entry.steps, entry.dice_left)
    for text in ("13/10", "18/12", "zz", "6/off", "9", "", "x" * 10_000):
        with pytest.raises(ValueError) as info:
            entry.enter(text)
        assert str(info.value)
        assert (entry.steps, entry.dice_left) == before
    for bad in (None, 5, b"13/8"):
        with pytest.raises(ValueError):
            entry.enter(bad)  # type: ignore[arg-type]
        assert (entry.steps, entry.dice_left) == before


def test_larger_die_rule_refuses_the_smaller_step() -> None:
    """R9: when either die alone can be played but not both, the larger must be played."""
    board = [0] * 26
    board[20] = 1
    board[1] = 14
    board[9] = -2  # 20/14/9 and 20/15/9 both blocked
    board[24] = -13
    pos = Position(board)
    assert [str(m) for m in pos.legal_moves((6, 5))] == ["20/14"]
    entry = TurnEntry(pos, (6, 5))
    with pytest.raises(EntryError):
        entry.enter("20/15")
    assert entry.steps == ()
    assert entry.next_steps() == [(20, 14)]
    assert str(entry.add(20, 14)) == "20/14"


def test_bar_first() -> None:
    """R12: a checker on the bar enters before any other moves."""
    board = list(Position.initial().board)
    board[24] -= 1
    board[BAR] = 1
    entry = TurnEntry(Position(board), (6, 1))
    assert all(src == BAR for src, _dst in entry.next_steps())
    with pytest.raises(EntryError):
        entry.add(13, 7)


def test_choose_by_number() -> None:
    entry = TurnEntry(Position.initial(), (3, 1))
    move = entry.enter("2")
    assert move == entry.legal[1]
    with pytest.raises(EntryError):
        entry.enter("0")
    with pytest.raises(EntryError):
        entry.choose(True)  # type: ignore[arg-type]


def test_add_checks_its_arguments() -> None:
    entry = TurnEntry(Position.initial(), (3, 1))
    for src, dst in ((30, 1), (5, 8), ("8", "5"), (8.0, 5), (1, -1)):
        with pytest.raises(EntryError):
            entry.add(src, dst)  # type: ignore[arg-type]
    assert entry.steps == ()


def test_no_legal_play_is_complete_at_once() -> None:
    """R10: with no legal play the empty play is the whole turn."""
    board = [0] * 26
    board[BAR] = 1
    board[1] = 14
    for p in range(19, 25):
        board[p] = -2
    entry = TurnEntry(Position(board), (6, 5))
    assert entry.legal == [] and entry.move == Move() and entry.is_complete
    assert entry.next_steps() == []


def test_apply_steps_and_move_of_agree_with_play() -> None:
    pos = Position.initial()
    move = pos.parse_move("8/5 6/5", (3, 1))
    assert pos.apply_steps(move).flip() == pos.play(move)
    assert pos.move_of([(8, 5), (6, 5)]) == move
    with pytest.raises(IllegalMoveError):
        pos.move_of([(7, 5)])  # no checker on 7
    with pytest.raises(IllegalMoveError):
        pos.apply_steps([(13, 1)])  # point 1 is closed (R6)


@given(st.integers(0, 100_000), st.integers(0, 80), st.integers(1, 6), st.integers(1, 6))
@settings(max_examples=150, deadline=None)
def test_every_legal_play_can_be_entered_step_by_step(
    seed: int, plies: int, d1: int, d2: int
) -> None:
    """Entering the single steps of any legal play, one at a time, completes exactly it."""
    pos = random_position(seed, plies)
    legal = pos.legal_moves((d1, d2))
    for move in legal[:8]:
        entry = TurnEntry(pos, (d1, d2))
        result: Move | None = None
        for src, dst, _ in move:
            name = {BAR: "bar", OFF: "off"}
            if result is not None:
                # a first step such as "3/off" is also a whole legal play: it is read as one
                assert result in legal and result != move
                break
            result = entry.enter(f"{name.get(src, src)}/{name.get(dst, dst)}")
        else:
            assert result is not None
            assert pos.play(result) == pos.play(move)


@given(st.integers(0, 100_000), st.integers(0, 80), st.integers(1, 6), st.integers(1, 6))
@settings(max_examples=150, deadline=None)
def test_next_steps_always_lead_to_a_legal_play(seed: int, plies: int, d1: int, d2: int) -> None:
    """Law: following any offered next step always ends in a legal play, and every legal
    play's result can be reached by following offered steps."""
    pos = random_position(seed, plies)
    legal = pos.legal_moves((d1, d2))
    results = {pos.play(m) for m in legal} or {pos.play(Move())}  # R10: no play
    rng = random.Random(seed)
    reached = set()
    for _ in range(6):
        entry = TurnEntry(pos, (d1, d2))
        while not entry.is_complete:
            options = entry.next_steps()
            assert options, "stuck before the play is complete"
            entry.add(*rng.choice(options))
        assert entry.move is not None and pos.play(entry.move) in results
        reached.add(pos.play(entry.move))
    for move in legal[:6]:
        entry = TurnEntry(pos, (d1, d2))
        for s, t, _hit in move:
            assert (s, t) in entry.next_steps()
            entry.add(s, t)
        assert entry.move is not None and pos.play(entry.move) == pos.play(move)

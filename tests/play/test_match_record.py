"""Match's actions and errors (every error a specific ValueError, nothing changed), its
record and its replay: a record replays to the same state, tampered records are refused."""

from __future__ import annotations

import pytest
from matchhelp import refused, snapshot

from backgammon import GameResult, IllegalMoveError, InvalidMoveTextError, Move
from backgammon.play.dice import DiceError, FixedDice, SeededDice
from backgammon.play.match import (
    CubeError,
    Double,
    EndReason,
    GameEnd,
    GameStart,
    IllegalActionError,
    Match,
    MatchError,
    MatchOverError,
    MatchRecord,
    NotYourTurnError,
    OpeningRoll,
    Pass,
    Play,
    ReplayError,
    Resign,
    ResignationError,
    Roll,
)
from backgammon.play.rules import Rules, RulesError


# ------------------------------------------------------------------------ actions and errors
def test_errors_are_value_errors() -> None:
    for exc in (
        NotYourTurnError,
        IllegalActionError,
        CubeError,
        ResignationError,
        MatchOverError,
        ReplayError,
        RulesError,
        DiceError,
    ):
        assert issubclass(exc, ValueError)
    assert issubclass(CubeError, IllegalActionError) and issubclass(IllegalActionError, MatchError)


def test_moves_by_text_move_or_steps_and_bad_moves_refused() -> None:
    m = Match(length=5, dice=FixedDice([(3, 1), (3, 1), (3, 1)]))
    refused(m, lambda: m.move("8/5 6/5"), IllegalActionError)  # not rolled
    m.roll()
    refused(m, lambda: m.move("8/2"), IllegalMoveError)
    refused(m, lambda: m.move("hello"), InvalidMoveTextError)
    refused(m, lambda: m.move([(8, 5, False)]), IllegalMoveError)  # half a play
    refused(m, lambda: m.move([(8, 5, False), (6, 5, False)], player=1), NotYourTurnError)
    refused(m, lambda: m.move([(30, 5, False)]), IllegalMoveError)
    for bad in [123, None, [("a", "b", False)], [(1,)], [(8.5, 5)], b"8/5 6/5", object()]:
        refused(m, lambda bad=bad: m.move(bad), IllegalMoveError)
    m.move([(6, 5, True), (8, 5, False)])  # a wrong hit flag is corrected
    assert m.record.games[0][-1] == Play(0, Move([(6, 5, False), (8, 5, False)]))
    m.roll()
    m.move(m.legal_moves()[3])
    m.roll()
    m.move("24/21 24/23")
    assert m.turn == 1


def test_player_numbers_are_checked() -> None:
    m = Match(length=5)
    refused(m, lambda: m.roll(player=2), MatchError)
    refused(m, lambda: m.roll(player=True), MatchError)
    for bad in [0.0, 1.0, "0", [0], -1, object()]:
        refused(m, lambda bad=bad: m.roll((3, 1), player=bad), MatchError)


def test_match_and_rules_arguments() -> None:
    assert Match().rules.is_money
    assert Match(5).rules == Rules(match_length=5)
    assert Match(rules=Rules(match_length=5)).rules.match_length == 5
    with pytest.raises(RulesError):
        Match(length=5, rules=Rules(match_length=7))
    with pytest.raises(RulesError):
        Match(rules="money")  # type: ignore[arg-type]
    with pytest.raises(RulesError):
        Match.from_gnubg_id("4HPwATDgc/ABMA:cIkKAAAAAAAA", rules=5)  # type: ignore[arg-type]
    with pytest.raises(RulesError):
        Match.from_xgid("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:3:0:10", rules="x")  # type: ignore[arg-type]
    with pytest.raises(DiceError):
        Match(dice=[(3, 1)])  # type: ignore[arg-type]
    for bad in [0, 65, -1]:
        with pytest.raises(RulesError):
            Match(length=bad)
    for flags in [{"jacoby": "no"}, {"beavers": 1}, {"crawford": None}, {"raccoons": "yes"}]:
        with pytest.raises(RulesError):
            Rules(**flags)  # type: ignore[arg-type]


def test_replay_refuses_what_is_not_a_record() -> None:
    rules = Rules(match_length=3)
    for bad in [
        None,
        "record",
        MatchRecord("rules", ()),  # type: ignore[arg-type]
        MatchRecord(rules, None),  # type: ignore[arg-type]
        MatchRecord(rules, (None,)),  # type: ignore[arg-type]
        MatchRecord(rules, ((GameStart(1, (0, 0), False),),), start="state"),  # type: ignore[arg-type]
    ]:
        with pytest.raises(ReplayError):
            Match.replay(bad)  # type: ignore[arg-type]


# ------------------------------------------------------------------------ record and replay
def _random_match(seed: int, length: int | None, rules: Rules | None = None) -> Match:
    import random

    rng = random.Random(seed)
    m = Match(length, rules=rules, dice=SeededDice(seed))
    for _ in range(400):
        if m.is_over:
            break
        acts = m.legal_actions()
        weights = [0.2 if a in ("resign", "accept") else 1.0 for a in acts]
        a = rng.choices(acts, weights)[0]
        if a == "move":
            m.move(rng.choice(m.legal_moves()))
        elif a == "resign":
            m.resign(rng.choice(["single", "gammon", "backgammon"][m.state.declined :]))
        else:
            getattr(m, {"accept": "accept_resignation", "reject": "reject_resignation"}.get(a, a))()
    return m


@pytest.mark.parametrize("seed", range(6))
def test_record_replays_to_the_same_state(seed: int) -> None:
    rules = (
        Rules.money(jacoby=True, beavers=True, raccoons=True, automatic_doubles=1)
        if seed % 3 == 2
        else None
    )
    m = _random_match(seed, None if seed % 3 == 2 else 3 + seed, rules)
    again = Match.replay(m.record)
    assert again.state == m.state and again.record == m.record
    assert again.gnubg_id() == m.gnubg_id()


def test_replay_refuses_a_tampered_record() -> None:
    m = _random_match(1, 5)
    games = list(m.record.games)
    first = list(games[0])
    i = next(k for k, a in enumerate(first) if isinstance(a, Roll))
    roll = first[i]
    assert isinstance(roll, Roll)
    first[i] = Roll(roll.player, (roll.dice[0] % 6 + 1, roll.dice[1]))
    games[0] = tuple(first)
    with pytest.raises(ReplayError):
        Match.replay(MatchRecord(m.record.rules, tuple(games)))
    games = list(m.record.games)
    games[0] = (*games[0][:3], GameEnd(0, 1, GameResult.SINGLE, EndReason.PLAYED), *games[0][3:])
    with pytest.raises(ReplayError):
        Match.replay(MatchRecord(m.record.rules, tuple(games)))


def test_replay_from_a_resumed_match() -> None:
    m = Match.from_xgid("XGID=-b----E-C---eE---c-e----B-:1:-1:1:00:2:1:0:7:10", dice=SeededDice(3))
    m.roll()
    m.move(m.legal_moves()[0])
    assert m.record.start is not None
    again = Match.replay(m.record)
    assert again.state == m.state


def test_seeded_dice_give_the_same_match() -> None:
    a, b = _random_match(7, 5), _random_match(7, 5)
    assert a.record == b.record


def test_extend_applies_recorded_actions_or_changes_nothing() -> None:
    source = _random_match(4, 5)
    actions = list(source.record.actions())
    m = Match(5)
    m.extend(actions[1:40])
    assert list(m.record.actions()) == actions[:40]
    before = snapshot(m)
    bad = [*actions[40:50], Double(0, 64), *actions[50:60]]
    with pytest.raises(ReplayError):
        m.extend(bad)  # the first ten are fine, then one is refused: all are undone
    assert snapshot(m) == before
    with pytest.raises(IllegalActionError):
        m.apply(GameEnd(0, 1, GameResult.SINGLE, EndReason.PLAYED))
    m.extend(actions[40:])
    assert m.state == source.state


def test_extend_refuses_any_input_with_a_replay_error_and_changes_nothing() -> None:
    PLAYED = Play(0, Move([(8, 5, False), (6, 5, False)]))
    m = Match(length=3, dice=FixedDice([(5, 2)]))
    refused(m, lambda: m.extend([OpeningRoll(3, 1), Play(0, None)]), ReplayError)  # type: ignore[arg-type]
    m.roll((3, 1))
    for bad in [
        [Play(0, None)],  # type: ignore[arg-type]
        [Play(0, 123)],  # type: ignore[arg-type]
        [PLAYED, Roll(1, None)],  # type: ignore[arg-type]
        [PLAYED, Pass(1)],  # no pass: player 1 is not closed out
        [Resign(0, 2.5)],  # type: ignore[arg-type]
        [Double(0.0, 2)],  # type: ignore[arg-type]
        [None],
        ["8/5 6/5"],
        None,
        5,
        "abc",
    ]:
        refused(m, lambda bad=bad: m.extend(bad), ReplayError)  # type: ignore[arg-type]
    refused(m, lambda: m.apply(Pass(0)), IllegalActionError)
    m.move("8/5 6/5")
    assert m.roll() == (5, 2)  # no refused entry drew the dice

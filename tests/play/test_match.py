"""Games, the cube and match play: one test (or more) per rule R3-R4, R10, R13, R20-R33."""

from __future__ import annotations

import pytest
from matchhelp import board, match_at, refused

from backgammon import GameResult, IllegalMoveError, Move, Position
from backgammon.play.dice import DiceError, FixedDice
from backgammon.play.match import (
    Accept,
    Beaver,
    CubeError,
    Double,
    Drop,
    EndReason,
    GameEnd,
    GameStart,
    IllegalActionError,
    Match,
    MatchOverError,
    NotYourTurnError,
    OpeningRoll,
    Pass,
    Phase,
    Play,
    Raccoon,
    Reject,
    Resign,
    ResignationError,
    Roll,
    Take,
)
from backgammon.play.rules import Rules, RulesError

# A bear-off: the mover's last checker on its 1-point; the opponent has borne off nothing.
LAST_CHECKER = board({1: 1}, {6: 15})
# The same, but the opponent has one checker in the mover's home board (its 20-point).
LAST_CHECKER_BACKGAMMON = board({1: 1}, {6: 14, 20: 1})
# The same, but the opponent has borne off one checker.
LAST_CHECKER_SINGLE = board({1: 1}, {6: 14})


# ------------------------------------------------------------------------ R3 / R4
def test_R3_opening_tie_is_thrown_again_and_higher_die_plays_both_numbers() -> None:
    m = Match(length=5)
    assert m.phase is Phase.OPENING and m.turn is None
    assert m.legal_actions() == ["roll"]
    assert m.roll((4, 4)) == (4, 4)
    assert m.phase is Phase.OPENING and m.cube_value == 1  # no automatic doubles in a match
    m.roll((2, 5))  # player 0 throws 2, player 1 throws 5
    assert m.turn == 1 and m.dice == (2, 5)
    assert m.legal_moves() == Position.initial().legal_moves((5, 2))
    assert m.record.games[0] == (
        GameStart(1, (0, 0), False),
        OpeningRoll(4, 4),
        OpeningRoll(2, 5),
    )


def test_R3_every_game_starts_with_an_opening_roll() -> None:
    m = match_at(LAST_CHECKER, rules=Rules(match_length=5), dice=[(1, 2)])
    m.roll()
    m.move("1/off")
    assert m.phase is Phase.OPENING and m.game_number == 2
    assert m.legal_actions() == ["roll"]
    with pytest.raises(IllegalActionError):
        m.move("8/5 6/5")
    m.roll((6, 1))
    assert m.turn == 0 and m.dice == (6, 1) and m.position == Position.initial()


def test_R3_opening_roll_player_order_is_player0_then_player1() -> None:
    m = Match(dice=FixedDice([(6, 3)]))
    m.roll()
    assert m.turn == 0 and m.on_roll == 0
    m = Match(dice=FixedDice([(3, 6)]))
    m.roll()
    assert m.turn == 1


def test_R4_dice_after_the_opening_are_the_players_own_two() -> None:
    m = Match(length=3, dice=FixedDice([(3, 1), (6, 6), (2, 1)]))
    m.roll()
    m.move("8/5 6/5")
    assert m.roll() == (6, 6)  # doubles are possible after the opening
    assert m.record.games[0][-1] == Roll(1, (6, 6))
    assert len(m.legal_moves()[0]) == 4


def test_R4_bad_dice_are_refused_and_nothing_changes() -> None:
    m = Match(length=3)
    for bad in [(0, 3), (7, 1), (1,), "31", (1, 2, 3), (1.0, 2), (True, 2)]:
        refused(m, lambda bad=bad: m.roll(bad), DiceError)


# ------------------------------------------------------------------------ R10 / R13
def test_R10_no_legal_play_loses_the_turn() -> None:
    # Player 1 on the bar; player 0 holds its 1-5 points (our 20-24): only a 6 enters.
    pos = board({25: 1, 6: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 13: 5})
    m = match_at(pos, rules=Rules(match_length=5), dice=[(5, 4)])
    assert m.roll() == (5, 4)
    assert m.turn == 0 and m.phase is Phase.ROLL and m.dice is None
    assert m.record.games[0][-2:] == (Roll(1, (5, 4)), Play(1, Move()))
    assert m.position == pos.flip()


def test_R10_resumed_with_dice_and_no_legal_play_the_empty_play_is_made() -> None:
    # An ID can hold dice that cannot be played (player 1 rolled 52 against a closed board);
    # gnubg loads it and its bare "move" plays nothing.  "move" was listed but refused.
    gid = "27YBBwDg/wcAQA:QYmqAAAAAAAE"
    for empty in [Move(), [], ""]:
        m = Match.from_gnubg_id(gid)
        assert m.phase is Phase.MOVE and m.dice == (5, 2) and m.turn == 1
        assert m.legal_actions() == ["move", "resign"] and m.legal_moves() == [Move()]
        refused(m, lambda m=m: m.move([(25, 20, False)]), IllegalMoveError)
        m.move(empty)
        assert m.record.games[0][-1] == Play(1, Move()) and m.turn == 0


def test_R13_closed_board_turn_passes_without_a_roll() -> None:
    # Player 1 on the bar against player 0's closed board; player 0 owns the cube, so
    # player 1 has no cube choice.
    pos = board({25: 1, 6: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 13: 3})
    m = match_at(pos, rules=Rules(match_length=5), cube=2, owner=0, dice=[])
    assert m.roll() is None  # FixedDice([]) would raise if a throw were drawn
    assert m.turn == 0 and m.phase is Phase.ROLL
    assert m.record.games[0][-1] == Pass(1)
    assert m.record.rolls() == ()


def test_R13_a_closed_out_player_given_dice_passes_without_using_them() -> None:
    # roll is listed and a bare roll() passes; numbers thrown on a real board are accepted
    # too and not used: the record shows the pass, as it does for roll() and in a replay.
    pos = board({25: 1, 6: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 13: 3})
    m = match_at(pos, rules=Rules(match_length=5), dice=[(4, 2)])
    assert m.legal_actions() == ["roll", "double", "resign"]
    refused(m, lambda: m.roll((7, 1)), DiceError)  # the numbers are still checked
    refused(m, lambda: m.roll((6, 5), player=0), NotYourTurnError)
    assert m.roll((6, 5)) is None
    assert m.turn == 0 and m.phase is Phase.ROLL and m.position == pos.flip()
    assert m.record.games[0][-1] == Pass(1) and m.record.rolls() == ()
    assert Match.replay(m.record).state == m.state
    assert m.roll() == (4, 2)  # player 0 rolls: the given numbers did not use the dice


def test_R13_closed_out_player_with_the_cube_may_double_first() -> None:
    pos = board({25: 1, 6: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 13: 3})
    m = match_at(pos, rules=Rules(match_length=5))
    assert m.legal_actions() == ["roll", "double", "resign"]
    m.double()
    m.take()
    assert m.turn == 0  # the doubler, now without the cube, passes at once (R13)
    assert m.record.games[0][-1] == Pass(1)


def test_R13_turn_passes_automatically_when_the_board_closes() -> None:
    # Player 1 closes its board with a player-0 checker on the bar; player 1 owns the cube,
    # so player 0 cannot double and passes at once.
    pos = board({2: 2, 3: 2, 4: 3, 5: 3, 6: 2, 13: 3}, {25: 1, 13: 14})
    m = match_at(pos, rules=Rules(match_length=7), cube=2, owner=1, dice=[(4, 3), (3, 2)])
    m.roll()
    m.move("5/1 4/1")  # now 1-6 are all closed
    assert m.record.games[0][-1] == Pass(0)
    assert m.turn == 1 and m.phase is Phase.ROLL
    assert m.roll() == (3, 2)  # the next throw is player 1's


# ------------------------------------------------------------------------ R20 / R19
@pytest.mark.parametrize(
    ("pos", "result"),
    [
        (LAST_CHECKER_SINGLE, GameResult.SINGLE),
        (LAST_CHECKER, GameResult.GAMMON),
        (LAST_CHECKER_BACKGAMMON, GameResult.BACKGAMMON),
    ],
)
@pytest.mark.parametrize("cube", [1, 2, 4])
def test_R20_points_are_base_value_times_cube(pos: Position, result: GameResult, cube: int) -> None:
    m = match_at(
        pos, rules=Rules(match_length=25), cube=cube, owner=None if cube == 1 else 0, dice=[(2, 1)]
    )
    m.roll()
    m.move(m.legal_moves()[0])
    end = m.record.games[0][-1]
    assert end == GameEnd(1, int(result) * cube, result, EndReason.PLAYED)
    assert m.score == (0, int(result) * cube)
    assert m.game_number == 2 and m.record.games[1] == (
        GameStart(2, (0, int(result) * cube), False),
    )


# ------------------------------------------------------------------------ R21
@pytest.mark.parametrize("level", ["single", "gammon", "backgammon"])
def test_R21_accepted_resignation_scores_level_times_cube(level: str) -> None:
    m = Match(length=15, dice=FixedDice([(3, 1)]))
    m.roll()
    m.move("8/5 6/5")
    m.double()
    m.take()
    m.resign(level)  # player 1, who doubled
    assert m.turn == 0 and m.resignation == GameResult[level.upper()]
    assert m.legal_actions() == ["accept", "reject"]
    m.accept_resignation()
    pts = 2 * GameResult[level.upper()]
    assert m.score == (pts, 0)
    assert m.record.games[0][-3:] == (
        Resign(1, GameResult[level.upper()]),
        Accept(0),
        GameEnd(0, pts, GameResult[level.upper()], EndReason.RESIGNED),
    )


def test_R21_rejected_resignation_goes_on_where_it_stopped() -> None:
    m = Match(length=5, dice=FixedDice([(3, 1), (6, 4)]))
    m.roll()
    m.move("8/5 6/5")
    m.roll()
    before = m.state
    m.resign("gammon")
    refused(m, lambda: m.move("24/14"), IllegalActionError)
    refused(m, lambda: m.move("24/14", player=1), NotYourTurnError)
    refused(m, lambda: m.resign("single"), ResignationError)
    m.reject_resignation(player=0)
    assert m.record.games[0][-2:] == (Resign(1, GameResult.GAMMON), Reject(0))
    after = m.state
    assert (after.phase, after.dice, after.position, after.turn) == (
        before.phase,
        before.dice,
        before.position,
        before.turn,
    )
    m.move("24/14")
    assert m.turn == 0


def test_R21_a_declined_resignation_is_not_offered_again_for_less() -> None:
    # As in gnubg: after a rejection only a bigger offer may follow, until the next action.
    m = Match(length=7, dice=FixedDice([(3, 1), (5, 2)]))
    m.roll()
    m.resign("gammon")
    m.reject_resignation()
    refused(m, lambda: m.resign("gammon"), ResignationError)
    refused(m, lambda: m.resign("single"), ResignationError)
    m.resign("backgammon")
    m.reject_resignation()
    assert m.legal_actions() == ["move"]
    m.move("8/5 6/5")
    m.roll()
    m.resign("single")  # a new action: any offer again
    assert m.resignation == GameResult.SINGLE


def test_R21_bad_resignations_are_refused() -> None:
    m = Match(length=5, dice=FixedDice([(3, 1)]))
    refused(m, lambda: m.resign("single"), ResignationError)  # before the opening roll
    m.roll()
    refused(m, lambda: m.resign("quadruple"), ResignationError)
    refused(m, lambda: m.resign(4), ResignationError)
    for bad in [2.5, 1.0, None, [], b"single", "x", "", object()]:
        refused(m, lambda bad=bad: m.resign(bad), ResignationError)
    refused(m, m.accept_resignation, ResignationError)
    refused(m, m.reject_resignation, ResignationError)
    refused(m, lambda: m.resign("single", player=1), NotYourTurnError)


# ------------------------------------------------------------------------ R22-R26
def test_R22_cube_starts_centred_at_one_and_either_player_may_double_first() -> None:
    for first in [(3, 1), (1, 3)]:
        m = Match(length=7, dice=FixedDice([first]))
        assert m.cube_value == 1 and m.cube_owner is None
        m.roll()
        opener = m.turn
        assert opener is not None
        m.move(m.legal_moves()[0])
        assert m.may_double() and m.may_double(1 - opener)
        assert not m.may_double(opener)  # not their turn (R23)


def test_R23_double_only_on_own_turn_before_rolling() -> None:
    m = Match(length=7, dice=FixedDice([(3, 1), (5, 2)]))
    refused(m, m.double, CubeError)  # before the opening roll: no one's turn
    m.roll()
    refused(m, m.double, CubeError)  # the opener has rolled already
    m.move("8/5 6/5")
    refused(m, lambda: m.double(player=0), NotYourTurnError)
    m.roll()
    assert not m.may_double()
    refused(m, m.double, CubeError)  # dice already rolled
    assert "double" not in m.legal_actions()


def test_R24_take_doubles_the_cube_and_gives_it_to_the_taker() -> None:
    m = Match(length=7, dice=FixedDice([(3, 1)]))
    m.roll()
    m.move("8/5 6/5")
    m.double()
    assert m.phase is Phase.DOUBLED and m.turn == 0 and m.on_roll == 1
    assert m.cube_value == 1  # still the value before the double while it is pending
    assert m.legal_actions() == ["take", "drop", "resign"]
    refused(m, m.roll, IllegalActionError)
    refused(m, lambda: m.take(player=1), NotYourTurnError)
    m.take()
    assert (m.cube_value, m.cube_owner, m.turn, m.phase) == (2, 0, 1, Phase.ROLL)
    assert m.record.games[0][-2:] == (Double(1, 2), Take(0, 2))


def test_R24_pass_scores_the_value_before_the_double_and_gammons_do_not_count() -> None:
    # Player 1 owns a 2-cube and is about to win a gammon; it redoubles and player 0 passes.
    m = match_at(LAST_CHECKER, rules=Rules(match_length=11), cube=2, owner=1)
    m.double()
    m.drop()
    assert m.score == (0, 2)
    assert m.record.games[0][-3:] == (
        Double(1, 4),
        Drop(0),
        GameEnd(1, 2, GameResult.SINGLE, EndReason.DROPPED),
    )


def test_R24_take_or_drop_without_a_double_is_refused() -> None:
    m = Match(length=7, dice=FixedDice([(3, 1)]))
    m.roll()
    refused(m, m.take, CubeError)
    refused(m, m.drop, CubeError)


def test_R25_only_the_owner_redoubles() -> None:
    m = Match(length=15, dice=FixedDice([(3, 1), (6, 5), (4, 2)]))
    m.roll()
    m.move("8/5 6/5")
    m.double()  # player 1
    m.take()  # player 0 owns the 2-cube
    assert not m.may_double(1)
    m.roll()
    m.move("24/13")
    assert m.may_double(0)  # the owner may redouble
    m.double()
    m.take()
    assert (m.cube_value, m.cube_owner) == (4, 1)
    m.roll()
    m.move(m.legal_moves()[0])
    assert m.turn == 1 and m.may_double()
    # player 0 no longer owns it
    m2 = match_at(Position.initial(), on_roll=0, rules=Rules(match_length=15), cube=4, owner=1)
    refused(m2, m2.double, CubeError)


def test_R26_cube_values_are_powers_of_two_up_to_the_maximum() -> None:
    rules = Rules(max_cube=4)
    m = match_at(Position.initial(), rules=rules, cube=4, owner=1)
    assert not m.may_double()
    refused(m, m.double, CubeError)
    m = match_at(Position.initial(), rules=rules, cube=2, owner=1)
    m.double()
    m.take()
    assert m.cube_value == 4
    for bad in [0, 3, 48, 2**16]:
        with pytest.raises(RulesError):
            Rules(max_cube=bad)
    cubeless = Match(rules=Rules(max_cube=1), dice=FixedDice([(3, 1)]))
    cubeless.roll()
    cubeless.move("8/5 6/5")
    assert not cubeless.may_double()


# ------------------------------------------------------------------------ R27-R29
def test_R27_match_ends_as_soon_as_a_score_reaches_the_length() -> None:
    m = match_at(LAST_CHECKER, rules=Rules(match_length=5), score=(1, 3), dice=[(2, 1)])
    m.roll()
    m.move("1/off")  # a gammon: 3 + 2 = 5
    assert m.is_over and m.winner == 1 and m.score == (1, 5)
    assert m.turn is None and m.legal_actions() == [] and m.legal_moves() == []
    for action in (m.roll, m.double, m.take, m.drop, m.accept_resignation):
        refused(m, action, MatchOverError)
    refused(m, lambda: m.move("8/5 6/5"), MatchOverError)


def test_R27_passing_the_length_ends_the_match_too() -> None:
    m = match_at(LAST_CHECKER_BACKGAMMON, rules=Rules(match_length=3), score=(0, 2), dice=[(2, 1)])
    m.roll()
    m.move("1/off")
    assert m.is_over and m.winner == 1 and m.score == (0, 5)
    assert not Match().is_over


def _win_game(m: Match, winner: int) -> None:
    """Finish the current game of ``m`` in favour of ``winner``: the loser resigns."""
    loser = 1 - winner
    if m.phase is Phase.OPENING:
        m.roll((1, 6) if loser == 1 else (6, 1))  # the loser opens
    assert m.turn == loser
    m.resign("single")
    m.accept_resignation()


def test_R28_crawford_game_exactly_once_then_post_crawford() -> None:
    m = Match(length=3)
    _win_game(m, 0)  # 1-0
    assert not m.is_crawford_game
    _win_game(m, 0)  # 2-0: player 0 is 1-away
    assert m.is_crawford_game and m.record.games[-1] == (GameStart(3, (2, 0), True),)
    m.roll((1, 6))
    m.move(m.legal_moves()[0])
    assert not m.may_double(0) and m.legal_actions() == ["roll", "resign"]
    refused(m, m.double, CubeError)
    m.resign("single")
    m.accept_resignation()  # 2-1 after the Crawford game
    assert not m.is_crawford_game and m.is_post_crawford
    m.roll((6, 1))
    m.move(m.legal_moves()[0])
    assert m.may_double(1)  # the cube is back in play post-Crawford (for the trailer)
    m.double()
    m.drop()  # 2-2: both 1-away, but no second Crawford game
    assert m.score == (2, 2) and not m.is_crawford_game and m.is_post_crawford


def test_R28_no_crawford_when_switched_off_or_in_money() -> None:
    m = Match(rules=Rules(match_length=3, crawford=False))
    _win_game(m, 0)
    _win_game(m, 0)
    assert not m.is_crawford_game
    money = Match()
    _win_game(money, 0)
    _win_game(money, 0)
    assert not money.is_crawford_game and money.score == (2, 0)


def test_R28_crawford_starts_when_n_minus_1_is_reached_exactly() -> None:
    m = match_at(LAST_CHECKER, rules=Rules(match_length=5), score=(0, 2), dice=[(2, 1)])
    m.roll()
    m.move("1/off")  # gammon: 2 -> 4 = N-1
    assert m.score == (0, 4) and m.is_crawford_game


def test_R29_dead_cube_is_refused() -> None:
    # Player 1 at 3 in a 5-point match with a 2-cube it owns: winning at 2 wins the match.
    m = match_at(Position.initial(), rules=Rules(match_length=5), score=(0, 3), cube=2, owner=1)
    assert not m.may_double()
    refused(m, m.double, CubeError)
    # Player 0 at 0 may still double if it owns the cube.
    m = match_at(
        Position.initial(), on_roll=0, rules=Rules(match_length=5), score=(0, 3), cube=2, owner=0
    )
    assert m.may_double()
    # Post-Crawford: the leader's cube is dead, the trailer's is live.
    m = match_at(Position.initial(), on_roll=1, rules=Rules(match_length=5), score=(2, 4))
    assert m.is_post_crawford and not m.may_double()
    m = match_at(Position.initial(), on_roll=0, rules=Rules(match_length=5), score=(2, 4))
    assert m.may_double()


# ------------------------------------------------------------------------ R30-R33
@pytest.mark.parametrize(
    "kwargs",
    [
        {"jacoby": True},
        {"beavers": True},
        {"beavers": True, "raccoons": True},
        {"automatic_doubles": 1},
    ],
)
def test_R30_money_conventions_are_refused_in_a_match(kwargs: dict[str, object]) -> None:
    with pytest.raises(RulesError, match="R30"):
        Rules(match_length=7, **kwargs)  # type: ignore[arg-type]
    Rules(**kwargs)  # type: ignore[arg-type]  # fine for money


def test_R31_jacoby_gammon_counts_single_until_the_cube_is_turned() -> None:
    jacoby = Rules.money(jacoby=True)
    m = match_at(LAST_CHECKER, rules=jacoby, dice=[(2, 1)])
    m.roll()
    m.move("1/off")
    assert m.score == (0, 1)
    m = match_at(LAST_CHECKER, rules=jacoby, cube=2, owner=0, dice=[(2, 1)])
    m.roll()
    m.move("1/off")
    assert m.score == (0, 4)
    m = match_at(LAST_CHECKER, rules=Rules.money(), dice=[(2, 1)])  # no Jacoby
    m.roll()
    m.move("1/off")
    assert m.score == (0, 2)
    m = match_at(LAST_CHECKER, rules=Rules(match_length=9), dice=[(2, 1)])  # match: never
    m.roll()
    m.move("1/off")
    assert m.score == (0, 2)


def test_R31_resignation_scores_what_was_offered_even_under_jacoby() -> None:
    # R31 reduces gammons that are played out; a resignation is scored at the level the
    # player offered, as gnubg scores it (nCube x level).
    m = Match(rules=Rules.money(jacoby=True), dice=FixedDice([(3, 1)]))
    m.roll()
    m.resign("backgammon")
    m.accept_resignation()
    assert m.score == (0, 3)


def test_R32_beaver_keeps_the_cube_and_doubles_again() -> None:
    rules = Rules.money(beavers=True, raccoons=True)
    m = match_at(Position.initial(), rules=rules)
    m.double()  # player 1 offers 2
    assert m.legal_actions() == ["take", "drop", "beaver", "resign"]
    m.beaver()  # player 0
    assert m.turn == 1 and m.legal_actions() == ["take", "drop", "raccoon", "resign"]
    refused(m, m.beaver, CubeError)
    m.take()
    assert (m.cube_value, m.cube_owner, m.turn) == (4, 0, 1)
    assert m.record.games[0][-3:] == (Double(1, 2), Beaver(0, 4), Take(1, 4))


def test_R32_dropping_a_beaver_loses_the_doubled_value() -> None:
    m = match_at(Position.initial(), rules=Rules.money(beavers=True))
    m.double()
    m.beaver()
    m.drop()  # player 1 refuses the beaver: player 0 wins 2
    assert m.score == (2, 0)


def test_R32_raccoon_answers_a_beaver() -> None:
    m = match_at(Position.initial(), rules=Rules.money(beavers=True, raccoons=True))
    m.double()
    m.beaver()
    m.raccoon()  # player 1
    assert m.turn == 0 and m.legal_actions() == ["take", "drop", "resign"]
    refused(m, m.raccoon, CubeError)
    m.take()
    assert (m.cube_value, m.cube_owner, m.turn) == (8, 1, 1)
    assert m.record.games[0][-3:] == (Beaver(0, 4), Raccoon(1, 8), Take(0, 8))


def test_R32_beavers_need_the_rule_and_stay_within_the_maximum() -> None:
    m = match_at(Position.initial(), rules=Rules.money())
    m.double()
    refused(m, m.beaver, CubeError)
    m = match_at(Position.initial(), rules=Rules.money(beavers=True))
    m.double()
    m.beaver()
    refused(m, m.raccoon, CubeError)  # raccoons not allowed
    m = match_at(Position.initial(), rules=Rules.money(beavers=True, max_cube=4), cube=2, owner=1)
    m.double()
    refused(m, m.beaver, CubeError)  # 2 -> 4 -> 8 is over 4
    m = match_at(Position.initial(), rules=Rules(match_length=7))
    m.double()
    refused(m, m.beaver, CubeError)


def test_R33_automatic_doubles_up_to_the_limit() -> None:
    m = Match(
        rules=Rules.money(automatic_doubles=2), dice=FixedDice([(3, 3), (5, 5), (2, 2), (4, 1)])
    )
    for _ in range(3):
        m.roll()
    assert m.cube_value == 4 and m.cube_owner is None  # the third tie is over the limit
    m.roll()
    assert m.turn == 0 and m.cube_value == 4
    none = Match(rules=Rules.money(), dice=FixedDice([(3, 3), (4, 1)]))
    none.roll()
    assert none.cube_value == 1


def test_R33_automatic_doubles_stop_at_the_maximum_cube() -> None:
    m = Match(rules=Rules.money(automatic_doubles=5, max_cube=2), dice=FixedDice([(3, 3), (5, 5)]))
    m.roll()
    m.roll()
    assert m.cube_value == 2


def test_R21_the_doubled_player_may_resign_instead_of_answering() -> None:
    m = Match(length=7, dice=FixedDice([(3, 1)]))
    m.roll()
    m.move("8/5 6/5")
    m.double()  # player 1 doubles; player 0 must answer
    assert m.legal_actions() == ["take", "drop", "resign"]
    m.resign("gammon")
    assert m.turn == 1 and m.state.resigner == 0
    gid = m.gnubg_id()
    assert Match.from_gnubg_id(gid).gnubg_id() == gid
    m.reject_resignation()
    assert m.phase is Phase.DOUBLED and m.turn == 0  # back to the double
    m.resign("backgammon")
    m.accept_resignation()
    assert m.score == (0, 3)  # 3 x the cube before the double


def test_R5_steps_must_each_use_one_of_the_dice() -> None:
    """R5: steps of 2 and 3 for a roll of 41 are refused even though they reach the same
    point as 13/9/8; the same checker moved 13/8 in one step is entered as 13/9/8."""
    m = Match(length=3)
    m.roll((4, 1))
    before = (m.gnubg_id(), len(list(m.record.actions())))
    with pytest.raises(IllegalMoveError):
        m.move([(13, 11, False), (11, 8, False)])
    assert (m.gnubg_id(), len(list(m.record.actions()))) == before
    m.move([(13, 8, False)])
    last = m.record.games[-1][-1]
    assert isinstance(last, Play) and sorted(s - t for s, t, _ in last.move) == [1, 4]

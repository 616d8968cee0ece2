"""decide(): one way for every face to make a bot act on a Match, in each phase."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import pytest
from matchhelp import board, match_at

from backgammon import Match, Position
from backgammon.core.values import Move
from backgammon.play.dice import FixedDice
from backgammon.play.match import ActionKind, IllegalActionError, Phase
from backgammon.play.rules import Rules
from backgammon.players import CubeAction, CubeDecision, CubeState, Decision, Player, decide, get

MONEY_BEAVERS = Rules.money(jacoby=True, beavers=True)


@dataclass
class Spy:
    """A player that answers as told and records what it was shown."""

    double: bool = False
    answer: CubeAction = CubeAction.TAKE
    accept: bool = True
    name: str = "spy"
    seen: list[tuple[str, Position, CubeState | None]] = field(default_factory=list)

    def choose_move(
        self, position: Position, dice: Sequence[int], cube: CubeState | None = None
    ) -> Move | None:
        self.seen.append(("move", position, cube))
        moves = position.legal_moves(dice)
        return moves[-1] if moves else None

    def cube_action(self, position: Position, cube: CubeState, offered: bool = False) -> CubeAction:
        self.seen.append(("answer" if offered else "double", position, cube))
        if offered:
            return self.answer
        return CubeAction.DOUBLE if self.double else CubeAction.NO_DOUBLE

    def accept_resignation(
        self, position: Position, points: int, cube: CubeState | None = None
    ) -> bool:
        self.seen.append((f"resign {points}", position, cube))
        return self.accept


@dataclass
class Adviser(Spy):
    """A spy that also gives cubeful equities (as the neural player does)."""

    double_take: float = 0.0

    def cube_decision(self, position: Position, cube: CubeState) -> CubeDecision:
        self.seen.append(("decision", position, cube))
        return CubeDecision(0.0, self.double_take, 1.0, CubeAction.NO_DOUBLE, CubeAction.TAKE)


@pytest.fixture(scope="module")
def neural() -> Player:
    return get("neural", plies=0)


# A race the side on roll trails by about 20 pips: a clear take, and a beaver.
BEHIND = board({6: 4, 5: 4, 4: 3, 9: 2, 10: 2}, {6: 5, 5: 5, 4: 5})
# The side on roll is far ahead in the race (gammonless): it should double, and be passed.
AHEAD = board({6: 5, 5: 5, 4: 5}, {6: 4, 5: 4, 4: 3, 9: 2, 10: 2})


def test_the_opening_is_a_roll_and_apply_makes_it() -> None:
    m = Match(length=3, dice=FixedDice([(3, 1)]))  # not a tie, which is thrown again (R3)
    d = decide(Spy(double=True), m)
    assert d == Decision(ActionKind.ROLL)
    m.apply(d)
    assert m.phase in (Phase.MOVE, Phase.ROLL) and m.on_roll is not None


def test_roll_or_double_sees_its_own_side_with_the_money_rules() -> None:
    m = match_at(AHEAD, on_roll=1, rules=MONEY_BEAVERS)
    spy = Spy(double=True)
    assert decide(spy, m) == Decision(ActionKind.DOUBLE)
    kind, position, cube = spy.seen[-1]
    assert kind == "double" and position == m.position
    assert cube == CubeState(jacoby=True, beavers=True)
    assert decide(Spy(double=False), m) == Decision(ActionKind.ROLL)


def test_the_net_doubles_when_far_ahead_and_the_doubler_is_passed(neural: Player) -> None:
    m = match_at(AHEAD, on_roll=0, rules=Rules.money())
    assert decide(neural, m).kind is ActionKind.DOUBLE
    m.double()
    assert decide(neural, m).kind is ActionKind.DROP


def test_no_double_in_the_crawford_game(neural: Player) -> None:
    # The trailer, far ahead in the race, may not double in the Crawford game (R28) ...
    crawford = match_at(AHEAD, on_roll=1, rules=Rules(match_length=5), score=(4, 1), crawford=True)
    assert decide(Spy(double=True), crawford) == Decision(ActionKind.ROLL)
    assert decide(neural, crawford) == Decision(ActionKind.ROLL)
    # ... but doubles after it.
    post = match_at(AHEAD, on_roll=1, rules=Rules(match_length=5), score=(4, 1))
    assert post.is_post_crawford
    assert decide(neural, post) == Decision(ActionKind.DOUBLE)


def test_the_play_of_the_dice_is_the_players_and_is_applied() -> None:
    m = match_at(Position.initial(), on_roll=0, rules=Rules(match_length=5), dice=[(3, 1)])
    m.roll()
    spy = Spy()
    d = decide(spy, m)
    assert d.kind is ActionKind.MOVE and d.move == m.legal_moves()[-1]
    assert spy.seen[-1][1] == m.position
    assert spy.seen[-1][2] == CubeState(match_length=5)
    m.apply(d)
    assert m.turn == 1 and m.phase is Phase.ROLL


def test_the_net_plays_as_it_chooses(neural: Player) -> None:
    m = match_at(Position.initial(), on_roll=0, rules=Rules(match_length=5), dice=[(3, 1)])
    m.roll()
    assert decide(neural, m) == Decision(ActionKind.MOVE, neural.choose_move(m.position, (3, 1)))


@pytest.mark.parametrize(
    ("rules", "answer", "kind"),
    [
        (MONEY_BEAVERS, CubeAction.BEAVER, ActionKind.BEAVER),
        (Rules.money(), CubeAction.BEAVER, ActionKind.TAKE),  # no beavers: a take
        (MONEY_BEAVERS, CubeAction.TAKE, ActionKind.TAKE),
        (MONEY_BEAVERS, CubeAction.PASS, ActionKind.DROP),
    ],
)
def test_the_answer_to_a_double(rules: Rules, answer: CubeAction, kind: ActionKind) -> None:
    m = match_at(BEHIND, on_roll=1, rules=rules)
    m.double()
    spy = Spy(answer=answer)
    assert decide(spy, m) == Decision(kind)
    what, position, cube = spy.seen[-1]
    # Judged from the doubler's side, as the Player protocol has it.
    assert what == "answer" and position == m.position
    assert cube == CubeState(jacoby=rules.jacoby, beavers=rules.beavers)
    m.apply(decide(spy, m))
    after = {ActionKind.TAKE: Phase.ROLL, ActionKind.BEAVER: Phase.DOUBLED}
    assert m.phase is after.get(kind, Phase.OPENING)  # a drop ends the game


def test_the_net_beavers_a_bad_double_when_beavers_are_allowed(neural: Player) -> None:
    m = match_at(BEHIND, on_roll=0, rules=MONEY_BEAVERS)
    m.double()
    assert decide(neural, m).kind is ActionKind.BEAVER
    plain = match_at(BEHIND, on_roll=0, rules=Rules.money())
    plain.double()
    assert decide(neural, plain).kind is ActionKind.TAKE


@pytest.mark.parametrize(
    ("double_take", "kind"), [(-0.6, ActionKind.TAKE), (-1.4, ActionKind.DROP)]
)
def test_the_doubler_answers_a_beaver_by_its_cubeful_equities(
    double_take: float, kind: ActionKind
) -> None:
    m = match_at(BEHIND, on_roll=1, rules=MONEY_BEAVERS)
    m.double()
    m.beaver()
    assert m.turn == 1  # the doubler answers the beaver
    adviser = Adviser(double_take=double_take)
    assert decide(adviser, m) == Decision(kind)
    what, position, cube = adviser.seen[-1]
    assert what == "decision" and position == m.position
    assert cube is not None and cube.cube_value == 2 and cube.cube_owner == -1
    # A player without cubeful equities takes.
    assert decide(Spy(answer=CubeAction.PASS), m) == Decision(ActionKind.TAKE)
    m.apply(decide(adviser, m))
    if kind is ActionKind.TAKE:
        assert m.phase is Phase.ROLL and m.cube_value == 4 and m.cube_owner == 0
    else:
        assert m.phase is Phase.OPENING and m.score == (2, 0)  # the beavered cube lost


def test_a_resignation_is_judged_from_the_resigners_side() -> None:
    rules = Rules(match_length=7)
    m = match_at(BEHIND, on_roll=1, rules=rules, score=(2, 5))
    m.resign("gammon")
    spy = Spy(accept=False)
    assert decide(spy, m) == Decision(ActionKind.REJECT)
    what, position, cube = spy.seen[-1]
    assert what == "resign 2" and position == m.position
    assert cube == CubeState(match_length=7, score=(5, 2))
    m.apply(decide(spy, m))
    assert m.phase is Phase.ROLL and m.turn == 1


def test_a_resignation_instead_of_a_take_is_judged_from_the_resigner() -> None:
    m = match_at(AHEAD, on_roll=0, rules=Rules(match_length=7), score=(2, 5))
    m.double()
    m.resign("single")  # player 1 resigns instead of answering
    assert m.turn == 0
    spy = Spy()
    assert decide(spy, m) == Decision(ActionKind.ACCEPT)
    _, position, cube = spy.seen[-1]
    assert position == m.position.flip()  # the resigner's side, not the doubler's
    assert cube == CubeState(match_length=7, score=(5, 2))
    m.apply(decide(spy, m))
    assert m.score == (3, 5)


def test_the_net_answers_resignations(neural: Player) -> None:
    # A point for nothing at the start of a match: yes.
    m = match_at(Position.initial(), on_roll=1, rules=Rules(match_length=7))
    m.resign("single")
    assert decide(neural, m).kind is ActionKind.ACCEPT
    # Closed out with every checker on the bar: a backgammon only.
    closed = board({25: 15}, {6: 3, 5: 3, 4: 3, 3: 2, 2: 2, 1: 2})
    m = match_at(closed, on_roll=1, rules=Rules.money())
    m.resign("single")
    assert decide(neural, m).kind is ActionKind.REJECT
    m.reject_resignation()
    m.resign("backgammon")
    assert decide(neural, m).kind is ActionKind.ACCEPT


def test_nothing_to_decide_once_the_match_is_over() -> None:
    m = Match(length=1)
    m.roll((3, 1))
    m.resign("single")
    m.accept_resignation()
    with pytest.raises(ValueError, match="over"):
        decide(Spy(), m)
    # A decision is an action Match.apply makes, so the rules refuse what is not possible
    # now, and what is no action at all is refused when it is made.
    with pytest.raises(ValueError, match="cannot resign now"):
        Match(length=1).apply(Decision(ActionKind.RESIGN))
    with pytest.raises(IllegalActionError, match="not an action"):
        Decision("sing")  # type: ignore[arg-type]

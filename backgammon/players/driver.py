"""One way to make a bot act on a :class:`~backgammon.play.match.Match`, for every face.

:func:`decide` asks a :class:`~backgammon.players.base.Player` what to do in whatever
phase the match is in (roll or double, play the dice, answer a double or a beaver, answer a
resignation) and returns the :class:`~backgammon.play.actions.Act`, which
:meth:`Match.apply` makes.

    >>> from backgammon import Match
    >>> from backgammon.players import decide, get
    >>> m = Match(length=3)
    >>> decide(get("pubeval"), m)
    Act('roll')
"""

from __future__ import annotations

from backgammon.core.position import Position
from backgammon.core.values import Move
from backgammon.evaluation.cube import CubeAction, CubeState
from backgammon.play.match import Act, ActionKind, IllegalActionError, Match, MatchOverError, Phase
from backgammon.players.base import CubeAdviser, Player

__all__ = ["Decision", "decide"]


Decision = Act
"""A bot's decision is an :class:`~backgammon.play.actions.Act` (the name stays for callers)."""


def decide(player: Player, match: Match) -> Act:
    """What ``player`` does now in ``match``, as the player who must act (MatchOverError
    once the match is over).

    The player sees the position and the cube (Jacoby, beavers and Crawford included) from
    the side the protocol expects: its own when it rolls, doubles or plays; the doubler's
    when it answers a double; the resigner's when it answers a resignation.
    """
    phase = match.phase
    if phase is Phase.OVER:
        raise MatchOverError("the match is over: nothing to decide")
    if phase is Phase.OPENING:
        return Act(ActionKind.ROLL)
    position, cube = match.position, CubeState.from_match(match)
    if phase is Phase.ROLL:
        if match.may_double() and player.cube_action(position, cube) is CubeAction.DOUBLE:
            return Act(ActionKind.DOUBLE)
        return Act(ActionKind.ROLL)
    if phase is Phase.MOVE:
        dice = match.dice
        assert dice is not None
        move = player.choose_move(position, dice, cube)
        if move is None:  # the match passes a roll without a play itself: not expected
            legal = match.legal_moves()
            move = legal[0] if legal else Move()
        return Act(ActionKind.MOVE, move)
    if phase is Phase.DOUBLED:
        return Act(_answer(player, match, position, cube))
    if phase is Phase.RESIGNED:
        return Act(ActionKind.ACCEPT if _accepts(player, match) else ActionKind.REJECT)
    raise IllegalActionError(f"no decision in the phase {phase!r}")  # pragma: no cover


def _answer(player: Player, match: Match, position: Position, cube: CubeState) -> ActionKind:
    """Take, drop or beaver the pending offer (never a raccoon)."""
    if match.state.beavers == 1:
        answer = _answer_beaver(player, position, cube)
    else:  # a double (or a raccoon, answered like a redouble) by the side on roll
        answer = player.cube_action(position, cube, offered=True)
    if answer is CubeAction.PASS:
        return ActionKind.DROP
    if answer is CubeAction.BEAVER and ActionKind.BEAVER in match.legal_actions():
        return ActionKind.BEAVER
    return ActionKind.TAKE


def _answer_beaver(player: Player, position: Position, cube: CubeState) -> CubeAction:
    """The doubler, on roll, answers a beaver: taking plays on for twice the beavered cube
    (owned by the beaverer), passing loses the beavered cube.  Per beavered cube that is
    the double/take equity against minus the double/pass one; a bot that gives no cubeful
    equities takes."""
    if not isinstance(player, CubeAdviser):
        return CubeAction.TAKE
    d = player.cube_decision(position, cube)
    return CubeAction.TAKE if d.double_take >= -d.double_pass else CubeAction.PASS


def _accepts(player: Player, match: Match) -> bool:
    """The player's answer to the pending resignation, judged from the resigner's side (who
    may have resigned instead of answering a double, so not be on roll)."""
    state, level = match.state, match.resignation
    assert level is not None and state.on_roll is not None
    resigner = state.resigner
    position = match.position if resigner == state.on_roll else match.position.flip()
    return player.accept_resignation(position, int(level), CubeState.from_match(match, resigner))

"""The terminal session in process: lost and closed-out turns, forced plays made for the
player, the training commands named, and the bot asked from its own side."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from clihelp import _data_home, run_cli  # noqa: F401 (a fixture)

from backgammon.core.position import Position
from backgammon.core.values import Move


def _session_from(position: Position, throws: list[tuple[int, int]], script: str) -> Any:
    """An in-process session: the human on roll in ``position`` (money), fixed dice."""
    import io

    from rich.console import Console

    from backgammon.cli import PlayOptions, Reader, Session
    from backgammon.play.dice import FixedDice
    from backgammon.play.match import Match
    from backgammon.players import get

    xgid = f"XGID={position.xgid_position()}:0:0:1:00:0:0:0:0:10"
    match = Match.from_xgid(xgid, dice=FixedDice(throws))
    out = io.StringIO()
    console = Console(file=out, width=100)
    me = match.turn
    assert me is not None
    names = ("You", "Bot") if me == 0 else ("Bot", "You")
    options = PlayOptions(names=names, humans=frozenset({me}), confirm=False)
    session = Session(
        match,
        {1 - me: get("random", seed=1)},
        console,
        Reader(console, io.StringIO(script)),
        options,
    )
    return session, out


def test_a_lost_turn_is_reported_and_passes(tmp_path: Path) -> None:
    """R10/R13: on the bar, 6 and 5 cannot enter against points 19-20 closed: the turn is lost."""
    board = [0] * 26
    board[25] = 1  # our checker on the bar
    board[6], board[8], board[13] = 5, 4, 5
    for p in (19, 20):
        board[p] = -2
    board[12] = -11
    session, out = _session_from(Position(board), [(6, 5), (3, 1)], "\n")
    session.options.save_path = tmp_path / "lost.mat"
    assert session.run() == 0  # the script ends after the bot's reply: saved
    text = out.getvalue()
    assert "You roll 65 and cannot move." in text
    assert "Bot rolls 31 and plays" in text
    assert "Stopped. The match is saved in" in text


def test_closed_out_player_passes_without_a_roll(tmp_path: Path) -> None:
    """R13: on the bar against a closed board the turn passes without a roll."""
    board = [0] * 26
    board[25] = 1
    board[6], board[8], board[13] = 5, 4, 5
    for p in range(19, 25):
        board[p] = -2
    board[12] = -3
    session, out = _session_from(Position(board), [(4, 2)], "\n")
    session.options.save_path = tmp_path / "closed.mat"
    session.run()
    text = out.getvalue()
    assert "You are closed out: the turn passes without a roll." in text
    assert "Bot rolls 42 and plays" in text


def test_train_is_the_players_training_program() -> None:
    r = run_cli("train", "--help")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("usage: backgammon train") and "--games" in r.stdout


def test_distill_is_the_second_training_stage() -> None:
    r = run_cli("distill", "fit", "--help")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("usage: backgammon distill fit") and "--hidden" in r.stdout


@pytest.mark.parametrize("auto", [True, False])
def test_forced_plays_are_made_automatically_unless_turned_off(tmp_path: Path, auto: bool) -> None:
    board = [0] * 26
    board[2] = 2  # two checkers left on our 2 point: 6-5 can only bear both off
    board[12] = -15
    pos = Position(board)
    assert len(pos.legal_moves((6, 5))) == 1
    session, out = _session_from(pos, [(6, 5), (3, 1)], "\n" + ("" if auto else "1\n"))
    session.options.auto_forced = auto
    session.options.save_path = tmp_path / "f.mat"
    assert session.run() == 0
    text = out.getvalue()
    assert ("forced play: 2/off(2)" in text) == auto
    assert ("your play (65)" in text) == (not auto)
    assert "You won" in text  # a gammon (R19): the opponent has borne off nothing


class _Recorder:
    """A bot that records what the terminal asks it, to check whose side each question is on."""

    name = "recorder"

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any, Any, Any]] = []

    def choose_move(self, position: Position, dice: Any, cube: Any = None) -> Move | None:
        self.calls.append(("move", position, dice, cube))
        moves = position.legal_moves(dice)
        return moves[0] if moves else None

    def cube_action(self, position: Position, cube: Any, offered: bool = False) -> Any:
        from backgammon.players import CubeAction

        self.calls.append(("cube", position, cube, offered))
        return CubeAction.TAKE if offered else CubeAction.DOUBLE

    def accept_resignation(self, position: Position, points: int, cube: Any = None) -> bool:
        self.calls.append(("resign", position, points, cube))
        return True


def test_the_bot_is_asked_from_its_own_side(tmp_path: Path) -> None:
    """The players' convention: position and cube state from the side on roll (R20-R25)."""
    import io

    from rich.console import Console

    from backgammon.cli import PlayOptions, Reader, Session
    from backgammon.ids.gnubg import MatchIdFields, encode_match_id
    from backgammon.play.dice import FixedDice
    from backgammon.play.match import Match

    # 5-point match, score 3-1 (we lead), the bot (player 1) owns a 2-cube and is on roll,
    # in a position seen from the bot's side.
    bot_side = Position.from_position_id("4HPwATDgc/ABMA").play(
        Position.from_position_id("4HPwATDgc/ABMA").parse_move("24/18 13/8", (6, 5))
    )
    fields = MatchIdFields(
        cube_value=2, cube_owner=1, dice_owner=1, turn=1, match_length=5, score=(3, 1)
    )
    match = Match.from_gnubg_id(
        f"{bot_side.position_id()}:{encode_match_id(fields)}",
        dice=FixedDice([(3, 1), (4, 2), (5, 1), (6, 2)]),
    )
    out = io.StringIO()
    console = Console(file=out, width=100)
    bot = _Recorder()
    options = PlayOptions(
        names=("You", "Bot"), humans=frozenset({0}), confirm=False, save_path=tmp_path / "r.mat"
    )
    # The bot redoubles to 4 and we take (the cube is ours now, R25); the bot rolls 31 and
    # plays; we roll 42 and play; the bot rolls 51 and plays; we roll 62 and resign a gammon.
    script = "take\n1\nresign gammon\n"
    Session(match, {1: bot}, console, Reader(console, io.StringIO(script)), options).run()
    text = out.getvalue()
    kinds = [c[0] for c in bot.calls]
    assert kinds[:2] == ["cube", "move"], kinds
    _, position, cube, offered = bot.calls[0]
    assert position == bot_side and not offered
    assert (cube.match_length, cube.score, cube.cube_value, cube.cube_owner) == (5, (1, 3), 2, 1)
    _, position, dice, cube = bot.calls[1]
    assert position == bot_side and dice == (3, 1)
    assert (cube.score, cube.cube_value, cube.cube_owner) == ((1, 3), 4, -1)
    assert kinds[2:] == ["move", "resign"], kinds
    _, position, points, cube = bot.calls[3]
    assert points == 2 and (cube.score, cube.cube_value, cube.cube_owner) == ((3, 1), 4, 1)
    _, before, dice, _ = bot.calls[2]
    assert dice == (5, 1)
    assert position == before.play(before.legal_moves(dice)[0])  # our side, as we resigned
    assert "You offer to resign a gammon game." in text
    assert "Bot won 8 points (a gammon resigned)" in text and match.is_over

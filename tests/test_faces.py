"""Every face changes a match through :meth:`Match.apply` (issue 64, one action): each face is
run with play's one dispatch (``actions.step``) watched, and every change of a match it makes
is counted inside a ``Match.apply`` that the face itself called with an action it built
(never through a convenience method such as ``Match.roll``, never around ``apply``)."""

from __future__ import annotations

import io
import random
import sys
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from backgammon.cli import PlayOptions, Reader, Session
from backgammon.cli.handlers import play_bots
from backgammon.core.position import Position
from backgammon.env.table import Table
from backgammon.evaluation.cube import CubeAction, CubeState
from backgammon.play import actions
from backgammon.play.dice import SeededDice
from backgammon.play.match import Act, ActionKind, Match, MatchState, Phase
from backgammon.play.rules import Rules
from backgammon.players import decide, get
from backgammon.players.basic import RandomPlayer
from backgammon.protocols.answer import answer_text
from backgammon.web.service import bots as web_bots
from backgammon.web.service.game import Game
from backgammon.web.store.database import MatchRow


@dataclass
class Watch:
    """What the watched dispatch saw: the modules that called ``Match.apply`` (with what),
    the changes made inside an ``apply`` and those made outside any."""

    callers: Counter[str] = field(default_factory=Counter)
    kinds: set[ActionKind] = field(default_factory=set)
    inside: int = 0
    outside: int = 0
    _depth: int = 0


@pytest.fixture
def watch(monkeypatch: pytest.MonkeyPatch) -> Iterator[Watch]:
    """``Match.apply`` and ``actions.step`` (the state's one change) wrapped to count."""
    w = Watch()
    real_apply, real_step = Match.apply, actions.step

    def apply(self: Match, a: Any) -> Any:
        w.callers[sys._getframe(1).f_globals["__name__"]] += 1
        w._depth += 1
        try:
            return real_apply(self, a)
        finally:
            w._depth -= 1

    def step(s: MatchState, a: Act, source: Any = None) -> MatchState:
        w.kinds.add(a.kind)
        if w._depth:
            w.inside += 1
        else:
            w.outside += 1
        return real_step(s, a, source)

    monkeypatch.setattr(Match, "apply", apply)
    monkeypatch.setattr(actions, "step", step)
    yield w


class _Doubler(RandomPlayer):
    """A random player that doubles whenever it may and takes or passes at random, so the
    cube's actions are made too."""

    def cube_action(self, position: Position, cube: CubeState, offered: bool = False) -> CubeAction:
        if not offered:
            return CubeAction.DOUBLE
        return self._rng.choice((CubeAction.TAKE, CubeAction.PASS))


def _only(w: Watch, faces: Sequence[str]) -> None:
    """Every change was made inside an ``apply`` called by one of ``faces``."""
    assert w.outside == 0
    assert w.inside == sum(w.callers.values()) > 0
    assert set(w.callers) <= set(faces), w.callers


def test_the_terminal_s_bots_act_through_apply(watch: Watch) -> None:
    m = play_bots((_Doubler(1), _Doubler(2)), 3, 5, ("a", "b"))
    assert m.is_over
    _only(watch, ["backgammon.cli.session", "backgammon.cli.state"])
    assert {ActionKind.DOUBLE, ActionKind.MOVE, ActionKind.ROLL} <= watch.kinds


def test_the_terminal_s_commands_act_through_apply(watch: Watch, tmp_path: Path) -> None:
    """A person doubles, plays by the number of a listed play and resigns a gammon, which
    the bot accepts: each command an act the session applies."""
    m = Match(rules=Rules.money(), dice=SeededDice(3))
    console = Console(file=io.StringIO(), width=100)
    options = PlayOptions(
        names=("You", "Bot"), humans=frozenset({0}), confirm=False, save_path=tmp_path / "m.mat"
    )
    script = "double\n1\n1\n1\nresign gammon\n"
    reader = Reader(console, io.StringIO(script))
    Session(m, {1: get("random", seed=1)}, console, reader, options).run()
    assert m.score == (0, 4)  # a gammon resigned at a cube of 2, taken by the bot
    _only(watch, ["backgammon.cli.session", "backgammon.cli.state"])
    assert {ActionKind.DOUBLE, ActionKind.TAKE, ActionKind.RESIGN, ActionKind.ACCEPT} <= (
        watch.kinds
    )


def test_the_environment_acts_through_apply(watch: Watch) -> None:
    """Episodes of random legal numbers and of a bot: every number an act on the match."""
    table = Table(cube=True, match_length=3)
    rng = random.Random(4)
    for seed in range(3):
        table.reset(seed)
        while not table.done:
            if seed == 2:
                table.play_bot(_Doubler(seed))
            else:
                table.step(rng.choice(table.legal_actions()))
    _only(watch, ["backgammon.env.table"])
    assert {ActionKind.DOUBLE, ActionKind.MOVE, ActionKind.ROLL} <= watch.kinds
    assert watch.kinds & {ActionKind.TAKE, ActionKind.DROP}


def test_the_web_acts_through_apply(watch: Watch, monkeypatch: pytest.MonkeyPatch) -> None:
    """A web match played out by its seats' requests (the bots' as the server makes them),
    a resignation rejected on the way: each request is made an act once and applied."""
    row = MatchRow("m", 0.0, 3, None, None, ("a", "b"), "00" * 32, "c", ("A", "B"))
    game = Game(row)
    for k in (0, 1):
        monkeypatch.setitem(web_bots._made, (f"seat{k}", ()), _Doubler(7 + k))
    resigned = False
    while not game.is_over:
        seat = game.actor() or 0  # either seat may throw the opening roll
        if not resigned and game.match.phase is Phase.ROLL:
            game.apply(seat, {"action": "resign", "level": "single"})
            game.apply(1 - seat, {"action": "reject"})
            resigned = True
            continue
        game.apply(seat, web_bots.bot_action(f"seat{seat}", game))
    _only(watch, ["backgammon.web.service.game"])
    assert {ActionKind.RESIGN, ActionKind.REJECT, ActionKind.DOUBLE} <= watch.kinds
    replayed = Game.replay(row, game.actions)  # what is stored makes the same match
    assert replayed.match.state == game.match.state


def test_a_bot_s_decision_is_an_act_and_changes_nothing(watch: Watch) -> None:
    """The players' driver and the protocols' answers (gnubg's external player, UBGI)
    decide without changing the match; the decision is an act any face applies."""
    m = Match(length=3, dice=SeededDice(2))
    bot = _Doubler(3)
    while not m.is_over:
        before, changes = m.state, watch.inside + watch.outside
        d = decide(bot, m)
        answer_text(bot, m)
        answer_text(bot, m, plain=True)
        assert isinstance(d, Act) and m.state == before
        assert watch.inside + watch.outside == changes
        m.apply(d)
    _only(watch, [__name__])

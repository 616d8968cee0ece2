"""The one action value, :class:`Act`, and the one place a match changes, :meth:`Match.apply`:
what it makes, what it refuses, and (by reading the package's source) that every face and
every convenience method goes through it."""

from __future__ import annotations

import ast
import random
from functools import partial
from pathlib import Path

import pytest
from matchhelp import board, match_at, refused

from backgammon import GameResult
from backgammon.play.actions import Act, act_of, thrown
from backgammon.play.dice import FixedDice, SeededDice
from backgammon.play.match import (
    ActionKind,
    GameEnd,
    GameStart,
    IllegalActionError,
    Match,
    NotYourTurnError,
    OpeningRoll,
    Pass,
    Phase,
    ResignationError,
    Roll,
)
from backgammon.play.rules import Rules

PACKAGE = Path(__file__).resolve().parents[2] / "backgammon"

TRANSITIONS = {
    "roll",
    "move",
    "double",
    "take",
    "drop",
    "beaver",
    "raccoon",
    "resign",
    "accept_resignation",
    "reject_resignation",
}
"""The state functions that change a match (backgammon/play/state.py)."""


def test_an_act_is_a_value_checked_when_it_is_made() -> None:
    roll = Act("roll", dice=[3, 1])  # type: ignore[arg-type]  # a kind's name is read
    assert roll == Act(ActionKind.ROLL, dice=(3, 1)) and roll.kind is ActionKind.ROLL
    assert hash(roll) == hash(Act(ActionKind.ROLL, dice=(3, 1)))
    assert Act(ActionKind.MOVE, [[8, 5], [6, 5]]).move == ((8, 5), (6, 5))
    resign = Act(ActionKind.RESIGN, player=1, level="gammon")
    assert repr(resign) == "Act('resign', player=1, level='gammon')"
    with pytest.raises(IllegalActionError, match="not an action"):
        Act("sing")  # type: ignore[arg-type]


def test_a_roll_without_dice_throws_from_the_match_s_source() -> None:
    m = Match(length=3, dice=FixedDice([(3, 1), (5, 2)]))
    assert m.apply(Act(ActionKind.ROLL)) == (OpeningRoll(3, 1),)
    m.move("8/5 6/5")
    made = m.apply(Act(ActionKind.ROLL))
    assert made == (Roll(1, (5, 2)),) and thrown(made) == (5, 2)
    assert m.phase is Phase.MOVE


def test_an_act_s_dice_are_used_and_none_thrown() -> None:
    m = Match(length=3, dice=FixedDice(()))  # a throw drawn from it would raise
    assert thrown(m.apply(Act(ActionKind.ROLL, dice=(6, 4)))) == (6, 4)
    assert m.on_roll == 0 and m.dice == (6, 4)


def test_a_refused_act_changes_nothing() -> None:
    m = Match(length=3, dice=FixedDice([(3, 1)]))
    m.roll()
    refused(m, lambda: m.apply(Act(ActionKind.MOVE, "8/5 6/5", player=1)), NotYourTurnError)
    refused(m, lambda: m.apply(Act(ActionKind.DOUBLE)), IllegalActionError)
    refused(m, lambda: m.apply("roll"), IllegalActionError)  # type: ignore[arg-type]
    refused(m, lambda: m.apply(GameStart(1, (0, 0), False)), IllegalActionError)


def test_a_pass_is_refused_unless_the_player_on_roll_is_closed_out() -> None:
    m = Match(length=3, dice=SeededDice(1))
    refused(m, lambda: m.apply(Pass(0)), IllegalActionError)  # at the opening too
    pos = board({25: 1, 6: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 13: 3})
    closed = match_at(pos, rules=Rules(match_length=5), dice=[])
    assert act_of(closed.state, Pass(1)) == Act(ActionKind.ROLL, player=1)
    assert closed.apply(Pass(1)) == (Pass(1),)


@pytest.mark.parametrize("seed", range(6))
def test_the_convenience_methods_and_act_are_apply(seed: int) -> None:
    """Two money sessions with the same dice, one played through the named methods, one by
    applying acts (and a third by its record entries): the same states all along."""
    rules = Rules(match_length=None, beavers=True, jacoby=True)
    named = Match(rules=rules, dice=SeededDice(seed))
    acted = Match(rules=rules, dice=SeededDice(seed))
    rng = random.Random(seed)
    methods = {
        ActionKind.DOUBLE: named.double,
        ActionKind.TAKE: named.take,
        ActionKind.DROP: named.drop,
        ActionKind.BEAVER: named.beaver,
        ActionKind.RACCOON: named.raccoon,
        ActionKind.ACCEPT: named.accept_resignation,
        ActionKind.REJECT: named.reject_resignation,
    }
    for _ in range(400):
        kinds = named.legal_actions()
        if not kinds:
            break
        kind = rng.choice([k for k in kinds if k is not ActionKind.RESIGN or rng.random() < 0.2])
        if kind is ActionKind.ROLL:
            assert named.roll() == thrown(acted.apply(Act(kind)))
        elif kind is ActionKind.MOVE:
            play = rng.choice(named.legal_moves())
            named.move(play)
            acted.act("move", play=play)
        elif kind is ActionKind.RESIGN:  # perhaps one the rules refuse: both refuse it
            level = rng.choice(list(GameResult))
            act = Act(ActionKind.RESIGN, level=level)
            try:
                named.resign(level)
            except ResignationError:
                refused(acted, partial(acted.apply, act), ResignationError)
            else:
                acted.apply(act)
        else:
            methods[kind]()
            acted.apply(Act(kind))
        assert named.state == acted.state
    assert named.game_number > 1
    replayed = Match(rules=rules, dice=FixedDice(()))  # each entry brings its dice
    for i, entry in enumerate(named.record.actions()):
        done = sum(len(g) for g in replayed.record.games)  # what the match made itself
        if i >= done and not isinstance(entry, (GameStart, GameEnd)):
            assert replayed.apply(entry)[0] == entry
    assert replayed.state == named.state


# ------------------------------------------------------------------ one place of change
def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text("utf-8"))


def _imported(tree: ast.Module) -> set[tuple[str, str]]:
    """(module, name) of every ``from backgammon... import name``, lazy ones included."""
    out: set[tuple[str, str]] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("backgammon"):
            out.update((node.module or "", a.name) for a in node.names)
        elif isinstance(node, ast.Import):
            out.update((a.name, "") for a in node.names)
    return out


def test_outside_play_no_module_changes_a_state_but_through_match_apply() -> None:
    """The state's transitions and the dispatch that makes them are play's own: no module
    above it imports them (at module level or inside a function), so a match changes only
    through Match; the dispatch's readers (``Act``, ``thrown``, ``entries_since``) are free."""
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.parent.name == "play":
            continue
        for module, name in _imported(_tree(path)):
            if (
                (module == "backgammon.play.state" and name in TRANSITIONS)
                or (module == "backgammon.play.actions" and name in {"step", "apply", "extend"})
                or (module == "backgammon.play" and name in {"state", "actions"})
                or (module in {"backgammon.play.state", "backgammon.play.actions"} and not name)
            ):
                offenders.append(f"{path.relative_to(PACKAGE)}: {module}.{name}")
    assert offenders == []


def test_in_play_the_transitions_are_called_by_the_dispatch_alone() -> None:
    callers = set()
    for path in sorted((PACKAGE / "play").glob("*.py")):
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.Call):
                f = node.func
                name = f.id if isinstance(f, ast.Name) else None
                if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name):
                    name = f.attr if f.value.id in {"ms", "state"} else None
                if name in TRANSITIONS:
                    callers.add(path.name)
    assert callers == {"actions.py"}


def _match_methods() -> dict[str, ast.FunctionDef]:
    tree = _tree(PACKAGE / "play" / "match.py")
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Match")
    return {n.name: n for n in cls.body if isinstance(n, ast.FunctionDef)}


def test_match_changes_its_state_in_apply_and_extend_alone() -> None:
    """Besides making a match (``__init__``, ``_resume``), the state is set by ``apply``
    and by ``extend`` (a record checked entry by entry through the same dispatch)."""
    setters = set()
    for name, fn in _match_methods().items():
        for node in ast.walk(fn):
            targets = node.targets if isinstance(node, ast.Assign) else []
            if any(isinstance(t, ast.Attribute) and t.attr == "_s" for t in targets):
                setters.add(name)
    assert setters == {"__init__", "_resume", "apply", "extend"}


@pytest.mark.parametrize("name", [*sorted(TRANSITIONS), "act"])
def test_each_convenience_method_is_one_statement_over_apply(name: str) -> None:
    fn = _match_methods()[name]
    body = [
        s for s in fn.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
    ]
    calls = [
        n
        for n in ast.walk(body[0])
        if isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and isinstance(n.func.value, ast.Name)
        and n.func.value.id == "self"
    ]
    assert len(body) == 1 and [c.func.attr for c in calls] == ["apply"]  # type: ignore[attr-defined]

"""A bounded, seeded fuzz of every :class:`Match` action in every phase, well typed or not.

Random matches and money sessions (Crawford, Jacoby, beavers, raccoons, automatic doubles,
cube limits) are played, and at every step random attempts are thrown at them: rolls with
good and bad dice, plays as moves, steps, text or garbage, every cube and resignation action
with any player and level, ``extend``/``apply`` with recorded, mutated and garbage actions,
and ``from_gnubg_id``/``from_xgid`` with the match's own IDs, mutated ones and junk.

An accepted attempt must leave a consistent match (its IDs decode, :meth:`Match.legal_actions`
is truthful, no two passes in a row); a refused one must raise a specific ``ValueError``
subclass (never ``ValueError`` itself, never another type) with a message, within a second,
and change nothing.  The whole file runs in well under 30 s.
"""

from __future__ import annotations

import copy
import dataclasses
import itertools
import random
import time
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from matchhelp import act, board, match_at

from backgammon import GameResult, Move
from backgammon.ids.gnubg import decode_match_id
from backgammon.ids.xgid import parse_xgid
from backgammon.play.dice import SeededDice
from backgammon.play.match import (
    Accept,
    Action,
    ActionKind,
    Beaver,
    Double,
    Drop,
    GameEnd,
    GameStart,
    Match,
    MatchRecord,
    OpeningRoll,
    Pass,
    Phase,
    Play,
    Raccoon,
    Reject,
    Resign,
    Roll,
    Take,
)
from backgammon.play.rules import Rules

RULES = [
    Rules(match_length=1),
    Rules(match_length=3),
    Rules(match_length=5, crawford=False),
    Rules(match_length=7, max_cube=4),
    Rules.money(),
    Rules.money(jacoby=True, beavers=True),
    Rules.money(beavers=True, raccoons=True, automatic_doubles=2, max_cube=256),
    Rules.money(max_cube=1),
]

PLAYERS: list[object] = [None, None, None, 0, 1, 0, 1, 2, -1, True, False, "0", 0.0, 1.5, []]
DICE: list[object] = [
    (0, 1), (7, 1), (1.0, 2), (True, 1), (1, 2, 3), (1,), "12", b"12", "", None, 12, {1, 2},
    [3, 3], (2**70, 1), (-1, 1), (float("nan"), 1), object(), ("3", "1"),
]  # fmt: skip
LEVELS: list[object] = [
    "single", "gammon", "backgammon", " Gammon ", "GAMMON", 1, 2, 3, GameResult.GAMMON, 0, 4,
    -1, 2.5, 1.0, True, None, "x", "", [], "２", 2**100, b"single", object(),
]  # fmt: skip
PLAYS: list[object] = [
    123, None, "", "garbage", "8/5 6/5", "bar/off", "25/off(4)", "6/off*", b"8/5", Move(),
    [("a", "b", False)], [(1,)], [(25, 0)], [[8, 5, True], [6, 5]], [(8.0, 5)], [(True, 0)],
    [(2**70, 5)], [(-1, 3)], [(8, 5), (6, 5), (13, 10), (10, 7), (1, 0)], object(), {"a": 1},
    [None], "8/5 6/5 extra", "٨/٥ ٦/٥", "８/５",
]  # fmt: skip
ID_JUNK = [
    "", ":", "²", "é" * 27, "\x00", "XGID=", "GNUbgID ", "4HPwATDgc/ABMA", " " * 3,
    "27YBANC2bQAABA:cAkAAAAAAAAA",  # both players on the bar against closed boards
    "27YBBwDg/wcAQA:QYmqAAAAAAAE",  # dice rolled that cannot be played
    "4HPwATDgc/ABMA:cIkKAAAAAA==", "4HPwATDgc/ABMA:cIkKAAAAAAAA:", "4HPwATDgc/AB!A:cIkKAAAAAAAA",
]  # fmt: skip
XGID_FIELDS = ["", "-1", "99", "²", "5²", "²²", "٣", "٣٣", "1_0", "+1", " 1", "0x1", "1e3", "D",
               "B", "R", "00", "66", "70", "abc", "3", "0", "1", "2", "64", "65", "16", "32768",
               "9" * 5000]  # fmt: skip
B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
KINDS = [str(kind) for kind in ActionKind]
STEPS = 400  # legal actions per random match (a few hundred attempts of every kind each)


def _closed_out_match(index: int) -> Match:
    """A match at a player on the bar against a closed board (rare in random play)."""
    closed = board({25: 1, 6: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 13: 3})
    m = [
        lambda: match_at(closed, rules=Rules(match_length=5)),
        lambda: match_at(closed, rules=Rules(match_length=5), cube=2, owner=0),
        lambda: match_at(closed, rules=Rules.money(jacoby=True, beavers=True, raccoons=True)),
        lambda: match_at(
            board({25: 2, 6: 13}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 13: 3}), on_roll=0
        ),
    ][index]()
    m.dice_source = SeededDice(index)
    return m


# ------------------------------------------------------------------------------ checks
def _look(m: Match) -> tuple[object, ...]:
    """What must not change when an action is refused."""
    count = m.dice_source.count if isinstance(m.dice_source, SeededDice) else None
    return (
        m.state,
        m.record,
        m.gnubg_id(),
        m.xgid(),
        m.phase,
        m.score,
        len(list(m.record.actions())),
        count,
    )


def _consistent(m: Match) -> None:
    """An accepted action left a match whose IDs decode and whose record is sane."""
    decode_match_id(m.gnubg_id().split(":")[1])
    parse_xgid(m.xgid())
    game = m.record.games[-1]
    assert not any(isinstance(a, Pass) and isinstance(b, Pass) for a, b in itertools.pairwise(game))
    assert m.is_over or m.legal_actions()


def _truthful(m: Match, rng: random.Random) -> None:
    """Every action :meth:`Match.legal_actions` lists succeeds (tried on copies)."""
    for kind in m.legal_actions():
        c = copy.copy(m)
        if kind == "roll":
            c.roll((rng.randint(1, 6), rng.randint(1, 6)))
        elif kind == "move":
            moves = c.legal_moves()
            c.move(rng.choice(moves) if moves else Move())
        elif kind == "resign":
            c.resign("backgammon")
        elif kind == "accept":
            c.accept_resignation()
        elif kind == "reject":
            c.reject_resignation()
        else:
            getattr(c, kind)()
        _consistent(c)


def attempt(m: Match, what: str, action: Callable[[], object]) -> bool:
    """Run ``action``; True if accepted.  A refusal must be specific, quick and harmless."""
    before = _look(m)
    start = time.process_time()
    try:
        action()
    except ValueError as exc:
        elapsed = time.process_time() - start
        assert type(exc) is not ValueError, f"{what}: plain ValueError {exc}"
        assert str(exc), f"{what}: {type(exc).__name__} without a message"
        assert elapsed < 1.0, f"{what}: refused after {elapsed:.1f} s"
        assert _look(m) == before, f"{what}: refused ({exc!r}) but the match changed"
        return False
    except Exception as exc:  # pragma: no cover - a failure
        raise AssertionError(f"{what}: {type(exc).__name__}: {exc}") from exc
    assert time.process_time() - start < 1.0, f"{what}: took over a second"
    _consistent(m)
    return True


def made(what: str, load: Callable[[], Match], rng: random.Random) -> Match | None:
    """A match made from an ID or a record: refused specifically, or accepted and playable."""
    start = time.process_time()
    try:
        m = load()
    except ValueError as exc:
        assert type(exc) is not ValueError, f"{what}: plain ValueError {exc}"
        assert str(exc), f"{what}: {type(exc).__name__} without a message"
        assert time.process_time() - start < 1.0, what
        return None
    except Exception as exc:  # pragma: no cover - a failure
        raise AssertionError(f"{what}: {type(exc).__name__}: {exc}") from exc
    _consistent(m)
    _truthful(m, rng)
    return m


# ------------------------------------------------------------------------------ attempts
def _pick(rng: random.Random, pool: list[object]) -> object:
    return pool[rng.randrange(len(pool))]


def _call(m: Match, rng: random.Random) -> tuple[str, Callable[[], object]]:
    """A random action method call, good or bad."""
    kind = rng.choice(KINDS)
    player = _pick(rng, PLAYERS)
    kw: dict[str, Any] = {} if player is None and rng.random() < 0.5 else {"player": player}
    if kind == "roll":
        dice = (rng.randint(1, 6), rng.randint(1, 6)) if rng.random() < 0.5 else _pick(rng, DICE)
        args: tuple[object, ...] = (dice,)
    elif kind == "move":
        args = (_play(m, rng),)
    elif kind == "resign":
        args = (_pick(rng, LEVELS),) if rng.random() < 0.9 else ()
    else:
        args = ()
    name = {"accept": "accept_resignation", "reject": "reject_resignation"}.get(kind, kind)
    method = getattr(m, name)
    return f"{name}{args!r} {kw}", lambda: method(*args, **kw)


def _play(m: Match, rng: random.Random) -> object:
    moves = m.legal_moves()
    r = rng.random()
    if moves and r < 0.4:
        mv = rng.choice(moves)
        form = rng.randrange(4)
        if form == 0:
            return mv
        if form == 1:
            return str(mv)
        if form == 2:
            return [tuple(s) for s in mv]
        return [(s[0], s[1]) for s in reversed(list(mv))]
    if r < 0.5:
        return [(rng.randint(-2, 27), rng.randint(-2, 27)) for _ in range(rng.randint(0, 5))]
    return _pick(rng, PLAYS)


GARBAGE_ACTIONS: list[object] = [
    None, 1, "Roll", Roll(0, None), Play(0, None), Play(0, "8/5 6/5"), Resign(0, 2.5),  # type: ignore[arg-type]
    Resign(1, "x"), OpeningRoll(7, 1), OpeningRoll(3, "1"), Roll("0", (3, 1)),  # type: ignore[arg-type]
    GameStart(1, (0, 0), False), GameEnd(0, 1, GameResult.SINGLE, "played"),  # type: ignore[arg-type]
    Pass(0), Pass(1), Double(0, 2), Take(1, 2), Drop(1), Beaver(1, 4), Raccoon(0, 8), Accept(0),
    Reject(1), Resign(0, GameResult.SINGLE), Play(1, [(8, 5), (6, 5)]), Roll(0, [3, 1]),  # type: ignore[arg-type]
    Play(0, 123), Double(None, 2), Roll(True, (3, 1)), object(),  # type: ignore[arg-type]
]  # fmt: skip


def _mutate_action(a: Action, rng: random.Random) -> object:
    fields = dataclasses.fields(a)
    f = rng.choice(fields)
    value = rng.choice(
        [None, 0, 1, 2, -1, "x", 2.5, (3, 1), (6, 6), (0, 7), Move(), True, GameResult.GAMMON]
    )
    return dataclasses.replace(a, **{f.name: value})


def _extend_attempt(m: Match, rng: random.Random) -> None:
    """``extend`` with the real continuation of the match, mutated or not, or with junk."""
    shadow = Match.replay(m.record, dice=SeededDice(rng.randrange(2**32)))
    for _ in range(rng.randint(1, 12)):
        if shadow.is_over:
            break
        act(shadow, rng)
    todo: list[object] = list(shadow.record.actions())[len(list(m.record.actions())) :]
    mutated = rng.random() < 0.7
    if mutated and todo:
        i = rng.randrange(len(todo))
        r = rng.random()
        if r < 0.4:
            todo[i] = _mutate_action(todo[i], rng)  # type: ignore[arg-type]
        elif r < 0.7:
            todo.insert(i, _pick(rng, GARBAGE_ACTIONS))
        elif r < 0.85:
            del todo[i]
        else:
            todo = todo[:i]
    elif mutated:
        todo = [_pick(rng, GARBAGE_ACTIONS)]
    arg: object = todo
    if rng.random() < 0.05:
        arg = rng.choice([None, 5, "abc", iter(todo), tuple(todo)])
    if attempt(m, f"extend({arg!r})", lambda: m.extend(arg)) and not mutated:  # type: ignore[arg-type]
        assert m.state == shadow.state
    if todo:
        a = todo[0]
        attempt(m, f"apply({a!r})", lambda: m.apply(a))  # type: ignore[arg-type]


def _replay_attempt(m: Match, rng: random.Random) -> None:
    """``Match.replay`` of the match's record, mutated or not."""
    record = m.record
    games = [list(g) for g in record.games]
    g = rng.randrange(len(games))
    if games[g] and rng.random() < 0.8:
        i = rng.randrange(len(games[g]))
        if rng.random() < 0.5:
            games[g][i] = _mutate_action(games[g][i], rng)  # type: ignore[arg-type]
        else:
            games[g].insert(i, _pick(rng, GARBAGE_ACTIONS))  # type: ignore[arg-type]
    bad = MatchRecord(record.rules, tuple(tuple(x) for x in games), record.start)
    got = made(f"replay({bad!r})", lambda: Match.replay(bad, dice=SeededDice(3)), rng)
    if got is not None and bad == record:
        assert got.state == m.state


def _mutate_text(text: str, rng: random.Random, alphabet: str) -> str:
    chars = list(text)
    for _ in range(rng.randint(1, 3)):
        r = rng.random()
        i = rng.randrange(len(chars) + 1)
        if r < 0.6 and i < len(chars):
            chars[i] = rng.choice(alphabet)
        elif r < 0.8:
            chars.insert(i, rng.choice(alphabet + "²é\x00 "))
        elif chars:
            del chars[min(i, len(chars) - 1)]
    return "".join(chars)


def _id_attempts(m: Match, rng: random.Random) -> Match | None:
    """Load the match's own IDs, mutated IDs and junk; returns a loaded match to go on with."""
    gid, xgid = m.gnubg_id(), m.xgid()
    rules: object = m.rules if rng.random() < 0.5 else None
    if rng.random() < 0.05:
        rules = rng.choice(["x", 3, Rules(match_length=9), Rules.money(beavers=True)])
    texts: list[object] = [gid, _mutate_text(gid, rng, B64), _pick(rng, ID_JUNK)]
    if rng.random() < 0.1:
        texts.append(rng.choice([None, 123, gid.encode(), [gid]]))
    out = None
    for t in texts:
        got = made(
            f"from_gnubg_id({t!r}, rules={rules!r})",
            lambda t=t: Match.from_gnubg_id(t, rules=rules, dice=SeededDice(1)),  # type: ignore[misc]
            rng,
        )
        assert got is not None or t != gid or rules is not m.rules, f"{gid} does not load"
        out = out or got
    fields = xgid.split(":")
    fields[rng.randrange(len(fields))] = str(_pick(rng, XGID_FIELDS))  # type: ignore[arg-type]
    for t in [xgid, ":".join(fields), _mutate_text(xgid, rng, "-ABCDEabcde0123456789:"), "²"]:
        got = made(
            f"from_xgid({t!r}, rules={rules!r})",
            lambda t=t: Match.from_xgid(t, rules=rules, dice=SeededDice(2)),  # type: ignore[misc]
            rng,
        )
        assert got is not None or t != xgid or rules is not m.rules, f"{xgid} does not load"
        out = out or got
    return out


def _episode(m: Match, rng: random.Random, steps: int) -> set[Phase]:
    phases = set()
    for step in range(steps):
        phases.add(m.phase)
        _truthful(m, rng)
        for _ in range(3):
            what, action = _call(m, rng)
            attempt(m, what, action)
        if step % 8 == 0:
            _extend_attempt(m, rng)
        if step % 25 == 0:
            _replay_attempt(m, rng)
        if step % 6 == 0:
            other = _id_attempts(m, rng)
            if other is not None and rng.random() < 0.2:
                m = other
        if m.is_over:
            break
        act(m, rng)
    phases.add(m.phase)
    for _ in range(30):  # the last state too (a won match takes nothing more)
        what, action = _call(m, rng)
        attempt(m, what, action)
    assert Match.replay(m.record).state == m.state
    return phases


# ------------------------------------------------------------------------------ tests
@pytest.mark.parametrize("seed", range(len(RULES) * 3))
def test_fuzz_every_action_in_every_phase(seed: int) -> None:
    rng = random.Random(seed)
    rules = RULES[seed % len(RULES)]
    m = Match(rules=rules, dice=SeededDice(seed))
    _episode(m, rng, STEPS)


@pytest.mark.parametrize("index", range(4))
def test_fuzz_closed_out_players(index: int) -> None:
    rng = random.Random(100 + index)
    _episode(_closed_out_match(index), rng, 30)


@settings(max_examples=400, deadline=None, derandomize=True)
@given(
    st.one_of(
        st.text(max_size=40),
        st.text(alphabet=B64 + ":", min_size=20, max_size=30),
        st.text(alphabet="-ABCDEFabcdef0123456789:²٣", min_size=30, max_size=60),
        st.binary(max_size=30),
        st.integers(),
        st.none(),
    )
)
def test_fuzz_ids_from_any_text(text: object) -> None:
    rng = random.Random(0)
    made(f"from_gnubg_id({text!r})", lambda: Match.from_gnubg_id(text), rng)  # type: ignore[arg-type]
    made(f"from_xgid({text!r})", lambda: Match.from_xgid(text), rng)  # type: ignore[arg-type]


def test_fuzz_reaches_every_phase() -> None:
    # The attempts above are thrown at every phase: resignations are made likely here.
    seen: set[Phase] = set()
    for seed in range(6):
        rng = random.Random(1000 + seed)
        m = Match(rules=RULES[seed], dice=SeededDice(seed))
        for _ in range(40):
            seen.add(m.phase)
            what, action = _call(m, rng)
            attempt(m, what, action)
            if m.is_over:
                break
            if "resign" in m.legal_actions() and rng.random() < 0.2:
                m.resign(rng.choice(["single", "gammon", "backgammon"][m.state.declined :]))
            else:
                act(m, rng)
        seen.add(m.phase)
    assert seen == set(Phase)

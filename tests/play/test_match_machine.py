"""Hypothesis state machines over whole matches and money sessions.

``LegalPlay`` plays random legal actions and checks the invariants after every one: scores
only grow, the cube is a power of two within the maximum, at most one Crawford game (R28),
the record replays to the same state, Match ID and XGID round-trip.  ``IllegalAttempts``
throws random actions (most of them illegal) and checks that each refused one leaves the
match exactly as it was, and that :meth:`Match.legal_actions` says exactly what succeeds.
"""

from __future__ import annotations

import random

from hypothesis import HealthCheck, event, settings
from hypothesis import Phase as HPhase
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)
from matchhelp import act, snapshot

from backgammon import Move
from backgammon.play.dice import SeededDice
from backgammon.play.match import ActionKind, GameStart, Match, MatchOverError, Phase
from backgammon.play.rules import Rules

RULES = st.one_of(
    st.builds(
        Rules,
        match_length=st.integers(1, 9),
        crawford=st.booleans(),
        max_cube=st.sampled_from([1, 2, 4, 64]),
    ),
    st.builds(
        Rules.money,
        jacoby=st.booleans(),
        beavers=st.booleans(),
        automatic_doubles=st.integers(0, 3),
        max_cube=st.sampled_from([1, 8, 64, 4096]),
    ),
    st.builds(Rules.money, beavers=st.just(True), raccoons=st.just(True)),
)

# Shrinking whole matches takes minutes; a failure prints its steps unshrunk instead.
SETTINGS = settings(
    max_examples=40,
    stateful_step_count=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    phases=[HPhase.explicit, HPhase.reuse, HPhase.generate],
)


def _sorted(dice: tuple[int, int] | None) -> tuple[int, ...] | None:
    return None if dice is None else tuple(sorted(dice))


class LegalPlay(RuleBasedStateMachine):
    """Random legal actions through whole matches and money sessions."""

    m: Match
    last_score: tuple[int, int]

    @initialize(rules=RULES, seed=st.integers(0, 2**32))
    def start(self, rules: Rules, seed: int) -> None:
        self.m = Match(rules=rules, dice=SeededDice(seed))
        self.last_score = (0, 0)
        self.rng = random.Random(seed)
        self.shadow = Match(rules=rules)
        self.seen = len(self.shadow.record.games[0])

    @precondition(lambda self: not self.m.is_over)
    @rule()
    def one_action(self) -> None:
        act(self.m, self.rng)

    @precondition(lambda self: not self.m.is_over)
    @rule(n=st.integers(1, 80))
    def many_actions(self, n: int) -> None:
        game = self.m.game_number
        for _ in range(n):
            if self.m.is_over or self.m.game_number != game:
                break
            act(self.m, self.rng)

    @precondition(lambda self: not self.m.is_over)
    @rule(dice=st.tuples(st.integers(1, 6), st.integers(1, 6)))
    def roll_given_dice(self, dice: tuple[int, int]) -> None:
        if "roll" in self.m.legal_actions():
            self.m.roll(dice)

    def teardown(self) -> None:
        assert Match.replay(self.m.record).state == self.m.state
        r = self.m.rules
        kind = "money" if r.is_money else "match"
        event(f"{kind}: {'won' if self.m.is_over else 'unfinished'}")
        event(f"games played: {min(self.m.game_number, 5)}{'+' if self.m.game_number > 5 else ''}")

    @precondition(lambda self: self.m.is_over)
    @rule()
    def nothing_more_after_the_match(self) -> None:
        before = snapshot(self.m)
        for name in ("roll", "double", "take", "drop", "resign", "accept_resignation"):
            try:
                getattr(self.m, name)()
            except MatchOverError:
                pass
            else:  # pragma: no cover - a failure
                raise AssertionError(f"{name} was allowed after the match")
        assert snapshot(self.m) == before

    @invariant()
    def scores_only_grow(self) -> None:
        s0, s1 = self.m.score
        assert s0 >= self.last_score[0] and s1 >= self.last_score[1]
        self.last_score = (s0, s1)

    @invariant()
    def cube_is_a_power_of_two_within_the_maximum(self) -> None:
        v = self.m.cube_value
        assert v >= 1 and v & (v - 1) == 0
        assert v <= self.m.rules.max_cube

    @invariant()
    def at_most_one_crawford_game(self) -> None:
        starts = [g[0] for g in self.m.record.games]
        assert all(isinstance(s, GameStart) for s in starts)
        crawford = [s for s in starts if isinstance(s, GameStart) and s.crawford]
        assert len(crawford) <= 1
        r = self.m.rules
        if r.is_money or not r.crawford:
            assert not crawford

    @invariant()
    def match_over_exactly_when_a_score_reaches_the_length(self) -> None:
        n = self.m.rules.match_length
        reached = n is not None and max(self.m.score) >= n
        assert self.m.is_over == reached
        assert (self.m.winner is not None) == reached

    @invariant()
    def record_replays_to_the_same_state(self) -> None:
        # Incrementally (a full replay at every step would be quadratic): the shadow match
        # is fed the new record entries and must reach the same state; teardown replays the
        # whole record once more.
        games = self.m.record.games
        new = [a for g in games for a in g][self.seen :]
        self.shadow.extend(new)
        self.seen += len(new)
        assert self.shadow.state == self.m.state

    @invariant()
    def ids_round_trip(self) -> None:
        m = self.m
        gid = m.gnubg_id()
        back = Match.from_gnubg_id(gid, rules=m.rules)
        assert back.gnubg_id() == gid
        if m.phase is not Phase.OPENING:
            # gnubg IDs keep the dice larger first
            assert (back.turn, back.phase, back.score, _sorted(back.dice), back.position) == (
                m.turn,
                m.phase,
                m.score,
                _sorted(m.dice),
                m.position,
            )
            assert (back.cube_value, back.cube_owner, back.is_crawford_game) == (
                m.cube_value,
                m.cube_owner,
                m.is_crawford_game,
            )
        x = m.xgid()
        xb = Match.from_xgid(x, rules=m.rules)
        assert xb.xgid() == x
        if m.phase not in (Phase.OPENING, Phase.RESIGNED, Phase.OVER):
            assert (xb.turn, xb.phase, xb.score, xb.dice, xb.position, xb.cube_value) == (
                m.turn,
                m.phase,
                m.score,
                m.dice,
                m.position,
                m.cube_value,
            )
            # (a resignation just declined is not in an XGID, so "resign" may differ)
            assert [a for a in xb.legal_actions() if a != "resign"] == [
                a for a in m.legal_actions() if a != "resign"
            ]


TestLegalPlay = LegalPlay.TestCase
TestLegalPlay.settings = SETTINGS


ATTEMPTS = [str(kind) for kind in ActionKind]


class IllegalAttempts(RuleBasedStateMachine):
    """Random (mostly illegal) actions: refused ones change nothing."""

    m: Match

    @initialize(rules=RULES, seed=st.integers(0, 2**32))
    def start(self, rules: Rules, seed: int) -> None:
        self.m = Match(rules=rules, dice=SeededDice(seed))
        self.rng = random.Random(seed)

    @rule()
    def advance(self) -> None:
        if not self.m.is_over:
            act(self.m, self.rng)

    @rule(
        kind=st.sampled_from(ATTEMPTS),
        player=st.sampled_from([None, 0, 1]),
        data=st.data(),
    )
    def attempt(self, kind: str, player: int | None, data: st.DataObject) -> None:
        m = self.m
        before = snapshot(m)
        legal = m.legal_actions()
        turn = m.turn
        right_player = player is None or turn is None or player == turn
        args: tuple[object, ...] = ()
        well_formed = True
        if kind == "roll":
            dice = data.draw(
                st.one_of(st.none(), st.tuples(st.integers(0, 7), st.integers(0, 7))), "dice"
            )
            args = (dice,)
            well_formed = dice is None or (1 <= dice[0] <= 6 and 1 <= dice[1] <= 6)
        elif kind == "move":
            moves = m.legal_moves()
            choice = data.draw(
                st.one_of(
                    st.sampled_from(moves) if moves else st.nothing(),
                    st.lists(
                        st.tuples(st.integers(-1, 26), st.integers(-1, 26), st.booleans()),
                        max_size=4,
                    ).map(Move),
                    st.text(alphabet="0123456789/*() offbar", max_size=12),
                ),
                "play",
            )
            args = (choice,)
            if isinstance(choice, str):
                well_formed = _text_is_legal(m, choice)
            else:
                well_formed = m.dice is not None and m.position.is_legal(choice, m.dice)
        elif kind == "resign":
            level = data.draw(
                st.sampled_from(["single", "gammon", "backgammon", "triple", 0, 2, 4]), "level"
            )
            args = (level,)
            value = {"single": 1, "gammon": 2, "backgammon": 3, 2: 2}.get(level, 0)
            well_formed = value > m.state.declined  # no smaller offer after a refusal
        method = getattr(
            m,
            {"accept": "accept_resignation", "reject": "reject_resignation"}.get(kind, kind),
        )
        try:
            method(*args, player=player)
        except ValueError:
            assert snapshot(m) == before
            # A refused action was not legal as made.
            assert not (kind in legal and right_player and well_formed), (kind, legal, args)
        else:
            assert kind in legal and right_player, (kind, legal, player, turn)


def _text_is_legal(m: Match, text: str) -> bool:
    if m.dice is None:
        return False
    try:
        m.position.parse_move(text, m.dice)
    except ValueError:
        return False
    return True


TestIllegalAttempts = IllegalAttempts.TestCase
TestIllegalAttempts.settings = SETTINGS

"""One walk of a match record (records/walk.py): every entry handed once, in order, to each
visitor, with the match before a player's step and after the match's own; one replay."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from backgammon.play.match import GameEnd, GameStart, Match, Pass, Play, ReplayError, Roll
from backgammon.play.record import Action, MatchRecord
from backgammon.play.rules import Rules
from backgammon.records.walk import Visitor, steps_made, walk
from tests.matchhelp import act
from tests.records_helpers import beavered_money_match, random_match


class Log(Visitor):
    """Every entry as handed, with the kind of call and the match's gnubg ID then."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, Action, str]] = []

    def begin_game(self, match: Match, start: GameStart) -> None:
        self.seen.append(("begin", start, match.gnubg_id()))

    def visit_step(self, match: Match, step: Action) -> None:
        self.seen.append(("step", step, match.gnubg_id()))

    def visit_automatic(self, match: Match, step: Play | Pass) -> None:
        self.seen.append(("auto", step, match.gnubg_id()))

    def end_game(self, match: Match, end: GameEnd) -> None:
        self.seen.append(("end", end, match.gnubg_id()))

    def end(self, match: Match) -> None:
        self.seen.append(("over", GameEnd(-1, 0, 0, "played"), match.gnubg_id()))  # type: ignore[arg-type]


def _played(seed: int) -> Match:
    """A money session of random legal actions: tied openings, rejected resignations, passes."""
    rng = random.Random(seed)
    m = Match(rules=Rules.money(beavers=True, raccoons=True, automatic_doubles=1))
    for _ in range(400):
        if m.game_number > 3:
            break
        act(m, rng)
    return m


@pytest.mark.parametrize("seed", range(6))
def test_walk_hands_every_entry_once_in_order(seed: int) -> None:
    m = _played(seed) if seed % 2 else random_match(seed, 5)
    log = Log()
    end = walk(m.record, log)
    assert end.state == m.state and end.record == m.record
    handed = [a for kind, a, _ in log.seen if kind != "over"]
    assert handed == list(m.record.actions())
    assert sum(kind == "step" for kind, _, _ in log.seen) >= steps_made(m.record) > 0
    assert log.seen[-1][2] == m.gnubg_id()


def test_a_step_is_seen_before_it_is_made_and_the_matchs_own_after() -> None:
    m = Match(length=3)
    m.roll((3, 1))
    before_move = m.gnubg_id()
    m.move("8/5 6/5")
    log = Log()
    walk(m.record, log)
    kinds = [(kind, type(a).__name__) for kind, a, _ in log.seen]
    assert kinds == [
        ("begin", "GameStart"),
        ("step", "OpeningRoll"),
        ("step", "Play"),
        ("over", "GameEnd"),
    ]
    assert log.seen[2][2] == before_move and log.seen[3][2] == m.gnubg_id()


def test_a_whole_game_ends_and_the_next_begins_after_the_last_step() -> None:
    m = beavered_money_match()
    log = Log()
    walk(m.record, log)
    kinds = [kind for kind, _, _ in log.seen]
    assert kinds[-4:] == ["step", "end", "begin", "over"]
    assert log.seen[-3][1] == next(a for a in m.record.actions() if isinstance(a, GameEnd))


def test_a_record_the_rules_refuse_raises_replay_error() -> None:
    m = Match(length=3)
    m.roll((3, 1))
    m.move("8/5 6/5")
    m.roll((6, 6))
    games = list(m.record.games)
    bad = tuple(replace(a, dice=(1, 1)) if isinstance(a, Roll) else a for a in games[0])
    bad_record = MatchRecord(m.record.rules, (bad,))
    walk(MatchRecord(m.record.rules, (games[0][:-1],)))  # the record up to the roll walks
    with pytest.raises(ReplayError):
        walk(MatchRecord(m.record.rules, ((*bad, Play(1, m.legal_moves()[0])),)))
    with pytest.raises(ReplayError):
        walk(replace(bad_record, games=((*games[0], GameStart(2, (0, 0), False)),)))


def test_a_walk_replays_the_match_once(monkeypatch: pytest.MonkeyPatch) -> None:
    m = random_match(3, 5)
    calls = {"apply": 0, "replay": 0}
    real_apply = Match.apply

    def counted(self: Match, a: Action) -> None:
        calls["apply"] += 1
        real_apply(self, a)

    monkeypatch.setattr(Match, "apply", counted)
    monkeypatch.setattr(Match, "replay", lambda *a, **k: calls.__setitem__("replay", 1))
    walk(m.record, Log(), Log())
    made = sum(1 for a in m.record.actions() if not isinstance(a, GameStart | GameEnd))
    assert calls["replay"] == 0 and 0 < calls["apply"] <= made

"""The review's jobs walk a record once (issue 64): a web match's analysis, its replay steps
and its log lines come from one Match driven through its record; an uploaded file is walked
once after it is read.  Each step and line is checked against the game replayed anew."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from backgammon.judging.analysis import _Judge
from backgammon.play.match import Match
from backgammon.web.service import analysis as web_analysis
from backgammon.web.service import uploads
from backgammon.web.service.game import Game
from backgammon.web.store.database import MatchRow

SAMPLES = Path(__file__).parent.parent / "data" / "samples"


def _web_game(seed: int) -> tuple[MatchRow, Game]:
    """A 3-point web match of random actions, renames, doubles and resignations included."""
    rng = random.Random(seed)
    dice = bytes([seed + 1]) * 32
    row = MatchRow(
        "m", 0.0, 3, None, None, ("x", "y"), dice.hex(), Game.commitment_of(dice), ("Ann", "Bob")
    )
    game = Game(row)
    game.apply(1, {"action": "name", "name": "Cy"})
    while not game.is_over:
        seat = game.actor()
        seat = rng.choice([0, 1]) if seat is None else seat
        view = game.view(row, seat).model_dump()
        kind = rng.choice(view["actions"])
        action: dict[str, Any] = {"action": kind}
        if kind == "move":
            action["steps"] = rng.choice(view["plays"]) if view["plays"] else []
        elif kind == "resign":
            if rng.random() < 0.7:
                continue
            action["level"] = ["single", "gammon", "backgammon"][game.match.state.declined]
        game.apply(seat, action)
    return row, game


class _Counted:
    """Every Match made (new or resumed) while it is on."""

    def __init__(self, patch: pytest.MonkeyPatch) -> None:
        self.made: list[str] = []
        init, resume = Match.__init__, Match._resume.__func__  # type: ignore[attr-defined]

        def counted_init(m: Match, *args: Any, **kwargs: Any) -> None:
            self.made.append("new")
            init(m, *args, **kwargs)

        def counted_resume(cls: type[Match], *args: Any) -> Match:
            self.made.append("resumed")
            return resume(cls, *args)  # type: ignore[no-any-return]

        patch.setattr(Match, "__init__", counted_init)
        patch.setattr(Match, "_resume", classmethod(counted_resume))


@pytest.fixture
def quick(monkeypatch: pytest.MonkeyPatch) -> None:
    """No rollouts of marked decisions: the walk, not the judgement, is under test."""
    monkeypatch.setattr(_Judge, "_recheck", lambda *_a, **_k: None)


@pytest.mark.parametrize("seed", [1, 4])
def test_a_web_match_is_replayed_once_to_be_reviewed(
    seed: int, tmp_path: Path, quick: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    row, game = _web_game(seed)
    out = str(tmp_path / "a.json")
    job = game.copy(dice=False)
    counted = _Counted(monkeypatch)
    monkeypatch.setattr(web_analysis, "write_result", lambda _out, r: kept.append(r))
    kept: list[dict[str, Any]] = []
    web_analysis._job(job, out, 0, None)
    assert counted.made == ["new"]  # one Match, driven once through the record
    monkeypatch.undo()
    (result,) = kept
    log = game.log(row)
    decisions = result["decisions"]
    assert decisions and result["names"] == ["Ann", "Cy"] and result["seq"] == game.seq
    for d in decisions:
        # The step: the game replayed to that many stored actions stands at the decision.
        assert Game.replay(row, game.actions[: d["step"]]).match.gnubg_id() == d["gnubg_id"]
        # The line: the move log's line telling the decision (1-based).
        line = log[d["line"] - 1]
        name = result["names"][d["player"]]
        assert line.startswith(name), (line, d)
        if d["kind"] == "checker":
            assert line.startswith(f"{name} {max(d['dice'])}{min(d['dice'])}: ")
    assert [g["game"] for g in result["games"]] == list(range(1, len(result["games"]) + 1))


@pytest.mark.parametrize(
    "name", ["gnubg107_resign_after_forced_roll.mat", "gnubg107_resign_after_forced_roll.sgf"]
)
def test_an_upload_is_replayed_once_after_it_is_read(
    name: str, tmp_path: Path, quick: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = (SAMPLES / name).read_bytes()
    record = uploads.read_upload(name, data)
    kept: list[dict[str, Any]] = []
    counted = _Counted(monkeypatch)
    monkeypatch.setattr(uploads, "write_result", lambda _out, r: kept.append(r))
    uploads._job(record, str(tmp_path / "u.json"), 0, None, data.decode(), None)
    assert counted.made == ["new"]
    (result,) = kept
    assert result["names"] == list(record.players)
    assert all("line" in d for d in result["decisions"])
    assert [g["score"] for g in result["games"]] == [[0, 0]]

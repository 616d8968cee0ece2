"""What a file writes of a record (records/written.py): a live match's record as written,
the entries each game writes, and that outside the records layer nothing uses a file model."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from backgammon.core.values import GameResult
from backgammon.play.match import Match
from backgammon.records import mat, sgf
from backgammon.records.convert import read_record_text, read_text, written_actions
from backgammon.records.written import as_written, written_games, written_players
from tests.records_helpers import beavered_money_match, closed_out_game, random_match


def _generated() -> list[tuple[str, str]]:
    """Texts of matches with dances, beavers, resignations, in both formats."""
    closed = closed_out_game()
    out = [("mat", mat.write_record(closed)), ("sgf", sgf.write_record(closed))]
    for seed in (1, 2):
        m = random_match(seed, 5)
        out += [("mat", mat.write(m, ("L", "R"))), ("sgf", sgf.write(m, ("L", "R")))]
    out.append(("mat", mat.write(beavered_money_match())))
    return out


def test_a_live_match_writes_as_before() -> None:
    m = random_match(5, 5)
    record = as_written(m, ("A  b", ""))
    back = mat.read_record(mat.write_record(record))
    assert written_games(back) == written_games(record)
    assert mat.write_record(back) == mat.write_record(record)
    assert written_players(record) == record.players == ("A b", "Player 1")


@pytest.mark.parametrize(("fmt", "text"), _generated())
def test_a_record_counts_the_actions_its_file_writes(fmt: str, text: str) -> None:
    """An upload's size as its file counts it (a roll and its play once), off its record."""
    record = read_text(text, fmt)
    written = sum(len(mat.rows(g)) for g in record.games)
    assert written_actions(read_record_text(text, fmt)) == written > 0


def test_a_live_match_counts_what_its_file_would_hold() -> None:
    """A tied opening throw and a rejected resignation are in the record, not in a file."""
    m = Match(length=3)
    m.roll(dice=(2, 2))
    m.roll(dice=(3, 1))
    m.move("8/5 6/5")
    m.resign(GameResult.GAMMON)
    m.reject_resignation()
    m.roll(dice=(6, 4))
    m.move("24/14")
    record = as_written(m, ("a", "b"))
    assert len(list(m.record.actions())) == 8
    assert written_actions(record) == 2  # the opening play, the roll 64 and its play
    assert written_actions(read_record_text(mat.write(m, ("a", "b")), "mat")) == 2


def test_outside_records_no_module_uses_a_file_model() -> None:
    """Only the record is shared: the other layers import nothing from the readers' helpers,
    and of what a file writes only a live match's record as written and a name as written."""
    root = Path(__file__).parents[2] / "backgammon"
    allowed = {"backgammon.records.written": {"as_written", "written_name"}}
    private = {"backgammon.records.reading"}
    used: dict[str, set[str]] = {}
    for path in root.rglob("*.py"):
        if path.is_relative_to(root / "records"):
            continue
        tree = ast.parse(path.read_text("utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.ImportFrom) or node.module is None:
                continue
            names = {a.name for a in node.names}
            if node.module in private:
                used.setdefault(str(path), set()).update(names)
            elif node.module in allowed:
                used.setdefault(str(path), set()).update(names - allowed[node.module])
    assert {p: names for p, names in used.items() if names} == {}

"""The terminal's saved files (cli/records.py) read into their MatchRecord (issue 64): the
header kept, the match to continue made by one walk of the record, and a saved match read
back as it was played."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from backgammon.cli.errors import UsageError
from backgammon.cli.records import read_file, read_mat, read_record_file, write_mat
from backgammon.play.dice import FixedDice
from backgammon.play.match import Match
from backgammon.play.record import MatchRecord
from backgammon.records import mat, sgf
from backgammon.records.convert import read_text
from backgammon.records.walk import walk
from tests.records_helpers import random_match

SAMPLES = Path(__file__).parent.parent / "data" / "samples"


def _counting(patch: pytest.MonkeyPatch) -> list[str]:
    """Every Match made (new or resumed) from now on."""
    made: list[str] = []
    init, resume = Match.__init__, Match._resume.__func__  # type: ignore[attr-defined]

    def counted_init(m: Match, *args: Any, **kwargs: Any) -> None:
        made.append("new")
        init(m, *args, **kwargs)

    def counted_resume(cls: type[Match], *args: Any) -> Match:
        made.append("resumed")
        return resume(cls, *args)  # type: ignore[no-any-return]

    patch.setattr(Match, "__init__", counted_init)
    patch.setattr(Match, "_resume", classmethod(counted_resume))
    return made


@pytest.mark.parametrize("path", sorted([*SAMPLES.glob("*.mat"), *SAMPLES.glob("*.sgf")]))
def test_a_saved_file_reads_into_its_record_and_the_match_it_plays_to(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fmt = "sgf" if path.suffix == ".sgf" else "mat"
    file = read_text(path.read_text("utf-8"), fmt)
    old = (sgf if fmt == "sgf" else mat).read(path.read_text("utf-8"))  # as the terminal read
    record, match = read_file(path)
    assert isinstance(record, MatchRecord) and record == file
    assert (record.players, record.info, record.comment) == (file.players, file.info, file.comment)
    assert walk(record).gnubg_id() == match.gnubg_id()
    assert (match.gnubg_id(), match.is_over) == (old.gnubg_id(), old.is_over)
    made = _counting(monkeypatch)
    read_record_file(path)
    reading = len(made)
    read_file(path)
    assert len(made) - reading == reading + 1  # reading again, then one walk


def test_a_saved_match_reads_back_as_played(tmp_path: Path) -> None:
    m = random_match(5, 7)
    path = tmp_path / "m.mat"
    write_mat(m, path, ("Ann  Lee", "Bob"), comment="kept")
    record, back = read_file(path)
    assert record.players == ("Ann Lee", "Bob") and record.comment == "kept"
    assert (back.gnubg_id(), back.game_number, back.is_over) == (
        m.gnubg_id(),
        m.game_number,
        m.is_over,
    )


def test_a_match_over_is_not_continued(tmp_path: Path) -> None:
    m = random_match(3, 1)
    assert m.is_over
    path = tmp_path / "over.sgf"
    write_mat(m, path, ("a", "b"))
    with pytest.raises(UsageError, match="already over"):
        read_mat(path, FixedDice(()))

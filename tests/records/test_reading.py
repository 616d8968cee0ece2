"""Reading a match file in one pass (records/reading.py, behind the .mat and SGF readers):
the record keeps all its writer needs (header, names, comment, game numbers, a dance's dice,
R13) and writing it gives the file's own text; the file's rules (beavers, the cube's
ceiling) are the whole file's, and the reading's errors come before the rules' refusals."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from backgammon.play.match import GameStart, Match, Pass, Play
from backgammon.play.record import Action, MatchRecord
from backgammon.play.rules import Rules
from backgammon.records import mat, sgf
from backgammon.records.convert import (
    convert_text,
    read_record_text,
    read_text,
    write_text,
)
from backgammon.records.errors import MatchFileError
from backgammon.records.walk import Visitor, walk
from backgammon.records.written import written_games
from tests.records_helpers import beavered_money_match, closed_out_game, random_match

SAMPLES = Path(__file__).parent.parent / "data" / "samples"
FILES = sorted(p.name for p in SAMPLES.iterdir() if p.suffix in (".mat", ".sgf"))


def _closed() -> MatchRecord:
    return closed_out_game()


def _generated() -> list[tuple[str, str]]:
    """Texts of matches with dances, beavers, resignations, in both formats."""
    out = [("mat", mat.write_record(_closed())), ("sgf", sgf.write_record(_closed()))]
    for seed in (1, 2):
        m = random_match(seed, 5)
        out += [("mat", mat.write(m, ("L", "R"))), ("sgf", sgf.write(m, ("L", "R")))]
    out.append(("mat", mat.write(beavered_money_match())))
    return out


@pytest.mark.parametrize("name", FILES)
def test_a_sample_read_into_its_record_writes_back_as_the_file_model(name: str) -> None:
    text = (SAMPLES / name).read_text()
    fmt = name.rsplit(".", 1)[1]
    record = read_record_text(text, fmt)
    assert read_text(text, fmt) == record
    back = read_record_text(write_text(record, fmt), fmt)
    assert back == record and written_games(back) == written_games(record)
    assert back.players == record.players and back.info == record.info


@pytest.mark.parametrize("k", range(7))
def test_generated_files_round_trip_through_their_record(k: int) -> None:
    fmt, text = _generated()[k]
    record = read_record_text(text, fmt)
    assert write_text(record, fmt) == text
    # Walking the record is replaying it: the match it ends at is the file's.
    assert walk(record).state == Match.replay(record).state


def test_a_dance_keeps_its_dice_through_the_record() -> None:
    text = mat.write_record(_closed())
    record = read_record_text(text, "mat")
    danced = [a for a in record.actions() if isinstance(a, Pass) and a.dice is not None]
    written = [a for a in _closed().actions() if isinstance(a, Pass) and a.dice is not None]
    assert danced and all(1 <= d <= 6 for a in danced for d in a.dice or ())
    assert f"{danced[0].dice[0]}{danced[0].dice[1]}: " in text  # type: ignore[index]
    assert any(getattr(a, "dice", None) == danced[0].dice for a in written)

    class Passes(Visitor):
        def __init__(self) -> None:
            self.seen: list[Action] = []

        def visit_step(self, match: Match, step: Action) -> None:
            self.seen += [step] if isinstance(step, Pass) else []

        def visit_automatic(self, match: Match, step: Play | Pass) -> None:
            self.seen += [step] if isinstance(step, Pass) else []

    passes = Passes()
    walk(record, passes)
    assert [getattr(a, "dice", None) for a in passes.seen] == [a.dice for a in danced]


def test_the_header_rides_on_the_record() -> None:
    text = (
        '; [Site "Club"]\n; [EventDate "2024.05.01"]\n; [Player 1 Rating "1700"]\n'
        "; a friendly\n" + mat.write(random_match(3, 3), ("Ann", "Bob"))
    )
    record = read_record_text(text, "mat")
    assert record.tag("Site") == "Club" and record.tag("EventDate") == "2024.05.01"
    assert record.comment == "a friendly" and record.players == ("Ann", "Bob")
    assert mat.write_record(record) == mat.write_record(mat.read_record(text))
    back = read_record_text(sgf.write_record(record), "sgf")
    assert back.tag("EventDate") == "2024.05.01" and back.comment == "a friendly"


def test_a_file_beginning_at_game_2_keeps_its_numbers() -> None:
    record = read_record_text((SAMPLES / "gnubg107_game2_no_analysis.sgf").read_text(), "sgf")
    starts = [a for a in record.actions() if isinstance(a, GameStart)]
    assert starts[0].game == 2 and starts[0].score != (0, 0)
    assert written_games(record)[0][0].game == 2


def test_converting_goes_through_the_record_and_writes_what_the_model_did() -> None:
    for fmt, text in _generated():
        other = "sgf" if fmt == "mat" else "mat"
        out, _ = convert_text(text, fmt, other)
        assert out == write_text(read_text(text, fmt), other)


def _cube_game(doubles: int) -> Match:
    """A money game in which the cube is doubled and taken ``doubles`` times."""
    m = Match(rules=Rules.money(max_cube=1 << 15))
    m.roll(dice=(3, 1))
    m.move("8/5 6/5")
    for _ in range(doubles):
        m.double()
        m.take()
        m.roll(dice=(2, 1))
        m.move(m.legal_moves()[0])
    return m


@pytest.mark.parametrize(("doubles", "ceiling"), [(5, 64), (6, 64), (7, 128), (8, 256)])
def test_the_cube_ceiling_is_the_whole_files(doubles: int, ceiling: int) -> None:
    text = mat.write(_cube_game(doubles))
    assert mat.read_record(text).rules.max_cube == ceiling
    assert sgf.read_record(sgf.write(_cube_game(doubles))).rules.max_cube == ceiling


def test_a_cube_past_the_written_ceiling_is_refused_at_its_line() -> None:
    """Offers written as 2 leave the ceiling at 64: the seventh double is refused, at its
    line, though the reading let it pass."""
    text = re.sub(r"Doubles => \d+", "Doubles => 2", mat.write(_cube_game(7)))
    with pytest.raises(MatchFileError, match="the cube is at its maximum") as info:
        mat.read_record(text)
    offers = [k for k, line in enumerate(text.splitlines(), 1) if "Doubles" in line]
    assert info.value.line == offers[6]


def test_beavers_are_allowed_when_the_file_shows_one() -> None:
    assert mat.read_record(mat.write(beavered_money_match())).rules.beavers
    assert not mat.read_record(mat.write(random_match(8, 0))).rules.beavers


def test_a_reading_error_comes_before_a_refusal_of_the_rules() -> None:
    """A beaver in a 5-point match is refused by the match's rules; a play that cannot be
    read later in the file is the reading's error, and is the one raised: a file is read
    before the match's rules judge it, as when it was read and then replayed."""
    text = mat.write(beavered_money_match()).replace(" 0 point match", " 5 point match")
    with pytest.raises(MatchFileError, match="beavers are not allowed") as refused:
        mat.read_record(text)
    assert refused.value.line == 8
    bad = text + " Game 9\n A : 0                           B : 0\n  1) 33: 8/5 8/5 6/3 6/3 6/3\n"
    with pytest.raises(MatchFileError, match="more than four moves") as info:
        mat.read_record(bad)
    assert info.value.line == len(bad.splitlines())

"""Regressions of the match-file readers and writer (each failed before its fix).

Readers run in time linear in their input (no backtracking patterns, no recursion), refuse
what they cannot read with a specific error (:class:`MatchFileError`, a ``ValueError``),
write the take of a beaver as gnubg does, and read gnubg's own export of a resignation
made after a forced roll.  Only the readers' public names are used here.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable

import pytest
from records_helpers import beavered_then_played
from reference import SAMPLES

from backgammon.records import convert, mat, sgf
from backgammon.records.errors import MatchFileError

FORCED_MAT = SAMPLES / "gnubg107_resign_after_forced_roll.mat"
FORCED_SGF = SAMPLES / "gnubg107_resign_after_forced_roll.sgf"

N = 100_000


def quick(read: Callable[[str], object], text: str) -> None:
    """``read(text)`` reads or raises MatchFileError within 5 s of this thread's CPU time:
    some 0.1 s for a linear reader, hours for a quadratic one on these 100,000 characters,
    so a busy machine (other processes, threads earlier tests left running in this worker,
    a shared core's caches) cannot make it fail."""
    start = time.thread_time()
    with contextlib.suppress(MatchFileError):
        read(text)
    assert time.thread_time() - start < 5.0


# ----------------------------------------------------------------------------- time

HEAD = " 1 point match\n\n Game 1\n a : 0                          b : 0\n"

MAT_TEXTS = {
    # A score line of 411 characters took 3 s, 611 took 16 s (nested lazy groups).
    "score-line": " 1 point match\n Game 1\n a"
    + " " * (N // 2)
    + ": 0"
    + " " * (N // 2)
    + "b : 0x\n",
    "score-colons": " 1 point match\n Game 1\n" + ": 1 " * (N // 4) + "\n",
    # A header tag of 2,000 spaces took 5-7 s (overlapping \s and [^"\]] runs).
    "tag-spaces": "; [" + " " * N + "x\n 1 point match\n",
    "tag-quote": "; [" + " " * (N // 2) + '"' + " " * (N // 2) + "x\n 1 point match\n",
    "length-line": " " + "1 " * (N // 2) + "point match\n",
    "game-line": " 1 point match\n Game" + " " * N + "x\n",
    "row-spaces": HEAD + "  1) 31: " + " " * N + "8/5 6/5\n",
    "row-slashes": HEAD + "  1) 31: 8" + " / " * (N // 3) + "5\n",
    "double-arrow": HEAD + "  1) 31: 8/5 6/5    Doubles" + " " * N + "=> x\n",
    "wins-spaces": HEAD + "  1) 31: 8/5 6/5\n Wins 1" + " " * N + "x\n",
    "many-rows": HEAD + "  1) 31: 8/5 6/5                 42: 8/4 6/4\n" * (N // 45),
}


@pytest.mark.parametrize("text", MAT_TEXTS.values(), ids=MAT_TEXTS.keys())
def test_mat_reads_long_lines_in_linear_time(text: str) -> None:
    quick(mat.read, text)


SGF_TEXTS = {
    "spaces": "(;GM[6]" + " " * N + ")",
    "long-value": "(;GM[6]C[" + "x" * N + "])",
    "escapes": "(;GM[6]C[" + "\\]" * (N // 2) + "])",
    "empty-nodes": "(;GM[6]" + ";" * N + ")",
    "variations": "(;GM[6]" + "(;)" * (N // 3) + ")",
    "open-trees": "(;" * (N // 2),
    "long-name": "(;GM[6]" + "A" * N + "[x])",
}


@pytest.mark.parametrize("text", SGF_TEXTS.values(), ids=SGF_TEXTS.keys())
def test_sgf_reads_long_input_in_linear_time(text: str) -> None:
    quick(sgf.read, text)


def test_deeply_nested_sgf_is_a_match_file_error() -> None:
    # It raised RecursionError (one Python frame per nesting level).
    with pytest.raises(MatchFileError, match="nested deeper"):
        sgf.read("(;GM[6]" + "(;" * 1000 + ")" * 1000 + ")")
    with pytest.raises(MatchFileError, match="nested deeper"):
        sgf.read("(;GM[6]" + "(;" * N + ")" * N + ")")


# ----------------------------------------------------------------------------- numbers

BIG = "7" * 4301  # int() refuses more than 4,300 digits with a plain ValueError


@pytest.mark.parametrize(
    "text",
    [
        f" {BIG} point match\n",
        f" 1 point match\n Game {BIG}\n a : 0  b : 0\n",
        f" 1 point match\n Game 1\n a : {BIG}  b : 0\n",
        f" 1 point match\n Game 1\n a : 0  b : {BIG}\n",
        HEAD + f"  1) 31: 8/5 6/5                 Doubles => {BIG}\n",
        HEAD + f"  1) 31: 8/5 6/5\n      Wins {BIG} points\n",
    ],
    ids=["length", "game", "left-score", "right-score", "cube", "points"],
)
def test_mat_numbers_too_long_are_match_file_errors(text: str) -> None:
    with pytest.raises(MatchFileError, match="too large"):
        mat.read(text)


@pytest.mark.parametrize(
    "text",
    [
        f"(;GM[6]MI[length:{BIG}])",
        f"(;GM[6]MI[length:1][game:{BIG}])",
        f"(;GM[6]MI[length:1][ws:{BIG}])",
        f"(;GM[6]MI[length:1]RE[W+{BIG}R]\n;W[31hefe])",
    ],
    ids=["length", "game", "score", "result"],
)
def test_sgf_numbers_too_long_are_match_file_errors(text: str) -> None:
    with pytest.raises(MatchFileError, match="too large"):
        sgf.read(text)


# ----------------------------------------------------------------------------- not text


@pytest.mark.parametrize(
    "read",
    [mat.read, mat.read_record, sgf.read, sgf.read_record, convert.detect_format],
    ids=["mat.read", "mat.read_record", "sgf.read", "sgf.read_record", "detect_format"],
)
@pytest.mark.parametrize(
    "data",
    [b" 1 point match\n", bytearray(b"(;GM[6])"), None, 5],
    ids=["bytes", "bytearray", "None", "int"],
)
def test_readers_refuse_what_is_not_text(read: Callable[[str], object], data: object) -> None:
    # bytes gave a TypeError from str.startswith; the readers take str and say so.
    with pytest.raises(MatchFileError, match=r"reads text \(str\)") as info:
        read(data)  # type: ignore[arg-type]
    assert type(info.value) is not MatchFileError  # the specific NotTextError
    if isinstance(data, (bytes, bytearray)):
        assert "decode" in str(info.value)


def test_convert_text_refuses_bytes() -> None:
    with pytest.raises(MatchFileError, match="decode"):
        convert.convert_text(b" 1 point match\n", "mat", "sgf")  # type: ignore[arg-type]


# ----------------------------------------------------------------------------- beavers


def test_take_of_a_beaver_takes_no_column() -> None:
    # gnubg 1.07 writes no line for the take of a beaver: the doubler's next roll stays in
    # the doubler's (left) column.  We wrote an empty half-row, so the roll landed in the
    # other column and was read back as the other player's.
    m = beavered_then_played()
    text = mat.write(m)
    assert "  2)  Doubles => 2                Beavers => 4\n  3) 42: 8/4 6/4 " in text
    warnings: list[str] = []
    back = mat.read(text, warnings)
    assert warnings == [] and back.gnubg_id() == m.gnubg_id()
    assert back.record.games == m.record.games


def test_take_of_a_beaver_before_a_resignation() -> None:
    # gnubg's export (gnubg 1.07: double, beaver, take, then the doubler resigns a single
    # at cube 4): the take is not written; the reader supplies it before the resignation.
    text = (
        " 0 point match\n\n Game 1\n gnubg : 0                      root : 0\n"
        "  1)                             31: 8/5 6/5 \n"
        "  2)  Doubles => 2                Beavers => 4\n"
        "                                  Wins 4 points\n"
    )
    warnings: list[str] = []
    m = mat.read(text, warnings)
    assert warnings == [] and m.score == (0, 4)  # gnubg imports it as 0-4 too


def test_take_of_a_raccoon_before_a_resignation() -> None:
    # gnubg's export of double, beaver, raccoon, take, then a resignation of a single at
    # cube 8: the take is an empty half-row (gnubg imports it as 0-8).
    text = (
        " 0 point match\n\n Game 1\n gnubg : 0                      root : 0\n"
        "  1)                             31: 8/5 6/5 \n"
        "  2)  Doubles => 2                Beavers => 4\n"
        "  3)  Beavers => 8                 \n"
        "                                  Wins 8 points\n"
    )
    warnings: list[str] = []
    m = mat.read(text, warnings)
    assert warnings == [] and m.score == (0, 8)


# ----------------------------------------------------------------------------- forced roll


def test_gnubg_export_of_a_resignation_after_a_forced_roll_reads() -> None:
    # gnubg 1.07 (tests/data/samples/gnubg107_resign_after_forced_roll.commands): root
    # rolls 41, whose only play is forced, and resigns without playing it.  gnubg writes
    # the roll with no play (MOVE_SETDICE); the reader took it for the forced play, after
    # which the resignation was out of turn ("a resignation refused by the rules").
    text = FORCED_MAT.read_text()
    warnings: list[str] = []
    m = mat.read(text, warnings)
    assert warnings == []
    assert m.is_over and m.score == (1, 0)  # gnubg: "gnubg 1, root 0" after importing it
    record = mat.read_record(text)
    assert mat.write_record(record) == text
    from_sgf = sgf.read_record(FORCED_SGF.read_text())  # gnubg's SGF of the same game
    assert from_sgf.games == record.games
    assert sgf.read(FORCED_SGF.read_text()).gnubg_id() == m.gnubg_id()

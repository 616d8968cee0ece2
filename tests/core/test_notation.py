"""gnubg move notation: writing (str(move)) and lenient reading (backgammon/notation.py)."""

from __future__ import annotations

import contextlib
import json
import re
import subprocess
import time

import pytest
from gnubg_reference import GNUBG, played_game_cases
from reference import REFERENCE

from backgammon import AmbiguousMoveError, IllegalMoveError, InvalidMoveTextError, Move, Position
from backgammon.core.notation import parse_segments

VECTORS = json.loads((REFERENCE / "move_vectors.json").read_text())

BAR_43 = Position.from_simple("2 -2 0 0 0 0 5 0 3 0 0 0 -5 3 0 0 0 -3 0 -3 0 0 0 0 2 2")
BEAROFF_64 = Position.from_simple("0 3 2 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 -3 -3 -3 -3 -2 -1 0")
# X: 4 on the 2-point, 2 on the 1-point; O still far away.
BEAROFF_22 = Position.from_simple("0 2 4 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 -5 -5 -5 0 0 0 0 0")
# The start with two of O's mid-point checkers left as blots on X's 12 and 10 points.
HIT_21 = Position.from_simple("0 -2 0 0 0 0 5 0 3 0 -1 0 -1 5 0 0 0 -3 -3 -5 0 0 0 0 2 0")


def _case(name: str) -> tuple[Position, tuple[int, int]]:
    roll = re.search(r"rolls? (\d)(\d)|(\d)(\d)", name)
    assert roll
    digits = [g for g in roll.groups() if g]
    dice = (int(digits[0]), int(digits[1]))
    if name.startswith("opening"):
        return Position.initial(), dice
    if "2 on bar" in name:
        return BAR_43, dice
    if "doubles" in name:
        return BEAROFF_22, dice
    if "bear-off" in name:
        return BEAROFF_64, dice
    return HIT_21, dice


@pytest.mark.parametrize("case", VECTORS["hint"], ids=lambda c: c["case"][:30])
def test_gnubg_hint_texts_are_our_texts(case: dict[str, object]) -> None:
    position, dice = _case(str(case["case"]))
    ours = {str(m) for m in position.legal_moves(dice)}
    expected = case["gnubg_hint_moves"]
    assert isinstance(expected, list)
    assert set(expected) <= ours


@pytest.mark.parametrize("case", VECTORS["parse"], ids=lambda c: c["case"])
def test_gnubg_accepted_spellings(case: dict[str, object]) -> None:
    position, dice = _case(str(case["case"]))
    results = case["results"]
    assert isinstance(results, list)
    for r in results:
        if r["resulting_position_id"] is None:
            with pytest.raises(IllegalMoveError):
                position.parse_move(r["spelling"], dice)
        else:
            move = position.parse_move(r["spelling"], dice)
            assert position.play(move).position_id() == r["resulting_position_id"]


def _gnubg_hint_texts(cases: list[tuple[Position, tuple[int, int]]]) -> list[list[str]]:
    """Debian gnubg's 0-ply ``hint`` plays (up to 40) for each position and roll, as it
    writes them (one gnubg process)."""
    cmds = ["set player 0 human", "set player 1 human", "new session"]
    cmds.append("set evaluation chequerplay evaluation plies 0")
    for position, (d1, d2) in cases:
        cmds += [f"set board {position.position_id()}", f"set dice {d1} {d2}", "hint 40"]
    out = subprocess.run(
        [GNUBG], input="\n".join(cmds) + "\n", capture_output=True, text=True, timeout=600
    ).stdout
    lists: list[list[str]] = []
    for line in out.splitlines():
        found = re.match(r"\s+(\d+)\. Cubeful 0-ply\s+(.+?)\s+Eq\.", line)
        if found:
            if found.group(1) == "1":
                lists.append([])
            lists[-1].append(found.group(2))
    return lists


def test_our_notation_is_gnubgs_on_played_positions() -> None:
    """gnubg's FormatMove on 300 rolls of played games where some play hits or the roll is a
    double: every play gnubg lists reads back as the same text (``2/1*(2)``, ``bar/20*(2)``)."""
    cases: list[tuple[Position, tuple[int, int]]] = []
    for position, d1, d2 in played_game_cases(400, seed=38):
        moves = position.legal_moves((d1, d2))
        if len(moves) > 1 and (d1 == d2 or any(h for m in moves for _, _, h in m)):
            cases.append((position, (d1, d2)))
        if len(cases) == 300:
            break
    lists = _gnubg_hint_texts(cases)
    assert len(lists) == len(cases)
    grouped_hits = 0
    for (position, dice), texts in zip(cases, lists, strict=True):
        for text in texts:
            assert str(position.parse_move(text, dice)) == text, (position.position_id(), dice)
            grouped_hits += bool(re.search(r"\*\(\d\)", text))
    assert grouped_hits > 10


def test_canonical_writing() -> None:
    assert str(Move([(6, 1, False), (8, 3, False)])) == "8/3 6/1"
    assert str(Move([(24, 18, False), (18, 13, False)])) == "24/13"
    assert str(Move([(13, 12, True), (12, 10, True)])) == "13/12*/10*"
    assert str(Move([(25, 22, False), (25, 21, True)])) == "bar/22 bar/21*"
    assert str(Move([(2, 0, False)] * 4)) == "2/off(4)"
    assert str(Move([(13, 8, False), (13, 8, False), (8, 3, False), (8, 3, False)])) == "13/3(2)"
    assert str(Move()) == ""
    # gnubg groups identical chains whatever their hit flags, marking the hit once.
    assert str(Move([(13, 12, True), (8, 7, False), (2, 1, True), (2, 1, False)])) == (
        "13/12* 8/7 2/1*(2)"
    )
    assert str(Move([(25, 20, True), (25, 20, False), (6, 1, True), (6, 1, False)])) == (
        "bar/20*(2) 6/1*(2)"
    )
    # A point that held a blot stays in every chain through it: 24/18*/12(2), not 24/18*/12 24/12.
    assert str(Move([(24, 18, True), (18, 12, False), (24, 18, False), (18, 12, False)])) == (
        "24/18*/12(2)"
    )


def test_lenient_reading() -> None:
    start = Position.initial()
    expected = start.play(start.parse_move("13/8 13/11", (5, 2)))
    for text in ["13/8 13/11", "13-8 13-11", "13/11, 13/8", " 13/8   13/11 ", "13/8* 13/11"]:
        assert start.play(start.parse_move(text, (5, 2))) == expected, text
    assert parse_segments("bar/20/14*") == [(25, 20, False), (20, 14, True)]
    assert parse_segments("6/off(2)") == [(6, 0, False), (6, 0, False)]
    assert parse_segments("B/22 6/O") == [(25, 22, False), (6, 0, False)]
    assert parse_segments("Cannot Move") == []


@pytest.mark.parametrize(
    "text",
    ["13", "13/", "x/5", "5/13", "0/5", "13/25", "26/20", "13/8(9)", "1/2/3/4/5/6/7/8/9/10"],
)
def test_malformed_text(text: str) -> None:
    with pytest.raises(InvalidMoveTextError):
        Position.initial().parse_move(text, (5, 3))


def test_illegal_and_incomplete_plays() -> None:
    start = Position.initial()
    with pytest.raises(IllegalMoveError):
        start.parse_move("24/18", (6, 5))  # R9: the 5 must be played too
    with pytest.raises(IllegalMoveError):
        start.parse_move("6/off 6/1", (6, 5))  # R14: no bearing off with checkers out
    with pytest.raises(IllegalMoveError):
        start.parse_move("", (6, 5))
    closed = Position.from_simple("1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 -2 -2 -2 -2 -2 -2 0")
    assert closed.parse_move("", (6, 5)) == Move()


def test_ambiguous_text() -> None:
    # 13/10 with 21 and blots on both 12 and 11: via 12 hits one, via 11 hits the other.
    p = Position.from_simple("0 -2 0 0 0 0 5 0 3 0 0 -1 -1 5 0 0 0 -3 -3 -5 0 0 0 0 2 0")
    with pytest.raises(AmbiguousMoveError):
        p.parse_move("13/10", (2, 1))
    assert str(p.parse_move("13/11*/10", (2, 1))) == "13/11*/10"
    assert str(p.parse_move("13/12*/10", (2, 1))) == "13/12*/10"


# ----------------------------------------------------------------------------- limits


@pytest.mark.parametrize(
    "text",
    [
        "8/5" + " " * 100_000 + "6/5",
        "8/5 6/5" + " " * 100_000 + "x",
        "8" + " " * 50_000 + "/" + " " * 50_000 + "5 6/5",
        "24/18" + " " * 100_000 + "(" + " " * 50_000 + "2",
    ],
    ids=["between-parts", "trailing", "around-slash", "around-repeat"],
)
def test_long_whitespace_reads_in_linear_time(text: str) -> None:
    # Each whitespace run is looked at once: 100,000 spaces are read at once, not in
    # seconds (the old substitutions rescanned a run from each of its characters).
    start = time.process_time()
    with contextlib.suppress(InvalidMoveTextError, IllegalMoveError):
        Position.initial().parse_move(text, (3, 1))
    assert time.process_time() - start < 1.0


def test_long_point_numbers_are_refused_as_move_text() -> None:
    # int() refuses more than 4,300 digits with a plain ValueError; a point number has
    # one or two digits, so anything longer is move text that cannot be read.
    with pytest.raises(InvalidMoveTextError, match="not a point"):
        parse_segments("1" * 5000 + "/2")
    assert parse_segments("0" * 5000 + "24/23") == [(24, 23, False)]  # leading zeros


@pytest.mark.parametrize("text", [b"8/5 6/5", bytearray(b"24/18"), None, 85])
def test_move_text_that_is_not_a_str_is_refused_as_move_text(text: object) -> None:
    # bytes gave a TypeError from str.replace half-way through the reading.
    with pytest.raises(InvalidMoveTextError, match="move text is a str"):
        Position.initial().parse_move(text, (3, 1))  # type: ignore[arg-type]
    with pytest.raises(InvalidMoveTextError, match="move text is a str"):
        parse_segments(text)  # type: ignore[arg-type]


def test_errors_quote_at_most_a_few_dozen_characters_of_the_text() -> None:
    """A huge illegal text is refused with a short message, not echoed whole."""
    pos = Position.initial()
    for text in ("8/5 " * 100_000, "x" * 100_000, "8/5 6/5" + " " * 100_000 + "zz"):
        with pytest.raises(InvalidMoveTextError) as info:
            pos.parse_move(text, (3, 1))
        assert 0 < len(str(info.value)) < 200

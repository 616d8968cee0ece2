"""The .mat reader and writer (formats.md §4): gnubg's samples, lenient reading, errors."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from records_helpers import (
    beavered_money_match,
    closed_out_game,
    play_signature,
    random_match,
    random_record,
    written,
)
from reference import SAMPLES

from backgammon.core.values import GameResult
from backgammon.play.dice import FixedDice
from backgammon.play.match import CubeError, Match
from backgammon.play.record import (
    Double,
    Drop,
    EndReason,
    GameEnd,
    GameStart,
    Pass,
    Resign,
    Roll,
)
from backgammon.play.rules import Rules
from backgammon.records import mat
from backgammon.records.errors import MatchFileError
from backgammon.records.written import as_written

ONE, GAMMON = GameResult.SINGLE, GameResult.GAMMON

GNUBG_MAT = SAMPLES / "gnubg107_5pt_match.mat"
REEXPORT_MAT = SAMPLES / "gnubg_reexport_after_import.mat"


def sample() -> str:
    return GNUBG_MAT.read_text()


# ----------------------------------------------------------------------------- samples


def test_sample_games_scores_and_results() -> None:
    # formats.md §4.3: three games; game 1 a single for root (right) with the cube at 2,
    # game 2 a drop of root's double, game 3 ends the match 0-5 (R27).
    warnings: list[str] = []
    record = mat.read_record(sample(), warnings)
    assert warnings == []
    assert record.rules.match_length == 5
    assert record.players == ("gnubg", "root")
    assert record.tag("EventDate") == "2026.11.29"
    assert [a.score for a in record.actions() if isinstance(a, GameStart)] == [
        (0, 0),
        (0, 2),
        (0, 3),
    ]
    assert [a for a in record.actions() if isinstance(a, GameEnd)] == [
        GameEnd(1, 2, ONE, EndReason.PLAYED),
        GameEnd(1, 1, ONE, EndReason.DROPPED),
        GameEnd(1, 2, ONE, EndReason.PLAYED),
    ]


def test_sample_game2_rows_as_formats_md_describes() -> None:
    game = written(mat.read_record(sample()).games[1])
    # "the right player opens"; 54: 13/8 24/20, steps in the order written.
    assert game[0] == (1, (5, 4), ((13, 8, False), (24, 20, False)))
    # 3) 41: 24/20 6/5*  -- the hit is on the second step.
    assert game[3] == (0, (4, 1), ((24, 20, False), (6, 5, True)))
    # 14) 22: -- a dance (R10) of the left player.
    assert game[25] == (0, (2, 2), ())
    # 16) 44: then Doubles => 2 by root; 17) Drops by gnubg, root wins 1 (R24).
    assert game[-3:] == [(0, (4, 4), ()), Double(1, 2), Drop(0)]


@pytest.mark.parametrize("path", [GNUBG_MAT, REEXPORT_MAT], ids=lambda p: p.name)
def test_rewrite_reproduces_gnubgs_bytes(path: Path) -> None:
    text = path.read_text()
    assert mat.write_record(mat.read_record(text)) == text


def test_sample_replays_through_match() -> None:
    warnings: list[str] = []
    m = mat.read(sample(), warnings)
    assert warnings == []
    # gnubg after importing it: "gnubg 0, root 5 (match to 5 points)" (formats.md §4.3).
    assert m.is_over and m.score == (0, 5) and m.winner == 1
    # Written back from the Match: the same bytes but the header (a Match has no date).
    body = sample().split("\n", 1)[1]
    assert mat.write(m, ("gnubg", "root")) == body


def test_both_samples_hold_the_same_plays() -> None:
    # gnubg's re-export sorts steps; the positions reached are the same.
    a = mat.read_record(sample())
    b = mat.read_record(REEXPORT_MAT.read_text())
    assert play_signature(a) == play_signature(b)
    assert a.games != b.games  # the order of the steps differs


# ----------------------------------------------------------------------------- writing


def test_writer_layout_columns_and_words() -> None:
    text = sample()
    record = mat.read_record(text)
    lines = mat.write_record(record).splitlines()
    assert " 5 point match" in lines
    assert lines[5] == " gnubg : 0                      root : 0"
    assert lines[6] == "  1) 31: 8/5 6/5                 63: 24/21 21/15 "
    assert "  9) 54:                          Doubles => 2" in lines
    assert " 10)  Takes                      43: 13/10 8/4 " in lines
    assert " 17)  Drops                       Wins 1 point " in lines
    assert "                                  Wins 2 points" in lines


def test_left_player_win_resign_and_drop_layouts() -> None:
    m = Match(length=3, dice=FixedDice(()))
    m.roll((3, 1))
    m.move("8/5 6/5")
    m.double()
    m.drop()
    m.roll((5, 6))
    m.move("24/18 18/13")
    m.resign("gammon")
    m.accept_resignation()
    record = dataclasses.replace(m.record, players=("a", "b"))
    text = mat.write_record(record)
    # Rows are f"{n:3d}) {left:<27} {right}" (formats.md §4.2); cube words start with a space.
    assert f"  1) {'31: 8/5 6/5 ':<27}  Doubles => 2\n" in text
    assert "  2)  Drops                       Wins 1 point \n\n" in text
    assert "  1)                             65: 24/18 18/13 \n" in text
    assert "                                  Wins 2 points\n" in text
    warnings: list[str] = []
    back = mat.read_record(text, warnings)
    assert back.games == record.games and warnings == []


# ----------------------------------------------------------------------------- lenient


def xg_variant() -> str:
    text = sample()
    head = (
        "\ufeff"
        '; [Site "eXtreme Gammon"]\n'
        '; [Match ID "-246338669"]\n'
        '; [Player 1 "gnubg"]\n'
        '; [Player 2 "root"]\n'
        '; [Player 1 Elo "2260.00/400"]\n'
        '; [EventDate "2026.11.29"]\n'
        '; [Variation "Backgammon"]\n'
        '; [Crawford "On"]\n'
        '; [CubeLimit "1024"]\n'
    )
    text = head + text.split("\n", 1)[1]
    text = text.replace("63: 24/21 21/15 ", "63: 24/15", 1)  # combined move
    text = text.replace(" 15) 41:      ", " 15) 41: Cannot Move", 1)
    text = text.replace("  2) 42: 6/4 8/4", "  2) 24: 6/4 8/4", 1)  # dice reversed
    last = text.rindex("Wins 2 points")
    return text[:last] + "Wins 2 points and the match" + text[last + len("Wins 2 points") :]


def test_xg_variant_reads_with_warnings_and_same_plays() -> None:
    original = mat.read_record(sample())
    found: list[str] = []
    variant = mat.read_record(xg_variant(), found)
    # Same plays; only the written order of the dice of one roll differs.
    assert play_signature(variant) == [
        [Roll(0, (2, 4)) if x == Roll(0, (4, 2)) and n == 0 else x for x in game]
        for n, game in enumerate(play_signature(original))
    ]
    assert play_signature(variant) != play_signature(original)
    notes = "\n".join(found)
    assert "byte-order mark" in notes
    assert "'Player 1'" in notes and "'CubeLimit'" in notes
    assert "24/15" in notes and "combined" in notes
    assert "Cannot Move" in notes
    assert "dice 24 written smaller first" in notes
    assert variant.tag("Site") == "eXtreme Gammon"
    # Through the Match: same final score, warnings passed on.
    warnings: list[str] = []
    m = mat.read(xg_variant(), warnings)
    assert m.score == (0, 5) and len(warnings) == len(found)


def test_combined_move_is_expanded_to_single_steps() -> None:
    record = mat.read_record(sample().replace("63: 24/21 21/15 ", "63: 24/15", 1))
    roll = written(record.games[0])[1]
    assert isinstance(roll, tuple) and roll[:2] == (1, (6, 3))
    steps = roll[2]
    assert sorted(s for s, _, _ in steps) == [18, 24] or sorted(s for s, _, _ in steps) == [21, 24]
    assert steps[0][0] == 24 and steps[-1][1] == 15


def test_xg_wider_columns_and_resign_after_roll() -> None:
    # XG puts the right column at 39; "???" after a roll: rolled, then resigned.
    text = (
        " 3 point match\n\n Game 1\n alice : 0                            bob : 0\n"
        "  1) 31: 8/5 6/5                       42: 8/4 6/4\n"
        "  2) 65: ???\n"
        "                                        Wins 2 points\n"
    )
    record = mat.read_record(text)
    g = written(record.games[0])
    assert [x[0] for x in g[:2] if isinstance(x, tuple)] == [0, 1]
    assert g[2] == (0, (6, 5), None)
    assert g[3] == Resign(0, GAMMON)
    assert record.games[0][-1] == GameEnd(1, 2, GAMMON, EndReason.RESIGNED)


def test_closed_out_turn_is_a_pass_through_match() -> None:
    # R13: a player on the bar against a closed board does not roll.  gnubg writes a
    # dance; Match passes the turn; we write that half-row empty and read it back.
    notes: list[str] = []
    m = mat.read(mat.write_record(closed_out_game()), notes)
    assert any("closed out" in n for n in notes)
    again = m.record
    passes = [a for a in again.actions() if isinstance(a, Pass)]
    assert passes and all(a.dice is None for a in passes)
    text = mat.write_record(again)
    warnings: list[str] = []
    back = mat.read_record(text, warnings)
    assert back.games == again.games and warnings == []
    assert play_signature(mat.read(text).record) == play_signature(again)


# ----------------------------------------------------------------------------- errors


def error_of(text: str) -> MatchFileError:
    with pytest.raises(MatchFileError) as info:
        mat.read(text)
    return info.value


def test_illegal_play_raises_with_its_line() -> None:
    text = sample().replace("63: 24/21 21/15", "63: 24/20 21/15", 1)
    err = error_of(text)
    assert err.line == 7 and "24/20 21/15" in str(err) and str(err).startswith("line 7:")


def test_garbage_row_raises_with_its_line() -> None:
    lines = sample().splitlines(keepends=True)
    lines[11] = "  6) hello world\n"
    assert error_of("".join(lines)).line == 12


def test_take_without_double_raises_with_its_line() -> None:
    text = (
        sample()
        .replace(" 10)  Takes ", " 10)  Takes ", 1)
        .replace("  9) 54:                          Doubles => 2", "  9) 54:", 1)
    )
    err = error_of(text)
    assert err.line == 16 and "no double pending" in str(err)


def test_missing_header_and_bad_score_line() -> None:
    assert error_of(" Game 1\n").line == 1
    assert "point match" in str(error_of('; [Site "x"]\n'))
    err = error_of(" 5 point match\n\n Game 1\n gnubg 0 root 0\n")
    assert err.line == 4


def test_opening_double_roll_refused() -> None:
    # R3: the opening roll is never a double.
    text = " 3 point match\n\n Game 1\n a : 0        b : 0\n  1) 33: 8/5 8/5 6/3 6/3\n"
    err = error_of(text)
    assert err.line == 5 and "R3" in str(err)


def test_double_in_crawford_game_refused_by_the_rules() -> None:
    # R28: score 2-0 in a 3-point match is the Crawford game: no double.
    text = (
        " 3 point match\n\n Game 1\n a : 2                          b : 0\n"
        "  1) 31: 8/5 6/5                 42: 8/4 6/4\n"
        "  2)  Doubles => 2\n"
    )
    err = error_of(text)
    assert err.line == 6 and "refused by the rules" in str(err)


def test_dead_cube_redouble_refused_by_the_rules() -> None:
    # R29: at 0-3 in a 5-point match the cube at 2 is dead for the player at 3.
    text = (
        " 5 point match\n\n Game 1\n a : 0                          b : 3\n"
        "  1) 31: 8/5 6/5                 42: 8/4 6/4 \n"
        "  2)  Doubles => 2                Takes\n"
        "  3) 64: 24/18 13/9               Doubles => 4\n"
    )
    err = error_of(text)  # the file itself is well formed: the double is read, then refused
    assert err.line == 7 and "a double refused by the rules" in str(err)
    with pytest.raises(MatchFileError) as info:
        mat.read_record(text)
    assert str(info.value) == str(err)


# ----------------------------------------------------------------------------- properties


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**9), length=st.sampled_from([0, 1, 3, 5, 7]))
def test_random_records_round_trip(seed: int, length: int) -> None:
    record = random_record(seed, length, larger_first=False)
    warnings: list[str] = []
    back = mat.read_record(mat.write_record(record), warnings)
    assert back.games == record.games
    assert all("smaller first" in w for w in warnings)
    assert mat.write_record(back) == mat.write_record(record)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**9), length=st.sampled_from([0, 1, 3, 5]))
def test_random_matches_round_trip_through_match(seed: int, length: int) -> None:
    m = random_match(seed, length)
    warnings: list[str] = []
    back = mat.read(mat.write(m), warnings)
    assert warnings == []
    assert play_signature(back.record) == play_signature(as_written(m))
    assert back.score == m.score and back.is_over == m.is_over


def test_money_session_with_beaver_raccoon_and_jacoby() -> None:
    # R31-R32: money conventions survive the file (gnubg writes a beaver as a double by
    # the doubled player); a resigned gammon at cube 8 scores 16 (R20-R21).
    m = beavered_money_match()
    text = mat.write(m)
    assert '; [Jacoby "On"]' in text and " 0 point match" in text
    # As gnubg 1.07 exports it: "Beavers" for both, and the take of a beaver left blank.
    assert "  2)  Beavers => 4                Beavers => 8\n" in text
    assert "  3)                             65: 24/18 18/13 \n" in text
    warnings: list[str] = []
    back = mat.read(text, warnings)
    assert warnings == [] and back.score == (0, 16) and back.rules.jacoby
    assert back.record.games == m.record.games


def test_match_without_crawford_keeps_the_rule() -> None:
    m = Match(rules=Rules.match(3, crawford=False))
    m.roll((3, 1))
    m.move("8/5 6/5")
    text = mat.write(m)
    assert '; [Crawford "Off"]' in text
    assert mat.read(text).rules.crawford is False


def test_resigned_gammon_under_jacoby_scores_as_offered() -> None:
    # R21/R31: gnubg scores an accepted resignation as offered even under the Jacoby rule
    # (checked with gnubg 1.07); Match and the reader's own replay agree, so no warning.
    m = Match(rules=Rules.money(jacoby=True))
    m.roll((3, 1))
    m.move("8/5 6/5")
    m.resign("gammon", player=1)
    m.accept_resignation()
    assert m.score == (2, 0)
    text = mat.write(m)
    assert "Wins 2 points" in text
    found: list[str] = []
    record = mat.read_record(text, found)
    assert found == [] and record.games[0][-1] == GameEnd(0, 2, GAMMON, EndReason.RESIGNED)
    warnings: list[str] = []
    assert mat.read(text, warnings).score == (2, 0) and warnings == []


def test_crlf_line_endings_read_the_same() -> None:
    text = sample()
    warnings: list[str] = []
    record = mat.read_record(text.replace("\n", "\r\n"), warnings)
    assert warnings == [] and record.games == mat.read_record(text).games


_EDITS = st.lists(
    st.tuples(
        st.floats(0, 1),
        st.integers(0, 8),
        st.sampled_from(
            [
                " ",
                "\n",
                "1",
                "6",
                ":",
                "/",
                "*",
                ")",
                "0",
                "25/",
                "Wins 2 points",
                " Doubles => 2",
                " Takes",
                " Drops",
                " Game 2\n",
                "x",
                "",
            ]
        ),
    ),
    min_size=1,
    max_size=4,
)


def mutate(text: str, edits: list[tuple[float, int, str]]) -> str:
    for where, width, new in edits:
        i = int(where * len(text))
        text = text[:i] + new + text[i + width :]
    return text


@settings(max_examples=150, deadline=None)
@given(edits=_EDITS)
def test_damaged_files_read_or_raise_match_file_error(edits: list[tuple[float, int, str]]) -> None:
    # Bad input gives a clear, specific error (with a line when one is to blame), never
    # another exception.
    text = mutate(sample(), edits)
    try:
        mat.read(text)
    except MatchFileError as exc:
        assert exc.line is None or 1 <= exc.line <= text.count("\n") + 1


def test_game_after_an_unfinished_game_is_refused_with_its_line() -> None:
    # Game 2's first roll was refused as out of turn, because game 1 had not ended.
    text = (
        " 3 point match\n\n Game 1\n a : 0                          b : 0\n"
        "  1) 31: 8/5 6/5\n\n Game 2\n a : 0                          b : 0\n"
        "  1) 42: 8/4 6/4\n"
    )
    err = error_of(text)
    assert err.line == 9 and "game 2 begins before game 1 is over" in str(err)


def test_R26_a_file_whose_cube_went_past_64_is_read_with_that_ceiling() -> None:
    """gnubg lets a money cube pass 64 (R26 sets no ceiling); such a file reads, its match
    under the smallest power-of-two ceiling that holds its cube, and plays no further."""
    m = Match(rules=Rules.money(max_cube=256), dice=FixedDice([(3, 1)] + [(2, 1)] * 20))
    m.roll()
    m.move("8/5 6/5")
    for _ in range(7):  # 2, 4, ... 128, each side in turn
        m.double()
        m.take()
        m.roll()
        assert m.dice is not None
        m.move(str(m.position.legal_moves(m.dice)[0]))
    assert m.cube_value == 128
    back = mat.read(mat.write(m, ("a", "b")))
    assert back.cube_value == 128 and back.rules.max_cube == 128
    assert back.position == m.position
    with pytest.raises(CubeError):
        back.double()  # beyond the file's ceiling


@pytest.mark.parametrize("seed", [None, 1, 2, 3])
def test_rows_are_the_numbered_rows_a_game_is_written_on(seed: int | None) -> None:
    """Each action's row (what an analysis numbers its decisions by) is one the file
    writes (an accepted resignation's "Wins" line has none), every written row holds an
    action, and the rows never go back."""
    if seed is None:
        text = mat.write(beavered_money_match())
    else:
        text = mat.write(random_match(seed, 5), ("L", "R"))
    record = mat.read_record(text)
    parts = re.split(r"^ Game \d+\n", text, flags=re.M)[1:]
    games = [g for g in record.games if mat.rows(g)]  # not a game begun after the last
    assert len(parts) == len(games) > 0
    for game, part in zip(games, parts, strict=True):
        rows = [r for _, r in mat.rows(game)]
        assert rows == sorted(rows) and len(rows) == len(written(game))
        on_rows = {int(n) for n in re.findall(r"^ *(\d+)\)", part, re.M)}
        played = [r for a, r in mat.rows(game) if not isinstance(a, Resign)]
        assert set(played) == on_rows

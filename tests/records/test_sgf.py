"""SGF GM[6] (formats.md §6): gnubg's sample, both ways, errors, round trips."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from records_helpers import play_signature, random_match, random_record, written
from reference import SAMPLES

from backgammon.core.values import BAR, OFF, GameResult
from backgammon.play.dice import FixedDice
from backgammon.play.match import Match
from backgammon.play.record import Double, Drop, EndReason, GameEnd, GameStart, Resign
from backgammon.records import mat, sgf
from backgammon.records.convert import convert, convert_text, detect_format
from backgammon.records.errors import MatchFileError
from backgammon.records.written import as_written

SGF_SAMPLE = SAMPLES / "gnubg107_game2_no_analysis.sgf"
MAT_SAMPLE = SAMPLES / "gnubg107_5pt_match.mat"


def test_sample_root_and_moves() -> None:
    # formats.md §6: MI[length:5][game:1][ws:0][bs:2] RU[Crawford] RE[B+1].
    warnings: list[str] = []
    record = sgf.read_record(SGF_SAMPLE.read_text(), warnings)
    assert warnings == []
    rules = record.rules
    assert rules.match_length == 5 and record.players == ("gnubg", "root") and rules.crawford
    game, *after = record.games
    assert all(len(g) == 1 for g in after)  # the next game begun, nothing played
    assert game[0] == GameStart(2, (0, 2), False)
    assert game[-1] == GameEnd(1, 1, GameResult.SINGLE, EndReason.DROPPED)
    # ;B[54lqae] = 13/8 24/20 from Black's side; ;B[41yaae] = 25/24 24/20* (hit found).
    shown = written(game)
    assert shown[0] == (1, (5, 4), ((13, 8, False), (24, 20, False)))
    assert shown[4] == (1, (4, 1), ((25, 24, False), (24, 20, True)))
    assert shown[-2:] == [Double(1, 2), Drop(0)]


def test_sample_rewrites_byte_exact() -> None:
    text = SGF_SAMPLE.read_text()
    assert sgf.write_record(sgf.read_record(text)) == text


def test_sgf_and_mat_samples_agree() -> None:
    # The same game written by gnubg in both formats maps action for action.
    from_sgf = sgf.read_record(SGF_SAMPLE.read_text()).games[0]
    from_mat = mat.read_record(MAT_SAMPLE.read_text()).games[1]
    assert from_sgf == from_mat


def test_sample_replays_through_match_from_its_score() -> None:
    warnings: list[str] = []
    m = sgf.read(SGF_SAMPLE.read_text(), warnings)
    assert warnings == []
    assert m.score == (0, 3)  # 0-2 before, root won 1 by the drop (R24)


def test_mat_sample_to_sgf_and_back_is_exact() -> None:
    text = MAT_SAMPLE.read_text()
    as_sgf, notes = convert_text(text, "mat", "sgf")
    assert notes == []
    assert as_sgf.count("(;FF[4]GM[6]") == 3
    assert "DT[2026-11-29]" in as_sgf  # EventDate -> DT (game 0 only, as gnubg)
    back, _ = convert_text(as_sgf, "sgf", "mat")
    assert back == text


def test_convert_files(tmp_path: Path) -> None:
    target = tmp_path / "m.sgf"
    assert convert(MAT_SAMPLE, target) == []
    assert detect_format(target.read_text()) == "sgf"
    again = tmp_path / "m.mat"
    convert(target, again)
    assert again.read_text() == MAT_SAMPLE.read_text()


def test_names_with_brackets_are_escaped() -> None:
    m = Match(length=1, dice=FixedDice(()))
    m.roll((3, 1))
    m.move("8/5 6/5")
    m.resign("single", player=1)
    m.accept_resignation()
    record = dataclasses.replace(m.record, players=("a]b", "c\\d"))
    text = sgf.write_record(record)
    assert "PW[a\\]b]PB[c\\\\d]" in text and "RE[W+1R]" in text
    back = sgf.read_record(text)
    assert back.players == ("a]b", "c\\d") and back.games == record.games


def test_setup_dice_node_then_resignation() -> None:
    # gnubg writes dice rolled but not played as ;PL[W]DI[65] (MOVE_SETDICE).
    text = (
        "(;FF[4]GM[6]MI[length:3][game:0][ws:0][bs:0]PW[a]PB[b]RE[B+2R]\n"
        ";W[31hefe]\n;B[42qusu]\n;PL[W]DI[65])\n"
    )
    game = sgf.read_record(text).games[0]
    assert written(game)[2] == (0, (6, 5), None)
    assert written(game)[3] == Resign(0, GameResult.GAMMON)
    assert game[-1] == GameEnd(1, 2, GameResult.GAMMON, EndReason.RESIGNED)
    assert sgf.write_record(sgf.read_record(text)).endswith(";PL[W]DI[65])\n")


# ----------------------------------------------------------------------------- errors


def error_of(text: str) -> MatchFileError:
    with pytest.raises(MatchFileError) as info:
        sgf.read(text)
    return info.value


def test_errors_carry_line_numbers() -> None:
    good = SGF_SAMPLE.read_text()
    lines = good.splitlines(keepends=True)
    lines[4] = ";W[41xtfa]\n"  # 20/1: not a play of 41
    err = error_of("".join(lines))
    assert err.line == 5 and "41" in str(err)
    assert error_of("(;FF[4]GM[1])").line == 1  # not backgammon
    assert error_of("(;FF[4]GM[6]\n;W[31hefe\n").line == 2  # value never closed
    assert error_of("(;GM[6]\n;W[3xhefe])").line == 2  # not a move
    err = error_of("(;GM[6]\n;W[31hefe]\n;W[42hdfd])")  # out of turn
    assert err.line == 3 and "on turn" in str(err)
    assert "setup" in str(error_of("(;GM[6]\n;AE[a:y])"))


def test_variations_follow_main_line_with_warning() -> None:
    text = "(;GM[6]MI[length:1]\n;W[31hefe](;B[42qusu])(;B[21lnst]))"
    warnings: list[str] = []
    record = sgf.read_record(text, warnings)
    assert written(record.games[0])[1] == (1, (4, 2), ((8, 4, False), (6, 4, False)))
    assert any("variations" in w for w in warnings)


# ----------------------------------------------------------------------------- properties


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**9), length=st.sampled_from([0, 1, 3, 5, 7]))
def test_random_records_round_trip(seed: int, length: int) -> None:
    record = random_record(seed, length)
    text = sgf.write_record(record)
    warnings: list[str] = []
    back = sgf.read_record(text, warnings)
    assert back.games == record.games and warnings == []
    assert sgf.write_record(back) == text


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**9), length=st.sampled_from([0, 1, 3, 5]))
def test_random_matches_round_trip_through_match(seed: int, length: int) -> None:
    m = random_match(seed, length)
    warnings: list[str] = []
    back = sgf.read(sgf.write(m), warnings)
    assert warnings == []
    assert play_signature(back.record) == play_signature(as_written(m))
    assert back.score == m.score


@settings(max_examples=150, deadline=None)
@given(
    edits=st.lists(
        st.tuples(
            st.floats(0, 1),
            st.integers(0, 6),
            st.sampled_from(
                [
                    "[",
                    "]",
                    ";",
                    "(",
                    ")",
                    "\\",
                    "W[double]",
                    "B[take]",
                    "a",
                    "z",
                    "y",
                    "6",
                    "\n",
                    "RE[W+1R]",
                    "",
                ]
            ),
        ),
        min_size=1,
        max_size=4,
    )
)
def test_damaged_files_read_or_raise_match_file_error(
    edits: list[tuple[float, int, str]],
) -> None:
    text = SGF_SAMPLE.read_text()
    for where, width, new in edits:
        i = int(where * len(text))
        text = text[:i] + new + text[i + width :]
    try:
        sgf.read(text)
    except MatchFileError as exc:
        assert exc.line is None or 1 <= exc.line <= text.count("\n") + 1


def test_point_letters_name_each_point_once_from_each_side() -> None:
    """SGF GM[6] move letters: a-x are the points 1-24 from white's side and 24-1 from
    black's, y the bar, z off; any other letter is an error of the file."""
    letters = "abcdefghijklmnopqrstuvwx"
    for player in (0, 1):
        points = [sgf.point_of_letter(c, player) for c in letters]
        assert sorted(points) == list(range(1, 25))
        assert sgf.point_of_letter("y", player) == BAR
        assert sgf.point_of_letter("z", player) == OFF
    assert all(sgf.point_of_letter(c, 0) + sgf.point_of_letter(c, 1) == 25 for c in letters)
    assert sgf.point_of_letter("a", 0) == 1 and sgf.point_of_letter("a", 1) == 24
    with pytest.raises(MatchFileError) as err:
        sgf.point_of_letter("A", 0, line=7)
    assert err.value.line == 7

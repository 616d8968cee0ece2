"""Match ID and XGID against the vectors checked with gnubg 1.07 (reference/vectors.json,
xgid_roundtrip.json), and the Position ID of match states against gnubg_nn."""

from __future__ import annotations

import base64
import json
import random
from dataclasses import replace
from typing import Any

import gnubg_nn
import pytest
from matchhelp import board
from reference import REFERENCE

from backgammon.evaluation.cube import CubeState
from backgammon.ids.gnubg import (
    GameState,
    InvalidMatchIdError,
    MatchIdFields,
    decode_match_id,
    encode_match_id,
    split_gnubg_id,
)
from backgammon.ids.xgid import InvalidXgidError, gnubg_id_from_xgid, parse_xgid, xgid_from_gnubg_id
from backgammon.play.dice import FixedDice, SeededDice
from backgammon.play.match import IllegalPositionError, Match, MatchError, Phase
from backgammon.play.rules import Rules

VECTORS: dict[str, Any] = json.loads((REFERENCE / "vectors.json").read_text())
ROUNDTRIP: list[dict[str, Any]] = json.loads((REFERENCE / "xgid_roundtrip.json").read_text())


def _fields(v: dict[str, int]) -> MatchIdFields:
    return MatchIdFields(
        cube_value=1 << v["cube_log2"],
        cube_owner=None if v["cube_owner"] == 3 else v["cube_owner"],
        dice_owner=v["dice_owner"],
        crawford=bool(v["crawford"]),
        game_state=GameState(v["game_state"]),
        turn=v["turn"],
        doubled=bool(v["doubled"]),
        resigned=v["resigned"],
        dice=(v["die1"], v["die2"]) if v["die1"] else (),
        match_length=v["match_to"],
        score=(v["score0"], v["score1"]),
        no_jacoby=bool(v["no_jacoby"]),
    )


@pytest.mark.parametrize("vec", VECTORS["match_ids"], ids=lambda v: v["id"])
def test_match_id_vectors_both_ways(vec: dict[str, Any]) -> None:
    expected = _fields(vec["fields"])
    assert decode_match_id(vec["id"]) == expected
    assert encode_match_id(expected) == vec["id"]


@pytest.mark.parametrize(
    "vec",
    [v for v in VECTORS["match_ids"] if v["fields"]["game_state"] == 1],
    ids=lambda v: v["id"],
)
def test_match_id_vectors_through_a_match(vec: dict[str, Any]) -> None:
    pos_id = vec.get("position_id", "4HPwATDgc/ABMA")
    m = Match.from_gnubg_id(f"{pos_id}:{vec['id']}")
    f = vec["fields"]
    if f["match_to"] and not f["no_jacoby"]:
        # An old-style ID (bit 66 clear in a match): we write bit 66 as gnubg 1.07 does.
        expected = encode_match_id(replace(_fields(f), no_jacoby=True))
        assert expected[:-1] == vec["id"][:-1]
    else:
        expected = vec["id"]
    assert m.gnubg_id() == f"{pos_id}:{expected}"
    assert m.cube_value == 1 << f["cube_log2"]
    assert m.score == (f["score0"], f["score1"])
    assert m.turn == f["turn"]
    assert m.is_crawford_game == bool(f["crawford"])


def test_match_over_vector_through_a_match() -> None:
    m = Match.from_gnubg_id("4HPwATDgc/ABMA:EQKgAAAAKAAE")
    assert m.is_over and m.winner == 1 and m.score == (0, 5)
    assert m.match_id() == "EQKgAAAAKAAE"


def test_manual_example_match_id() -> None:
    # gnubg manual: 9-point match, 2-4, player 0 owns the 2-cube, player 1 has rolled 52.
    m = Match.from_gnubg_id("4HPwATDgc/ABMA:QYkqASAAIAAA")
    assert (m.rules.match_length, m.score, m.cube_value, m.cube_owner) == (9, (2, 4), 2, 0)
    assert m.turn == 1 and m.dice == (5, 2) and m.phase is Phase.MOVE
    m.move("13/11 13/8")
    # gnubg shows these after the same move (formats.md §1.5, §2.3): bit 66 aside.
    assert m.gnubg_id() == "4PPIATDgc/ABMA:AQEgASAAIAAE"


@pytest.mark.parametrize("vec", VECTORS["xgids"], ids=lambda v: v["xgid"])
def test_xgid_vectors(vec: dict[str, Any]) -> None:
    ours = gnubg_id_from_xgid(vec["xgid"])
    assert ours == ":".join(vec["ours"])
    if vec["agree"]:  # gnubg 1.07 printed the same IDs
        assert ours == ":".join(vec["gnubg_cli"])
    back = xgid_from_gnubg_id(ours, max_cube=parse_xgid(vec["xgid"]).max_cube)
    if "ours_back_to_xgid" in vec:
        assert back == vec["ours_back_to_xgid"]
    # Through a match the whole XGID comes back, beaver flag and max cube included.
    assert Match.from_xgid(vec["xgid"]).xgid() == vec["xgid"]
    if not parse_xgid(vec["xgid"]).beavers:
        assert back == vec["xgid"]


@pytest.mark.parametrize("vec", ROUNDTRIP, ids=lambda v: v["xgid"])
def test_xgid_roundtrip_vectors(vec: dict[str, Any]) -> None:
    gnubg_id = ":".join(vec["gnubg"])
    assert xgid_from_gnubg_id(gnubg_id) == vec["xgid"]
    assert gnubg_id_from_xgid(vec["xgid"]) == ":".join(vec["gnubg_set_xgid_gives"])
    # And through a match, as far as gnubg IDs hold (bit 66 is gnubg's own choice).
    m = Match.from_gnubg_id(gnubg_id)
    assert m.xgid() == vec["xgid"].rsplit(":", 1)[0] + ":6"  # our default max cube, 64
    assert Match.from_xgid(vec["xgid"]).gnubg_id() == ":".join(vec["gnubg_set_xgid_gives"])


def test_xgid_pending_double_names_the_doubler() -> None:
    m = Match.from_xgid("XGID=-b----E-C---eE---c-e----B-:1:-1:-1:D:1:3:0:7:10")
    assert m.phase is Phase.DOUBLED and m.on_roll == 0 and m.turn == 1
    assert (m.cube_value, m.cube_owner, m.score) == (2, 0, (3, 1))
    m.take()
    assert (m.cube_value, m.cube_owner, m.turn) == (4, 1, 0)


def test_xgid_beaver_and_raccoon_pending() -> None:
    rules = Rules.money(beavers=True, raccoons=True)
    m = Match(rules=rules, dice=FixedDice([(3, 1)]))
    m.roll()
    m.move("8/5 6/5")
    m.double()
    m.beaver()
    assert ":B:" in m.xgid()
    again = Match.from_xgid(m.xgid(), rules=rules)
    assert (
        again.xgid() == m.xgid()
        and again.turn == m.turn
        and again.legal_actions() == m.legal_actions()
    )
    m.raccoon()
    assert ":R:" in m.xgid()
    assert Match.from_xgid(m.xgid(), rules=rules).state.beavers == 2


@pytest.mark.parametrize(
    "bad",
    [
        "",
        "cIkFAAAAAAA",  # 11 characters
        "cIkFAAAAAAA!",  # not base64
        "cIf/AAAAAAAE",  # dice 7
        "cIkFAAAAAA==",  # padding is not one of gnubg's characters
        "cIkFAAAAAA²A",  # not ASCII
    ],
)
def test_bad_match_ids(bad: str) -> None:
    with pytest.raises(InvalidMatchIdError):
        decode_match_id(bad)


@pytest.mark.parametrize(
    "bad",
    [None, 123, b"4HPwATDgc/ABMA:cIkKAAAAAAAA", ["4HPwATDgc/ABMA:cIkKAAAAAAAA"]],
)
def test_ids_that_are_not_text_are_refused(bad: object) -> None:
    with pytest.raises(InvalidMatchIdError):
        decode_match_id(bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidMatchIdError):
        split_gnubg_id(bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidMatchIdError):
        Match.from_gnubg_id(bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidXgidError):
        parse_xgid(bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidXgidError):
        Match.from_xgid(bad)  # type: ignore[arg-type]


def test_a_bad_position_in_a_gnubg_id_is_a_bad_gnubg_id() -> None:
    with pytest.raises(InvalidMatchIdError):
        split_gnubg_id("4HPwATDgc/AB!A:cIkKAAAAAAAA")


def test_match_id_range_checks() -> None:
    too_long = encode_match_id(MatchIdFields(match_length=64))
    decode_match_id(too_long)
    with pytest.raises(InvalidMatchIdError):
        decode_match_id(encode_match_id(MatchIdFields(match_length=65)))
    with pytest.raises(InvalidMatchIdError):
        decode_match_id(encode_match_id(MatchIdFields(match_length=5, score=(6, 0))))
    with pytest.raises(InvalidMatchIdError):
        decode_match_id(encode_match_id(MatchIdFields(crawford=True)))  # money + Crawford
    with pytest.raises(InvalidMatchIdError):
        encode_match_id(MatchIdFields(cube_value=3))
    with pytest.raises(InvalidMatchIdError):
        split_gnubg_id("4HPwATDgc/ABMA")


@pytest.mark.parametrize(
    "bad",
    [
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:3:0",  # 9 fields
        "XGID=-b----E-C---eE---c-e----B-:0:0:2:52:0:0:3:0:10",  # turn 2
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:72:0:0:3:0:10",  # die 7
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:X:0:0:3:0:10",  # dice field
        "XGID=-b----E-C---eE---c-e----B-:0:2:1:52:0:0:3:0:10",  # cube position 2
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:2:7:10",  # rules 2 in a match
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:4:0:10",  # rules 4 in money
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:65:10",  # length 65
        "XGID=-b----E-C---eE---c-e----Z-:0:0:1:52:0:0:0:0:10",  # bad checker letter
        "XGID=-b----E-C---eE---c-e----B:0:0:1:52:0:0:0:0:10",  # 25 characters
        "XGID=-b----E-C---eE---c-e----B-:a:0:1:52:0:0:0:0:10",  # not a number
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:5²:0:0:3:0:10",  # a superscript die
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:²²:0:0:3:0:10",  # superscript dice
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:3:0:1²",  # a superscript number
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:3:0:١٠",  # Arabic-Indic digits
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:3:0:1_0",  # Python's digit grouping
        "XGID=-b----E-C---eE---c-e----B-:0:0:+1:52:0:0:3:0:10",  # a sign XG never writes
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:52: 0:0:3:0:10",  # a space
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:32768:0:3:0:10",  # a score no ID holds
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:3:0:" + "9" * 5000,  # a huge number
    ],
)
def test_bad_xgids(bad: str) -> None:
    with pytest.raises(InvalidXgidError):
        parse_xgid(bad)


def test_inconsistent_ids_are_refused_by_match() -> None:
    with pytest.raises(MatchError):  # a beaver pending in a match
        Match.from_xgid("XGID=-b----E-C---eE---c-e----B-:1:1:1:B:0:0:0:7:10")
    with pytest.raises(MatchError):  # the rules' length differs
        Match.from_xgid("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:7:10", rules=Rules())
    with pytest.raises(MatchError):  # turn and dice owner differ with nothing pending
        Match.from_gnubg_id("4HPwATDgc/ABMA:cAEAAAAAAAAE")


def test_positions_no_game_reaches_are_refused_by_match() -> None:
    # Both players on the bar against closed boards: gnubg says "Illegal position"; once
    # loaded, every roll passed the turn for ever.
    with pytest.raises(IllegalPositionError):
        Match.from_gnubg_id("27YBANC2bQAABA:cAkAAAAAAAAA")
    with pytest.raises(IllegalPositionError):  # the same through an XGID
        Match.from_xgid("XGID=aBBBBBB------------bbbbbbA:0:0:1:00:0:0:0:0:10")
    # A player with all 15 checkers off while the game goes on.
    with pytest.raises(IllegalPositionError):
        Match.from_gnubg_id(f"{board({}, {6: 15}).position_id()}:cAkAAAAAAAAA")
    with pytest.raises(IllegalPositionError):
        Match.from_gnubg_id(f"{board({1: 1}, {}).position_id()}:cAkAAAAAAAAA")
    # Only one of them closed out is a position like any other.
    one = board({25: 1, 6: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 13: 3})
    assert Match.from_gnubg_id(f"{one.position_id()}:cAkAAAAAAAAA").position == one
    assert Match.from_gnubg_id(f"{one.flip().position_id()}:cAkAAAAAAAAA").position == one.flip()


def _gnubg_board(m: Match) -> list[list[int]]:
    not_on_roll, on_roll = m.position.arrays()
    return [list(not_on_roll), list(on_roll)]


def test_position_ids_agree_with_gnubg_nn_through_whole_matches() -> None:
    import random

    rng = random.Random(11)
    checked = 0
    for seed in range(4):
        m = Match(length=5, dice=SeededDice(seed))
        while not m.is_over and checked < 2000:
            acts = m.legal_actions()
            a = rng.choice([x for x in acts if x != "resign"] or acts)
            if a == "move":
                m.move(rng.choice(m.legal_moves()))
            else:
                getattr(
                    m, {"accept": "accept_resignation", "reject": "reject_resignation"}.get(a, a)
                )()
            if m.phase is not Phase.OPENING:
                pos_id = m.gnubg_id().split(":")[0]
                assert gnubg_nn.position_id(_gnubg_board(m)) == pos_id
                board = gnubg_nn.board_from_position_id(pos_id)
                assert [list(x) for x in board] == _gnubg_board(m)
                checked += 1
    assert checked > 500


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("2K01BgCG7x4AQA:iAFgAQAAAAAE", "a Crawford game needs a side 1 away"),
        ("+gMAAN47AQAAAA:iIEyAAAAAAAE", "no doubling in the Crawford game"),
        ("XGID=---c--E-E---dC---b-cAb-a-A:15:0:1:25:0:0:0:7:6", "a centred cube is at 1"),
    ],
)
def test_states_the_rules_cannot_reach_are_refused_by_the_readers(text: str, why: str) -> None:
    """R (Crawford): the Crawford game comes when a side is 1 away and its cube stays at 1; a
    centred cube in a match is at 1.  IDs saying otherwise are refused where they are read,
    so no face meets them later (they were 500s and tracebacks)."""
    read = Match.from_xgid if text.startswith("XGID") else Match.from_gnubg_id
    with pytest.raises(MatchError, match=why):
        read(text)


def test_whatever_the_readers_accept_the_cube_evaluation_accepts() -> None:
    """Mutated match IDs (bits flipped in valid ones): each one :meth:`Match.from_gnubg_id`
    accepts with a decision to make gives a cube state the evaluators take."""
    rng = random.Random(20)
    m = Match(7, dice=SeededDice(20))
    bases = []
    while len(bases) < 40:
        m.roll() if m.phase in (Phase.OPENING, Phase.ROLL) else m.move(m.legal_moves()[0])
        if m.phase is Phase.MOVE:
            bases.append(m.gnubg_id())
    accepted = 0
    for _ in range(6_000):
        pos_id, match_id = rng.choice(bases).split(":")
        raw = bytearray(base64.b64decode(match_id + "="))
        for _ in range(rng.randint(1, 3)):
            raw[rng.randrange(len(raw))] ^= 1 << rng.randrange(8)
        text = f"{pos_id}:{base64.b64encode(bytes(raw)).decode()[:12]}"
        try:
            match = Match.from_gnubg_id(text)
        except ValueError:
            continue
        if match.phase is Phase.OVER:  # nothing to evaluate: the faces say so first
            continue
        CubeState.from_match(match)
        accepted += 1
    assert accepted > 500


def test_a_match_won_by_resigning_a_double_keeps_the_double_in_its_xgid() -> None:
    """R27 with R21: a match that ends when the doubled player resigns instead of answering
    is over, and its XGID still shows the double (as gnubg's final Match ID does); read back,
    it writes the same XGID (found by tests/play/test_match_machine.py)."""
    text = "XGID=-aAAbBACD--AA--b---cababaA:0:0:1:D:5:4:0:5:1"
    for rules in (None, Rules(match_length=5, crawford=False, max_cube=2)):
        m = Match.from_xgid(text, rules=rules)
        assert m.is_over
        assert m.xgid() == text

"""Bounded, seeded fuzzing of every reader of text (IDs, XGIDs, move text, .mat, SGF).

Each reader gets random strings, truncated, repeated and mutated real inputs (the test
data in ``tests/data``, and matches written by our own writers), as text and as bytes.  It
must read the input or refuse it with a specific ``ValueError`` subclass (never a plain
``ValueError``) carrying a message, within a second plus a tenth of a millisecond per
character (a bound on linear time: a repeated SGF match of 18,000 characters, replayed move
by move, takes 0.4 s idle and well over twice that beside other work); any other exception
fails.  The seeds are fixed, so a failure names an input that reproduces it.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

import pytest
from fuzzhelp import Reader, blobs, check, texts
from records_helpers import beavered_money_match, closed_out_game, random_match
from reference import REFERENCE, SAMPLES

from backgammon import ids
from backgammon.core.position import Position
from backgammon.core.values import iter_rolls
from backgammon.play.match import Match
from backgammon.records import convert, mat, sgf
from backgammon.records.walk import walk

# ----------------------------------------------------------------------------- inputs

VECTORS = json.loads((REFERENCE / "vectors.json").read_text())
MOVES = json.loads((REFERENCE / "move_vectors.json").read_text())
POSITION_IDS = [v["id"] for v in VECTORS["position_ids"]]
MATCH_IDS = [v["id"] for v in VECTORS["match_ids"]]
GNUBG_IDS = [f"{p}:{m}" for p in POSITION_IDS[:6] for m in MATCH_IDS[:6]]
XGIDS = [v["xgid"] for v in VECTORS["xgids"]] + [
    v["xgid"] for v in json.loads((REFERENCE / "xgid_roundtrip.json").read_text())
]
MOVE_TEXTS = sorted(
    {r["spelling"] for c in MOVES["parse"] for r in c["results"]}
    | {m for c in MOVES["hint"] for m in c["gnubg_hint_moves"]}
)


def _our_files(writer: Callable[[Match], str]) -> list[str]:
    """Matches written by our writer: random ones, beavers and raccoons, a closed board."""
    closed = walk(closed_out_game())
    matches = [random_match(7, 5), random_match(8, 0), beavered_money_match(), closed]
    return [writer(m) for m in matches]


MAT_FILES = [p.read_text() for p in sorted(SAMPLES.glob("*.mat"))] + _our_files(mat.write)
SGF_FILES = [p.read_text() for p in sorted(SAMPLES.glob("*.sgf"))] + _our_files(sgf.write)

# ----------------------------------------------------------------------------- readers

ROLLS = list(iter_rolls())
MOVE_POSITIONS = (
    Position.initial(),
    # Two of X's checkers on the bar, O's home board half made.
    Position.from_simple("2 -2 0 0 0 0 5 0 3 0 0 0 -5 3 0 0 0 -3 0 -3 0 0 0 0 2 2"),
    # X bearing off.
    Position.from_simple("0 2 4 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 -5 -5 -5 0 0 0 0 0"),
)


def read_move_every_roll(text: object) -> None:
    """The move text against every roll in several positions, each read checked."""
    for position in MOVE_POSITIONS:
        for dice in ROLLS:
            check(lambda t, p=position, d=dice: p.parse_move(t, d), text)


# name: (reader, seed inputs, text cases, byte cases, marks for the bytes run)
READERS: dict[str, tuple[Reader, list[str], int, int, tuple[Any, ...]]] = {
    "Position.from_position_id": (
        Position.from_position_id,
        POSITION_IDS,
        1500,
        300,
        (),
    ),
    "ids.decode_match_id": (ids.decode_match_id, MATCH_IDS, 1500, 300, ()),
    "ids.split_gnubg_id": (
        ids.split_gnubg_id,
        GNUBG_IDS,
        1500,
        300,
        (),
    ),
    "Match.from_gnubg_id": (
        Match.from_gnubg_id,
        GNUBG_IDS,
        1000,
        300,
        (),
    ),
    "Position.from_xgid": (
        Position.from_xgid,
        XGIDS,
        1500,
        300,
        (),
    ),
    "ids.parse_xgid": (
        ids.parse_xgid,
        XGIDS,
        1500,
        300,
        (),
    ),
    "Match.from_xgid": (
        Match.from_xgid,
        XGIDS,
        1000,
        300,
        (),
    ),
    "ids.gnubg_id_from_xgid": (
        ids.gnubg_id_from_xgid,
        XGIDS,
        1000,
        300,
        (),
    ),
    "ids.xgid_from_gnubg_id": (
        ids.xgid_from_gnubg_id,
        GNUBG_IDS,
        1000,
        300,
        (),
    ),
    "Position.parse_move": (read_move_every_roll, MOVE_TEXTS, 200, 40, ()),
    "mat.read": (mat.read, MAT_FILES, 600, 100, ()),
    "mat.read_record": (mat.read_record, MAT_FILES, 300, 60, ()),
    "sgf.read": (sgf.read, SGF_FILES, 500, 100, ()),
    "sgf.read_record": (sgf.read_record, SGF_FILES, 300, 60, ()),
    "convert.read_record_text": (
        lambda t: convert.read_record_text(t, convert.detect_format(t)),
        MAT_FILES + SGF_FILES,
        300,
        60,
        (),
    ),
}


@pytest.mark.parametrize("name", READERS)
def test_reader_refuses_bad_text_cleanly(name: str) -> None:
    read, seeds, n, _, _ = READERS[name]
    for seed in seeds:
        check(read, seed)  # the real inputs themselves
    rng = random.Random(f"text {name}")
    for text in texts(rng, seeds, n):
        check(read, text)


@pytest.mark.parametrize(
    "name", [pytest.param(name, marks=spec[4]) for name, spec in READERS.items()]
)
def test_reader_refuses_bytes_cleanly(name: str) -> None:
    read, seeds, _, n, _ = READERS[name]
    rng = random.Random(f"bytes {name}")
    for blob in blobs(rng, seeds, n):
        check(read, blob)


def test_any_bytes_decode_as_a_match_file() -> None:
    """:func:`convert.decode` takes any bytes: UTF-8 as it is (no note), anything else as
    Windows-1252 or Latin-1 with a note, never an exception."""
    rng = random.Random(38)
    for _ in range(2_000):
        data = bytes(rng.randrange(256) for _ in range(rng.randrange(40)))
        text, notes = convert.decode(data)
        try:
            expected, quiet = data.decode("utf-8-sig"), True
        except UnicodeDecodeError:
            quiet = False
        if quiet:
            assert (text, notes) == (expected, [])
        else:
            assert len(notes) == 1 and "not UTF-8" in notes[0]
            assert text.encode("cp1252" if "1252" in notes[0] else "latin-1") == data

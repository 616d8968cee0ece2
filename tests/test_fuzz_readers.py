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
import re
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from records_helpers import beavered_money_match, closed_out_game, random_match
from reference import REFERENCE, SAMPLES

from backgammon import ids
from backgammon.core.position import Position
from backgammon.core.values import iter_rolls
from backgammon.play.match import Match
from backgammon.records import convert, mat, sgf
from backgammon.records.matchfile import MatchFile, to_match

Reader = Callable[[Any], object]

LIMIT = 1.0  # seconds per input, plus PER_CHAR per character of it
PER_CHAR = 1e-4


def _show(data: object) -> str:
    text = repr(data)
    return text if len(text) <= 300 else f"{text[:300]}... ({len(text)} characters)"


def check(read: Reader, data: object) -> None:
    """``read(data)`` returns, or raises a ValueError subclass with a message, in time."""
    start = time.process_time()
    try:
        read(data)
    except ValueError as exc:
        if type(exc) is ValueError:
            raise AssertionError(f"plain ValueError for {_show(data)}: {exc}") from exc
        if not str(exc).strip():
            raise AssertionError(f"{type(exc).__name__} without a message: {_show(data)}") from exc
    except Exception as exc:
        raise AssertionError(f"{type(exc).__name__} for {_show(data)}: {exc}") from exc
    took = time.process_time() - start
    size = len(data) if isinstance(data, str | bytes) else 0
    assert took < LIMIT + PER_CHAR * size, f"{took:.2f} s for {_show(data)}"


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
    closed = to_match(MatchFile(0, ("a", "b"), (closed_out_game(),), crawford=False))
    matches = [random_match(7, 5), random_match(8, 0), beavered_money_match(), closed]
    return [writer(m) for m in matches]


MAT_FILES = [p.read_text() for p in sorted(SAMPLES.glob("*.mat"))] + _our_files(mat.write)
SGF_FILES = [p.read_text() for p in sorted(SAMPLES.glob("*.sgf"))] + _our_files(sgf.write)

ALPHABET = (
    "0123456789:/*()-=>+ \n\t\r;[]\\\"'?.,#_"
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    "\ufeff\u00e9\u0663\u00b2\uff11\u2028\x00\x0b\x85\U0001f3b2"
)
PIECES = (
    "9" * 5000,
    "0" * 40 + "1",
    "99999999",
    "-1",
    "+2",
    "\u0663",
    "25/",
    "/0",
    "bar/",
    "off",
    "(4)",
    " Doubles => 2",
    " Beavers => 4",
    " Takes",
    " Drops",
    "Wins 1 point",
    "Wins 3 points",
    "???",
    "Cannot Move",
    " Game 2\n",
    "XGID=",
    "W[double]",
    "B[take]",
    "W[drop]",
    "B[66]",
    ";PL[B]DI[41]",
    "RE[W+2R]",
    "MI[length:3]",
    "RU[Jacoby]",
    "(;",
    ")",
)


NUMBERS = ("9" * 5000, "0" * 40 + "7", "999999999", "4294967296", "65", "64", "0", "00", "7", "-1")
DIGITS = re.compile(r"\d+")


def _number_edit(rng: random.Random, text: str) -> str:
    """Replace one number of the input (a score, a cube, a point, a field of an ID)."""
    found = list(DIGITS.finditer(text))
    if not found:
        return text
    m = rng.choice(found)
    return text[: m.start()] + rng.choice(NUMBERS) + text[m.end() :]


def _line_edit(rng: random.Random, text: str) -> str:
    """Copy, drop or swap whole lines (games, rows, nodes)."""
    lines = text.split("\n")
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    op = rng.random()
    if op < 0.3:
        lines.insert(j, lines[i])
    elif op < 0.6 and len(lines) > 1:
        del lines[i]
    else:
        lines[i], lines[j] = lines[j], lines[i]
    return "\n".join(lines)


def mutate(rng: random.Random, text: str) -> str:
    """A few random edits: numbers, characters, known pieces of the formats, or lines."""
    if rng.random() < 0.2:
        for _ in range(rng.randint(1, 2)):
            text = _number_edit(rng, text)
        return text
    if rng.random() < 0.25:
        for _ in range(rng.randint(1, 3)):
            text = _line_edit(rng, text)
        return text
    chars = list(text)
    for _ in range(rng.randint(1, 6)):
        i = rng.randint(0, len(chars))
        op = rng.random()
        if op < 0.2:
            chars[i:i] = rng.choice(PIECES)
        elif op < 0.5:
            chars.insert(i, rng.choice(ALPHABET))
        elif op < 0.75 and chars:
            chars[min(i, len(chars) - 1)] = rng.choice(ALPHABET)
        elif chars:
            del chars[min(i, len(chars) - 1) : i + rng.randint(1, 20)]
    return "".join(chars)


def texts(rng: random.Random, seeds: list[str], n: int) -> Iterator[str]:
    """``n`` inputs: random strings, truncations, repetitions and mutations of ``seeds``."""
    for _ in range(n):
        r = rng.random()
        seed = rng.choice(seeds)
        if r < 0.15:
            yield "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 60)))
        elif r < 0.3:
            yield seed[: rng.randint(0, len(seed))]
        elif r < 0.35:
            yield seed * rng.randint(2, max(2, 20_000 // max(1, len(seed))))
        else:
            yield mutate(rng, seed)


def blobs(rng: random.Random, seeds: list[str], n: int) -> Iterator[bytes]:
    """``n`` byte strings: encoded inputs (UTF-8, with a BOM, Latin-1) and random bytes."""
    for text in texts(rng, seeds, n):
        r = rng.random()
        if r < 0.4:
            yield text.encode()
        elif r < 0.6:
            yield b"\xef\xbb\xbf" + text.encode()
        elif r < 0.8:
            yield text.encode("latin-1", "replace")
        else:
            yield bytes(rng.randrange(256) for _ in range(rng.randint(0, 80)))


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
    "convert.read_any": (
        lambda t: convert.read_any(t, convert.detect_format(t)),
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

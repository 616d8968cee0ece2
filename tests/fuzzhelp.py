"""Fuzzing of text readers, shared by the readers' tests: random, truncated, repeated and
mutated inputs, and the check that a reader reads an input or refuses it with a specific
``ValueError`` subclass carrying a message, in linear time."""

from __future__ import annotations

import random
import re
import time
from collections.abc import Callable, Iterator
from typing import Any

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

"""Reading plays written in gnubg notation, leniently (formats.md §5.2).

Writing is ``str(move)`` in the core.  Reading accepts what people and programs type:
``bar``/``b``/``25`` for the bar, ``off``/``o``/``0`` for off, chains (``24/18/13``), combined
moves (``24/13``), repeats (``24/18(2)``), hit marks anywhere (``*``, optional), commas, and
``-`` as a separator (``13-8``).  The text is matched against the legal plays by what it
means, so any spelling of a legal play works.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from backgammon.core.values import (
    BAR,
    OFF,
    AmbiguousMoveError,
    IllegalMoveError,
    InvalidMoveTextError,
    Move,
    Step,
    short_repr,
)

if TYPE_CHECKING:
    from backgammon.core.position import Position  # notation reads plays for it

__all__ = ["Segment", "parse_move", "parse_segments"]

Segment = tuple[int, int, bool]
"""One written part of a play: (from, to, hit marked at `to`)."""

_PART = re.compile(r"^(?P<body>[0-9a-z*/]+?)(?:\((?P<n>\d)\))?$")
# Whitespace around "(n)" and "/" is dropped.  Each pattern may start only where a
# whitespace run starts (or with no run), so every run is scanned once: linear time.
_AROUND_REPEAT = re.compile(r"(?<!\s)\s*\(\s*(\d)\s*\)")
_AROUND_SLASH = re.compile(r"(?<!\s)\s*/\s*")
_EMPTY = {"", "-", "pass", "none", "cannot move", "no move", "dance"}


def _point(token: str, text: str) -> int:
    if token in ("b", "bar"):
        return BAR
    if token in ("o", "off"):
        return OFF
    digits = token.lstrip("0") or "0"
    if digits.isdigit() and len(digits) <= 2:  # int() of 4,301 digits is a plain ValueError
        value = int(digits)
        if 0 <= value <= BAR:
            return value
    raise InvalidMoveTextError(
        f"{short_repr(token)} is not a point (1-24, bar or off) in {short_repr(text)}"
    )


def parse_segments(text: str) -> list[Segment]:
    """Split move text into single from/to segments (a chain gives one per link).

    ``text`` must be a ``str``: anything else (bytes, say) raises
    :class:`InvalidMoveTextError`, like text that cannot be read.
    """
    if not isinstance(text, str):
        raise InvalidMoveTextError(f"move text is a str, not {type(text).__name__}")
    original = text
    cleaned = text.strip().lower()
    if cleaned in _EMPTY:
        return []
    cleaned = cleaned.replace(",", " ")
    # "13-8" means 13/8; a trailing "-" (as in "6-") means off.
    cleaned = re.sub(r"(?<=[0-9a-z*])-(?=[0-9a-z])", "/", cleaned)
    cleaned = re.sub(r"(?<=[0-9a-z*])-(?=\s|$|\()", "/off", cleaned)
    cleaned = _AROUND_REPEAT.sub(r"(\1)", cleaned)
    cleaned = _AROUND_SLASH.sub("/", cleaned)
    segments: list[Segment] = []
    for part in cleaned.split():
        m = _PART.match(part)
        if not m:
            raise InvalidMoveTextError(f"cannot read {short_repr(part)} in {short_repr(original)}")
        tokens = m.group("body").split("/")
        if len(tokens) < 2 or any(not tok.strip("*") for tok in tokens):
            raise InvalidMoveTextError(
                f"{short_repr(part)} in {short_repr(original)} is not a from/to move"
            )
        points = [_point(tok.rstrip("*"), original) for tok in tokens]
        hits = [tok.endswith("*") for tok in tokens]
        if "*" in tokens[0]:
            raise InvalidMoveTextError(
                f"{short_repr(part)}: a hit mark belongs after a destination"
            )
        links = [(points[i], points[i + 1], hits[i + 1]) for i in range(len(points) - 1)]
        for src, dst, _ in links:
            if src == OFF:
                raise InvalidMoveTextError(f"{short_repr(part)}: a move cannot start off the board")
            if dst == BAR:
                raise InvalidMoveTextError(f"{short_repr(part)}: a move cannot end on the bar")
            if dst >= src:
                raise InvalidMoveTextError(
                    f"{short_repr(part)}: checkers move from higher to lower points"
                )
        repeat = int(m.group("n") or 1)
        if not 1 <= repeat <= 4:
            raise InvalidMoveTextError(f"{short_repr(part)}: a repeat count is 1-4")
        segments.extend(links * repeat)
    if len(segments) > 4:
        raise InvalidMoveTextError(f"{short_repr(original)} has more than four moves")
    return segments


def _covers(steps: Sequence[Step], segments: Sequence[Segment]) -> bool:
    """True when the steps can be grouped into one checker path per segment, using all."""
    used = [False] * len(steps)

    def path(src: int, dst: int) -> list[list[int]]:
        # All ways to walk from src to dst with unused steps, one checker in a row.
        if src == dst:
            return [[]]
        ways: list[list[int]] = []
        for i, (s, t, _) in enumerate(steps):
            if used[i] or s != src or t < dst:
                continue
            used[i] = True
            ways.extend([i, *rest] for rest in path(t, dst))
            used[i] = False
        return ways

    def match(k: int) -> bool:
        if k == len(segments):
            return all(used)
        src, dst, _ = segments[k]
        for way in path(src, dst):
            for i in way:
                used[i] = True
            if match(k + 1):
                return True
            for i in way:
                used[i] = False
        return False

    return match(0)


def parse_move(position: Position, text: str, dice: Sequence[int]) -> Move:
    """The legal play that ``text`` means; see :meth:`Position.parse_move`."""
    segments = parse_segments(text)
    legal = position.legal_moves(dice)
    if not segments:
        if not legal:
            return Move()
        raise IllegalMoveError(f"{short_repr(text)}: the roll {dice[0]}{dice[1]} can be played")
    candidates = [m for m in legal if _covers(m, segments)]
    if not candidates:
        if not legal:
            raise IllegalMoveError(f"no play is possible with {dice[0]}{dice[1]}")
        raise IllegalMoveError(f"{short_repr(text)} is not a legal play of {dice[0]}{dice[1]} here")
    if len(candidates) > 1:
        marked = {seg[1] for seg in segments if seg[2]}
        exact = [m for m in candidates if {t for _, t, hit in m if hit} == marked]
        if len(exact) == 1:
            return exact[0]
        options = ", ".join(str(m) for m in candidates)
        raise AmbiguousMoveError(f"{short_repr(text)} could mean any of: {options}")
    return candidates[0]

"""Auditable dice in a saved match: the throws are recorded in the file's comment, so that the
match can be checked against the seed revealed after play (``backgammon verify``).

A match file alone cannot be checked: it writes each roll larger die first, and it leaves out
tied opening throws, so the throws cannot be lined up with the seed's stream.  The comment
lists every throw in order (an opening throw as the first player's die, then the second's);
gnubg reads such a header comment, keeps it and writes it back.  :func:`check` then asks that
the recorded throws come from the seed (:func:`backgammon.play.dice.verify`) and that the games in
the file were played with them.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from pathlib import Path

from backgammon.cli.errors import UsageError
from backgammon.cli.records import read_file
from backgammon.core.values import short_repr
from backgammon.play import match as bm
from backgammon.play.dice import DiceError, verify

__all__ = ["check", "comment", "recorded"]

_COMMITMENT = "Dice commitment (SHA-256 of the seed):"
_THROWN = "Dice thrown:"
_PER_LINE = 24
_HEX = re.compile(r"^[0-9a-fA-F]+$")


def comment(commitment: str, throws: Sequence[tuple[int, int]]) -> str:
    """The comment a match file keeps for an audit: the commitment and every throw."""
    lines = [
        "Auditable dice (backgammon play --auditable): every throw in order, an opening",
        "throw as the first player's die then the second's, ties included.",
        f"{_COMMITMENT} {commitment}",
    ]
    pairs = [f"{a}{b}" for a, b in throws]
    for start in range(0, len(pairs), _PER_LINE):
        lines.append(f"{_THROWN} {' '.join(pairs[start : start + _PER_LINE])}")
    return "\n".join(lines)


def recorded(text: str) -> tuple[str | None, list[tuple[int, int]] | None]:
    """The commitment and the throws a file's comment records (None for what it lacks)."""
    commitment: str | None = None
    throws: list[tuple[int, int]] | None = None
    for line in text.splitlines():
        line = line.strip()
        if line.startswith(_COMMITMENT):
            commitment = line[len(_COMMITMENT) :].strip()
        elif line.startswith(_THROWN):
            throws = throws or []
            for pair in line[len(_THROWN) :].split():
                if len(pair) != 2 or not all(c in "123456" for c in pair):
                    raise UsageError(f"the recorded throw {short_repr(pair)} is not two dice 1-6")
                throws.append((int(pair[0]), int(pair[1])))
    return commitment, throws


def _played_with(match: bm.Match, throws: Sequence[tuple[int, int]]) -> str | None:
    """Why the replayed games do not use ``throws`` in order, or None when they do.

    The file gives each opening throw in throw order (who moved first says which die was
    whose) and later rolls larger die first, so those are compared as pairs of numbers.
    """
    pending = list(enumerate(throws, 1))
    over = match.is_over
    for action in match.record.actions():
        if isinstance(action, bm.OpeningRoll):
            while pending and pending[0][1][0] == pending[0][1][1]:
                pending.pop(0)  # a tied opening throw is thrown again
            rolled, ordered = (action.die0, action.die1), True
        elif isinstance(action, bm.Roll):
            rolled, ordered = action.dice, False
        else:
            continue
        if not pending:
            return "the file has more rolls than the recorded throws"
        n, thrown = pending.pop(0)
        same = thrown == rolled if ordered else sorted(thrown) == sorted(rolled)
        if not same:
            return f"throw {n} is {thrown[0]}-{thrown[1]}, the file's roll {rolled[0]}-{rolled[1]}"
    # A match stopped before the opening roll was played: the files cannot hold that roll.
    opening = [throw for _, throw in pending[:-1]]
    if pending and (over or any(a != b for a, b in opening)):
        return f"{len(pending)} recorded throws are not in the file's games"
    return None


def check(path: Path, seed: str, commitment: str | None = None) -> list[str]:
    """What is wrong with the dice of the match saved in ``path`` for ``seed`` (a hex
    string) and ``commitment`` (else the one the file records): empty when every throw came
    from the seed.  Unreadable files and arguments raise :class:`UsageError`."""
    if not _HEX.match(seed) or len(seed) % 2:
        raise UsageError(
            f"--seed is the hex string shown at the end of play, not {short_repr(seed)}"
        )
    if commitment is not None and not _HEX.match(commitment):
        raise UsageError(f"--commitment is a hex string, not {short_repr(commitment)}")
    record, replayed = read_file(path)
    kept, throws = recorded(record.comment)
    if throws is None:
        raise UsageError(
            f"{path} records no dice throws: only a match saved by backgammon play "
            "--auditable can be checked"
        )
    problems = []
    secret = bytes.fromhex(seed)
    if commitment is not None and kept is not None and commitment.lower() != kept.lower():
        problems.append(f"the file records the commitment {kept}, not {commitment}")
    expected = commitment or kept
    if expected is not None and hashlib.sha256(secret).hexdigest() != expected.lower():
        problems.append("the seed does not match the commitment (its SHA-256 differs)")
    try:
        from_seed = verify(throws, secret)
    except DiceError as exc:  # pragma: no cover - recorded() accepts only dice 1-6
        raise UsageError(str(exc)) from exc
    if not from_seed:
        problems.append("the recorded throws are not the ones the seed gives")
    played = _played_with(replayed, throws)
    if played is not None:
        problems.append(f"the games in the file were not played with the recorded throws: {played}")
    return problems

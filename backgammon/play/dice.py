"""Where the numbers come from: seeded dice, dice typed in from a real board, and auditable
dice whose seed is committed to before play and revealed after (R4).

Every source hands out *pairs* of dice, one pair per throw: the opening throw is
(player 0's die, player 1's die), every later throw is the two dice of the player on roll.

The stream of a seed is fully specified so that anyone can recompute it: the seed bytes are
hashed with a block counter, ``SHA-256(seed || counter as 8 bytes big-endian)``, and the bytes
of the successive blocks are read in order; a byte ``b < 252`` gives the die ``b % 6 + 1``
and bytes ``>= 252`` are skipped (so every face has probability exactly 1/6).

>>> dice = AuditableDice(seed=bytes(32))
>>> dice.commitment == hashlib.sha256(bytes(32)).hexdigest()
True
>>> rolls = [dice.roll() for _ in range(3)]
>>> verify(rolls, dice.reveal(), dice.commitment)
True
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterable, Iterator, Sequence
from typing import Protocol, runtime_checkable

from backgammon.core.values import DiceError, check_dice, short_repr

__all__ = [
    "AuditableDice",
    "DiceError",
    "DiceSource",
    "FixedDice",
    "SeededDice",
    "check_dice",
    "dice_stream",
    "verify",
]


@runtime_checkable
class DiceSource(Protocol):
    """Anything that throws a pair of dice."""

    def roll(self) -> tuple[int, int]:
        """The next throw: two numbers 1-6."""
        ...


def _seed_bytes(seed: int | str | bytes) -> bytes:
    if isinstance(seed, bytes):
        return seed
    if isinstance(seed, str):
        return seed.encode("utf-8")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise DiceError(f"a seed is bytes, text or an integer >= 0, got {seed!r}")
    return seed.to_bytes(max(1, (seed.bit_length() + 7) // 8), "big")


def dice_stream(seed: bytes) -> Iterator[int]:
    """The endless stream of single dice defined by ``seed`` (see the module docstring)."""
    counter = 0
    while True:
        block = hashlib.sha256(seed + counter.to_bytes(8, "big")).digest()
        counter += 1
        for byte in block:
            if byte < 252:
                yield byte % 6 + 1


class SeededDice:
    """Reproducible dice: the same seed gives the same throws, hence the same match."""

    def __init__(self, seed: int | str | bytes = 0) -> None:
        self._seed = _seed_bytes(seed)
        self._stream = dice_stream(self._seed)
        self.count = 0
        """Throws made so far."""

    def roll(self) -> tuple[int, int]:
        """The next pair of the stream."""
        self.count += 1
        return next(self._stream), next(self._stream)


class AuditableDice(SeededDice):
    """Dice a remote player can audit.

    Before play, publish :attr:`commitment` (the SHA-256 of a secret random seed).  After the
    match, publish :meth:`reveal`; anyone can then call :func:`verify` on the record to check
    that every throw came from that seed, which was fixed before the first throw.
    """

    def __init__(self, seed: bytes | None = None) -> None:
        secret = secrets.token_bytes(32) if seed is None else seed
        if not isinstance(secret, bytes) or len(secret) < 16:
            raise DiceError("an auditable seed must be at least 16 random bytes")
        super().__init__(secret)
        self.commitment: str = hashlib.sha256(secret).hexdigest()
        """SHA-256 of the secret seed, hex: publish it before play."""
        self.revealed = False

    def reveal(self) -> str:
        """The secret seed in hex: publish it after the match so the throws can be checked."""
        self.revealed = True
        return self._seed.hex()


class FixedDice:
    """Throws given in advance (e.g. read from a real board or a file), handed out in order."""

    def __init__(self, throws: Iterable[Sequence[int]]) -> None:
        self._throws = [check_dice(t) for t in _iterable(throws, "throws")]
        self._next = 0

    def roll(self) -> tuple[int, int]:
        """The next given throw; :class:`DiceError` when there are no more."""
        if self._next >= len(self._throws):
            raise DiceError("no more dice were given")
        throw = self._throws[self._next]
        self._next += 1
        return throw


class _HasRolls(Protocol):
    def rolls(self) -> tuple[tuple[int, int], ...]: ...


def verify(
    record: _HasRolls | Iterable[Sequence[int]],
    seed: str | bytes,
    commitment: str | None = None,
) -> bool:
    """True when ``seed`` matches ``commitment`` (if given) and every throw of ``record``
    (a match record, or the throws themselves in order) is the one the seed gives.

    A seed that is neither hex text nor bytes, a commitment that is not text, or throws that
    are not pairs 1-6 raise :class:`DiceError`.
    """
    if isinstance(seed, str):
        try:
            secret = bytes.fromhex(seed)
        except ValueError as exc:
            raise DiceError(f"a revealed seed is hex, not {short_repr(seed)}") from exc
    elif isinstance(seed, bytes):
        secret = seed
    else:
        raise DiceError(f"a revealed seed is hex text or bytes, not {type(seed).__name__}")
    if commitment is not None and not isinstance(commitment, str):
        raise DiceError(f"a commitment is hex text, not {type(commitment).__name__}")
    if commitment is not None and hashlib.sha256(secret).hexdigest() != commitment.lower():
        return False
    throws = record.rolls() if hasattr(record, "rolls") else record
    stream = dice_stream(secret)
    for throw in _iterable(throws, "a record"):
        a, b = check_dice(throw)
        if (next(stream), next(stream)) != (a, b):
            return False
    return True


def _iterable(value: Iterable[Sequence[int]], what: str) -> Iterable[Sequence[int]]:
    if not isinstance(value, Iterable):
        raise DiceError(f"{what} is a sequence of throws, not {type(value).__name__}")
    return value

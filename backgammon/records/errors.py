"""What every match-file reader shares and no record model: the errors a refused file
raises, the check that a reader was given text, and the reading of a number written in a
file (bounded, so that a damaged file cannot make ``int()`` work for long)."""

from __future__ import annotations

from backgammon.core.values import clip, short_repr

__all__ = ["MAX_DIGITS", "MatchFileError", "NotTextError", "read_number", "require_text"]


class MatchFileError(ValueError):
    """A match file that cannot be read; ``line`` is the 1-based line number (or None)."""

    def __init__(self, message: str, line: int | None = None) -> None:
        self.line = line
        self.message = message
        super().__init__(f"line {line}: {message}" if line is not None else message)


class NotTextError(MatchFileError):
    """A reader was given something other than ``str`` (bytes, say): the readers take text,
    so that the caller chooses the encoding (gnubg writes UTF-8: ``data.decode("utf-8-sig")``)."""


def require_text(text: object, reader: str) -> str:
    """``text`` if it is a ``str``; :class:`NotTextError` naming ``reader`` otherwise."""
    if isinstance(text, str):
        return text
    hint = ""
    if isinstance(text, (bytes, bytearray, memoryview)):
        hint = ": decode it first, e.g. data.decode('utf-8-sig')"
    raise NotTextError(f"{reader} reads text (str), not {type(text).__name__}{hint}")


MAX_DIGITS = 9
"""The most significant digits a number in a match file may have (scores, cubes, games)."""


def read_number(digits: str, what: str, line: int | None) -> int:
    """A count written in a file, as an int; :class:`MatchFileError` when ``digits`` is not
    decimal digits or has more than :data:`MAX_DIGITS` significant ones (int() would
    refuse 4,301 digits with a plain ValueError, and no file needs a tenth)."""
    if not digits.isdecimal():
        raise MatchFileError(f"{what} {short_repr(digits, 24)} is not a number", line)
    if len(digits.lstrip("0")) > MAX_DIGITS:
        raise MatchFileError(f"{what} {clip(digits, 24)} is too large", line)
    return int(digits)

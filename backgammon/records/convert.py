"""Converting match files between .mat and SGF (``backgammon convert A B``).

The file is read into its :class:`~backgammon.play.record.MatchRecord` (header, names and
a dance's dice kept), which the rules check as a :class:`~backgammon.play.match.Match` plays
it, then written in the other format.
"""

from __future__ import annotations

from pathlib import Path

from backgammon.core.values import short_repr
from backgammon.play.record import MatchRecord
from backgammon.records import mat, sgf
from backgammon.records.errors import MatchFileError, require_text
from backgammon.records.written import written_games

__all__ = [
    "FORMATS",
    "MAX_FILE_BYTES",
    "FileTooLargeError",
    "convert",
    "convert_text",
    "decode",
    "detect_format",
    "format_of_name",
    "read_file_text",
    "read_record_text",
    "read_text",
    "write_text",
    "written_actions",
]

FORMATS = ("mat", "sgf")
MAX_FILE_BYTES = 16 * 1024 * 1024
"""The largest match file read (gnubg's longest exports are a few hundred KB)."""


class FileTooLargeError(MatchFileError):
    """A file past :data:`MAX_FILE_BYTES` (or a device that never ends): refused unread."""


def decode(data: bytes) -> tuple[str, list[str]]:
    """A match file's bytes as text: UTF-8 (a byte-order mark dropped), else Windows-1252
    (old exports with names like Müller; gnubg imports them too), else Latin-1, with a
    warning saying which."""
    try:
        return data.decode("utf-8-sig"), []
    except UnicodeDecodeError as exc:
        where = f"byte {exc.start}"
    for encoding, label in (("cp1252", "Windows-1252"), ("latin-1", "Latin-1")):
        try:
            text = data.decode(encoding)
        except UnicodeDecodeError:
            continue
        return text, [f"not UTF-8 (at {where}): read as {label}"]
    raise AssertionError("Latin-1 decodes any bytes")  # pragma: no cover


def read_file_text(path: str | Path) -> tuple[str, list[str]]:
    """A match file's text and what decoding it found odd (:func:`decode`), reading at most
    :data:`MAX_FILE_BYTES` (:class:`FileTooLargeError` past that); OSError as the system
    gives it."""
    with Path(path).open("rb") as f:
        data = f.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise FileTooLargeError(f"over {MAX_FILE_BYTES // 2**20} MB: too large for a match file")
    return decode(data)


_SUFFIXES = {".sgf": "sgf", ".mat": "mat"}


def format_of_name(name: str | Path) -> str | None:
    """``"sgf"`` or ``"mat"`` as the file name's suffix says, or None for another suffix
    (a .txt or .gam export is told by its text): the one place a format is picked from a
    name."""
    return _SUFFIXES.get(Path(name).suffix.lower())


def detect_format(text: str, name: str | Path | None = None) -> str:
    """``"sgf"`` or ``"mat"``, from the file name's suffix, else from the text (a ``str``:
    bytes raise :class:`~backgammon.records.errors.NotTextError`)."""
    text = require_text(text, "detect_format")
    fmt = None if name is None else format_of_name(name)
    if fmt is not None:
        return fmt
    return "sgf" if text.lstrip("\ufeff \t\r\n").startswith("(") else "mat"


def _checked(fmt: str) -> str:
    if fmt not in FORMATS:
        raise ValueError(f"unknown match file format {short_repr(fmt)} (use one of {FORMATS})")
    return fmt


def read_text(text: str, fmt: str, warnings: list[str] | None = None) -> MatchRecord:
    """``text`` read in format ``fmt`` (``"mat"`` or ``"sgf"``) into its match record
    (:func:`read_record_text`)."""
    reader = sgf.read_record if _checked(fmt) == "sgf" else mat.read_record
    return reader(text, warnings)


def write_text(record: MatchRecord, fmt: str) -> str:
    """A match record written in format ``fmt`` (``"mat"`` or ``"sgf"``)."""
    return sgf.write_record(record) if _checked(fmt) == "sgf" else mat.write_record(record)


def read_record_text(text: str, fmt: str, warnings: list[str] | None = None) -> MatchRecord:
    """Read ``text`` in format ``fmt`` (``"mat"`` or ``"sgf"``) into the match record it
    plays to (the rules check every action), with all a writer needs of the file: the
    header, and a dance's dice (R13).  What the reader found odd goes into ``warnings``."""
    return read_text(text, fmt, warnings)


def written_actions(record: MatchRecord) -> int:
    """How many actions a match file writes of ``record``: a roll and its play once, an
    accepted resignation once, tied opening throws and rejected resignations not at all."""
    return sum(len(entries) for _, entries, _ in written_games(record))


def convert_text(text: str, source: str, target: str) -> tuple[str, list[str]]:
    """``text`` in format ``source`` written in format ``target``, and the warnings."""
    text = require_text(text, "convert_text")
    _checked(target)
    warnings: list[str] = []
    record = read_record_text(text, source, warnings)
    return write_text(record, target), warnings


def convert(source: str | Path, target: str | Path) -> list[str]:
    """Convert the match file ``source`` into ``target`` (formats from the suffixes);
    returns what the reader found odd.  Nothing is written if the source is refused."""
    dst_fmt = format_of_name(target)
    if dst_fmt is None:
        raise MatchFileError(f"{target}: name the target .mat or .sgf")
    text, notes = read_file_text(source)
    out, warnings = convert_text(text, detect_format(text, source), dst_fmt)
    Path(target).write_text(out, encoding="utf-8")
    return notes + warnings

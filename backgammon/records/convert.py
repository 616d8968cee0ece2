"""Converting match files between .mat and SGF (``backgammon convert A B``).

The file is read into the format model (header, names and the order steps were written in
are kept), replayed through :class:`~backgammon.play.match.Match` so the rules check every
action, then written in the other format.
"""

from __future__ import annotations

from pathlib import Path

from backgammon.records import mat, sgf
from backgammon.records.matchfile import MatchFile, MatchFileError, require_text, to_match

__all__ = ["FORMATS", "convert", "convert_text", "detect_format", "read_any"]

FORMATS = ("mat", "sgf")


def detect_format(text: str, name: str | Path | None = None) -> str:
    """``"sgf"`` or ``"mat"``, from the file name's suffix, else from the text (a ``str``:
    bytes raise :class:`~backgammon.records.matchfile.NotTextError`)."""
    text = require_text(text, "detect_format")
    if name is not None:
        suffix = Path(name).suffix.lower()
        if suffix == ".sgf":
            return "sgf"
        if suffix in (".mat", ".txt", ".gam"):
            return "mat"
    return "sgf" if text.lstrip("\ufeff \t\r\n").startswith("(") else "mat"


def read_any(text: str, fmt: str) -> MatchFile:
    """Read ``text`` in format ``fmt`` (``"mat"`` or ``"sgf"``) and check it by the rules."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown match file format {fmt!r} (use one of {FORMATS})")
    record = sgf.read_record(text) if fmt == "sgf" else mat.read_record(text)
    to_match(record, [])  # raises MatchFileError on anything the rules refuse
    return record


def convert_text(text: str, source: str, target: str) -> tuple[str, list[str]]:
    """``text`` in format ``source`` written in format ``target``, and the warnings."""
    text = require_text(text, "convert_text")
    record = read_any(text, source)
    warnings = list(record.warnings)
    if target not in FORMATS:
        raise ValueError(f"unknown match file format {target!r} (use one of {FORMATS})")
    out = sgf.write_record(record) if target == "sgf" else mat.write_record(record)
    return out, warnings


def convert(source: str | Path, target: str | Path) -> list[str]:
    """Convert the match file ``source`` into ``target`` (formats from the suffixes);
    returns what the reader found odd.  Nothing is written if the source is refused."""
    text = Path(source).read_text(encoding="utf-8-sig")
    src_fmt = detect_format(text, source)
    dst_fmt = detect_format("", target) if Path(target).suffix else src_fmt
    if Path(target).suffix.lower() not in (".sgf", ".mat", ".txt", ".gam"):
        raise MatchFileError(f"{target}: name the target .mat or .sgf")
    out, warnings = convert_text(text, src_fmt, dst_fmt)
    Path(target).write_text(out, encoding="utf-8")
    return warnings

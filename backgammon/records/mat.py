"""Jellyfish / GNU Backgammon ``.mat`` match files (formats.md §4).

Writing reproduces gnubg 1.07's ``export match mat`` layout byte for byte (its
``ExportGameJF``: column widths, the trailing space after each step but the fourth,
``Doubles => 2``, ``Drops`` with the win on the same row, ``Wins N point(s)``, no line for
the take of a beaver).  Reading is lenient (a byte-order mark, XG header tags, combined
moves such as ``24/15``, ``Cannot Move``, ``???``, dice in either order, XG's wider
columns): what was odd is collected in the reader's ``warnings``; what cannot be read raises
:class:`MatchFileError` with the line number.  The reader drives a
:class:`~backgammon.play.match.Match` through each game as it reads, so every play is checked by
the rules core.  Every line is read in time linear in its length (no backtracking
patterns), and the readers take ``str`` only (bytes raise :class:`NotTextError`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from backgammon.core.notation import parse_segments
from backgammon.core.values import Step, short_repr
from backgammon.play import match as bm
from backgammon.play.match import Match
from backgammon.play.record import Action, MatchRecord
from backgammon.records.errors import MatchFileError, NotTextError, read_number, require_text
from backgammon.records.reading import (
    MatchReading,
    answering,
    doubling,
    passing,
    position_for,
    resigning,
    resolve_play,
    rolling,
)
from backgammon.records.written import (
    Written,
    as_written,
    written_game,
    written_games,
    written_players,
)

__all__ = [
    "MatchFileError",
    "NotTextError",
    "format_steps_plain",
    "read",
    "read_record",
    "rows",
    "write",
    "write_record",
]

_GNUBG_TAGS = ("Site", "Event", "Round", "EventDate", "Transcriber")
_KNOWN_TAGS = {*_GNUBG_TAGS, "Variation", "Crawford", "Jacoby"}


# ----------------------------------------------------------------------------- writing


def format_steps_plain(steps: Sequence[Step]) -> str:
    """gnubg's ``FormatMovePlain``: ``from/to`` per die with ``*`` on hits, bar 25, off 0;
    each step is followed by a space except the fourth."""
    parts: list[str] = []
    for i, (s, t, hit) in enumerate(steps):
        parts.append(f"{s}/{t}{'*' if hit else ''}" + (" " if i < 3 else ""))
    return "".join(parts)


def _plural(n: int) -> str:
    return "s" if n > 1 else ""


def _write_game(
    out: list[str],
    players: tuple[str, str],
    start: bm.GameStart,
    entries: Sequence[Written],
    end: bm.GameEnd | None,
) -> None:
    out.append(f" Game {start.game}\n")
    left = f"{players[0]} : {start.score[0]}"
    # gnubg pads the left half to 31 columns; a longer one would touch the second name,
    # which neither gnubg's reader nor ours can then find, so one space always parts them.
    out.append(f" {left:<30} {players[1]} : {start.score[1]}\n")
    i = 0
    cube = 1
    dice_rolled = False
    doubler: int | None = None  # who made the pending offer
    redoubles = 0  # beavers and raccoons on the pending offer
    resigned = end is not None and end.reason is bm.EndReason.RESIGNED
    last = len(entries) - 1
    for k, (a, player, dice) in enumerate(entries):
        setdice = isinstance(a, bm.Roll | bm.OpeningRoll)  # rolled, then resigned
        rolls = setdice or isinstance(a, bm.Play) or (isinstance(a, bm.Pass) and dice is not None)
        if isinstance(a, bm.Pass) and dice is None:
            text = ""  # R13: no roll; the half-row stays empty
        elif rolls:
            assert dice is not None
            text = f"{dice[0]}{dice[1]}: "
            if setdice:
                dice_rolled = True
            else:
                dice_rolled = False
                text += format_steps_plain(tuple(a.move) if isinstance(a, bm.Play) else ())
        elif isinstance(a, bm.Double | bm.Beaver | bm.Raccoon):
            cube = a.value
            if doubler is not None and player != doubler:
                # gnubg 1.07 writes a beaver and a raccoon alike (R32); its reader would
                # not supply the take after "Raccoons".
                text = f" Beavers => {cube}"
                redoubles += 1
            else:
                text = f" Doubles => {cube}"
            doubler = player
        elif isinstance(a, bm.Take):
            # gnubg 1.07 writes nothing for the take of a beaver, not even an empty column
            # (the next action keeps the column it would have had without the take), and
            # an empty half-row for the take of a raccoon; its reader supplies the take.
            odd = redoubles % 2 == 1
            text = "" if redoubles else " Takes"
            doubler, redoubles = None, 0
            if odd:
                continue
        elif isinstance(a, bm.Drop):
            doubler, redoubles = None, 0
            points = end.points if end is not None else cube // 2
            sep = "\n      " if i & 1 else " " * 23
            text = f" Drops{sep}Wins {points} point{_plural(points)}"
        else:
            assert isinstance(a, bm.Resign)
            points = end.points if end is not None else int(a.level) * cube
            odd = bool(i & 1) ^ dice_rolled
            wins = f"Wins {points} point{_plural(points)}\n"
            if player:
                text = ("\n" if odd else "") + "      " + wins
            elif i & 1:
                text = (" " if odd else " " * 24) + wins
            else:
                text = (" " if odd else " " * 34) + wins
        # gnubg indents only a played opening roll of the right player; an unplayed one
        # (a resignation right after the opening roll) would land in the wrong column and
        # be read back as the left player's, so it is indented too (a deliberate deviation).
        if i == 0 and rolls and player == 1:
            out.append("  1)" + " " * 29)
            i += 1
        if i & 1 or isinstance(a, bm.Resign):
            out.append(text)
            if not setdice:
                out.append("\n")
        elif not setdice:
            out.append(f"{(i >> 1) + 1:3d}) {text:<27} ")
        else:
            out.append(f"{(i >> 1) + 1:3d}) {text:<3}")
        if isinstance(a, bm.Drop):
            out.append("\n")
            if not i & 1:
                out.append("\n")
        if rolls and not setdice and k == last and end is not None and not resigned:
            lead = " " * 34 if i & 1 else "\n      "
            out.append(f"{lead}Wins {end.points} point{_plural(end.points)}\n\n")
        i += 1


def rows(game: Sequence[Action]) -> list[tuple[Action, int]]:
    """Each entry of a record's game that a .mat file writes (a roll's play, or the roll
    when it was not played; a dance's pass; an accepted resignation's offer; a cube action),
    with its row: what an analysis numbers its decisions by.

    Two half-rows a row; player 1's opening roll takes the right half of row 1; the take of
    a beaver has no half-row.
    """
    written = written_game(game)
    if written is None:
        return []
    _, entries, _ = written
    out: list[tuple[Action, int]] = []
    first = entries[0] if entries else None
    i = 1 if first is not None and _is_roll(first) and first[1] else 0
    doubler: int | None = None
    redoubles = 0
    for a, player, _dice in entries:
        out.append((a, (i >> 1) + 1))
        if isinstance(a, bm.Double | bm.Beaver | bm.Raccoon):
            if doubler is not None and player != doubler:
                redoubles += 1
            doubler = player
        elif isinstance(a, bm.Take | bm.Drop):
            odd = redoubles % 2 == 1
            doubler, redoubles = None, 0
            if odd:
                continue
        if isinstance(a, bm.Roll | bm.OpeningRoll):
            continue
        i += 1
    return out


def _is_roll(entry: Written) -> bool:
    """Whether a written entry is a row with dice (a play, an unplayed roll, a dance)."""
    a, _, dice = entry
    return isinstance(a, bm.Play | bm.Roll | bm.OpeningRoll) or (
        isinstance(a, bm.Pass) and dice is not None
    )


def write_record(record: MatchRecord) -> str:
    """The .mat text gnubg 1.07 would export for this match."""
    length = record.rules.match_length or 0
    jacoby = record.rules.jacoby
    crawford = record.rules.crawford and length > 1
    out: list[str] = []
    for tag in _GNUBG_TAGS:
        value = record.tag(tag)
        if value is not None:
            out.append(f'; [{tag} "{value}"]\n')
    # gnubg writes no rules; XG's tags say what a reader cannot guess (gnubg ignores them).
    if length == 0 and jacoby:
        out.append('; [Jacoby "On"]\n')
    if length > 1 and not crawford:
        out.append('; [Crawford "Off"]\n')
    for tag, value in record.info:
        if tag not in _KNOWN_TAGS:
            out.append(f'; [{tag} "{value}"]\n')
    if record.comment:
        out.append("\n; " + record.comment.rstrip("\n").replace("\n", "\n; ") + "\n")
    out.append("\n")
    out.append(f" {length} point match\n\n")
    players = written_players(record)
    for start, entries, end in written_games(record):
        _write_game(out, players, start, entries, end)
    return "".join(out)


# ----------------------------------------------------------------------------- reading
#
# Lines are taken apart by hand, or with patterns whose repeated parts cannot overlap, so
# that a long damaged line is read in time linear in its length.

_ROW = re.compile(r"^\s*(\d+)\)")
_ACTION = re.compile(
    r"(?P<roll>(?<![\w/*])[0-9]{2}:)"
    r"|(?P<double>\bdoubles?\b(?:\s*=>\s*(?P<dvalue>\d+))?)"
    r"|(?P<beaver>\b(?:beavers?|raccoons?)\b(?:\s*=>\s*(?P<bvalue>\d+))?)"
    r"|(?P<take>\btakes?\b)"
    r"|(?P<drop>\b(?:drops?|pass(?:es)?)\b)"
    r"|(?P<wins>\bwins\s+(?P<points>\d+)\s+points?(?P<match>\s+and\s+the\s+match)?)",
    re.IGNORECASE,
)
_RIGHT_COLUMN = 20


def _length_digits(line: str) -> str | None:
    """The N of an ``N point match`` line, or None."""
    words = line.split()
    if len(words) != 3 or [w.lower() for w in words[1:]] != ["point", "match"]:
        return None
    return words[0] if words[0].isdecimal() else None


def _game_digits(line: str) -> str | None:
    """The N of a ``Game N`` line, or None."""
    words = line.split()
    if len(words) == 2 and words[0].lower() == "game" and words[1].isdecimal():
        return words[1]
    return None


def _header_tag(stripped: str) -> tuple[str, str] | None:
    """``(key, value)`` of a header tag ``; [Key "value"]`` (the line stripped), or None."""
    body = stripped[1:].lstrip()
    if not body.startswith("["):
        return None
    body = body[1:]
    quote = body.find('"')
    if quote < 0:
        return None
    key_part = body[:quote]
    key = key_part.strip()
    if not key or "]" in key_part or not key_part[-1].isspace():
        return None
    tail = body[quote + 1 :].rstrip()
    if not tail.endswith("]"):
        return None
    inner = tail[:-1].rstrip()
    if not inner.endswith('"'):
        return None
    return key, inner[:-1]


def _score_line(line: str) -> tuple[str, str, str, str] | None:
    """``(name, digits, name, digits)`` of a ``name : score   name : score`` line, or None.

    The right score follows the last colon; the left one is the first colon followed by
    digits and a space (names may hold colons).  Each character is looked at a bounded
    number of times.
    """
    text = line.strip()
    colon = text.rfind(":")
    right = text[colon + 1 :].strip()
    if colon < 0 or not right.isdecimal():
        return None
    left = text[:colon]
    c = left.find(":")
    while c >= 0:
        i = c + 1
        while i < len(left) and left[i].isspace():
            i += 1
        j = i
        while j < len(left) and left[j].isdecimal():
            j += 1
        if i < j < len(left) and left[j].isspace():
            return left[:c].strip(), left[i:j], left[j:].strip(), right
        c = left.find(":", max(c + 1, j))
    return None


_Header = tuple[tuple[str, str], list[tuple[str, str]], str]
"""The players, the header tags and the comment of a file."""


@dataclass(frozen=True)
class _Token:
    line: int
    player: int
    kind: str
    text: str = ""
    value: int = 0


def _tokens_of_line(text: str, number: int, is_row: bool) -> list[_Token]:
    body_start = 0
    if is_row:
        m = _ROW.match(text)
        assert m is not None
        body_start = m.end()
    found = list(_ACTION.finditer(text, body_start))
    if not found:
        if text[body_start:].strip():
            raise MatchFileError(f"cannot read {short_repr(text.strip())}", number)
        return []
    leading = text[body_start : found[0].start()].strip()
    if leading:
        raise MatchFileError(
            f"cannot read {short_repr(leading)} in {short_repr(text.strip())}", number
        )
    if len(found) > 2:
        raise MatchFileError(f"more than two actions in {short_repr(text.strip())}", number)
    tokens: list[_Token] = []
    for n, m in enumerate(found):
        player = n if len(found) == 2 else int(m.start() >= _RIGHT_COLUMN)
        after_end = found[n + 1].start() if n + 1 < len(found) else len(text)
        rest = text[m.end() : after_end]
        kind = m.lastgroup or ""
        if kind in ("dvalue", "bvalue", "points", "match"):
            kind = next(k for k in ("double", "beaver", "wins") if m.group(k))
        if kind == "roll":
            tokens.append(_Token(number, player, "roll", rest.strip(), int(m.group("roll")[:2])))
            continue
        if rest.strip():
            raise MatchFileError(
                f"cannot read {short_repr(rest.strip())} after {short_repr(m.group(0))}",
                number,
            )
        value = 0
        if kind == "double" and m.group("dvalue"):
            value = read_number(m.group("dvalue"), "cube value", number)
        elif kind == "beaver" and m.group("bvalue"):
            value = read_number(m.group("bvalue"), "cube value", number)
        elif kind == "wins":
            value = read_number(m.group("points"), "points", number)
        tokens.append(_Token(number, player, kind, m.group(0), value))
    return tokens


def _segments(text: str, number: int) -> list[Step]:
    try:
        return parse_segments(text)
    except ValueError as exc:
        raise MatchFileError(f"cannot read the play {short_repr(text)}: {exc}", number) from exc


def _actor(tok: _Token) -> int:
    """Who acts with a token: a win line is the loser's resignation."""
    return 1 - tok.player if tok.kind == "wins" else tok.player


def _read_game(reading: MatchReading, tokens: list[_Token], warnings: list[str]) -> None:
    """One game's tokens, each action made on the reading as it is read."""
    m = reading.m
    swap = False
    for idx, tok in enumerate(tokens):
        line = tok.line
        if swap:
            tok = replace(tok, player=1 - tok.player)
        over = reading.over() is not None
        if over and tok.kind != "wins":
            raise MatchFileError(f"a {tok.kind} after the game was over", line)
        beavered = m.phase is bm.Phase.DOUBLED and m.state.beavers > 0
        if not over and beavered and tok.kind in ("roll", "wins"):
            # gnubg writes no line for the take of a beaver (a blank half-row for the take
            # of a raccoon): the game going on says it was taken.
            taker = m.turn
            assert taker is not None
            reading.do(taker, line, answering(taker, True, line))
        closed = None if over else reading.unwritten_pass()
        if closed is not None:
            if (
                tok.kind == "roll"
                and tok.player == closed[0]
                and tok.text
                and tok.text.lower() != "cannot move"
            ):
                # A play for a player who cannot move at all (R13): gnubg's exporter keeps
                # alternating columns when a turn was passed without a roll, so from here
                # the columns are the other way round.
                swap = not swap
                tok = replace(tok, player=1 - tok.player)
                warnings.append(
                    f"line {line}: a play for a closed-out player: columns read swapped from here"
                )
            if _actor(tok) != closed[0]:
                reading.do(closed[0], line, passing(closed[0], line))  # the file left it out
        if tok.kind == "roll":
            following = tokens[idx + 1] if idx + 1 < len(tokens) else None
            if following is not None and swap:
                following = replace(following, player=1 - following.player)
            _read_roll(reading, tok, following, warnings)
        elif tok.kind in ("double", "beaver"):
            expected = m.cube_value * (4 if m.phase is bm.Phase.DOUBLED else 2)
            value = tok.value or expected
            reading.do(tok.player, line, doubling(tok.player, line), cube=value)
            if value != expected:
                warnings.append(f"line {line}: cube turned to {value}, expected {expected}")
        elif tok.kind in ("take", "drop"):
            reading.do(tok.player, line, answering(tok.player, tok.kind == "take", line))
        else:  # wins
            if not over:
                cube = m.cube_value
                level = 1 if tok.value <= cube else 2 if tok.value <= 2 * cube else 3
                if tok.value != level * cube:
                    warnings.append(f"line {line}: {tok.value} points is not a resignation value")
                reading.do(1 - tok.player, line, resigning(1 - tok.player, level, line))
            end = reading.over()
            if end is not None and (end.winner, end.points) != (tok.player, tok.value):
                # The columns say otherwise: trust the play, say so.
                warnings.append(
                    f"line {line}: result written as player {tok.player} winning {tok.value}; "
                    f"the play gives player {end.winner} {end.points}"
                )
    closed = None if reading.over() is not None else reading.unwritten_pass()
    if closed is not None and closed[1]:
        reading.passed(closed[0])  # the Match passed after the last line (R13)


def _read_roll(
    reading: MatchReading, tok: _Token, following: _Token | None, warnings: list[str]
) -> None:
    """A roll token (dice and the play written after them), made on the reading."""
    m = reading.m
    closed = reading.unwritten_pass()
    line = tok.line
    d1, d2 = divmod(tok.value, 10)
    if not (1 <= d1 <= 6 and 1 <= d2 <= 6):
        raise MatchFileError(f"{tok.value:02d}: dice must be 1-6", line)
    dice = (d1, d2)
    if d1 < d2:
        warnings.append(f"line {line}: dice {d1}{d2} written smaller first")
    text = tok.text
    played = True
    cannot = text.lower() == "cannot move"
    if text and not text.strip("?"):
        text, played = "", False
    elif cannot:
        warnings.append(f"line {line}: 'Cannot Move' read as a lost turn (R10)")
        text = ""
    if played and not text and closed is not None and closed[0] == tok.player:
        # gnubg's dance when closed out (R13)
        reading.do(tok.player, line, rolling(tok.player, dice, (), True, line), dance=dice)
        return
    pos = position_for(m, tok.player, "roll", line)
    legal = pos.legal_moves(dice)
    if cannot and legal:
        raise MatchFileError(f"'Cannot Move' but {d1}{d2} can be played", line)
    if played and not text and legal:
        if following is None or (following.kind == "wins" and following.player != tok.player):
            # Rolled, then resigned (gnubg's MOVE_SETDICE), or the record stops here:
            # even a forced play was not made.
            played = False
        elif len(legal) == 1:  # gnubg reads an unwritten forced play as played
            warnings.append(f"line {line}: forced play of {d1}{d2} not written")
            text = str(legal[0])
        else:
            raise MatchFileError(f"{d1}{d2} rolled but no play written", line)
    steps: tuple[Step, ...] = ()
    if played and (text or legal):
        segments = _segments(text, line)
        steps, notes = resolve_play(pos, dice, segments, text, line)
        warnings.extend(notes)
    dance = dice if played and not steps else None
    reading.do(tok.player, line, rolling(tok.player, dice, steps, played, line), dance=dance)


def read_record(text: str, warnings: list[str] | None = None) -> MatchRecord:
    """Read .mat text into the :class:`MatchRecord` it plays to, leniently (see the module
    docstring); what was odd goes into ``warnings``.

    ``text`` must be a ``str`` (bytes raise :class:`NotTextError`; decode them first,
    e.g. with ``utf-8-sig``).  Every game is played through a Match as it is read.
    """
    reading, header, read_warnings = _read(require_text(text, "mat.read_record"), True)
    if warnings is not None:
        warnings.extend(read_warnings)
    return reading.record(*header)


def _read(text: str, numbered: bool) -> tuple[MatchReading, _Header, list[str]]:
    """The reading of .mat text (each game made on a Match as it is read), the header
    (players, tags, comment) and what was odd; ``numbered`` keeps the file's game numbers."""
    warnings: list[str] = []
    if text.startswith("\ufeff"):
        text = text[1:]
        warnings.append("line 1: byte-order mark skipped")
    lines = text.splitlines()
    info: list[tuple[str, str]] = []
    comments: list[str] = []
    crawford, jacoby = True, False
    length: int | None = None
    k = 0
    while k < len(lines):
        raw = lines[k]
        k += 1
        stripped = raw.strip()
        if not stripped:
            continue
        digits = _length_digits(raw)
        if digits is not None:
            length = read_number(digits, "match length", k)
            break
        if stripped[0] in ";#":
            tag = _header_tag(stripped)
            if tag:
                key, value = tag
                info.append((key, value))
                if key == "Variation" and value.lower() != "backgammon":
                    raise MatchFileError(f"variation {short_repr(value)} is not supported", k)
                if key == "Crawford":
                    crawford = value.lower() != "off"
                elif key == "Jacoby":
                    jacoby = value.lower() == "on"
                elif key not in _KNOWN_TAGS:
                    warnings.append(
                        f"line {k}: header tag {short_repr(key)} kept (gnubg ignores it)"
                    )
            else:
                comments.append(stripped[1:].strip())
            continue
        raise MatchFileError(f"expected a header or 'N point match', got {short_repr(stripped)}", k)
    if length is None:
        raise MatchFileError("no 'N point match' line", len(lines) or None)
    reading = MatchReading(length, crawford, jacoby, numbered)
    count, last_number = 0, 0
    players: tuple[str, str] | None = None
    expected_score = (0, 0)
    while k < len(lines):
        raw = lines[k]
        k += 1
        if not raw.strip():
            continue
        game_digits = _game_digits(raw)
        if game_digits is None:
            raise MatchFileError(f"expected 'Game N', got {short_repr(raw.strip())}", k)
        number = read_number(game_digits, "game number", k)
        if number != count + 1 and count:
            warnings.append(f"line {k}: game {number} follows game {last_number}")
        while k < len(lines) and not lines[k].strip():
            k += 1
        if k >= len(lines):
            raise MatchFileError(f"game {number} has no score line", k)
        parts = _score_line(lines[k])
        k += 1
        if parts is None:
            raise MatchFileError(
                f"expected 'name : score  name : score', got {short_repr(lines[k - 1])}", k
            )
        names = (parts[0], parts[2])
        score = (read_number(parts[1], "score", k), read_number(parts[3], "score", k))
        if players is None:
            players = names
        elif names != players:
            warnings.append(f"line {k}: player names {names} differ from {players}")
        if count and score != expected_score:
            warnings.append(f"line {k}: score {score} but the games so far give {expected_score}")
        tokens: list[_Token] = []
        while k < len(lines) and _game_digits(lines[k]) is None:
            raw = lines[k]
            k += 1
            stripped = raw.strip()
            if not stripped:
                continue
            if stripped[0] in ";#":
                if stripped.lower().startswith("; set pos="):
                    raise MatchFileError("XG 'Set Pos' positions are not supported", k)
                warnings.append(f"line {k}: comment inside a game ignored")
                continue
            tokens.extend(_tokens_of_line(raw, k, bool(_ROW.match(raw))))
        reading.begin_game(number, score, jacoby and length == 0)
        _read_game(reading, tokens, warnings)
        end = reading.end_game()
        count, last_number = count + 1, number
        if end is not None:
            e = list(score)
            e[end.winner] += end.points
            expected_score = (e[0], e[1])
        if length and max(score) >= length:
            warnings.append(f"line {k}: game {number} starts after the match was over")
    header = (players or ("Player 0", "Player 1"), info, "\n".join(comments))
    return reading, header, warnings


# ----------------------------------------------------------------------------- Match


def write(match: Match, players: tuple[str, str] = ("Player 0", "Player 1")) -> str:
    """The .mat text of a live match, in gnubg's layout."""
    return write_record(as_written(match, players))


def read(text: str, warnings: list[str] | None = None) -> Match:
    """Read .mat text and replay it through :class:`Match` (every action checked).

    What was odd is appended to ``warnings`` when a list is given; what cannot be read or
    is refused by the rules raises :class:`MatchFileError` with the line number.  ``text``
    is a ``str``: bytes raise :class:`NotTextError` (decode them first, e.g. ``utf-8-sig``).
    """
    reading, header, read_warnings = _read(require_text(text, "mat.read"), False)
    if warnings is not None:
        warnings.extend(read_warnings)
    return Match.replay(reading.record(*header, danced=False, notes=warnings))

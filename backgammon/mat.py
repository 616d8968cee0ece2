"""Jellyfish / GNU Backgammon ``.mat`` match files (formats.md §4).

Writing reproduces gnubg 1.07's ``export match mat`` layout byte for byte (its
``ExportGameJF``: column widths, the trailing space after each step but the fourth,
``Doubles => 2``, ``Drops`` with the win on the same row, ``Wins N point(s)``).  Reading is
lenient (a byte-order mark, XG header tags, combined moves such as ``24/15``, ``Cannot
Move``, ``???``, dice in either order, XG's wider columns): what was odd is collected in
``MatchFile.warnings``; what cannot be read raises :class:`MatchFileError` with the line
number.  Every play is checked against the rules core while reading.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from backgammon.board import Step
from backgammon.match import Match
from backgammon.matchfile import (
    Action,
    Double,
    Drop,
    GameFile,
    GameReplay,
    MatchFile,
    MatchFileError,
    Pass,
    Resign,
    Roll,
    Take,
    from_match,
    to_match,
)
from backgammon.notation import parse_segments

__all__ = [
    "MatchFileError",
    "format_steps_plain",
    "read",
    "read_record",
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


def _write_game(out: list[str], record: MatchFile, game: GameFile) -> None:
    out.append(f" Game {game.number}\n")
    left = f"{record.players[0]} : {game.score[0]}"
    out.append(f" {left:<31}{record.players[1]} : {game.score[1]}\n")
    i = 0
    cube = 1
    dice_rolled = False
    doubler: int | None = None  # who made the pending offer
    beavered = False
    last = len(game.actions) - 1
    for k, action in enumerate(game.actions):
        normal = isinstance(action, Roll) and action.played
        setdice = isinstance(action, Roll) and not action.played
        resign = isinstance(action, Resign)
        if isinstance(action, Pass):
            text = ""  # R13: no roll; the half-row stays empty
        elif isinstance(action, Roll):
            text = f"{action.dice[0]}{action.dice[1]}: "
            if action.played:
                dice_rolled = False
                text += format_steps_plain(action.steps)
            else:
                dice_rolled = True
        elif isinstance(action, Double):
            cube = action.value
            if doubler is not None and action.player != doubler:
                # gnubg 1.07 writes a beaver and a raccoon alike (R32); its reader would
                # not supply the take after "Raccoons".
                text = f" Beavers => {cube}"
                beavered = True
            else:
                text = f" Doubles => {cube}"
            doubler = action.player
        elif isinstance(action, Take):
            # gnubg leaves the take of a beaver blank; its reader supplies it at the roll.
            text = "" if beavered else " Takes"
            doubler, beavered = None, False
        elif isinstance(action, Drop):
            doubler, beavered = None, False
            points = game.end.points if game.end is not None else cube // 2
            sep = "\n      " if i & 1 else " " * 23
            text = f" Drops{sep}Wins {points} point{_plural(points)}"
        else:
            points = game.end.points if game.end is not None else action.level * cube
            odd = bool(i & 1) ^ dice_rolled
            wins = f"Wins {points} point{_plural(points)}\n"
            if action.player:
                text = ("\n" if odd else "") + "      " + wins
            elif i & 1:
                text = (" " if odd else " " * 24) + wins
            else:
                text = (" " if odd else " " * 34) + wins
        # gnubg indents only a played opening roll of the right player; an unplayed one
        # (a resignation right after the opening roll) would land in the wrong column and
        # be read back as the left player's, so it is indented too (a deliberate deviation).
        if i == 0 and isinstance(action, Roll) and action.player == 1:
            out.append("  1)" + " " * 29)
            i += 1
        if i & 1 or resign:
            out.append(text)
            if not setdice:
                out.append("\n")
        elif not setdice:
            out.append(f"{(i >> 1) + 1:3d}) {text:<27} ")
        else:
            out.append(f"{(i >> 1) + 1:3d}) {text:<3}")
        if isinstance(action, Drop):
            out.append("\n")
            if not i & 1:
                out.append("\n")
        end = game.end
        if normal and k == last and end is not None and not end.resigned:
            lead = " " * 34 if i & 1 else "\n      "
            out.append(f"{lead}Wins {end.points} point{_plural(end.points)}\n\n")
        i += 1


def write_record(record: MatchFile) -> str:
    """The .mat text gnubg 1.07 would export for this match."""
    out: list[str] = []
    for tag in _GNUBG_TAGS:
        value = record.tag(tag)
        if value is not None:
            out.append(f'; [{tag} "{value}"]\n')
    # gnubg writes no rules; XG's tags say what a reader cannot guess (gnubg ignores them).
    if record.length == 0 and record.jacoby:
        out.append('; [Jacoby "On"]\n')
    if record.length > 1 and not record.crawford:
        out.append('; [Crawford "Off"]\n')
    for tag, value in record.info:
        if tag not in _KNOWN_TAGS:
            out.append(f'; [{tag} "{value}"]\n')
    if record.comment:
        out.append("\n; " + record.comment.rstrip("\n").replace("\n", "\n; ") + "\n")
    out.append("\n")
    out.append(f" {record.length} point match\n\n")
    for game in record.games:
        _write_game(out, record, game)
    return "".join(out)


# ----------------------------------------------------------------------------- reading

_LENGTH = re.compile(r"^\s*(\d+)\s+point\s+match\s*$", re.IGNORECASE)
_GAME = re.compile(r"^\s*Game\s+(\d+)\s*$", re.IGNORECASE)
_SCORE = re.compile(r"^\s*(.*?)\s*:\s*(\d+)\s+(.*?)\s*:\s*(\d+)\s*$")
_TAG = re.compile(r'^[;#]\s*\[\s*([^"\]]+?)\s+"(.*)"\s*\]\s*$')
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
            raise MatchFileError(f"cannot read {text.strip()!r}", number)
        return []
    leading = text[body_start : found[0].start()].strip()
    if leading:
        raise MatchFileError(f"cannot read {leading!r} in {text.strip()!r}", number)
    tokens: list[_Token] = []
    for n, m in enumerate(found):
        if len(found) == 1:
            player = 1 if m.start() >= _RIGHT_COLUMN else 0
        elif len(found) == 2:
            player = n
        else:
            raise MatchFileError(f"more than two actions in {text.strip()!r}", number)
        after_end = found[n + 1].start() if n + 1 < len(found) else len(text)
        rest = text[m.end() : after_end]
        kind = m.lastgroup or ""
        if kind in ("dvalue", "bvalue", "points", "match"):
            kind = next(k for k in ("double", "beaver", "wins") if m.group(k))
        if kind == "roll":
            tokens.append(_Token(number, player, "roll", rest.strip(), int(m.group("roll")[:2])))
            continue
        if rest.strip():
            raise MatchFileError(f"cannot read {rest.strip()!r} after {m.group(0)!r}", number)
        value = 0
        if kind == "double" and m.group("dvalue"):
            value = int(m.group("dvalue"))
        elif kind == "beaver" and m.group("bvalue"):
            value = int(m.group("bvalue"))
        elif kind == "wins":
            value = int(m.group("points"))
        tokens.append(_Token(number, player, kind, m.group(0), value))
    return tokens


def _segments(text: str, number: int) -> list[Step]:
    try:
        return parse_segments(text)
    except ValueError as exc:
        raise MatchFileError(f"cannot read the play {text!r}: {exc}", number) from exc


def _read_game(
    tokens: list[_Token],
    number: int,
    score: tuple[int, int],
    warnings: list[str],
    jacoby: bool = False,
) -> GameFile:
    replay = GameReplay(jacoby)
    actions: list[Action] = []
    swap = False
    beavered = False  # the pending offer was beavered: a roll means it was taken (gnubg)
    for idx, tok in enumerate(tokens):
        line = tok.line
        if swap:
            tok = replace(tok, player=1 - tok.player)
        if (
            tok.kind == "roll"
            and tok.player == replay.turn
            and tok.text
            and tok.text.lower() != "cannot move"
            and replay.pending is None
            and replay.rolled is None
            and replay.end is None
            and replay.closed_out()
        ):
            # A play for a player who cannot move at all (R13): gnubg's exporter keeps
            # alternating columns when a turn was passed without a roll, so from here the
            # columns are the other way round.
            swap = not swap
            tok = replace(tok, player=1 - tok.player)
            warnings.append(
                f"line {line}: a play for a closed-out player: columns read swapped from here"
            )
        if tok.kind == "roll" and beavered and replay.pending is not None:
            implied_take = Take(1 - replay.pending, line)
            replay.take(implied_take, line)
            actions.append(implied_take)
            beavered = False
        if tok.kind in ("roll", "double"):
            implied = replay.implied_pass(tok.player, line)
            if implied is not None:
                actions.append(implied)
        if tok.kind == "roll":
            d1, d2 = divmod(tok.value, 10)
            if not (1 <= d1 <= 6 and 1 <= d2 <= 6):
                raise MatchFileError(f"{tok.value}: dice must be 1-6", line)
            dice = (d1, d2)
            if d1 < d2:
                warnings.append(f"line {line}: dice {d1}{d2} written smaller first")
            text = tok.text
            played = True
            if re.fullmatch(r"\?+", text):
                text, played = "", False
            elif text.lower() == "cannot move":
                warnings.append(f"line {line}: 'Cannot Move' read as a lost turn (R10)")
                text = ""
                if replay.position.legal_moves(dice):
                    raise MatchFileError(f"'Cannot Move' but {d1}{d2} can be played", line)
            if replay.turn is not None and tok.player != replay.turn:
                raise MatchFileError(
                    f"a roll by player {tok.player}, but player {replay.turn} is on turn", line
                )
            legal = replay.position.legal_moves(dice)
            if played and not text and legal:
                following = tokens[idx + 1] if idx + 1 < len(tokens) else None
                if len(legal) == 1:  # gnubg reads an unwritten forced play as played
                    warnings.append(f"line {line}: forced play of {d1}{d2} not written")
                    text = str(legal[0])
                elif following is None or following.kind == "wins":
                    played = False  # rolled, then resigned (gnubg's reading)
                else:
                    raise MatchFileError(f"{d1}{d2} rolled but no play written", line)
            steps: tuple[Step, ...] = ()
            if played and (text or legal):
                segments = _segments(text, line)
                steps, notes = replay.resolve(tok.player, dice, segments, text, line)
                warnings.extend(notes)
            roll = Roll(tok.player, dice, steps, played, line)
            replay.roll(roll, line)
            actions.append(roll)
        elif tok.kind in ("double", "beaver"):
            value = tok.value or replay.cube * 2
            if replay.pending is not None and tok.player != replay.pending:
                value = tok.value or replay.pending_value * 2
            action = Double(tok.player, value, line)
            beavered = replay.double(action, line) or beavered
            expected = replay.cube * 2
            if value != expected:
                warnings.append(f"line {line}: cube turned to {value}, expected {expected}")
            actions.append(action)
        elif tok.kind == "take":
            take = Take(tok.player, line)
            replay.take(take, line)
            actions.append(take)
            beavered = False
        elif tok.kind == "drop":
            drop = Drop(tok.player, line)
            replay.drop(drop, line)
            actions.append(drop)
            beavered = False
        else:  # wins
            if replay.end is None:
                loser = 1 - tok.player
                cube = replay.cube
                level = 1 if tok.value <= cube else 2 if tok.value <= 2 * cube else 3
                if tok.value != level * cube:
                    warnings.append(f"line {line}: {tok.value} points is not a resignation value")
                resign = Resign(loser, level, line)
                replay.resign(resign, line)
                actions.append(resign)
            if replay.end is not None and (replay.end.winner, replay.end.points) != (
                tok.player,
                tok.value,
            ):
                # The columns say otherwise: trust the play, say so.
                warnings.append(
                    f"line {line}: result written as player {tok.player} winning {tok.value}; "
                    f"the play gives player {replay.end.winner} {replay.end.points}"
                )
    return GameFile(number, score, tuple(actions), replay.end)


def read_record(text: str) -> MatchFile:
    """Read .mat text into a :class:`MatchFile`, leniently (see the module docstring)."""
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
        m = _LENGTH.match(raw)
        if m:
            length = int(m.group(1))
            break
        if stripped[0] in ";#":
            tag = _TAG.match(stripped)
            if tag:
                key, value = tag.group(1), tag.group(2)
                info.append((key, value))
                if key == "Variation" and value.lower() != "backgammon":
                    raise MatchFileError(f"variation {value!r} is not supported", k)
                if key == "Crawford":
                    crawford = value.lower() != "off"
                elif key == "Jacoby":
                    jacoby = value.lower() == "on"
                elif key not in _KNOWN_TAGS:
                    warnings.append(f"line {k}: header tag {key!r} kept (gnubg ignores it)")
            else:
                comments.append(stripped[1:].strip())
            continue
        raise MatchFileError(f"expected a header or 'N point match', got {stripped!r}", k)
    if length is None:
        raise MatchFileError("no 'N point match' line", len(lines) or None)
    games: list[GameFile] = []
    players: tuple[str, str] | None = None
    expected_score = (0, 0)
    while k < len(lines):
        raw = lines[k]
        k += 1
        if not raw.strip():
            continue
        gm = _GAME.match(raw)
        if not gm:
            raise MatchFileError(f"expected 'Game N', got {raw.strip()!r}", k)
        number = int(gm.group(1))
        if number != len(games) + 1 and games:
            warnings.append(f"line {k}: game {number} follows game {games[-1].number}")
        while k < len(lines) and not lines[k].strip():
            k += 1
        if k >= len(lines):
            raise MatchFileError(f"game {number} has no score line", k)
        sm = _SCORE.match(lines[k])
        k += 1
        if not sm:
            raise MatchFileError(f"expected 'name : score  name : score', got {lines[k - 1]!r}", k)
        names = (sm.group(1), sm.group(3))
        score = (int(sm.group(2)), int(sm.group(4)))
        if players is None:
            players = names
        elif names != players:
            warnings.append(f"line {k}: player names {names} differ from {players}")
        if games and score != expected_score:
            warnings.append(f"line {k}: score {score} but the games so far give {expected_score}")
        tokens: list[_Token] = []
        while k < len(lines) and not _GAME.match(lines[k]):
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
        game = _read_game(tokens, number, score, warnings, jacoby and length == 0)
        games.append(game)
        if game.end is not None:
            e = list(score)
            e[game.end.winner] += game.end.points
            expected_score = (e[0], e[1])
        if length and max(score) >= length:
            warnings.append(f"line {k}: game {number} starts after the match was over")
    return MatchFile(
        length=length,
        players=players or ("Player 0", "Player 1"),
        games=tuple(games),
        info=tuple(info),
        comment="\n".join(comments),
        crawford=crawford and length > 1,
        jacoby=jacoby,
        warnings=tuple(warnings),
    )


# ----------------------------------------------------------------------------- Match


def write(match: Match, players: tuple[str, str] = ("Player 0", "Player 1")) -> str:
    """The .mat text of a live match, in gnubg's layout."""
    return write_record(from_match(match, players))


def read(text: str, warnings: list[str] | None = None) -> Match:
    """Read .mat text and replay it through :class:`Match` (every action checked).

    What was odd is appended to ``warnings`` when a list is given; what cannot be read or
    is refused by the rules raises :class:`MatchFileError` with the line number.
    """
    record = read_record(text)
    if warnings is not None:
        warnings.extend(record.warnings)
    return to_match(record, warnings)

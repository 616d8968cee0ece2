"""Backgammon in SGF (``GM[6]``), as GNU Backgammon reads and writes it (formats.md §8).

One game tree per game.  Points are letters: from White's (player 0's) side ``a`` is the
1-point, from Black's (player 1's) side ``x`` is; ``y`` is the bar and ``z`` off.  Moves
are ``W[dd…]``/``B[dd…]`` (dice then from/to letter pairs; hits are not marked), cube
actions ``double``/``take``/``drop``; resignations show only in ``RE[W+nR]``.  Writing
follows gnubg 1.07's ``SaveGame`` without its analysis properties; reading accepts any
well-formed SGF with ``GM[6]``, ignores properties it does not need (analysis, luck,
comments), follows the main line of variations and raises :class:`MatchFileError` with the
line number on what it cannot read.  The reader drives a :class:`~backgammon.play.match.Match`
through each game as it reads; it takes ``str`` only (bytes raise :class:`NotTextError`),
parses without recursion in time linear in the text, and refuses variations nested deeper
than :data:`MAX_DEPTH`.
"""

from __future__ import annotations

import re
from contextlib import suppress
from dataclasses import dataclass, field

from backgammon._version import __version__
from backgammon.core.values import BAR, OFF, Step, clip
from backgammon.play import match as bm
from backgammon.play.match import Match
from backgammon.play.record import MatchRecord
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
    as_written,
    crawford_games,
    written_games,
    written_players,
)

__all__ = [
    "DEFAULT_APPLICATION",
    "MAX_DEPTH",
    "MatchFileError",
    "NotTextError",
    "game_nodes",
    "point_of_letter",
    "read",
    "read_record",
    "write",
    "write_record",
]

DEFAULT_APPLICATION = f"backgammon:{__version__}"

MAX_DEPTH = 256
"""The deepest nesting of game trees read (gnubg writes one level; variations add one)."""

# .mat tag <-> SGF root property (the ones gnubg writes for game 0).
_INFO_PROPERTIES = (("Event", "EV"), ("Round", "RO"), ("Site", "PC"), ("Transcriber", "AN"))


# ----------------------------------------------------------------------------- writing


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("]", "\\]")


def _letter(point: int, player: int) -> str:
    if point == BAR:
        return "y"
    if point == OFF:
        return "z"
    return chr(ord("x") - (point - 1)) if player else chr(ord("a") + point - 1)


def _colour(player: int) -> str:
    return "B" if player else "W"


def write_record(record: MatchRecord) -> str:
    """The SGF text gnubg 1.07's ``save match`` would write (without analysis), one game
    tree a game."""
    length = record.rules.match_length or 0
    games = written_games(record)
    crawford = crawford_games(record, [start for start, _, _ in games])
    players = written_players(record)
    app = record.application or DEFAULT_APPLICATION
    out: list[str] = []
    for index, (start, entries, end) in enumerate(games):
        g = start.game - 1
        out.append(f"(;FF[4]GM[6]CA[UTF-8]AP[{_escape(app)}]")
        out.append(f"MI[length:{length}][game:{g}][ws:{start.score[0]}][bs:{start.score[1]}]")
        out.append(f"PW[{_escape(players[0])}]PB[{_escape(players[1])}]")
        if g == 0:
            _write_header(out, record)
        rules: list[str] = []
        if record.rules.crawford and length > 1:
            rules.append("Crawford")
        if crawford[index]:
            rules.append("CrawfordGame")
        if record.rules.jacoby and length == 0:
            rules.append("Jacoby")
        if rules:
            out.append(f"RU[{':'.join(rules)}]")
        if end is not None:
            resigned = "R" if end.reason is bm.EndReason.RESIGNED else ""
            out.append(f"RE[{_colour(end.winner)}+{end.points}{resigned}]")
        for a, player, dice in entries:
            c = _colour(player)
            if isinstance(a, bm.Roll | bm.OpeningRoll):
                assert dice is not None
                out.append(f"\n;PL[{c}]DI[{dice[0]}{dice[1]}]")
            elif isinstance(a, bm.Play) or (isinstance(a, bm.Pass) and dice is not None):
                assert dice is not None
                steps = tuple(a.move) if isinstance(a, bm.Play) else ()
                pairs = "".join(_letter(s, player) + _letter(t, player) for s, t, _ in steps)
                out.append(f"\n;{c}[{dice[0]}{dice[1]}{pairs}]")
            elif isinstance(a, bm.Double | bm.Beaver | bm.Raccoon):
                out.append(f"\n;{c}[double]")
            elif isinstance(a, bm.Take):
                out.append(f"\n;{c}[take]")
            elif isinstance(a, bm.Drop):
                out.append(f"\n;{c}[drop]")
            # Resign shows only in RE; Pass (R13) is not written: the other side moves next.
        out.append(")\n")
    return "".join(out)


def _write_header(out: list[str], record: MatchRecord) -> None:
    """The first game's match properties: ratings, date, event, round, place, annotator and
    the match comment."""
    for prop, tag in (("WR", "Player 1 Rating"), ("BR", "Player 2 Rating")):
        value = record.tag(tag)
        if value:
            out.append(f"{prop}[{_escape(value)}]")
    date = record.tag("EventDate")
    if date:
        out.append(f"DT[{_escape(date.replace('.', '-'))}]")
    for tag, prop in _INFO_PROPERTIES:
        value = record.tag(tag)
        if value:
            out.append(f"{prop}[{_escape(value)}]")
    if record.comment:
        out.append(f"GC[{_escape(record.comment)}]")


# ----------------------------------------------------------------------------- parsing


@dataclass
class _Node:
    line: int
    props: dict[str, list[str]] = field(default_factory=dict)


@dataclass
class _Tree:
    line: int
    nodes: list[_Node] = field(default_factory=list)
    children: list[_Tree] = field(default_factory=list)


class _Parser:
    """A small SGF (FF[4]) parser: game trees of nodes of properties with raw values."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.line = 1

    def _skip(self) -> None:
        t = self.text
        while self.pos < len(t) and t[self.pos].isspace():
            if t[self.pos] == "\n":
                self.line += 1
            self.pos += 1

    def _peek(self) -> str:
        self._skip()
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def collection(self) -> list[_Tree]:
        trees: list[_Tree] = []
        while self._peek() == "(":
            trees.append(self.tree())
        if self._peek():
            raise MatchFileError(f"unexpected {self._peek()!r} outside a game tree", self.line)
        if not trees:
            raise MatchFileError("no game tree: an SGF file starts with '(;'", self.line)
        return trees

    def tree(self) -> _Tree:
        """A game tree and its variations, with an explicit stack (no recursion)."""
        self.pos += 1  # "("
        root = self._nodes(_Tree(self.line))
        open_trees = [root]
        while open_trees:
            c = self._peek()
            if c == "(":
                if len(open_trees) >= MAX_DEPTH:
                    raise MatchFileError(f"game trees nested deeper than {MAX_DEPTH}", self.line)
                self.pos += 1
                child = self._nodes(_Tree(self.line))
                open_trees[-1].children.append(child)
                open_trees.append(child)
            elif c == ")":
                self.pos += 1
                open_trees.pop()
            else:
                found = c or "the end of the file"
                raise MatchFileError(
                    f"expected ')' to close the game tree, found {found!r}", self.line
                )
        return root

    def _nodes(self, tree: _Tree) -> _Tree:
        """Read the nodes of ``tree`` (at least one) up to its variations or its end."""
        while self._peek() == ";":
            tree.nodes.append(self.node())
        if not tree.nodes:
            raise MatchFileError("a game tree without nodes", self.line)
        return tree

    def node(self) -> _Node:
        self.pos += 1  # ";"
        node = _Node(self.line)
        while True:
            c = self._peek()
            if not c or not c.isalpha():
                return node
            start = self.pos
            while self.pos < len(self.text) and self.text[self.pos].isalpha():
                self.pos += 1
            ident = "".join(ch for ch in self.text[start : self.pos] if ch.isupper())
            values: list[str] = []
            while self._peek() == "[":
                values.append(self.value())
            if not values:
                raise MatchFileError(f"property {ident} has no value", self.line)
            node.props.setdefault(ident, []).extend(values)

    def value(self) -> str:
        self.pos += 1  # "["
        out: list[str] = []
        t = self.text
        start = self.line
        while True:
            if self.pos >= len(t):
                raise MatchFileError("a property value is not closed with ']'", start)
            c = t[self.pos]
            self.pos += 1
            if c == "\n":
                self.line += 1
            if c == "]":
                return "".join(out)
            if c == "\\":
                if self.pos >= len(t):
                    raise MatchFileError("a property value is not closed with ']'", self.line)
                c = t[self.pos]
                self.pos += 1
                if c == "\n":
                    self.line += 1
                    continue  # soft line break
            out.append(c)


# ----------------------------------------------------------------------------- reading

_MOVE = re.compile(r"^([1-6])([1-6])([a-z]*)$")
_RESULT = re.compile(r"^([WB])\+(\d+)(R?)$")
_SETUP = ("AE", "AB", "AW", "CP")

_Header = tuple[tuple[str, str], list[tuple[str, str]], str, str]
"""The players, the header tags, the comment and the application of a file."""


def point_of_letter(letter: str, player: int, line: int = 0) -> int:
    """The point an SGF move letter names for ``player`` (``y`` the bar, ``z`` off), as
    gnubg writes them; a :class:`MatchFileError` at ``line`` for any other letter."""
    if letter == "y":
        return BAR
    if letter == "z":
        return OFF
    if not "a" <= letter <= "x":
        raise MatchFileError(f"{letter!r} is not a point letter", line)
    return ord("x") - ord(letter) + 1 if player else ord(letter) - ord("a") + 1


def _main_line(tree: _Tree, warnings: list[str]) -> list[_Node]:
    nodes = list(tree.nodes)
    while tree.children:
        if len(tree.children) > 1:
            warnings.append(f"line {tree.children[1].line}: variations ignored (main line read)")
        tree = tree.children[0]
        nodes.extend(tree.nodes)
    return nodes


def _game_numbers(props: dict[str, list[str]], line: int) -> tuple[int, tuple[int, int]]:
    """The game's number and the score before it, from its ``MI`` (game 1 at 0-0 without)."""
    if "MI" not in props:
        return 1, (0, 0)
    mi: dict[str, str] = {}
    for item in props["MI"]:
        key, _, val = item.partition(":")
        mi[key.strip()] = val.strip()
    number = read_number(mi.get("game", "0"), "MI game", line) + 1
    score = (
        read_number(mi.get("ws", "0"), "MI ws", line),
        read_number(mi.get("bs", "0"), "MI bs", line),
    )
    return number, score


def _read_game(reading: MatchReading, nodes: list[_Node], warnings: list[str]) -> _Node:
    """One game's main line, each action made on the reading as it is read; its root."""
    root = nodes[0]
    props = root.props
    if props.get("GM", ["6"])[0] != "6":
        raise MatchFileError(f"GM[{clip(props['GM'][0])}] is not backgammon (GM[6])", root.line)
    # A damaged MI is refused after the moves, as the moves are read first.
    unread: MatchFileError | None = None
    try:
        number, score = _game_numbers(props, root.line)
    except MatchFileError as exc:
        number, score, unread = 1, (0, 0), exc
    rules = props.get("RU", [""])[0].split(":")
    reading.begin_game(number, score, jacoby="Jacoby" in rules)
    m = reading.m

    def pass_before(player: int, line: int | None) -> None:
        """The pass of a closed-out opponent that the file leaves out (R13)."""
        closed = reading.unwritten_pass()
        if closed is not None and closed[0] != player:
            reading.do(closed[0], line, passing(closed[0], line))

    for node in nodes[1:]:
        line = node.line
        for key in _SETUP:
            if key in node.props:
                raise MatchFileError(f"setup property {key} (edited positions) not supported", line)
        if "CV" in node.props:
            raise MatchFileError("setup property CV (edited cube) not supported", line)
        acts = [k for k in ("DI", "W", "B") if k in node.props]
        if acts and reading.over() is not None:
            raise MatchFileError(f"{acts[0]}[...] after the game was over", line)
        if "DI" in node.props:
            pl = node.props.get("PL", ["W"])[0]
            dice_text = node.props["DI"][0]
            dm = _MOVE.match(dice_text)
            if not dm or dm.group(3):
                raise MatchFileError(f"DI[{clip(dice_text)}] is not a roll", line)
            player = 1 if pl == "B" else 0
            pass_before(player, line)
            dice = (int(dm.group(1)), int(dm.group(2)))
            reading.do(player, line, rolling(player, dice, (), False, line), hold=True)
        for colour in ("W", "B"):
            if colour not in node.props:
                continue
            if reading.over() is not None:
                raise MatchFileError(f"{colour}[...] after the game was over", line)
            player = 1 if colour == "B" else 0
            value = node.props[colour][0].strip().lower()
            if value not in ("take", "drop"):
                pass_before(player, line)
            if value == "double":
                expected = m.cube_value * (4 if m.phase is bm.Phase.DOUBLED else 2)
                reading.do(player, line, doubling(player, line), cube=expected)
            elif value in ("take", "drop"):
                reading.do(player, line, answering(player, value == "take", line))
            else:
                _read_move(reading, player, colour, value, line, warnings)
    if unread is not None:
        raise unread
    end = reading.over()
    if "RE" in props:
        rm = _RESULT.match(props["RE"][0].strip())
        if not rm:
            warnings.append(f"line {root.line}: result RE[{clip(props['RE'][0])}] not understood")
        else:
            winner = 1 if rm.group(1) == "B" else 0
            points = read_number(rm.group(2), "RE points", root.line)
            if end is None:
                cube = m.cube_value
                level = 1 if points <= cube else 2 if points <= 2 * cube else 3
                if not rm.group(3):
                    warnings.append(f"line {root.line}: RE without R on an unfinished game")
                pass_before(1 - winner, None)
                loser = 1 - winner
                reading.do(loser, root.line, resigning(loser, level, root.line))
                end = reading.over()
            if end is not None and (end.winner, end.points) != (winner, points):
                warnings.append(
                    f"line {root.line}: RE[{props['RE'][0]}] but the play gives "
                    f"{_colour(end.winner)}+{end.points}"
                )
    reading.end_game()
    return root


def _read_move(
    reading: MatchReading,
    player: int,
    colour: str,
    value: str,
    line: int,
    warnings: list[str],
) -> None:
    """A move property (dice, then from/to letter pairs), made on the reading."""
    m = reading.m
    mm = _MOVE.match(value)
    if not mm or len(mm.group(3)) % 2 or len(mm.group(3)) > 8:
        raise MatchFileError(f"{colour}[{clip(value)}] is not a move", line)
    dice = (int(mm.group(1)), int(mm.group(2)))
    letters = mm.group(3)
    segments: list[Step] = [
        (
            point_of_letter(letters[i], player, line),
            point_of_letter(letters[i + 1], player, line),
            False,
        )
        for i in range(0, len(letters), 2)
    ]
    for s, t, _ in segments:
        if s == OFF or t == BAR or t >= s:
            raise MatchFileError(f"{colour}[{value}]: a step must move forward", line)
    text = " ".join(f"{s}/{t}" for s, t, _ in segments)
    if m.phase is bm.Phase.MOVE and m.on_roll == player and m.dice is not None:
        # DI, then the move of those dice.
        if sorted(m.dice) != sorted(dice):
            raise MatchFileError(f"{colour}[{value}] after DI[{m.dice[0]}{m.dice[1]}]", line)
        steps, notes = resolve_play(m.position, dice, segments, text, line, marks_hits=False)
        reading.play_held(player, dice, steps, line)
        warnings.extend(notes)
        return
    closed = reading.unwritten_pass()
    if not segments and closed is not None and closed[0] == player:
        # gnubg's dance when closed out (R13)
        reading.do(player, line, rolling(player, dice, (), True, line), dance=dice)
        return
    position = position_for(m, player, "move", line)
    steps, notes = resolve_play(position, dice, segments, text, line, marks_hits=False)
    warnings.extend(notes)
    dance = None if steps else dice
    reading.do(player, line, rolling(player, dice, steps, True, line), dance=dance)


def game_nodes(text: str) -> list[list[dict[str, list[str]]]]:
    """Each game's main line as its nodes' properties (identifier to raw values), for
    readers of what gnubg writes beside the moves (its analysis)."""
    text = require_text(text, "sgf.game_nodes").removeprefix("\ufeff")
    warnings: list[str] = []
    return [[n.props for n in _main_line(t, warnings)] for t in _Parser(text).collection()]


def read_record(text: str, warnings: list[str] | None = None) -> MatchRecord:
    """Read SGF text (one game tree per game) into the :class:`MatchRecord` it plays to;
    what was odd goes into ``warnings``.

    ``text`` must be a ``str`` (bytes raise :class:`NotTextError`; decode them first,
    e.g. with ``utf-8-sig``).  Every game is played through a Match as it is read.
    """
    reading, header, read_warnings = _read(require_text(text, "sgf.read_record"), True)
    if warnings is not None:
        warnings.extend(read_warnings)
    return reading.record(*header)


def _rules_of(trees: list[_Tree]) -> tuple[int, bool, bool]:
    """The match length (the first game's ``MI``) and whether any game's ``RU`` says
    Crawford or Jacoby: what the match's rules need before its first game is read.  A
    damaged length reads as 0 here; it is refused once the first game is read."""
    length = 0
    for item in trees[0].nodes[0].props.get("MI", []):
        key, _, val = item.partition(":")
        if key.strip() == "length":
            with suppress(MatchFileError):
                length = read_number(val.strip(), "MI length", None)
    rules = {r for t in trees for r in t.nodes[0].props.get("RU", [""])[0].split(":")}
    return length, "Crawford" in rules, "Jacoby" in rules


def _read(text: str, numbered: bool) -> tuple[MatchReading, _Header, list[str]]:
    """The reading of SGF text (each game made on a Match as it is read), the header
    (players, tags, comment, application) and what was odd; ``numbered`` keeps the file's
    game numbers."""
    warnings: list[str] = []
    if text.startswith("\ufeff"):
        text = text[1:]
        warnings.append("line 1: byte-order mark skipped")
    trees = _Parser(text).collection()
    reading = MatchReading(*_rules_of(trees), numbered=numbered)
    players = ("White", "Black")
    info: list[tuple[str, str]] = []
    comment = ""
    application = ""
    for n, tree in enumerate(trees):
        nodes = _main_line(tree, warnings)
        root = _read_game(reading, nodes, warnings)
        props = root.props
        if n == 0:
            players = (props.get("PW", ["White"])[0], props.get("PB", ["Black"])[0])
            application = props.get("AP", [""])[0]
            for item in props.get("MI", []):
                key, _, val = item.partition(":")
                if key.strip() == "length":
                    read_number(val.strip(), "MI length", root.line)
        rules = props.get("RU", [""])[0].split(":")
        for unsupported in ("Nackgammon", "Hypergammon1", "Hypergammon2", "Hypergammon3"):
            if unsupported in rules:
                raise MatchFileError(f"variant {unsupported} is not supported", root.line)
        if "DT" in props and not any(k == "EventDate" for k, _ in info):
            info.append(("EventDate", props["DT"][0].replace("-", ".")))
        for tag, prop in _INFO_PROPERTIES:
            if prop in props and not any(k == tag for k, _ in info):
                info.append((tag, props[prop][0]))
        if "GC" in props and not comment:
            comment = props["GC"][0]
    return reading, (players, info, comment, application), warnings


# ----------------------------------------------------------------------------- Match


def write(match: Match, players: tuple[str, str] = ("Player 0", "Player 1")) -> str:
    """The SGF text of a live match, as gnubg writes it."""
    return write_record(as_written(match, players))


def read(text: str, warnings: list[str] | None = None) -> Match:
    """Read SGF text and replay it through :class:`Match` (every action checked); odd
    things are appended to ``warnings`` when a list is given.  ``text`` is a ``str``: bytes
    raise :class:`NotTextError` (decode them first, e.g. ``utf-8-sig``)."""
    reading, header, read_warnings = _read(require_text(text, "sgf.read"), False)
    if warnings is not None:
        warnings.extend(read_warnings)
    return Match.replay(reading.record(*header, danced=False, notes=warnings))

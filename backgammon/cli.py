"""The terminal game: ``backgammon play`` and the small commands around it.

The board is drawn with rich (colour and Unicode checkers, plain ASCII when the terminal
cannot show them), always from the human's side.  Input is read line by line, from the
terminal or from standard input when that is not a terminal, so a game can be scripted.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import io
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from rich.console import Console
from rich.text import Text

from backgammon import matchfile
from backgammon.board import (
    Move,
    Position,
)
from backgammon.dice import AuditableDice, DiceSource, SeededDice, verify
from backgammon.match import ActionKind, Match, Phase
from backgammon.players import CubeAction, CubeState, Player
from backgammon.players import get as get_player
from backgammon.rules import Rules
from backgammon.turn import EntryError, TurnEntry, format_partial

__all__ = [
    "BoardView",
    "EntryError",
    "TurnEntry",
    "render_board",
]

# --------------------------------------------------------------------------- the board


@dataclasses.dataclass(frozen=True)
class BoardView:
    """Everything the board shows, from the human's side ("bottom" plays 24 -> 1).

    ``position`` has the bottom player as the mover, whoever is on roll.
    """

    position: Position
    bottom_name: str = "You"
    top_name: str = "Bot"
    on_roll: str | None = "bottom"  # "bottom", "top" or None
    dice: tuple[int, int] | None = None
    cube_value: int = 1
    cube_owner: str | None = None  # "bottom", "top" or None (centred)
    score: tuple[int, int] = (0, 0)  # (bottom, top)
    length: int = 0  # 0 = money
    crawford: bool = False
    post_crawford: bool = False
    gnubg_id: str | None = None
    note: str = ""


@dataclasses.dataclass(frozen=True)
class _Glyphs:
    bottom: str
    top: str
    empty: str
    h: str
    v: str
    tl: str
    tr: str
    bl: str
    br: str
    tj: str  # a junction on the top edge
    bj: str  # a junction on the bottom edge


_UNICODE = _Glyphs("●", "○", "·", "─", "│", "┌", "┐", "└", "┘", "┬", "┴")
_ASCII = _Glyphs("X", "O", ".", "-", "|", "+", "+", "+", "+", "+", "+")

_BOTTOM_STYLE = "bold bright_white"
_TOP_STYLE = "bold red"
_FRAME_STYLE = "yellow"
_NUMBER_STYLE = "cyan"


def _use_unicode(console: Console) -> bool:
    """True when the console can print the Unicode checkers and frame."""
    encoding = (console.encoding or "").lower().replace("-", "")
    return encoding.startswith("utf")


def render_board(view: BoardView, unicode: bool = True) -> Text:
    """The board as rich Text: points numbered from the bottom player's side."""
    g = _UNICODE if unicode else _ASCII
    b = view.position.board
    off_bottom, off_top = view.position.off
    pips_bottom, pips_top = view.position.pip_counts()
    out = Text()

    def player_line(side: str) -> None:
        is_bottom = side == "bottom"
        name = view.bottom_name if is_bottom else view.top_name
        glyph = g.bottom if is_bottom else g.top
        style = _BOTTOM_STYLE if is_bottom else _TOP_STYLE
        score = view.score[0] if is_bottom else view.score[1]
        pips = pips_bottom if is_bottom else pips_top
        off = off_bottom if is_bottom else off_top
        out.append(" ")
        out.append(f"{glyph} {name}", style=style)
        out.append(f"   score {score}   pips {pips}   off {off}")
        if view.on_roll == side:
            out.append("   on roll", style="bold green")
            if view.dice:
                out.append(f"   dice {view.dice[0]}{view.dice[1]}", style="bold green")
        out.append("\n")

    def cell(point: int, row: int) -> Text:
        n = b[point]
        if n == 0:
            return Text(f" {g.empty} " if row == 0 else "   ", style="dim")
        count = abs(n)
        glyph, style = (g.bottom, _BOTTOM_STYLE) if n > 0 else (g.top, _TOP_STYLE)
        if row >= count:
            return Text("   ")
        if row == 4 and count > 5:
            return Text(f"{count:^3}", style=style)
        return Text(f" {glyph} ", style=style)

    def bar_cell(count: int, row: int, glyph: str, style: str) -> Text:
        if row >= count:
            return Text("   ")
        if row == 4 and count > 5:
            return Text(f"{count:^3}", style=style)
        return Text(f" {glyph} ", style=style)

    def edge(numbers: Sequence[int], left: str, junction: str, right: str) -> None:
        out.append(" ")
        out.append(left, style=_FRAME_STYLE)
        for i, p in enumerate(numbers):
            if i == 6:
                out.append(junction + g.h * 3 + junction, style=_FRAME_STYLE)
            out.append(f"{p:^3}", style=_NUMBER_STYLE)
        out.append(right, style=_FRAME_STYLE)
        out.append("\n")

    top_points = list(range(13, 25))
    bottom_points = list(range(12, 0, -1))
    cube = f"cube {view.cube_value}"
    cube_top = view.cube_owner == "top"
    cube_bottom = view.cube_owner == "bottom"
    cube_middle = view.cube_owner is None

    player_line("top")
    edge(top_points, g.tl, g.tj, g.tr)

    def half(points: list[int], rows: range, bar: int, top: bool) -> None:
        # The top player's bar checkers sit in the upper half of the bar, the bottom
        # player's in the lower half, next to the home board each will enter.
        glyph, style = (g.top, _TOP_STYLE) if top else (g.bottom, _BOTTOM_STYLE)
        for row in rows:
            out.append(" ")
            out.append(g.v, style=_FRAME_STYLE)
            for p in points[:6]:
                out.append_text(cell(p, row))
            out.append(g.v, style=_FRAME_STYLE)
            out.append_text(bar_cell(bar, row, glyph, style))
            out.append(g.v, style=_FRAME_STYLE)
            for p in points[6:]:
                out.append_text(cell(p, row))
            out.append(g.v, style=_FRAME_STYLE)
            if row == 0:
                out.append(f"  off {off_top if top else off_bottom}", style=style)
            if row == 2 and (cube_top if top else cube_bottom):
                out.append(f"  [{cube}]", style="bold magenta")
            out.append("\n")

    half(top_points, range(5), -b[0], top=True)
    out.append(" ")
    out.append(g.v, style=_FRAME_STYLE)
    out.append(" " * 18)
    out.append(g.v + "BAR" + g.v, style=_FRAME_STYLE)
    out.append(" " * 18)
    out.append(g.v, style=_FRAME_STYLE)
    if cube_middle:
        out.append(f"  [{cube}]", style="bold magenta")
    out.append("\n")
    half(bottom_points, range(4, -1, -1), b[25], top=False)
    edge(bottom_points, g.bl, g.bj, g.br)
    player_line("bottom")
    info = []
    if view.length:
        info.append(f"Match to {view.length}")
        if view.crawford:
            info.append("Crawford game")
        elif view.post_crawford:
            info.append("post-Crawford")
    else:
        info.append("Money game")
    owner = {"bottom": view.bottom_name, "top": view.top_name}.get(view.cube_owner or "")
    info.append(f"cube {view.cube_value}" + (f" owned by {owner}" if owner else " centred"))
    out.append(" " + " · ".join(info) if unicode else " " + " - ".join(info))
    out.append("\n")
    if view.gnubg_id:
        out.append(" gnubg ID ")
        out.append(view.gnubg_id, style="bold")
        out.append("\n")
    if view.note:
        out.append(" " + view.note + "\n")
    return out


# --------------------------------------------------------------------------- entering a play


# --------------------------------------------------------------------------- input


class Reader:
    """Lines typed by the user: from the terminal (with line editing) or from a script."""

    def __init__(self, console: Console, stream: TextIO | None = None) -> None:
        """Read from ``stream`` (standard input by default), echoing lines that are not typed."""
        self.console = console
        self.stream = stream if stream is not None else sys.stdin
        self.interactive = self.stream.isatty()
        if self.interactive:
            with contextlib.suppress(ImportError):  # not on every platform
                import readline  # noqa: F401  (line editing and history for input())

    def read(self, prompt: str) -> str:
        """One line without its newline; EOFError at the end of the input."""
        if self.interactive:
            return self.console.input(Text(prompt, style="bold green"))
        self.console.print(Text(prompt, style="bold green"), end="")
        self.console.file.flush()
        line = self.stream.readline()
        if not line:
            self.console.print()
            raise EOFError
        line = line.rstrip("\r\n")
        self.console.print(line, markup=False, highlight=False)
        return line


# --------------------------------------------------------------------------- bots


Bot = Player
"""What plays a seat: any player of :mod:`backgammon.players`."""


def load_bot(name: str | None, ply: int | None = None, seed: int | None = None) -> Bot:
    """The named bot from ``backgammon.players`` (the best one, the neural net, by default)."""
    options: dict[str, Any] = {}
    if ply is not None:
        options["plies"] = ply
    if name == "random" and seed is not None:
        options["seed"] = seed
    chosen = name or "neural"
    try:
        return get_player(chosen, **options)
    except ValueError as exc:
        raise UsageError(f"cannot use the bot {chosen!r}: {exc}") from exc


# --------------------------------------------------------------------------- the game


class UsageError(ValueError):
    """A command-line option or file that cannot be used."""


class _Quit(Exception):
    """The user asked to stop (the match is saved first)."""


HELP = """\
Commands (r d t p h u b q ? are short for roll double take pass hint undo board quit help):
  13/8 13/11     a play in gnubg notation (bar/22, 6/off, 8/5(2), 24/13 ...), whole or in
                 parts: "24/18" then "18/13"; a complete play is confirmed with Enter
  3              the play numbered 3 in the list of legal plays
  undo           take back the steps of this turn not yet confirmed
  roll           roll the dice (Enter does the same)
  double         offer the cube before rolling
  take / pass    answer a double (drop = pass);  beaver  take and redouble at once (money)
  resign [single|gammon|backgammon]    offer to resign (the opponent accepts or not)
  accept / reject                      answer a resignation
  hint           the bot's advice: best plays or cube action, with equities
  pips           pip counts          board   draw the board again
  save FILE.mat  save the match      help    this text
  quit           save the match and stop"""

_RESIGN_WORDS = {"single": "single", "s": "single", "normal": "single", "1": "single"}
_RESIGN_WORDS |= {"gammon": "gammon", "g": "gammon", "2": "gammon"}
_RESIGN_WORDS |= {
    "backgammon": "backgammon",
    "b": "backgammon",
    "bg": "backgammon",
    "3": "backgammon",
}

_ALIASES = {
    "r": "roll",
    "roll": "roll",
    "": "roll",
    "d": "double",
    "double": "double",
    "t": "take",
    "take": "take",
    "accept": "accept",
    "a": "accept",
    "p": "pass",
    "pass": "pass",
    "drop": "pass",
    "beaver": "beaver",
    "raccoon": "raccoon",
    "reject": "reject",
    "decline": "reject",
    "resign": "resign",
    "hint": "hint",
    "h": "hint",
    "pips": "pips",
    "pip": "pips",
    "board": "board",
    "b": "board",
    "save": "save",
    "help": "help",
    "?": "help",
    "quit": "quit",
    "q": "quit",
    "exit": "quit",
    "undo": "undo",
    "u": "undo",
}


@dataclasses.dataclass
class PlayOptions:
    """The choices of ``backgammon play`` that shape a session."""

    names: tuple[str, str] = ("You", "Bot")
    humans: frozenset[int] = frozenset({0})
    auto_forced: bool = True
    confirm: bool = True
    unicode: bool = True
    save_path: Path = Path("backgammon.mat")


class Session:
    """One match in the terminal: humans type, bots answer, the board is drawn in between."""

    def __init__(
        self,
        match: Match,
        bots: dict[int, Bot],
        console: Console,
        reader: Reader,
        options: PlayOptions,
        dice: DiceSource | None = None,
    ) -> None:
        """A session on ``match``; ``bots`` holds the bot of each seat no human holds."""
        self.match = match
        self.bots = bots
        self.console = console
        self.reader = reader
        self.options = options
        self.dice = dice
        self._last_score: tuple[int, int] = _score(match)
        self._adviser: Bot | None = None

    # ------------------------------------------------------------------ output
    def say(self, text: str, style: str | None = None) -> None:
        """A line of commentary (never wrapped: it may hold an ID or a seed to copy)."""
        self.console.print(Text(text, style=style or ""), soft_wrap=True)

    def error(self, text: str) -> None:
        """A message about input that was not used."""
        self.console.print(Text(text, style="bold red"))

    def viewer(self) -> int:
        """The player whose side the board is drawn from."""
        humans = self.options.humans
        if len(humans) == 1:
            return next(iter(humans))
        return _actor(self.match)

    def view(self, position: Position | None = None, note: str = "") -> BoardView:
        """What the board shows now, from the viewer's side."""
        m = self.match
        me = self.viewer()
        other = 1 - me
        pos = position if position is not None else _position_for(m, me)
        roller = _on_roll(m)
        side = {me: "bottom", other: "top"}
        owner = m.cube_owner
        score = tuple(m.score)
        return BoardView(
            position=pos,
            bottom_name=self.options.names[me],
            top_name=self.options.names[other],
            on_roll=side.get(roller) if roller is not None else None,
            dice=_dice(m),
            cube_value=m.cube_value,
            cube_owner=side[owner] if owner is not None else None,
            score=(score[me], score[other]),
            length=_length(m),
            crawford=m.is_crawford_game,
            post_crawford=m.is_post_crawford,
            gnubg_id=m.gnubg_id(),
            note=note,
        )

    def draw(self, position: Position | None = None, note: str = "") -> None:
        """Draw the board."""
        self.console.print(render_board(self.view(position, note), unicode=self.options.unicode))

    # ------------------------------------------------------------------ saving
    def save(self, path: Path | None = None) -> Path:
        """Write the match as .mat and return where."""
        target = path or self.options.save_path
        write_mat(self.match, target, self.options.names)
        return target

    # ------------------------------------------------------------------ the loop
    def run(self) -> int:
        """Play until the match is over or the user stops; the match is saved either way."""
        try:
            while not self.match.is_over:
                self.step()
        except (EOFError, KeyboardInterrupt, _Quit) as stop:
            where = self.save()
            if not isinstance(stop, _Quit):
                self.console.print()
            self.say(f"Stopped. The match is saved in {where}", "bold")
            self.say(f"Go on with: backgammon play --load {where}")
            return 130 if isinstance(stop, KeyboardInterrupt) else 0
        self.report_games()
        where = self.save()
        winner = self.match.winner
        a, b = tuple(self.match.score)
        name = self.options.names[winner] if winner is not None else "nobody"
        self.say(f"The match is over: {name} won, {a}-{b}.", "bold green")
        if isinstance(self.dice, AuditableDice):
            seed = self.dice.reveal()
            ok = verify(self.match.record, seed, self.dice.commitment)
            self.say(f"Dice seed: {seed}")
            self.say(
                "Every roll of this match "
                + (
                    "comes from that seed, committed to before play."
                    if ok
                    else "does NOT come from that seed."
                )
            )
        self.say(f"The match is saved in {where}", "bold")
        return 0

    def report_games(self) -> None:
        """Say who won points since the last report."""
        score = _score(self.match)
        names = self.options.names
        end = self.match.state.last_end
        for player in (0, 1):
            won = score[player] - self._last_score[player]
            if won > 0:
                points = "point" if won == 1 else "points"
                how = ""
                if end is not None and end.winner == player:
                    kind = end.result.name.lower()
                    how = {
                        "dropped": " (the double was passed)",
                        "resigned": f" (a {kind} resigned)",
                    }.get(str(end.reason.value), f" (a {kind})")
                self.say(
                    f"{names[player]} won {won} {points}{how}. "
                    f"Score: {names[0]} {score[0]}, {names[1]} {score[1]}",
                    "bold yellow",
                )
        self._last_score = score

    def step(self) -> None:
        """One decision by whoever must act now."""
        self.report_games()
        m = self.match
        phase = _phase(m)
        if phase == "opening":
            throw = m.roll()
            if throw is not None and m.phase is Phase.OPENING:
                self.say(f"Opening roll: {throw[0]} and {throw[1]}, a tie: thrown again.")
                return
            roller = _on_roll(m)
            names = self.options.names
            if throw is not None and roller is not None:
                self.say(
                    f"Game {m.game_number}. Opening roll: {names[0]} {throw[0]}, "
                    f"{names[1]} {throw[1]}: {names[roller]} to play "
                    f"{max(throw)}{min(throw)}.",
                    "bold",
                )
            return
        actor = _actor(m)
        if actor in self.options.humans:
            self.human(phase, actor)
        else:
            self.bot_acts(phase, actor)

    def roll(self) -> None:
        """The player on roll throws; a lost turn is reported."""
        m = self.match
        roller = _on_roll(m)
        throw = m.roll()
        if throw is None:
            who = self._name(roller)
            be = "are" if who == "You" else "is"
            self.say(f"{who} {be} closed out: the turn passes without a roll.", "bold")
        elif m.phase is not Phase.MOVE:
            hi, lo = max(throw), min(throw)
            self.say(f"{_act(self._name(roller), 'roll')} {hi}{lo} and cannot move.", "bold")

    def _name(self, player: int | None) -> str:
        return self.options.names[player] if player is not None else "?"

    # ------------------------------------------------------------------ bots
    def bot_acts(self, phase: str, actor: int) -> None:
        """The bot's decision in ``phase``."""
        m = self.match
        name = self.options.names[actor]
        bot = self.bots[actor]
        if phase == "roll":
            if m.may_double() and _bot_doubles(bot, m):
                m.double()
                self.say(
                    f"{name} doubles: the cube is offered at {m.cube_value * 2}.", "bold magenta"
                )
                return
            self.roll()
            return
        if phase == "move":
            pos, dice = _position_for(m, actor), _dice(m)
            assert dice is not None
            move = _bot_move(bot, m, actor) or pos.legal_moves(dice)[0]
            _play(m, move)
            self.say(f"{name} rolls {dice[0]}{dice[1]} and plays {move}.", "bold")
            return
        if phase == "doubled":
            decision = _bot_answer(bot, m)
            if decision == "beaver" and ActionKind.BEAVER in m.legal_actions():
                m.beaver()
                self.say(
                    f"{name} beavers: the cube is offered at {m.cube_value * 2}.", "bold magenta"
                )
            elif decision in ("take", "beaver"):
                m.take()
                self.say(f"{name} takes: the cube is at {m.cube_value}.", "bold magenta")
            else:
                m.drop()
                self.say(f"{name} passes.", "bold magenta")
            return
        if phase == "resigned":
            level = m.resignation
            if _bot_accepts_resignation(bot, m):
                m.accept_resignation()
                self.say(
                    f"{name} accepts the resignation ({level.name.lower() if level else ''}).",
                    "bold",
                )
            else:
                m.reject_resignation()
                self.say(f"{name} rejects the resignation: play on.", "bold")
            return
        raise RuntimeError(f"no bot action for the phase {phase!r}")  # pragma: no cover

    # ------------------------------------------------------------------ humans
    def human(self, phase: str, actor: int) -> None:
        """Ask the human for a decision in ``phase`` until one is made."""
        m = self.match
        name = self.options.names[actor]
        if phase == "roll" and not m.may_double():
            self.roll()
            return
        if phase == "move":
            self.human_move(actor)
            return
        self.draw()
        allowed = {str(a.value) for a in m.legal_actions()}
        if phase == "roll":
            prompt = f"{name}: roll or double? [Enter = roll] > "
        elif phase == "doubled":
            options = "take, pass" + (" or beaver" if "beaver" in allowed else "")
            options += " or raccoon" if "raccoon" in allowed else ""
            prompt = f"{name}: the cube is offered at {m.cube_value * 2}. {options}? > "
        else:
            prompt = f"{name}: {_resignation_text(m)}. accept or reject? > "
        answers = {
            "roll": {"roll", "double", "resign"},
            "doubled": {"take", "pass", "beaver", "raccoon"},
            "resigned": {"accept", "reject"},
        }[phase]
        while True:
            line = self.reader.read(prompt)
            word, _, rest = line.strip().partition(" ")
            command = _ALIASES.get(word.lower())
            if phase == "doubled" and command == "accept":
                command = "take"
            if phase == "resigned" and command == "take":
                command = "accept"
            if command is not None and self.common(command, rest, actor):
                continue
            if command not in answers:
                shown = line.strip() or "an empty line"
                self.error(
                    f"{shown!r} is not an answer here: type "
                    + " or ".join(sorted(answers))
                    + " (or help)"
                )
                continue
            if self.try_cube_or_resign(command, rest):
                return

    def try_cube_or_resign(self, command: str, rest: str) -> bool:
        """:meth:`cube_or_resign`, showing a refused action as an error; True if carried out."""
        try:
            self.cube_or_resign(command, rest)
        except ValueError as exc:
            self.error(str(exc))
            return False
        return True

    def cube_or_resign(self, command: str, rest: str) -> None:
        """Carry out a roll, cube or resignation command (the match refuses what is illegal)."""
        m = self.match
        who = self._name(m.turn)
        if command == "roll":
            self.roll()
        elif command == "double":
            m.double()
            self.say(f"{_act(who, 'offer')} the cube at {m.cube_value * 2}.", "bold magenta")
        elif command == "take":
            m.take()
            self.say(f"{_act(who, 'take')}: the cube is at {m.cube_value}.", "bold magenta")
        elif command == "pass":
            m.drop()
            self.say(f"{_act(who, 'pass')}.", "bold magenta")
        elif command == "beaver":
            m.beaver()
            self.say(
                f"{_act(who, 'beaver')}: the cube is offered at {m.cube_value * 2}.", "bold magenta"
            )
        elif command == "raccoon":
            m.raccoon()
            self.say(
                f"{_act(who, 'raccoon')}: the cube is offered at {m.cube_value * 2}.",
                "bold magenta",
            )
        elif command == "accept":
            m.accept_resignation()
        elif command == "reject":
            m.reject_resignation()
            self.say(f"{_act(who, 'reject')} the resignation: play on.")
        elif command == "resign":
            kind = _RESIGN_WORDS.get(rest.strip().lower() or "single")
            if kind is None:
                raise UsageError(f"resign single, gammon or backgammon, not {rest.strip()!r}")
            m.resign(kind)
            self.say(f"{_act(who, 'offer')} to resign a {kind} game.", "bold")
        else:  # pragma: no cover - the callers pass only the commands above
            raise UsageError(f"{command} is not possible now")

    def common(self, command: str, rest: str, actor: int) -> bool:
        """Commands that change nothing in the match; True when ``command`` was one."""
        if command == "help":
            self.say(HELP)
        elif command == "board":
            self.draw()
        elif command == "pips":
            mine, theirs = _position_for(self.match, actor).pip_counts()
            self.say(
                f"Pips: {self.options.names[actor]} {mine}, "
                f"{self.options.names[1 - actor]} {theirs}"
            )
        elif command == "hint":
            self.hint(actor)
        elif command == "save":
            target = Path(rest.strip()) if rest.strip() else None
            try:
                where = self.save(target)
            except OSError as exc:
                self.error(f"cannot save: {exc}")
            else:
                self.say(f"Saved in {where}")
        elif command == "quit":
            raise _Quit
        else:
            return False
        return True

    def adviser(self) -> Bot:
        """The bot that gives hints: the opponent bot, else the best bot (loaded once)."""
        if self._adviser is None:
            self._adviser = next(iter(self.bots.values()), None) or load_bot(None)
        return self._adviser

    def hint(self, actor: int, entry: TurnEntry | None = None) -> None:
        """The bot's advice for the player ``actor``."""
        m = self.match
        bot = self.adviser()
        if entry is not None:
            for line in hint_lines(bot, entry.position, entry.dice):
                self.say(line)
            return
        self.say(cube_hint(bot, m))

    def human_move(self, actor: int) -> None:
        """Enter, check and confirm the human's play."""
        m = self.match
        name = self.options.names[actor]
        pos, dice = _position_for(m, actor), _dice(m)
        assert dice is not None
        entry = TurnEntry(pos, dice)  # the match has already passed a turn with no play (R10)
        if len(entry.legal) == 1 and self.options.auto_forced:
            self.draw()
            forced = entry.legal[0]
            self.say(f"{name}: {dice[0]}{dice[1]}, forced play: {forced}", "bold")
            _play(m, forced)
            return
        self.draw()
        self.list_plays(entry)
        while True:
            left = "".join(str(d) for d in entry.dice_left)
            done = f" [{format_partial(entry.steps)}, {left} to play]" if entry.steps else ""
            line = self.reader.read(f"{name}: your play ({dice[0]}{dice[1]}){done} > ")
            word, _, rest = line.strip().partition(" ")
            command = _ALIASES.get(word.lower()) if "/" not in line else None
            if command == "roll" and not line.strip():
                if not entry.steps:
                    continue
                command = None
            if command is not None:
                if command == "undo":
                    if not entry.steps:
                        self.error("nothing to take back: no step of this play is entered yet")
                        continue
                    entry.undo()
                    self.say("Taken back.")
                    self.draw()
                    self.list_plays(entry)
                    continue
                if command == "hint":
                    self.hint(actor, entry)
                    continue
                if command == "resign":
                    if self.try_cube_or_resign(command, rest):
                        return
                    continue
                if self.common(command, rest, actor):
                    continue
                self.error(f"{word!r} is not possible now: type a play (or help)")
                self.list_plays(entry)
                continue
            try:
                move = entry.enter(line)
            except ValueError as exc:  # unreadable, ambiguous or impossible: nothing entered
                self.error(str(exc))
                self.list_plays(entry)
                continue
            if move is None:
                self.draw(entry.current)
                continue
            if self.options.confirm:
                self.draw(entry.current, note=f"Your play: {move}")
                answer = self.reader.read("Enter to confirm, or undo > ").strip().lower()
                if answer not in ("", "y", "yes", "ok", "confirm", "c"):
                    entry.undo()
                    self.say("Taken back.")
                    self.draw()
                    self.list_plays(entry)
                    continue
            _play(m, move)
            return

    def list_plays(self, entry: TurnEntry) -> None:
        """The legal plays, numbered."""
        plays = entry.legal
        width = max(len(str(p)) for p in plays) + 6
        columns = max(1, min(4, (self.console.width - 2) // width))
        lines = []
        for start in range(0, len(plays), columns):
            cells = [
                f"{i + 1:3d}. {plays[i]}".ljust(width)
                for i in range(start, min(start + columns, len(plays)))
            ]
            lines.append(" " + "".join(cells).rstrip())
        self.say(f"Legal plays of {entry.dice[0]}{entry.dice[1]}:")
        self.say("\n".join(lines))


# --------------------------------------------------------------------------- the match layer
#
# The few things the terminal needs from a Match beyond its documented minimum API are read
# here, in one place.


def _act(who: str, verb: str) -> str:
    """``You take`` but ``Bot takes``."""
    if who == "You":
        return f"You {verb}"
    return f"{who} {verb}es" if verb.endswith("s") else f"{who} {verb}s"


def _phase(m: Match) -> str:
    """What must happen now: opening, roll, move, doubled (answer it), resigned, over."""
    return str(m.phase.value)


def _actor(m: Match) -> int:
    """The player who must act now (player 0 before an opening roll)."""
    return m.turn if m.turn is not None else 0


def _on_roll(m: Match) -> int | None:
    """The player who holds (or will throw) the dice, None before the opening roll."""
    return m.on_roll


def _position_for(m: Match, player: int) -> Position:
    """The board seen from ``player``'s side."""
    holder = m.on_roll if m.on_roll is not None else 0
    return m.position if holder == player else m.position.flip()


def _dice(m: Match) -> tuple[int, int] | None:
    """The dice to play, larger first (as gnubg shows them)."""
    if m.dice is None:
        return None
    return (max(m.dice), min(m.dice))


def _score(m: Match) -> tuple[int, int]:
    return m.score


def _length(m: Match) -> int:
    return m.rules.match_length or 0


def _play(m: Match, move: Move) -> None:
    m.move(move)


def _resignation_text(m: Match) -> str:
    level = m.resignation
    name = level.name.lower() if level is not None else "single"
    return f"the opponent offers to resign a {name} game"


# The players layer (``backgammon.players``) is reached by duck typing: a bot needs only
# ``choose_move``; cube decisions, resignations and ranked plays are used when it has them.


def _cube_state(m: Match, player: int) -> CubeState:
    """The cube and score from ``player``'s side, as the players layer takes them."""
    rules = m.rules
    owner = m.cube_owner
    score = m.score
    return CubeState(
        match_length=rules.match_length or 0,
        score=(score[player], score[1 - player]),
        cube_value=m.cube_value,
        cube_owner=0 if owner is None else (1 if owner == player else -1),
        crawford=m.is_crawford_game,
        jacoby=rules.is_money and rules.jacoby,
        beavers=rules.is_money and rules.beavers,
    )


def _bot_move(bot: Bot, m: Match, player: int) -> Move | None:
    """The bot's play of the dice for ``player``, with the match context."""
    dice = _dice(m)
    assert dice is not None
    return bot.choose_move(_position_for(m, player), dice, _cube_state(m, player))


def _bot_doubles(bot: Bot, m: Match) -> bool:
    """True when the bot on roll wants to double."""
    roller = m.on_roll
    assert roller is not None
    action = bot.cube_action(m.position, _cube_state(m, roller), offered=False)
    return action is CubeAction.DOUBLE


def _bot_answer(bot: Bot, m: Match) -> str:
    """The bot's answer to a double (the position is the doubler's): take, pass or beaver."""
    doubler = m.on_roll
    assert doubler is not None
    action = bot.cube_action(m.position, _cube_state(m, doubler), offered=True)
    return {CubeAction.BEAVER: "beaver", CubeAction.PASS: "pass"}.get(action, "take")


def _bot_accepts_resignation(bot: Bot, m: Match) -> bool:
    """True when the bot accepts the pending resignation (the position is the resigner's)."""
    resigner, level = m.on_roll, m.resignation
    assert resigner is not None and level is not None
    return bot.accept_resignation(m.position, int(level), _cube_state(m, resigner))


def _ranked(
    bot: Bot, position: Position, dice: tuple[int, int], plies: int | None = None
) -> list[tuple[Move, float, Any]]:
    """The bot's plays with equities, best first, if it can rank them: (play, equity, probs)."""
    rank = getattr(bot, "rank_moves", None)
    searcher = getattr(bot, "searcher", None)
    if not callable(rank) and searcher is not None:
        rank = getattr(searcher, "rank_moves", None)
    if not callable(rank):
        return []
    if plies is None:
        plies = int(getattr(bot, "plies", 0))
    try:
        ranked = list(rank(position, dice, plies))
    except TypeError:
        ranked = list(rank(position, dice))
    out: list[tuple[Move, float, Any]] = []
    equity_of = getattr(searcher, "equity", None)
    for move, value in ranked:
        if isinstance(value, int | float):
            out.append((move, float(value), None))
        elif callable(equity_of):
            out.append((move, float(equity_of(value[None, :])[0]), value))
        else:
            out.append((move, float(value[0]) * 2 - 1, value))
    return out


def hint_lines(bot: Bot, position: Position, dice: tuple[int, int], limit: int = 5) -> list[str]:
    """The bot's best plays of ``dice`` with their equities, best first."""
    legal = position.legal_moves(dice)
    if not legal:
        return ["No legal play: the turn passes."]
    plies = int(getattr(bot, "plies", 0))
    ranked = _ranked(bot, position, dice)[:limit]
    if not ranked:
        move = bot.choose_move(position, dice) or legal[0]
        return [f" The bot would play {move} (this bot gives no equities)."]
    labels = [f"{plies}-ply"] * len(ranked)
    if plies > 0 and len(ranked) < min(limit, len(legal)):
        # deeper search keeps only the promising plays: the others at 0-ply, after them
        seen = {position.play(m) for m, _, _ in ranked}
        for move, equity, probs in _ranked(bot, position, dice, 0):
            if len(ranked) >= limit:
                break
            if position.play(move) not in seen:
                ranked.append((move, equity, probs))
                labels.append("0-ply")
    best = ranked[0][1]
    lines = []
    for i, ((move, equity, probs), label) in enumerate(zip(ranked, labels, strict=True), 1):
        diff = "" if i == 1 else f"{equity - best:+.3f}"
        extra = ""
        if probs is not None and len(probs) >= 5:
            extra = f"  win {float(probs[0]):5.1%} gammon {float(probs[1]):5.1%}"
        lines.append(f" {i:2d}. {move!s:<20} {label} equity {equity:+.3f} {diff:>6}{extra}")
    return lines


def cube_hint(bot: Bot, m: Match) -> str:
    """The bot's advice on the cube now, with cubeful equities when the bot gives them."""
    phase = _phase(m)
    if phase not in ("roll", "doubled"):
        return "No cube advice here."
    if phase == "roll" and not m.may_double():
        return "You cannot double now: roll."
    roller = m.on_roll
    decide = getattr(bot, "cube_decision", None)
    cube = _cube_state(m, roller) if roller is not None else None
    if callable(decide) and cube is not None:
        d = decide(m.position, cube)
        text = (
            f"No double {d.no_double:+.3f}, double/take {d.double_take:+.3f}, "
            f"double/pass {d.double_pass:+.3f}. "
        )
        if phase == "roll":
            return text + f"Advice: {d.action.value}."
        return text + f"Advice: {d.response.value}."
    if phase == "doubled":
        return f"The bot would {_bot_answer(bot, m)}."
    return "The bot would double." if _bot_doubles(bot, m) else "The bot would roll."


# --------------------------------------------------------------------------- commands


def _default_save_path() -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    return Path(f"backgammon-{stamp}.mat")


def make_console(ascii_only: bool = False) -> tuple[Console, bool]:
    """A console for standard output, and whether it can show Unicode."""
    console = Console(highlight=False)
    return console, (not ascii_only and _use_unicode(console))


def play_command(args: argparse.Namespace, stdin: TextIO | None = None) -> int:
    """``backgammon play``: a match against the bot or a friend."""
    console, unicode = make_console(args.ascii)
    reader = Reader(console, stdin)
    if args.vs == "human":
        names = (args.name or "Player 1", "Player 2")
        humans = frozenset({0, 1})
    else:
        names = (args.name or "You", args.bot or "Bot")
        humans = frozenset({0})
    source: DiceSource
    if args.auditable:
        audit = AuditableDice()
        console.print(
            Text(f"Dice commitment (SHA-256 of the secret seed): {audit.commitment}", style="bold"),
            soft_wrap=True,
        )
        source = audit
    elif args.seed is not None:
        source = SeededDice(args.seed)
    else:
        source = SeededDice(random.SystemRandom().getrandbits(64))
    if args.load:
        load_path = Path(args.load)
        match, loaded_names = read_mat(load_path, source)
        if args.vs != "human" and not args.name:
            names = (loaded_names[0], args.bot or loaded_names[1])
        save_path = Path(args.out) if args.out else load_path
        console.print(f"Going on with the match in {load_path}")
    else:
        if args.money:
            rules = Rules.money(jacoby=args.jacoby, beavers=args.beavers)
        else:
            if args.jacoby or args.beavers:
                raise UsageError("--jacoby and --beavers are money conventions: add --money")
            rules = Rules.match(args.length)
        match = Match(rules=rules, dice=source)
        save_path = Path(args.out) if args.out else _default_save_path()
    bots: dict[int, Bot] = {}
    if args.vs != "human":
        bots[1] = load_bot(args.bot, args.ply, args.seed)
        if not args.bot and not args.load:
            names = (names[0], str(getattr(bots[1], "name", "") or "Bot"))
    options = PlayOptions(
        names=names,
        humans=humans,
        auto_forced=not args.no_auto,
        confirm=reader.interactive if args.confirm is None else args.confirm,
        unicode=unicode,
        save_path=save_path,
    )
    what = f"a {_length(match)}-point match" if _length(match) else "a money session"
    opponent = "each other" if args.vs == "human" else f"the bot ({names[1]})"
    console.print(
        Text(f"Playing {what} against {opponent}. Type help for the commands.", style="bold")
    )
    return Session(match, bots, console, reader, options, source).run()


# --------------------------------------------------------------------------- match files


def write_mat(m: Match, path: Path, names: tuple[str, str]) -> None:
    """Save the match as a .mat file (gnubg's layout), or SGF if the name ends in .sgf."""
    from backgammon import mat, sgf

    writer = sgf if path.suffix.lower() == ".sgf" else mat
    path.write_text(writer.write(m, names), encoding="utf-8")


def read_mat(path: Path, dice: DiceSource) -> tuple[Match, tuple[str, str]]:
    """A match read from a .mat (or SGF) file, to be continued, and its players' names."""
    from backgammon import mat, sgf

    reader = sgf if path.suffix.lower() == ".sgf" else mat
    try:
        text = path.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from exc
    try:
        record = reader.read_record(text)
        match = matchfile.to_match(record)
    except matchfile.MatchFileError as exc:
        raise UsageError(f"{path}: {exc}") from exc
    if match.is_over:
        raise UsageError(f"{path}: the match is already over")
    match.dice_source = dice
    return match, record.players


def position_from_text(text: str) -> tuple[Position, Any]:
    """A position (and the match state, if given) from a Position ID, gnubg ID or XGID."""
    text = text.strip()
    if text.startswith("XGID=") or len(text.split(":")[0]) == 26:
        try:
            from backgammon.match import Match

            match = Match.from_xgid(text)
        except (ImportError, ValueError):
            return Position.from_xgid(text), None
        return match.position, match
    if ":" in text:
        try:
            from backgammon.match import Match

            match = Match.from_gnubg_id(text)
        except (ImportError, ValueError):
            return Position.from_position_id(text.split(":")[0]), None
        return match.position, match
    return Position.from_position_id(text), None


def show_command(args: argparse.Namespace) -> int:
    """``backgammon show ID``: draw a position."""
    console, unicode = make_console(args.ascii)
    pos, match = position_from_text(args.id)
    if match is None:
        view = BoardView(
            pos, bottom_name="on roll", top_name="opponent", gnubg_id=pos.position_id()
        )
    else:
        me = _on_roll(match)
        me = int(match.turn) if me is None else me
        session = Session(
            match,
            {},
            console,
            Reader(console),
            PlayOptions(names=("Player 0", "Player 1"), humans=frozenset({me})),
        )
        view = session.view()
    console.print(render_board(view, unicode=unicode))
    return 0


def _parse_dice(text: str) -> tuple[int, int]:
    text = text.strip().replace("-", "").replace(" ", "").replace(",", "")
    if len(text) != 2 or not all(c in "123456" for c in text):
        raise UsageError(f"dice are two digits 1-6, like 31, not {text!r}")
    return int(text[0]), int(text[1])


def hint_command(args: argparse.Namespace) -> int:
    """``backgammon hint ID --dice 31``: the bot's ranked plays (or its cube advice)."""
    console, unicode = make_console(args.ascii)
    pos, match = position_from_text(args.id)
    dice = _parse_dice(args.dice) if args.dice else (_dice(match) if match is not None else None)
    bot = load_bot(args.bot, args.ply)
    if match is not None:
        me = match.turn if match.turn is not None else 0
        session = Session(
            match,
            {1 - me: bot},
            console,
            Reader(console),
            PlayOptions(names=("Player 0", "Player 1"), humans=frozenset({me})),
        )
        view = dataclasses.replace(session.view(), dice=dice)
        if dice is not None and match.turn != match.on_roll:
            raise UsageError("a double or resignation is pending here: no play to advise")
    else:
        view = BoardView(
            pos, bottom_name="on roll", top_name="opponent", dice=dice, gnubg_id=pos.position_id()
        )
    console.print(render_board(view, unicode=unicode))
    if dice is None:
        if match is None:
            raise UsageError("give the roll with --dice, like --dice 31")
        console.print(cube_hint(bot, match), markup=False)
        return 0
    console.print(f"Best plays of {dice[0]}{dice[1]}:")
    for line in hint_lines(bot, pos, dice, limit=args.count):
        console.print(line, markup=False, soft_wrap=True)
    return 0


def convert_command(args: argparse.Namespace) -> int:
    """``backgammon convert A.mat B.sgf``: between match file formats (either way)."""
    from backgammon.convert import convert

    src, dst = Path(args.source), Path(args.target)
    for p in (src, dst):
        if p.suffix.lower() not in (".mat", ".sgf"):
            raise UsageError(f"{p}: a match file's name ends in .mat or .sgf")
    try:
        warnings = convert(src, dst)
    except OSError as exc:
        raise UsageError(f"cannot read {src}: {exc.strerror or exc}") from exc
    except matchfile.MatchFileError as exc:
        raise UsageError(f"{src}: {exc}") from exc
    for warning in warnings:
        print(f"{src}: note: {warning}", file=sys.stderr)
    print(f"{src} -> {dst}")
    return 0


def selfplay_command(args: argparse.Namespace) -> int:
    """``backgammon selfplay --games N --out DIR``: bot against bot, saved as .mat files."""
    from rich.progress import Progress

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    bots = (
        load_bot(args.bot, args.ply, args.seed),
        load_bot(args.opponent or args.bot, args.ply, args.seed),
    )
    names = (f"{bots[0].name}-1", f"{bots[1].name}-2")
    wins = [0, 0]
    points = [0, 0]
    console = Console(stderr=True)
    quiet = Console(file=io.StringIO())
    with Progress(console=console, transient=False) as progress:
        task = progress.add_task("games", total=args.games)
        for game in range(args.games):
            seed = (args.seed or 0) * 1_000_003 + game
            source = SeededDice(seed)
            match = Match(rules=Rules.match(args.length), dice=source)
            session = Session(
                match,
                {0: bots[0], 1: bots[1]},
                quiet,
                Reader(quiet, io.StringIO()),
                PlayOptions(names=names, humans=frozenset()),
                source,
            )
            while not match.is_over:
                session.step()
            path = out / f"game-{game + 1:04d}.mat"
            write_mat(match, path, names)
            a, b = match.score
            points[0] += a
            points[1] += b
            wins[0 if a > b else 1] += 1
            progress.advance(task)
    print(
        f"{args.games} matches to {args.length}: {names[0]} won {wins[0]}, {names[1]} won "
        f"{wins[1]} (points {points[0]}-{points[1]}); files in {out}"
    )
    return 0


def train_command(args: argparse.Namespace, rest: Sequence[str]) -> int:
    """``backgammon train`` and ``backgammon distill``: the players package's two training
    stages (TD self-play, then fitting to 1-ply evaluations)."""
    from backgammon.training import distill
    from backgammon.training import td as train

    program = train if args.command == "train" else distill
    return int(program.main(list(rest)) or 0)


COMMANDS = ("play", "show", "hint", "convert", "selfplay", "train", "distill")


def add_commands(sub: Any) -> None:
    """Add the terminal commands to the ``backgammon`` argument parser."""
    play = sub.add_parser("play", help="play a match in the terminal (5 points vs the bot)")
    play.add_argument("--length", type=int, default=5, help="match length in points (1-64)")
    play.add_argument("--money", action="store_true", help="a money session instead of a match")
    play.add_argument("--jacoby", action="store_true", help="money: the Jacoby rule")
    play.add_argument("--beavers", action="store_true", help="money: beavers allowed")
    play.add_argument("--vs", choices=("bot", "human"), default="bot")
    play.add_argument("--bot", default=None, help="the bot's name (default: the best)")
    play.add_argument("--ply", type=int, default=None, help="the bot's lookahead (0, 1, 2)")
    play.add_argument("--seed", type=int, default=None, help="seed the dice (reproducible)")
    play.add_argument(
        "--auditable",
        action="store_true",
        help="commit to the dice before play, reveal the seed at the end",
    )
    play.add_argument("--load", metavar="FILE.mat", help="go on with a saved match")
    play.add_argument("--out", metavar="FILE.mat", help="where to save the match")
    play.add_argument("--name", default=None, help="your name in the match file")
    play.add_argument(
        "--no-auto", action="store_true", help="do not make forced plays automatically"
    )
    play.add_argument(
        "--confirm",
        dest="confirm",
        action="store_true",
        default=None,
        help="confirm each play before it counts (default in a terminal)",
    )
    play.add_argument("--no-confirm", dest="confirm", action="store_false")
    play.add_argument("--ascii", action="store_true", help="plain ASCII board")
    show = sub.add_parser("show", help="draw a position from a Position ID, gnubg ID or XGID")
    show.add_argument("id")
    show.add_argument("--ascii", action="store_true")
    hint = sub.add_parser("hint", help="the bot's best plays for a position and roll")
    hint.add_argument("id")
    hint.add_argument("--dice", default=None, help="the roll, e.g. 31")
    hint.add_argument("--bot", default=None)
    hint.add_argument("--ply", type=int, default=None)
    hint.add_argument("--count", type=int, default=5, help="how many plays to list")
    hint.add_argument("--ascii", action="store_true")
    convert = sub.add_parser("convert", help="convert a match file: A.mat B.sgf (or back)")
    convert.add_argument("source")
    convert.add_argument("target")
    selfplay = sub.add_parser("selfplay", help="bot against bot; .mat files and results")
    selfplay.add_argument("--games", type=int, default=10)
    selfplay.add_argument("--out", default="selfplay")
    selfplay.add_argument("--length", type=int, default=1)
    selfplay.add_argument("--bot", default=None)
    selfplay.add_argument("--opponent", default=None)
    selfplay.add_argument("--ply", type=int, default=None)
    selfplay.add_argument("--seed", type=int, default=0)
    sub.add_parser(
        "train", help="train the network (options: backgammon train --help)", add_help=False
    )
    sub.add_parser(
        "distill",
        help="fit the network to its 1-ply evaluations (backgammon distill --help)",
        add_help=False,
    )


def run(args: argparse.Namespace, rest: Sequence[str] = ()) -> int:
    """Run one of :data:`COMMANDS`; problems are reported in a line, not a traceback."""
    handlers = {
        "play": play_command,
        "show": show_command,
        "hint": hint_command,
        "convert": convert_command,
        "selfplay": selfplay_command,
    }
    try:
        if args.command in ("train", "distill"):
            return train_command(args, rest)
        return handlers[args.command](args)
    except (ValueError, OSError) as exc:
        print(f"backgammon {args.command}: {exc}", file=sys.stderr)
        return 2

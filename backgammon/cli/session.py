"""The game loop of ``backgammon play``: humans type, bots answer, the board is drawn in
between, and the match is saved however it ends."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from rich.console import Console
from rich.text import Text

from backgammon.cli import audit
from backgammon.cli.advice import Bot, cube_hint, hint_lines, load_bot, tutor_warning
from backgammon.cli.errors import UsageError, bound
from backgammon.cli.reader import Reader
from backgammon.cli.records import write_mat
from backgammon.cli.render import BoardView, render_board
from backgammon.cli.state import (
    _act,
    _actor,
    _dice,
    _length,
    _on_roll,
    _phase,
    _play,
    _position_for,
    _resignation_text,
    _score,
)
from backgammon.core.position import Position
from backgammon.core.turn import TurnEntry, format_partial
from backgammon.core.values import Move, short_repr
from backgammon.play.actions import thrown
from backgammon.play.dice import AuditableDice, DiceSource, verify
from backgammon.play.match import Act, ActionKind, Match, Phase
from backgammon.players import CubeState, MoveRanker, decide

__all__ = ["HELP", "PlayOptions", "Session"]


class _Quit(Exception):
    """The user asked to stop (the match is saved first)."""


HELP = """\
Commands (short: r d t p h u l b q ? for roll double take pass hint undo list
board quit help):
  13/8 13/11     a play in gnubg notation (bar/22, 6/off, 8/5(2), 24/13 ...),
                 whole or in parts: "24/18" then "18/13"; Enter confirms it
  3              the play numbered 3 in the list of legal plays
  list           all the legal plays (under the board: the first few)
  undo           take back the steps of this turn not yet confirmed
  roll           roll the dice (Enter does the same)
  double         offer the cube before rolling
  take / pass    answer a double (drop = pass)
  beaver         take and redouble at once (money)
  resign [single|gammon|backgammon]   offer to resign
  accept / reject                     answer a resignation
  hint [N]       the bot's advice: its N best plays (5) or the cube action
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

_ROLL = Act(ActionKind.ROLL)
"""A roll thrown from the session's dice."""
_COMMAND_KINDS = {
    "double": ActionKind.DOUBLE,
    "take": ActionKind.TAKE,
    "pass": ActionKind.DROP,
    "beaver": ActionKind.BEAVER,
    "raccoon": ActionKind.RACCOON,
    "accept": ActionKind.ACCEPT,
    "reject": ActionKind.REJECT,
    "resign": ActionKind.RESIGN,
}
"""The act each cube or resignation command makes."""

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
    "list": "list",
    "l": "list",
}


LIST_ROWS = 4
"""Rows of legal plays listed under the board: with the board and the prompt they fit a
terminal of 24 lines."""

_TYPE_A_PLAY = "type a play such as 13/8 13/11, or its number (list: the plays, help: commands)"

_CONFIRM = {"", "y", "yes", "ok", "confirm", "c"}
_TAKE_BACK = {"undo", "u", "n", "no"}


def _command(word: str, rest: str) -> str | None:
    """The command a line's first word names, if any: ``save /dir/x.mat`` is a command, but
    ``b / 22`` is the play bar/22 spelled with spaces."""
    command = _ALIASES.get(word.lower())
    if command == "board" and rest.lstrip().startswith("/"):
        return None
    return command


@dataclasses.dataclass
class PlayOptions:
    """The choices of ``backgammon play`` that shape a session."""

    names: tuple[str, str] = ("You", "Bot")
    humans: frozenset[int] = frozenset({0})
    auto_forced: bool = True
    confirm: bool = True
    unicode: bool = True
    save_path: Path = Path("backgammon.mat")
    tutor: bool = False
    hint_plies: int | None = None
    """The depth of hints and the tutor (the best bot's), None: the opponent bot's own."""


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
        self._tutor: Bot | None = None

    # ------------------------------------------------------------------ output
    def say(self, text: str, style: str | None = None) -> None:
        """A line of commentary (never wrapped: it may hold an ID or a seed to copy)."""
        self.console.print(Text(text, style=style or ""), soft_wrap=True)

    def error(self, text: str) -> None:
        """A message about input that was not used (what it quotes of the input is cut)."""
        self.console.print(Text(bound(text), style="bold red"))

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
            bottom_mark=me,
        )

    def draw(self, position: Position | None = None, note: str = "") -> None:
        """Draw the board."""
        board = render_board(
            self.view(position, note), unicode=self.options.unicode, width=self.console.width
        )
        self.console.print(board)

    # ------------------------------------------------------------------ saving
    def save(self, path: Path | None = None) -> Path:
        """Write the match as .mat and return where."""
        target = path or self.options.save_path
        note = ""
        if isinstance(self.dice, AuditableDice):
            note = audit.comment(self.dice.commitment, self.match.record.rolls())
        write_mat(self.match, target, self.options.names, note)
        return target

    def progress(self) -> tuple[int, int]:
        """How far the match's record has come (games, actions of the last one)."""
        games = self.match.record.games
        return len(games), len(games[-1]) if games else 0

    # ------------------------------------------------------------------ the loop
    def run(self) -> int:
        """Play until the match is over or the user stops; the match is saved either way."""
        try:
            saved = self.progress()
            while not self.match.is_over:
                self.step()
                if self.progress() != saved:  # after every action, so a killed terminal
                    saved = self.progress()  # loses at most the one in flight
                    self.save()
        except (EOFError, KeyboardInterrupt, _Quit) as stop:
            where = self.save()
            if not isinstance(stop, _Quit):
                self.console.print()
            self.say(f"Stopped. The match is saved in {where}", "bold")
            if isinstance(self.dice, AuditableDice):
                # these dice are done with (a loaded match gets new ones): the part played
                # can be checked now
                self.reveal(where)
            else:
                self.say(f"Go on with: backgammon play --load {where}")
            return 130 if isinstance(stop, KeyboardInterrupt) else 0
        self.report_games()
        where = self.save()
        winner = self.match.winner
        a, b = tuple(self.match.score)
        name = self.options.names[winner] if winner is not None else "nobody"
        self.say(f"The match is over: {name} won, {a}-{b}.", "bold green")
        if isinstance(self.dice, AuditableDice):
            self.reveal(where)
        self.say(f"The match is saved in {where}", "bold")
        return 0

    def reveal(self, where: Path) -> None:
        """Publish the auditable dice's seed and say how to check the saved match with it."""
        assert isinstance(self.dice, AuditableDice)
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
        self.say(f"Check the saved match with: backgammon verify {where} --seed {seed}")

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
            throw = thrown(m.apply(_ROLL))
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
            self.bot_acts(actor)

    def roll(self) -> None:
        """The player on roll throws; a lost turn is reported."""
        m = self.match
        roller = _on_roll(m)
        throw = thrown(m.apply(_ROLL))
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
    def bot_acts(self, actor: int) -> None:
        """The bot's decision (by :func:`backgammon.players.decide`), made and reported."""
        m = self.match
        name = self.options.names[actor]
        decision = decide(self.bots[actor], m)
        kind = decision.kind
        if kind is ActionKind.ROLL:
            self.roll()
            return
        dice, level = _dice(m), m.resignation
        m.apply(decision)
        if kind is ActionKind.MOVE:
            assert dice is not None
            self.say(f"{name} rolls {dice[0]}{dice[1]} and plays {decision.move}.", "bold")
        elif kind is ActionKind.DOUBLE:
            self.say(f"{name} doubles: the cube is offered at {m.cube_value * 2}.", "bold magenta")
        elif kind is ActionKind.BEAVER:
            self.say(f"{name} beavers: the cube is offered at {m.cube_value * 2}.", "bold magenta")
        elif kind is ActionKind.TAKE:
            self.say(f"{name} takes: the cube is at {m.cube_value}.", "bold magenta")
        elif kind is ActionKind.DROP:
            self.say(f"{name} passes.", "bold magenta")
        elif kind is ActionKind.ACCEPT:
            what = level.name.lower() if level is not None else ""
            self.say(f"{name} accepts the resignation ({what}).", "bold")
        else:
            self.say(f"{name} rejects the resignation: play on.", "bold")

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
                shown = short_repr(line.strip()) if line.strip() else "an empty line"
                self.error(
                    f"{shown} is not an answer here: type "
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
        if (
            command in ("roll", "double", "take", "pass")
            and m.turn in self.options.humans
            and self.tutor_objects(m.turn, command)
        ):
            return
        if command == "roll":
            self.roll()
            return
        kind = _COMMAND_KINDS.get(command)
        if kind is None:  # pragma: no cover - the callers pass only the commands above
            raise UsageError(f"{command} is not possible now")
        word = rest.strip().lower() if kind is ActionKind.RESIGN else ""
        level = _RESIGN_WORDS.get(word or "single")
        if level is None:
            raise UsageError(f"resign single, gammon or backgammon, not {short_repr(rest.strip())}")
        m.apply(Act(kind, level=level))
        if command == "double":
            self.say(f"{_act(who, 'offer')} the cube at {m.cube_value * 2}.", "bold magenta")
        elif command == "take":
            self.say(f"{_act(who, 'take')}: the cube is at {m.cube_value}.", "bold magenta")
        elif command == "pass":
            self.say(f"{_act(who, 'pass')}.", "bold magenta")
        elif command in ("beaver", "raccoon"):
            self.say(
                f"{_act(who, command)}: the cube is offered at {m.cube_value * 2}.",
                "bold magenta",
            )
        elif command == "reject":
            self.say(f"{_act(who, 'reject')} the resignation: play on.")
        elif command == "resign":
            self.say(f"{_act(who, 'offer')} to resign a {level} game.", "bold")

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
            self.hint(actor, rest=rest)
        elif command == "save":
            target = Path(rest.strip()) if rest.strip() else None
            try:
                where = self.save(target)
            except (OSError, ValueError) as exc:  # ValueError: a NUL in the name
                self.error(f"cannot save: {exc}")
            else:
                self.say(f"Saved in {where}")
        elif command == "quit":
            raise _Quit
        else:
            return False
        return True

    def adviser(self) -> Bot:
        """The bot that gives hints: the best bot at ``hint_plies`` when asked, else the
        opponent bot, else the best bot (loaded once)."""
        if self._adviser is None:
            if self.options.hint_plies is not None:
                self._adviser = load_bot(None, self.options.hint_plies)
            else:
                self._adviser = next(iter(self.bots.values()), None) or load_bot(None)
        return self._adviser

    def tutor(self) -> Bot:
        """The bot that tutors: the adviser if it gives equities, else the best bot."""
        bot = self.adviser()
        if not isinstance(bot, MoveRanker):
            if self._tutor is None:
                self._tutor = load_bot(None)
            bot = self._tutor
        return bot

    def advice_allowed(self) -> bool:
        """Hints and the tutor are off in a match between two people until it ends."""
        return len(self.options.humans) < 2 or self.match.is_over

    def tutor_objects(self, actor: int, action: str, move: Move | None = None) -> bool:
        """With the tutor on: warn when ``action`` (a play, or double/take/pass/roll) loses
        at least gnubg's "bad" threshold and ask whether to go ahead; True to reconsider."""
        if not self.options.tutor or not self.advice_allowed():
            return False
        warning = tutor_warning(self.tutor(), self.match, actor, action, move)
        if warning is None:
            return False
        self.say(warning, "bold yellow")
        answer = self.reader.read("Go ahead anyway? (y/n) > ").strip().lower()
        return answer not in ("y", "yes")

    def hint(self, actor: int, entry: TurnEntry | None = None, rest: str = "") -> None:
        """The bot's advice for the player ``actor``: ``hint 10`` lists ten plays."""
        m = self.match
        count = 5
        if rest.strip():
            if not rest.strip().isdigit() or not 1 <= int(rest.strip()) <= 50:
                self.error(f"hint takes how many plays to list, 1-50, not {short_repr(rest)}")
                return
            count = int(rest.strip())
        if not self.advice_allowed():
            self.say("Hints are off in a match between two people until it ends.")
            return
        bot = self.adviser()
        if entry is not None:
            cube = CubeState.from_match(m, actor)
            for line in hint_lines(bot, entry.position, entry.dice, limit=count, cube=cube):
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
            command = _command(word, rest) if line.strip() else None
            if not line.strip():
                self.error(_TYPE_A_PLAY)
                continue
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
                    self.hint(actor, entry, rest)
                    continue
                if command == "list":
                    self.list_plays(entry, rows=None)
                    continue
                if command == "board":
                    self.draw(entry.current)
                    if not entry.steps:
                        self.list_plays(entry)
                    continue
                if command == "resign":
                    if self.try_cube_or_resign(command, rest):
                        return
                    continue
                if self.common(command, rest, actor):
                    continue
                self.error(f"{short_repr(word)} is not possible now: {_TYPE_A_PLAY}")
                continue
            try:
                move = entry.enter(line)
            except ValueError as exc:  # unreadable, ambiguous or impossible: nothing entered
                self.error(str(exc))
                continue
            if move is None:
                self.draw(entry.current)
                continue
            if self.options.confirm:
                answer = self.confirm(actor, entry, move)
                if answer == "resigned":
                    return
                if answer == "undo":
                    entry.undo()
                    self.say("Taken back.")
                    self.draw()
                    self.list_plays(entry)
                    continue
            if self.tutor_objects(actor, "move", move):
                while entry.steps:
                    entry.undo()
                self.draw()
                self.list_plays(entry)
                continue
            _play(m, move)
            return

    def confirm(self, actor: int, entry: TurnEntry, move: Move) -> str:
        """Ask until the entered play is confirmed ("play"), taken back ("undo") or dropped
        for a resignation ("resigned"); other commands are carried out in between."""
        note = f"Your play: {move}"
        self.draw(entry.current, note=note)
        while True:
            line = self.reader.read("Enter to confirm, or undo > ")
            answer = line.strip().lower()
            if answer in _CONFIRM:
                return "play"
            if answer in _TAKE_BACK:
                return "undo"
            word, _, rest = line.strip().partition(" ")
            command = _command(word, rest)
            if command == "hint":
                self.hint(actor, entry, rest)
            elif command == "board":
                self.draw(entry.current, note=note)
            elif command == "resign":
                if self.try_cube_or_resign(command, rest):
                    return "resigned"
            elif command is None or not self.common(command, rest, actor):
                self.error(
                    f"{short_repr(line.strip())} is not an answer here: Enter confirms the play, "
                    "undo takes it back (or help)"
                )

    def list_plays(self, entry: TurnEntry, rows: int | None = LIST_ROWS) -> None:
        """The legal plays, numbered, in columns: the first ``rows`` rows of them (all when
        ``rows`` is None), so that a roll with 100 plays does not push the board away."""
        plays = entry.legal
        width = max(len(str(p)) for p in plays) + 6
        columns = max(1, min(4, (self.console.width - 2) // width))
        shown = len(plays) if rows is None else min(len(plays), rows * columns)
        lines = []
        for start in range(0, shown, columns):
            cells = [
                f"{i + 1:3d}. {plays[i]}".ljust(width)
                for i in range(start, min(start + columns, shown))
            ]
            lines.append(" " + "".join(cells).rstrip())
        dice = f"{entry.dice[0]}{entry.dice[1]}"
        if shown < len(plays):
            self.say(f"Legal plays of {dice}: the first {shown} of {len(plays)} (list shows all):")
        else:
            self.say(f"Legal plays of {dice}:")
        self.say("\n".join(lines))

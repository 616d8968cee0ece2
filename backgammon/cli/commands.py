"""The ``backgammon`` command line: one argparse subcommand per face of the package (play,
show, hint, moves, convert, selfplay, train, distill, serve, verify, external, ubgi, rollout)."""

from __future__ import annotations

import argparse
import dataclasses
import io
import random
import signal
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from types import FrameType
from typing import Any, NoReturn, TextIO

from rich.console import Console
from rich.text import Text

from backgammon.cli import analyse, audit, evaluate
from backgammon.cli import rollout as rollout_cli
from backgammon.cli.advice import (
    PRUNE_HELP,
    Bot,
    cube_hint,
    hint_lines,
    hint_plays,
    load_bot,
    ranked_json,
    ranked_lines,
)
from backgammon.cli.engines import add_engine_option, as_evaluation, limit_of, top_candidates
from backgammon.cli.errors import UsageError, bound, dice_seed, output_path, positive
from backgammon.cli.evaluate import evaluation_lines, write_json
from backgammon.cli.positions import parse_dice, position_from_text
from backgammon.cli.protocols import add_protocol_commands, external_command, ubgi_command
from backgammon.cli.reader import Reader
from backgammon.cli.records import default_save_path, read_mat, write_mat
from backgammon.cli.render import BoardView, make_console, render_board
from backgammon.cli.session import PlayOptions, Session
from backgammon.cli.state import _actor, _dice, _length, _on_roll
from backgammon.core.position import Position
from backgammon.core.values import clip
from backgammon.engine import EngineError, SimpleEngine, open_engine
from backgammon.ids.gnubg import MatchIdFields, encode_match_id
from backgammon.judging.evaluate import evaluate as evaluate_position
from backgammon.play.dice import AuditableDice, DiceSource, SeededDice
from backgammon.play.match import Match, Phase
from backgammon.play.rules import Rules
from backgammon.players import CubeState, MoveRanker
from backgammon.players.neural import NeuralPlayer
from backgammon.records import matchfile

__all__ = ["main"]


DEFAULT_LENGTH = 5
"""The points of a match when neither --length nor --money is given."""


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
    rules_given = [
        name
        for name, given in (
            ("--length", args.length is not None),
            ("--money", args.money),
            ("--jacoby", args.jacoby),
            ("--beavers", args.beavers),
        )
        if given
    ]
    if args.load and rules_given:
        raise UsageError(f"--load goes on with the file's own rules: drop {' '.join(rules_given)}")
    if args.load and args.auditable:
        raise UsageError("--auditable dice are for a new match: they cannot go with --load")
    if args.money and args.length is not None:
        raise UsageError("--money plays for money, --length for a match: choose one")
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
            rules = Rules.match(DEFAULT_LENGTH if args.length is None else args.length)
        match = Match(rules=rules, dice=source)
        save_path = Path(args.out) if args.out else default_save_path()
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
        tutor=args.tutor,
        hint_plies=args.hint_ply,
    )
    what = f"a {_length(match)}-point match" if _length(match) else "a money session"
    opponent = "each other" if args.vs == "human" else f"the bot ({names[1]})"
    console.print(
        Text(f"Playing {what} against {opponent}. Type help for the commands.", style="bold")
    )
    console.print(Text(f"Saving to {save_path}"), soft_wrap=True)
    return Session(match, bots, console, reader, options, source).run()


def show_command(args: argparse.Namespace) -> int:
    """``backgammon show ID``: draw a position."""
    console, unicode = make_console(args.ascii)
    pos, match = position_from_text(args.id)
    view = _position_view(console, pos, match)
    console.print(render_board(view, unicode=unicode, width=console.width))
    return 0


def _position_view(console: Console, pos: Position, match: Match | None) -> BoardView:
    """How ``show`` draws a position read from an ID: a bare one from the side on roll, one
    with a match from the side that acts, with the match's score, cube and dice."""
    if match is None:
        return BoardView(
            pos, bottom_name="on roll", top_name="opponent", gnubg_id=pos.position_id()
        )
    me = _on_roll(match)
    me = _actor(match) if me is None else me
    session = Session(
        match,
        {},
        console,
        Reader(console),
        PlayOptions(names=("Player 0", "Player 1"), humans=frozenset({me})),
    )
    return session.view()


def hint_command(args: argparse.Namespace) -> int:
    """``backgammon hint ID --dice 31``: the bot's ranked plays (or its cube advice)."""
    console, unicode = make_console(args.ascii)
    pos, match = position_from_text(args.id)
    dice = parse_dice(args.dice) if args.dice else (_dice(match) if match is not None else None)
    # A bare position names its sides as it is drawn with dice: on roll and opponent.
    names = ("on roll", "opponent") if match is None else ("Player 0", "Player 1")
    if dice is None and match is None:  # a bare position: the cube of a money game, centred
        match = Match.from_gnubg_id(f"{pos.position_id()}:{encode_match_id(MatchIdFields())}")
    if args.engine and args.bot:
        raise UsageError("give --bot or --engine, not both")
    bot = load_bot("random" if args.engine else args.bot, args.ply, prune=args.prune)
    if match is not None:
        me = match.turn if match.turn is not None else 0
        session = Session(
            match,
            {1 - me: bot},
            console,
            Reader(console),
            PlayOptions(names=names, humans=frozenset({me})),
        )
        view = dataclasses.replace(session.view(), dice=dice)
        if dice is not None and match.turn != match.on_roll:
            raise UsageError("a double or resignation is pending here: no play to advise")
    else:
        view = BoardView(
            pos, bottom_name="on roll", top_name="opponent", dice=dice, gnubg_id=pos.position_id()
        )
    cube = CubeState.from_match(match) if match is not None else CubeState()
    data: dict[str, Any] | None = None
    if args.engine:
        with open_engine(args.engine) as engine:
            lines, data = _engine_hint(engine, pos, dice, cube, args.count, args.ply)
    elif dice is None:
        assert match is not None
        lines = [cube_hint(bot, match)]
        if args.json:
            data = _cube_json(bot, match, pos, cube)
    elif isinstance(bot, MoveRanker):
        ranked = hint_plays(bot, pos, dice, args.count, cube)
        lines, data = ranked_lines(ranked), {"dice": list(dice), "plays": ranked_json(ranked)}
    elif args.json:
        raise UsageError(f"the bot {args.bot!r} gives no equities to write as JSON")
    else:
        lines = hint_lines(bot, pos, dice, limit=args.count, cube=cube)
    if args.json and data is not None and write_json(args.json, data):
        return 0
    console.print(render_board(view, unicode=unicode, width=console.width))
    if dice is not None:
        console.print(f"Best plays of {dice[0]}{dice[1]}:")
    for line in lines:
        console.print(line, markup=False, soft_wrap=True)
    return 0


def _engine_hint(
    engine: SimpleEngine,
    pos: Position,
    dice: tuple[int, int] | None,
    cube: CubeState,
    count: int,
    ply: int | None,
) -> tuple[list[str], dict[str, Any]]:
    """Another engine's advice, in lines and as JSON: its ranked plays of ``dice``, or its
    cube evaluation."""
    if dice is None:
        e = as_evaluation(engine.evaluate(pos, cube, limit_of(ply)), ply or 0)
        return evaluation_lines(e, cube), e.to_json()
    ranked = top_candidates(engine, pos, dice, cube, count, ply)
    return ranked_lines(ranked), {"dice": list(dice), "plays": ranked_json(ranked)}


def _cube_json(bot: Bot, match: Match, pos: Position, cube: CubeState) -> dict[str, Any]:
    """The bot's cube decision as ``eval --json`` writes it (a double pending: the
    doubler's, as gnubg's eval judges it)."""
    if match.phase not in (Phase.ROLL, Phase.DOUBLED):
        raise UsageError("no cube decision is pending in this ID: nothing to write as JSON")
    if not isinstance(bot, NeuralPlayer):
        raise UsageError("only the neural bot's cube decision can be written as JSON")
    return evaluate_position(pos, cube, bot.plies, bot).to_json()


def convert_command(args: argparse.Namespace) -> int:
    """``backgammon convert A.mat B.sgf``: between match file formats (either way)."""
    from backgammon.records.convert import convert, format_of_name

    src, dst = Path(args.source), Path(args.target)
    for p in (src, dst):
        if format_of_name(p) is None:
            raise UsageError(f"{p}: a match file's name ends in .mat or .sgf")
    try:
        output_path(str(dst))
    except argparse.ArgumentTypeError as exc:
        raise UsageError(str(exc)) from exc
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


def play_bots(bots: tuple[Bot, Bot], length: int, seed: int, names: tuple[str, str]) -> Match:
    """A match of ``length`` points between two bots on the dice of ``seed``, played out by
    the terminal's session with nothing shown (``selfplay``, and the benches)."""
    source = SeededDice(seed)
    match = Match(rules=Rules.match(length), dice=source)
    quiet = Console(file=io.StringIO())
    options = PlayOptions(names=names, humans=frozenset())
    session = Session(
        match, dict(enumerate(bots)), quiet, Reader(quiet, io.StringIO()), options, source
    )
    while not match.is_over:
        session.step()
    return match


def selfplay_command(args: argparse.Namespace) -> int:
    """``backgammon selfplay --games N --out DIR``: bot against bot, saved as .mat files."""
    from rich.progress import Progress

    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {clip(str(out))} is a file: name a folder for the matches")
    out.mkdir(parents=True, exist_ok=True)
    bots = (
        load_bot(args.bot, args.ply, args.seed),
        load_bot(args.opponent or args.bot, args.ply, args.seed),
    )
    names = (f"{bots[0].name}-1", f"{bots[1].name}-2")
    wins = [0, 0]
    points = [0, 0]
    console = Console(stderr=True)
    with Progress(console=console, transient=False) as progress:
        task = progress.add_task("games", total=args.games)
        for game in range(args.games):
            seed = (args.seed or 0) * 1_000_003 + game
            match = play_bots(bots, args.length, seed, names)
            path = out / f"game-{game + 1:04d}.mat"
            write_mat(match, path, names)
            a, b = match.score
            points[0] += a
            points[1] += b
            wins[0 if a > b else 1] += 1
            progress.advance(task)
    print(
        f"{args.games} match{'es' if args.games != 1 else ''} to {args.length}: "
        f"{names[0]} won {wins[0]}, {names[1]} won "
        f"{wins[1]} (points {points[0]}-{points[1]}); files in {out}"
    )
    return 0


def train_command(args: argparse.Namespace, rest: Sequence[str]) -> int:
    """``backgammon train`` and ``backgammon distill``: backgammon.training's two
    stages (TD self-play, then fitting to 1-ply evaluations)."""
    from backgammon.training import distill
    from backgammon.training import td as train

    program = train if args.command == "train" else distill
    return int(program.main(list(rest)) or 0)


def moves_command(args: argparse.Namespace) -> int:
    """``backgammon moves ID --dice 31``: every legal play of a roll, numbered, under the
    board drawn as ``show`` draws it."""
    console, unicode = make_console(args.ascii)
    pos, match = position_from_text(args.id) if args.id else (Position.initial(), None)
    dice = parse_dice(args.dice)
    view = dataclasses.replace(_position_view(console, pos, match), dice=dice)
    console.print(render_board(view, unicode=unicode, width=console.width))
    plays = pos.legal_moves(dice)
    console.print(f"\n{len(plays)} legal plays of {dice[0]}{dice[1]}:", markup=False)
    for i, play in enumerate(plays, 1):
        console.print(f"{i:3d}. {play}", markup=False, soft_wrap=True)
    return 0


def verify_command(args: argparse.Namespace) -> int:
    """``backgammon verify FILE.mat --seed HEX``: did every throw come from the seed?"""
    problems = audit.check(Path(args.file), args.seed, args.commitment)
    if problems:
        for problem in problems:
            print(f"{args.file}: {problem}")
        print(f"{args.file}: NOT verified")
        return 1
    against = "the given commitment" if args.commitment else "the commitment the file records"
    print(f"{args.file}: verified: every throw comes from that seed, which matches {against}")
    return 0


def serve_command(args: argparse.Namespace) -> int:
    """``backgammon serve``: the web board."""
    from backgammon.web import serve as run_server
    from backgammon.web.store.database import StoreError

    if args.workers < 1 or args.bot_processes < 1:
        raise UsageError("--workers and --bot-processes need at least 1")
    try:
        run_server(
            args.host,
            args.port,
            args.database,
            workers=args.workers,
            bot_processes=args.bot_processes,
            trusted_proxies=args.trusted_proxy,
        )
    except StoreError as exc:
        raise UsageError(str(exc)) from exc
    return 0


_DESCRIPTION = """backgammon: play a match in the terminal (the default) or the browser, look at
positions and plays, convert match files, train the bot."""


class _Parser(argparse.ArgumentParser):
    """argparse, quoting at most a few words of a bad option value."""

    def error(self, message: str) -> NoReturn:
        """Usage and the message on standard error, exit status 2."""
        super().error(bound(message))


_PASSED_ON = ("train", "distill")  # their own parsers read the rest of the line


_BOTS = "random, pubeval, neural (the best; also expert, strong, world for 0, 1, 2 plies)"


def build_parser() -> argparse.ArgumentParser:
    """The ``backgammon`` argument parser with every subcommand."""
    parser = _Parser(prog="backgammon", description=_DESCRIPTION)
    sub = parser.add_subparsers(dest="command", title="commands", metavar="COMMAND")

    play = sub.add_parser(
        "play", help="play a match in the terminal (the default: 5 points against the bot)"
    )
    play.add_argument(
        "--length", type=int, default=None, help=f"match length in points, 1-64 ({DEFAULT_LENGTH})"
    )
    play.add_argument(
        "--money", action="store_true", help="a money session instead of a match (no --length)"
    )
    play.add_argument("--jacoby", action="store_true", help="money: the Jacoby rule")
    play.add_argument("--beavers", action="store_true", help="money: beavers allowed")
    play.add_argument(
        "--vs",
        choices=("bot", "human"),
        default="bot",
        help="bot: you against the bot (default); human: two players at one keyboard",
    )
    play.add_argument("--bot", default=None, help=f"the bot: {_BOTS}")
    play.add_argument("--ply", type=int, default=None, help="the bot's lookahead (0, 1, 2)")
    play.add_argument(
        "--hint-ply",
        type=int,
        choices=(0, 1, 2),
        default=None,
        help="the depth of hints and the tutor (default: the bot's own)",
    )
    play.add_argument("--seed", type=dice_seed, default=None, help="seed the dice (reproducible)")
    play.add_argument(
        "--auditable",
        action="store_true",
        help="commit to the dice before play, reveal the seed at the end "
        "(check the saved match with backgammon verify)",
    )
    play.add_argument("--load", metavar="FILE.mat", help="go on with a saved match")
    play.add_argument(
        "--out",
        metavar="FILE.mat",
        help="where to save the match (default: a new file in the data folder, "
        "$XDG_DATA_HOME/backgammon or ~/.local/share/backgammon; with --load, that file)",
    )
    play.add_argument("--name", default=None, help="your name in the match file")
    play.add_argument(
        "--no-auto", action="store_true", help="do not make forced plays automatically"
    )
    play.add_argument(
        "--tutor",
        action="store_true",
        help="warn before a play or cube action that loses 0.06 or more (gnubg's 'bad')",
    )
    play.add_argument(
        "--confirm",
        dest="confirm",
        action="store_true",
        default=None,
        help="confirm each play before it counts (default in a terminal)",
    )
    play.add_argument(
        "--no-confirm",
        dest="confirm",
        action="store_false",
        help="a play counts once typed (default when the commands come from a script)",
    )
    play.add_argument(
        "--ascii", action="store_true", help="draw the board in plain ASCII (X and O)"
    )

    show = sub.add_parser("show", help="draw a position from a Position ID, gnubg ID or XGID")
    show.add_argument("id", help="a Position ID, a gnubg ID (position:match) or an XGID")
    show.add_argument(
        "--ascii", action="store_true", help="draw the board in plain ASCII (X and O)"
    )

    hint = sub.add_parser("hint", help="the bot's best plays for a position and roll")
    hint.add_argument("id", help="a Position ID, a gnubg ID (position:match) or an XGID")
    hint.add_argument(
        "--dice",
        default=None,
        help="the roll, e.g. 31 (default: the ID's dice; none gives cube advice)",
    )
    hint.add_argument("--bot", default=None, help=f"the bot: {_BOTS}")
    hint.add_argument("--ply", type=int, default=None, help="the bot's lookahead (0, 1, 2)")
    hint.add_argument("--count", type=int, default=5, help="how many plays to list (5)")
    add_engine_option(hint)
    hint.add_argument("--prune", type=int, default=None, help=PRUNE_HELP)
    hint.add_argument(
        "--json",
        type=output_path,
        default=None,
        metavar="OUT",
        help="write the ranked plays (or the cube decision) as eval does to OUT (- for stdout)",
    )
    hint.add_argument(
        "--ascii", action="store_true", help="draw the board in plain ASCII (X and O)"
    )

    moves = sub.add_parser("moves", help="list the legal plays of a roll")
    moves.add_argument(
        "id",
        nargs="?",
        default=None,
        help="a Position ID, gnubg ID or XGID (default: the starting position)",
    )
    moves.add_argument("--dice", default="31", help="the roll, e.g. 31 (31)")
    moves.add_argument(
        "--ascii", action="store_true", help="draw the board in plain ASCII (X and O)"
    )

    convert = sub.add_parser("convert", help="convert a match file: A.mat B.sgf (or back)")
    convert.add_argument("source", help="the match file to read (.mat or .sgf)")
    convert.add_argument("target", help="the file to write; its ending (.mat or .sgf) says how")

    selfplay = sub.add_parser("selfplay", help="bot against bot; .mat files and results")
    selfplay.add_argument("--games", type=positive, default=10, help="how many matches (10)")
    selfplay.add_argument(
        "--out", default="selfplay", help="the folder for the .mat files (./selfplay)"
    )
    selfplay.add_argument("--length", type=int, default=1, help="match length in points (1)")
    selfplay.add_argument("--bot", default=None, help=f"the first bot: {_BOTS}")
    selfplay.add_argument(
        "--opponent", default=None, help="the second bot (default: the same as --bot)"
    )
    selfplay.add_argument("--ply", type=int, default=None, help="both bots' lookahead (0, 1, 2)")
    selfplay.add_argument(
        "--seed", type=dice_seed, default=0, help="seed of the dice; match N uses one made from it"
    )

    sub.add_parser(
        "train", help="train the network (options: backgammon train --help)", add_help=False
    )
    sub.add_parser(
        "distill",
        help="fit the network to its 1-ply evaluations (backgammon distill --help)",
        add_help=False,
    )

    check = sub.add_parser(
        "verify", help="check that every throw of a --auditable match came from its seed"
    )
    check.add_argument("file", help="the match saved by backgammon play --auditable")
    check.add_argument("--seed", required=True, help="the seed (hex) revealed after play")
    check.add_argument(
        "--commitment",
        default=None,
        help="the commitment (hex) shown before play (default: the one the file records, "
        "which proves less: compare it with what you were shown)",
    )

    serve = sub.add_parser("serve", help="play in the browser (web server)")
    serve.add_argument(
        "--host", default="127.0.0.1", help="the address to listen on (127.0.0.1: this machine)"
    )
    serve.add_argument("--port", type=int, default=8000, help="the port to listen on (8000)")
    serve.add_argument(
        "--database",
        default="backgammon.sqlite3",
        help="where matches are kept: an SQLite file or sqlite:/// URL (./backgammon.sqlite3), "
        "or postgresql://user@host/db",
    )
    serve.add_argument(
        "--workers", type=int, default=1, help="server processes behind the port (1)"
    )
    serve.add_argument(
        "--bot-processes",
        type=int,
        default=2,
        help="worker processes where each server process's bots think (2)",
    )
    serve.add_argument(
        "--trusted-proxy",
        action="append",
        default=[],
        metavar="ADDRESS",
        help="a reverse proxy whose X-Forwarded-For/-Proto are believed (repeatable; none)",
    )
    add_protocol_commands(sub, _BOTS)
    rollout_cli.add_parser(sub)
    analyse.add_parser(sub)
    evaluate.add_parser(sub)
    return parser


_INTERRUPTED = threading.Event()
"""Set by Ctrl-C while a command runs (:func:`_on_interrupt`)."""


def _on_interrupt(signum: int, frame: FrameType | None) -> None:
    """Ctrl-C: raise KeyboardInterrupt as Python does, and remember it, because numba's
    compiler (llvmlite's callbacks) can swallow the exception and fail later otherwise."""
    _INTERRUPTED.set()
    raise KeyboardInterrupt


def _was_interrupted(exc: BaseException) -> bool:
    """Whether an error came of Ctrl-C: Ctrl-C itself, raised while one was handled, or
    after one."""
    chain = (exc, exc.__cause__, exc.__context__)
    return _INTERRUPTED.is_set() or any(isinstance(e, KeyboardInterrupt) for e in chain)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``backgammon`` command (``backgammon`` alone plays a match);
    problems are reported in a line, not a traceback."""
    parser = build_parser()
    args, rest = parser.parse_known_args(argv)
    if rest and args.command not in _PASSED_ON:
        parser.error(f"unrecognized arguments: {clip(' '.join(rest))}")
    if args.command is None:
        args = parser.parse_args(["play"])
    handlers = {
        "play": play_command,
        "show": show_command,
        "hint": hint_command,
        "moves": moves_command,
        "convert": convert_command,
        "selfplay": selfplay_command,
        "serve": serve_command,
        "verify": verify_command,
        "external": external_command,
        "ubgi": ubgi_command,
        "rollout": rollout_cli.rollout_command,
        "analyse": analyse.analyse_command,
        "eval": evaluate.eval_command,
    }
    _INTERRUPTED.clear()
    previous = signal.getsignal(signal.SIGINT)
    # Not where Ctrl-C is ignored or handled already, nor off the main thread.
    ours = previous is signal.default_int_handler
    ours = ours and threading.current_thread() is threading.main_thread()
    if ours:
        signal.signal(signal.SIGINT, _on_interrupt)
    try:
        if args.command in _PASSED_ON:
            return train_command(args, rest)
        return handlers[args.command](args)
    except (KeyboardInterrupt, Exception) as exc:
        # Ctrl-C inside compiled code (numba) surfaces as another error, or later.
        if _was_interrupted(exc):
            print(f"backgammon {args.command}: interrupted", file=sys.stderr)
            return 130
        if not isinstance(exc, ValueError | OSError | EngineError):
            raise
        print(f"backgammon {args.command}: {bound(str(exc))}", file=sys.stderr)
        return 2
    finally:
        if ours:
            signal.signal(signal.SIGINT, previous)

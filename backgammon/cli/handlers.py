"""The ``backgammon`` subcommands that play or serve: play, show, hint, selfplay, train,
distill and serve (:mod:`backgammon.cli.commands` imports this module only once one of them
is chosen; those that need no bot are in :mod:`backgammon.cli.plain`)."""

from __future__ import annotations

import argparse
import dataclasses
import io
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from rich.console import Console
from rich.text import Text

from backgammon.cli.advice import (
    Bot,
    cube_hint,
    hint_lines,
    hint_plays,
    load_bot,
    ranked_json,
    ranked_lines,
)
from backgammon.cli.engines import as_evaluation, limit_of, top_candidates
from backgammon.cli.errors import UsageError
from backgammon.cli.evaluate import evaluation_lines, write_json
from backgammon.cli.parser import DEFAULT_LENGTH
from backgammon.cli.positions import parse_dice, position_from_text
from backgammon.cli.reader import Reader
from backgammon.cli.records import default_save_path, read_mat, write_mat
from backgammon.cli.render import BoardView, make_console, render_board
from backgammon.cli.session import PlayOptions, Session
from backgammon.cli.state import _actor, _dice, _length, _on_roll
from backgammon.core.position import Position
from backgammon.core.values import clip
from backgammon.engine import SimpleEngine, open_engine
from backgammon.ids.gnubg import MatchIdFields, encode_match_id
from backgammon.judging.evaluate import evaluate as evaluate_position
from backgammon.play.dice import AuditableDice, DiceSource, SeededDice
from backgammon.play.match import Match, Phase
from backgammon.play.rules import Rules
from backgammon.players import CubeState, MoveRanker
from backgammon.players.neural import NeuralPlayer

__all__ = [
    "hint_command",
    "play_bots",
    "play_command",
    "selfplay_command",
    "serve_command",
    "show_command",
    "train_command",
]


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
    view = position_view(console, pos, match)
    console.print(render_board(view, unicode=unicode, width=console.width))
    return 0


def position_view(console: Console, pos: Position, match: Match | None) -> BoardView:
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


def serve_command(args: argparse.Namespace) -> int:
    """``backgammon serve``: the web board."""
    from backgammon.web import serve as run_server
    from backgammon.web.store.database import StoreError

    if args.workers < 1 or args.bot_processes < 1:
        raise UsageError("--workers and --bot-processes need at least 1")
    engine = None
    if args.engine is not None:
        from backgammon.engine.gnubg import GnubgNotFoundError, find_gnubg
        from backgammon.web.service.gnubg import ServeEngineError, check_engine

        try:
            engine = check_engine(args.engine)
            find_gnubg()
        except (ServeEngineError, GnubgNotFoundError) as exc:
            raise UsageError(str(exc)) from exc
    try:
        run_server(
            args.host,
            args.port,
            args.database,
            workers=args.workers,
            bot_processes=args.bot_processes,
            trusted_proxies=args.trusted_proxy,
            engine=engine,
            analysis_plies=args.analysis_plies,
        )
    except StoreError as exc:
        raise UsageError(str(exc)) from exc
    return 0

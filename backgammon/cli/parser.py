"""The ``backgammon`` command line's grammar: every subcommand and its options, and
nothing they run, so that ``--help`` and a usage error load no engine (the commands import
their own modules once chosen, in :mod:`backgammon.cli.commands`)."""

from __future__ import annotations

import argparse
from typing import Any, NoReturn

from backgammon.cli.errors import bound, dice_seed, output_path, port, positive
from backgammon.judging.marks import MARK_WORDS, THRESHOLDS

__all__ = [
    "DEFAULT_LENGTH",
    "DEFAULT_PLIES",
    "ENGINE_HELP",
    "PASSED_ON",
    "PRUNE_HELP",
    "add_engine_option",
    "build_parser",
]

DEFAULT_LENGTH = 5
"""The points of a match when neither --length nor --money is given."""

DEFAULT_PLIES = 2
"""The depth ``analyse`` uses unless told: the one that agrees best with gnubg's 2-ply
judgement (docs/strength.md), in less CPU time than gnubg takes for its 2-ply analysis."""

ENGINE_HELP = (
    "judge with another engine: gnubg, gnubg:PLIES, ubgi:CMD (any UBGI engine's command), "
    "or one of our bots (neural:2); default ours"
)

PRUNE_HELP = (
    "plays of each roll the full net judges inside the lookahead, chosen by the pruning "
    "net as gnubg's are (default: the neural bot's own; 0: every play)"
)

PASSED_ON = ("train", "distill")
"""The subcommands whose own parsers read the rest of the line."""

_BOTS = "random, pubeval, neural (the best; also expert, strong, world for 0, 1, 2 plies)"

_DESCRIPTION = """backgammon: play a match in the terminal (the default) or the browser, look at
positions and plays, convert match files, train the bot."""


class _Parser(argparse.ArgumentParser):
    """argparse, quoting at most a few words of a bad option value."""

    def error(self, message: str) -> NoReturn:
        """Usage and the message on standard error, exit status 2."""
        super().error(bound(message))


def add_engine_option(p: argparse.ArgumentParser) -> None:
    """Give a command the ``--engine NAME`` option."""
    p.add_argument("--engine", default=None, metavar="NAME", help=ENGINE_HELP)


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
    serve.add_argument(
        "--engine",
        default=None,
        metavar="gnubg[:PLIES]",
        help="gnubg as a bot in the lobby and its verdicts beside ours in reviews (off)",
    )
    serve.add_argument(
        "--analysis-plies",
        type=int,
        choices=(0, 1, 2),
        default=2,
        metavar="N",
        help="the depth of a match's review, 0-2 (2; less on a small machine)",
    )
    _protocol_commands(sub, _BOTS)
    _rollout(sub)
    _analyse(sub)
    _eval(sub)
    return parser


def _protocol_commands(sub: Any, bots: str) -> None:
    """``external`` and ``ubgi``: the bot for gnubg's external player and for UBGI."""
    ext = sub.add_parser(
        "external", help="serve the bot to gnubg (set player 1 external HOST:PORT)"
    )
    ext.add_argument("--port", type=port, required=True, help="the TCP port (0: a free one)")
    ext.add_argument("--host", default="127.0.0.1", help="the address to listen on (127.0.0.1)")
    ext.add_argument("--bot", default=None, help=f"the bot: {bots}")
    ext.add_argument("--ply", type=int, default=None, help="the bot's lookahead (0, 1, 2)")
    ext.add_argument("--jacoby", action="store_true", help="money: gnubg plays the Jacoby rule")
    ext.add_argument("--beavers", action="store_true", help="money: gnubg allows beavers")
    ubgi = sub.add_parser("ubgi", help="the bot as a UBGI engine on standard input and output")
    ubgi.add_argument("--bot", default=None, help=f"the bot: {bots}")
    ubgi.add_argument("--ply", type=int, default=0, help="the lookahead (0, 1, 2; setoption plies)")


def _rollout(sub: Any) -> None:
    """``rollout``: a position, the plays of a roll or the cube."""
    p = sub.add_parser("rollout", help="roll out a position, the plays of a roll or the cube")
    p.add_argument("id", help="a Position ID, a gnubg ID (position:match) or an XGID")
    what = p.add_mutually_exclusive_group()
    what.add_argument("--dice", default=None, help="roll out the plays of this roll, e.g. 31")
    what.add_argument(
        "--cube", action="store_true", help="roll out the cube decision (implies --cubeful)"
    )
    p.add_argument("--trials", type=positive, default=1296, help="trials per candidate (1296)")
    p.add_argument(
        "--truncate", type=int, default=0, help="stop after N plies and evaluate (0: to the end)"
    )
    p.add_argument("--ply", type=int, default=0, help="the bots' lookahead (0, 1, 2)")
    add_engine_option(p)
    p.add_argument("--cubeful", action="store_true", help="the bots use the cube (default: no)")
    p.add_argument("--seed", type=dice_seed, default=0, help="seed of the dice (0)")
    p.add_argument(
        "--workers", type=int, default=None, help="local processes (default: one per core)"
    )
    p.add_argument(
        "--ray",
        default=None,
        metavar="ADDRESS",
        help="run on a Ray cluster: its address, auto (this node's), or local (start one here)",
    )
    p.add_argument(
        "--top", type=positive, default=5, help="with --dice: the best N plays at 0 ply (5)"
    )
    p.add_argument(
        "--no-variance-reduction",
        dest="variance_reduction",
        action="store_false",
        help="plain averages (default: each roll's luck subtracted)",
    )
    p.add_argument(
        "--no-quasi-random",
        dest="quasi_random",
        action="store_false",
        help="pseudo-random dice only (default: the first rolls stratified)",
    )
    p.add_argument(
        "--no-bearoff-truncation",
        dest="bearoff_truncation",
        action="store_false",
        help="play bear-offs out (default, as gnubg: stop at the bear-off databases)",
    )
    p.add_argument(
        "--prune",
        type=int,
        default=5,
        metavar="N",
        help="judge the luck of each roll, and the replies inside 1- and 2-ply bots' "
        "lookahead, on the N plays the pruning net ranks best; the roll played is judged "
        "on all its plays (default 5; 0: every play)",
    )
    p.add_argument("--target-se", type=float, default=None, help="stop once every SE is below this")
    p.add_argument(
        "--json",
        type=output_path,
        default=None,
        metavar="OUT",
        help="write JSON to OUT (- for stdout)",
    )


def _analyse(sub: Any) -> None:
    """``analyse``: every play and cube decision of a match file."""
    p = sub.add_parser("analyse", help="judge every play and cube decision of a .mat/.sgf file")
    p.add_argument("file", help="the match file (.mat, or .sgf)")
    p.add_argument(
        "--ply", type=int, default=DEFAULT_PLIES, help=f"lookahead 0, 1 or 2 ({DEFAULT_PLIES})"
    )
    p.add_argument(
        "--json",
        dest="json_out",
        type=output_path,
        default=None,
        metavar="OUT",
        help="write the analysis as JSON to OUT (- for standard output)",
    )
    p.add_argument(
        "--html",
        dest="html_out",
        type=output_path,
        default=None,
        metavar="OUT",
        help="write an HTML report to OUT (- for standard output)",
    )
    p.add_argument(
        "--text",
        dest="text_out",
        type=output_path,
        default=None,
        metavar="OUT",
        help="write a move-by-move review as text to OUT (- for the terminal)",
    )
    p.add_argument(
        "--verify",
        nargs="?",
        const="very-bad",
        choices=[w.replace(" ", "-") for w in MARK_WORDS],
        default=None,
        help="roll out again every decision marked this badly or worse (very-bad if no "
        "mark is given): slower, and where the net misjudges, right",
    )
    p.add_argument("--prune", type=int, default=None, help=PRUNE_HELP)
    add_engine_option(p)
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    marks = dict(THRESHOLDS)
    for word in ("doubtful", "bad", "very bad"):
        p.add_argument(
            f"--{word.replace(' ', '-')}",
            type=float,
            default=marks[word],
            metavar="EMG",
            help=f"mark errors above this {word} ({marks[word]:g}, gnubg's)",
        )


def _eval(sub: Any) -> None:
    """``eval``: a position's probabilities, equity and cube action."""
    p = sub.add_parser(
        "eval", help="probabilities, equity and cube action of a position (gnubg's eval)"
    )
    p.add_argument("id", help="a gnubg ID (Position ID:Match ID), a Position ID or an XGID")
    p.add_argument("--ply", type=int, default=None, help="lookahead 0, 1 or 2 (0; an engine's own)")
    add_engine_option(p)
    p.add_argument(
        "--json",
        type=output_path,
        default=None,
        metavar="OUT",
        help="write JSON to OUT (- for stdout)",
    )

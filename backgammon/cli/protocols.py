"""``backgammon external`` and ``backgammon ubgi``: the bot for gnubg's external player and
for UBGI front ends (:mod:`backgammon.protocols`)."""

from __future__ import annotations

import argparse
import contextlib
import sys

from backgammon.cli.advice import load_bot
from backgammon.cli.errors import port

__all__ = ["add_protocol_commands", "external_command", "ubgi_command"]


def add_protocol_commands(sub: argparse._SubParsersAction, bots: str) -> None:  # type: ignore[type-arg]
    """The two subcommands' options."""
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


def external_command(args: argparse.Namespace) -> int:
    """Serve gnubg's external player until interrupted."""
    from backgammon.protocols.external import ExternalPlayer, serve_external

    external = ExternalPlayer(
        load_bot(args.bot, args.ply), jacoby=args.jacoby, beavers=args.beavers
    )

    def ready(address: tuple[str, int]) -> None:
        print(f"backgammon external: listening on {address[0]}:{address[1]}", flush=True)

    with contextlib.suppress(KeyboardInterrupt):
        serve_external(external, args.port, args.host, ready=ready)
    return 0


def ubgi_command(args: argparse.Namespace) -> int:
    """Run the UBGI engine on standard input and output."""
    from backgammon.protocols.ubgi import UbgiEngine

    if args.ply not in (0, 1, 2):
        raise ValueError(f"--ply must be 0, 1 or 2, got {args.ply}")
    engine = UbgiEngine(lambda plies: load_bot(args.bot, plies), plies=args.ply)
    engine.run(sys.stdin, sys.stdout)
    return 0

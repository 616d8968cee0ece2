"""``backgammon external`` and ``backgammon ubgi``: the bot for gnubg's external player and
for UBGI front ends (:mod:`backgammon.protocols`)."""

from __future__ import annotations

import argparse
import contextlib
import sys

from backgammon.cli.advice import load_bot

__all__ = ["external_command", "ubgi_command"]


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

"""backgammon: play a match in the terminal (the default) or the browser, look at positions and
plays, convert match files, train the bot."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from backgammon import cli
from backgammon.board import InvalidPositionError, Position


def _position_from_text(text: str) -> Position:
    text = text.strip()
    if text.startswith("XGID=") or len(text.split(":")[0]) == 26:
        return Position.from_xgid(text)
    return Position.from_position_id(text.split(":")[0])


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``backgammon`` command (``backgammon`` alone plays a match)."""
    parser = argparse.ArgumentParser(prog="backgammon", description=__doc__)
    sub = parser.add_subparsers(dest="command")
    cli.add_commands(sub)  # play, show, hint, convert, selfplay, train, distill
    moves = sub.add_parser("moves", help="list the legal plays of a roll")
    moves.add_argument("id", nargs="?", default=None)
    moves.add_argument("--dice", default="31", help="the roll, e.g. 31")
    serve = sub.add_parser("serve", help="play in the browser (web server)")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument(
        "--database", default="backgammon.sqlite3", help="SQLite file or sqlite:/// URL"
    )
    args, rest = parser.parse_known_args(argv)
    if rest and args.command not in ("train", "distill"):
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    if args.command is None:
        args = parser.parse_args(["play"])
    if args.command in cli.COMMANDS:
        return cli.run(args, rest)
    if args.command == "serve":
        from backgammon.web import serve as run_server
        from backgammon.web.store import StoreError

        try:
            run_server(args.host, args.port, args.database)
        except StoreError as exc:
            print(f"backgammon serve: {exc}", file=sys.stderr)
            return 2
        return 0
    try:
        pos = _position_from_text(args.id) if getattr(args, "id", None) else Position.initial()
        dice_text = getattr(args, "dice", "31")
        if len(dice_text) != 2 or not dice_text.isdigit():
            parser.error(f"--dice takes two digits 1-6, like 31, not {dice_text!r}")
        dice = (int(dice_text[0]), int(dice_text[1]))
        print(pos)
        plays = pos.legal_moves(dice)
        print(f"\n{len(plays)} legal plays of {dice[0]}{dice[1]}:")
        for i, play in enumerate(plays, 1):
            print(f"{i:3d}. {play}")
        return 0
    except (InvalidPositionError, ValueError) as exc:
        print(f"backgammon: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())

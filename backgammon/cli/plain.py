"""The ``backgammon`` subcommands that need no bot: ``moves``, ``convert`` and ``verify``
(apart from :mod:`backgammon.cli.handlers`, so that they load no engine)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from backgammon.cli import audit
from backgammon.cli.errors import UsageError, output_path
from backgammon.cli.positions import parse_dice, position_from_text
from backgammon.core.position import Position
from backgammon.records import errors

__all__ = ["convert_command", "moves_command", "verify_command"]


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
    except errors.MatchFileError as exc:
        raise UsageError(f"{src}: {exc}") from exc
    for warning in warnings:
        print(f"{src}: note: {warning}", file=sys.stderr)
    print(f"{src} -> {dst}")
    return 0


def moves_command(args: argparse.Namespace) -> int:
    """``backgammon moves ID --dice 31``: every legal play of a roll, numbered, under the
    board drawn as ``show`` draws it."""
    import dataclasses

    from backgammon.cli.render import BoardView, make_console, render_board

    console, unicode = make_console(args.ascii)
    pos, match = position_from_text(args.id) if args.id else (Position.initial(), None)
    dice = parse_dice(args.dice)
    if match is None:  # as show draws a bare position, without loading the session's bots
        view = BoardView(
            pos, bottom_name="on roll", top_name="opponent", dice=dice, gnubg_id=pos.position_id()
        )
    else:
        from backgammon.cli.handlers import position_view

        view = dataclasses.replace(position_view(console, pos, match), dice=dice)
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

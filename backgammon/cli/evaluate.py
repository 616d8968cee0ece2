"""``backgammon eval POSITION [--ply N] [--engine NAME] [--json OUT]``: one position judged
as gnubg's ``eval`` judges it (see :mod:`backgammon.judging.evaluate`), by us or by another
engine: the five cubeless probabilities and equity of the side on roll, and the cube at the
score in the ID."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from backgammon.cli.engines import as_evaluation, limit_of
from backgammon.cli.errors import UsageError
from backgammon.cli.positions import position_from_text
from backgammon.cli.render import signed
from backgammon.engine import open_engine
from backgammon.evaluation.cube import CubeState
from backgammon.judging.evaluate import Evaluation, evaluate
from backgammon.play.match import Phase

__all__ = ["eval_command", "evaluation_lines", "write_json"]


def evaluation_lines(e: Evaluation, cube: CubeState) -> list[str]:
    """The evaluation in at most 80 columns."""
    p = e.probabilities
    c = e.cube
    where = "money" if cube.is_money else f"{cube.match_length}-point match"
    lines = [
        f"Evaluation at {e.plies}-ply for the side on roll ({where}, cube {cube.cube_value}):",
        f"  win  {p.win:6.1%}  gammon {p.win_gammon:6.1%}  backgammon {p.win_backgammon:6.1%}",
        f"  lose {1 - p.win:6.1%}  gammon {p.lose_gammon:6.1%}  backgammon "
        f"{p.lose_backgammon:6.1%}",
        f"  cubeless equity {signed(e.equity)}",
    ]
    if c.double_take is None or c.double_pass is None:
        lines.append(f"  cubeful equity {signed(c.no_double)} (EMG); {c.proper}")
        return lines
    best = max(c.no_double, min(c.double_take, c.double_pass))
    for name, value, mwc in (
        ("no double", c.no_double, c.mwc[0] if c.mwc else None),
        ("double/take", c.double_take, c.mwc[1] if c.mwc else None),
        ("double/pass", c.double_pass, c.mwc[2] if c.mwc else None),
    ):
        share = "" if mwc is None else f"  MWC {mwc:6.1%}"
        lines.append(f"  {name:<12} {signed(value)} ({signed(value - best)}){share}")
    lines.append(f"  proper cube action: {c.proper}")
    return lines


def eval_command(args: argparse.Namespace) -> int:
    """Judge the position and print it, or write it as JSON."""
    if args.ply not in (None, 0, 1, 2) and not args.engine:
        raise UsageError(f"--ply is 0, 1 or 2, not {args.ply}")
    pos, match = position_from_text(args.id)
    cube = CubeState.from_match(match) if match is not None else CubeState()
    # A double pending is judged as gnubg's eval judges it: the doubler's position before
    # its roll (the ID's position is the doubler's); a resignation pending has no such turn.
    pending = match is not None and match.on_roll is not None and match.on_roll != match.turn
    if pending and match is not None and match.phase is not Phase.DOUBLED:
        raise UsageError("a resignation is pending in this ID: nothing to evaluate")
    if pos.is_game_over():
        raise UsageError("the game is over: there is nothing to judge")
    if args.engine:
        with open_engine(args.engine) as engine:
            e = as_evaluation(engine.evaluate(pos, cube, limit_of(args.ply)), args.ply or 0)
    else:
        e = evaluate(pos, cube, args.ply or 0)
    if args.json and write_json(args.json, e.to_json()):
        return 0
    print("\n".join(evaluation_lines(e, cube)))
    return 0


def write_json(out: str, data: Any) -> bool:
    """Write ``data`` as indented JSON to the file ``out``, or to standard output for "-"
    (then True: nothing else is printed, so the output stays JSON)."""
    text = json.dumps(data, indent=2) + "\n"
    if out == "-":
        sys.stdout.write(text)
        return True
    Path(out).write_text(text, encoding="utf-8")
    return False

"""``backgammon rollout ID``: roll out a position, the plays of a roll or a cube decision,
with a progress bar, a table of candidates and their standard errors, and JSON."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from rich import box
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn
from rich.table import Table

from backgammon.cli.engines import our_plies
from backgammon.cli.errors import UsageError
from backgammon.cli.positions import parse_dice, position_from_text
from backgammon.cli.render import signed
from backgammon.players import CubeState

if TYPE_CHECKING:
    from backgammon.judging.rollout import RolloutResult

__all__ = ["rollout_command"]


def _table(result: RolloutResult, match: bool, cube: bool) -> Table:
    """The candidates with their five chances, EMG (and MWC in a match) and standard error;
    a cube rollout's double/pass row has no chances (no game is played)."""
    table = Table(title=f"Rollout: {result.trials} trials", box=box.SIMPLE_HEAD, pad_edge=False)
    table.add_column("#", justify="right")
    table.add_column("candidate")
    for name in ("win%", "W g", "W bg", "L g", "L bg"):
        table.add_column(name, justify="right")
    table.add_column("EMG", justify="right")
    if match:
        table.add_column("MWC", justify="right")
    table.add_column("± SE", justify="right")
    for n, c in enumerate(result.candidates, 1):
        passed = cube and n == 3
        chances = ["—"] * 5 if passed else [f"{100 * x:.1f}" for x in c.probabilities]
        mwc = [f"{100 * (c.mwc or 0.0):.1f}%"] if match else []
        table.add_row(
            str(n), c.play or "(position)", *chances, signed(c.equity), *mwc, f"{c.se:.3f}"
        )
    return table


def proper(result: RolloutResult, state: CubeState) -> str:
    """A cube rollout's proper action in gnubg's words, from its three rolled-out values."""
    from backgammon.evaluation.cube import decision_from_values
    from backgammon.judging.evaluate import proper_action

    nd, dt, dp = (c.equity if state.is_money else c.mwc or 0.0 for c in result.candidates)
    return proper_action(decision_from_values(nd, dt, dp, state), state)


def rollout_command(args: argparse.Namespace) -> int:
    """``backgammon rollout ID [--dice 31 | --cube] ...``"""
    from backgammon.cli.state import _dice
    from backgammon.judging.rollout import RolloutSettings, rollout  # numpy and the nets: only here

    if args.engine:
        why = "a rollout here plays our nets in lockstep, and gnubg's text mode prints no rollout"
        plies = our_plies("rollout", args.engine, why)
        args.ply = plies if plies is not None else args.ply
    pos, match = position_from_text(args.id)
    state = CubeState.from_match(match) if match is not None else CubeState()
    dice = None
    if args.dice:
        dice = parse_dice(args.dice)
    elif not args.cube and match is not None:
        dice = _dice(match)
    if args.workers is not None and args.workers < 1:
        raise UsageError("--workers must be at least 1")
    settings = RolloutSettings(
        trials=args.trials,
        truncate=args.truncate,
        plies=args.ply,
        cubeful=args.cubeful or args.cube,
        variance_reduction=args.variance_reduction,
        quasi_random=args.quasi_random,
        seed=args.seed,
        target_se=args.target_se,
        bearoff_truncation=args.bearoff_truncation,
        prune=args.prune,
    )
    to_stdout = args.json == "-"
    err = Console(stderr=True)
    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=err,
        transient=True,
    ) as bar:
        task = bar.add_task("rolling out", total=settings.trials)
        result = rollout(
            pos,
            state,
            dice=dice,
            cube=args.cube,
            top=args.top,
            settings=settings,
            workers=args.workers,
            ray_address=args.ray,
            progress=lambda done, total: bar.update(task, completed=done),
            partial=True,
        )
    action = proper(result, state) if args.cube else None
    if args.json:
        data = result.to_json()
        if action is not None:
            data["proper"] = action
        text = json.dumps(data, indent=2)
        if to_stdout:
            sys.stdout.write(text + "\n")
        else:
            Path(args.json).write_text(text + "\n", encoding="utf-8")
    if not to_stdout:
        Console().print(_table(result, not state.is_money, args.cube))
        if action is not None:
            Console().print(f"Proper cube action: {action}", markup=False)
    if result.interrupted:
        print(f"backgammon rollout: interrupted after {result.trials} trials", file=sys.stderr)
        return 130
    return 0

"""``backgammon rollout ID``: roll out a position, the plays of a roll or a cube decision,
with a progress bar, a table of candidates and their standard errors, and JSON."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich import box
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn
from rich.table import Table

from backgammon.cli.engines import add_engine_option, our_plies
from backgammon.cli.errors import UsageError, dice_seed, output_path, positive
from backgammon.cli.positions import parse_dice, position_from_text
from backgammon.cli.render import signed
from backgammon.players import CubeState

if TYPE_CHECKING:
    from backgammon.judging.rollout import RolloutResult

__all__ = ["add_parser", "rollout_command"]


def add_parser(sub: Any) -> None:
    """Add the ``rollout`` subcommand and its options to ``sub`` (argparse subparsers)."""
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

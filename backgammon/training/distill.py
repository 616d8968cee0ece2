"""Second training stage: teach the 0-ply nets what our own lookahead or rollouts say.

TD(lambda) self-play (:mod:`backgammon.training.td`) plateaus; the 1-ply search built on
the same nets plays clearly better.  This stage plays self-play games with the current nets,
keeps the positions reached (and a few of the plays not chosen, so that the net learns to
rank candidates), labels each with its 1- or 2-ply evaluation or a rollout, and fits the
nets to those labels (optionally also to their equity differences between the plays of one
roll, which are what choosing a play depends on).  Everything comes from our own nets and
move generator: no gnubg data or weights.  The commands (fitting is
:mod:`backgammon.training.fit`)::

    backgammon distill generate --weights W --games N --seed S --out D.npz
    backgammon distill generate ... --rollout-trials 36 --truncate 7   # rollout labels
    backgammon distill relabel --weights W --data D.npz --share 0.05 --out D2.npz
    backgammon distill relabel ... --workers 2   # or --ray ADDRESS: rollouts on a cluster
    backgammon distill fit --weights W --data D1.npz D2.npz --out NEW.npz [--rank 64]
    backgammon distill average --weights W1 --with W2 W3 --out SOUP.npz
    backgammon distill calibrate --weights W --data ROLLED.npz --outputs backgammon --out NEW.npz
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

import numpy as np
import numpy.typing as npt
from threadpoolctl import threadpool_limits

from backgammon.core.position import Position
from backgammon.core.values import Move, iter_rolls, iter_weighted_rolls
from backgammon.evaluation.bearoff import BearoffDatabase, is_bearoff
from backgammon.evaluation.cube import CubeState
from backgammon.evaluation.encode import (
    CLASSES,
    INPUT_VERSIONS,
    boards_array,
    class_masks,
    is_back_game,
)
from backgammon.evaluation.evaluator import CompositeEvaluator
from backgammon.evaluation.net import NETS, NetPair
from backgammon.evaluation.probabilities import (
    OUTPUT_NAMES,
    cubeless_equity,
    flip_probs,
)
from backgammon.evaluation.search import Searcher, best_in_segments, roll_boards_many
from backgammon.judging.rollout.engine import (
    Candidate,
    RolloutJob,
    RolloutSettings,
    RolloutSettingsError,
)
from backgammon.judging.rollout.local import Backend, InProcess
from backgammon.judging.rollout.run import backend_for, batches
from backgammon.players import get
from backgammon.training.fit import FitDataError, average, calibrate, fit
from backgammon.training.nets import widen, with_inputs
from backgammon.training.selfplay import Choose, greedy_game, player_chooser

__all__ = [
    "ROLLOUT_POSITIONS",
    "Generated",
    "RelabelError",
    "gammon_race_mask",
    "generate",
    "main",
    "one_ply",
    "opponent_chooser",
    "relabel",
    "rolled_out",
    "two_ply",
]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

_ROLLS = list(iter_rolls())
_ROLL_WEIGHTS = np.array([w for _a, _b, w in iter_weighted_rolls()]) / 36.0


class RelabelError(ValueError):
    """A share of positions to relabel outside [0, 1], or labels not matching the boards."""


class Generated(NamedTuple):
    """Labelled self-play positions: the boards (side on roll), their labels, and for each
    the number of the decision (one side's roll) whose candidate play it is, counted from 0
    and ascending, so that the plays of one roll can be compared with each other."""

    boards: IntArray
    probs: FloatArray
    groups: IntArray


def _best_replies(searcher: Searcher, positions: Sequence[Position]) -> tuple[IntArray, FloatArray]:
    """For each position and each of the 21 rolls, the board after the best play at 0-ply
    (opponent on roll; the first best on ties, as the search takes it) and its
    probabilities for the side that played: ``(P, 21, 26)`` and ``(P, 21, 5)``, every
    candidate of every position through the net in one call."""
    boards, counts = roll_boards_many(positions)
    probs = searcher.probs_after(boards)
    best = best_in_segments(searcher.equity(probs), counts)
    n = len(positions)
    return boards[best].reshape(n, len(_ROLLS), 26), probs[best].reshape(n, len(_ROLLS), 5)


def zero_ply(searcher: Searcher, positions: Sequence[Position]) -> FloatArray:
    """The evaluator's own probabilities of ``positions``: labels that teach nothing new, mixed
    into a fit aimed at one kind of position to keep the net elsewhere as it is."""
    return searcher.evaluator.evaluate(boards_array(p.board for p in positions))


def one_ply(searcher: Searcher, positions: Sequence[Position]) -> FloatArray:
    """The 1-ply probabilities of each position for its side on roll, all in one batch,
    blended with the 0-ply ones by the searcher's ``odd_blend``.

    The same as ``searcher.evaluate(pos, 1)`` for each position.
    """
    _, best = _best_replies(searcher, positions)
    p = np.asarray(np.einsum("prk,r->pk", best, _ROLL_WEIGHTS))
    if searcher.odd_blend < 1.0:
        zero = searcher.evaluator.evaluate(boards_array(pos.board for pos in positions))
        p = searcher.blend_odd(p, zero)
    return p


def two_ply(searcher: Searcher, positions: Sequence[Position], chunk: int = 1) -> FloatArray:
    """The 2-ply probabilities of each position for its side on roll: for each roll the
    best play at 0-ply, judged by the opponent's 1-ply lookahead.  The same as
    ``searcher.evaluate(pos, 2)`` with one reply looked at deeply (``deep_moves=1``, the
    default), batched ``chunk`` positions at a time (one position's replies are already
    some 7,000 boards: larger batches outgrow the caches and run slower)."""
    out = np.empty((len(positions), 5))
    for lo in range(0, len(positions), chunk):
        part = positions[lo : lo + chunk]
        boards, probs = _best_replies(searcher, part)
        flat = boards.reshape(-1, 26)
        replies = [Position(tuple(row)) for row in flat.tolist()]
        live = [i for i, p in enumerate(replies) if not p.is_game_over()]
        deeper = probs.reshape(-1, 5).copy()  # finished games keep their exact result
        if live:
            deeper[live] = flip_probs(one_ply(searcher, [replies[i] for i in live]))
        out[lo : lo + len(part)] = np.einsum(
            "prk,r->pk", deeper.reshape(len(part), len(_ROLLS), 5), _ROLL_WEIGHTS
        )
    return out


ROLLOUT_POSITIONS = 256
"""Positions rolled out in one lockstep job by :func:`rolled_out`: every trial of a batch
of each looks at all 21 rolls' plays at once, so a few thousand positions would ask for
gigabytes (a 2,077-position file failed so); the labels do not depend on it."""


def rolled_out(
    positions: Sequence[Position],
    settings: RolloutSettings,
    weights: str | None,
    backend: Backend | None = None,
) -> FloatArray:
    """Cubeless probabilities of each position for its side on roll, rolled out by the
    lockstep engine with the nets in ``weights`` (None: the shipped ones): up to
    :data:`ROLLOUT_POSITIONS` positions in one job (which bounds the memory), each getting
    what a rollout of it alone would give (trial i's dice are the same for every position).
    The settings' batches of trials run on ``backend`` (local processes or a Ray cluster;
    None: in this process): the labels are the same, to float32 rounding."""
    if not positions:
        return np.empty((0, 5))
    plain = dataclasses.replace(settings, cubeful=False, target_se=None)
    out = []
    for lo in range(0, len(positions), ROLLOUT_POSITIONS):
        part = positions[lo : lo + ROLLOUT_POSITIONS]
        cands = tuple(Candidate("", p.board, False, CubeState()) for p in part)
        job = RolloutJob(cands, plain, weights=weights)
        parts = [r.probs for r in (backend or InProcess()).run(job, batches(plain))]
        out.append(np.concatenate(parts, axis=1).mean(axis=1))
    return np.asarray(np.concatenate(out))


def generate(
    searcher: Searcher,
    games: int,
    rng: random.Random,
    alternatives: int = 2,
    among: int = 6,
    chunk: int = 64,
    progress: bool = True,
    plies: int = 1,
    crashed_only: bool = False,
    gammon_races: bool = False,
    back_games: bool = False,
    cube_window: tuple[float, float] | None = None,
    rollout: tuple[RolloutSettings, str | None] | None = None,
    explore: float = 0.0,
    play_plies: int = 0,
    opponent: Choose | None = None,
    backend: Backend | None = None,
    dances: bool = False,
) -> Generated:
    """Self-play ``games`` at 0-ply; return the boards met (side on roll), their
    probabilities at ``plies`` (1 or 2; 0, the net's own, is an anchor that holds a fit
    elsewhere to what the net says now), or, given ``rollout`` (settings and the weights
    rolling out, which should be the searcher's), rolled out: batch k of labels with
    the settings' seed plus k, and the decision each came from.  Besides each position
    played into, ``alternatives`` positions from other plays among the ``among`` best at
    0-ply are kept.  Pure bear-offs are left out (the database is exact there);
    ``crashed_only`` keeps just the crashed contact positions (data for a crashed net: they
    are a few percent of all); ``gammon_races`` just the races in which a side has all 15
    checkers left (where a gammon is still possible, and the race net most often wrong);
    ``back_games`` just the back games (:func:`~backgammon.evaluation.encode.is_back_game`,
    where the contact net misjudges the holder's chances most);
    ``cube_window`` ``(lo, hi)`` just the positions whose side on roll the 0-ply net gives
    from ``lo`` to ``hi`` to win (where cube decisions are made, and judged).
    ``explore`` is the share of turns played at random
    (:func:`~backgammon.training.selfplay.greedy_game`); ``play_plies`` the depth at which the
    games choose their plays (the position played into is then the search's choice, the
    others still among the best at 0-ply); ``opponent`` plays one side of each game in place
    of the searcher (positions from both sides' plays are kept); ``dances`` also keeps the
    position after each turn without a legal play (mostly a checker left on the bar, the
    other side on roll: where a blitz doubles, which self-play otherwise never keeps).
    Positions are labelled in batches of at least ``chunk``; rollouts run on ``backend``
    (see :func:`rolled_out`)."""
    out_boards: list[IntArray] = []
    out_probs: list[FloatArray] = []
    pending: list[Position] = []
    groups: list[int] = []
    decisions = 0
    t0 = time.monotonic()
    total = 0

    def flush() -> None:
        nonlocal total
        if pending:
            out_boards.append(boards_array(p.board for p in pending).astype(np.int8))
            if rollout is not None:
                settings = dataclasses.replace(rollout[0], seed=rollout[0].seed + len(out_probs))
                labels = rolled_out(pending, settings, rollout[1], backend)
            else:
                labels = (zero_ply, one_ply, two_ply)[plies](searcher, pending)
            out_probs.append(labels.astype(np.float32))
            total += len(pending)
            pending.clear()

    def keep(after: IntArray, eq: FloatArray, best: int) -> None:
        nonlocal decisions
        order = np.argsort(-eq, kind="stable")
        others = [int(i) for i in order[:among] if i != best][: among - 1]
        rng.shuffle(others)
        kept = [Position(tuple(after[i].tolist())) for i in [best, *others[:alternatives]]]
        b = boards_array(p.board for p in kept)
        drop = is_bearoff(b)
        if crashed_only:
            drop |= ~class_masks(b)["crashed"]
        if gammon_races:
            drop |= ~gammon_race_mask(b)
        if back_games:
            drop |= ~is_back_game(b)
        if cube_window is not None:
            win = searcher.evaluator.evaluate(b)[:, 0]
            drop |= (win < cube_window[0]) | (win > cube_window[1])
        live = [p for p, x in zip(kept, drop, strict=True) if not x and not p.is_game_over()]
        pending.extend(live)
        groups.extend([decisions] * len(live))
        decisions += 1

    def search(pos: Position, dice: tuple[int, int], moves: list[Move], best: int) -> int:
        move = searcher.best_move(pos, dice, play_plies, moves)
        return best if move is None else moves.index(move)

    for game in range(games):
        greedy_game(
            rng,
            searcher.probs_after,
            keep,
            explore,
            search if play_plies else None,
            opponent,
            dances,
        )
        if len(pending) >= chunk:
            flush()
        if progress and (game + 1) % 10 == 0:
            rate = total / (time.monotonic() - t0)
            print(
                f"\rgame {game + 1}/{games}  {total} positions  {rate:.0f} positions/s",
                end="",
                file=sys.stderr,
                flush=True,
            )
    flush()
    if progress:
        print(file=sys.stderr)
    if not out_boards:  # no position kept (a filter can keep none): an empty file, not a crash
        out_boards, out_probs = [np.empty((0, 26), np.int8)], [np.empty((0, 5), np.float32)]
    return Generated(
        np.concatenate(out_boards), np.concatenate(out_probs), np.array(groups, dtype=np.int64)
    )


def gammon_race_mask(b: IntArray) -> npt.NDArray[np.bool_]:
    """Which boards are races (not pure bear-offs) in which a side has all 15 checkers
    left: a gammon is still possible there."""
    fifteen = (np.maximum(b, 0).sum(axis=1) == 15) | (np.maximum(-b, 0).sum(axis=1) == 15)
    return np.asarray(class_masks(b)["race"] & ~is_bearoff(b) & fifteen)


def opponent_chooser(spec: str) -> Choose:
    """The opponent of ``generate --opponent``: a weights file (``.npz``: its nets at 0-ply)
    or a player's name (:func:`backgammon.players.get`); an unknown one raises
    :class:`~backgammon.players.UnknownPlayerError`."""
    if spec.endswith(".npz"):
        return player_chooser(get("neural", weights=spec))
    return player_chooser(get(spec))


def relabel(
    ev: NetPair,
    boards: IntArray,
    probs: FloatArray,
    share: float,
    settings: RolloutSettings,
    weights: str | None,
    only: Sequence[str] = (),
    backend: Backend | None = None,
) -> tuple[FloatArray, IntArray]:
    """``probs`` with the ``share`` of positions where the nets' 0-ply equity is furthest
    from the label replaced by their rollouts, and which positions those are (ascending).
    On a round labelled by deeper search this picks where 0-ply and lookahead disagree
    most: there the 0-ply net is most often wrong, so rollouts buy most there.  ``only``
    (class names of :func:`~backgammon.evaluation.encode.class_masks`) restricts the choice,
    and the share, to positions of those classes.  Rollouts run on ``backend`` (see
    :func:`rolled_out`)."""
    if not 0.0 <= share <= 1.0:
        raise RelabelError(f"the share of positions to roll out must be in [0, 1], not {share}")
    if boards.ndim != 2 or boards.shape[1] != 26 or probs.shape != (len(boards), 5):
        raise RelabelError(f"{probs.shape} labels do not match {boards.shape} boards")
    b = boards.astype(np.int64)
    classes = class_masks(b)
    unknown = sorted(set(only) - set(classes))
    if unknown:
        raise RelabelError(f"no class of positions is called {' or '.join(unknown)}")
    eligible = np.logical_or.reduce([classes[c] for c in only]) if only else np.ones(len(b), bool)
    gap = np.abs(cubeless_equity(ev.evaluate(b)) - cubeless_equity(probs.astype(np.float64)))
    order = np.flatnonzero(eligible)[np.argsort(-gap[eligible], kind="stable")]
    chosen = np.sort(order[: round(share * len(order))])
    out = probs.copy()
    picked = [Position(tuple(b[i].tolist())) for i in chosen]
    out[chosen] = rolled_out(picked, settings, weights, backend)
    return out, chosen


def _rollout_settings(args: argparse.Namespace) -> RolloutSettings:
    """The label rollouts the command line asks for: cubeless, ended at a bear-off (the
    database knows it exactly), the trials in batches of ``--rollout-batch`` (by default
    split evenly over the local ``--workers``)."""
    if args.workers < 1:
        raise RolloutSettingsError(f"workers must be >= 1, got {args.workers}")
    trials = args.rollout_trials
    batch = args.rollout_batch or max(1, -(-trials // args.workers))
    return RolloutSettings(
        trials=trials, truncate=args.truncate, batch=batch, seed=args.seed, bearoff_truncation=True
    )


def _add_backend_arguments(parser: argparse.ArgumentParser) -> None:
    """Where label rollouts run: local processes or a Ray cluster."""
    parser.add_argument(
        "--workers", type=int, default=1, help="local processes rolling out (1: this one)"
    )
    parser.add_argument(
        "--ray", metavar="ADDRESS", help="roll out on this Ray cluster (auto, local, host:port)"
    )
    parser.add_argument(
        "--rollout-batch",
        type=int,
        default=0,
        help="trials per task (default: the trials split over --workers); labels do not change",
    )


def _share(text: str) -> float:
    """A number from 0 to 1 (argparse type)."""
    try:
        x = float(text)
    except ValueError:
        x = -1.0
    if not 0.0 <= x <= 1.0:
        raise argparse.ArgumentTypeError(f"a share from 0 to 1, not {text!r}")
    return x


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m backgammon.training.distill generate|relabel|fit``."""
    ap = argparse.ArgumentParser(prog="backgammon distill", description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("generate", help="self-play positions labelled at 1-ply")
    g.add_argument("--weights", type=Path, required=True)
    g.add_argument("--games", type=int, required=True)
    g.add_argument("--seed", type=int, default=1)
    g.add_argument("--out", type=Path, required=True)
    g.add_argument(
        "--plies",
        type=int,
        choices=(0, 1, 2),
        default=1,
        help="depth of the labels (0: the net's own, to hold a fit elsewhere)",
    )
    g.add_argument(
        "--odd-blend",
        type=_share,
        default=1.0,
        help="1-ply labels: the 1-ply's weight against the 0-ply's (0.5: the player's 1-ply)",
    )
    g.add_argument("--alternatives", type=int, default=2, help="plays not chosen kept per position")
    g.add_argument(
        "--rollout-trials",
        type=int,
        default=0,
        help="label by cubeless 0-ply rollouts of this many trials (variance-reduced)",
    )
    g.add_argument("--truncate", type=int, default=7, help="plies a rollout label plays")
    g.add_argument(
        "--crashed-only", action="store_true", help="keep only crashed contact positions"
    )
    g.add_argument(
        "--gammon-races",
        action="store_true",
        help="keep only races in which a side has borne nothing off",
    )
    g.add_argument(
        "--back-games",
        action="store_true",
        help="keep only back games: a side holding two home points of its opponent's, behind",
    )
    g.add_argument(
        "--cube-window",
        type=float,
        nargs=2,
        metavar=("LO", "HI"),
        help="keep only positions whose side on roll the net gives LO to HI to win",
    )
    g.add_argument(
        "--explore", type=float, default=0.0, help="share of turns played at random (0-1)"
    )
    g.add_argument(
        "--play-plies", type=int, choices=(0, 1, 2), default=0, help="depth the games play at"
    )
    g.add_argument(
        "--opponent",
        help="a player (pubeval) or weights file (its 0-ply) playing one side of each game",
    )
    g.add_argument(
        "--dances",
        action="store_true",
        help="also keep the position after each turn a side cannot play (a blitz's cube)",
    )
    _add_backend_arguments(g)
    r = sub.add_parser("relabel", help="roll out the labels 0-ply disagrees with most")
    r.add_argument("--weights", type=Path, required=True)
    r.add_argument("--data", type=Path, required=True)
    r.add_argument("--share", type=float, required=True, help="share of positions rolled out")
    r.add_argument("--rollout-trials", type=int, default=18)
    r.add_argument("--truncate", type=int, default=0, help="plies a rollout plays (0: to the end)")
    r.add_argument("--seed", type=int, default=1)
    r.add_argument("--out", type=Path, required=True)
    r.add_argument(
        "--only",
        nargs="+",
        choices=CLASSES,
        default=(),
        help="roll out only positions of these classes (the share is of those)",
    )
    _add_backend_arguments(r)
    a = sub.add_parser("average", help="average the weights of nets of one shape")
    a.add_argument("--weights", type=Path, required=True)
    a.add_argument("--with", dest="others", type=Path, nargs="+", required=True)
    a.add_argument("--out", type=Path, required=True)
    c = sub.add_parser("calibrate", help="refit the scale and shift of chosen outputs")
    c.add_argument("--weights", type=Path, required=True)
    c.add_argument("--data", type=Path, nargs="+", required=True)
    c.add_argument("--out", type=Path, required=True)
    c.add_argument("--outputs", nargs="+", choices=OUTPUT_NAMES, default=list(OUTPUT_NAMES))
    c.add_argument(
        "--only",
        nargs="+",
        choices=NETS,
        default=("contact",),
        help="calibrate just these nets, each on the positions it judges",
    )
    f = sub.add_parser("fit", help="fit the nets to generated data")
    f.add_argument("--weights", type=Path, required=True)
    f.add_argument("--data", type=Path, nargs="+", required=True)
    f.add_argument("--out", type=Path, required=True)
    f.add_argument("--epochs", type=int, default=20)
    f.add_argument("--lr", type=float, default=1e-3, help="Adam's step size (halved 3 times)")
    f.add_argument("--batch", type=int, default=128)
    f.add_argument("--seed", type=int, default=1)
    f.add_argument(
        "--rank",
        type=float,
        default=0.0,
        help="weight of the loss on equity differences between the plays of one roll",
    )
    f.add_argument("--hidden", type=int, default=0, help="widen the contact net to this many")
    f.add_argument("--race-hidden", type=int, default=0, help="widen the race net to this many")
    f.add_argument(
        "--crashed",
        action="store_true",
        help="add a net for crashed positions, started as a copy of the contact net",
    )
    f.add_argument(
        "--back",
        action="store_true",
        help="add a net for back games, started as a copy of the contact net",
    )
    f.add_argument(
        "--only",
        nargs="+",
        choices=NETS,
        default=(),
        help="fit just these nets (the others are kept as they are)",
    )
    f.add_argument(
        "--inputs",
        type=int,
        choices=INPUT_VERSIONS,
        default=0,
        help="first move the nets to this (longer) input layout, the new inputs unweighted",
    )
    args = ap.parse_args(argv)
    threadpool_limits(limits=1)
    ev = NetPair.load(args.weights)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    if args.cmd == "generate":
        searcher = Searcher(
            CompositeEvaluator(ev, BearoffDatabase.load()), odd_blend=args.odd_blend
        )
        rollout, backend = None, None
        if args.rollout_trials:
            rollout = (_rollout_settings(args), str(args.weights))
            backend = backend_for(args.workers, args.ray)
        made = generate(
            searcher,
            args.games,
            random.Random(args.seed),
            alternatives=args.alternatives,
            plies=args.plies,
            crashed_only=args.crashed_only,
            gammon_races=args.gammon_races,
            back_games=args.back_games,
            cube_window=None if args.cube_window is None else tuple(args.cube_window),
            rollout=rollout,
            explore=args.explore,
            play_plies=args.play_plies,
            opponent=None if args.opponent is None else opponent_chooser(args.opponent),
            backend=backend,
            dances=args.dances,
        )
        np.savez_compressed(args.out, **made._asdict())
        print(f"saved {len(made.boards)} positions to {args.out}")
        return 0
    if args.cmd == "relabel":
        with np.load(args.data) as data:
            kept = {k: data[k] for k in data.files}
        settings = _rollout_settings(args)
        kept["probs"], chosen = relabel(
            ev,
            kept["boards"],
            kept["probs"],
            args.share,
            settings,
            str(args.weights),
            args.only,
            backend_for(args.workers, args.ray),
        )
        np.savez_compressed(args.out, **kept)
        print(f"rolled out {len(chosen)} of {len(kept['boards'])} positions into {args.out}")
        return 0
    if args.cmd == "average":
        others = [NetPair.load(p) for p in args.others]
        soup = average([ev, *others])
        shared = len(ev.meta.get("history", []))  # each other net's own steps follow it
        soup.meta.setdefault("history", []).append(
            {
                "average": [str(p) for p in (args.weights, *args.others)],
                "steps": [o.meta.get("history", [])[shared:] for o in others],
                "argv": sys.argv[1:],
            }
        )
        soup.save(args.out)
        print(f"saved {args.out}")
        return 0
    parts = [np.load(p) for p in args.data]
    for path, part in zip(args.data, parts, strict=True):
        absent = sorted({"boards", "probs"} - set(part.files))
        if absent:
            raise FitDataError(f"{path} has no {' or '.join(absent)}: not a data file")
    boards = np.concatenate([p["boards"] for p in parts])
    probs = np.concatenate([p["probs"] for p in parts])
    if args.cmd == "calibrate":
        b = boards.astype(np.int64)
        x, race = ev.encode(b)
        nets = ev.masks(b, race)
        absent = sorted(set(args.only) - {name for name, _, _ in nets})
        if absent:
            raise FitDataError(f"{args.weights} has no {' or '.join(absent)} net to calibrate")
        outputs = [OUTPUT_NAMES.index(o) for o in args.outputs]
        for name, net, mask in nets:
            if name in args.only:
                setattr(ev, name, calibrate(net, x[mask], probs[mask].astype(np.float64), outputs))
        ev.meta.setdefault("history", []).append(
            {"calibrate": [str(p) for p in args.data], "argv": sys.argv[1:]}
        )
        ev.save(args.out)
        print(f"saved {args.out}")
        return 0
    groups: IntArray | None = None
    if args.rank:
        missing = [str(p) for p, d in zip(args.data, parts, strict=True) if "groups" not in d]
        if missing:
            raise FitDataError(f"--rank needs decision groups, which {missing} do not record")
        # numbered file by file from 0: shift each file's past the previous ones'
        shifted, start = [], 0
        for d in parts:
            shifted.append(d["groups"].astype(np.int64) + start)
            start = int(shifted[-1].max(initial=start - 1)) + 1
        groups = np.concatenate(shifted)
    if args.inputs:
        ev = with_inputs(ev, args.inputs)
    if args.hidden:
        ev.contact = widen(ev.contact, args.hidden, np.random.default_rng(args.seed))
        ev.meta["hidden"] = args.hidden
    if args.race_hidden:
        ev.race = widen(ev.race, args.race_hidden, np.random.default_rng(args.seed))
        ev.meta["race_hidden"] = args.race_hidden
    if args.crashed and ev.crashed is None:
        ev.crashed = ev.contact.copy()
    if args.back and ev.back is None:
        ev.back = ev.contact.copy()
    fit(
        ev,
        boards,
        probs,
        args.epochs,
        args.lr,
        args.batch,
        args.seed,
        only=args.only,
        groups=groups,
        rank=args.rank,
    )
    history = ev.meta.setdefault("history", [])
    history.append({"distill": [str(p) for p in args.data], "argv": sys.argv[1:]})
    ev.save(args.out)
    print(f"saved {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

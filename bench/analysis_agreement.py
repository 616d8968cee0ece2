"""Match analysis: ours against GNU Backgammon's on the same matches.

    python bench/analysis_agreement.py [--matches 6] [--length 3] [--ply 2] [--seed 1]
    python bench/analysis_agreement.py --noise 0 --play-plies 2 --gnubg-ply 0  # gnubg at its best
    python bench/analysis_agreement.py --verify "very bad"  # our very bad marks rolled out
    python bench/analysis_agreement.py --weights stage14.npz  # a net not shipped
    python bench/analysis_agreement.py --matches 24 --compare stage14.npz  # two nets, paired

Debian's gnubg plays ``--matches`` matches against itself, each side with its own random
evaluation noise (0 to 0.1, so error rates range widely), analyses each at 2-ply and saves
it as SGF.  We analyse the same files (:func:`backgammon.judging.analysis.analyse` at ``--ply``).
Printed: the correlation of the per-player overall error rates (mEMG per decision), their
mean absolute difference, the share of gnubg's "very bad" marks that we mark bad or very
bad, and the analysis time against gnubg re-analysing the same files at our ply (or
``--gnubg-ply``), as a ratio.
``--method`` also runs our analysis with gnubg's own 0-ply net (gnubg-nn) in place of ours
against gnubg's 0-ply analysis, which separates the method (cubeful values, definitions)
from the net.  ``--noise 0 --play-plies 2`` has gnubg play at its default settings, which
its own 2-ply analysis rates near 0 mEMG: then every error and very bad mark we find is one
gnubg's 2-ply would not (also printed: the very bad marks and mean error rates, with gnubg's
re-analysis at our ply beside them).  The default run takes a few minutes;
``--matches 30 --length 5 --ply 2`` is the full one.

A few large decisions move a player's rate, so the mean absolute difference comes with its
standard error over the matches (the sampling error of the files, not of our judge); with
``--compare W`` a second net analyses the same files and the difference of the two nets'
mean absolute differences is printed with its paired standard error, which tells whether
one net judges nearer gnubg's 2-ply or the files merely differ.

``--players ours`` has our 0-ply bot play the matches instead, each side with a noise drawn
as gnubg's players' (gnubg adds it to each of its five outputs, about sqrt(8) times as much
to the equity, so :class:`NoisyBot` adds that to each play's and cube action's value), and
gnubg analyses them at 2-ply: each program's judge measured on the other's play as well as
its own.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from gnubg_reference import GnubgNet
from records_helpers import run_gnubg

from backgammon import Position
from backgammon.cli.handlers import play_bots
from backgammon.cli.records import write_mat
from backgammon.core.values import Move
from backgammon.evaluation.cube import (
    CubeDecision,
    CubeState,
    decision_from_values,
    double_pass_value,
    to_emg,
)
from backgammon.evaluation.search import Searcher
from backgammon.judging.analysis import analyse
from backgammon.judging.results import Analysis
from backgammon.play.record import (
    Action,
    Beaver,
    Double,
    Drop,
    GameStart,
    MatchRecord,
    OpeningRoll,
    Pass,
    Play,
    Raccoon,
    Resign,
    Roll,
    Take,
)
from backgammon.players.neural import NeuralPlayer
from backgammon.records import mat, sgf

NOISES = [0.0, 0.01, 0.02, 0.04, 0.06, 0.1]
"""The evaluation noises gnubg's players draw from by default (error rates range widely)."""

_NODE = re.compile(r";([BW])\[([^\]]*)\]([^;()]*)")
_RATE = re.compile(r"^Error rate mEMG \(MWC\)\s+(-?[\d.]+)\s+\([^)]*\)\s+(-?[\d.]+)")
_TOTAL = re.compile(r"^Error total EMG \(MWC\)\s+(-?[\d.]+)\s+\([^)]*\)\s+(-?[\d.]+)")


def gnubg(commands: list[str]) -> tuple[str, float]:
    """Run gnubg on ``commands``; its output and seconds."""
    start = time.perf_counter()
    out = run_gnubg(commands, timeout=3600)
    return out, time.perf_counter() - start


def play_and_analyse(
    folder: Path,
    n: int,
    length: int,
    seed: int,
    noises: list[float] = NOISES,
    plies: int = 0,
) -> list[tuple[Path, list[float], list[float]]]:
    """gnubg plays (at ``plies``, each side with a noise drawn from ``noises``) and
    analyses (2-ply) ``n`` matches; each file, gnubg's overall error rates (mEMG, player 0
    then player 1) and its error totals (EMG: checker plays, then cube decisions, both
    players)."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        path = folder / f"m{i}.sgf"
        cmds = [
            f"set seed {rng.randrange(1 << 30)}",
            "set automatic game on",
            "set automatic roll on",
        ]
        for p in (0, 1):
            noise = rng.choice(noises)
            cmds += [
                f"set player {p} gnubg",
                f"set player {p} chequerplay evaluation plies {plies}",
                f"set player {p} cubedecision evaluation plies {plies}",
                f"set player {p} chequerplay evaluation noise {noise}",
                f"set player {p} cubedecision evaluation noise {noise}",
            ]
        cmds += [
            f"new match {length}",
            "set analysis chequerplay evaluation plies 2",
            "set analysis cubedecision evaluation plies 2",
            "analyse match",
            "show statistics match",
            f"save match {path}",
            f"export match mat {path.with_suffix('.mat')}",
        ]
        out.append(_analysed(gnubg(cmds)[0], path, i))
    return out


def _analysed(text: str, path: Path, i: int) -> tuple[Path, list[float], list[float]]:
    """gnubg's overall error rates and error totals of match ``i`` from its statistics."""
    rates = [line for line in text.splitlines() if line.startswith("Error rate mEMG")]
    m = _RATE.match(rates[-1]) if rates else None  # the last one is the overall rate
    if m is None or not path.exists():
        raise SystemExit(f"gnubg did not analyse match {i}")
    totals = [_TOTAL.match(line) for line in text.splitlines()]
    checker, cube = [t for t in totals if t][-3:-1]  # checker, cube, overall of the match
    sums = [-float(checker.group(1)) - float(checker.group(2))]
    sums.append(-float(cube.group(1)) - float(cube.group(2)))
    return path, [-float(m.group(1)), -float(m.group(2))], sums


class NoisyBot(NeuralPlayer):
    """Our 0-ply bot choosing by values with Gaussian noise, as gnubg's noisy players do:
    gnubg's ``noise`` per output is about ``sqrt(8) * noise`` on the equity, ``sigma`` here
    (in EMG), and its own ``rng``, are set before each match."""

    def __init__(self) -> None:
        super().__init__(0)
        self.sigma, self.rng = 0.0, random.Random()

    def _scale(self, cube: CubeState | None) -> float:
        """The noise in the units of the values at ``cube``: EMG is money equity, or an MWC
        mapped linearly (:func:`to_emg`), so one slope converts it."""
        if cube is None or cube.is_money:
            return self.sigma
        return self.sigma / float(np.diff(to_emg(np.array([0.0, 1.0]), cube, self.met))[0])

    def choose_move(
        self, position: Position, dice: Sequence[int], cube: CubeState | None = None
    ) -> Move | None:
        if self.sigma == 0.0 or len(position.legal_moves(dice)) <= 1:
            return super().choose_move(position, dice, cube)
        ranked = self.searcher.rank_cubeful(position, dice, cube, 0)
        scale = self._scale(cube)
        return max(ranked, key=lambda r: r[2] + self.rng.gauss(0.0, scale))[0]

    def cube_decision(
        self, position: Position, cube: CubeState, plies: int | None = None
    ) -> CubeDecision:
        if self.sigma == 0.0:
            return super().cube_decision(position, cube, plies)
        _, v = self.searcher.cubeful(position, [cube, cube.doubled()], 0, top=True)
        scale = self._scale(cube)
        nd, dt = (float(x) + self.rng.gauss(0.0, scale) for x in v)
        dt *= 2.0 if cube.is_money else 1.0
        return decision_from_values(nd, dt, double_pass_value(cube, self.met), cube)


def our_matches(
    folder: Path, n: int, length: int, seed: int, noises: list[float]
) -> list[tuple[Path, list[float], list[float]]]:
    """:class:`NoisyBot` plays ``n`` matches against itself (noises drawn from ``noises``,
    dice from ``seed``); gnubg analyses each at 2-ply, as :func:`play_and_analyse`."""
    rng = random.Random(seed)
    bots = (NoisyBot(), NoisyBot())
    names = ("ours-1", "ours-2")
    out = []
    for i in range(n):
        for bot in bots:
            bot.sigma = rng.choice(noises) * 8**0.5
            bot.rng = random.Random(rng.random())
        match = play_bots(bots, length, seed * 1_000_003 + i, names)
        path = folder / f"m{i}.sgf"
        write_mat(match, path.with_suffix(".mat"), names)
        cmds = [
            f"import mat {path.with_suffix('.mat')}",
            "set analysis chequerplay evaluation plies 2",
            "set analysis cubedecision evaluation plies 2",
            "analyse match",
            "show statistics match",
            f"save match {path}",
        ]
        out.append(_analysed(gnubg(cmds)[0], path, i))
    return out


def gnubg_rates(files: list[str], ply: int) -> tuple[list[float], float]:
    """gnubg's overall error rates (mEMG, two per file) analysing at ``ply``; its seconds."""
    cmds = [
        f"set analysis chequerplay evaluation plies {ply}",
        f"set analysis cubedecision evaluation plies {ply}",
    ]
    for f in files:
        load = f"import mat {f}" if f.endswith(".mat") else f"load match {f}"
        cmds += [load, "analyse match", "show statistics match"]
    text, seconds = gnubg(cmds)
    found = [_RATE.match(line) for line in text.splitlines() if line.startswith("Error rate")]
    overall = [m for m in found if m][2::3]  # checker, cube, overall for each file
    return [-float(v) for m in overall for v in (m.group(1), m.group(2))], seconds


def gnubg_nodes(
    text: str, record: MatchRecord
) -> Iterator[tuple[int, int, Action, tuple[int, int] | None, str]]:
    """Each checker play and cube action of a saved SGF with its node's properties (gnubg's
    analysis), keyed like our decisions: (game, .mat row, the record's entry, the dice of a
    play, properties)."""
    trees = text.split("(;FF[4]")[1:]
    games = [g for g in record.games if mat.rows(g)]
    for tree, game in zip(trees, games, strict=False):
        nodes = [n for n in _NODE.finditer(tree)]
        start = game[0]
        assert isinstance(start, GameStart)
        dice: dict[int, tuple[int, int]] = {}
        last: tuple[int, int] | None = None
        for a in game:
            if isinstance(a, OpeningRoll | Roll):
                last = a.dice
            elif isinstance(a, Play) and last is not None:
                dice[id(a)] = last
        acts = [
            (a, r)
            for a, r in mat.rows(game)
            if not isinstance(a, Resign) and not (isinstance(a, Pass) and a.dice is None)
        ]
        if len(nodes) != len(acts):
            continue
        for node, (action, row) in zip(nodes, acts, strict=True):
            yield start.game, row, action, dice.get(id(action)), node.group(3)


def gnubg_marks(text: str, record: MatchRecord) -> dict[tuple[int, int, int, str], str]:
    """gnubg's marks on the checker plays and cube actions of a saved SGF, keyed like our
    decisions: (game, .mat row, player, kind)."""
    marks: dict[tuple[int, int, int, str], str] = {}
    for game, row, action, _, props in gnubg_nodes(text, record):
        if not isinstance(action, Play | Double | Beaver | Raccoon | Take | Drop):
            continue
        word = "very bad" if "BM[2]" in props else "bad" if "BM[1]" in props else ""
        word = word or ("doubtful" if "DO[]" in props else "")
        kind = (
            "checker"
            if isinstance(action, Play)
            else ("double" if isinstance(action, Double | Beaver | Raccoon) else "take")
        )
        marks[(game, row, action.player, kind)] = word
    return marks


def mean_abs_difference(
    theirs: np.ndarray, ours: np.ndarray, base: np.ndarray | None = None
) -> tuple[float, float]:
    """The mean absolute difference of per-player rates (two players a match, in file order)
    and its standard error over the matches; with ``base``, the same for ``ours`` less
    ``base`` match by match (the paired comparison of two judges of the same files)."""
    per_match = np.abs(ours - theirs).reshape(-1, 2).sum(axis=1) / 2.0
    if base is not None:
        per_match = per_match - np.abs(base - theirs).reshape(-1, 2).sum(axis=1) / 2.0
    n = len(per_match)
    se = float(per_match.std(ddof=1) / np.sqrt(n)) if n > 1 else float("nan")
    return float(per_match.mean()), se


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--matches", type=int, default=6)
    ap.add_argument("--length", type=int, default=3)
    ap.add_argument("--ply", type=int, default=2, help="our analysis depth (gnubg's is 2)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--method", action="store_true", help="also with gnubg's net, at 0-ply")
    ap.add_argument(
        "--noise", type=float, nargs="+", default=NOISES, help="gnubg players' noises to draw"
    )
    ap.add_argument("--play-plies", type=int, default=0, help="gnubg players' depth")
    ap.add_argument(
        "--players", choices=["gnubg", "ours"], default="gnubg", help="who plays the matches"
    )
    ap.add_argument("--list", action="store_true", help="print each play we mark very bad")
    ap.add_argument(
        "--verify",
        choices=["doubtful", "bad", "very bad"],
        default=None,
        help="roll out again the decisions we mark this badly or worse",
    )
    ap.add_argument(
        "--prune", type=int, default=None, help="plays a roll the full net judges (0: all)"
    )
    ap.add_argument(
        "--gnubg-ply", type=int, default=None, help="gnubg's re-analysis depth (ours by default)"
    )
    ap.add_argument("--weights", type=Path, default=None, help="a .npz other than the shipped one")
    ap.add_argument("--compare", type=Path, default=None, help="a second net on the same files")
    args = ap.parse_args()
    options = {} if args.prune is None else {"prune": args.prune}
    bot = NeuralPlayer(0, weights=args.weights, **options)
    other = None if args.compare is None else NeuralPlayer(0, weights=args.compare, **options)
    compared: list[float] = []
    theirs: list[float] = []
    ours: list[float] = []
    totals = np.zeros((2, 2))  # gnubg's and ours: checker plays, cube decisions (EMG)
    very_bad = matched = our_very_bad = decisions = 0
    our_seconds = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        if args.players == "ours":
            games = our_matches(Path(tmp), args.matches, args.length, args.seed, args.noise)
        else:
            games = play_and_analyse(
                Path(tmp), args.matches, args.length, args.seed, args.noise, args.play_plies
            )
        for path, rates, sums in games:
            text = path.read_text(encoding="utf-8")
            record = sgf.read_record(text)
            start = time.perf_counter()
            result: Analysis = analyse(record, bot, args.ply, verify=args.verify)
            our_seconds += time.perf_counter() - start
            by_name = {p.name: 1000.0 * p.overall_rate for p in result.players}
            theirs += rates
            ours += [by_name[record.players[0]], by_name[record.players[1]]]
            totals[0] += sums
            totals[1] += [
                sum(p.checker_error for p in result.players),
                sum(p.cube_error for p in result.players),
            ]
            mine = {(d.game, d.move, d.player, d.kind): d.mark for d in result.decisions}
            our_very_bad += sum(d.mark == "very bad" for d in result.decisions)
            for d in result.decisions if args.list else ():
                if d.mark == "very bad":
                    print(
                        f"  very bad: {d.gnubg_id} {d.kind} {d.played!r}, best {d.best!r}, "
                        f"{d.error_emg:.3f} EMG"
                    )
            decisions += len(result.decisions)
            if other is not None:
                again = analyse(record, other, args.ply, verify=args.verify)
                rates_of = {p.name: 1000.0 * p.overall_rate for p in again.players}
                compared += [rates_of[name] for name in record.players]
            for key, word in gnubg_marks(text, record).items():
                if word == "very bad":
                    very_bad += 1
                    matched += mine.get(key, "") in ("bad", "very bad")
        # gnubg keeps its analysis in the SGF and would not redo it: time it on the .mat.
        files = [str(p.with_suffix(".mat")) for p, _, _ in games]
        gnubg_ply = args.ply if args.gnubg_ply is None else args.gnubg_ply
        at_our_ply, gnubg_seconds = gnubg_rates(files, gnubg_ply)
        theirs0: list[float] = []
        ours0: list[float] = []
        if args.method:
            theirs0, _ = gnubg_rates(files, 0)
            gbot = NeuralPlayer(0)
            gbot.evaluator = GnubgNet()
            gbot.searcher = Searcher(gbot.evaluator)
            for path, _, _ in games:
                record = sgf.read_record(path.read_text(encoding="utf-8"))
                judged = analyse(record, gbot, 0)
                by_name = {p.name: 1000.0 * p.overall_rate for p in judged.players}
                ours0 += [by_name[record.players[0]], by_name[record.players[1]]]
    t, o = np.array(theirs), np.array(ours)
    corr = (
        float(np.corrcoef(t, o)[0, 1])
        if len(t) > 2 and t.std() > 0 and o.std() > 0
        else float("nan")
    )
    print(
        f"{args.matches} matches of {args.length} points played by {args.players}, "
        f"gnubg analysing at 2-ply, ours at {args.ply}-ply"
    )
    print(f"per-player error rates (mEMG): gnubg {np.round(t, 1).tolist()}")
    print(f"                               ours  {np.round(o, 1).tolist()}")
    mad, se = mean_abs_difference(t, o)
    print(
        f"correlation {corr:.3f}, mean absolute difference {mad:.2f} mEMG (standard error {se:.2f})"
    )
    if other is not None:
        c = np.array(compared)
        diff, paired = mean_abs_difference(t, c, o)
        print(
            f"--compare {args.compare}: mean absolute difference {mean_abs_difference(t, c)[0]:.2f}"
            f" mEMG ({diff:+.2f} from ours, paired standard error {paired:.2f})"
        )
    share = 100.0 * matched / very_bad if very_bad else float("nan")
    print(f"gnubg's very bad marks we mark bad or very bad: {matched}/{very_bad} ({share:.0f}%)")
    print(
        f"very bad marks: ours {our_very_bad}, gnubg's 2-ply {very_bad}; mean error rate ours "
        f"{o.mean():.1f}, gnubg 2-ply {t.mean():.1f}, gnubg at {gnubg_ply}-ply "
        f"{np.mean(at_our_ply):.1f} mEMG"
    )
    print(
        f"error totals (EMG), checker plays / cube decisions: gnubg 2-ply "
        f"{totals[0, 0]:.2f} / {totals[0, 1]:.2f}, ours {totals[1, 0]:.2f} / {totals[1, 1]:.2f}"
    )
    if args.method:
        t0, o0 = np.array(theirs0), np.array(ours0)
        print(
            f"method (gnubg's 0-ply net in our analysis against gnubg's 0-ply analysis): "
            f"correlation {float(np.corrcoef(t0, o0)[0, 1]):.3f}, "
            f"mean absolute difference {np.abs(t0 - o0).mean():.1f} mEMG"
        )
    print(
        f"analysis time: ours at {args.ply}-ply{' verified' if args.verify else ''} "
        f"{our_seconds:.1f}s, gnubg at {gnubg_ply}-ply {gnubg_seconds:.1f}s, "
        f"ratio {our_seconds / gnubg_seconds:.1f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

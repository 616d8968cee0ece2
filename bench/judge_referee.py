"""A third referee for the judge: gnubg's own rollouts of the checker plays on which our
analysis and gnubg's 2-ply disagree most.

    python bench/judge_referee.py [--matches 6] [--seed 1] [--top 20] [--trials 432]

As in ``bench/analysis_agreement.py``, Debian's gnubg plays noisy 3-point matches against
itself and analyses them at 2-ply; we analyse the same files at our default (2-ply, very bad
plays rolled out).  For the ``--top`` checker plays whose errors differ most (at least
``--min`` EMG), gnubg rolls out the positions after the played play, our best and its own
best: cubeful, its 0-ply bots, to the end, variance reduction and quasi-random dice from
one seed (so the plays meet the same dice).  The rollout's error of the played play (its
best less the played, EMG) says which judge was nearer.  Printed: each decision, then in
how many the rollout is nearer gnubg's 2-ply than ours, the mean distances, and our very
bad marks among them that the rollout puts under 0.06 (a right play called very bad).
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import sys
import tempfile
from pathlib import Path

import numpy as np
from analysis_agreement import gnubg_nodes, play_and_analyse
from rollout import run_gnubg

from backgammon import Position
from backgammon.core.values import Move
from backgammon.ids.gnubg import encode_match_id, split_gnubg_id
from backgammon.judging.analysis import analyse
from backgammon.play.record import Play
from backgammon.players.neural import NeuralPlayer
from backgammon.records import sgf

_ANALYSIS = re.compile(r"A\[(\d+)\]((?:\[[^\]]*\])+)")
_DONE = re.compile(
    r"Rollout done.*?Current Position:.*? CF ([+-][\d.]+)\s+\[.*? CF\s+([\d.]+)\]", re.S
)


@dataclasses.dataclass
class Disagreement:
    """One checker play: the position (gnubg ID, dice), the plays and both judges' errors."""

    gnubg_id: str
    dice: tuple[int, int]
    plays: dict[str, str]  # played, ours (our best), gnubg (gnubg's best)
    ours: float
    theirs: float
    mark: str


def gnubg_play(letters: str, player: int) -> str:
    """An SGF move's from/to letters (gnubg's best in its A property) in our notation."""
    points = [sgf.point_of_letter(c, player) for c in letters]
    return str(Move([(a, b, False) for a, b in zip(points[::2], points[1::2], strict=True)]))


def disagreements(path: Path, bot: NeuralPlayer) -> list[Disagreement]:
    """Every checker play of a match file gnubg analysed, with our error beside its own."""
    text = path.read_text(encoding="utf-8")
    record = sgf.read_record(text)
    judged = analyse(record, bot, 2).decisions
    ours = {(d.game, d.move, d.player, d.kind): d for d in judged}
    out = []
    for game, row, action, dice, props in gnubg_nodes(text, record):
        if not isinstance(action, Play) or dice is None:
            continue
        m = _ANALYSIS.search(props)
        d = ours.get((game, row, action.player, "checker"))
        if m is None or d is None:
            continue
        candidates = re.findall(r"\[([^\]]*)\]", m.group(2))
        equities = [float(c.split()[9]) for c in candidates]
        plays = {
            "played": d.played,
            "ours": d.best,
            "gnubg": gnubg_play(candidates[0].split()[0], action.player),
        }
        theirs = equities[0] - equities[int(m.group(1))]
        out.append(Disagreement(d.gnubg_id, dice, plays, d.error_emg, theirs, d.mark))
    return out


def gnubg_errors(d: Disagreement, trials: int) -> tuple[float, float] | None:
    """gnubg's rollout error of the played play (EMG) and the largest standard error."""
    pos, fields = split_gnubg_id(d.gnubg_id)
    after: dict[str, Position] = {}
    for label, text in d.plays.items():
        try:
            after[label] = pos.play(pos.parse_move(text, d.dice))
        except ValueError:
            continue  # a best play gnubg wrote that we cannot read: left out
    ids = sorted({p.position_id() for p in after.values()})
    reply = dataclasses.replace(
        fields, turn=1 - fields.turn, dice_owner=1 - fields.turn, dice=(), doubled=False
    )
    script = [
        "set threads 1",
        f"set rollout trials {trials}",
        "set rollout truncation enable off",
        "set rollout cubeful on",
        "set rollout varredn on",
        "set rollout quasirandom on",
        "set rollout chequerplay plies 0",
        "set rollout cubedecision plies 0",
        "set rollout later enable off",
        "set rollout seed 1",
    ]
    for pid in ids:
        script += [f"set gnubgid {pid}:{encode_match_id(reply)}", "rollout"]
    _, out = run_gnubg("\n".join(script) + "\n")
    found = list(_DONE.finditer(out))
    if "played" not in after or len(found) != len(ids):
        return None
    # The opponent is on roll after each play: its equity, negated, is the mover's.
    value = {pid: -float(m.group(1)) for pid, m in zip(ids, found, strict=True)}
    played = value[after["played"].position_id()]
    return max(value.values()) - played, max(float(m.group(2)) for m in found)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--matches", type=int, default=6)
    ap.add_argument("--length", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--top", type=int, default=20)
    ap.add_argument("--min", type=float, default=0.08, help="least |difference| kept (EMG)")
    ap.add_argument("--trials", type=int, default=432)
    ap.add_argument("--weights", type=Path, default=None, help="a .npz other than the shipped one")
    args = ap.parse_args()
    bot = NeuralPlayer(0, weights=args.weights)
    found: list[Disagreement] = []
    with tempfile.TemporaryDirectory() as tmp:
        for path, _, _ in play_and_analyse(Path(tmp), args.matches, args.length, args.seed):
            found += disagreements(path, bot)
    found = [d for d in found if abs(d.ours - d.theirs) >= args.min]
    found.sort(key=lambda d: -abs(d.ours - d.theirs))
    rows = []
    for d in found[: args.top]:
        result = gnubg_errors(d, args.trials)
        if result is None:
            print(f"{d.gnubg_id} {d.dice}: no rollout result, left out")
            continue
        rolled, se = result
        rows.append((d.ours, d.theirs, rolled, d.mark))
        print(
            f"{d.gnubg_id} {d.dice[0]}{d.dice[1]} played {d.plays['played']}: error ours "
            f"{d.ours:.3f} ({d.mark or 'no mark'}), gnubg 2-ply {d.theirs:.3f}, gnubg's rollout "
            f"{rolled:.3f} (SE {se:.3f})",
            flush=True,
        )
    if not rows:
        print("no disagreement of that size")
        return 0
    o, t, r = (np.array([row[i] for row in rows]) for i in range(3))
    nearer = int((np.abs(t - r) < np.abs(o - r)).sum())
    wrong = sum(row[3] == "very bad" and row[2] < 0.06 for row in rows)
    print(
        f"{len(rows)} checker plays, |ours - gnubg 2-ply| {np.abs(o - t).min():.3f} to "
        f"{np.abs(o - t).max():.3f} EMG; gnubg's rollouts nearer gnubg's 2-ply in {nearer}, "
        f"nearer ours in {len(rows) - nearer}"
    )
    print(
        f"mean |ours - rollout| {np.abs(o - r).mean():.3f}, |gnubg 2-ply - rollout| "
        f"{np.abs(t - r).mean():.3f}; sums: ours {o.sum():.2f}, gnubg 2-ply {t.sum():.2f}, "
        f"rollout {r.sum():.2f}; our very bad marks the rollout puts under 0.06: {wrong}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

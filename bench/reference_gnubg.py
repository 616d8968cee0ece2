"""gnubg's own rollouts of the reference set, so that it is rolled out by both programs.

    python bench/reference_gnubg.py [FILE ...] [--trials 72] [--truncate N] [--chunk 25] [--out DIR]

For each reference file (``labels/broad/broad-SEED.npz`` by default: the first three seeds),
Debian's ``/usr/games/gnubg`` rolls out every position, cubeless, 0-ply, variance-reduced,
quasi-random dice, to the end (its bear-off databases at the end, as gnubg does by default),
``--chunk`` positions to a gnubg process; ``--truncate N`` stops each trial after N plies
and takes gnubg's 0-ply there (at 5 plies some ten times cheaper, and about as far from the
full rollouts as those are from themselves: docs/training.md). The five probabilities and
their standard errors go to ``DIR/gnubg-SEED.npz`` (``labels/reference`` by default), with
the file's decision groups, written whole when a file is done; a stopped run resumes at the
first chunk without its result (``DIR/gnubg-SEED.part.npz`` holds a file's chunks done so
far).
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from reference_set import REFERENCE_SEEDS
from rollout import run_gnubg

from backgammon.core.position import Position

ROOT = Path(__file__).resolve().parent.parent

_BLOCK = re.compile(
    r"Rollout done.*?Current Position:\s+"
    r"([\d.]+) ([\d.]+) ([\d.]+) - [\d.]+ ([\d.]+) ([\d.]+) CL [+-][\d.]+\s+"
    r"\[([\d.]+) ([\d.]+) ([\d.]+) - [\d.]+ ([\d.]+) ([\d.]+) CL",
    re.S,
)


def script(position_ids: list[str], trials: int, truncate: int = 0) -> str:
    """A gnubg script that rolls out each position in turn, cubeless from the side on roll,
    to the end or ``truncate`` plies deep."""
    if truncate:
        cut = [
            "set rollout truncation enable on",
            f"set rollout truncation plies {truncate}",
            "set rollout truncation chequerplay plies 0",
            "set rollout truncation cubedecision plies 0",
        ]
    else:
        cut = ["set rollout truncation enable off"]
    lines = [
        "set jacoby off",
        f"set rollout trials {trials}",
        *cut,
        "set rollout cubeful off",
        "set rollout varredn on",
        "set rollout quasirandom on",
        "set rollout chequerplay plies 0",
        "set rollout cubedecision plies 0",
        "set rollout later enable off",
        "set rollout seed 1",
        "set threads 1",
        "new game",
        "set turn 1",
    ]
    for pid in position_ids:
        lines += [f"set board {pid}", "rollout"]
    return "\n".join(lines) + "\n"


def roll_out(boards: np.ndarray, trials: int, truncate: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """gnubg's probabilities (win, win g, win bg, lose g, lose bg) and their standard errors."""
    ids = [Position(tuple(int(x) for x in row)).position_id() for row in boards]
    _, out = run_gnubg(script(ids, trials, truncate))
    found = _BLOCK.findall(out)
    if len(found) != len(ids):
        raise RuntimeError(f"{len(found)} rollout results for {len(ids)} positions:\n{out[-2000:]}")
    values = np.array([[float(x) for x in m] for m in found])
    return values[:, :5], values[:, 5:]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="*", type=Path)
    ap.add_argument("--trials", type=int, default=72)
    ap.add_argument("--truncate", type=int, default=0, help="plies a trial; 0: to the end")
    ap.add_argument("--chunk", type=int, default=25)
    ap.add_argument("--out", type=Path, default=ROOT / "labels" / "reference")
    args = ap.parse_args()
    files = args.files or [ROOT / "labels" / "broad" / f"broad-{s}.npz" for s in REFERENCE_SEEDS]
    args.out.mkdir(parents=True, exist_ok=True)
    for f in files:
        target = args.out / f"gnubg-{f.stem.split('-')[-1]}.npz"
        if target.exists():
            continue
        with np.load(f) as d:
            boards = d["boards"].astype(np.int64)
            # a file's own decision groups (the two plays of a roll) or one a position
            groups = d["groups"] if "groups" in d else np.arange(len(boards))
        part = target.with_suffix(".part.npz")  # the chunks done so far, kept across stops
        probs, ses = [np.empty((0, 5))], [np.empty((0, 5))]
        if part.exists():
            with np.load(part) as d:
                probs, ses = [d["probs"].astype(np.float64)], [d["ses"].astype(np.float64)]
        start = time.time()
        for i in range(len(probs[0]), len(boards), args.chunk):
            p, s = roll_out(boards[i : i + args.chunk], args.trials, args.truncate)
            probs.append(p)
            ses.append(s)
            np.savez_compressed(part, probs=np.concatenate(probs), ses=np.concatenate(ses))
            print(f"{f.name}: {i + len(p)}/{len(boards)} ({time.time() - start:.0f} s)", flush=True)
        np.savez_compressed(
            target,
            boards=boards.astype(np.int8),
            probs=np.concatenate(probs).astype(np.float32),
            ses=np.concatenate(ses).astype(np.float32),
            groups=groups.astype(np.int64),  # for distill fit --rank
            trials=np.int64(args.trials),
            truncate=np.int64(args.truncate),
        )
        part.unlink()
        print(f"{target} written", flush=True)


if __name__ == "__main__":
    main()

"""``analyse --engine gnubg`` beside gnubg's own ``analyse match`` on the same files at the
same settings: per-player overall error rates and the time each takes.

    python bench/engine_agreement.py [--matches 10] [--length 3] [--ply 0] [--seed 1]

Debian's gnubg plays ``--matches`` matches against itself (each side with its own random
evaluation noise, so error rates range widely) and exports each as .mat; the sample match
of tests/data is added.  For each file, gnubg itself (``import mat``, ``analyse match``,
``show statistics match`` at ``--ply``) gives the reference rates, and ``backgammon analyse
FILE --engine gnubg:PLY --json`` ours.  Printed: each file's rates, the largest absolute
difference (mEMG), and the CPU time of the two (ours includes the gnubg it drives) as a
ratio.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

GNUBG = "/usr/games/gnubg"
ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "tests" / "data" / "samples" / "gnubg107_5pt_match.mat"
NOISES = [0.0, 0.01, 0.02, 0.04, 0.06, 0.1]
_RATE = re.compile(r"^Error rate mEMG \(MWC\)\s+(-?[\d.]+)\s+\([^)]*\)\s+(-?[\d.]+)")


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run(cmd: list[str], stdin: str | None = None) -> tuple[str, float]:
    """A child's output and CPU seconds (it must succeed)."""
    start = _children_cpu()
    done = subprocess.run(cmd, input=stdin, capture_output=True, text=True, check=True, cwd=ROOT)
    return done.stdout, _children_cpu() - start


def make_matches(folder: Path, n: int, length: int, seed: int) -> list[Path]:
    """``n`` matches of gnubg 0-ply against itself with noise, exported as .mat."""
    rng = random.Random(seed)
    paths = []
    for i in range(n):
        path = folder / f"m{i}.mat"
        cmds = [f"set seed {rng.randrange(1 << 30)}", "set automatic game on"]
        cmds.append("set automatic roll on")
        for p in (0, 1):
            noise = rng.choice(NOISES)
            cmds.append(f"set player {p} gnubg")
            for kind in ("chequerplay", "cubedecision"):
                cmds += [
                    f"set player {p} {kind} evaluation plies 0",
                    f"set player {p} {kind} evaluation noise {noise}",
                ]
        cmds += [f"new match {length}", f"export match mat {path}"]
        run([GNUBG, "-t", "-q"], "\n".join(cmds) + "\n")
        paths.append(path)
    return paths


def gnubg_rates(path: Path, ply: int) -> tuple[list[float], float]:
    """gnubg's own overall error rates of the file at ``ply`` (mEMG), and its CPU time."""
    script = [
        "set output digits 5",
        f"set analysis chequerplay evaluation plies {ply}",
        f"set analysis cubedecision evaluation plies {ply}",
        f"import mat {path}",
        "analyse match",
        "show statistics match",
    ]
    out, seconds = run([GNUBG, "-t", "-q"], "\n".join(script) + "\n")
    rates = [m for m in map(_RATE.match, out.splitlines()) if m]
    if not rates:
        raise SystemExit(f"gnubg printed no statistics for {path.name}")
    return [-float(rates[-1].group(i)) for i in (1, 2)], seconds


def our_rates(path: Path, ply: int, folder: Path) -> tuple[list[float], float]:
    """``backgammon analyse --engine gnubg:PLY`` on the file: its rates and CPU time."""
    out = folder / f"{path.stem}.json"
    code = "import sys; from backgammon.cli.commands import main; sys.exit(main(sys.argv[1:]))"
    args = ["analyse", str(path), "--engine", f"gnubg:{ply}", "--json", str(out)]
    _, seconds = run([sys.executable, "-c", code, *args])
    return [float(x) for x in json.loads(out.read_text())["error_rate"]], seconds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--matches", type=int, default=10)
    ap.add_argument("--length", type=int, default=3)
    ap.add_argument("--ply", type=int, default=0)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        paths = [*make_matches(folder, args.matches, args.length, args.seed), SAMPLE]
        worst, theirs_time, ours_time = 0.0, 0.0, 0.0
        print(f"{'file':<26} {'gnubg (mEMG)':>16} {'ours (mEMG)':>16} {'max |diff|':>10}")
        for path in paths:
            theirs, t = gnubg_rates(path, args.ply)
            ours, o = our_rates(path, args.ply, folder)
            diff = max(abs(a - b) for a, b in zip(theirs, ours, strict=True))
            worst, theirs_time, ours_time = max(worst, diff), theirs_time + t, ours_time + o
            show = " ".join(f"{x:7.3f}" for x in theirs), " ".join(f"{x:7.3f}" for x in ours)
            print(f"{path.name:<26} {show[0]:>16} {show[1]:>16} {diff:10.4f}")
        print(
            f"{len(paths)} files at {args.ply}-ply: largest difference {worst:.4f} mEMG; "
            f"CPU ours {ours_time:.1f} s, gnubg {theirs_time:.1f} s, "
            f"ratio {ours_time / theirs_time:.2f}"
        )


if __name__ == "__main__":
    main()

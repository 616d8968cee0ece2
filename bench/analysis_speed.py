"""Match analysis time: ours beside GNU Backgammon's on the same files at the same depth, in
one run.

    python bench/analysis_speed.py [--ply 2] [--file tests/data/samples/gnubg107_5pt_match.mat]
    python bench/analysis_speed.py --noisy 3 --seed 1  # and 3 noisy matches gnubg plays

Ours is ``backgammon analyse FILE --ply N --quiet --json OUT`` and gnubg's Debian
``/usr/games/gnubg -t -q`` with ``import mat FILE`` and ``analyse match`` at the same plies
for chequer play and cube (its default filters); each a whole process, in CPU seconds (the
machine may be shared), with the ratio ours / gnubg.  With ``--noisy N`` gnubg first plays
N 3-point matches against itself (``--length``), each side with its own evaluation noise,
as ``bench/analysis_agreement.py`` makes them (matches full of errors, as beginners' are),
and each is timed the same way after the file; the totals of the noisy matches and of all
the files close the run.
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

GNUBG = "/usr/games/gnubg"
ROOT = Path(__file__).resolve().parent.parent


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def timed(cmd: list[str], stdin: str | None = None) -> float:
    """CPU seconds of a child process (it must succeed)."""
    start = _children_cpu()
    subprocess.run(cmd, input=stdin, capture_output=True, text=True, check=True, cwd=ROOT)
    return _children_cpu() - start


def ours(path: Path, ply: int) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        out = str(Path(tmp) / "analysis.json")
        code = "import sys; from backgammon.cli.commands import main; sys.exit(main(sys.argv[1:]))"
        args = ["analyse", str(path), "--ply", str(ply), "--quiet", "--json", out]
        return timed([sys.executable, "-c", code, *args])


def gnubg(path: Path, ply: int) -> float:
    script = "\n".join(
        [
            f"set analysis chequerplay evaluation plies {ply}",
            f"set analysis cubedecision evaluation plies {ply}",
            f"import mat {path}",
            "analyse match",
        ]
    )
    return timed([GNUBG, "-t", "-q"], script + "\n")


def noisy_matches(folder: Path, n: int, length: int, seed: int) -> list[Path]:
    """``n`` matches gnubg plays against itself with noise (``.mat`` files in ``folder``),
    made by ``bench/analysis_agreement.py``'s :func:`play_and_analyse`."""
    sys.path.insert(0, str(ROOT / "bench"))
    from analysis_agreement import play_and_analyse

    return [p.with_suffix(".mat") for p, _, _ in play_and_analyse(folder, n, length, seed)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ply", type=int, default=2)
    ap.add_argument("--file", default="tests/data/samples/gnubg107_5pt_match.mat")
    ap.add_argument("--repeat", type=int, default=1, help="runs of each, alternated")
    ap.add_argument("--noisy", type=int, default=0, help="noisy matches gnubg plays, also timed")
    ap.add_argument("--length", type=int, default=3, help="the noisy matches' length")
    ap.add_argument("--seed", type=int, default=1, help="the noisy matches' seed")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        files = [(ROOT / args.file).resolve()]
        files += noisy_matches(Path(tmp), args.noisy, args.length, args.seed)
        noisy, total = [0.0, 0.0], [0.0, 0.0]
        for _ in range(args.repeat):
            for i, path in enumerate(files):
                o, g = ours(path, args.ply), gnubg(path, args.ply)
                name = path.name if i == 0 else f"noisy match {i} (seed {args.seed})"
                print(
                    f"{name} at {args.ply}-ply: ours {o:.1f} s, gnubg {g:.1f} s, ratio {o / g:.2f}"
                )
                for sums in (noisy, total) if i else (total,):
                    sums[0] += o
                    sums[1] += g
        if args.noisy:
            for what, (o, g) in (("the noisy matches", noisy), ("all the files", total)):
                print(f"{what}: ours {o:.1f} s, gnubg {g:.1f} s, ratio {o / g:.2f}")


if __name__ == "__main__":
    main()

"""Match analysis time: ours beside GNU Backgammon's on the same file at the same depth, in
one run.

    python bench/analysis_speed.py [--ply 2] [--file tests/data/samples/gnubg107_5pt_match.mat]

Ours is ``backgammon analyse FILE --ply N --quiet --json OUT`` and gnubg's Debian
``/usr/games/gnubg -t -q`` with ``import mat FILE`` and ``analyse match`` at the same plies
for chequer play and cube (its default filters); each a whole process, in CPU seconds (the
machine may be shared), with the ratio ours / gnubg.
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ply", type=int, default=2)
    ap.add_argument("--file", default="tests/data/samples/gnubg107_5pt_match.mat")
    ap.add_argument("--repeat", type=int, default=1, help="runs of each, alternated")
    args = ap.parse_args()
    path = (ROOT / args.file).resolve()
    for _ in range(args.repeat):
        o, g = ours(path, args.ply), gnubg(path, args.ply)
        print(f"{path.name} at {args.ply}-ply: ours {o:.1f} s, gnubg {g:.1f} s, ratio {o / g:.2f}")


if __name__ == "__main__":
    main()

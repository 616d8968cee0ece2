"""``backgammon analyse FILE --engine gnubg``: gnubg analyses the file itself (its own
``analyse match``), and its verdicts, read back from the SGF it saves, are shown and
written as gnubg gave them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from backgammon.cli.engines import cannot
from backgammon.engine import Limit, open_engine
from backgammon.engine.gnubg import GnubgReport

__all__ = ["report_json", "run_engine_analysis"]


def report_json(report: GnubgReport) -> dict[str, Any]:
    """gnubg's figures per player and its verdict on every play, for programs."""
    a = report.analysis
    sides = (0, 1)
    return {
        "engine": "gnubg",
        "plies": report.plies,
        "players": list(a.players),
        "unforced": [a.unforced(p) for p in sides],
        "close_cube": list(report.close_cube),
        "checker_error": [a.checker_error(p) for p in sides],
        "cube_error": [a.cube_error(p) for p in sides],
        "checker_rate": [a.checker_rate(p) for p in sides],
        "error_rate": [report.error_rate(p) for p in sides],
        "plays": [
            {
                "game": m.game,
                "player": m.player,
                "dice": list(m.dice),
                "played": str(m.candidates[m.played]),
                "best": str(m.candidates[0]),
                "error": m.error,
                "luck": m.luck,
                "mark": m.mark,
            }
            for g in a.games
            for m in g.moves
        ],
    }


def _table(report: GnubgReport) -> Table:
    a = report.analysis
    depth = f"{report.plies}-ply" if report.plies is not None else "its own settings"
    t = Table(title=f"gnubg's analysis at {depth} (errors in mEMG per decision)")
    t.add_column("")
    for name in a.players:
        t.add_column(name, justify="right")
    sides = (0, 1)
    rows = [
        ("Unforced plays", [str(a.unforced(p)) for p in sides]),
        ("Checker error rate", [f"{a.checker_rate(p):.1f}" for p in sides]),
        ("Close or actual cube decisions", [str(report.close_cube[p]) for p in sides]),
        ("Cube errors (EMG)", [f"{a.cube_error(p):.3f}" for p in sides]),
        ("Overall error rate", [f"{report.error_rate(p):.1f}" for p in sides]),
    ]
    for label, values in rows:
        t.add_row(label, *values)
    return t


def run_engine_analysis(args: Any, console: Console, write: Any) -> int:
    """Have the engine ``args.engine`` analyse ``args.file``; print and write the result."""
    if args.html_out or args.text_out or args.verify:
        raise cannot("analyse", args.engine, "--html, --text and --verify judge with our bot")
    path = Path(args.file)
    plies = None if ":" in args.engine else args.ply
    with open_engine(args.engine) as engine:
        report = engine.analyse_file(path, Limit(plies=plies))
    console.print(_table(report))
    if args.json_out:
        write(args.json_out, json.dumps(report_json(report), indent=1))
    return 0

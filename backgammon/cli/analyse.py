"""``backgammon analyse FILE.mat|FILE.sgf``: every decision of a match judged (see
:mod:`backgammon.judging.analysis`), shown as a table, or written as JSON or a standalone HTML
report with the board of each error and a graph of match winning chances."""

from __future__ import annotations

import argparse
import html
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table
from rich.text import Text

from backgammon.cli.engine_analysis import run_engine_analysis
from backgammon.cli.engines import our_plies
from backgammon.cli.errors import UsageError
from backgammon.cli.records import read_record_file
from backgammon.cli.render import signed
from backgammon.judging.analysis import analyse
from backgammon.judging.results import (
    Analysis,
    Judged,
    ThresholdError,
    thresholds,
)
from backgammon.play.match import Match
from backgammon.players.neural import PRUNE, NeuralPlayer
from backgammon.records.errors import MatchFileError
from backgammon.records.walk import steps_made
from backgammon.svg import match_svg

__all__ = [
    "analyse_command",
    "html_report",
    "review_lines",
    "write_output",
]


def analyse_command(args: argparse.Namespace) -> int:
    """Read the file, judge it with a progress bar, print the tables, write the outputs."""
    if args.engine and args.engine.strip().lower().partition(":")[0] == "gnubg":
        console = Console(stderr=args.json_out == "-")
        return run_engine_analysis(args, console, write_output)
    if args.engine:
        why = "a UBGI engine gives decisions, not the numbers an analysis needs"
        plies = our_plies("analyse", args.engine, why)
        args.ply = plies if plies is not None else args.ply
    if args.ply not in (0, 1, 2):
        raise UsageError(f"--ply is 0, 1 or 2, not {args.ply}")
    if args.prune is None:
        args.prune = PRUNE
    if args.prune < 0:
        raise UsageError(f"--prune is a number of plays (0: all), not {args.prune}")
    try:
        marks = thresholds(args.doubtful, args.bad, args.very_bad)
    except ThresholdError as exc:
        raise UsageError(str(exc)) from exc
    path = Path(args.file)
    record = read_record_file(path)
    # The tables go to standard error when an output is written to standard output.
    console = Console(stderr="-" in (args.json_out, args.html_out, args.text_out))
    bot = NeuralPlayer(0, prune=args.prune)
    total = steps_made(record)
    with Progress(
        TextColumn("analysing"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total}"),
        TimeRemainingColumn(),
        console=console,
        disable=args.quiet,
        transient=True,
    ) as bar:
        task = bar.add_task("analyse", total=total)
        try:
            result = analyse(
                record,
                bot,
                args.ply,
                progress=lambda done, _: bar.update(task, completed=done),
                marks=marks,
                verify=args.verify.replace("-", " ") if args.verify else None,
            )
        except MatchFileError as exc:
            raise UsageError(f"{path}: {exc}") from exc
    print_tables(console, result)
    if args.text_out:
        write_output(args.text_out, "\n".join(review_lines(result)) + "\n")
    if args.json_out:
        write_output(args.json_out, json.dumps(result.to_json(), indent=1))
    if args.html_out:
        write_output(args.html_out, html_report(result, path.name))
    return 0


def write_output(name: str, text: str) -> None:
    """Write ``text`` to the file ``name``, or to standard output for ``-``."""
    if name == "-":
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    else:
        Path(name).write_text(text, encoding="utf-8")


def _percent(p: float) -> str:
    return f"{100 * p:4.1f}"


def review_lines(a: Analysis) -> list[str]:
    """Every decision of the match in order, as gnubg's ``export match text`` lists them
    (within 80 columns): the dice and the play made, the best plays with their values and
    the five probabilities, the cube's three values and proper action, the mark, the luck."""
    names = (a.players[0].name, a.players[1].name)
    unit = "MWC" if a.length else "EMG"
    lines = [f"Review at {a.plies}-ply: {names[0]} against {names[1]}; values in EMG"]
    if a.verify:
        lines.append(f"Decisions marked {a.verify} or worse judged again by rollouts")
    game = 0
    for d in a.decisions:
        if d.game != game:
            game = d.game
            lines += ["", f"Game {game}"]
        who = names[d.player]
        mark = f" ({d.mark})" if d.mark else ""
        error = f"error {d.error_emg:.3f}{mark}" if d.error_emg > 0 else "best"
        lines.append("")
        if d.kind == "checker" and d.dice is not None:
            luck = f", luck {signed(d.luck)}" if d.luck is not None else ""
            lines.append(f"{d.move:>3}. {who} {_dice(d.dice)}: {d.played}  [{error}{luck}]")
            best = d.candidates[0].equity if d.candidates else 0.0
            for i, c in enumerate(d.candidates, 1):
                played = "*" if c.move == d.played else " "
                diff = "" if i == 1 else f"({signed(c.equity - best)})"
                share = "" if c.mwc is None else f" {unit} {_percent(c.mwc)}%"
                source = f"  rollout {c.rollout_trials}" if c.rollout_trials else ""
                lines.append(
                    f"   {played}{i}. {c.move:<22} {signed(c.equity)} {diff:<9}{share}{source}"
                )
                w, wg, wbg, lg, lbg = (_percent(x) for x in c.probabilities)
                lines.append(
                    f"        win {w}  gammon {wg}  bg {wbg}  |  lose gammon {lg}  bg {lbg}"
                )
            continue
        action = {"double": "cube", "take": "answer"}.get(d.kind, d.kind)
        lines.append(f"{d.move:>3}. {who}, {action}: {d.played}  [{error}]")
        if d.cube is not None:
            cv = d.cube
            lines.append(
                f"      no double {signed(cv.no_double)}, double/take {signed(cv.double_take)}, "
                f"double/pass {signed(cv.double_pass)}"
            )
            source = f" (rollout of {cv.rollout_trials} trials)" if cv.rollout_trials else ""
            lines.append(f"      proper: {cv.proper}{source}")
    return lines


def print_tables(console: Console, a: Analysis) -> None:
    """Per-player figures, then the errors marked bad and very bad."""
    console.print(
        Text(f"Analysis at {a.plies}-ply (errors in mEMG per decision; PR = 500 x EMG)"),
        soft_wrap=True,  # the title on one line, never wrapped mid-phrase by the table
    )
    t = Table()
    t.add_column("")
    for p in a.players:
        t.add_column(p.name, justify="right")
    unit = "MWC" if a.length else "points"

    def result(x: float) -> str:
        """A result in its unit: match winning chance as gnubg shows it (+50.0%), or points."""
        return f"{100 * x:+.1f}%" if a.length else signed(x)

    rows = [
        ("Unforced plays", [str(p.unforced) for p in a.players]),
        ("Checker error rate", [f"{1000 * p.checker_rate:.1f}" for p in a.players]),
        ("Cube decisions", [str(p.cube_decisions) for p in a.players]),
        ("Cube error rate", [f"{1000 * p.cube_rate:.1f}" for p in a.players]),
        ("Overall error rate", [f"{1000 * p.overall_rate:.1f}" for p in a.players]),
        ("PR", [f"{p.pr:.1f}" for p in a.players]),
        ("Rating", [p.rating for p in a.players]),
        ("Doubtful / bad / very bad", [_marks(p.marks) for p in a.players]),
        ("Luck (EMG)", [f"{signed(p.luck_emg)}" for p in a.players]),
        (f"Result ({unit})", [result(p.result) for p in a.players]),
        (f"Luck-adjusted result ({unit})", [result(p.luck_adjusted) for p in a.players]),
    ]
    for label, values in rows:
        t.add_row(label, *values)
    console.print(t)
    errors = a.errors("bad")
    if not errors:
        console.print("No errors marked bad or very bad.")
        return
    console.print(Text("Errors marked bad and very bad", style="bold"))
    for line in error_lines(a, errors):
        console.print(Text(line), soft_wrap=True)


def _dice(dice: tuple[int, int]) -> str:
    """Dice as gnubg and our .mat files write them: the larger first (an opening 2-6: 62)."""
    return f"{max(dice)}{min(dice)}"


def _rolled(d: Judged) -> str:
    """The dice of a checker play as the .mat writes them, or the cube."""
    return f"rolled {_dice(d.dice)}" if d.dice else "at the cube"


def error_lines(a: Analysis, errors: Sequence[Judged]) -> list[str]:
    """Each error in three lines within 80 columns: where, who, the dice, the mark and the
    cost; the play made and the better one; the gnubg ID to look at it again."""
    lines = []
    for d in errors:
        name = a.players[d.player].name[:24]
        lines.append(
            f" Game {d.game}, move {d.move}: {name} {_rolled(d)}, {d.mark} "
            f"({1000 * d.error_emg:.0f} mEMG)"
        )
        lines.append(f"   played {d.played}, better {d.best}")
        lines.append(f"   gnubg ID {d.gnubg_id}")
    return lines


def _marks(marks: dict[str, int]) -> str:
    return " / ".join(str(marks.get(w, 0)) for w in ("doubtful", "bad", "very bad"))


def _graph(a: Analysis, width: int = 720, height: int = 240) -> str:
    """An SVG of player 0's match winning chance (money: equity) after each decision, with
    its axes, the even line, the games' boundaries; it scales down to the page's width."""
    if not a.track:
        return ""
    values = [v for _, _, v in a.track]
    lo, hi = (0.0, 1.0) if a.length else (min(*values, -1.0), max(*values, 1.0))
    left, right, top, bottom = 46, 10, 12, 28
    n = max(len(values) - 1, 1)

    def x(i: float) -> float:
        return left + (width - left - right) * i / n

    def y(v: float) -> float:
        return height - bottom - (height - top - bottom) * (v - lo) / (hi - lo)

    pts = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(values))
    even = 0.5 if a.length else 0.0
    ticks = (0.0, 0.25, 0.5, 0.75, 1.0) if a.length else (lo, 0.0, hi)

    def label(v: float) -> str:
        return f"{100 * v:.0f}%" if a.length else signed(v, 1)

    parts = [
        f'<line x1="{left}" x2="{left}" y1="{top}" y2="{height - bottom}" stroke="#888"/>',
        f'<line x1="{left}" x2="{width - right}" y1="{height - bottom}" '
        f'y2="{height - bottom}" stroke="#888"/>',
        f'<line x1="{left}" x2="{width - right}" y1="{y(even):.1f}" y2="{y(even):.1f}" '
        f'stroke="#999" stroke-dasharray="4"/>',
    ]
    for v in ticks:
        parts.append(
            f'<text x="{left - 6}" y="{y(v) + 4:.1f}" text-anchor="end" font-size="11">'
            f"{label(v)}</text>"
        )
    for i in range(1, len(a.track)):
        if a.track[i][0] != a.track[i - 1][0]:
            parts.append(
                f'<line x1="{x(i - 0.5):.1f}" x2="{x(i - 0.5):.1f}" y1="{top}" '
                f'y2="{height - bottom}" stroke="#ccc"/><text x="{x(i - 0.5) + 3:.1f}" '
                f'y="{top + 10}" font-size="10" fill="#666">game {a.track[i][0]}</text>'
            )
    what = "match winning chance" if a.length else "equity"
    name = html.escape(a.players[0].name)
    parts.append(
        f'<text x="{(left + width - right) / 2:.0f}" y="{height - 6}" text-anchor="middle" '
        f'font-size="11">{name}\'s {what} after each decision</text>'
    )
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
        f'style="width:100%;max-width:{width}px;height:auto" role="img" '
        f'aria-label="{name}\'s {what} after each decision">'
        f'<rect width="{width}" height="{height}" fill="#fafafa"/>{"".join(parts)}'
        f'<polyline fill="none" stroke="#2a6" stroke-width="2" points="{pts}"/></svg>'
    )


def _board(d: Judged, names: tuple[str, str]) -> str:
    """The board of the decision, as the analysis met it."""
    if d.state is None:
        return ""
    return match_svg(Match.from_state(d.state), viewer=d.player, names=names, width=360)


def html_report(a: Analysis, title: str) -> str:
    """A standalone HTML page: per-player table, MWC graph, every error marked bad or very
    bad with its board."""
    names = (a.players[0].name, a.players[1].name)
    esc = html.escape
    head = "".join(f"<th>{esc(n)}</th>" for n in names)

    def row(label: str, cells: list[str]) -> str:
        return f"<tr><th>{esc(label)}</th>" + "".join(f"<td>{esc(c)}</td>" for c in cells) + "</tr>"

    body = [
        row("Unforced plays", [str(p.unforced) for p in a.players]),
        row("Checker error rate (mEMG)", [f"{1000 * p.checker_rate:.1f}" for p in a.players]),
        row("Cube decisions", [str(p.cube_decisions) for p in a.players]),
        row("Cube error rate (mEMG)", [f"{1000 * p.cube_rate:.1f}" for p in a.players]),
        row("Overall error rate (mEMG)", [f"{1000 * p.overall_rate:.1f}" for p in a.players]),
        row("PR", [f"{p.pr:.1f}" for p in a.players]),
        row("Rating", [p.rating for p in a.players]),
        row("Luck (EMG)", [f"{signed(p.luck_emg)}" for p in a.players]),
        row("Luck-adjusted result", [f"{signed(p.luck_adjusted)}" for p in a.players]),
    ]
    errors = []
    for d in a.errors("bad"):
        errors.append(
            f'<section class="error"><h3>Game {d.game}, move {d.move}: '
            f"{esc(names[d.player])} {_rolled(d)} ({esc(d.mark)}, "
            f"{1000 * d.error_emg:.0f} mEMG)</h3>"
            f"<p>Played <b>{esc(d.played)}</b>; better <b>{esc(d.best)}</b>. "
            f"<code>{esc(d.gnubg_id)}</code></p>{_board(d, names)}</section>"
        )
    return (
        "<!doctype html><html><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>Analysis of {esc(title)}</title><style>"
        "body{font-family:sans-serif;max-width:60em;margin:auto;padding:1em}"
        "h1,code{overflow-wrap:anywhere}svg{max-width:100%;height:auto}"
        "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2em .6em}"
        "section.error{border-top:1px solid #ddd;margin-top:1em}</style></head><body>"
        f"<h1>Analysis of {esc(title)}</h1><p>{a.plies}-ply, errors in thousandths of "
        "equity normalised to a money game per decision (mEMG); PR = 500 x EMG per "
        "decision.</p>"
        f"<table><tr><th></th>{head}</tr>{''.join(body)}</table>"
        f"<h2>{esc(names[0])}'s {'match winning chance' if a.length else 'equity'}</h2>"
        f"{_graph(a)}<h2>Errors marked bad and very bad</h2>"
        f"{''.join(errors) or '<p>None.</p>'}</body></html>"
    )

"""The board drawn in the terminal with rich: colour and Unicode checkers, plain ASCII when
the terminal cannot show them, from one player's side."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from rich.console import Console
from rich.text import Text

from backgammon.core.position import Position

__all__ = ["BoardView", "make_console", "render_board", "signed"]


@dataclasses.dataclass(frozen=True)
class BoardView:
    """Everything the board shows, from the human's side ("bottom" plays 24 -> 1).

    ``position`` has the bottom player as the mover, whoever is on roll.
    """

    position: Position
    bottom_name: str = "You"
    top_name: str = "Bot"
    on_roll: str | None = "bottom"  # "bottom", "top" or None
    dice: tuple[int, int] | None = None
    cube_value: int = 1
    cube_owner: str | None = None  # "bottom", "top" or None (centred)
    score: tuple[int, int] = (0, 0)  # (bottom, top)
    length: int = 0  # 0 = money
    crawford: bool = False
    post_crawford: bool = False
    gnubg_id: str | None = None
    note: str = ""
    bottom_mark: int = 0
    """Which mark the bottom player's checkers wear: 0 for the first player's (X, white), 1
    for the second's (O, red).  A player keeps one mark when the board turns to them."""


@dataclasses.dataclass(frozen=True)
class _Glyphs:
    first: str  # the first player's checkers (player 0)
    second: str
    empty: str
    h: str
    v: str
    tl: str
    tr: str
    bl: str
    br: str
    tj: str  # a junction on the top edge
    bj: str  # a junction on the bottom edge


_UNICODE = _Glyphs("●", "○", "·", "─", "│", "┌", "┐", "└", "┘", "┬", "┴")
_ASCII = _Glyphs("X", "O", ".", "-", "|", "+", "+", "+", "+", "+", "+")

_FIRST_STYLE = "bold bright_white"
_SECOND_STYLE = "bold red"
_FRAME_STYLE = "yellow"
_NUMBER_STYLE = "cyan"


def signed(value: float, digits: int = 3) -> str:
    """``value`` with its sign and ``digits`` decimals, a value that rounds to zero as
    "+0.000" (never "-0.000")."""
    text = f"{value:+.{digits}f}"
    return text if text.strip("+-0.") else f"{0.0:+.{digits}f}"


def _use_unicode(console: Console) -> bool:
    """True when the console can print the Unicode checkers and frame."""
    encoding = (console.encoding or "").lower().replace("-", "")
    return encoding.startswith("utf")


def render_board(view: BoardView, unicode: bool = True, width: int = 80) -> Text:
    """The board as rich Text, at most ``width`` columns for names up to 20 characters:
    points numbered from the bottom player's side."""
    g = _UNICODE if unicode else _ASCII
    b = view.position.board
    off_bottom, off_top = view.position.off
    pips_bottom, pips_top = view.position.pip_counts()
    marks = ((g.first, _FIRST_STYLE), (g.second, _SECOND_STYLE))
    bottom_mark, top_mark = marks[view.bottom_mark], marks[1 - view.bottom_mark]
    out = Text()

    def player_line(side: str) -> None:
        is_bottom = side == "bottom"
        name = view.bottom_name if is_bottom else view.top_name
        glyph, style = bottom_mark if is_bottom else top_mark
        score = view.score[0] if is_bottom else view.score[1]
        pips = pips_bottom if is_bottom else pips_top
        off = off_bottom if is_bottom else off_top
        out.append(" ")
        out.append(f"{glyph} {name}", style=style)
        out.append(f"   score {score}   pips {pips}   off {off}")
        if view.on_roll == side:
            out.append("   on roll", style="bold green")
            if view.dice:
                out.append(f"   dice {view.dice[0]}{view.dice[1]}", style="bold green")
        out.append("\n")

    def cell(point: int, row: int) -> Text:
        n = b[point]
        if n == 0:
            return Text(f" {g.empty} " if row == 0 else "   ", style="dim")
        count = abs(n)
        glyph, style = bottom_mark if n > 0 else top_mark
        if row >= count:
            return Text("   ")
        if row == 4 and count > 5:
            return Text(f"{count:^3}", style=style)
        return Text(f" {glyph} ", style=style)

    def bar_cell(count: int, row: int, glyph: str, style: str) -> Text:
        if row >= count:
            return Text("   ")
        if row == 4 and count > 5:
            return Text(f"{count:^3}", style=style)
        return Text(f" {glyph} ", style=style)

    def edge(numbers: Sequence[int], left: str, junction: str, right: str) -> None:
        out.append(" ")
        out.append(left, style=_FRAME_STYLE)
        for i, p in enumerate(numbers):
            if i == 6:
                out.append(junction + g.h * 3 + junction, style=_FRAME_STYLE)
            out.append(f"{p:^3}", style=_NUMBER_STYLE)
        out.append(right, style=_FRAME_STYLE)
        out.append("\n")

    top_points = list(range(13, 25))
    bottom_points = list(range(12, 0, -1))
    cube = f"cube {view.cube_value}"
    cube_top = view.cube_owner == "top"
    cube_bottom = view.cube_owner == "bottom"
    cube_middle = view.cube_owner is None

    player_line("top")
    edge(top_points, g.tl, g.tj, g.tr)

    def half(points: list[int], rows: range, bar: int, top: bool) -> None:
        # The top player's bar checkers sit in the upper half of the bar, the bottom
        # player's in the lower half, next to the home board each will enter.
        glyph, style = top_mark if top else bottom_mark
        for row in rows:
            out.append(" ")
            out.append(g.v, style=_FRAME_STYLE)
            for p in points[:6]:
                out.append_text(cell(p, row))
            out.append(g.v, style=_FRAME_STYLE)
            out.append_text(bar_cell(bar, row, glyph, style))
            out.append(g.v, style=_FRAME_STYLE)
            for p in points[6:]:
                out.append_text(cell(p, row))
            out.append(g.v, style=_FRAME_STYLE)
            if row == 0:
                out.append(f"  off {off_top if top else off_bottom}", style=style)
            if row == 2 and (cube_top if top else cube_bottom):
                out.append(f"  [{cube}]", style="bold magenta")
            out.append("\n")

    half(top_points, range(5), -b[0], top=True)
    out.append(" ")
    out.append(g.v, style=_FRAME_STYLE)
    out.append(" " * 18)
    out.append(g.v + "BAR" + g.v, style=_FRAME_STYLE)
    out.append(" " * 18)
    out.append(g.v, style=_FRAME_STYLE)
    if cube_middle:
        out.append(f"  [{cube}]", style="bold magenta")
    out.append("\n")
    half(bottom_points, range(4, -1, -1), b[25], top=False)
    edge(bottom_points, g.bl, g.bj, g.br)
    player_line("bottom")
    info = []
    if view.length:
        info.append(f"Match to {view.length}")
        if view.crawford:
            info.append("Crawford game")
        elif view.post_crawford:
            info.append("post-Crawford")
    else:
        info.append("Money game")
    owner = {"bottom": view.bottom_name, "top": view.top_name}.get(view.cube_owner or "")
    info.append(f"cube {view.cube_value}" + (f" owned by {owner}" if owner else " centred"))
    sep = " · " if unicode else " - "
    line = " " + sep.join(info)
    out.append(line)
    if view.gnubg_id:
        label = "gnubg ID "
        if len(line) + len(sep) + len(label) + len(view.gnubg_id) <= width:
            out.append(sep + label)  # on the same line when it fits: the board fits 24 rows
        else:
            out.append("\n " + label)
        out.append(view.gnubg_id, style="bold")
    if view.note:
        out.append("\n " + view.note)
    return out


def make_console(ascii_only: bool = False) -> tuple[Console, bool]:
    """A console for standard output, and whether it can show Unicode."""
    console = Console(highlight=False)
    return console, (not ascii_only and _use_unicode(console))

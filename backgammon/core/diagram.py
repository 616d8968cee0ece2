"""The position as a gnubg-like text diagram (``str(position)``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from backgammon.core.position import Position

__all__ = ["render_text"]


def render_text(pos: Position) -> str:
    """A gnubg-like text board with the mover (X) at the bottom, plus the Position ID."""
    b = pos.board

    def cell(point: int, row: int) -> str:
        n = b[point]
        mark = "X" if n > 0 else "O"
        n = abs(n)
        if n == 0 or row >= n:
            return " . " if row == 0 and n == 0 else "   "
        if row == 4 and n > 5:
            return f"{n:^3}"
        return f" {mark} "

    top = list(range(13, 25))
    bottom = list(range(12, 0, -1))
    lines = [f"Position ID: {pos.position_id()}"]
    lines.append(" +13-14-15-16-17-18------19-20-21-22-23-24-+")
    for row in range(5):
        left = "".join(cell(p, row) for p in top[:6])
        right = "".join(cell(p, row) for p in top[6:])
        lines.append(f" |{left}|   |{right}|")
    opp_bar, my_bar = -b[0], b[25]
    lines.append(f" |{' ' * 18}|BAR|{' ' * 18}|  O bar: {opp_bar}  X bar: {my_bar}")
    for row in range(4, -1, -1):
        left = "".join(cell(p, row) for p in bottom[:6])
        right = "".join(cell(p, row) for p in bottom[6:])
        lines.append(f" |{left}|   |{right}|")
    lines.append(" +12-11-10--9--8--7-------6--5--4--3--2--1-+")
    mine, theirs = pos.pip_counts()
    off_me, off_them = pos.off
    lines.append(f" X (on roll): pips {mine}, off {off_me}    O: pips {theirs}, off {off_them}")
    return "\n".join(lines)

"""The board as SVG: points, checkers, bar, borne-off checkers, cube, dice, score and pips.

Used by the web page and by notebooks (``Position._repr_svg_``); it depends only on the core.
Everything is drawn from the point of view of the *bottom* player, whose points are numbered
1-24 the way that player moves (bar 25, off 0).  By default the side to move is at the bottom;
pass ``on_roll_at_bottom=False`` to draw the side to move at the top.

Clickable parts carry ``data-point`` attributes (bottom player's numbering) so a page can turn
clicks into plays; the page still asks the server whether a play is legal.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from html import escape
from typing import TYPE_CHECKING, Literal

from backgammon.core.position import Position
from backgammon.core.values import BAR, OFF

if TYPE_CHECKING:
    from backgammon.play.match import Match

__all__ = ["BoardStyle", "board_svg", "match_svg"]

Side = Literal["bottom", "top"]
LastPlay = tuple[int, tuple[int, int], Sequence[tuple[int, int]]]
"""A play as :func:`match_svg` shows it: the player, the dice, its (from, to) steps."""
_Add = Callable[[str], None]

# Geometry (user units; the picture scales to any width).
_PW = 40  # point width
_R = 18  # checker radius
_BAR_W = 44
_FRAME = 16
_TRAY = 52
_STRIP = 30
_HALF = 12 * _PW // 2
_FIELD_H = 430
_POINT_H = 5 * 2 * _R
_W = 2 * _TRAY + 2 * _FRAME + 12 * _PW + _BAR_W
_H = 2 * _STRIP + 2 * _FRAME + _FIELD_H
_FIELD_X = _TRAY + _FRAME
_FIELD_Y = _STRIP + _FRAME
_MID_Y = _FIELD_Y + _FIELD_H // 2
_BAR_X = _FIELD_X + _HALF  # left edge of the bar


@dataclass(frozen=True)
class BoardStyle:
    """Colours of the drawing (any CSS colour)."""

    bottom_checker: str = "#f3efe2"
    top_checker: str = "#3a2f2a"
    board: str = "#2f6b3c"
    frame: str = "#5a3b22"
    point_light: str = "#e8d7b0"
    point_dark: str = "#a8452f"
    target: str = "#ffd400"
    moved: str = "#35b8ff"
    text: str = "#f8f4ea"


def board_svg(
    position: Position,
    *,
    on_roll_at_bottom: bool = True,
    dice: tuple[int, int] | None = None,
    dice_left: Sequence[int] | None = None,
    played_dice: tuple[int, int] | None = None,
    moved: Iterable[int] = (),
    cube_value: int = 1,
    cube_owner: Side | None = None,
    cube_offered: Side | None = None,
    score: tuple[int, int] | None = None,
    length: int | None = None,
    crawford: bool = False,
    names: tuple[str, str] = ("", ""),
    pips: bool = True,
    highlight: Iterable[int] = (),
    selected: int | None = None,
    home: Literal["right", "left"] = "right",
    width: int | None = None,
    style: BoardStyle | None = None,
    interactive: bool = False,
) -> str:
    """An SVG document of ``position`` and optional match context.

    ``interactive`` makes every point, the bar and the tray focusable buttons labelled with
    what is on them (for keyboards and screen readers).

    ``score``, ``names`` are (bottom, top); ``cube_owner`` is "bottom", "top" or None
    (centred); ``cube_offered`` is the side a double is offered to (the cube, showing
    ``cube_value``, is drawn on that side's half of the board); ``highlight`` and
    ``selected`` are points in the bottom player's numbering (25 = bar, 0 = the tray);
    ``home`` puts the bottom player's home board on the right (gnubg's default) or the left.
    ``dice_left`` are the numbers of ``dice`` still to play (the others are drawn faded).
    ``played_dice`` and ``moved`` show the last play of the side not to move until the next
    throw: its dice on its half and the points its checkers left and reached outlined (a
    player can follow what the opponent did, however fast it was done).
    """
    if home not in ("right", "left"):
        raise ValueError(f"home must be 'right' or 'left', not {home!r}")
    for side in (cube_owner, cube_offered):
        if side not in (None, "bottom", "top"):
            raise ValueError(f"a cube side is 'bottom', 'top' or None, not {side!r}")
    if cube_value < 1 or cube_value & (cube_value - 1):
        raise ValueError(f"cube value must be a power of two, not {cube_value}")
    if dice is not None and not all(isinstance(d, int) and 1 <= d <= 6 for d in dice):
        raise ValueError(f"dice must be two numbers 1-6, not {dice!r}")
    targets, marked = set(highlight), set(moved)
    bad = [
        p
        for p in [*targets, *marked, *([] if selected is None else [selected])]
        if not 0 <= p <= 25
    ]
    if bad:
        raise ValueError(f"points must be 0-25, not {bad[0]}")
    st = style or BoardStyle()
    pos = position if on_roll_at_bottom else position.flip()
    b = pos.board  # > 0 bottom player's checkers, < 0 top player's
    who = (names[0] or "bottom", names[1] or "top")

    def button(point: int, counts: tuple[int, int]) -> str:
        if not interactive:
            return ""
        place = {BAR: "bar", OFF: "borne off"}.get(point, f"point {point}")
        held = [f"{n} of {escape(w)}'s checkers" for n, w in zip(counts, who, strict=True) if n]
        label = f"{place}: {', '.join(held) or 'empty'}"
        return f' role="button" tabindex="0" aria-label="{label}"'

    left_home = home == "left"
    out: list[str] = []
    add = out.append
    # Checker counts are drawn after their point's group, so that a point's name for
    # screen readers is its label alone (a count inside would be read as part of it).
    later: list[str] = []

    def flush() -> None:
        out.extend(later)
        later.clear()

    size = f' width="{width}" height="{width * _H // _W}"' if width else ""
    add(
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {_W} {_H}"{size} '
        f'class="bg-board" font-family="sans-serif">'
    )
    add(f"<title>Backgammon position {pos.position_id()}</title>")
    add(f'<rect width="{_W}" height="{_H}" fill="{st.frame}" rx="10"/>')
    add(
        f'<rect x="{_FIELD_X}" y="{_FIELD_Y}" width="{12 * _PW + _BAR_W}" '
        f'height="{_FIELD_H}" fill="{st.board}"/>'
    )
    # Points, each with a transparent hit area covering its half of the board.
    for point in range(1, 25):
        x, top = _point_xy(point, left_home)
        colour = st.point_dark if point % 2 else st.point_light
        if top:
            y0, tip = _FIELD_Y, _FIELD_Y + _POINT_H
        else:
            y0, tip = _FIELD_Y + _FIELD_H, _FIELD_Y + _FIELD_H - _POINT_H
        is_target = point in targets
        counts = (max(b[point], 0), max(-b[point], 0))
        add(
            f'<g class="point{" target" if is_target else ""}{_moved(point, marked)}" '
            f'data-point="{point}"{button(point, counts)}>'
        )
        add(
            f'<rect x="{x}" y="{_FIELD_Y if top else _MID_Y}" width="{_PW}" '
            f'height="{_FIELD_H // 2}" fill="transparent"/>'
        )
        add(
            f'<polygon points="{x},{y0} {x + _PW},{y0} {x + _PW // 2},{tip}" '
            f'fill="{st.target if is_target else colour}"'
            f"{' fill-opacity=' + chr(34) + '0.85' + chr(34) if is_target else ''}"
            f"{_outline(st) if point in marked else ''}/>"
        )
        n = b[point]
        if n:
            fill = st.bottom_checker if n > 0 else st.top_checker
            _stack(add, later, x + _PW // 2, top, abs(n), fill, st, point == selected, point)
        label_y = _STRIP + 12 if top else _H - _STRIP - 4
        add(
            f'<text x="{x + _PW // 2}" y="{label_y}" font-size="12" text-anchor="middle" '
            f'fill="{st.text}">{point}</text>'
        )
        add("</g>")
        flush()
    # The bar: the bottom player's checkers below the middle, the top player's above.
    add(
        f'<g class="point bar{" target" if BAR in targets else ""}{_moved(BAR, marked)}" '
        f'data-point="{BAR}"{button(BAR, (b[BAR], -b[0]))}>'
    )
    add(
        f'<rect x="{_BAR_X}" y="{_FIELD_Y}" width="{_BAR_W}" height="{_FIELD_H}" '
        f'fill="{st.frame}"{_outline(st) if BAR in marked else ""}/>'
    )
    cx = _BAR_X + _BAR_W // 2
    for count, fill, sign, sel in (
        (b[BAR], st.bottom_checker, 1, selected == BAR),
        (-b[0], st.top_checker, -1, False),
    ):
        for i in range(min(count, 3)):
            cy = _MID_Y + sign * (_R + 14 + i * 2 * _R)
            label = str(count) if i == 2 and count > 3 else ""
            _checker(add, later, cx, cy, fill, st, sel and i == min(count, 3) - 1, label, str(BAR))
    add("</g>")
    flush()
    # Trays: borne-off checkers on the home side, the cube on the other side.
    off_x = _W - _TRAY if not left_home else 0
    cube_x = 0 if not left_home else _W - _TRAY
    off_bottom, off_top = pos.off
    add(
        f'<g class="point tray{" target" if OFF in targets else ""}{_moved(OFF, marked)}" '
        f'data-point="{OFF}"{button(OFF, (off_bottom, off_top))}>'
    )
    add(
        f'<rect x="{off_x + 6}" y="{_FIELD_Y}" width="{_TRAY - 12}" height="{_FIELD_H}" '
        f'fill="{st.target if OFF in targets else st.board}" rx="4"'
        f"{' fill-opacity=' + chr(34) + '0.85' + chr(34) if OFF in targets else ''}"
        f"{_outline(st) if OFF in marked else ''}/>"
    )
    for i in range(off_top):
        add(_slab(off_x, _FIELD_Y + 4 + i * 12, st.top_checker))
    for i in range(off_bottom):
        add(_slab(off_x, _FIELD_Y + _FIELD_H - 14 - i * 12, st.bottom_checker))
    add("</g>")
    cube_y = {None: _MID_Y - 18, "top": _FIELD_Y + 8, "bottom": _FIELD_Y + _FIELD_H - 44}
    if cube_offered is None:
        add(f'<g class="cube" data-owner="{cube_owner or "centre"}">')
        x, y = cube_x + 8, cube_y[cube_owner]
        shown = 64 if cube_owner is None and cube_value == 1 else cube_value
    else:  # in the middle of the offered side's half, beside the last play's dice there
        add(f'<g class="cube offered" data-offered="{cube_offered}">')
        receiver_right = (cube_offered == "bottom") != left_home
        x = (_BAR_X + _BAR_W if receiver_right else _FIELD_X) + _HALF // 2 - 18
        if played_dice is not None and (cube_offered == "bottom") != on_roll_at_bottom:
            x += 18 + 42 + 12  # the dice take the middle 84 units: the cube goes past them
        y, shown = _MID_Y - 18, cube_value
    add(
        f'<rect x="{x}" y="{y}" width="36" height="36" rx="5" '
        f'fill="#fffdf5" stroke="#222" stroke-width="1.5"/>'
    )
    add(
        f'<text x="{x + 18}" y="{y + 25}" font-size="18" '
        f'font-weight="bold" text-anchor="middle" fill="#222">{shown}</text>'
    )
    add("</g>")
    # Dice on the half of the board of the side to move; the last play's on the other side's.
    for thrown, bottom, cls in (
        (dice, on_roll_at_bottom, "dice"),
        (played_dice, not on_roll_at_bottom, "dice played"),
    ):
        if thrown is None:
            continue
        fill, pip = (st.bottom_checker, "#222") if bottom else (st.top_checker, "#fff")
        half_x = _BAR_X + _BAR_W if bottom != left_home else _FIELD_X
        x = half_x + _HALF // 2 - 42
        faded = _faded(thrown, dice_left) if cls == "dice" else [False, False]
        add(f'<g class="{cls}">')
        for k, d in enumerate(thrown):
            _die(add, x + k * 48, _MID_Y - 18, d, fill, pip, faded[k])
        add("</g>")
    # The two strips: name, score and pips of each player; the match in the middle.
    pip_b, pip_t = pos.pip_counts()
    for side, y, fill, name, pipcount, idx in (
        ("top", _STRIP - 9, st.top_checker, names[1], pip_t, 1),
        ("bottom", _H - 9, st.bottom_checker, names[0], pip_b, 0),
    ):
        # The name in its own tspan: the page shortens a long one to keep score and pips in.
        who_text = escape(name) or ("Bottom" if side == "bottom" else "Top")
        bits = [f'<tspan class="name">{who_text}</tspan>']
        if score is not None:
            bits.append(f"score {score[idx]}")
        if pips:
            bits.append(f"pips {pipcount}")
        add(f'<g class="strip strip-{side}">')
        add(f'<circle cx="{_TRAY + 10}" cy="{y - 6}" r="8" fill="{fill}" stroke="#000"/>')
        add(
            f'<text x="{_TRAY + 26}" y="{y}" font-size="20" fill="{st.text}">'
            f"{' · '.join(bits)}</text>"
        )
        if side == "top":
            info = []
            if length is not None:
                info.append(f"{length}-point match" if length else "money game")
            if crawford:
                info.append("Crawford")
            add(
                f'<text x="{_W - _TRAY}" y="{y}" font-size="20" text-anchor="end" '
                f'fill="{st.text}">{" · ".join(info)}</text>'
            )
        add("</g>")
    add("</svg>")
    return "".join(out)


def match_svg(
    match: Match,
    *,
    viewer: int = 0,
    position: Position | None = None,
    names: tuple[str, str] = ("Player 0", "Player 1"),
    highlight: Iterable[int] = (),
    selected: int | None = None,
    home: Literal["right", "left"] = "right",
    width: int | None = None,
    interactive: bool = False,
    dice_left: Sequence[int] | None = None,
    last_play: LastPlay | None = None,
) -> str:
    """The board of a :class:`~backgammon.play.match.Match` from player ``viewer``'s side (at the
    bottom), with its dice, cube, score, length and Crawford flag (``interactive`` as in
    :func:`board_svg`).

    ``names`` are players 0 and 1; ``position`` replaces the match's position (seen from
    the player on roll), e.g. to show a play in progress, with ``dice_left`` the numbers
    still to play.  ``last_play`` (player, dice, steps in that player's numbering) is shown
    as :func:`board_svg`'s ``played_dice`` and ``moved``.
    """
    if viewer not in (0, 1):
        raise ValueError(f"viewer must be player 0 or 1, not {viewer!r}")
    on_roll = match.on_roll if match.on_roll is not None else viewer
    owner = match.cube_owner
    length = match.rules.match_length or 0
    # The score as the match counts it (won at its length), as the page's dialog says it.
    score = tuple(min(p, length) for p in match.score) if length else match.score
    offered = match.state.responder if match.phase == "doubled" else None
    played_dice, moved = None, set()
    if last_play is not None:
        mover, played_dice, steps = last_play
        for point in (p for step in steps for p in step):
            moved.add(point if mover == viewer or point in (BAR, OFF) else 25 - point)
    return board_svg(
        match.position if position is None else position,
        on_roll_at_bottom=on_roll == viewer,
        dice=match.dice,
        dice_left=dice_left,
        played_dice=played_dice,
        moved=moved,
        cube_value=match.cube_value * (1 if offered is None else 2),
        cube_owner=None if owner is None else ("bottom" if owner == viewer else "top"),
        cube_offered=None if offered is None else ("bottom" if offered == viewer else "top"),
        score=(score[viewer], score[1 - viewer]),
        length=length,
        crawford=match.is_crawford_game,
        names=(names[viewer], names[1 - viewer]),
        highlight=highlight,
        selected=selected,
        home=home,
        width=width,
        interactive=interactive,
    )


def _faded(dice: tuple[int, int], left: Sequence[int] | None) -> list[bool]:
    """Which of the two dice drawn are used up, ``left`` being the numbers still to play
    (doubles: one die per two moves made)."""
    if left is None:
        return [False, False]
    if dice[0] == dice[1]:
        used = (4 - len(left)) // 2
        return [k >= 2 - used for k in range(2)]
    rest = list(left)
    out = []
    for d in dice:
        out.append(d not in rest)
        if d in rest:
            rest.remove(d)
    return out


def _moved(point: int, marked: set[int]) -> str:
    return " moved" if point in marked else ""


def _outline(st: BoardStyle) -> str:
    return f' stroke="{st.moved}" stroke-width="5"'


def _point_xy(point: int, left_home: bool) -> tuple[int, bool]:
    """Left x of a point's column and whether it is on the top row."""
    if point <= 12:
        column, top = 12 - point, False
    else:
        column, top = point - 13, True
    if left_home:
        column = 11 - column
    x = _FIELD_X + column * _PW + (_BAR_W if column >= 6 else 0)
    return x, top


def _stack(
    add: _Add,
    later: list[str],
    cx: int,
    top: bool,
    n: int,
    fill: str,
    st: BoardStyle,
    selected: bool,
    point: int,
) -> None:
    """Up to five checkers on a point, the fifth showing the count when there are more."""
    shown = min(n, 5)
    for i in range(shown):
        cy = _FIELD_Y + _R + i * 2 * _R if top else _FIELD_Y + _FIELD_H - _R - i * 2 * _R
        label = str(n) if i == 4 and n > 5 else ""
        _checker(add, later, cx, cy, fill, st, selected and i == shown - 1, label, str(point))


def _checker(
    add: _Add,
    later: list[str],
    cx: int,
    cy: int,
    fill: str,
    st: BoardStyle,
    sel: bool,
    label: str,
    point: str,
) -> None:
    stroke = f'stroke="{st.target}" stroke-width="4"' if sel else 'stroke="#111" stroke-width="1"'
    cls = "checker selected" if sel else "checker"
    add(
        f'<circle class="{cls}" data-point="{point}" cx="{cx}" cy="{cy}" r="{_R - 1}" '
        f'fill="{fill}" {stroke}/>'
    )
    if label:
        ink = "#000" if fill == st.bottom_checker else "#fff"
        later.append(
            f'<text class="count" x="{cx}" y="{cy + 5}" font-size="15" font-weight="bold" '
            f'text-anchor="middle" fill="{ink}" pointer-events="none">{label}</text>'
        )


def _slab(tray_x: int, y: int, fill: str) -> str:
    return (
        f'<rect class="off" x="{tray_x + 10}" y="{y}" width="{_TRAY - 20}" height="10" '
        f'rx="2" fill="{fill}" stroke="#111" stroke-width="0.8"/>'
    )


_PIPS = {
    1: [(0, 0)],
    2: [(-1, -1), (1, 1)],
    3: [(-1, -1), (0, 0), (1, 1)],
    4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
    5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
    6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)],
}


def _die(add: _Add, x: int, y: int, value: int, fill: str, pip: str, faded: bool = False) -> None:
    look = ' opacity="0.4"' if faded else ""
    add(
        f'<g class="die{" used" if faded else ""}" data-value="{value}"{look}>'
        f'<rect x="{x}" y="{y}" width="36" height="36" rx="6" fill="{fill}" stroke="#111"/>'
    )
    for dx, dy in _PIPS[value]:
        add(f'<circle cx="{x + 18 + dx * 9}" cy="{y + 18 + dy * 9}" r="3.6" fill="{pip}"/>')
    add("</g>")

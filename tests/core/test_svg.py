"""The SVG board: well-formed, every checker drawn where the position has it, match context."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backgammon import Position
from backgammon.play.dice import SeededDice
from backgammon.play.match import Match
from backgammon.svg import board_svg, match_svg

NS = {"s": "http://www.w3.org/2000/svg"}
SVG = "{http://www.w3.org/2000/svg}"


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def checkers_by_point(root: ET.Element, fill: str) -> dict[int, int]:
    """Checkers of one colour per data-point (the bar is 25), as drawn."""
    out: dict[int, int] = {}
    for c in root.iter("{http://www.w3.org/2000/svg}circle"):
        if "checker" in c.get("class", "") and c.get("fill") == fill:
            p = int(c.get("data-point", "-1"))
            out[p] = out.get(p, 0) + 1
    return out


LIGHT, DARK = "#f3efe2", "#3a2f2a"


def test_initial_position_draws_fifteen_checkers_each_on_the_right_points() -> None:
    """R2: the starting position, 2-5-3-5 for each side; the mover (light) at the bottom."""
    root = parse(board_svg(Position.initial()))
    assert checkers_by_point(root, LIGHT) == {24: 2, 13: 5, 8: 3, 6: 5}
    # The opponent's checkers on the mover's 1, 12, 17, 19.
    assert checkers_by_point(root, DARK) == {1: 2, 12: 5, 17: 3, 19: 5}
    points = {
        int(g.get("data-point", ""))
        for g in root.iter("{http://www.w3.org/2000/svg}g")
        if g.get("data-point")
    }
    assert points == set(range(26))


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_random_positions_every_checker_is_accounted_for(data: st.DataObject) -> None:
    """Drawn checkers (capped at 5 a point, 3 on the bar) plus count labels match the board."""
    pos = Position.initial()
    for _ in range(data.draw(st.integers(0, 40))):
        roll = (data.draw(st.integers(1, 6)), data.draw(st.integers(1, 6)))
        moves = pos.legal_moves(roll)
        if pos.is_game_over():
            break
        pos = pos.play(moves[data.draw(st.integers(0, len(moves) - 1))]) if moves else pos.flip()
    bottom = data.draw(st.booleans())
    root = parse(
        board_svg(pos, on_roll_at_bottom=bottom, home=data.draw(st.sampled_from(["left", "right"])))
    )
    seen = pos if bottom else pos.flip()
    b = seen.board
    light = checkers_by_point(root, LIGHT)
    dark = checkers_by_point(root, DARK)
    for p in range(1, 25):
        assert light.get(p, 0) == min(max(b[p], 0), 5)
        assert dark.get(p, 0) == min(max(-b[p], 0), 5)
    assert light.get(25, 0) == min(b[25], 3)
    assert dark.get(25, 0) == min(-b[0], 3)
    offs = [r for r in root.iter("{http://www.w3.org/2000/svg}rect") if r.get("class") == "off"]
    assert sum(r.get("fill") == LIGHT for r in offs) == seen.off[0]
    assert sum(r.get("fill") == DARK for r in offs) == seen.off[1]


def test_big_stack_shows_its_count() -> None:
    pos = Position.from_simple(
        [0, 0, 0, 0, 0, 0, 15, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -15, 0, 0, 0, 0, 0, 0]
    )
    texts = [t.text for t in parse(board_svg(pos)).iter("{http://www.w3.org/2000/svg}text")]
    assert texts.count("15") >= 3  # both stacks, plus the label of point 15


def test_match_context_cube_dice_score_crawford() -> None:
    svg = board_svg(
        Position.initial(),
        dice=(6, 2),
        cube_value=4,
        cube_owner="top",
        score=(3, 1),
        length=7,
        crawford=True,
        names=("Ann", "Bob"),
    )
    root = parse(svg)
    dice = [
        g.get("data-value")
        for g in root.iter("{http://www.w3.org/2000/svg}g")
        if g.get("class") == "die"
    ]
    assert dice == ["6", "2"]
    cube = next(g for g in root.iter("{http://www.w3.org/2000/svg}g") if g.get("class") == "cube")
    assert cube.get("data-owner") == "top"
    assert "4" in [t.text for t in cube.iter("{http://www.w3.org/2000/svg}text")]
    text = " ".join("".join(t.itertext()) for t in root.iter("{http://www.w3.org/2000/svg}text"))
    assert "Ann · score 3 · pips 167" in text
    assert "Bob · score 1 · pips 167" in text
    assert "7-point match · Crawford" in text


def test_centred_cube_shows_64_and_owner_moves_it() -> None:
    root = parse(board_svg(Position.initial()))
    cube = next(g for g in root.iter("{http://www.w3.org/2000/svg}g") if g.get("class") == "cube")
    assert cube.get("data-owner") == "centre"
    assert [t.text for t in cube.iter("{http://www.w3.org/2000/svg}text")] == ["64"]
    ys = {}
    for owner in ("top", "bottom"):
        r = parse(board_svg(Position.initial(), cube_value=2, cube_owner=owner))  # type: ignore[arg-type]
        cube = next(g for g in r.iter("{http://www.w3.org/2000/svg}g") if g.get("class") == "cube")
        ys[owner] = float(next(cube.iter("{http://www.w3.org/2000/svg}rect")).get("y", 0))
    assert ys["top"] < ys["bottom"]


def test_highlight_and_selection() -> None:
    root = parse(board_svg(Position.initial(), highlight=[18, 0], selected=24))
    targets = {
        g.get("data-point")
        for g in root.iter("{http://www.w3.org/2000/svg}g")
        if "target" in (g.get("class") or "").split()
    }
    assert targets == {"18", "0"}
    sel = [
        c
        for c in root.iter("{http://www.w3.org/2000/svg}circle")
        if "selected" in (c.get("class") or "")
    ]
    assert [c.get("data-point") for c in sel] == ["24"]


def test_direction_mirrors_the_board() -> None:
    """Home on the right puts point 1 at the right edge; on the left, at the left edge."""

    def x_of(svg: str, point: str) -> float:
        g = next(
            g
            for g in parse(svg).iter("{http://www.w3.org/2000/svg}g")
            if g.get("data-point") == point
        )
        return float(next(g.iter("{http://www.w3.org/2000/svg}rect")).get("x", 0))

    right = board_svg(Position.initial())
    left = board_svg(Position.initial(), home="left")
    assert x_of(right, "1") > x_of(right, "12")
    assert x_of(left, "1") < x_of(left, "12")


def test_flipped_drawing_is_the_flipped_position() -> None:
    pos = Position.initial().play(Position.initial().legal_moves((6, 5))[0])
    assert checkers_by_point(
        parse(board_svg(pos, on_roll_at_bottom=False)), LIGHT
    ) == checkers_by_point(parse(board_svg(pos.flip())), LIGHT)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"home": "up"},
        {"cube_owner": "me"},
        {"cube_value": 3},
        {"dice": (0, 7)},
        {"highlight": [26]},
        {"selected": -1},
    ],
)
def test_bad_arguments_are_refused(kwargs: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        board_svg(Position.initial(), **kwargs)  # type: ignore[arg-type]


def test_width_sets_size() -> None:
    root = parse(board_svg(Position.initial(), width=320))
    assert root.get("width") == "320"
    assert 0 < int(root.get("height", "0")) < 320


def test_match_svg_draws_the_match_from_either_player() -> None:
    """The cube turned to its owner's side (R24), the dice of the player on roll, the score."""
    from backgammon.play.match import Match
    from backgammon.svg import match_svg

    m = Match(length=5)
    m.roll((3, 1))  # player 0 wins the opening roll (R3)
    m.move("8/5 6/5")
    m.double()
    m.take()  # player 1 doubled, player 0 took: player 0 owns the cube at 2
    m.roll((6, 4))
    for viewer, side in ((0, "bottom"), (1, "top")):
        root = parse(match_svg(m, viewer=viewer, names=("Ann", "Bob")))
        cube = next(g for g in root.iter(f"{{{NS['s']}}}g") if g.get("class") == "cube")
        assert cube.get("data-owner") == side
        dice = [
            g.get("data-value") for g in root.iter(f"{{{NS['s']}}}g") if g.get("class") == "die"
        ]
        assert dice == ["6", "4"]
        text = " ".join("".join(t.itertext()) for t in root.iter(f"{{{NS['s']}}}text"))
        assert "5-point match" in text and "Ann" in text and "Bob" in text
    # Player 1 is on roll: from player 1's side its checkers (light) are at the bottom.
    assert checkers_by_point(parse(match_svg(m, viewer=1)), LIGHT) == {24: 2, 13: 5, 8: 3, 6: 5}
    with pytest.raises(ValueError):
        match_svg(m, viewer=2)


def test_notebooks_draw_positions_and_matches() -> None:
    from backgammon import Match

    assert Position.initial()._repr_svg_() == board_svg(Position.initial())
    m = Match(length=3)
    m.roll((3, 1))
    assert m._repr_svg_().startswith("<svg") and "data-point" in m._repr_svg_()


def test_interactive_boards_label_every_point_for_keyboards_and_screen_readers() -> None:
    svg = board_svg(Position.initial(), names=("Ann", "Bob"), interactive=True)
    root = parse(svg)
    groups = [g for g in root.iter("{http://www.w3.org/2000/svg}g") if "data-point" in g.attrib]
    assert sorted(int(g.attrib["data-point"]) for g in groups) == list(range(26))
    labels = {int(g.attrib["data-point"]): g.attrib["aria-label"] for g in groups}
    assert all(g.attrib["tabindex"] == "0" and g.attrib["role"] == "button" for g in groups)
    assert labels[6] == "point 6: 5 of Ann's checkers"
    assert labels[1] == "point 1: 2 of Bob's checkers"
    assert labels[2] == "point 2: empty" and labels[25] == "bar: empty"
    assert labels[0] == "borne off: empty"
    assert "tabindex" not in board_svg(Position.initial())  # a picture by default


def test_a_match_won_by_a_gammon_shows_the_score_the_match_counts() -> None:
    """A 1-point match won by a gammon is 2-0 in points; the board shows 1-0, the score the
    match counts (won at its length) and the page's end dialog says, not a second one."""
    for seed in range(500):
        m = Match(1, dice=SeededDice(seed))
        while not m.is_over:
            if m.phase.value in ("opening", "roll"):
                m.roll()
            else:
                m.move(m.legal_moves()[0])
        if max(m.score) > 1:
            break
    assert max(m.score) == 2
    svg = match_svg(m, viewer=m.winner or 0, names=("a", "b"))
    assert sorted(re.findall(r"score (\d+)", svg)) == ["0", "1"]


def test_used_dice_fade_and_the_last_play_stays_in_sight() -> None:
    """Item 18: the dice a partial play has used are drawn faded.  Item 11: the last play of
    the side not to move keeps its dice (faded, on its half) and outlines the points its
    checkers left and reached, until the next throw."""
    svg = board_svg(Position.initial(), dice=(6, 2), dice_left=(2,))
    dice = [g for g in parse(svg).iter(f"{SVG}g") if "die" in (g.get("class") or "").split()]
    assert [(g.get("data-value"), g.get("class")) for g in dice] == [
        ("6", "die used"),
        ("2", "die"),
    ]
    doubles = board_svg(Position.initial(), dice=(3, 3), dice_left=(3, 3))
    assert parse(doubles).findall(f".//{SVG}g[@class='die used']") != []
    root = parse(board_svg(Position.initial(), played_dice=(4, 2), moved=[8, 4, 6]))
    played = next(g for g in root.iter(f"{SVG}g") if g.get("class") == "dice played")
    assert [d.get("data-value") for d in played] == ["4", "2"]
    marked = [
        g.get("data-point") for g in root.iter(f"{SVG}g") if "moved" in (g.get("class") or "")
    ]
    assert sorted(marked, key=int) == ["4", "6", "8"]

"""Our GNUbg IDs (Position ID + Match ID) fed to the real gnubg, which must show them back.

Random matches and money sessions are played with our engine; every state gnubg can load
(a player to roll or to play, any cube, score, Crawford or post-Crawford, Jacoby on or off)
is given to ``gnubg -t -q`` as ``set matchid`` + ``set board`` and gnubg's own IDs are read
back.  While a double is pending gnubg steps back to before the double (formats.md §2.1),
so for those states it must show our ID with the double taken out.
"""

from __future__ import annotations

import random
import re
import shutil
import subprocess
from dataclasses import replace

from matchhelp import board

from backgammon.ids.gnubg import MatchIdFields, decode_match_id, encode_match_id
from backgammon.play.dice import SeededDice
from backgammon.play.match import IllegalPositionError, Match, Phase
from backgammon.play.rules import Rules

GNUBG = shutil.which("gnubg") or shutil.which("/usr/games/gnubg")
# Not skipped when missing: .ci/run installs Debian's gnubg, and these are the proof.
assert GNUBG is not None, "install Debian's gnubg (apt-get install gnubg); CI does"


def _states(rules: Rules, seed: int, limit: int, *, xgid: bool = False) -> list[tuple[str, str]]:
    """(our GNUbg ID or XGID, the GNUbg ID gnubg should show) for the loadable states of a
    random match."""
    rng = random.Random(seed)
    m = Match(rules=rules, dice=SeededDice(seed))
    out: list[tuple[str, str]] = []
    while not m.is_over and len(out) < limit:
        acts = [a for a in m.legal_actions() if a != "resign"]
        a = rng.choice(acts)
        if a == "move":
            m.move(rng.choice(m.legal_moves()))
        else:
            getattr(m, a)()
        gid = m.gnubg_id()
        given = m.xgid() if xgid else gid
        pos, mid = gid.split(":")
        if m.phase in (Phase.ROLL, Phase.MOVE):
            out.append((given, gid))
        elif m.phase is Phase.DOUBLED and m.state.beavers == 0:
            f = decode_match_id(mid)
            back = replace(f, doubled=False, turn=f.dice_owner)
            out.append((given, f"{pos}:{encode_match_id(back)}"))
    return out


def _gnubg_chunks(script: str, n: int) -> list[list[str]]:
    """Run gnubg on ``script``; the GNUbg IDs it printed for each of the ``n`` parts."""
    assert GNUBG is not None
    out = subprocess.run(
        [GNUBG, "-t", "-q"], input=script, capture_output=True, text=True, timeout=120
    ).stdout
    chunks = out.split("New matches default to")[:n]
    return [
        [f"{p}:{q}" for p, q in re.findall(r"Position ID: (\S+)\s+Match ID\s+: (\S+)", c)]
        for c in chunks
    ]


def _gnubg_shows(ids: list[str]) -> list[str]:
    assert GNUBG is not None
    script = "".join(
        f"set matchid {gid.split(':')[1]}\nset board {gid.split(':')[0]}\nshow matchlength\n"
        for gid in ids
    )
    out = subprocess.run(
        [GNUBG, "-t", "-q"], input=script, capture_output=True, text=True, timeout=120
    ).stdout
    chunks = out.split("New matches default to")[: len(ids)]
    shown = []
    for chunk in chunks:
        pairs = re.findall(r"Position ID: (\S+)\s+Match ID\s+: (\S+)", chunk)
        shown.append(f"{pairs[-1][0]}:{pairs[-1][1]}" if pairs else "")
    return shown


def test_gnubg_shows_our_ids_back() -> None:
    cases: list[tuple[str, str]] = []
    for seed, rules in enumerate(
        [
            Rules(match_length=7),
            Rules(match_length=3),
            Rules(match_length=5),
            Rules.money(jacoby=True),
            Rules.money(),
            Rules(match_length=11),
        ]
    ):
        cases += _states(rules, seed, 150)
    ours = [c[0] for c in cases]
    expected = [c[1] for c in cases]
    shown = _gnubg_shows(ours)
    wrong = [(o, e, s) for o, e, s in zip(ours, expected, shown, strict=True) if e != s]
    assert len(cases) > 500
    assert any(":" in e and decode_match_id(e.split(":")[1]).crawford for e in expected)
    assert wrong == []


def test_gnubg_reads_our_xgids_as_our_gnubg_ids() -> None:
    # gnubg's ``set xgid`` prints the board a few times while it sets the fields; when the
    # top player is on roll it then swaps the players (formats.md §3), so the faithful
    # conversion is the last ID printed before that swap.  With bottom on roll it is the
    # last one printed.
    cases: list[tuple[str, str]] = []
    for seed, rules in enumerate(
        [Rules(match_length=7), Rules(match_length=4), Rules.money(jacoby=True), Rules.money()]
    ):
        cases += _states(rules, 100 + seed, 80, xgid=True)
    script = "".join(f"set xgid {x}\nshow matchlength\n" for x, _ in cases)
    chunks = _gnubg_chunks(script, len(cases))
    assert len(chunks) == len(cases) > 250
    wrong = []
    for (x, expected), printed in zip(cases, chunks, strict=True):
        bottom_on_roll = x.split(":")[3] == "1"
        if (bottom_on_roll and printed[-1:] != [expected]) or expected not in printed:
            wrong.append((x, expected, printed))
    assert wrong == []


def test_gnubg_allows_exactly_the_doubles_we_allow() -> None:
    # R23-R29 against gnubg: random match states (length, score, cube value and owner,
    # Crawford or post-Crawford, who is on roll, before or after the roll); gnubg is asked
    # to ``double`` and must accept exactly when our may_double() says yes.
    rng = random.Random(29)
    cases: list[tuple[str, bool]] = []
    while len(cases) < 400:
        n = rng.randint(1, 11)
        score = (rng.randrange(n), rng.randrange(n))
        crawford = n - 1 in score and n > 1 and rng.random() < 0.5
        cube = 1 if crawford else 1 << rng.randint(0, 5)
        owner = None if cube == 1 else rng.choice([0, 1])
        on_roll = rng.choice([0, 1])
        dice = rng.choice([(), (), (), (5, 2)])
        f = MatchIdFields(
            cube_value=cube,
            cube_owner=owner,
            dice_owner=on_roll,
            crawford=crawford,
            turn=on_roll,
            dice=dice,
            match_length=n,
            score=score,
        )
        gid = f"4HPwATDgc/ABMA:{encode_match_id(f)}"
        cases.append((gid, Match.from_gnubg_id(gid).may_double()))
    script = "".join(
        f"set matchid {g.split(':')[1]}\nset board {g.split(':')[0]}\ndouble\nshow matchlength\n"
        for g, _ in cases
    )
    chunks = _gnubg_text_chunks(
        "set player 0 human\nset player 1 human\nshow matchlength\n" + script, len(cases) + 1
    )[1:]
    gnubg_allows = [" doubles" in c for c in chunks]
    ours = [ok for _, ok in cases]
    assert 50 < sum(ours) < 350  # both answers are well represented
    wrong = [c for c, g in zip(cases, gnubg_allows, strict=True) if c[1] != g]
    assert wrong == []


def _gnubg_text_chunks(script: str, n: int) -> list[str]:
    assert GNUBG is not None
    out = subprocess.run(
        [GNUBG, "-t", "-q"], input=script, capture_output=True, text=True, timeout=120
    ).stdout
    return out.split("New matches default to")[:n]


def test_gnubg_refuses_exactly_the_positions_we_refuse() -> None:
    # Players on the bar against boards closed or nearly so, loaded with ``set board``:
    # gnubg answers "Illegal position." exactly when both are closed out (CheckPosition),
    # and Match.from_gnubg_id must refuse exactly those.
    rng = random.Random(13)
    cases: list[tuple[str, bool]] = [("27YBANC2bQAABA:cAkAAAAAAAAA", True)]
    while len(cases) < 120:
        sides: list[dict[int, int]] = []
        for _ in range(2):
            side = {25: rng.choice([0, 1, 1, 2])}
            opened = rng.sample(range(1, 7), rng.choice([0, 0, 0, 1, 2]))
            side.update({p: 0 if p in opened else 2 for p in range(1, 7)})
            side[rng.randint(7, 12)] = 15 - sum(side.values()) - rng.randint(0, 1)
            sides.append(side)
        pos = board(sides[0], sides[1])
        mover = rng.choice([0, 1])
        mid = encode_match_id(MatchIdFields(dice_owner=mover, turn=mover, match_length=5))
        gid = f"{pos.position_id()}:{mid}"
        try:
            Match.from_gnubg_id(gid)
        except IllegalPositionError:
            cases.append((gid, True))
        else:
            cases.append((gid, False))
    script = "".join(
        f"new match 5\nset matchid {g.split(':')[1]}\nset board {g.split(':')[0]}\n"
        "show matchlength\n"
        for g, _ in cases
    )
    chunks = _gnubg_text_chunks(
        "set player 0 human\nset player 1 human\nshow matchlength\n" + script, len(cases) + 1
    )[1:]
    gnubg_refuses = ["Illegal position" in c for c in chunks]
    assert 20 < sum(refused for _, refused in cases) < 100  # both answers are well represented
    wrong = [c for c, g in zip(cases, gnubg_refuses, strict=True) if c[1] != g]
    assert wrong == []

"""Differential test of legal-play generation against GNU Backgammon's own generator.

gnubg's generator comes from PyPI's gnubg-nn.  The sets of distinct resulting positions must
be equal on every case: positions from games gnubg played against itself (each with its roll
and, for every tenth, all 21 rolls), random bear-offs with gaps, and positions full of
closed points where the rules about playing only part of a roll (R9) decide.  The same
checks over 1,000,000 cases: `python bench/differential.py --cases 1000000`.
"""

from __future__ import annotations

import itertools
import json

from gnubg_reference import (
    Comparison,
    all_rolls,
    bearoff_cases,
    blocked_cases,
    gnubg_results,
    played_game_cases,
)
from reference import REFERENCE

from backgammon import Position


def test_all_21_opening_rolls_match_gnubg_counts() -> None:
    counts = json.loads((REFERENCE / "movegen_counts_start.json").read_text())["gnubg_nn_counts"]
    start = Position.initial()
    for roll, expected in counts.items():
        dice = (int(roll[0]), int(roll[1]))
        assert len(start.legal_moves(dice)) == expected, roll
        assert len(gnubg_results(start, *dice)) == expected


def test_agrees_with_gnubg_on_20000_cases_and_more() -> None:
    comparison = Comparison()
    for index, case in enumerate(itertools.islice(played_game_cases(10**6, seed=2024), 16000)):
        comparison.check(*case)
        if index % 10 == 0:
            for pos, d1, d2 in all_rolls(case[0]):
                comparison.check(pos, d1, d2)
    for case in bearoff_cases(3000, seed=5):
        comparison.check(*case)
    for pos in blocked_cases(400, seed=9):
        for case in all_rolls(pos):
            comparison.check(*case)
    assert comparison.mismatches == [], comparison.mismatches[:10]
    assert comparison.cases >= 20000
    kinds = comparison.kinds
    print(comparison.cases, kinds)
    for kind, at_least in {
        "doubles": 3000,
        "bar entry": 1000,
        "closed board": 50,
        "bear-off": 2000,
        "no play": 200,
        "blocked intermediate (R7)": 100,
        "partial roll (R9)": 300,
        "larger-die rule (R9)": 30,
    }.items():
        assert kinds.get(kind, 0) >= at_least, (kind, kinds)

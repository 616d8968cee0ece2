"""The analysis's results: gnubg's marks and rating words, and the mark order that
``verify`` and :meth:`Analysis.errors` use."""

from __future__ import annotations

import re

import pytest
from records_helpers import run_gnubg

from backgammon.judging.results import (
    MARK_WORDS,
    THRESHOLDS,
    Analysis,
    Judged,
    MarkError,
    PlayerStats,
    ThresholdError,
    mark,
    marked_at_least,
    rating,
    thresholds,
)


def test_marks_use_the_thresholds_debians_gnubg_shows() -> None:
    shown = run_gnubg(["show analysis"])
    gnubg = {
        w: float(v) for v, w in re.findall(r"^\s+-(\d\.\d+) (doubtful|bad|very bad)$", shown, re.M)
    }
    assert dict(THRESHOLDS) == gnubg == {"very bad": 0.12, "bad": 0.06, "doubtful": 0.03}
    # An error exactly at a threshold is not marked (gnubg marks errors beyond it).
    assert [mark(e) for e in (0.03, 0.05, 0.06, 0.09, 0.2)] == [
        "",
        "doubtful",
        "doubtful",
        "bad",
        "very bad",
    ]
    mine = thresholds(0.04, 0.08, 0.16)
    assert [mark(e, mine) for e in (0.035, 0.05, 0.09, 0.2)] == ["", "doubtful", "bad", "very bad"]
    for bad in [(0.06, 0.03, 0.12), (0.0, 0.06, 0.12), (0.03, 0.06, float("nan"))]:
        with pytest.raises(ThresholdError):
            thresholds(*bad)


def test_ratings_use_gnubgs_words() -> None:
    assert rating(0.001) == "Supernatural" and rating(0.006) == "Expert"
    assert rating(0.04) == "Awful!"


def test_marks_are_ordered_from_doubtful_to_very_bad() -> None:
    assert MARK_WORDS == ("doubtful", "bad", "very bad")
    assert [marked_at_least(w, "bad") for w in ("", *MARK_WORDS)] == [False, False, True, True]
    assert all(marked_at_least(w, "doubtful") for w in MARK_WORDS)
    assert not marked_at_least("", "doubtful")
    with pytest.raises(MarkError):
        marked_at_least("bad", "awful")


def test_errors_lists_the_decisions_marked_at_least_so_badly() -> None:
    words = ["", "doubtful", "bad", "very bad", "bad"]
    decisions = [
        Judged(1, i, 0, "checker", "a", "b", 0.1 * i, w, "id") for i, w in enumerate(words)
    ]
    a = Analysis((PlayerStats("a"), PlayerStats("b")), decisions, [], 2, 3)
    assert [d.move for d in a.errors("very bad")] == [3]
    assert [d.move for d in a.errors()] == [2, 3, 4]
    assert [d.move for d in a.errors("doubtful")] == [1, 2, 3, 4]
    assert "verify" not in a.to_json()
    with pytest.raises(MarkError):
        a.errors("awful")

"""What the review page needs beyond the analysis's JSON: where each decision stands in the
match page's move log (its ``line``, the number the log's list gives the line that tells it:
the play, the double or the answer), the games with the score each began at, the names, and
which decision each point of the winning-chance graph belongs to.  Computed by replaying the
match's record once, for web matches and uploaded files alike."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from backgammon.play.dice import FixedDice
from backgammon.play.match import GameEnd, GameStart, Match
from backgammon.web.service.game import Throw, log_line

__all__ = ["annotate", "log_points"]


def log_points(match: Match, names: Sequence[str]) -> tuple[list[str], list[tuple[str, int]]]:
    """The move log of ``match`` as the match page writes it, and before each entry a
    player made (not those the match made itself) the gnubg ID then and the number of log
    lines written before it."""
    record = match.record
    quiet = FixedDice(())
    m = Match(rules=record.rules, dice=quiet) if record.start is None else None
    if m is None:
        assert record.start is not None
        m = Match.from_state(record.start, dice=quiet)
    lines: list[str] = []
    points: list[tuple[str, int]] = []
    pending: Throw = None
    for i, a in enumerate(record.actions()):
        made = sum(len(g) for g in m.record.games)
        if i >= made and not isinstance(a, GameStart | GameEnd):
            points.append((m.gnubg_id(), len(lines)))
            m.apply(a)
        line, pending = log_line(a, names, pending)
        if line is not None:
            lines.append(line)
    return lines, points


def annotate(analysis: dict[str, Any], match: Match, names: Sequence[str]) -> None:
    """Add to ``analysis`` (``Analysis.to_json()`` of ``match``) each decision's log
    ``line``, the ``games`` (number, score at its start, Crawford), the ``names`` and, on
    each point of the ``mwc`` track, the index of its decision."""
    lines, points = log_points(match, names)
    at = 0
    for d in analysis["decisions"]:
        k = next((k for k in range(at, len(points)) if points[k][0] == d["gnubg_id"]), None)
        if k is not None:
            at = k
            if points[k][1] < len(lines):
                d["line"] = points[k][1] + 1
    analysis["games"] = [
        {"game": a.game, "score": list(a.score), "crawford": a.crawford}
        for a in match.record.actions()
        if isinstance(a, GameStart)
    ]
    analysis["names"] = list(names)
    checker = [i for i, d in enumerate(analysis["decisions"]) if d["kind"] == "checker"]
    if len(checker) == len(analysis["mwc"]):  # one point per judged play, in order
        for point, i in zip(analysis["mwc"], checker, strict=True):
            point["decision"] = i

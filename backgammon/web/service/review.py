"""What the review page needs beyond the analysis's JSON: where each decision stands in the
match page's move log (its ``line``, the number the log's list gives the line that tells it:
the play, the double or the answer), the games with the score each began at, the names, and
which decision each point of the winning-chance graph belongs to.  Gathered by visitors of
the analysis's own walk of the record (:class:`ReviewLog`, :class:`ReplaySteps`), so a web
match and an uploaded file alike are replayed once to be reviewed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from backgammon.play.match import GameEnd, GameStart, Match, Pass, Play
from backgammon.play.record import Action
from backgammon.records.walk import Visitor
from backgammon.web.service.game import Throw, log_line

__all__ = ["ReplaySteps", "ReviewLog", "annotate", "replay_steps"]


class ReviewLog(Visitor):
    """The move log of the walked match as the match page writes it (``lines``); before each
    entry a player made (not those the match made itself) the gnubg ID then and the number of
    log lines written before it (``points``); each game's start (``games``)."""

    def __init__(self, names: Sequence[str]) -> None:
        self.names = names
        self.lines: list[str] = []
        self.points: list[tuple[str, int]] = []
        self.games: list[GameStart] = []
        self._pending: Throw = None

    def _log(self, a: Action) -> None:
        line, self._pending = log_line(a, self.names, self._pending)
        if line is not None:
            self.lines.append(line)

    def begin_game(self, match: Match, start: GameStart) -> None:
        self.games.append(start)
        self._log(start)

    def visit_step(self, match: Match, step: Action) -> None:
        self.points.append((match.gnubg_id(), len(self.lines)))
        self._log(step)

    def visit_automatic(self, match: Match, step: Play | Pass) -> None:
        self._log(step)

    def end_game(self, match: Match, end: GameEnd) -> None:
        self._log(end)


class ReplaySteps(Visitor):
    """The gnubg ID after each of a web match's stored actions, read off the walk: ``ends``
    holds the number of record entries after each (:attr:`Game.ends`), and every one of them
    falls before a step a player makes or at the end of the record."""

    def __init__(self, ends: Sequence[int]) -> None:
        self.ends = ends
        self.count = 0  # record entries walked so far
        self.at: dict[int, str] = {}  # entries walked -> the gnubg ID then

    def begin_game(self, match: Match, start: GameStart) -> None:
        self.count += 1

    def visit_step(self, match: Match, step: Action) -> None:
        self.at.setdefault(self.count, match.gnubg_id())
        self.count += 1

    def visit_automatic(self, match: Match, step: Play | Pass) -> None:
        self.count += 1

    def end_game(self, match: Match, end: GameEnd) -> None:
        self.count += 1

    def end(self, match: Match) -> None:
        self.at[self.count] = match.gnubg_id()

    def ids(self) -> list[str]:
        """The gnubg ID after each number of stored actions (0 first)."""
        return [self.at[n] for n in self.ends]


def replay_steps(decisions: list[dict[str, Any]], ids: Sequence[str]) -> None:
    """Give each decision the replay step it was taken at (``step``: how many of the match's
    stored actions came before it), found by its gnubg ID among ``ids`` (after each number
    of stored actions), in order; a decision not found keeps no step."""
    at = 0
    for d in decisions:
        found = next((k for k in range(at, len(ids)) if ids[k] == d["gnubg_id"]), None)
        if found is not None:
            d["step"] = at = found


def annotate(analysis: dict[str, Any], log: ReviewLog) -> None:
    """Add to ``analysis`` (``Analysis.to_json()`` of the walk ``log`` visited) each
    decision's log ``line``, the ``games`` (number, score at its start, Crawford), the
    ``names`` and, on each point of the ``mwc`` track, the index of its decision."""
    lines, points = log.lines, log.points
    at = 0
    for d in analysis["decisions"]:
        k = next((k for k in range(at, len(points)) if points[k][0] == d["gnubg_id"]), None)
        if k is not None:
            at = k
            if points[k][1] < len(lines):
                d["line"] = points[k][1] + 1
    analysis["games"] = [
        {"game": a.game, "score": list(a.score), "crawford": a.crawford} for a in log.games
    ]
    analysis["names"] = list(log.names)
    checker = [i for i, d in enumerate(analysis["decisions"]) if d["kind"] == "checker"]
    if len(checker) == len(analysis["mwc"]):  # one point per judged play, in order
        for point, i in zip(analysis["mwc"], checker, strict=True):
            point["decision"] = i

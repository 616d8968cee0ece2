"""What an analysis finds: the judged decisions, each player's totals, the marks and rating
words with gnubg's thresholds, and their JSON for programs (the judging itself is in
:mod:`backgammon.judging.analysis`)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from backgammon.core.values import Move
from backgammon.evaluation.search import MoveFilter
from backgammon.judging.marks import MARK_WORDS, THRESHOLDS, Thresholds
from backgammon.play.state import MatchState
from backgammon.players.base import RankedMove

__all__ = [
    "MARK_WORDS",
    "RATINGS",
    "REVIEW_FILTER",
    "THRESHOLDS",
    "Analysis",
    "Candidate",
    "CubeValues",
    "Judged",
    "MarkError",
    "PlayerStats",
    "ThresholdError",
    "Thresholds",
    "mark",
    "marked_at_least",
    "rating",
    "review_json",
    "thresholds",
]


class MarkError(ValueError):
    """A mark that is not one of :data:`MARK_WORDS`."""


def marked_at_least(word: str, floor: str) -> bool:
    """Whether the mark ``word`` ('' for none) is ``floor`` or worse."""
    if floor not in MARK_WORDS:
        raise MarkError(f"a mark is one of {', '.join(MARK_WORDS)}, not {floor!r}")
    return word in MARK_WORDS[MARK_WORDS.index(floor) :]


class ThresholdError(ValueError):
    """Mark thresholds that are not positive and increasing from doubtful to very bad."""


def thresholds(doubtful: float, bad: float, very_bad: float) -> Thresholds:
    """The marks' thresholds in EMG, checked (0 < doubtful <= bad <= very bad)."""
    bounds = (doubtful, bad, very_bad)
    if not all(isinstance(b, (int, float)) and 0 < b < 10 for b in bounds) or not (
        doubtful <= bad <= very_bad
    ):
        raise ThresholdError(f"mark thresholds are 0 < doubtful <= bad <= very bad, not {bounds}")
    return (("very bad", float(very_bad)), ("bad", float(bad)), ("doubtful", float(doubtful)))


RATINGS = (
    (0.002, "Supernatural"),
    (0.005, "World class"),
    (0.008, "Expert"),
    (0.012, "Advanced"),
    (0.018, "Intermediate"),
    (0.026, "Casual player"),
    (0.035, "Beginner"),
)
"""gnubg's rating words by error per decision (EMG): below the bound gets the word."""


def mark(error: float, marks: Thresholds = THRESHOLDS) -> str:
    """The mark of an error in EMG: '', 'doubtful', 'bad' or 'very bad' (gnubg's thresholds
    unless others are given)."""
    for word, bound in marks:
        if error > bound:
            return word
    return ""


def rating(rate: float) -> str:
    """gnubg's rating word for an error rate in EMG per decision."""
    for bound, word in RATINGS:
        if rate < bound:
            return word
    return "Awful!"


REVIEW_FILTER = MoveFilter(most=8, width=0.16, least=5)
"""The plays the review judges at the analysis depth with each checker decision: as gnubg's
move filter for its 2-ply analysis, up to eight within 0.16 of the best at 0-ply, and five at
least where the roll has as many (the played one is added)."""


@dataclass(frozen=True)
class Candidate:
    """One play of a decision as the judge ranks it: its value for the mover (EMG, and MWC
    in a match), the mover's five probabilities after it, and the depth they come from."""

    move: str
    equity: float
    probabilities: tuple[float, float, float, float, float]
    plies: int
    mwc: float | None = None
    rollout_trials: int = 0
    """Trials of the rollout the figures come from (0: from the search at ``plies``)."""

    @classmethod
    def of(cls, r: RankedMove) -> Candidate:
        """A ranked play as a candidate."""
        p = tuple(float(x) for x in r.probabilities.array())
        return cls(str(r.move), r.equity, (p[0], p[1], p[2], p[3], p[4]), r.plies, r.mwc)


@dataclass(frozen=True)
class CubeValues:
    """A cube decision's three values for the doubler (EMG, and MWC in a match) and the
    proper action."""

    no_double: float
    double_take: float
    double_pass: float
    proper: str
    mwc: tuple[float, float, float] | None = None
    rollout_trials: int = 0
    """Trials of the rollout the values come from (0: from the search)."""


@dataclass(frozen=True)
class Judged:
    """One judged decision.  ``move`` is the row of the .mat file it stands on, ``player``
    0 for the file's left column; ``error_emg`` is what it lost (0 when right); ``gnubg_id``
    the position and match (dice included for a checker play) where it was made."""

    game: int
    move: int
    player: int
    kind: str  # "checker" | "double" | "take"
    played: str
    best: str
    error_emg: float
    mark: str
    gnubg_id: str
    best_move: Move | None = None
    state: MatchState | None = field(default=None, compare=False, repr=False)
    """The match as it stood at the decision (met on the analysis's walk)."""
    dice: tuple[int, int] | None = None
    candidates: tuple[Candidate, ...] = ()
    """A checker play's best plays, best first, and the played one if it is not among them."""
    cube: CubeValues | None = None
    luck: float | None = None
    """The luck of the roll before a checker play (EMG, positive = lucky)."""
    error_mwc: float | None = None
    """In a match, ``error_emg`` as match winning chance lost."""


@dataclass
class PlayerStats:
    """One player's totals (errors in EMG, positive = lost)."""

    name: str
    unforced: int = 0
    checker_error: float = 0.0
    cube_decisions: int = 0
    cube_error: float = 0.0
    luck_emg: float = 0.0
    luck_result: float = 0.0  # in MWC (a match) or points (money)
    result: float = 0.0
    marks: dict[str, int] = field(default_factory=dict)

    @property
    def checker_rate(self) -> float:
        """Checker error per unforced play (EMG)."""
        return self.checker_error / self.unforced if self.unforced else 0.0

    @property
    def cube_rate(self) -> float:
        """Cube error per counted cube decision (EMG)."""
        return self.cube_error / self.cube_decisions if self.cube_decisions else 0.0

    @property
    def overall_rate(self) -> float:
        """Error per counted decision, checker and cube together (EMG)."""
        n = self.unforced + self.cube_decisions
        return (self.checker_error + self.cube_error) / n if n else 0.0

    @property
    def pr(self) -> float:
        """XG-style performance rating: 500 x the overall error per decision (EMG)."""
        return 500.0 * self.overall_rate

    @property
    def rating(self) -> str:
        """gnubg's rating word for the overall error rate."""
        return rating(self.overall_rate)

    @property
    def luck_adjusted(self) -> float:
        """The result with the luck of both sides taken out (MWC, or money points)."""
        return self.result - self.luck_result


@dataclass
class Analysis:
    """A whole match judged: per-player totals, every decision, and the MWC of player 0
    after each checker play (for a graph; the money equity in a money game)."""

    players: tuple[PlayerStats, PlayerStats]
    decisions: list[Judged]
    track: list[tuple[int, int, float]]
    plies: int
    length: int
    verify: str | None = None
    """The mark from which every decision was judged again by rollouts (None: only the
    default's, marked race plays and very bad cube decisions)."""

    def errors(self, at_least: str = "bad") -> list[Judged]:
        """The decisions marked ``at_least`` ('doubtful', 'bad' or 'very bad') or worse."""
        return [d for d in self.decisions if marked_at_least(d.mark, at_least)]

    def to_json(self) -> dict[str, Any]:
        """The analysis for programs (numbers positive = lost; luck positive = lucky)."""
        return {
            "plies": self.plies,
            "length": self.length,
            **({"verify": self.verify} if self.verify else {}),
            "players": [
                {
                    "name": p.name,
                    "checker": {
                        "unforced": p.unforced,
                        "error_emg": p.checker_error,
                        "rate_memg": 1000.0 * p.checker_rate,
                    },
                    "cube": {
                        "decisions": p.cube_decisions,
                        "error_emg": p.cube_error,
                        "rate_memg": 1000.0 * p.cube_rate,
                    },
                    "overall": {
                        "rate_memg": 1000.0 * p.overall_rate,
                        "pr": p.pr,
                        "rating": p.rating,
                    },
                    "luck": {
                        "total_emg": p.luck_emg,
                        "result": p.result,
                        "luck_adjusted_result": p.luck_adjusted,
                    },
                    "marks": dict(p.marks),
                }
                for p in self.players
            ],
            "decisions": [
                {
                    "game": d.game,
                    "move": d.move,
                    "player": d.player,
                    "kind": d.kind,
                    "played": d.played,
                    "best": d.best,
                    "error_emg": d.error_emg,
                    "mark": d.mark,
                    "gnubg_id": d.gnubg_id,
                    **({"error_mwc": d.error_mwc} if d.error_mwc is not None else {}),
                    **review_json(d),
                }
                for d in self.decisions
            ],
            "mwc": [{"game": g, "move": mv, "value": v} for g, mv, v in self.track],
        }


def review_json(d: Judged) -> dict[str, Any]:
    """What shows a decision beyond its error: the dice and the candidates of a checker
    play, with the luck of its roll; a cube decision's three values and proper action."""
    out: dict[str, Any] = {}
    if d.dice is not None:
        out["dice"] = list(d.dice)
    if d.candidates:
        out["candidates"] = [
            {"play": c.move, "equity": c.equity, "probabilities": list(c.probabilities)}
            | ({"mwc": c.mwc} if c.mwc is not None else {})
            | {"plies": c.plies}
            | ({"rollout_trials": c.rollout_trials} if c.rollout_trials else {})
            for c in d.candidates
        ]
    if d.luck is not None:
        out["luck_emg"] = d.luck
    if d.cube is not None:
        out["cube"] = dataclasses.asdict(d.cube)
    return out

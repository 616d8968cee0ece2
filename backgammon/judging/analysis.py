"""Judging a played match as GNU Backgammon does: every checker play and cube decision, the
error rates, the marks, the luck of every roll.

:func:`analyse` takes a :class:`~backgammon.play.match.Match` or a match-file model
(:class:`~backgammon.records.matchfile.MatchFile`, what ``.mat`` and SGF files read into) and a
network player, and returns an :class:`Analysis`.  The definitions are gnubg's
(``analysis.c``):

* every value is cubeful at the real score, cube and Crawford state, expressed as equity
  normalised to a money game (EMG: money equity per unit of the cube, or the match winning
  chance mapped so that losing the cube's points is -1 and winning them +1);
* a checker play's error is the best play's value minus the played one's, both judged at
  the same depth; it counts when the roll had more than one legal play (unforced);
* cube decisions: before each roll where the player could double, a missed double costs
  the best action's value minus no double's, and the decision counts when it was close
  (doubling was not wrong by 0.16 or more); an actual double costs the best action minus
  the double's (the taker's best answer); a take or a pass costs the difference to the other
  answer when it was the wrong one, and every actual cube action counts;
* marks: an error over 0.03 EMG is doubtful, over 0.06 bad, over 0.12 very bad (gnubg
  1.07's thresholds, which ``analyse`` takes others of);
* the error rate is the error per counted decision in thousandths of EMG (mEMG): checker
  plays, cube decisions, and both together, which gives gnubg's rating words;
* PR ("performance rating", in the style of eXtreme Gammon): 500 times the average error in
  EMG per counted decision (checker plays and cube decisions together), which is half the
  overall error rate in mEMG; lower is better;
* a play in a race (no contact left, not a pure bear-off) that the search marks is judged
  again by cubeful rollouts of the best and the played play to the end (72 variance-reduced
  trials): races are where the net's gammon chances are furthest off, and such rollouts
  agree with gnubg's 2-ply within a point (gnubg marks by its search alone);
* luck of a roll: the value of the best play of the roll rolled minus the average over the
  36 rolls (the 30 non-doubles for an opening roll), at 0-ply; the luck-adjusted result is
  the result (MWC won, or points in money) minus the luck in the same unit, the opponent's
  luck added back.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from backgammon.core.position import Position
from backgammon.core.values import Move, iter_rolls
from backgammon.judging.evaluate import proper_action
from backgammon.judging.rollout import RolloutSettings, rollout
from backgammon.play.match import Match, Phase
from backgammon.play.state import MatchState
from backgammon.players.base import RankedMove
from backgammon.players.bearoff import is_bearoff
from backgammon.players.cube import CubeDecision, CubeState, emg_to_mwc, to_emg
from backgammon.players.encode import boards_array, is_race
from backgammon.players.met import MatchEquityTable
from backgammon.players.neural import NeuralPlayer
from backgammon.records import matchfile
from backgammon.records.matchfile import (
    FileDouble,
    FileDrop,
    FileRoll,
    FileTake,
    GameFile,
    MatchFile,
)

__all__ = [
    "RATINGS",
    "THRESHOLDS",
    "Analysis",
    "Judged",
    "PlayerStats",
    "ThresholdError",
    "Thresholds",
    "analyse",
    "cube_errors",
    "judge_play",
    "mark",
    "mat_rows",
    "rating",
    "thresholds",
]

Thresholds = tuple[tuple[str, float], ...]
"""Marks and the errors (EMG) above which they are given, worst first."""

THRESHOLDS: Thresholds = (("very bad", 0.12), ("bad", 0.06), ("doubtful", 0.03))
"""gnubg 1.07's marks (``show analysis``): an error (EMG) above the threshold gets the word."""


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

_CLOSE = 0.16  # a no-double counts as a cube decision when doubling was wrong by less

RACE_ROLLOUT = RolloutSettings(trials=72, truncate=0, cubeful=True, bearoff_truncation=True)
"""How a marked play in a race is judged again: the best and the played play rolled out."""


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


REVIEW_CANDIDATES = 5
"""Plays kept with each checker decision for the review (the played one is added)."""


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

    def errors(self, at_least: str = "bad") -> list[Judged]:
        """The decisions marked ``at_least`` ('doubtful', 'bad' or 'very bad') or worse."""
        words = [w for w, _ in THRESHOLDS]
        keep = set(words[: words.index(at_least) + 1])
        return [d for d in self.decisions if d.mark in keep]

    def to_json(self) -> dict[str, Any]:
        """The analysis for programs (numbers positive = lost; luck positive = lucky)."""
        return {
            "plies": self.plies,
            "length": self.length,
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
                    **_review_json(d),
                }
                for d in self.decisions
            ],
            "mwc": [{"game": g, "move": mv, "value": v} for g, mv, v in self.track],
        }


def _emg_diff(a: float, b: float, state: CubeState) -> float:
    """``a - b`` of two cubeful values of one side, in EMG."""
    return float(to_emg(a, state) - to_emg(b, state))


def cube_errors(d: CubeDecision, state: CubeState) -> dict[str, float]:
    """What each cube action loses (EMG, 0 when right) against the best, from the cubeful
    values of a decision: the doubler's "no double" and "double" (the taker answering
    best), the taker's "take" and "pass"."""
    nd, dt, dp = (float(to_emg(v, state)) for v in (d.no_double, d.double_take, d.double_pass))
    best = max(nd, min(dt, dp)) if state.may_double() else nd
    return {
        "no double": max(best - nd, 0.0),
        "double": max(best - min(dt, dp), 0.0),
        "take": max(dt - dp, 0.0),
        "pass": max(dp - dt, 0.0),
    }


def judge_play(
    bot: NeuralPlayer,
    pos: Position,
    dice: tuple[int, int],
    state: CubeState,
    move: Move,
    plies: int,
) -> tuple[float, RankedMove, RankedMove, list[RankedMove]] | None:
    """The error (EMG) of playing ``move``, the best play, the played one and every play
    ranked, all judged at ``plies``; None when the roll has at most one legal play."""
    legal = pos.legal_moves(dice)
    if len(legal) <= 1:
        return None
    result = pos.play(move).board
    move = next((mv for mv in legal if pos.play(mv).board == result), move)
    ranked = bot.ranked_moves(pos, dice, state, include=[move], plies=plies)
    best = ranked[0]
    mine = next(r for r in ranked if r.move == move and r.plies == best.plies)
    return max(best.equity - mine.equity, 0.0), best, mine, ranked


class _Judge:
    """The running analysis of one match."""

    def __init__(
        self,
        player: NeuralPlayer,
        plies: int,
        names: tuple[str, str],
        marks: Thresholds,
        race_rollouts: bool = True,
    ) -> None:
        self.bot = player
        self.plies = plies
        self.marks = marks
        self.race_rollouts = race_rollouts
        self.stats = (PlayerStats(names[0]), PlayerStats(names[1]))
        self.decisions: list[Judged] = []
        self.track: list[tuple[int, int, float]] = []
        self._cube: tuple[str, CubeDecision] | None = None
        self._luck: tuple[int, float] | None = None  # the last roll's player and luck

    # ------------------------------------------------------------------ values
    def cube(self, m: Match) -> CubeDecision:
        """The cube decision of the side on roll now (cached for the answer to a double)."""
        key = m.gnubg_id().split(":")[0] + repr(CubeState.from_match(m))
        if self._cube is None or self._cube[0] != key:
            decision = self.bot.cube_decision(m.position, CubeState.from_match(m), self.plies)
            self._cube = (key, decision)
        return self._cube[1]

    def cube_values(self, m: Match) -> CubeValues:
        """The doubler's three values now in EMG and the proper action, for the review."""
        d = self.cube(m)
        state = CubeState.from_match(m)
        nd, dt, dp = (float(to_emg(v, state, self.bot.met)) for v in d[:3])
        mwc = None if state.is_money else (d.no_double, d.double_take, d.double_pass)
        return CubeValues(nd, dt, dp, proper_action(d, state), mwc)

    # ------------------------------------------------------------------ decisions
    def add(
        self,
        m: Match,
        where: tuple[int, int, int],
        kind: str,
        played: str,
        best: str,
        error: float,
        best_move: Move | None = None,
        **review: Any,
    ) -> None:
        """Keep a decision made in ``m`` at ``where`` (game, .mat row, player), with its
        mark, the gnubg ID and the state it was made in (``review``: the fields that show
        it, see :class:`Judged`)."""
        game, row, player = where
        state = CubeState.from_match(m)
        if not state.is_money:
            zero = emg_to_mwc(0.0, state, self.bot.met)
            review["error_mwc"] = float(emg_to_mwc(error, state, self.bot.met) - zero)
        d = Judged(
            game,
            row,
            player,
            kind,
            played,
            best,
            error,
            mark(error, self.marks),
            m.gnubg_id(),
            best_move=best_move,
            state=m.state,
            **review,
        )
        self.decisions.append(d)
        if d.mark:
            marks = self.stats[d.player].marks
            marks[d.mark] = marks.get(d.mark, 0) + 1

    def missed_double(self, m: Match, game: int, row: int, player: int) -> None:
        """Judge not doubling before a roll when the player could double: the decision
        counts when it was close (doubling not wrong by 0.16 or more)."""
        state = CubeState.from_match(m)
        d = self.cube(m)
        errors = cube_errors(d, state)
        error = errors["no double"]
        close = errors["double"] < _CLOSE
        s = self.stats[player]
        s.cube_decisions += close
        s.cube_error += error
        if close or error > 0.0:
            best = "Double" if error > 0.0 else "No double"
            where = (game, row, player)
            self.add(m, where, "double", "No double", best, error, cube=self.cube_values(m))

    def double(self, m: Match, game: int, row: int, player: int) -> None:
        """Judge an actual double (the taker's best answer is what doubling gets)."""
        error = cube_errors(self.cube(m), CubeState.from_match(m))["double"]
        self.stats[player].cube_decisions += 1
        self.stats[player].cube_error += error
        best = "Double" if error <= 0.0 else "No double"
        self.add(m, (game, row, player), "double", "Double", best, error, cube=self.cube_values(m))

    def answer(self, m: Match, game: int, row: int, player: int, took: bool) -> None:
        """Judge a take or a pass (the doubler's values, the taker's loss)."""
        errors = cube_errors(self.cube(m), CubeState.from_match(m))
        error = errors["take" if took else "pass"]
        right = "Pass" if errors["take"] > 0.0 else "Take"
        self.stats[player].cube_decisions += 1
        self.stats[player].cube_error += error
        played = "Take" if took else "Pass"
        where = (game, row, player)
        self.add(m, where, "take", played, right, error, cube=self.cube_values(m))

    def luck(self, m: Match, player: int, dice: tuple[int, int], opening: bool) -> None:
        """The luck of ``dice`` for ``player`` (before the play)."""
        pos = m.position
        state = CubeState.from_match(m)
        by_roll = self.bot.searcher.roll_values(pos, state)
        rolls = [(a, b) for a, b in iter_rolls() if not (opening and a == b)]
        weights = np.array([1.0 if (a == b or opening) else 2.0 for a, b in rolls])
        values = np.array([by_roll[r] for r in rolls])
        mean = float(weights @ values / weights.sum())
        hi, lo = max(dice), min(dice)
        rolled = values[rolls.index((hi, lo))]
        luck_emg = _emg_diff(float(rolled), mean, state)
        self._luck = (player, luck_emg)
        s = self.stats[player]
        s.luck_emg += luck_emg
        raw = float(rolled) - mean
        unit = raw * state.cube_value if state.is_money else raw
        s.luck_result += unit
        self.stats[1 - player].luck_result -= unit

    def checker(self, m: Match, game: int, row: int, player: int, move: Move) -> None:
        """Judge a play (the match stands after the roll, before the play)."""
        dice = m.dice
        assert dice is not None
        state = CubeState.from_match(m)
        luck, self._luck = self._luck, None
        judged = judge_play(self.bot, m.position, dice, state, move, self.plies)
        if judged is None:
            return
        error, best, mine, ranked = judged
        shown = [r for r in ranked if r.plies == best.plies][:REVIEW_CANDIDATES]
        if all(r.move != mine.move for r in shown):
            shown.append(mine)
        candidates = [Candidate.of(r) for r in shown]
        best_move = best.move
        value = best.mwc if best.mwc is not None else best.equity
        if self.race_rollouts and mark(error, self.marks) and _unsure_race(m.position):
            error, best_move, candidates = self._race_rollout(m, dice, best_move, mine.move, shown)
        s = self.stats[player]
        s.unforced += 1
        s.checker_error += error
        self.track.append((game, row, value if player == 0 else _other(value, state)))
        self.add(
            m,
            (game, row, player),
            "checker",
            str(mine.move),
            str(best_move),
            error,
            best_move=best_move,
            dice=(dice[0], dice[1]),
            candidates=tuple(candidates),
            luck=luck[1] if luck is not None and luck[0] == player else None,
        )

    def _race_rollout(
        self, m: Match, dice: tuple[int, int], best: Move, played: Move, shown: list[RankedMove]
    ) -> tuple[float, Move, list[Candidate]]:
        """The error of a marked race play judged again by rollouts of the best and the
        played play (:data:`RACE_ROLLOUT`), the better of them, and the candidates to show
        with those two from the rollout, best first."""
        bot = self.bot
        result = rollout(
            m.position,
            CubeState.from_match(m),
            dice=dice,
            moves=[str(best), str(played)],
            settings=RACE_ROLLOUT,
            weights=str(bot.weights_path),
            bearoff=bot.evaluator.bearoff is not None,
            met=bot.met,
        )
        n = result.trials
        rolled = {
            c.play: Candidate(c.play, c.equity, c.probabilities, 0, c.mwc, n)
            for c in result.candidates
        }
        by_play = {str(best): best, str(played): played}
        top = max(rolled.values(), key=lambda c: c.equity)
        error = max(top.equity - rolled[str(played)].equity, 0.0)
        others = [Candidate.of(r) for r in shown if str(r.move) not in rolled]
        candidates = sorted(rolled.values(), key=lambda c: -c.equity) + others
        return error, by_play[top.move], candidates[: max(len(shown), len(rolled))]


def _unsure_race(pos: Position) -> bool:
    """A race (no contact) that is not a pure bear-off, where the database is exact."""
    b = boards_array([pos.board])
    return bool(is_race(b)[0] and not is_bearoff(b)[0])


def _review_json(d: Judged) -> dict[str, Any]:
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


def _other(value: float, state: CubeState) -> float:
    return -value if state.is_money else 1.0 - value


def mat_rows(game: GameFile) -> list[int]:
    """The .mat row of each action of a game (two half-rows a row; player 1's opening
    roll takes the right half of row 1; the take of a beaver has no half-row)."""
    out = []
    i = (
        1
        if game.actions and isinstance(game.actions[0], FileRoll) and game.actions[0].player
        else 0
    )
    doubler: int | None = None
    redoubles = 0
    for a in game.actions:
        out.append((i >> 1) + 1)
        if isinstance(a, FileDouble):
            if doubler is not None and a.player != doubler:
                redoubles += 1
            doubler = a.player
        elif isinstance(a, FileTake | FileDrop):
            odd = redoubles % 2 == 1
            doubler, redoubles = None, 0
            if odd:
                continue
        if isinstance(a, FileRoll) and not a.played:
            continue
        i += 1
    return out


def analyse(
    source: Match | MatchFile,
    player: NeuralPlayer | None = None,
    plies: int = 1,
    names: tuple[str, str] | None = None,
    progress: Callable[[int, int], None] | None = None,
    marks: Thresholds = THRESHOLDS,
    race_rollouts: bool = True,
) -> Analysis:
    """Judge every decision of ``source`` (a Match or a file model) at ``plies`` with
    ``player`` (the shipped net by default), marking errors by ``marks``; a marked race play
    is judged again by rollouts unless ``race_rollouts`` is False.
    ``progress(done, total)`` is called after each action."""
    if isinstance(source, Match):
        record = matchfile.from_match(source, names or ("Player 0", "Player 1"))
    else:
        record = source
    bot = player if player is not None else NeuralPlayer(0)
    judge = _Judge(bot, plies, names or record.players, marks, race_rollouts)
    m = matchfile.starting_match(record)
    total = sum(len(g.actions) for g in record.games)
    done = 0
    notes: list[str] = []
    for game in matchfile.match_games(record, m, notes):
        start_mwc = _standing(m, bot.met)
        actions = matchfile.game_actions(m, game, notes)
        for action, row in zip(actions, mat_rows(game), strict=True):
            p = action.player
            phase = m.phase
            if isinstance(action, FileRoll):
                if phase is Phase.ROLL and m.may_double(p):
                    judge.missed_double(m, game.number, row, p)
                if action.played:
                    _roll_and_judge(judge, m, game.number, row, action)
                else:
                    matchfile.apply_action(m, action)
            elif isinstance(action, FileDouble):
                if phase is Phase.ROLL:
                    judge.double(m, game.number, row, p)
                matchfile.apply_action(m, action)
            elif isinstance(action, FileTake | FileDrop):
                if m.state.beavers == 0:
                    judge.answer(m, game.number, row, p, isinstance(action, FileTake))
                matchfile.apply_action(m, action)
            else:
                matchfile.apply_action(m, action)
            done += 1
            if progress is not None:
                progress(done, total)
        end = _standing(m, bot.met)
        for k in (0, 1):
            judge.stats[k].result += end[k] - start_mwc[k]
    return Analysis(judge.stats, judge.decisions, judge.track, plies, record.length)


def _standing(m: Match, met: MatchEquityTable) -> tuple[float, float]:
    """Each player's match winning chance before a game (a match), or money won so far."""
    rules = m.rules
    if rules.is_money:
        return float(m.score[0] - m.score[1]), float(m.score[1] - m.score[0])
    length = rules.match_length or 0
    a, b = length - m.score[0], length - m.score[1]
    if m.is_over:
        w = 1.0 if m.winner == 0 else 0.0
        return w, 1.0 - w
    e = met.equity(a, b, m.is_post_crawford)
    return e, 1.0 - e


def _roll_and_judge(judge: _Judge, m: Match, game: int, row: int, action: FileRoll) -> None:
    """Roll the file's dice (luck: before the roll, or for the opening roll once it has
    decided who plays), then judge and make the play."""
    p = action.player
    opening = m.phase is Phase.OPENING
    if m.phase is Phase.ROLL:
        judge.luck(m, p, action.dice, opening=False)
    matchfile.apply_action(m, dataclasses.replace(action, steps=(), played=False))
    if m.phase is not Phase.MOVE:
        return
    if opening:
        judge.luck(m, p, action.dice, opening=True)
    move = Move(action.steps)
    judge.checker(m, game, row, p, move)
    m.move(move, player=p)

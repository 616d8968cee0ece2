"""Judging a played match as GNU Backgammon does: every checker play and cube decision, the
error rates, the marks, the luck of every roll.

:func:`analyse` takes a :class:`~backgammon.play.match.Match` or a
:class:`~backgammon.play.record.MatchRecord` (what ``.mat`` and SGF files read into,
:func:`~backgammon.records.convert.read_record_text`) and a network player, and returns an
:class:`Analysis`.  The definitions are gnubg's
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
  again by cubeful rollouts of the best and the played play to the end (36 variance-reduced
  trials): races are where the net's gammon chances are furthest off, and such rollouts
  agree with gnubg's 2-ply within a point (gnubg marks by its search alone); so is a cube
  decision marked very bad (rollouts of no double and double/take); a contact play marked
  very bad (by less than :data:`PLAY_ROLLOUT_BELOW`) is rolled out for 7 plies
  (:data:`PLAY_ROLLOUT`), and with ``verify`` any
  decision marked that badly or worse to the end, as eXtreme Gammon's users roll out their
  blunders: where the net misjudges a blitz, a prime or a cube, lookahead inherits its
  error and only playing on finds it;
* luck of a roll: the value of the best play of the roll rolled minus the average over the
  36 rolls, at 0-ply, cubeful; for an opening roll the average is over the 30 ways it
  falls, 15 of them the opponent's to play (gnubg's ``LuckFirst``); the luck-adjusted result is
  the result (MWC won, or points in money) minus the luck in the same unit, the opponent's
  luck added back.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from backgammon.core.position import Position
from backgammon.core.values import Move, iter_rolls
from backgammon.evaluation.bearoff import is_bearoff
from backgammon.evaluation.cube import (
    CubeDecision,
    CubeState,
    decision_from_values,
    emg_to_mwc,
    to_emg,
)
from backgammon.evaluation.encode import boards_array, is_race
from backgammon.evaluation.met import MatchEquityTable
from backgammon.evaluation.search import MoveFilter
from backgammon.judging.evaluate import proper_action
from backgammon.judging.results import (
    REVIEW_FILTER,
    THRESHOLDS,
    Analysis,
    Candidate,
    CubeValues,
    Judged,
    PlayerStats,
    Thresholds,
    mark,
    marked_at_least,
)
from backgammon.judging.rollout import RolloutResult, RolloutSettings, rollout
from backgammon.play.match import (
    Accept,
    Action,
    Beaver,
    Double,
    Drop,
    GameEnd,
    GameStart,
    Match,
    OpeningRoll,
    Pass,
    Phase,
    Play,
    Raccoon,
    Roll,
    Take,
)
from backgammon.play.record import MatchRecord
from backgammon.players.base import RankedMove
from backgammon.players.neural import NeuralPlayer
from backgammon.records.walk import Visitor, steps_made, walk
from backgammon.records.written import as_written

__all__ = [
    "PLAY_ROLLOUT",
    "PLAY_ROLLOUT_BELOW",
    "RECHECK_ROLLOUT",
    "Analyser",
    "analyse",
    "cube_errors",
    "judge_play",
]

_CLOSE = 0.16  # a no-double counts as a cube decision when doubling was wrong by less

PLAY_ROLLOUT_BELOW = 0.3
"""A contact play the search marks very bad by this much or more keeps its search figures:
on thirteen noisy matches gnubg played, the rollouts of 145 very bad plays never took the
mark of one over 0.3 away (the largest fall 0.322 to 0.144; gnubg marks by its search), and
such plays are a sixth of the rollouts beginners' matches call for."""

RECHECK_ROLLOUT = RolloutSettings(trials=36, truncate=0, cubeful=True)
"""How a marked decision is judged again: the best and the played play, or the three cube
actions, rolled out cubeful to the end (36 trials: on thirteen noisy matches gnubg played,
72 would change one mark of 1,197, away from gnubg's 2-ply's, at twice the time)."""

PLAY_ROLLOUT = RolloutSettings(trials=36, truncate=7, cubeful=True)
"""How a contact play marked very bad is judged again by default: the best and the played
play rolled out cubeful for 7 plies, then judged at 0 ply (a small part of the time of
:data:`RECHECK_ROLLOUT`; where the net misjudges a blitz or a prime, playing it on a
while finds what lookahead does not).  36 trials, the first roll's 36 once each: on
thirteen noisy matches gnubg played, 72 would change 9 marks of 1,197, 6 of them away from
gnubg's 2-ply's, at twice the time."""


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
    keep: int | MoveFilter | None = None,
) -> tuple[float, RankedMove, RankedMove, list[RankedMove]] | None:
    """The error (EMG) of playing ``move``, the best play, the played one and every play
    ranked, the best, the played one and those ``keep`` picks (the searcher's filter by
    default) judged at ``plies``; None when the roll has at most one legal play."""
    legal = pos.legal_moves(dice)
    if len(legal) <= 1:
        return None
    result = pos.play(move).board
    move = next((mv for mv in legal if pos.play(mv).board == result), move)
    ranked = bot.ranked_moves(pos, dice, state, keep=keep, include=[move], plies=plies)
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
        rollouts: bool = True,
        verify: str | None = None,
    ) -> None:
        if verify is not None:
            marked_at_least("", verify)  # a known mark, or MarkError
        self.bot = player
        self.plies = plies
        self.marks = marks
        self.rollouts = rollouts
        self.verify = verify
        self.stats = (PlayerStats(names[0]), PlayerStats(names[1]))
        self.decisions: list[Judged] = []
        self.track: list[tuple[int, int, float]] = []
        self._cube: tuple[str, CubeDecision, int] | None = None  # key, values, rollout trials
        self._luck: tuple[int, float] | None = None  # the last roll's player and luck

    # ------------------------------------------------------------------ values
    def cube(self, m: Match) -> CubeDecision:
        """The cube decision of the side on roll now (cached for the answer to a double)."""
        key = m.gnubg_id().split(":")[0] + repr(CubeState.from_match(m))
        if self._cube is None or self._cube[0] != key:
            decision = self.bot.cube_decision(m.position, CubeState.from_match(m), self.plies)
            self._cube = (key, decision, 0)
        return self._cube[1]

    def cube_errors(self, m: Match, kind: str) -> dict[str, float]:
        """The cube errors now (:func:`cube_errors`); when the one of ``kind`` would get a
        mark the judge verifies, the decision is rolled out first and its values kept."""
        state = CubeState.from_match(m)
        errors = cube_errors(self.cube(m), state)
        assert self._cube is not None
        again = self._recheck(errors[kind], m.position, cube=True)
        if self._cube[2] == 0 and again is not None:
            result = self._rollout(m, again, cube=True)
            nd, dt, dp = (c.mwc if c.mwc is not None else c.equity for c in result.candidates)
            decision = decision_from_values(nd, dt, dp, state)
            self._cube = (self._cube[0], decision, result.trials)
            errors = cube_errors(decision, state)
        return errors

    def cube_values(self, m: Match) -> CubeValues:
        """The doubler's three values now in EMG and the proper action, for the review."""
        d = self.cube(m)
        state = CubeState.from_match(m)
        nd, dt, dp = (float(to_emg(v, state, self.bot.met)) for v in d[:3])
        mwc = None if state.is_money else (d.no_double, d.double_take, d.double_pass)
        trials = self._cube[2] if self._cube is not None else 0
        return CubeValues(nd, dt, dp, proper_action(d, state), mwc, trials)

    def _recheck(self, error: float, pos: Position, cube: bool = False) -> RolloutSettings | None:
        """How a decision with ``error`` at ``pos`` is judged again by rollouts, or None:
        with ``rollouts`` on, a marked race play and a cube decision marked very bad to the
        end (where the net is known to misjudge), a contact play marked very bad by less than
        :data:`PLAY_ROLLOUT_BELOW` truncated (:data:`PLAY_ROLLOUT`); any decision marked
        ``verify`` or worse to the end; never a pure bear-off, which the database decides."""
        word = mark(error, self.marks)
        b = boards_array([pos.board])
        if not word or is_bearoff(b)[0]:
            return None
        if self.verify is not None and marked_at_least(word, self.verify):
            return RECHECK_ROLLOUT
        if not self.rollouts:
            return None
        if word == "very bad" if cube else bool(is_race(b)[0]):
            return RECHECK_ROLLOUT
        if word != "very bad" or cube or error >= PLAY_ROLLOUT_BELOW:
            return None
        return PLAY_ROLLOUT

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
        errors = self.cube_errors(m, "no double")
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
        error = self.cube_errors(m, "double")["double"]
        self.stats[player].cube_decisions += 1
        self.stats[player].cube_error += error
        best = "Double" if error <= 0.0 else "No double"
        self.add(m, (game, row, player), "double", "Double", best, error, cube=self.cube_values(m))

    def answer(self, m: Match, game: int, row: int, player: int, took: bool) -> None:
        """Judge a take or a pass (the doubler's values, the taker's loss)."""
        errors = self.cube_errors(m, "take" if took else "pass")
        error = errors["take" if took else "pass"]
        right = "Pass" if errors["take"] > 0.0 else "Take"
        self.stats[player].cube_decisions += 1
        self.stats[player].cube_error += error
        played = "Take" if took else "Pass"
        where = (game, row, player)
        self.add(m, where, "take", played, right, error, cube=self.cube_values(m))

    def luck(self, m: Match, player: int, dice: tuple[int, int], opening: bool) -> None:
        """The luck of ``dice`` for ``player`` (before the play): the value of the roll's
        best play against the mean over the rolls; at the opening (gnubg's ``LuckFirst``)
        the mean is over the 30 ways the opening roll falls, 15 of them the opponent's to
        play, so winning the opening roll is luck too."""
        pos = m.position
        state = CubeState.from_match(m)
        by_roll = self.bot.searcher.roll_values(pos, state)
        hi, lo = max(dice), min(dice)
        rolled = by_roll[(hi, lo)]
        if opening:
            theirs = self.bot.searcher.roll_values(pos.flip(), state.flip())
            splits = [(a, b) for a, b in iter_rolls() if a != b]
            total = sum(by_roll[r] + _other(theirs[r], state) for r in splits)
            mean = total / (2 * len(splits))
        else:
            weights = np.array([1.0 if a == b else 2.0 for a, b in iter_rolls()])
            values = np.array([by_roll[r] for r in iter_rolls()])
            mean = float(weights @ values / weights.sum())
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
        judged = judge_play(self.bot, m.position, dice, state, move, self.plies, REVIEW_FILTER)
        if judged is None:
            return
        error, best, mine, ranked = judged
        shown = [r for r in ranked if r.plies == best.plies]  # the played one among them
        if best.plies == 0:  # every play was judged at 0 ply: the filter's picks
            shown = shown[: len(REVIEW_FILTER.pick(np.array([r.equity for r in shown])))]
            shown += [mine] if mine not in shown else []
        candidates = [Candidate.of(r) for r in shown]
        best_move = best.move
        value = best.mwc if best.mwc is not None else best.equity
        again = self._recheck(error, m.position)
        if again is not None:
            error, best_move, candidates = self._rolled_play(
                m, again, dice, best_move, mine.move, shown
            )
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

    def _rollout(self, m: Match, settings: RolloutSettings, **what: Any) -> RolloutResult:
        """A rollout of ``m``'s position (``what``: the dice and plays, or ``cube=True``)
        with the judge's net and match equity table."""
        bot = self.bot
        return rollout(
            m.position,
            CubeState.from_match(m),
            settings=settings,
            weights=str(bot.weights_path),
            bearoff=bot.evaluator.bearoff is not None,
            met=bot.met,
            **what,
        )

    def _rolled_play(
        self,
        m: Match,
        settings: RolloutSettings,
        dice: tuple[int, int],
        best: Move,
        played: Move,
        shown: list[RankedMove],
    ) -> tuple[float, Move, list[Candidate]]:
        """The error of a marked play judged again by rollouts of every shown play (the best
        and the played one among them), the best of them, and the candidates ranked by the
        rollout: all valued the same way, as the review shows them."""
        by_play = {str(r.move): r.move for r in shown}
        by_play.setdefault(str(best), best)
        by_play.setdefault(str(played), played)
        result = self._rollout(m, settings, dice=dice, moves=list(by_play))
        n = result.trials
        rolled = {
            c.play: Candidate(c.play, c.equity, c.probabilities, 0, c.mwc, n)
            for c in result.candidates
        }
        top = max(rolled.values(), key=lambda c: c.equity)
        error = max(top.equity - rolled[str(played)].equity, 0.0)
        return error, by_play[top.move], sorted(rolled.values(), key=lambda c: -c.equity)


def _other(value: float, state: CubeState) -> float:
    return -value if state.is_money else 1.0 - value


class _Rows:
    """The .mat row of each step of a game as a walk meets them (two half-rows a row;
    player 1's opening roll takes the right half of row 1; a roll not played, the take of a
    beaver, a tied opening throw and a rejected resignation take none): what
    :func:`backgammon.records.mat.rows` counts on a file."""

    def __init__(self) -> None:
        self.half = 0
        self.begun = False
        self.doubler: int | None = None
        self.redoubles = 0

    @property
    def row(self) -> int:
        """The row of the step now."""
        return (self.half >> 1) + 1

    def first(self, player: int) -> None:
        """The game's first written step is ``player``'s roll (or pass)."""
        if not self.begun:
            self.begun = True
            self.half = int(player == 1)

    def step(self, a: Action) -> None:
        """Count ``a`` once its half-row is written (a play: its roll's)."""
        self.begun = True
        if isinstance(a, Double | Beaver | Raccoon):
            if self.doubler is not None and a.player != self.doubler:
                self.redoubles += 1
            self.doubler = a.player
        elif isinstance(a, Take | Drop):
            odd = self.redoubles % 2 == 1
            self.doubler, self.redoubles = None, 0
            if odd:
                return
        self.half += 1


class Analyser(Visitor):
    """Analysis as a visitor of a record's walk (:func:`~backgammon.records.walk.walk`):
    each step judged with the match as it stands before it, as gnubg's ``analysis.c`` does."""

    def __init__(
        self,
        judge: _Judge,
        met: MatchEquityTable,
        total: int = 0,
        progress: Callable[[int, int], None] | None = None,
    ) -> None:
        self.judge = judge
        self.met = met
        self.total = total
        self.progress = progress
        self.done = 0
        self.game = 0
        self.rows = _Rows()
        self.start: tuple[float, float] | None = None  # the standing when the game began
        self.rolled: tuple[Match, int, tuple[int, int]] | None = None  # luck owed at the play
        self.opening: tuple[int, int] | None = None  # the opening throw, judged at its play

    def begin_game(self, match: Match, start: GameStart) -> None:
        self.game, self.rows = start.game, _Rows()
        self.start = _standing(match, self.met)

    def end_game(self, match: Match, end: GameEnd) -> None:
        self._close(match)

    def end(self, match: Match) -> None:
        self._close(match)

    def _close(self, match: Match) -> None:
        """Each player's result of the game now over (or the record's last game)."""
        if self.start is None:
            return
        now = _standing(match, self.met)
        for k in (0, 1):
            self.judge.stats[k].result += now[k] - self.start[k]
        self.start = None

    def visit_step(self, match: Match, step: Action) -> None:
        j, rows, p = self.judge, self.rows, getattr(step, "player", None)
        if isinstance(step, OpeningRoll):
            if step.die0 != step.die1:
                rows.first(int(step.die1 > step.die0))
                self.opening = (step.die0, step.die1)
        elif isinstance(step, Roll):
            rows.first(step.player)
            if match.may_double(step.player):
                j.missed_double(match, self.game, rows.row, step.player)
            self.rolled = (copy.copy(match), step.player, step.dice)
        elif isinstance(step, Play):
            self._luck_of_roll(match, step.player)
            j.checker(match, self.game, rows.row, step.player, step.move)
            rows.step(step)
        elif isinstance(step, Pass):
            self._dance(match, step)
            rows.step(step)
        elif isinstance(step, Double):
            if match.phase is Phase.ROLL:
                j.double(match, self.game, rows.row, step.player)
            rows.step(step)
        elif isinstance(step, Beaver | Raccoon):
            rows.step(step)
        elif isinstance(step, Take | Drop):
            if match.state.beavers == 0:
                j.answer(match, self.game, rows.row, step.player, isinstance(step, Take))
            rows.step(step)
        elif isinstance(step, Accept):
            rows.step(step)  # the accepted resignation's half-row
        if p is not None and _counted(step):
            self.done += 1
            if self.progress is not None:
                self.progress(self.done, self.total)

    def visit_automatic(self, match: Match, step: Play | Pass) -> None:
        if isinstance(step, Play):  # a roll with no play (R10)
            self._luck_of_roll(match, step.player)
        else:
            self._dance(match, step)
        self.rows.step(step)

    def _dance(self, match: Match, step: Pass) -> None:
        """A closed-out player's turn (R13): judged as a roll when the file shows the dice
        (a missed double first when the player could double), else only counted."""
        if step.dice is None:
            return
        self.rows.first(step.player)
        if match.phase is Phase.ROLL and match.may_double(step.player):
            self.judge.missed_double(match, self.game, self.rows.row, step.player)
        if match.phase is Phase.ROLL:
            self.judge.luck(match, step.player, step.dice, opening=False)

    def _luck_of_roll(self, match: Match, player: int) -> None:
        """The luck of the roll now played (judged before it was thrown, or for an opening
        roll once it decided who plays)."""
        if self.opening is not None:
            self.judge.luck(match, player, self.opening, opening=True)
        elif self.rolled is not None and self.rolled[1] == player:
            self.judge.luck(self.rolled[0], player, self.rolled[2], opening=False)
        self.opening = self.rolled = None


def _counted(a: Action) -> bool:
    """A step the progress counts (as :func:`~backgammon.records.walk.steps_made` does)."""
    return not isinstance(a, Pass) and not (isinstance(a, Play) and not a.move)


def analyse(
    source: Match | MatchRecord,
    player: NeuralPlayer | None = None,
    plies: int = 2,
    names: tuple[str, str] | None = None,
    progress: Callable[[int, int], None] | None = None,
    marks: Thresholds = THRESHOLDS,
    rollouts: bool = True,
    verify: str | None = None,
    visitors: Sequence[Visitor] = (),
) -> Analysis:
    """Judge every decision of ``source`` (a Match or a record) at ``plies``
    with ``player`` (the shipped net by default), marking errors by ``marks``, in one walk
    of its record that ``visitors`` share.  Unless ``rollouts`` is False, a marked race
    play and a cube decision marked very bad are judged again by rollouts
    (:data:`RECHECK_ROLLOUT`), a contact play marked very bad (by less than
    :data:`PLAY_ROLLOUT_BELOW`) by truncated ones (:data:`PLAY_ROLLOUT`), and any decision
    marked ``verify`` ('doubtful', 'bad' or 'very bad') or worse, when it is given, by
    rollouts to the end.  ``progress(done, total)`` is
    called after each step."""
    if isinstance(source, Match):
        record = as_written(source, names or ("Player 0", "Player 1"))
    else:
        record = source
    bot = player if player is not None else NeuralPlayer(0)
    judge = _Judge(bot, plies, names or record.players, marks, rollouts, verify)
    analyser = Analyser(judge, bot.met, steps_made(record), progress)
    walk(record, analyser, *visitors)
    length = record.rules.match_length or 0
    return Analysis(judge.stats, judge.decisions, judge.track, plies, length, verify)


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

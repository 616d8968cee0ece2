"""The bots as the terminal uses them: one loaded by name, and its advice put in words (the
best plays of a roll, the cube action).  What a bot does in a match is decided by
:func:`backgammon.players.decide`, the driver every face shares."""

from __future__ import annotations

from typing import Any

from backgammon.cli.engines import engine_player, is_external
from backgammon.cli.errors import UsageError
from backgammon.cli.render import signed
from backgammon.core.position import Position
from backgammon.core.values import Move
from backgammon.evaluation.cube import CubeAction, to_emg
from backgammon.judging.evaluate import best_plays
from backgammon.play.match import ActionKind, Match, Phase
from backgammon.players import CubeAdviser, CubeState, MoveRanker, Player, RankedMove, decide
from backgammon.players import get as get_player
from backgammon.players.neural import NeuralPlayer

__all__ = [
    "Bot",
    "cube_hint",
    "hint_lines",
    "hint_plays",
    "load_bot",
    "ranked_json",
    "ranked_lines",
    "tutor_warning",
]

Bot = Player
"""What plays a seat: any player of :mod:`backgammon.players`."""


def load_bot(
    name: str | None, ply: int | None = None, seed: int | None = None, prune: int | None = None
) -> Bot:
    """The named bot from ``backgammon.players`` (the best one, the neural net, by default)
    or another engine (``gnubg``, ``gnubg:2``, ``ubgi:CMD``) playing as one; ``prune``: the
    neural bot's plays a roll judged inside its lookahead."""
    options: dict[str, Any] = {}
    if ply is not None:
        options["plies"] = ply
    if prune is not None:
        options["prune"] = prune
    if name == "random" and seed is not None:
        options["seed"] = seed
    chosen = name or "neural"
    if is_external(chosen):
        return engine_player(chosen, ply)
    try:
        return get_player(chosen, **options)
    except ValueError as exc:
        raise UsageError(f"cannot use the bot {chosen!r}: {exc}") from exc


def hint_lines(
    bot: Bot,
    position: Position,
    dice: tuple[int, int],
    limit: int = 5,
    cube: CubeState | None = None,
) -> list[str]:
    """The bot's best plays of ``dice`` at the real score, cube and Crawford state
    (``cube``; a centred money cube when None), best first: cubeful equity normalised to a
    money game (EMG), in a match the match winning chance too, and each one's difference to
    the best.  The listed plays are all judged at the same depth."""
    legal = position.legal_moves(dice)
    if not legal:
        return ["No legal play: the turn passes."]
    if not isinstance(bot, MoveRanker):
        move = bot.choose_move(position, dice, cube) or legal[0]
        return [f" The bot would play {move} (this bot gives no equities)."]
    return ranked_lines(hint_plays(bot, position, dice, limit, cube))


def hint_plays(
    bot: MoveRanker, position: Position, dice: tuple[int, int], limit: int, cube: CubeState | None
) -> list[RankedMove]:
    """The ``limit`` best plays of ``dice`` that ``hint`` lists, all at one depth ([] when
    none is legal)."""
    if isinstance(bot, NeuralPlayer):
        return best_plays(bot, position, dice, cube, limit)
    ranked = bot.ranked_moves(position, dice, cube)
    return [r for r in ranked if r.plies == ranked[0].plies][:limit] if ranked else []


def ranked_json(ranked: list[RankedMove]) -> list[dict[str, Any]]:
    """Ranked plays for programs, best first, as ``eval --json`` writes numbers: each
    play's depth, the mover's five probabilities as fractions after it, its EMG, in a
    match its MWC."""
    out = []
    for r in ranked:
        play: dict[str, Any] = {
            "move": str(r.move),
            "ply": r.plies,
            "probabilities": [float(x) for x in r.probabilities.array()],
            "equity": float(r.equity),
        }
        if r.mwc is not None:
            play["mwc"] = float(r.mwc)
        out.append(play)
    return out


def ranked_lines(ranked: list[RankedMove]) -> list[str]:
    """Ranked plays, best first, two lines each as gnubg's hint prints them: EMG, in a
    match the MWC too, each one's difference to the best (any engine's ranking)."""
    if not ranked:
        return ["No legal play: the turn passes."]
    best = ranked[0]
    lines = []
    for i, r in enumerate(ranked, 1):
        diff = "" if i == 1 else f"({signed(r.equity - best.equity)})"
        mwc = ""
        if r.mwc is not None and best.mwc is not None:
            d = "" if i == 1 else f" ({signed(100 * (r.mwc - best.mwc), 1)})"
            mwc = f"  MWC {100 * r.mwc:5.1f}%{d:<8}"
        p = r.probabilities
        # Two lines a play, as gnubg's hint: within 80 columns whatever the play's length.
        lines.append(
            f" {i:2d}. {r.move!s:<22} {r.plies}-ply EMG {signed(r.equity)} {diff:<9}{mwc}".rstrip()
        )
        lines.append(
            f"     win {p.win:6.1%} gammon {p.win_gammon:5.1%} bg {p.win_backgammon:5.1%}"
            f" · lose gammon {p.lose_gammon:5.1%} bg {p.lose_backgammon:5.1%}"
        )
    return lines


def cube_hint(bot: Bot, m: Match) -> str:
    """The bot's advice on the cube now, from the side that decides: the doubler's three
    cubeful equities (EMG, with MWC in a match) and proper action when it may double, the
    taker's take and pass equities and answer when a double is pending."""
    phase = m.phase
    if phase not in (Phase.ROLL, Phase.DOUBLED):
        return "No cube advice here."
    if phase is Phase.ROLL and not m.may_double():
        return "You cannot double now: roll."
    if isinstance(bot, CubeAdviser):  # the position and cube are the doubler's, on roll
        state = CubeState.from_match(m)
        d = bot.cube_decision(m.position, state)
        nd, dt, dp = (float(to_emg(v, state)) for v in (d.no_double, d.double_take, d.double_pass))

        def mwc(v: float, taker: bool = False) -> str:
            if state.is_money:
                return ""
            return f" (MWC {100 * (1.0 - v if taker else v):.1f}%)"

        if phase is Phase.ROLL:
            best = max(nd, min(dt, dp))
            proper = "double" if d.action is CubeAction.DOUBLE else "no double"
            if d.action is not CubeAction.DOUBLE and dt > dp and nd >= dp:
                proper = "too good to double"
            answer = "pass" if d.response is CubeAction.PASS else d.response.value
            rows = (
                ("No double", nd, d.no_double),
                ("Double/take", dt, d.double_take),
                ("Double/pass", dp, d.double_pass),
            )
            return "\n".join(
                [f"{name:<12} {signed(v)}{mwc(raw)}  ({signed(v - best)})" for name, v, raw in rows]
                + [f"Proper: {proper}, {answer}."]
            )
        take, drop = -dt, -dp
        return (
            f"Take {signed(take)}{mwc(d.double_take, True)}, pass {signed(drop)}"
            f"{mwc(d.double_pass, True)}. Advice: {d.response.value} "
            f"({abs(take - drop):.3f} better)."
        )
    kind = decide(bot, m).kind
    would = {ActionKind.DOUBLE: "double", ActionKind.DROP: "pass"}.get(kind, str(kind.value))
    return f"The bot would {would}."


def tutor_warning(
    bot: Bot, m: Match, actor: int, action: str, move: Move | None = None
) -> str | None:
    """The tutor's warning when ``action`` ("move" with ``move``, or "roll", "double",
    "take", "pass") loses at least gnubg's "bad" threshold (0.06 EMG); None otherwise or
    when the bot gives no equities."""
    from backgammon.judging.analysis import cube_errors, judge_play
    from backgammon.judging.results import THRESHOLDS, mark

    bad = dict(THRESHOLDS)["bad"]
    if not isinstance(bot, NeuralPlayer):
        return None
    state = CubeState.from_match(m)
    if action == "move":
        if move is None or m.dice is None:
            return None
        judged = judge_play(bot, m.position, m.dice, state, move, bot.plies)
        if judged is None or judged[0] < bad:
            return None
        error, best, mine, _ranked = judged
        return f"Tutor: {mine.move} loses {error:.3f} (EMG) against {best.move} ({mark(error)})."
    if action == "roll" and not (m.phase is Phase.ROLL and m.may_double()):
        return None
    if action in ("take", "pass") and m.phase is not Phase.DOUBLED:
        return None
    if action == "double" and m.phase is not Phase.ROLL:
        return None
    errors = cube_errors(bot.cube_decision(m.position, state), state)
    error = errors["no double" if action == "roll" else action]
    if error < bad:
        return None
    better = {"roll": "double", "double": "no double", "take": "pass", "pass": "take"}[action]
    what = "not doubling" if action == "roll" else f"{action.replace('pass', 'passing')}"
    return f"Tutor: {what} loses {error:.3f} (EMG) against {better} ({mark(error)})."

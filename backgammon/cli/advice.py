"""The bots' decisions and advice as the terminal asks for them.

These helpers drive a player of :mod:`backgammon.players` from a live match; they are kept
together so that one bot driver can replace them.
"""

from __future__ import annotations

from typing import Any

from backgammon.board import Move, Position
from backgammon.cli.errors import UsageError
from backgammon.cli.state import _dice, _phase, _position_for
from backgammon.match import Match
from backgammon.players import CubeAction, CubeState, Player
from backgammon.players import get as get_player

__all__ = ["Bot", "cube_hint", "hint_lines", "load_bot"]

Bot = Player
"""What plays a seat: any player of :mod:`backgammon.players`."""


def load_bot(name: str | None, ply: int | None = None, seed: int | None = None) -> Bot:
    """The named bot from ``backgammon.players`` (the best one, the neural net, by default)."""
    options: dict[str, Any] = {}
    if ply is not None:
        options["plies"] = ply
    if name == "random" and seed is not None:
        options["seed"] = seed
    chosen = name or "neural"
    try:
        return get_player(chosen, **options)
    except ValueError as exc:
        raise UsageError(f"cannot use the bot {chosen!r}: {exc}") from exc


# The players layer (``backgammon.players``) is reached by duck typing: a bot needs only
# ``choose_move``; cube decisions, resignations and ranked plays are used when it has them.


def _cube_state(m: Match, player: int) -> CubeState:
    """The cube and score from ``player``'s side, as the players layer takes them."""
    rules = m.rules
    owner = m.cube_owner
    score = m.score
    return CubeState(
        match_length=rules.match_length or 0,
        score=(score[player], score[1 - player]),
        cube_value=m.cube_value,
        cube_owner=0 if owner is None else (1 if owner == player else -1),
        crawford=m.is_crawford_game,
        jacoby=rules.is_money and rules.jacoby,
        beavers=rules.is_money and rules.beavers,
    )


def _bot_move(bot: Bot, m: Match, player: int) -> Move | None:
    """The bot's play of the dice for ``player``, with the match context."""
    dice = _dice(m)
    assert dice is not None
    return bot.choose_move(_position_for(m, player), dice, _cube_state(m, player))


def _bot_doubles(bot: Bot, m: Match) -> bool:
    """True when the bot on roll wants to double."""
    roller = m.on_roll
    assert roller is not None
    action = bot.cube_action(m.position, _cube_state(m, roller), offered=False)
    return action is CubeAction.DOUBLE


def _bot_answer(bot: Bot, m: Match) -> str:
    """The bot's answer to a double (the position is the doubler's): take, pass or beaver."""
    doubler = m.on_roll
    assert doubler is not None
    action = bot.cube_action(m.position, _cube_state(m, doubler), offered=True)
    return {CubeAction.BEAVER: "beaver", CubeAction.PASS: "pass"}.get(action, "take")


def _bot_accepts_resignation(bot: Bot, m: Match) -> bool:
    """True when the bot accepts the pending resignation (the position is the resigner's)."""
    resigner, level = m.on_roll, m.resignation
    assert resigner is not None and level is not None
    return bot.accept_resignation(m.position, int(level), _cube_state(m, resigner))


def _ranked(
    bot: Bot, position: Position, dice: tuple[int, int], plies: int | None = None
) -> list[tuple[Move, float, Any]]:
    """The bot's plays with equities, best first, if it can rank them: (play, equity, probs)."""
    rank = getattr(bot, "rank_moves", None)
    searcher = getattr(bot, "searcher", None)
    if not callable(rank) and searcher is not None:
        rank = getattr(searcher, "rank_moves", None)
    if not callable(rank):
        return []
    if plies is None:
        plies = int(getattr(bot, "plies", 0))
    try:
        ranked = list(rank(position, dice, plies))
    except TypeError:
        ranked = list(rank(position, dice))
    out: list[tuple[Move, float, Any]] = []
    equity_of = getattr(searcher, "equity", None)
    for move, value in ranked:
        if isinstance(value, int | float):
            out.append((move, float(value), None))
        elif callable(equity_of):
            out.append((move, float(equity_of(value[None, :])[0]), value))
        else:
            out.append((move, float(value[0]) * 2 - 1, value))
    return out


def hint_lines(bot: Bot, position: Position, dice: tuple[int, int], limit: int = 5) -> list[str]:
    """The bot's best plays of ``dice`` with their equities, best first."""
    legal = position.legal_moves(dice)
    if not legal:
        return ["No legal play: the turn passes."]
    plies = int(getattr(bot, "plies", 0))
    ranked = _ranked(bot, position, dice)[:limit]
    if not ranked:
        move = bot.choose_move(position, dice) or legal[0]
        return [f" The bot would play {move} (this bot gives no equities)."]
    labels = [f"{plies}-ply"] * len(ranked)
    if plies > 0 and len(ranked) < min(limit, len(legal)):
        # deeper search keeps only the promising plays: the others at 0-ply, after them
        seen = {position.play(m) for m, _, _ in ranked}
        for move, equity, probs in _ranked(bot, position, dice, 0):
            if len(ranked) >= limit:
                break
            if position.play(move) not in seen:
                ranked.append((move, equity, probs))
                labels.append("0-ply")
    best = ranked[0][1]
    lines = []
    for i, ((move, equity, probs), label) in enumerate(zip(ranked, labels, strict=True), 1):
        diff = "" if i == 1 else f"{equity - best:+.3f}"
        extra = ""
        if probs is not None and len(probs) >= 5:
            extra = f"  win {float(probs[0]):5.1%} gammon {float(probs[1]):5.1%}"
        lines.append(f" {i:2d}. {move!s:<20} {label} equity {equity:+.3f} {diff:>6}{extra}")
    return lines


def cube_hint(bot: Bot, m: Match) -> str:
    """The bot's advice on the cube now, with cubeful equities when the bot gives them."""
    phase = _phase(m)
    if phase not in ("roll", "doubled"):
        return "No cube advice here."
    if phase == "roll" and not m.may_double():
        return "You cannot double now: roll."
    roller = m.on_roll
    decide = getattr(bot, "cube_decision", None)
    cube = _cube_state(m, roller) if roller is not None else None
    if callable(decide) and cube is not None:
        d = decide(m.position, cube)
        text = (
            f"No double {d.no_double:+.3f}, double/take {d.double_take:+.3f}, "
            f"double/pass {d.double_pass:+.3f}. "
        )
        if phase == "roll":
            return text + f"Advice: {d.action.value}."
        return text + f"Advice: {d.response.value}."
    if phase == "doubled":
        return f"The bot would {_bot_answer(bot, m)}."
    return "The bot would double." if _bot_doubles(bot, m) else "The bot would roll."

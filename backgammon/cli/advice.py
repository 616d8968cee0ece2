"""The bots as the terminal uses them: one loaded by name, and its advice put in words (the
best plays of a roll, the cube action).  What a bot does in a match is decided by
:func:`backgammon.players.decide`, the driver every face shares."""

from __future__ import annotations

from typing import Any

from backgammon.board import Position
from backgammon.cli.errors import UsageError
from backgammon.match import ActionKind, Match, Phase
from backgammon.players import CubeAdviser, CubeState, MoveRanker, Player, decide
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


def hint_lines(
    bot: Bot,
    position: Position,
    dice: tuple[int, int],
    limit: int = 5,
    cube: CubeState | None = None,
) -> list[str]:
    """The bot's best plays of ``dice`` with their equities, best first (``cube`` gives the
    match score the ranking allows for)."""
    legal = position.legal_moves(dice)
    if not legal:
        return ["No legal play: the turn passes."]
    if not isinstance(bot, MoveRanker):
        move = bot.choose_move(position, dice, cube) or legal[0]
        return [f" The bot would play {move} (this bot gives no equities)."]
    ranked = bot.ranked_moves(position, dice, cube)[:limit]
    best = ranked[0].equity
    lines = []
    for i, r in enumerate(ranked, 1):
        diff = "" if i == 1 else f"{r.equity - best:+.3f}"
        p = r.probabilities
        lines.append(
            f" {i:2d}. {r.move!s:<20} {r.plies}-ply equity {r.equity:+.3f} {diff:>6}"
            f"  win {p.win:5.1%} gammon {p.win_gammon:5.1%}"
        )
    return lines


def cube_hint(bot: Bot, m: Match) -> str:
    """The bot's advice on the cube now, with cubeful equities when the bot gives them."""
    phase = m.phase
    if phase not in (Phase.ROLL, Phase.DOUBLED):
        return "No cube advice here."
    if phase is Phase.ROLL and not m.may_double():
        return "You cannot double now: roll."
    if isinstance(bot, CubeAdviser):  # the position and cube are the doubler's, on roll
        d = bot.cube_decision(m.position, CubeState.from_match(m))
        text = (
            f"No double {d.no_double:+.3f}, double/take {d.double_take:+.3f}, "
            f"double/pass {d.double_pass:+.3f}. "
        )
        return text + f"Advice: {(d.action if phase is Phase.ROLL else d.response).value}."
    kind = decide(bot, m).kind
    would = {ActionKind.DOUBLE: "double", ActionKind.DROP: "pass"}.get(kind, str(kind.value))
    return f"The bot would {would}."

"""Our own bots as an engine: any :class:`~backgammon.players.Player` chooses plays and
cube actions; the neural bot also evaluates and ranks (the numbers ``backgammon eval`` and
``hint`` print), so ours and another engine are asked the same way.

The bot thinks in a worker thread, so an asyncio program is not held up while it does.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from backgammon.core.position import Position
from backgammon.core.values import Move
from backgammon.engine.base import (
    NO_CUBE,
    NO_LIMIT,
    EngineCapabilityError,
    EngineProtocol,
    Evaluation,
    Limit,
    proper_action,
)
from backgammon.evaluation.cube import CubeAction, CubeDecision, CubeState, to_emg
from backgammon.players import get
from backgammon.players.base import CubeAdviser, MoveRanker, Player, RankedMove
from backgammon.players.neural import NeuralPlayer

__all__ = ["BotProtocol", "bot_evaluation", "open_bot"]


def bot_evaluation(
    bot: NeuralPlayer, position: Position, cube: CubeState, plies: int
) -> tuple[Evaluation, CubeDecision]:
    """``position`` judged by ``bot`` at ``plies`` for its side on roll at ``cube``: the
    engine's numbers (cube values in EMG) and the bot's decision behind them (in a match,
    match winning chances)."""
    probs = bot.probabilities(position, plies)
    d = bot.cube_decision(position, cube, plies)
    nd, dt, dp = (
        float(to_emg(v, cube, bot.met)) for v in (d.no_double, d.double_take, d.double_pass)
    )
    if not cube.may_double():
        return Evaluation(plies, probs, probs.equity(), nd, None, None, NO_CUBE), d
    return Evaluation(plies, probs, probs.equity(), nd, dt, dp, proper_action(d, cube)), d


class BotProtocol(EngineProtocol):
    """``player`` as an engine; ``Limit.plies`` needs a bot that searches (the neural one)."""

    def __init__(self, player: Player) -> None:
        super().__init__()
        self.player = player
        self.name = player.name

    def _neural(self, limit: Limit) -> NeuralPlayer:
        if not isinstance(self.player, NeuralPlayer):
            raise EngineCapabilityError(f"{self.name} gives no evaluations")
        return self.player

    def _plies(self, limit: Limit) -> int | None:
        if limit.plies is not None and not isinstance(self.player, NeuralPlayer):
            raise EngineCapabilityError(f"{self.name} has no lookahead to set")
        return limit.plies

    async def evaluate(
        self, position: Position, cube: CubeState | None = None, limit: Limit = NO_LIMIT
    ) -> Evaluation:
        bot = self._neural(limit)
        plies = limit.plies if limit.plies is not None else bot.plies
        state = cube if cube is not None else CubeState()
        e, _ = await asyncio.to_thread(bot_evaluation, bot, position, state, plies)
        return e

    async def candidates(
        self,
        position: Position,
        dice: Sequence[int],
        cube: CubeState | None = None,
        limit: Limit = NO_LIMIT,
    ) -> list[RankedMove]:
        if not isinstance(self.player, MoveRanker):
            raise EngineCapabilityError(f"{self.name} gives no ranked plays")
        if isinstance(self.player, NeuralPlayer):
            bot = self.player
            return await asyncio.to_thread(
                bot.ranked_moves, position, tuple(dice), cube, plies=limit.plies
            )
        self._plies(limit)
        return await asyncio.to_thread(self.player.ranked_moves, position, tuple(dice), cube)

    async def choose(
        self,
        position: Position,
        dice: Sequence[int],
        cube: CubeState | None = None,
        limit: Limit = NO_LIMIT,
    ) -> Move | None:
        if limit.plies is not None:
            return await super().choose(position, dice, cube, limit)
        return await asyncio.to_thread(self.player.choose_move, position, tuple(dice), cube)

    async def cube_action(
        self, position: Position, cube: CubeState, offered: bool = False, limit: Limit = NO_LIMIT
    ) -> CubeAction:
        if limit.plies is not None and isinstance(self.player, CubeAdviser):
            return await super().cube_action(position, cube, offered, limit)
        self._plies(limit)
        return await asyncio.to_thread(self.player.cube_action, position, cube, offered)

    async def accept_resignation(
        self,
        position: Position,
        points: int,
        cube: CubeState | None = None,
        limit: Limit = NO_LIMIT,
    ) -> bool:
        return await asyncio.to_thread(self.player.accept_resignation, position, points, cube)


async def open_bot(name: str = "neural", **options: object) -> BotProtocol:
    """One of our bots by :func:`~backgammon.players.get`'s name, as an engine."""
    return BotProtocol(get(name, **options))

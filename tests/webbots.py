"""Bots that misbehave, for the web server's tests: the server runs them in its worker
processes, which import them from here by name."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any

from backgammon.web.service.bots import bot_action
from backgammon.web.service.game import Game


def crashing(name: str, game: Game) -> dict[str, Any]:
    """A bot that always raises."""
    raise RuntimeError("bot crashed")


def marker(match_id: str) -> Path:
    """While this file exists, the match's bot misbehaves once (and removes it)."""
    return Path(tempfile.gettempdir()) / f"bg-test-bot-{match_id}"


def crashing_once(name: str, game: Game) -> dict[str, Any]:
    """Raises the first time it is asked in a marked match, then plays."""
    flag = marker(game.row.id)
    if flag.exists():
        flag.unlink()
        raise RuntimeError("bot crashed once")
    return bot_action(name, game)


def hanging_once(name: str, game: Game) -> dict[str, Any]:
    """Thinks forever the first time it is asked in a marked match, then plays."""
    flag = marker(game.row.id)
    if flag.exists():
        flag.unlink()
        time.sleep(3600)
    return bot_action(name, game)

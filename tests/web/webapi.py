"""The web API as the tests drive it: a match made, its state, an action, a turn played
against the bot, and the actions the store holds."""

from __future__ import annotations

import time
from typing import Any

import httpx2
import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient

from backgammon.web.store.database import Store

SQLITE_ONLY = pytest.mark.parametrize("db", ["sqlite"], indirect=True)
"""For a long test of what the bots and pages do whatever the store: on SQLite only (the
whole match against the bot runs on PostgreSQL too, in test_web.py)."""


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def new_match(client: TestClient, **spec: Any) -> dict[str, Any]:
    r = client.post("/api/matches", json={"length": 1, "bot": "random", **spec})
    assert r.status_code == 201, r.text
    client.cookies.clear()  # each test says explicitly who it is
    return dict(r.json())


def state(client: TestClient, match_id: str, token: str | None = None) -> dict[str, Any]:
    r = client.get(f"/api/matches/{match_id}", headers=auth(token) if token else {})
    assert r.status_code == 200, r.text
    return dict(r.json())


def act(client: TestClient, match_id: str, token: str, **action: Any) -> dict[str, Any]:
    r = client.post(f"/api/matches/{match_id}/actions", json=action, headers=auth(token))
    assert r.status_code == 200, r.text
    return dict(r.json())


def full_play(s: dict[str, Any]) -> list[list[int]]:
    """The first complete play on offer (the longest orderings are the whole plays)."""
    longest = max(len(o) for o in s["plays"])
    return next(o for o in s["plays"] if len(o) == longest)


def settle(client: TestClient, match_id: str, token: str, s: dict[str, Any]) -> dict[str, Any]:
    """The state once the bot has answered: the seat may act again or the match is over."""
    deadline = time.monotonic() + 30
    while not (s["over"] or s["actions"]):
        assert time.monotonic() < deadline, "the bot did not answer"
        time.sleep(0.01)
        s = state(client, match_id, token)
    return s


def play_turn(client: TestClient, match_id: str, token: str, s: dict[str, Any]) -> dict[str, Any]:
    """One action of the human seat against the bot (take/accept/roll/move as offered), and
    the state once the bot has answered."""
    for simple in ("take", "accept", "roll"):
        if simple in s["actions"]:
            done = act(client, match_id, token, action=simple, seq=s["seq"])
            return settle(client, match_id, token, done)
    assert "move" in s["actions"], s["actions"]
    done = act(client, match_id, token, action="move", steps=full_play(s), seq=s["seq"])
    return settle(client, match_id, token, done)


def stored_actions(db: str) -> list[tuple[Any, ...]]:
    store = Store(db)
    try:
        with store.engine.connect() as conn:
            query = "SELECT match_id, seq, seat, action FROM actions ORDER BY match_id, seq"
            return [tuple(r) for r in conn.execute(sa.text(query))]
    finally:
        store.close()


def bot_wins_opening_row(match_id: str) -> Any:
    """A match against the random bot whose seed makes the bot (seat 1) win the opening."""
    from backgammon.play.dice import dice_stream
    from backgammon.web.service.game import Game
    from backgammon.web.store.database import MatchRow

    seed = next(
        bytes([i]) * 32
        for i in range(256)
        if (lambda it: (next(it), next(it)))(dice_stream(bytes([i]) * 32))
        in {(a, b) for a in range(1, 7) for b in range(a + 1, 7)}
    )
    names = ("Me", "Beginner bot")
    return MatchRow(
        match_id, 0.0, 1, "random", 1, ("x", "y"), seed.hex(), Game.commitment_of(seed), names
    )


def wait_done(client: TestClient | httpx2.Client, url: str, limit: float = 600) -> dict[str, Any]:
    """The status at ``url`` once its job (an analysis or upload) is no longer running."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        s = client.get(url).json()
        if s["status"] not in ("running", "queued"):
            return dict(s)
        time.sleep(0.5)
    raise AssertionError(f"{url} did not finish")

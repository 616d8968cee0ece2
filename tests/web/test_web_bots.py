"""Bots behind the web API: they answer doubles and resignations, reply after the human's
action is acknowledged, are tried again or reported when they fail, act through the one
driver, and think in worker processes at a lower priority that end with their server."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest
import webbots
from fastapi.testclient import TestClient
from webapi import (
    SQLITE_ONLY,
    act,
    bot_wins_opening_row,
    full_play,
    new_match,
    play_turn,
    settle,
    state,
    stored_actions,
)

from backgammon import Position
from backgammon.web import create_app
from backgammon.web.service import bots, jobs
from backgammon.web.store.database import Store


@SQLITE_ONLY
def test_the_bot_answers_doubles_and_resignations(client: TestClient) -> None:
    """Against the expert bot: a double is taken or passed (R24), a resignation accepted or
    rejected (R21), each answer stored and logged."""
    m = new_match(client, length=5, bot="expert")
    mid, tok = m["id"], m["token"]
    s = state(client, mid, tok)
    while "double" not in s["actions"]:
        s = play_turn(client, mid, tok, s)
    seq = s["seq"]
    s = settle(client, mid, tok, act(client, mid, tok, action="double"))
    assert s["seq"] >= seq + 2
    answer = s["log"][s["log"].index("Guest doubles to 2") + 1]
    assert answer in ("Expert bot takes", "Expert bot passes")
    while not s["over"] and "resign" not in s["actions"]:
        s = play_turn(client, mid, tok, s)
    s = settle(client, mid, tok, act(client, mid, tok, action="resign", level="backgammon"))
    assert any(line in ("Expert bot accepts", "Expert bot rejects") for line in s["log"][-3:])


def bot_match_at_the_bots_turn(client: TestClient) -> tuple[dict[str, Any], dict[str, Any]]:
    """A match against the random bot, played by the human until the bot is to act (the
    reply to the human's action comes before the bot's answer)."""
    m = new_match(client)
    s = state(client, m["id"], m["token"])
    for _ in range(50):
        for simple in ("take", "accept", "roll"):
            if simple in s["actions"]:
                s = act(client, m["id"], m["token"], action=simple)
                break
        else:
            s = act(client, m["id"], m["token"], action="move", steps=full_play(s))
        if s["turn"] == 1:
            return m, s
        s = settle(client, m["id"], m["token"], s)
    pytest.fail("the bot never came to act")


def test_the_reply_comes_before_the_bots_answer_which_is_pushed(client: TestClient) -> None:
    """The human's action is acknowledged once stored; the bot's answer arrives on the
    WebSocket, stored before it is sent."""
    m, s = bot_match_at_the_bots_turn(client)
    with client.websocket_connect(f"/api/matches/{m['id']}/ws?token={m['token']}") as ws:
        pushed = ws.receive_json()["state"]
        while pushed["turn"] == 1 and not pushed["over"]:
            pushed = ws.receive_json()["state"]
    assert pushed["seq"] > s["seq"] and pushed["log"][s["seq"] - 1 :] != []
    assert state(client, m["id"], m["token"])["seq"] >= pushed["seq"]  # it was stored


@SQLITE_ONLY
@pytest.mark.parametrize("misbehaving", ["crashing_once", "hanging_once"])
def test_a_bot_that_fails_once_is_tried_again(
    db: str, monkeypatch: pytest.MonkeyPatch, misbehaving: str
) -> None:
    """A bot that raises, or thinks past its time limit (its worker is killed), is asked
    again and the match goes on."""
    import backgammon.web.service.server as web_app

    monkeypatch.setattr(web_app, "bot_action", getattr(webbots, misbehaving))
    with TestClient(create_app(db, bot_timeout=3)) as client:
        m = new_match(client)
        webbots.marker(m["id"]).touch()
        s = state(client, m["id"], m["token"])
        while s["seq"] < 6 and not s["over"]:
            s = play_turn(client, m["id"], m["token"], s)
        assert not webbots.marker(m["id"]).exists()  # the bot did misbehave once


@SQLITE_ONLY
def test_a_failing_bot_is_reported_and_does_not_undo_the_human_action(
    db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The human's action is stored and acknowledged even if the bot then fails every
    attempt; the failure is sent to the match's WebSockets, not swallowed."""
    import backgammon.web.service.server as web_app

    monkeypatch.setattr(web_app, "bot_action", webbots.crashing)
    with TestClient(create_app(db)) as client:
        m, s = bot_match_at_the_bots_turn(client)
        with client.websocket_connect(f"/api/matches/{m['id']}/ws?token={m['token']}") as ws:
            assert ws.receive_json()["type"] == "state"
            message = ws.receive_json()
        assert message["type"] == "error" and message["error"]["code"] == "bot_failed"
        assert "bot crashed" in message["error"]["message"]
        after = state(client, m["id"], m["token"])
        assert after["turn"] == 1 and after["seq"] == s["seq"]
    assert len([r for r in stored_actions(db) if r[0] == m["id"]]) == s["seq"]


def test_a_bot_left_waiting_by_a_dead_process_is_started_by_another(db: str) -> None:
    """Another process stored the human's opening roll, which the bot won (R3), and died
    before its bot answered: this running process finds the stalled bot, which plays."""
    from backgammon.web.service.game import Game

    row = bot_wins_opening_row("stalled")
    with TestClient(create_app(db, bot_stall=0.5)) as client:
        store = Store(db)
        store.create_match(row)
        game = Game(row)
        with store.locked(row.id) as match:
            match.append(0, 0, game.apply(0, {"action": "roll"}), bot_due=True)
        store.close()
        deadline = time.monotonic() + 20
        while (s := client.get(f"/api/matches/{row.id}").json())["seq"] < 2:
            assert time.monotonic() < deadline, "the stalled bot was never started"
            time.sleep(0.05)
    assert s["turn"] == 0 and s["log"][-1].startswith("Beginner bot ")


def test_the_bot_acts_through_the_one_driver_with_every_cube_rule(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """bot_action is decide() as a stored action: the bot sees Jacoby and beavers (in a
    money game) and its beaver and its play come back as the web stores them."""
    from backgammon.play.match import Match
    from backgammon.play.rules import Rules
    from backgammon.players import CubeAction, CubeState
    from backgammon.web.service import game as web_game
    from backgammon.web.store.database import MatchRow

    seen: list[CubeState] = []

    class Beaverer:
        name = "beaverer"

        def choose_move(self, position: Position, dice: Any, cube: Any = None) -> Any:
            return position.legal_moves(dice)[0]

        def cube_action(self, position: Position, cube: CubeState, offered: bool = False) -> Any:
            seen.append(cube)
            return CubeAction.BEAVER if offered else CubeAction.DOUBLE

        def accept_resignation(self, position: Position, points: int, cube: Any = None) -> bool:
            return True

    monkeypatch.setitem(bots._made, ("beaverer", ()), Beaverer())
    row = MatchRow("m", 0.0, 1, "beaverer", 1, ("x", "y"), "00" * 32, "", ("Me", "Bot"))
    game = web_game.Game(row)
    game.match = Match(rules=Rules.money(jacoby=True, beavers=True))
    game.match.roll((3, 1))
    assert bots.bot_action("beaverer", game) == {
        "action": "move",
        "steps": [[s, t] for s, t, _h in game.match.legal_moves()[0]],
    }
    game.match.move(game.match.legal_moves()[0])
    assert bots.bot_action("beaverer", game) == {"action": "double"}
    game.match.double()
    assert bots.bot_action("beaverer", game) == {"action": "beaver"}
    assert seen[-1] == CubeState(jacoby=True, beavers=True)


def test_an_analysis_is_kept_in_the_database(client: TestClient, db: str) -> None:
    """An analysis is stored with its match, so any server process on the database (or a
    restarted one) reads it; a newer one replaces the older."""
    m = new_match(client, opponent="bot")
    store = Store(db)
    try:
        assert store.analysis(m["id"]) is None
        store.save_analysis(m["id"], 3, '{"seq": 3}')
        store.save_analysis(m["id"], 5, '{"seq": 5}')
        assert json.loads(store.analysis(m["id"]) or "") == {"seq": 5}
    finally:
        store.close()
    got = client.get(f"/api/matches/{m['id']}/analysis").json()
    assert got["status"] == "done" and got["analysis"] == {"seq": 5}


def test_bots_think_at_a_lower_priority_than_the_server() -> None:
    """A bot worker's niceness is the server's plus NICENESS (at most 19): on a busy machine
    people's requests are answered before the bots' thinking."""
    worker = bots.BotPool(1).pool.submit(os.nice, 0).result(timeout=120)
    assert worker == min(19, os.nice(0) + jobs.NICENESS)


def test_bot_workers_exit_when_their_server_is_killed() -> None:
    """A server killed with kill -9 leaves no bot worker behind (they were piling up, one
    set per killed server, until the machine ran out of memory)."""
    import signal
    import subprocess
    import sys

    code = (
        "import os, sys, time\n"
        "from backgammon.web.service import bots\n"
        "pool = bots.BotPool(2).pool\n"
        "executor = pool.executor()\n"
        "for f in pool.warming: f.result(timeout=120)\n"
        "print(' '.join(str(p) for p in executor._processes), flush=True)\n"
        "time.sleep(600)\n"
    )
    server = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert server.stdout is not None
    workers = [int(p) for p in server.stdout.readline().split()]
    assert len(workers) == 2
    server.send_signal(signal.SIGKILL)
    server.wait()
    deadline = time.monotonic() + 20
    alive = workers
    while alive and time.monotonic() < deadline:
        time.sleep(0.2)
        alive = [p for p in workers if Path(f"/proc/{p}").exists() and not _zombie(p)]
    assert alive == []


def _zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] == "Z"
    except OSError:
        return True

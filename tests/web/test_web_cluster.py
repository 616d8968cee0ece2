"""Two ``backgammon serve`` processes on one PostgreSQL database serve the same matches:
the two seats of a match on different processes see every update, ten simultaneous
identical actions sent to both are accepted once (the database serialises them), and when
one process is killed with SIGKILL the match goes on through the other."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx2
import pytest
from pghelp import (
    Cluster,
    free_port,
    postgres,  # noqa: F401 (the fixture)
)
from websockets.sync.client import ClientConnection, connect


class Serve:
    """``backgammon serve`` as a child process on a free port."""

    def __init__(self, database: str) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        cmd = [sys.executable, "-m", "backgammon", "serve", "--port", str(self.port)]
        self.proc = subprocess.Popen(
            [*cmd, "--database", database, "--bot-processes", "1"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx2.get(f"{self.url}/api/bots", timeout=1).status_code == 200:
                    return
            except httpx2.HTTPError:
                assert time.monotonic() < deadline, "the server did not start"
                time.sleep(0.1)

    def socket(self, stack: contextlib.ExitStack, match_id: str, token: str) -> ClientConnection:
        url = f"ws://127.0.0.1:{self.port}/api/matches/{match_id}/ws?token={token}"
        return stack.enter_context(connect(url))

    def kill9(self) -> None:
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)


@pytest.fixture
def two(postgres: Cluster) -> Iterator[tuple[Serve, Serve]]:  # noqa: F811
    database = postgres.new_database()
    a = Serve(database)
    b = Serve(database)
    yield a, b
    a.stop()
    b.stop()


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def seen_up_to(ws: ClientConnection, seq: int) -> dict[str, Any]:
    """The states pushed to ``ws`` until one has ``seq`` actions (the last one)."""
    while True:
        message = json.loads(ws.recv(timeout=15))
        assert message["type"] == "state", message
        if message["state"]["seq"] >= seq:
            assert message["state"]["seq"] == seq, "an update was sent before it was asked"
            return dict(message["state"])


def one_action(s: dict[str, Any]) -> dict[str, Any]:
    """What the seat to act does: roll, or the first complete play on offer."""
    if "roll" in s["actions"]:
        return {"action": "roll", "seq": s["seq"]}
    assert "move" in s["actions"], s["actions"]
    longest = max(len(o) for o in s["plays"])
    return {"action": "move", "steps": next(o for o in s["plays"] if len(o) == longest)}


def test_two_processes_serve_one_match(two: tuple[Serve, Serve]) -> None:
    with contextlib.ExitStack() as stack:
        two_seats_two_processes(stack, *two)


def two_seats_two_processes(stack: contextlib.ExitStack, a: Serve, b: Serve) -> None:
    m = httpx2.post(f"{a.url}/api/matches", json={"opponent": "human"}).json()
    mid, tokens = m["id"], [m["token"], m["invite"].rsplit("/", 1)[1]]
    servers = [a, b]  # seat 0 plays through a, seat 1 through b
    sockets = [a.socket(stack, mid, tokens[0]), b.socket(stack, mid, tokens[1])]
    for ws in sockets:
        assert json.loads(ws.recv(timeout=15))["state"]["seq"] == 0

    # Ten identical opening rolls at once, five through each process: one is accepted.
    def send(k: int) -> int:
        url = f"{servers[k % 2].url}/api/matches/{mid}/actions"
        body = {"action": "roll", "seq": 0}
        return httpx2.post(url, json=body, headers=auth(tokens[0]), timeout=30).status_code

    with ThreadPoolExecutor(10) as pool:
        assert sorted(pool.map(send, range(10))) == [200] + [409] * 9
    states = [seen_up_to(ws, 1) for ws in sockets]
    for server in servers:
        assert httpx2.get(f"{server.url}/api/matches/{mid}").json()["seq"] == 1

    def play(n: int) -> None:
        """``n`` actions, each by the seat to act through its own process; both seats'
        sockets see each one."""
        nonlocal states
        for _ in range(n):
            s = states[0]
            seat = s["turn"] if s["turn"] is not None else 0
            url = f"{servers[seat].url}/api/matches/{mid}/actions"
            mine = states[seat]
            r = httpx2.post(url, json=one_action(mine), headers=auth(tokens[seat]), timeout=30)
            assert r.status_code == 200, r.text
            states = [seen_up_to(ws, s["seq"] + 1) for ws in sockets]
            assert states[0]["gnubg_id"] == states[1]["gnubg_id"]

    play(8)
    # The process of seat 0 dies; seat 0 reconnects to the other one and the match goes on.
    a.kill9()
    sockets[0].close()
    servers[0] = b
    sockets[0] = b.socket(stack, mid, tokens[0])
    assert json.loads(sockets[0].recv(timeout=15))["state"]["seq"] == states[0]["seq"]
    play(6)
    final = httpx2.get(f"{b.url}/api/matches/{mid}", headers=auth(tokens[0])).json()
    assert final["seq"] == states[0]["seq"] == 15


def test_a_bot_match_goes_on_when_its_process_dies(two: tuple[Serve, Serve]) -> None:
    """Against the bot: the human acts through one process, which is killed; through the
    other the bot answers (its sweep finds a bot left waiting) and the human plays on."""
    a, b = two
    m = httpx2.post(f"{a.url}/api/matches", json={"bot": "random"}).json()
    api = f"/api/matches/{m['id']}"
    s = httpx2.get(a.url + api, headers=auth(m["token"])).json()
    while s["seq"] == 0 or s["on_roll"] is None:  # the opening roll, thrown until not a tie
        r = httpx2.post(a.url + api + "/actions", json={"action": "roll"}, headers=auth(m["token"]))
        s = r.json()
    a.kill9()
    deadline = time.monotonic() + 30
    while not s["actions"]:  # the bot's turn: answered by a before it died, or by b
        assert time.monotonic() < deadline, "the bot never answered"
        time.sleep(0.1)
        s = httpx2.get(b.url + api, headers=auth(m["token"])).json()
    r = httpx2.post(b.url + api + "/actions", json=one_action(s), headers=auth(m["token"]))
    assert r.status_code == 200 and r.json()["seq"] == s["seq"] + 1


def test_a_lobby_seat_and_a_rematch_are_given_once_across_processes(
    two: tuple[Serve, Serve],
) -> None:
    """Both processes know a public invitation with its seat free; ten claims at once, five
    through each, give the seat once (the database's lock, not a process's memory), and the
    claimant's token holds the seat in both.  Ten rematch calls at once make one rematch."""
    a, b = two
    servers = (a, b)
    m = httpx2.post(f"{a.url}/api/matches", json={"opponent": "human", "public": True}).json()
    mid, host = m["id"], m["token"]
    api = f"/api/matches/{mid}"
    with contextlib.ExitStack() as stack:
        ws = a.socket(stack, mid, host)
        assert json.loads(ws.recv(timeout=15))["state"]["seq"] == 0
        assert [i["id"] for i in httpx2.get(f"{b.url}/api/lobby").json()["invitations"]] == [mid]
        assert httpx2.get(b.url + api).json()["seq"] == 0  # b has the match in memory too

        def claim(k: int) -> httpx2.Response:
            return httpx2.post(f"{servers[k % 2].url}{api}/claim", json={"name": f"P{k}"})

        with ThreadPoolExecutor(10) as pool:
            answers = list(pool.map(claim, range(10)))
        assert sorted(r.status_code for r in answers) == [201] + [409] * 9
        won = next(r for r in answers if r.status_code == 201).json()
        guest = won["token"]
        named = seen_up_to(ws, 1)  # the claimant's name is an action, pushed to the host
        assert named["names"][1] in {f"P{k}" for k in range(10)}
        for server in servers:
            assert httpx2.get(server.url + api, headers=auth(guest)).json()["seat"] == 1
        assert httpx2.get(f"{a.url}/api/lobby").json()["invitations"] == []

    tokens = [host, guest]
    s = httpx2.post(a.url + api + "/actions", json={"action": "roll"}, headers=auth(host)).json()
    while s["on_roll"] is None:
        s = httpx2.post(a.url + api + "/actions", json={"action": "roll"}, headers=auth(host))
        s = s.json()
    mover = s["on_roll"]
    resign = {"action": "resign", "level": "single"}
    r = httpx2.post(b.url + api + "/actions", json=resign, headers=auth(tokens[mover]))
    assert r.status_code == 200, r.text
    r = httpx2.post(
        a.url + api + "/actions", json={"action": "accept"}, headers=auth(tokens[1 - mover])
    )
    assert r.status_code == 200 and r.json()["over"]

    def rematch(k: int) -> httpx2.Response:
        return httpx2.post(f"{servers[k % 2].url}{api}/rematch", headers=auth(tokens[k // 5]))

    with ThreadPoolExecutor(10) as pool:
        answers = list(pool.map(rematch, range(10)))
    assert [r.status_code for r in answers] == [201] * 10
    assert len({r.json()["id"] for r in answers}) == 1
    new = answers[0].json()["id"]
    s0 = httpx2.get(f"{b.url}/api/matches/{new}", headers=auth(host)).json()
    s1 = httpx2.get(f"{a.url}/api/matches/{new}", headers=auth(guest)).json()
    assert (s0["seat"], s1["seat"], s0["names"]) == (0, 1, named["names"])

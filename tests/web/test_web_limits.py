"""A server that holds under attack (issue 68): every socket, login, hash, rollout and chat
line bounded per client, look-alike names and weak passwords refused, the browser's security
headers sent.  Loads are small and on loopback or in process."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest
import uvicorn
from fastapi.testclient import TestClient
from pghelp import postgres  # noqa: F401 (the fixture)
from starlette.websockets import WebSocketDisconnect

from backgammon.web import create_app, server_options
from backgammon.web.api import players as players_api
from backgammon.web.guards import LoginLimiter
from backgammon.web.service import passwords as web_passwords
from backgammon.web.service.server import Server

SECRET = "correct horse battery staple"


@pytest.fixture
def db(tmp_path: Path) -> str:
    return str(tmp_path / "limits.sqlite3")


def _friends_match(client: TestClient) -> dict[str, Any]:
    r = client.post("/api/matches", json={"length": 3, "opponent": "human"})
    assert r.status_code == 201, r.text
    return dict(r.json())


# ------------------------------------------------------------------ sockets


class _Socket:
    """A WebSocket as the server sees it: ``hang`` ones never finish a send (a client that
    never reads), the others keep what they are sent."""

    def __init__(self, hang: bool = False) -> None:
        self.hang = hang
        self.sent: list[Any] = []
        self.closed: int | None = None

    async def send_text(self, text: str) -> None:
        if self.hang:
            await asyncio.Event().wait()
        self.sent.append(json.loads(text))

    async def close(self, code: int = 1000, reason: str = "") -> None:
        self.closed = code


def test_a_socket_that_never_reads_holds_up_no_other_and_is_dropped(db: str) -> None:
    """Item 1: a watcher that never reads froze every other socket of its match; now each
    socket has its own bounded queue: the others get every state, the stuck one is dropped
    (closed as too slow) and forgotten."""
    with TestClient(create_app(db)) as client:
        made = _friends_match(client)
        server: Server = client.app.state.server  # type: ignore[attr-defined]

        async def scenario() -> tuple[_Socket, _Socket, bool]:
            live = await server.load(made["id"])
            stuck, reader = _Socket(hang=True), _Socket()
            server.attach(live, stuck, None)  # type: ignore[arg-type]
            server.attach(live, reader, 0)  # type: ignore[arg-type]
            for _ in range(200):
                await asyncio.wait_for(server.broadcast(live), 5)
                await asyncio.sleep(0)
            await asyncio.sleep(0.2)
            return stuck, reader, stuck in live.sockets

        stuck, reader, kept = client.portal.call(scenario)  # type: ignore[union-attr]
        assert len(reader.sent) == 200 and all(m["type"] == "state" for m in reader.sent)
        assert stuck.closed == 4008 and not kept


def test_presence_messages_grow_with_the_sockets_not_their_square(db: str) -> None:
    """Item 7: 60 spectators joining one match each told every other one (1,830 messages);
    now presence is sent only when it changes, and a newcomer is told it alone."""
    with TestClient(create_app(db)) as client:
        made = _friends_match(client)
        server: Server = client.app.state.server  # type: ignore[attr-defined]

        async def scenario() -> list[_Socket]:
            live = await server.load(made["id"])
            sockets = [_Socket() for _ in range(60)]
            for ws in sockets:
                server.attach(live, ws, None, chatty=True)  # type: ignore[arg-type]
                await asyncio.sleep(0)
            await asyncio.sleep(0.3)
            return sockets

        sockets = client.portal.call(scenario)  # type: ignore[union-attr]
        total = sum(len(ws.sent) for ws in sockets)
        assert total <= 2 * len(sockets)
        assert all(ws.sent and ws.sent[-1]["type"] == "presence" for ws in sockets)


def test_a_socket_opened_while_the_database_is_down_closes_with_1011(db: str) -> None:
    """Item 10: the handler crashed with no close frame; now it closes with 1011."""
    import sqlite3

    with TestClient(create_app(db), raise_server_exceptions=False) as client:
        made = _friends_match(client)
        server = client.app.state.server  # type: ignore[attr-defined]
        server.live.clear()
        real = server.store.get_match

        def down(*args: Any) -> Any:
            raise sqlite3.OperationalError("unable to open database file")

        server.store.get_match = down
        url = f"/api/matches/{made['id']}/ws"
        with pytest.raises(WebSocketDisconnect) as closed, client.websocket_connect(url) as ws:
            ws.receive_json()
        assert closed.value.code == 1011
        server.store.get_match = real


# ------------------------------------------------------------------ logins and passwords


async def _logins(app: Any, bodies: list[dict[str, str]], address: str) -> list[int]:
    transport = httpx.ASGITransport(app=app, client=(address, 1234))
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
        answers = await asyncio.gather(*(c.post("/api/session", json=b) for b in bodies))
    return [r.status_code for r in answers]


def test_logins_are_counted_before_the_password_is_checked(
    db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Item 2: 40 wrong passwords at once were all checked (1 GB of argon2); now each is
    counted before its check, so at most the limit are checked and the rest are 429."""
    checked: list[str] = []
    real = web_passwords.verify_password  # type: ignore[attr-defined]

    def counting(stored: str | None, password: str) -> bool:
        checked.append(password)
        return real(stored, password)

    monkeypatch.setattr(web_passwords, "verify_password", counting)
    app = create_app(db)
    with TestClient(app) as client:
        assert client.post("/api/accounts", json={"name": "Ann", "password": SECRET}).is_success
        wrong = [{"name": "Ann", "password": f"guess {i:04d}"} for i in range(40)]
        codes = client.portal.call(_logins, app, wrong, "10.0.0.1")  # type: ignore[union-attr]
    limit = LoginLimiter().per_pair
    assert codes.count(401) == limit and codes.count(429) == 40 - limit
    assert len(checked) == limit


def test_a_name_is_limited_with_its_address_and_right_logins_count_too(db: str) -> None:
    """Item 4: five failures from anywhere locked the account out for everyone; now the
    limit is per (name, address): another address still logs in.  Item 2: right logins are
    counted too."""
    app = create_app(db)
    with TestClient(app) as client:
        assert client.post("/api/accounts", json={"name": "Ann", "password": SECRET}).is_success
        limit = LoginLimiter().per_pair
        wrong = [{"name": "Ann", "password": "not the one"}] * limit
        run = client.portal.call  # type: ignore[union-attr]
        assert run(_logins, app, wrong, "10.0.0.66") == [401] * limit
        right = {"name": "Ann", "password": SECRET}
        assert run(_logins, app, [right], "10.0.0.66") == [429]
        assert run(_logins, app, [right], "10.0.0.7") == [200]
        codes = [run(_logins, app, [right], "10.0.0.8")[0] for _ in range(limit + 1)]
        assert codes == [200] * (limit - 0) + [429]


def test_hashing_runs_off_the_writer_and_is_bounded(
    db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Item 3: password hashing ran on SQLite's one writer thread, so a sign-up held every
    match action behind it; now it runs on its own threads, and a crowd beyond their queue
    is refused at once (429) instead of waiting without bound."""
    release = threading.Event()
    real = web_passwords.hash_password  # type: ignore[attr-defined]

    def slow(password: str) -> str:
        release.wait(30)
        return real(password)

    monkeypatch.setattr(web_passwords, "hash_password", slow)
    monkeypatch.setattr(players_api, "SIGN_UPS", 100)  # one address makes them all here
    app = create_app(db)

    async def scenario() -> tuple[list[int], int, bool]:
        transport = httpx.ASGITransport(app=app, client=("10.0.0.9", 1))
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
            limit = web_passwords.HASHERS + web_passwords.WAITING
            signups = [
                asyncio.create_task(
                    c.post("/api/accounts", json={"name": f"P{i}", "password": SECRET})
                )
                for i in range(limit + 3)
            ]
            await asyncio.sleep(0.5)
            made = await asyncio.wait_for(
                c.post("/api/matches", json={"length": 1, "opponent": "human"}), 20
            )
            pending = not all(s.done() for s in signups[:limit])
            release.set()
            codes = [(await s).status_code for s in signups]
        return codes, made.status_code, pending

    with TestClient(app) as client:
        codes, made, pending = client.portal.call(scenario)  # type: ignore[union-attr]
    assert made == 201 and pending  # a match was made while the hashes were waiting
    assert codes.count(429) == 3 and codes.count(201) == len(codes) - 3


def test_the_forwarded_address_is_believed_only_from_named_proxies(db: str) -> None:
    """Item 4: uvicorn believed X-Forwarded-For from 127.0.0.1, so a client behind a local
    proxy that does not set it chose its own address for each try; now only the proxies the
    operator names are believed (none by default)."""
    assert server_options()["proxy_headers"] is False
    assert server_options(["10.1.1.1"])["forwarded_allow_ips"] == "10.1.1.1"

    def run(trusted: list[str]) -> list[int]:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        options = server_options(trusted)
        config = uvicorn.Config(create_app(db), host="127.0.0.1", port=port, **options)
        server = uvicorn.Server(config)
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        try:
            deadline = time.monotonic() + 60
            while not server.started:
                assert time.monotonic() < deadline and thread.is_alive()
                time.sleep(0.05)
            per_address = LoginLimiter().per_address
            with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60) as c:
                return [
                    c.post(
                        "/api/session",
                        json={"name": f"n{i}", "password": "a guess here"},
                        headers={"X-Forwarded-For": f"10.9.{i}.1"},
                    ).status_code
                    for i in range(per_address + 1)
                ]
        finally:
            server.should_exit = True
            thread.join(30)

    codes = run([])
    assert codes[-1] == 429 and set(codes[:-1]) == {401}  # one address: 127.0.0.1
    assert set(run(["127.0.0.1"])) == {401}  # the proxy is trusted: each its own address


# ------------------------------------------------------------------ names and passwords


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("Аnn", "name_taken"),  # a Cyrillic А
        ("ＡＮＮ", "name_taken"),  # full-width
        ("Ехреrt bot", "name_taken"),  # the bot, in Cyrillic
        ("Expert\u3164bot", "invalid_request"),  # a Hangul filler
        ("Expert bot\u3164", "invalid_request"),
        ("Expertbot", "name_taken"),  # the bot without its space
    ],
)
def test_look_alike_names_and_fillers_are_refused(db: str, name: str, code: str) -> None:
    """Item 11: Cyrillic and full-width look-alikes, fillers and a bot's name plus a filler
    were accepted as new names."""
    with TestClient(create_app(db)) as client:
        assert client.post("/api/accounts", json={"name": "Ann", "password": SECRET}).is_success
        other = TestClient(client.app)
        r = other.post("/api/accounts", json={"name": name, "password": SECRET})
        assert r.status_code in (400, 409) and r.json()["error"]["code"] == code, r.text


@pytest.mark.parametrize("password", ["12345678", " " * 8, "abcdefgh", "87654321", "aaaabbbb"])
def test_weak_passwords_are_refused(db: str, password: str) -> None:
    """Item 11: ``12345678`` and eight spaces were accepted."""
    with TestClient(create_app(db)) as client:
        r = client.post("/api/accounts", json={"name": "Ann", "password": password})
        assert r.status_code == 400 and r.json()["error"]["code"] == "invalid_request"
        assert client.get("/api/players/Ann").status_code == 404


def test_a_password_logs_in_whatever_its_unicode_form(db: str) -> None:
    """Item 11: a password saved in one Unicode form failed in the other."""
    secret = "Crème brûlée à l'été"
    with TestClient(create_app(db)) as client:
        nfd = unicodedata.normalize("NFD", secret)
        assert nfd != secret
        r = client.post("/api/accounts", json={"name": "Ann", "password": nfd})
        assert r.status_code == 201
        r = client.post("/api/session", json={"name": "Ann", "password": secret})
        assert r.status_code == 200, r.text


# ------------------------------------------------------------------ headers


def test_pages_and_answers_carry_the_security_headers(db: str) -> None:
    """Item 12: no Content-Security-Policy, X-Frame-Options or nosniff headers; every inline
    script of the pages is allowed by its hash and no other is."""
    import base64
    import hashlib
    import re

    with TestClient(create_app(db)) as client:
        for path in ("/", "/position", "/analyse", "/api/bots", "/static/board.js"):
            r = client.get(path)
            assert r.headers["x-content-type-options"] == "nosniff", path
            assert r.headers["x-frame-options"] == "DENY", path
            policy = r.headers["content-security-policy"]
            assert "frame-ancestors 'none'" in policy and "script-src 'self'" in policy
            assert "'unsafe-inline'" not in policy.split("script-src")[1].split(";")[0]
        for page in ("/", "/analyse"):
            for script in re.findall(r"<script>(.*?)</script>", client.get(page).text, re.S):
                digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
                assert f"'sha256-{digest}'" in policy


def test_seat_cookies_are_secure_over_https(db: str) -> None:
    """Item 12: a seat's cookie was never Secure, even over HTTPS."""
    with TestClient(create_app(db), base_url="https://testserver") as client:
        r = client.post("/api/matches", json={"length": 1, "opponent": "human"})
        assert "secure" in r.headers["set-cookie"].lower()
        link = client.get(r.json()["invite"], follow_redirects=False)
        assert "secure" in link.headers["set-cookie"].lower()
    with TestClient(create_app(db)) as client:
        r = client.post("/api/matches", json={"length": 1, "opponent": "human"})
        assert "secure" not in r.headers["set-cookie"].lower()


# ------------------------------------------------------------------ chat on PostgreSQL


@pytest.fixture
def pg(postgres: Any) -> Iterator[str]:  # noqa: F811 (the fixture)
    yield str(postgres.new_database())


def test_chat_lines_said_at_once_on_postgresql_are_all_kept(pg: str) -> None:
    """Item 9: 13 of 40 chat lines sent at once on PostgreSQL were answered 503."""
    app = create_app(pg)
    with TestClient(app) as client:
        made = _friends_match(client)

        async def say() -> list[int]:
            transport = httpx.ASGITransport(app=app)
            headers = {"Authorization": f"Bearer {made['token']}"}
            async with httpx.AsyncClient(transport=transport, base_url="http://t") as c:
                url = f"/api/matches/{made['id']}/chat"
                answers = await asyncio.gather(
                    *(c.post(url, json={"text": f"line {i}"}, headers=headers) for i in range(40))
                )
            return [r.status_code for r in answers]

        codes = client.portal.call(say)  # type: ignore[union-attr]
        assert codes == [201] * 40
        lines = client.get(f"/api/matches/{made['id']}/chat").json()["lines"]
        assert sorted(line["seq"] for line in lines) == list(range(40))


# ------------------------------------------------------------------ uploads

SAMPLE = Path(__file__).parents[1] / "data" / "samples" / "gnubg107_5pt_match.mat"


def test_uploads_are_bounded_and_queued_one_at_a_time_per_client(db: str) -> None:
    """Item 5: a file of hundreds of games cost a minute of the server's CPU to read and
    hours to analyse, and three of them blocked every upload; now a file is read in a worker
    within a time limit, refused past a number of actions, one client has one file analysed
    at a time, and a file waiting says its place in the queue."""
    data = SAMPLE.read_bytes()
    with TestClient(create_app(db)) as client:
        uploads = client.app.state.services.uploads  # type: ignore[attr-defined]
        uploads.max_decisions = 10
        r = client.post("/api/uploads", params={"name": "a.mat"}, content=data)
        assert r.status_code == 413 and r.json()["error"]["code"] == "too_long"
        uploads.max_decisions = 10_000
        first = client.post("/api/uploads", params={"name": "a.mat"}, content=data)
        assert first.status_code == 202, first.text
        again = client.post("/api/uploads", params={"name": "b.mat"}, content=data)
        assert again.status_code == 429 and again.json()["error"]["code"] == "one_at_a_time"
        other = TestClient(client.app, client=("10.0.0.5", 1))
        second = other.post("/api/uploads", params={"name": "b.mat"}, content=data)
        assert second.status_code == 202, second.text
        status = other.get(f"/api/uploads/{second.json()['id']}").json()
        assert status["status"] == "running" and status["queue"] >= 1
        # A match's analysis waits its turn too, and says so.
        m = client.post("/api/matches", json={"length": 1, "bot": "random"}).json()
        assert client.post(f"/api/matches/{m['id']}/analysis").status_code == 202
        status = client.get(f"/api/matches/{m['id']}/analysis").json()
        assert status["status"] == "running" and status["queue"] >= 2


def test_an_upload_polled_on_another_process_is_not_read_or_analysed_again(
    db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Item 6: a poll served by a second process read the file again (21 s) and started a
    second analysis; now the second process sees that the first is on it and waits."""
    data = SAMPLE.read_bytes()
    with TestClient(create_app(db)) as one, TestClient(create_app(db)) as two:
        made = one.post("/api/uploads", params={"name": "a.mat"}, content=data)
        assert made.status_code == 202
        uploads = two.app.state.services.uploads  # type: ignore[attr-defined]
        reads: list[str] = []

        async def counted(name: str, body: bytes) -> Any:
            reads.append(name)
            raise AssertionError("read again")

        monkeypatch.setattr(uploads, "read", counted)
        for _ in range(3):
            status = two.get(f"/api/uploads/{made.json()['id']}").json()
            assert status["status"] == "running"
        assert reads == [] and uploads.active() == []

"""The server under attack and under failure (issue "What new users met", items 22-25):
odd match ids, a database that is down or read-only, bodies too large. Each answer is a 4xx
or a 503 with the error shape, and nothing stored changes."""

from __future__ import annotations

import os
import signal
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient
from pghelp import Cluster, postgres  # noqa: F401 (the fixture)

from backgammon.web import create_app
from backgammon.web.service import analysis as web_analysis


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "matches.sqlite3")
    return str(request.getfixturevalue("postgres").new_database())


def _new_match(client: TestClient) -> dict[str, Any]:
    r = client.post("/api/matches", json={"length": 1, "bot": "random"})
    assert r.status_code == 201, r.text
    return dict(r.json())


@pytest.mark.parametrize("match_id", ["%00", "a%00b", "x" * 65, "..%2F..", "a b", "é"])
def test_an_id_no_match_can_have_is_404_on_every_store(db: str, match_id: str) -> None:
    """A NUL in a match id was a 500 on PostgreSQL: ids that cannot be ours are 404 before
    any query, on SQLite and PostgreSQL alike, for the API and the pages."""
    with TestClient(create_app(db), raise_server_exceptions=False) as client:
        for path in (f"/api/matches/{match_id}", f"/m/{match_id}/join/t", f"/m/{match_id}"):
            r = client.get(path, follow_redirects=False)
            assert r.status_code < 500, (path, r.status_code)
            if path.startswith("/api"):
                assert r.status_code == 404
                assert r.json()["error"]["code"] in ("no_such_match", "not_found")


def test_a_database_that_fails_is_503_not_500(tmp_path: Path) -> None:
    """A store that cannot be written (read-only SQLite, a full disk) answers 503 with the
    error shape, and the match in it is read as before once it works again."""
    db = str(tmp_path / "m.sqlite3")
    with TestClient(create_app(db), raise_server_exceptions=False) as client:
        made = _new_match(client)
        store = client.app.state.server.store  # type: ignore[attr-defined]
        real = store.create_match

        def failing(*args: Any, **kwargs: Any) -> Any:
            raise sa.exc.OperationalError(
                "INSERT", {}, Exception("attempt to write a readonly database")
            )

        store.create_match = failing
        r = client.post("/api/matches", json={"length": 1, "bot": "random"})
        assert r.status_code == 503 and r.json()["error"]["code"] == "storage"
        store.create_match = real
        assert client.get(f"/api/matches/{made['id']}").status_code == 200


def test_postgresql_down_is_503_and_up_again_serves_the_match() -> None:
    """The PostgreSQL server stops: reads and new matches are 503 with the error shape (they
    were 500s); started again, the same server process serves the match as it was."""
    cluster = Cluster()
    try:
        db = cluster.new_database()
        with TestClient(create_app(db), raise_server_exceptions=False) as client:
            made = _new_match(client)
            before = client.get(f"/api/matches/{made['id']}").json()
            cluster.halt()
            client.app.state.server.live.clear()  # type: ignore[attr-defined]
            for r in (
                client.get(f"/api/matches/{made['id']}"),
                client.post("/api/matches", json={"length": 1, "bot": "random"}),
            ):
                assert r.status_code == 503, r.text
                assert r.json()["error"]["code"] == "storage"
            cluster.start()
            after = client.get(f"/api/matches/{made['id']}")
            assert after.status_code == 200 and after.json() == before
    finally:
        cluster.stop()


def test_a_body_over_the_limit_is_refused_before_it_is_read(tmp_path: Path) -> None:
    """A 200 MB POST took the server from 124 to 729 MB: bodies over 1 MB are refused with
    413 (by their length, or as a chunked body passes the limit), and nothing is stored."""
    with TestClient(create_app(str(tmp_path / "m.sqlite3"))) as client:
        big = b'{"length": 1, "bot": "random", "x": "' + b"a" * (2 * 1024 * 1024) + b'"}'
        for r in (
            client.post("/api/matches", content=big, headers={"content-type": "application/json"}),
            client.post("/api/matches", content=iter([big[:600_000], big[600_000:]])),
            client.post("/nowhere", content=big),
        ):
            assert r.status_code == 413 and r.json()["error"]["code"] == "too_large"
        store = client.app.state.server.store  # type: ignore[attr-defined]
        assert store.match_ids() == []
        assert client.post("/api/matches", json={"length": 1, "bot": "random"}).status_code == 201


def test_a_page_that_cannot_be_shown_is_a_page_with_the_way_home(tmp_path: Path) -> None:
    """An unknown match or a bad join link in a browser was raw JSON with no way back: it is
    a page in the site's style saying what is wrong, with a link to the lobby; the API (and
    a client that does not ask for HTML) keeps the JSON error."""
    page = {"accept": "text/html,application/xhtml+xml"}
    with TestClient(create_app(str(tmp_path / "m.sqlite3"))) as client:
        made = _new_match(client)
        client.cookies.clear()
        for path in ("/m/nosuchmatch", f"/m/{made['id']}/join/wrong<b>", "/no/such/page"):
            r = client.get(path, headers=page, follow_redirects=False)
            assert 400 <= r.status_code < 500, path
            assert r.headers["content-type"].startswith("text/html")
            assert "<a href='/'>Back to the lobby</a>" in r.text and "<b>" not in r.text
        r = client.get("/api/matches/nosuchmatch", headers=page)
        assert r.status_code == 404 and r.json()["error"]["code"] == "no_such_match"
        assert client.get("/m/nosuchmatch").json()["error"]["code"] == "no_such_match"


def _analysis_status(client: TestClient, match_id: str, until: str) -> dict[str, Any]:
    deadline = time.monotonic() + 120
    while True:
        status = dict(client.get(f"/api/matches/{match_id}/analysis").json())
        if status["status"] == until or time.monotonic() > deadline:
            return status
        time.sleep(0.2)


def test_analyses_fail_clearly_and_a_dead_worker_is_replaced(tmp_path: Path) -> None:
    """An analysis that cannot be stored says failed and why (it said running forever);
    after the analysis worker is killed (kill -9) the next analysis runs in a new one (every
    later request was a 500); the server's progress folder is gone after it stops."""
    with TestClient(create_app(str(tmp_path / "m.sqlite3"))) as client:
        made = _new_match(client)
        store = client.app.state.server.store  # type: ignore[attr-defined]
        real = store.save_analysis

        def read_only(*args: Any) -> None:
            raise sqlite3.OperationalError("attempt to write a readonly database")

        store.save_analysis = read_only
        assert client.post(f"/api/matches/{made['id']}/analysis").status_code == 202
        status = _analysis_status(client, made["id"], "failed")
        assert status["status"] == "failed" and "readonly" in status["error"]
        store.save_analysis = real
        pool = web_analysis.analysis_pool().executor()
        for pid in list(pool._processes):  # the worker dies as a kill -9 would kill it
            os.kill(pid, signal.SIGKILL)
        time.sleep(1)
        assert client.post(f"/api/matches/{made['id']}/analysis").status_code == 202
        assert _analysis_status(client, made["id"], "done")["status"] == "done"
        mine = client.app.state.services.analyses.folder  # type: ignore[attr-defined]
        assert mine.is_dir() and mine.name.startswith("backgammon-analysis-")
    assert not mine.exists()


def test_serve_ended_by_sigterm_leaks_no_semaphore(tmp_path: Path) -> None:
    """Item 27: uvicorn ends a SIGTERMed server by raising the signal again, so no exit
    handler removes the worker pools' queue semaphores; the server releases them itself
    (the bots' pool and the hint engine's here, both used before the signal)."""
    import socket
    import subprocess
    import sys

    import httpx2

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    url = f"http://127.0.0.1:{port}"
    cmd = [sys.executable, "-m", "backgammon", "serve", "--port", str(port)]
    proc = subprocess.Popen(
        [*cmd, "--database", str(tmp_path / "m.sqlite3")],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if httpx2.get(f"{url}/api/bots", timeout=1).status_code == 200:
                    break
            except httpx2.HTTPError:
                time.sleep(0.1)
        made = httpx2.post(
            f"{url}/api/matches", json={"length": 1, "bot": "random"}, timeout=60
        ).json()
        bearer = {"Authorization": f"Bearer {made['token']}"}
        act = httpx2.post(
            f"{url}/api/matches/{made['id']}/actions",
            json={"action": "roll"},
            headers=bearer,
            timeout=60,
        )
        assert act.status_code == 200, act.text
        hint = httpx2.get(f"{url}/api/engine/hint", params={"xgid": act.json()["xgid"]}, timeout=60)
        assert hint.status_code == 200, hint.text
    finally:
        proc.send_signal(signal.SIGTERM)
        _out, err = proc.communicate(timeout=60)  # stderr closes once the tracker is done
    text = err.decode()
    assert "Application shutdown complete" in text
    assert "leaked semaphore" not in text, text

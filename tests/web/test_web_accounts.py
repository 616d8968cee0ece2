"""Accounts over the JSON API: sign-up, login and logout, password change, players' pages,
the leaderboard and who is online; passwords never stored in plain text; failed logins
limited per name and per address; cookie-authenticated changes refused from another site;
rated matches joined by a second account and rated once at the end; a match's chat."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient

from backgammon.web import create_app
from backgammon.web.api.players import COOKIE
from backgammon.web.store.database import Store

SECRET = "correct horse battery staple"


@pytest.fixture
def db(tmp_path: Path) -> str:
    return str(tmp_path / "accounts.sqlite3")


@pytest.fixture
def app_clients(db: str) -> Iterator[tuple[TestClient, TestClient, TestClient]]:
    """Three browsers on one server: three cookie jars."""
    app = create_app(db, bot_processes=1)
    with TestClient(app) as a:
        b, c = TestClient(app), TestClient(app)
        yield a, b, c


def sign_up(client: TestClient, name: str, password: str = SECRET) -> dict[str, Any]:
    r = client.post("/api/accounts", json={"name": name, "password": password})
    assert r.status_code == 201, r.text
    return dict(r.json())


def test_sign_up_log_in_log_out_and_change_the_password(
    app_clients: tuple[TestClient, TestClient, TestClient], db: str
) -> None:
    a, b, _ = app_clients
    me = sign_up(a, "Ann")
    assert (me["name"], me["rating"], me["experience"]) == ("Ann", 1500, 0)
    assert a.get("/api/session").json()["player"]["name"] == "Ann"
    for name in ("Ann", "ANN"):  # a name is taken in any case
        r = b.post("/api/accounts", json={"name": name, "password": SECRET})
        assert r.status_code == 409 and r.json()["error"]["code"] == "name_taken"
    r = b.post("/api/accounts", json={"name": "Bo", "password": "short"})
    assert r.status_code == 400 and r.json()["error"]["code"] == "invalid_request"
    # Logging in: a wrong password is 401 and sets nothing; the right one sets the cookie.
    r = b.post("/api/session", json={"name": "Ann", "password": "wrong password"})
    assert r.status_code == 401 and r.json()["error"]["code"] == "bad_login"
    assert COOKIE not in b.cookies
    r = b.post("/api/session", json={"name": "ann", "password": SECRET})
    assert r.status_code == 200 and r.json()["name"] == "Ann"
    cookie = r.headers["set-cookie"]
    assert "httponly" in cookie.lower() and "samesite=lax" in cookie.lower()
    assert b.get("/api/session").json()["player"]["name"] == "Ann"
    # A password change asks the current one and ends the other sessions.
    wrong = {"password": "nope nope", "new_password": "another long phrase"}
    r = a.post("/api/accounts/password", json=wrong)
    assert r.status_code == 401
    new = "a new secret phrase"
    r = a.post("/api/accounts/password", json={"password": SECRET, "new_password": new})
    assert r.status_code == 200
    assert b.get("/api/session").json()["player"] is None  # b's session ended
    assert a.get("/api/session").json()["player"]["name"] == "Ann"
    assert b.post("/api/session", json={"name": "Ann", "password": SECRET}).status_code == 401
    assert b.post("/api/session", json={"name": "Ann", "password": new}).status_code == 200
    # Logging out ends the session.
    assert b.delete("/api/session").status_code == 204
    assert b.get("/api/session").json()["player"] is None
    # The player's page; an unknown one is a 404 in the one error shape.
    page = a.get("/api/players/ann").json()
    assert page["name"] == "Ann" and page["rating"] == 1500 and page["online"] is True
    r = a.get("/api/players/nobody")
    assert r.status_code == 404 and r.json()["error"]["code"] == "no_such_player"
    # No password is anywhere in the database in plain text.
    store = Store(db)
    try:
        with store.engine.connect() as conn:
            dump = [
                str(row)
                for table in sa.inspect(conn).get_table_names()
                for row in conn.execute(sa.text(f"SELECT * FROM {table}"))
            ]
    finally:
        store.close()
    text = "\n".join(dump)
    assert "$argon2id$" in text and SECRET not in text and new not in text


def test_logins_are_limited_per_name_and_address_and_per_address(
    app_clients: tuple[TestClient, TestClient, TestClient],
) -> None:
    a, b, _ = app_clients
    sign_up(a, "Ann")
    for _ in range(9):  # ten logins of one name from one address: nine wrong, one right
        r = b.post("/api/session", json={"name": "Ann", "password": "guess guess"})
        assert r.status_code == 401
    r = b.post("/api/session", json={"name": "Ann", "password": SECRET})
    assert r.status_code == 200
    # The eleventh is refused before its password is checked, even the right one.
    r = b.post("/api/session", json={"name": "Ann", "password": SECRET})
    assert r.status_code == 429 and r.json()["error"]["code"] == "too_many_logins"
    assert int(r.headers["Retry-After"]) >= 1
    # Per address: thirty tries (the sign-up's included), then every name is refused.
    for i in range(19):
        b.post("/api/session", json={"name": f"n{i}", "password": "guess guess"})
    r = b.post("/api/session", json={"name": "Bob", "password": SECRET})
    assert r.status_code == 429


def test_changes_with_a_cookie_from_another_site_are_refused(
    app_clients: tuple[TestClient, TestClient, TestClient],
) -> None:
    a, _, _ = app_clients
    sign_up(a, "Ann")
    spec = {"length": 1, "opponent": "human", "rated": True}
    for headers in ({"Origin": "https://evil.example"}, {"Sec-Fetch-Site": "cross-site"}):
        r = a.post("/api/matches", json=spec, headers=headers)
        assert r.status_code == 403 and r.json()["error"]["code"] == "cross_site"
        r = a.delete("/api/session", headers=headers)
        assert r.status_code == 403
    assert a.get("/api/session").json()["player"]["name"] == "Ann"
    # The same origin (what the page sends) is let through.
    headers = {"Origin": "http://testserver", "Sec-Fetch-Site": "same-origin"}
    assert a.post("/api/matches", json=spec, headers=headers).status_code == 201


def finish_by_resigning(client: TestClient, match_id: str, tokens: list[str]) -> dict[str, Any]:
    """Roll the opening, have the mover resign and the other accept: a 1-point match over."""
    auth = [{"Authorization": f"Bearer {t}"} for t in tokens]
    url = f"/api/matches/{match_id}/actions"
    s = client.post(url, json={"action": "roll"}, headers=auth[0]).json()
    while s["on_roll"] is None:
        s = client.post(url, json={"action": "roll"}, headers=auth[0]).json()
    mover = s["on_roll"]
    r = client.post(url, json={"action": "resign", "level": "single"}, headers=auth[mover])
    assert r.status_code == 200, r.text
    r = client.post(url, json={"action": "accept"}, headers=auth[1 - mover])
    assert r.status_code == 200, r.text
    s = r.json()
    assert s["over"] and s["winner"] == 1 - mover
    return s


def test_a_rated_match_joined_by_the_invited_account_rates_both_once(
    app_clients: tuple[TestClient, TestClient, TestClient],
) -> None:
    a, b, c = app_clients
    sign_up(a, "Ann")
    sign_up(b, "Bob")
    sign_up(c, "Cy")
    guest = TestClient(a.app)
    spec = {"length": 1, "opponent": "human", "rated": True, "invite": "bob"}
    r = guest.post("/api/matches", json=spec)
    assert r.status_code == 401 and r.json()["error"]["code"] == "login_required"
    made = a.post("/api/matches", json=spec)
    assert made.status_code == 201, made.text
    m = made.json()
    assert "invite" not in m
    mid = m["id"]
    # Only Bob may join; a guest cannot claim it; Ann cannot play herself.
    r = c.post(f"/api/matches/{mid}/join")
    assert r.status_code == 403 and r.json()["error"]["code"] == "not_invited"
    assert guest.post(f"/api/matches/{mid}/claim", json={"name": "X"}).status_code == 409
    joined = b.post(f"/api/matches/{mid}/join")
    assert joined.status_code == 201, joined.text
    assert set(joined.json()) >= {"token", "seat", "link"} and joined.json()["seat"] == 1
    assert b.post(f"/api/matches/{mid}/join").status_code == 409
    rename = a.post(
        f"/api/matches/{mid}/actions",
        json={"action": "name", "name": "Someone"},
        headers={"Authorization": f"Bearer {m['token']}"},
    )
    assert rename.status_code == 409 and rename.json()["error"]["code"] == "rated"
    presence = a.get(f"/api/matches/{mid}/presence").json()
    assert presence["players"] == ["Ann", "Bob"] and presence["arrived"] is True
    s = finish_by_resigning(a, mid, [m["token"], joined.json()["token"]])
    winner, loser = ("Ann", "Bob") if s["winner"] == 0 else ("Bob", "Ann")
    # Equal new players, 1 point: 4 * sqrt(1) * 0.5 * K=5 = 10 points each way.
    for _ in range(3):
        a.get(f"/api/matches/{mid}")  # reading the finished match again rates nothing more
    w, lo = a.get(f"/api/players/{winner}").json(), a.get(f"/api/players/{loser}").json()
    assert w["rating"] == pytest.approx(1510) and lo["rating"] == pytest.approx(1490)
    assert w["experience"] == lo["experience"] == 1
    assert [h["match"] for h in w["history"]] == [mid] and w["history"][0]["won"] is True
    assert w["matches"][0]["id"] == mid and w["matches"][0]["opponent"] == loser
    board = a.get("/api/players").json()["players"]
    assert [p["name"] for p in board] == [winner, loser]


def test_a_rated_match_against_a_bot_rates_the_bot_too(
    app_clients: tuple[TestClient, TestClient, TestClient],
) -> None:
    a, _, _ = app_clients
    sign_up(a, "Ann")
    m = a.post("/api/matches", json={"length": 1, "bot": "random", "rated": True}).json()
    auth = {"Authorization": f"Bearer {m['token']}"}
    url = f"/api/matches/{m['id']}/actions"
    s = a.post(url, json={"action": "roll"}, headers=auth).json()
    import time

    deadline = time.monotonic() + 30
    # Until we may resign: the bot may be to move, and a roll with no legal play passes the
    # turn back to it, so roll when asked and wait otherwise.
    while not s["over"] and "resign" not in s["actions"]:
        assert time.monotonic() < deadline
        if "roll" in s["actions"]:
            s = a.post(url, json={"action": "roll"}, headers=auth).json()
            continue
        time.sleep(0.05)
        s = a.get(f"/api/matches/{m['id']}", headers=auth).json()
    if not s["over"]:
        r = a.post(url, json={"action": "resign", "level": "backgammon"}, headers=auth)
        assert r.status_code == 200, r.text
    while True:
        ann = a.get("/api/players/Ann").json()
        if ann["experience"] == 1 or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    bot = a.get("/api/players/Beginner bot").json()
    assert ann["experience"] == 1 and ann["rating"] != pytest.approx(1500)
    # The bot is established and Ann is not yet: her match moves her rating, not the bot's.
    assert bot["bot"] == "random" and bot["experience"] == 0
    assert bot["rating"] == pytest.approx(1500)
    assert [h["match"] for h in bot["history"]] == [m["id"]]


def test_chat_between_the_seats_read_by_spectators(
    app_clients: tuple[TestClient, TestClient, TestClient],
) -> None:
    a, _, c = app_clients
    m = a.post("/api/matches", json={"length": 1, "opponent": "human", "name": "Ann"}).json()
    mid = m["id"]
    line = "<script>alert(1)</script>  hello"
    r = a.post(f"/api/matches/{mid}/chat", json={"text": line})  # the seat's cookie
    assert r.status_code == 201, r.text
    assert r.json()["text"] == "<script>alert(1)</script> hello" and r.json()["seat"] == 0
    r = c.post(f"/api/matches/{mid}/chat", json={"text": "hi"})
    assert r.status_code == 403 and r.json()["error"]["code"] == "spectator"
    too_long = c.post(f"/api/matches/{mid}/chat", json={"text": "x" * 301})
    assert too_long.status_code == 400
    lines = c.get(f"/api/matches/{mid}/chat").json()["lines"]  # a spectator reads it
    assert [(x["name"], x["text"]) for x in lines] == [("Ann", "<script>alert(1)</script> hello")]

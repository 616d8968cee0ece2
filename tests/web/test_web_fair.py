"""Fair rated play (issue 67, items 1-5): a rated match rated in the transaction that ends
it (or at the next start-up), clocks and forfeits on an injected time source, invitations
withdrawn and expired, no engine help to a seat of a rated match in play, ratings that a
pair's repeats or new accounts cannot farm, sign-ups limited per address, and seat cookies
that a logout or a password change ends.  Each runs on SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient

from backgammon.web import create_app
from backgammon.web.store import accounts as accounts_module
from backgammon.web.store.database import Store

SECRET = "correct horse battery staple"


@dataclass
class Site:
    """One server (its database, an injected clock) and a browser per player."""

    db: str
    app: Any
    now: list[float]

    def browser(self) -> TestClient:
        return TestClient(self.app)

    def sign_up(self, name: str) -> TestClient:
        c = self.browser()
        r = c.post("/api/accounts", json={"name": name, "password": SECRET})
        assert r.status_code == 201, r.text
        return c


@pytest.fixture
def site(db: str) -> Iterator[Site]:
    now = [1_000_000.0]
    app = create_app(db, bot_processes=1, clock=lambda: now[0])
    with TestClient(app):
        yield Site(db, app, now)


def rated_pair(site: Site, a: TestClient, b: TestClient, **spec: Any) -> tuple[str, list[str]]:
    """A rated match made by ``a`` and joined by ``b``: its id and the two seat tokens."""
    made = a.post("/api/matches", json={"length": 1, "opponent": "human", "rated": True, **spec})
    assert made.status_code == 201, made.text
    joined = b.post(f"/api/matches/{made.json()['id']}/join")
    assert joined.status_code == 201, joined.text
    return made.json()["id"], [made.json()["token"], joined.json()["token"]]


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def to_resignation(c: TestClient, mid: str, tokens: list[str]) -> int:
    """Roll the opening and have the mover offer a resignation; returns the mover."""
    url = f"/api/matches/{mid}/actions"
    s = c.post(url, json={"action": "roll"}, headers=auth(tokens[0])).json()
    while s["on_roll"] is None:
        s = c.post(url, json={"action": "roll"}, headers=auth(tokens[0])).json()
    mover = int(s["on_roll"])
    r = c.post(url, json={"action": "resign", "level": "single"}, headers=auth(tokens[mover]))
    assert r.status_code == 200, r.text
    return mover


def stored(db: str, sql: str, **params: Any) -> list[tuple[Any, ...]]:
    store = Store(db)
    try:
        with store.engine.connect() as conn:
            return [tuple(r) for r in conn.execute(sa.text(sql), params)]
    finally:
        store.close()


# ---------------------------------------------------------------- 4: rated with its end


def test_a_rated_match_never_ends_unrated_when_the_rating_fails(
    site: Site, monkeypatch: pytest.MonkeyPatch
) -> None:
    ann, bob = site.sign_up("Ann"), site.sign_up("Bob")
    mid, tokens = rated_pair(site, ann, bob)
    mover = to_resignation(ann, mid, tokens)

    def database_fails(*_args: Any) -> None:
        raise sa.exc.OperationalError("UPDATE players", {}, Exception("the database failed"))

    monkeypatch.setattr(accounts_module, "fibs_change", database_fails)
    url = f"/api/matches/{mid}/actions"
    r = ann.post(url, json={"action": "accept"}, headers=auth(tokens[1 - mover]))
    # The end and its rating are one commit: neither is kept, the match goes on.
    assert r.status_code == 503, r.text
    assert stored(site.db, "SELECT over FROM matches WHERE id = :m", m=mid) == [(0,)]
    assert stored(site.db, "SELECT * FROM ratings WHERE match_id = :m", m=mid) == []
    monkeypatch.undo()
    r = ann.post(url, json={"action": "accept"}, headers=auth(tokens[1 - mover]))
    assert r.status_code == 200 and r.json()["over"], r.text
    assert stored(site.db, "SELECT over FROM matches WHERE id = :m", m=mid) == [(1,)]
    rows = stored(site.db, "SELECT player, won FROM ratings WHERE match_id = :m", m=mid)
    winner, loser = ["Ann", "Bob"][1 - mover], ["Ann", "Bob"][mover]
    assert sorted(rows) == sorted([(winner, 1), (loser, 0)])


def test_a_finished_unrated_match_is_rated_at_start_up(site: Site) -> None:
    ann, bob = site.sign_up("Ann"), site.sign_up("Bob")
    mid, tokens = rated_pair(site, ann, bob)
    mover = to_resignation(ann, mid, tokens)
    server = site.app.state.server
    server.accounts = None  # as a release that rated after the commit, and died between
    r = ann.post(
        f"/api/matches/{mid}/actions", json={"action": "accept"}, headers=auth(tokens[1 - mover])
    )
    assert r.status_code == 200 and r.json()["over"]
    assert stored(site.db, "SELECT * FROM ratings WHERE match_id = :m", m=mid) == []
    # Another process starts: no one opens the match, yet it is rated, once.
    for _ in range(2):
        with TestClient(create_app(site.db, bot_processes=1)) as other:
            winner = ["Ann", "Bob"][1 - mover]
            assert other.get(f"/api/players/{winner}").json()["rating"] == pytest.approx(1510)
    assert len(stored(site.db, "SELECT * FROM ratings WHERE match_id = :m", m=mid)) == 2


# ---------------------------------------------------------------- 2: no engine help


def test_no_engine_help_to_a_seat_of_a_rated_match_in_play(site: Site) -> None:
    ann, bob, guest = site.sign_up("Ann"), site.sign_up("Bob"), site.browser()
    mid, tokens = rated_pair(site, ann, bob)
    url = f"/api/matches/{mid}/actions"
    s = ann.post(url, json={"action": "roll"}, headers=auth(tokens[0])).json()
    while s["on_roll"] is None:
        s = ann.post(url, json={"action": "roll"}, headers=auth(tokens[0])).json()
    other = {"xgid": "XGID=--A-bBBBB--BbB-----dbbc-B-:0:0:1:31:6:4:1:7:10"}  # not this match's
    # (The engine itself may be slow to start on a loaded machine: only the bar is tested.)
    assert guest.get("/api/engine/hint", params=other).status_code != 403
    for who in (ann, bob):  # a seat, whatever position it asks about
        for path in ("/api/engine/hint", "/api/engine/eval"):
            r = who.get(path, params=other)
            assert r.status_code == 403 and r.json()["error"]["code"] == "rated_in_play"
        r = who.post("/api/rollouts", json={"id": other["xgid"], "trials": 1})
        assert r.status_code == 403 and r.json()["error"]["code"] == "rated_in_play"
        r = who.post("/api/uploads", params={"name": "m.mat"}, content=b"x")
        assert r.status_code == 403
    # Anyone asking about the match's own position and dice (a helper, a second browser).
    r = guest.get("/api/engine/hint", params={"gnubgid": s["gnubg_id"]})
    assert r.status_code == 403 and r.json()["error"]["code"] == "rated_in_play"
    r = guest.post(f"/api/matches/{mid}/analysis")
    assert r.status_code == 403 and r.json()["error"]["code"] == "rated_in_play"
    assert s["rated"] is True  # the page hides its hints and analysis by it
    # Once the match is over the help comes back.
    mover = s["on_roll"]
    r = ann.post(url, json={"action": "resign", "level": "single"}, headers=auth(tokens[mover]))
    r = ann.post(url, json={"action": "accept"}, headers=auth(tokens[1 - mover]))
    assert r.json()["over"]
    assert ann.get("/api/engine/hint", params=other).status_code != 403
    assert guest.get("/api/engine/hint", params={"gnubgid": s["gnubg_id"]}).status_code != 403


# ---------------------------------------------------------------- 3: rating farming


def rated_match(store: Store, accounts: Any, a: str, b: str) -> str:
    """A rated 1-point match held by the accounts ``a`` (seat 0) and ``b`` (seat 1)."""
    import secrets

    from backgammon.web.store.database import MatchRow

    row = MatchRow(
        secrets.token_urlsafe(8), 0.0, 1, None, None, ("x", "y"), "00", "c", (a, b), rated=True
    )

    def seats(conn: Any) -> None:
        accounts.add_seat(conn, row.id, 0, a)
        accounts.add_seat(conn, row.id, 1, b)

    store.create_match(row, seats)
    return row.id


def test_new_accounts_and_a_pairs_repeats_cannot_farm_a_rating(site: Site) -> None:
    accounts = site.app.state.services.accounts
    store = site.app.state.services.store
    for name in ("Farmer", *(f"Sock{i}" for i in range(8)), "Real"):
        accounts.create(name, "not a hash")

    def rating(name: str) -> float:
        return float(accounts.player(name).rating)

    # Eight new accounts lose to the farmer: only the first five (until the farmer is
    # established) move the farmer's rating; the farmer's later wins over new accounts
    # give nothing.
    after = []
    for i in range(8):
        accounts.settle(rated_match(store, accounts, "Farmer", f"Sock{i}"), 1, 0)
        after.append(rating("Farmer"))
    assert after[4] > after[3] > 1500
    assert after[7] == after[6] == after[5] == after[4] < 1560
    assert rating("Sock7") < 1500  # the new account's own rating moves
    # A pair's fourth match in a day moves neither rating.
    for _ in range(4):
        accounts.settle(rated_match(store, accounts, "Real", "Sock0"), 1, 1)
    history = accounts.history("Real")
    assert [h["before"] != h["after"] for h in history] == [True, True, True, False]
    assert accounts.player("Real").experience == 3


def test_sign_ups_are_limited_per_address(site: Site) -> None:
    c = site.browser()
    for i in range(3):
        r = c.post("/api/accounts", json={"name": f"Acc{i}", "password": SECRET})
        assert r.status_code == 201, r.text
    r = c.post("/api/accounts", json={"name": "Acc3", "password": SECRET})
    assert r.status_code == 429 and r.json()["error"]["code"] == "too_many_sign_ups"
    assert c.get("/api/players/Acc3").status_code == 404


# ---------------------------------------------------------------- 5: seat cookies end


def test_logging_out_or_a_new_password_ends_the_rated_seat_cookie(site: Site) -> None:
    ann, bob = site.sign_up("Ann"), site.sign_up("Bob")
    mid, tokens = rated_pair(site, ann, bob)
    url = f"/api/matches/{mid}/actions"
    old = site.browser()  # a copy of Ann's 90-day seat cookie
    old.cookies.set(f"bg_{mid}", ann.cookies[f"bg_{mid}"])
    assert old.get(f"/api/matches/{mid}").json()["seat"] == 0
    assert ann.delete("/api/session").status_code == 204
    # The cookie (or its token) plays the match no more, from any browser.
    r = old.post(url, json={"action": "roll"})
    assert r.status_code == 403 and r.json()["error"]["code"] == "bad_token"
    r = site.browser().post(url, json={"action": "roll"}, headers=auth(tokens[0]))
    assert r.status_code == 403
    # Logged in again, Ann takes her seat back with a new token.
    r = ann.post("/api/session", json={"name": "Ann", "password": SECRET})
    assert r.status_code == 200
    back = ann.post(f"/api/matches/{mid}/join")
    assert back.status_code == 201 and back.json()["seat"] == 0, back.text
    assert ann.post(url, json={"action": "roll"}).status_code == 200
    # A new password: Bob's old seat cookie ends too; the browser that changed it goes on.
    stolen = site.browser()
    stolen.cookies.set(f"bg_{mid}", bob.cookies[f"bg_{mid}"])
    new = {"password": SECRET, "new_password": "another secret phrase"}
    assert bob.post("/api/accounts/password", json=new).status_code == 200
    assert stolen.get(f"/api/matches/{mid}").status_code == 403
    assert bob.get(f"/api/matches/{mid}").json()["seat"] == 1

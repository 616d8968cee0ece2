"""Fair rated play (issue 67, items 1-5): a rated match rated in the transaction that ends
it (or at the next start-up), clocks and forfeits on an injected time source, invitations
withdrawn and expired, no engine help to a seat of a rated match in play, ratings that a
pair's repeats or new accounts cannot farm, sign-ups limited per address, and seat cookies
that a logout or a password change ends.  Each runs on SQLite and PostgreSQL."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient
from webapi import bot_wins_opening_row

from backgammon.web import create_app
from backgammon.web.service.game import Game, orderings
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


# ---------------------------------------------------------------- 1: clocks, invitations


def opening(c: TestClient, mid: str, tokens: list[str]) -> dict[str, Any]:
    """The state once the opening roll has fallen (a tie is thrown again)."""
    url = f"/api/matches/{mid}/actions"
    s = c.post(url, json={"action": "roll"}, headers=auth(tokens[0])).json()
    while s["on_roll"] is None:
        s = c.post(url, json={"action": "roll"}, headers=auth(tokens[0])).json()
    return dict(s)


def test_a_rated_match_is_timed_and_a_player_out_of_time_loses_it_rated(site: Site) -> None:
    ann, bob = site.sign_up("Ann"), site.sign_up("Bob")
    mid, tokens = rated_pair(site, ann, bob)
    s = ann.get(f"/api/matches/{mid}").json()
    assert s["clock"]["delay"] == 12 and s["clock"]["reserve"] == [60, 60]
    assert s["clock"]["running"] is None  # the opening roll: either may throw
    s = opening(ann, mid, tokens)
    mover = s["on_roll"]
    assert s["clock"]["running"] == mover and s["clock"]["deadline"] == site.now[0] + 72
    # 20 s on a play: 8 beyond the delay come off the mover's reserve.
    site.now[0] += 20
    s = ann.get(f"/api/matches/{mid}", headers=auth(tokens[mover])).json()
    longest = max(len(o) for o in s["plays"])
    play = next(o for o in s["plays"] if len(o) == longest)
    url = f"/api/matches/{mid}/actions"
    r = ann.post(url, json={"action": "move", "steps": play}, headers=auth(tokens[mover]))
    assert r.status_code == 200, r.text
    s = r.json()
    assert s["clock"]["reserve"][mover] == 52 and s["clock"]["running"] == 1 - mover
    # The other seat stops playing: past its delay and reserve it may not act and loses.
    site.now[0] += 12 + 60.5
    r = ann.post(url, json={"action": "roll"}, headers=auth(tokens[1 - mover]))
    assert r.status_code == 409 and r.json()["error"]["code"] == "out_of_time"
    s = ann.get(f"/api/matches/{mid}").json()
    assert s["over"] and s["lost_on_time"] == 1 - mover and s["winner"] == mover
    names = ["Ann", "Bob"]
    assert ann.get(f"/api/players/{names[mover]}").json()["rating"] == pytest.approx(1510)
    assert ann.get(f"/api/players/{names[1 - mover]}").json()["rating"] == pytest.approx(1490)


def test_a_player_who_is_gone_loses_on_time_when_no_one_looks(site: Site) -> None:
    ann, bob = site.sign_up("Ann"), site.sign_up("Bob")
    mid, tokens = rated_pair(site, ann, bob, clock={"delay": 5, "reserve": 30})
    s = opening(ann, mid, tokens)
    assert s["clock"]["reserve"] == [30, 30]
    site.now[0] += 36
    swept = site.app.state.server.sweep  # what every process runs every few seconds
    with TestClient(site.app) as c:
        assert mid in c.portal.call(swept)
    rows = stored(site.db, "SELECT player, won FROM ratings WHERE match_id = :m", m=mid)
    winner = ["Ann", "Bob"][1 - s["on_roll"]]
    assert (winner, 1) in rows and len(rows) == 2
    assert stored(site.db, "SELECT over FROM matches WHERE id = :m", m=mid) == [(1,)]


def test_untimed_by_default_unrated_and_a_clock_chosen_in_the_invitation(site: Site) -> None:
    c = site.browser()
    r = c.post("/api/matches", json={"length": 3, "opponent": "human"})
    assert c.get(f"/api/matches/{r.json()['id']}").json()["clock"] is None
    spec = {"length": 3, "opponent": "human", "clock": {"delay": 8, "reserve": 240}}
    r = c.post("/api/matches", json=spec)
    clock = c.get(f"/api/matches/{r.json()['id']}").json()["clock"]
    assert (clock["delay"], clock["reserve"]) == (8, [240, 240])
    ann = site.sign_up("Ann")
    spec = {"length": 3, "opponent": "human", "rated": True, "clock": None}
    r = ann.post("/api/matches", json=spec)
    assert ann.get(f"/api/matches/{r.json()['id']}").json()["clock"] is None
    bad = c.post("/api/matches", json={"length": 3, "clock": {"delay": -1}})
    assert bad.status_code == 400


def test_invitations_are_withdrawn_by_their_host_and_expire(site: Site) -> None:
    host, guest = site.browser(), site.browser()
    made = host.post("/api/matches", json={"length": 1, "opponent": "human", "public": True})
    mid = made.json()["id"]
    assert [i["id"] for i in guest.get("/api/lobby").json()["invitations"]] == [mid]
    r = guest.delete(f"/api/matches/{mid}")
    assert r.status_code == 403 and r.json()["error"]["code"] == "not_host"
    assert host.delete(f"/api/matches/{mid}").status_code == 204
    assert guest.get("/api/lobby").json()["invitations"] == []
    r = guest.post(f"/api/matches/{mid}/claim", json={"name": "Late"})
    assert r.status_code == 409
    s = guest.get(f"/api/matches/{mid}").json()
    assert s["over"] and s["closed"] == "withdrawn" and s["winner"] is None
    # Once joined it cannot be withdrawn.
    made = host.post("/api/matches", json={"length": 1, "opponent": "human", "public": True})
    mid = made.json()["id"]
    assert guest.post(f"/api/matches/{mid}/claim", json={"name": "Gil"}).status_code == 201
    r = host.delete(f"/api/matches/{mid}")
    assert r.status_code == 409 and r.json()["error"]["code"] == "joined"
    s = opening(host, mid, [made.json()["token"]])  # untimed: no clock runs mid-game
    assert s["clock"] is None and not s["over"]
    # An invitation no one joins expires after an hour; a match left idle a day is closed.
    made = host.post("/api/matches", json={"length": 1, "opponent": "human", "public": True})
    late = made.json()["id"]
    site.now[0] += 3601
    assert guest.get("/api/lobby").json()["invitations"] == []
    assert guest.get(f"/api/matches/{late}").json()["closed"] == "expired"
    assert guest.get(f"/api/matches/{mid}").json()["over"] is False
    site.now[0] += 86400
    s = guest.get(f"/api/matches/{mid}").json()
    assert s["closed"] == "abandoned" and s["over"] and s["winner"] is None
    assert stored(site.db, "SELECT over FROM matches WHERE id = :m", m=mid) == [(1,)]


def test_a_timed_match_starts_when_both_have_come(site: Site) -> None:
    ann, bob = site.sign_up("Ann"), site.sign_up("Bob")
    made = ann.post("/api/matches", json={"length": 1, "opponent": "human", "rated": True})
    mid, token = made.json()["id"], made.json()["token"]
    url = f"/api/matches/{mid}/actions"
    r = ann.post(url, json={"action": "roll"}, headers=auth(token))
    assert r.status_code == 409 and r.json()["error"]["code"] == "not_arrived"
    assert ann.get(f"/api/matches/{mid}").json()["seq"] == 0
    site.now[0] += 600  # the wait costs no one anything
    assert bob.post(f"/api/matches/{mid}/join").status_code == 201
    s = opening(ann, mid, [token])
    assert s["clock"]["reserve"] == [60, 60] and s["clock"]["deadline"] == site.now[0] + 72


def test_a_bot_to_act_or_a_match_from_before_clocks_is_never_closed_as_left() -> None:
    row = dataclasses.replace(bot_wins_opening_row("bot"), created=1000.0)
    later = 1000.0 + 2 * 86400
    assert Game(row).expiry(row, later) == {"action": "close", "reason": "abandoned", "at": later}
    game = Game(row)
    game.apply(0, {"action": "roll", "at": 1000.0})
    assert game.actor() == 1 and game.expiry(row, later) is None  # the bot's to play
    legacy = Game(row)
    legacy.apply(0, {"action": "roll"})  # stored before actions carried their time
    legacy.apply(1, {"action": "move", "steps": bot_play(legacy)})
    assert legacy.actor() == 0 and legacy.expiry(row, later) is None


def bot_play(game: Game) -> list[tuple[int, int]]:
    """A legal play of the seat on roll (one of the longest)."""
    plays = orderings(game.match.position, game.match.dice)
    return max(plays, key=len)

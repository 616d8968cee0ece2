"""The web API: matches against the bot and between friends, seat tokens, every refusal a
clear error that changes nothing, storage that survives a restart, replay and dice audit;
bots in worker processes that may fail.  Every test runs on SQLite and on PostgreSQL."""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
import webbots
from fastapi.testclient import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st
from pghelp import postgres  # noqa: F401 (the fixture)

from backgammon import Move, Position
from backgammon.web import bots, create_app
from backgammon.web.game import orderings
from backgammon.web.store import Store, StoreError, database_path, database_url


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh database: an SQLite file, or a database in the test PostgreSQL cluster."""
    if request.param == "sqlite":
        return str(tmp_path / "matches.sqlite3")
    return str(request.getfixturevalue("postgres").new_database())


@pytest.fixture
def client(db: str) -> Iterator[TestClient]:
    with TestClient(create_app(db)) as c:
        yield c


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


# ------------------------------------------------------------------ whole matches


def test_a_whole_match_against_the_bot_then_audit_replay_and_restart(
    client: TestClient, db: str
) -> None:
    m = new_match(client, length=3)
    mid, tok = m["id"], m["token"]
    s = state(client, mid, tok)
    assert s["seat"] == 0 and s["actions"] == ["roll"] and s["commitment"] == m["commitment"]
    for _ in range(2000):
        if s["over"]:
            break
        s = play_turn(client, mid, tok, s)
    assert s["over"] and s["winner"] in (0, 1)
    assert max(s["score"]) >= 3  # R27
    # The seed is revealed and every roll checks against the commitment shown at the start.
    assert hashlib.sha256(bytes.fromhex(s["seed"])).hexdigest() == m["commitment"]
    assert s["dice_verified"] is True
    from backgammon.play.dice import verify

    assert verify(s["rolls"], s["seed"], m["commitment"])  # anyone can check the rolls
    assert any(": " in line for line in s["log"])
    # Every accepted action was stored, numbered without gaps.
    rows = [r for r in stored_actions(db) if r[0] == mid]
    assert [r[1] for r in rows] == list(range(s["seq"]))
    store = Store(db)
    assert store.match_ids(unfinished_bot_matches=True) == []  # marked finished
    store.close()
    # Step-by-step replay: from the start to the end.
    first = client.get(f"/api/matches/{mid}/replay/0").json()
    assert first["seq"] == 0 and first["score"] == [0, 0]
    last = client.get(f"/api/matches/{mid}/replay/{s['seq']}").json()
    assert last["gnubg_id"] == s["gnubg_id"] and last["score"] == s["score"]
    middle = client.get(f"/api/matches/{mid}/board.svg?at={s['seq'] // 2}")
    assert middle.status_code == 200 and middle.text.startswith("<svg")
    assert client.get(f"/api/matches/{mid}/replay/{s['seq'] + 1}").status_code == 400
    # Downloads: gnubg's .mat and SGF, which read back to the same match.
    from backgammon.records import mat, sgf

    mat_text = client.get(f"/api/matches/{mid}/match.mat")
    assert mat_text.status_code == 200
    assert "attachment" in mat_text.headers["content-disposition"]
    assert mat.read(mat_text.text).score == tuple(s["score"])
    sgf_text = client.get(f"/api/matches/{mid}/match.sgf").text
    assert sgf_text.startswith("(;FF[4]GM[6]")
    assert sgf.read(sgf_text).score == tuple(s["score"])
    # A new server on the same database rebuilds the same match from the stored actions.
    with TestClient(create_app(db)) as again:
        s2 = state(again, mid, tok)
    for key in ("seq", "score", "gnubg_id", "xgid", "log", "winner", "seed"):
        assert s2[key] == s[key], key


def test_invitation_link_and_cookie_seat_two_friends(client: TestClient) -> None:
    m = new_match(client, opponent="human", name="Ann")
    mid = m["id"]
    assert "invite" in m
    # The invitation link sets the seat's cookie and leads to the board.
    r = client.get(m["invite"], follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == f"/m/{mid}"
    assert client.cookies.get(f"bg_{mid}")
    s = client.get(f"/api/matches/{mid}").json()
    assert s["seat"] == 1 and s["names"] == ["Ann", "Friend"]
    assert client.get(f"/m/{mid}").status_code == 200
    # Either seat may throw the opening roll (R3); here the friend does, through the cookie.
    r = client.post(f"/api/matches/{mid}/actions", json={"action": "roll"})
    assert r.status_code == 200, r.text
    s = r.json()
    assert s["seq"] == 1 and s["seat"] == 1
    if s["on_roll"] is None:  # a tie, thrown again (R3)
        assert "a tie" in s["log"][-1] and s["actions"] == ["roll"]
    else:
        assert s["dice"][0] != s["dice"][1]
    # A spectator sees the match and cannot act.
    client.cookies.clear()
    watch = client.get(f"/api/matches/{mid}").json()
    assert watch["seat"] is None and watch["actions"] == [] and watch["gnubg_id"] == s["gnubg_id"]


def test_websocket_pushes_states_and_takes_actions(client: TestClient) -> None:
    m = new_match(client, opponent="human")
    mid, tok = m["id"], m["token"]
    with client.websocket_connect(f"/api/matches/{mid}/ws") as watcher:
        assert watcher.receive_json()["state"]["seat"] is None
        with client.websocket_connect(f"/api/matches/{mid}/ws?token={tok}") as player:
            assert player.receive_json()["state"]["actions"] == ["roll"]
            watcher.send_json({"action": "roll"})
            err = watcher.receive_json()
            assert err["type"] == "error" and err["error"]["code"] == "spectator"
            player.send_text("{not json")
            assert player.receive_json()["type"] == "error"
            player.send_json({"action": "roll"})
            s = player.receive_json()
            assert s["type"] == "state" and s["state"]["seq"] == 1
            assert watcher.receive_json()["state"]["seq"] == 1


def test_idle_matches_are_forgotten_and_read_again(client: TestClient) -> None:
    """A long-running server keeps only ``keep`` matches it is not playing in memory; a
    forgotten one is rebuilt from the database as it was, and play goes on; a watched
    match is never forgotten."""
    server = client.app.state.server  # type: ignore[attr-defined]
    server.keep = 2
    watched = new_match(client, opponent="human")
    with client.websocket_connect(f"/api/matches/{watched['id']}/ws") as ws:
        ws.receive_json()
        before = {}
        for _ in range(4):
            m = new_match(client, opponent="human")
            s = act(client, m["id"], m["token"], action="roll")
            before[m["id"]] = ([m["token"], m["invite"].rsplit("/", 1)[1]], s)
            assert len(server.live) <= 2 + 1
        assert watched["id"] in server.live
        first = next(iter(before))
        assert first not in server.live
        tokens, s = before[first]
        again = state(client, first, tokens[0])
        for key in ("seq", "gnubg_id", "xgid", "log", "dice", "actions", "plays"):
            assert again[key] == s[key], key
        if again["on_roll"] is None:  # an opening tie is thrown again (R3)
            assert act(client, first, tokens[0], action="roll")["seq"] == s["seq"] + 1
        else:
            mover = tokens[again["on_roll"]]
            play = full_play(state(client, first, mover))
            assert act(client, first, mover, action="move", steps=play)["seq"] == s["seq"] + 1
        assert first in server.live and len(server.live) <= 3
    # Even a match forgotten while its socket opened (keep 0 forgets it at once) is
    # watched: the socket joins the match kept in memory, and is sent the next action.
    server.keep = 0
    m = new_match(client, opponent="human")
    with client.websocket_connect(f"/api/matches/{m['id']}/ws?token={m['token']}") as ws:
        assert ws.receive_json()["state"]["seq"] == 0
        assert m["id"] in server.live and server.live[m["id"]].sockets
        act(client, m["id"], m["token"], action="roll")
        assert ws.receive_json()["state"]["seq"] == 1


def test_matches_in_play_are_kept_and_idle_ones_still_forgotten(client: TestClient) -> None:
    """With more matches in play than ``keep``, the server looks for idle ones less often
    (a request's cost must not grow with the matches in play) but never keeps more than
    ``keep`` plus twice those in play, and never forgets one in play."""
    server = client.app.state.server  # type: ignore[attr-defined]
    server.keep = 1
    watched = [new_match(client, opponent="human") for _ in range(3)]
    urls = [f"/api/matches/{m['id']}/ws" for m in watched]
    with (
        client.websocket_connect(urls[0]) as a,
        client.websocket_connect(urls[1]) as b,
        client.websocket_connect(urls[2]) as c,
    ):
        for ws in (a, b, c):
            ws.receive_json()
        for _ in range(12):
            new_match(client, opponent="human")
            assert all(m["id"] in server.live for m in watched)
            assert len(server.live) <= 1 + 2 * 3


# ------------------------------------------------------------------ refusals change nothing


@pytest.fixture
def friends(client: TestClient) -> dict[str, Any]:
    """A match between two humans, rolled so that someone is to move."""
    m = new_match(client, opponent="human")
    tok1 = m["invite"].rsplit("/", 1)[1]
    s = act(client, m["id"], m["token"], action="roll")
    while s["on_roll"] is None:  # an opening tie is thrown again (R3)
        s = act(client, m["id"], m["token"], action="roll")
    mover = s["on_roll"]
    return {
        "id": m["id"],
        "tokens": [m["token"], tok1],
        "mover": mover,
        "state": state(client, m["id"], [m["token"], tok1][mover]),
    }


BAD_ACTIONS = [
    ("malformed json", "{action: roll", 400, "malformed_json"),
    ("not an object", "[1, 2]", 400, "invalid_request"),
    ("unknown action", {"action": "castle"}, 400, "invalid_request"),
    ("illegal play text", {"action": "move", "move": "24/1"}, 400, "illegal_move"),
    ("unreadable play", {"action": "move", "move": "banana"}, 400, "illegal_move"),
    ("illegal steps", {"action": "move", "steps": [[24, 1]]}, 400, "illegal_move"),
    ("steps off the board", {"action": "move", "steps": [[30, 2]]}, 400, "illegal_move"),
    ("half a play", "HALF", 400, "illegal_move"),
    ("no play given", {"action": "move"}, 400, "missing_move"),
    ("roll twice", {"action": "roll"}, 409, "not_allowed"),
    ("take without double", {"action": "take"}, 409, "not_allowed"),
    ("dead cube in a 1-point match (R29)", "DOUBLE_LATER", 409, "not_allowed"),
    ("stale sequence number", {"action": "resign", "seq": 0}, 409, "stale"),
    ("bad resign level", {"action": "resign", "level": "triple"}, 400, "invalid_request"),
]


@pytest.mark.parametrize(
    ("what", "body", "status", "code"), BAD_ACTIONS, ids=[b[0] for b in BAD_ACTIONS]
)
def test_bad_actions_are_refused_and_change_nothing(
    client: TestClient,
    db: str,
    friends: dict[str, Any],
    what: str,
    body: Any,
    status: int,
    code: str,
) -> None:
    mid, mover = friends["id"], friends["mover"]
    token = friends["tokens"][mover]
    before = state(client, mid, token)
    rows_before = stored_actions(db)
    if body == "HALF":
        body = {"action": "move", "steps": full_play(before)[:1]}
        if len(full_play(before)) == 1:
            pytest.fail("the opening play always has two steps")
    if body == "DOUBLE_LATER":
        # Play the opening, then the other player (to roll) tries to double a dead cube.
        after = act(client, mid, token, action="move", steps=full_play(before))
        token = friends["tokens"][1 - mover]
        before = state(client, mid, token)
        assert "double" not in before["actions"]
        rows_before = stored_actions(db)
        body = {"action": "double"}
    data = body if isinstance(body, str) else json.dumps(body)
    r = client.post(
        f"/api/matches/{mid}/actions",
        content=data,
        headers={**auth(token), "Content-Type": "application/json"},
    )
    assert r.status_code == status, r.text
    err = r.json()["error"]
    assert err["code"] == code and err["message"]
    after = state(client, mid, token)
    assert stored_actions(db) == rows_before
    for key in ("seq", "gnubg_id", "xgid", "dice", "actions", "log"):
        assert after[key] == before[key], key


def test_out_of_turn_and_bad_tokens_are_refused(
    client: TestClient, db: str, friends: dict[str, Any]
) -> None:
    mid, mover = friends["id"], friends["mover"]
    url = f"/api/matches/{mid}/actions"
    before = state(client, mid)
    rows = stored_actions(db)
    cases = [
        (auth(friends["tokens"][1 - mover]), {"action": "resign"}, 409, "not_your_turn"),
        (auth("not-a-token"), {"action": "resign"}, 403, "bad_token"),
        ({}, {"action": "resign"}, 403, "spectator"),
        ({"Authorization": "Basic abc"}, {"action": "resign"}, 401, "bad_authorization"),
    ]
    for headers, body, status, code in cases:
        r = client.post(url, json=body, headers=headers)
        assert r.status_code == status, (code, r.text)
        assert r.json()["error"]["code"] == code
    assert client.get(f"/api/matches/{mid}", headers=auth("nope")).status_code == 403
    assert client.post("/api/matches/nosuch/actions", json={"action": "roll"}).status_code == 404
    assert client.get("/api/matches/nosuch").json()["error"]["code"] == "no_such_match"
    assert client.get(f"/m/{mid}/join/wrong").status_code == 403
    assert stored_actions(db) == rows
    assert state(client, mid)["gnubg_id"] == before["gnubg_id"]


def test_a_finished_match_refuses_every_action(client: TestClient, db: str) -> None:
    m = new_match(client, opponent="human")
    mid, toks = m["id"], [m["token"], m["invite"].rsplit("/", 1)[1]]
    s = act(client, mid, toks[0], action="roll")
    while s["on_roll"] is None:  # an opening tie is thrown again (R3)
        s = act(client, mid, toks[0], action="roll")
    p = s["on_roll"]
    act(client, mid, toks[p], action="resign", level="gammon")
    s = act(client, mid, toks[1 - p], action="accept")
    assert s["over"] and s["winner"] == 1 - p and s["score"][1 - p] == 2  # R21
    rows = stored_actions(db)
    for tok in toks:
        for body in ({"action": "roll"}, {"action": "resign"}, {"action": "accept"}):
            r = client.post(f"/api/matches/{mid}/actions", json=body, headers=auth(tok))
            assert r.status_code == 409 and r.json()["error"]["code"] == "match_over"
    assert stored_actions(db) == rows


def test_board_svg_follows_partial_plays_and_refuses_others(
    client: TestClient, friends: dict[str, Any]
) -> None:
    mid, mover = friends["id"], friends["mover"]
    tok = friends["tokens"][mover]
    play = full_play(friends["state"])
    first = "-".join(map(str, play[0]))
    r = client.get(f"/api/matches/{mid}/board.svg?steps={first}&highlight=1,2", headers=auth(tok))
    assert r.status_code == 200 and r.headers["content-type"].startswith("image/svg+xml")
    assert r.text.count('class="point target"') == 2
    bad = client.get(f"/api/matches/{mid}/board.svg?steps=24-1", headers=auth(tok))
    assert bad.status_code == 400
    other = client.get(
        f"/api/matches/{mid}/board.svg?steps={first}", headers=auth(friends["tokens"][1 - mover])
    )
    assert other.status_code == 409
    assert client.get(f"/api/matches/{mid}/board.svg?steps=x").status_code == 400


def test_create_refuses_bad_specs(client: TestClient) -> None:
    for spec in ({"length": 0}, {"length": 99}, {"opponent": "cat"}, {"bot": "nosuchbot"}):
        r = client.post("/api/matches", json=spec)
        assert r.status_code in (400, 422), spec
        assert r.json()["error"]["message"]


def test_openapi_documents_the_api(client: TestClient) -> None:
    doc = client.get("/openapi.json").json()
    for path in ("/api/matches", "/api/matches/{match_id}", "/api/matches/{match_id}/actions"):
        assert path in doc["paths"]
    assert "WebSocket" in doc["info"]["description"]
    assert "plays" in doc["components"]["schemas"]["StateView"]["properties"]
    assert client.get("/").status_code == 200


def test_unfinished_match_cannot_be_replayed_or_downloaded(
    client: TestClient, friends: dict[str, Any]
) -> None:
    mid = friends["id"]
    assert client.get(f"/api/matches/{mid}/replay/0").status_code == 409
    assert client.get(f"/api/matches/{mid}/match.mat").status_code == 409


# ------------------------------------------------------------------ storage


def bot_wins_opening_row(match_id: str) -> Any:
    """A match against the random bot whose seed makes the bot (seat 1) win the opening."""
    from backgammon.play.dice import dice_stream
    from backgammon.web.game import Game
    from backgammon.web.store import MatchRow

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


def test_a_bot_whose_turn_it_was_plays_on_after_a_restart(db: str) -> None:
    """The server died after storing the human's opening roll, which the bot won: started
    again, the bot makes its play at once."""
    from backgammon.web.game import Game

    store = Store(db)
    row = bot_wins_opening_row("resume")
    store.create_match(row)
    game = Game(row)
    stored = game.apply(0, {"action": "roll"})
    assert game.match.turn == 1  # the bot won the opening roll (R3)
    store.append("resume", 0, 0, stored)
    store.close()
    with TestClient(create_app(db)) as c:
        for _ in range(100):  # the bot plays on in the background after start-up
            s = c.get("/api/matches/resume").json()
            if s["seq"] == 2:
                break
            time.sleep(0.05)
    assert s["seq"] == 2 and s["turn"] == 0
    assert s["log"][-1].startswith("Beginner bot ")


def test_database_urls(tmp_path: Path) -> None:
    assert database_path("x.db") == "x.db"
    assert database_path("sqlite:///rel.db") == "rel.db"
    assert database_path("sqlite:////abs/x.db") == "/abs/x.db"
    with pytest.raises(StoreError):
        database_path("postgresql://host/db")
    assert database_url("x.db") == "sqlite:///x.db"
    assert database_url("postgresql://u@h:5/d") == "postgresql+psycopg://u@h:5/d"
    with pytest.raises(StoreError, match="unknown database"):
        database_url("mysql://h/d")
    with pytest.raises(StoreError, match="cannot open"):
        Store(str(tmp_path / "file" / "x.db")) if (tmp_path / "file").write_text("") == 0 else None
    store = Store(f"sqlite:///{tmp_path}/u.db")
    assert store.match_ids() == []
    store.close()


def test_an_action_number_is_stored_only_once(db: str) -> None:
    """The primary key refuses a second action with the same number (two writers racing)."""
    from backgammon.web.store import MatchRow

    store = Store(db)
    row = MatchRow("m", 0.0, 1, None, None, ("a", "b"), "00" * 32, "c", ("A", "B"))
    store.create_match(row)
    store.append("m", 0, 0, {"seat": 0, "action": "roll"})
    with pytest.raises(StoreError):
        store.append("m", 0, 1, {"seat": 1, "action": "roll"})
    assert store.actions("m") == [(0, {"seat": 0, "action": "roll"})]
    # The unlocked way of an up-to-date server: a number taken already is refused too.
    assert not store.append_next("m", 0, 1, {"seat": 1, "action": "roll"})
    assert store.append_next("m", 1, 1, {"seat": 1, "action": "take"}, over=True)
    assert store.actions("m") == [
        (0, {"seat": 0, "action": "roll"}),
        (1, {"seat": 1, "action": "take"}),
    ]
    with store.engine.connect() as conn:
        assert conn.execute(sa.text("SELECT over FROM matches")).scalar_one() == 1
    store.close()


def test_a_game_acted_on_copy_by_copy_is_the_game_replayed() -> None:
    """The server acts on a copy of the live game each time (its dice copied in constant
    time, its log written on from the lines already made): after every action of whole
    random matches, that game's dice, state and log are those of the game replayed from
    the stored actions (R1-R33 through Match, the dice from the seed)."""
    import random

    from backgammon.web.game import Game
    from backgammon.web.store import MatchRow

    rng = random.Random(7)
    for k in range(2):
        seed = bytes([k + 1]) * 32
        row = MatchRow(
            f"m{k}",
            0.0,
            1,
            None,
            None,
            ("x", "y"),
            seed.hex(),
            Game.commitment_of(seed),
            ("Ann", "Bob"),
        )
        game = Game(row)
        game = game.copy()
        game.apply(0, {"action": "name", "name": "Cy"})
        while not game.is_over:
            seat = game.actor()
            seat = rng.choice([0, 1]) if seat is None else seat
            view = game.view(row, seat).model_dump()
            choices = [a for a in view["actions"] if a not in ("double", "resign")]
            kind = rng.choice(choices)
            action: dict[str, Any] = {"action": kind}
            if kind == "move":
                action["steps"] = rng.choice(view["plays"]) if view["plays"] else []
            game = game.copy()
            game.apply(seat, action)
            replayed = Game.replay(row, game.actions)
            assert game.view(row, 0) == replayed.view(row, 0)
            assert game.copy().match.dice_source.roll() == replayed.match.dice_source.roll()
            game = game.copy() if rng.random() < 0.5 else Game.replay(row, game.actions)
        assert any(line.startswith("Cy ") for line in game.log(row))


# ------------------------------------------------------------------ orderings


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_orderings_reach_exactly_the_legal_plays(data: st.DataObject) -> None:
    """The page's step orders: each one ends on a legal play's result, and each legal play
    (R5-R17) can be made in at least one order."""
    pos = Position.initial()
    for _ in range(data.draw(st.integers(0, 60))):
        roll = (data.draw(st.integers(1, 6)), data.draw(st.integers(1, 6)))
        moves = pos.legal_moves(roll)
        pos = pos.play(moves[data.draw(st.integers(0, len(moves) - 1))]) if moves else pos.flip()
        if pos.is_game_over():
            return
    dice = (data.draw(st.integers(1, 6)), data.draw(st.integers(1, 6)))
    moves = pos.legal_moves(dice)
    results = {pos.play(m) for m in moves} or {pos.play(Move())}  # R10: the empty play
    orders = orderings(pos, dice)
    reached = set()
    for o in orders:
        after = pos.play([(s, t, False) for s, t in o])
        assert after in results
        reached.add(after)
    assert reached == results


def test_names_are_escaped_in_the_board(client: TestClient) -> None:
    m = new_match(client, name='<script>alert("x")</script>')
    svg = client.get(f"/api/matches/{m['id']}/board.svg").text
    assert "<script>" not in svg and "&lt;script&gt;" in svg


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


@pytest.mark.parametrize("misbehaving", ["crashing_once", "hanging_once"])
def test_a_bot_that_fails_once_is_tried_again(
    db: str, monkeypatch: pytest.MonkeyPatch, misbehaving: str
) -> None:
    """A bot that raises, or thinks past its time limit (its worker is killed), is asked
    again and the match goes on."""
    import backgammon.web.server as web_app

    monkeypatch.setattr(web_app, "bot_action", getattr(webbots, misbehaving))
    with TestClient(create_app(db, bot_timeout=3)) as client:
        m = new_match(client)
        webbots.marker(m["id"]).touch()
        s = state(client, m["id"], m["token"])
        while s["seq"] < 6 and not s["over"]:
            s = play_turn(client, m["id"], m["token"], s)
        assert not webbots.marker(m["id"]).exists()  # the bot did misbehave once


def test_a_failing_bot_is_reported_and_does_not_undo_the_human_action(
    db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The human's action is stored and acknowledged even if the bot then fails every
    attempt; the failure is sent to the match's WebSockets, not swallowed."""
    import backgammon.web.server as web_app

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
    from backgammon.web.game import Game

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
    from backgammon.web import game as web_game
    from backgammon.web.store import MatchRow

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

    monkeypatch.setitem(web_game._BOT_PLAYERS, "beaverer", Beaverer())
    row = MatchRow("m", 0.0, 1, "beaverer", 1, ("x", "y"), "00" * 32, "", ("Me", "Bot"))
    game = web_game.Game(row)
    game.match = Match(rules=Rules.money(jacoby=True, beavers=True))
    game.match.roll((3, 1))
    assert web_game.bot_action("beaverer", game) == {
        "action": "move",
        "steps": [[s, t] for s, t, _h in game.match.legal_moves()[0]],
    }
    game.match.move(game.match.legal_moves()[0])
    assert web_game.bot_action("beaverer", game) == {"action": "double"}
    game.match.double()
    assert web_game.bot_action("beaverer", game) == {"action": "beaver"}
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
    pool = bots._pool(1)
    worker = pool.executor.submit(os.nice, 0).result(timeout=120)
    assert worker == min(19, os.nice(0) + bots.NICENESS)


def test_bot_workers_exit_when_their_server_is_killed() -> None:
    """A server killed with kill -9 leaves no bot worker behind (they were piling up, one
    set per killed server, until the machine ran out of memory)."""
    import signal
    import subprocess
    import sys

    code = (
        "import os, sys, time\n"
        "from backgammon.web import bots\n"
        "pool = bots._pool(2)\n"
        "for f in pool.warming: f.result(timeout=120)\n"
        "print(' '.join(str(p) for p in pool.executor._processes), flush=True)\n"
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


def test_the_move_log_is_worded_as_players_read_it() -> None:
    """Item 18: dice high first as gnubg writes them ("Ann 42", not in thrown order "24"),
    points said in words without "(s)" and a played-out game without "played", and a turn
    without a play written one way whether it had dice or was closed out on the bar."""
    from backgammon.core.values import GameResult
    from backgammon.play.record import EndReason, GameEnd, Pass, Play
    from backgammon.web.game import log_line

    names = ["Ann", "Bob"]
    line, pending = log_line(Play(0, Move([(24, 22, False), (13, 9, False)])), names, (2, 4))
    assert (line, pending) == ("Ann 42: 24/22 13/9", None)
    assert log_line(Play(1, Move()), names, (6, 6))[0] == "Bob 66: no play"
    assert log_line(Pass(1), names, None)[0] == "Bob: no play"
    end = GameEnd(0, 4, GameResult.GAMMON, EndReason.PLAYED)
    assert log_line(end, names, None)[0] == "Ann wins 4 points (gammon)"
    end = GameEnd(1, 1, GameResult.SINGLE, EndReason.PLAYED)
    assert log_line(end, names, None)[0] == "Bob wins 1 point"
    end = GameEnd(1, 2, GameResult.SINGLE, EndReason.DROPPED)
    assert log_line(end, names, None)[0] == "Bob wins 2 points (double passed)"
    end = GameEnd(0, 2, GameResult.GAMMON, EndReason.RESIGNED)
    assert log_line(end, names, None)[0] == "Ann wins 2 points (resigned a gammon)"

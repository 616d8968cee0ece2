"""The web API: matches against the bot and between friends, seat tokens, every refusal a
clear error that changes nothing, storage that survives a restart, replay and dice audit;
bots in worker processes that may fail.  Every test runs on SQLite and on PostgreSQL."""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st
from webapi import (
    act,
    auth,
    bot_wins_opening_row,
    full_play,
    new_match,
    play_turn,
    state,
    stored_actions,
)

from backgammon import Move, Position
from backgammon.web import create_app
from backgammon.web.service.game import orderings
from backgammon.web.store.database import Store, StoreError, database_path, database_url

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


def test_a_bot_whose_turn_it_was_plays_on_after_a_restart(db: str) -> None:
    """The server died after storing the human's opening roll, which the bot won: started
    again, the bot makes its play at once."""
    from backgammon.web.service.game import Game

    store = Store(db)
    row = bot_wins_opening_row("resume")
    store.create_match(row)
    game = Game(row)
    stored = game.apply(0, {"action": "roll"})
    assert game.match.turn == 1  # the bot won the opening roll (R3)
    store.append("resume", 0, 0, stored)
    store.close()
    with TestClient(create_app(db)) as c:
        # The bot plays on in the background after start-up; its worker (at a lower
        # priority) may take a while to start on a busy machine, so wait up to a minute.
        deadline = time.monotonic() + 60
        while True:
            s = c.get("/api/matches/resume").json()
            if s["seq"] == 2 or time.monotonic() > deadline:
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
    from backgammon.web.store.database import MatchRow

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

    from backgammon.web.service.game import Game
    from backgammon.web.store.database import MatchRow

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


def test_the_move_log_is_worded_as_players_read_it() -> None:
    """Item 18: dice high first as gnubg writes them ("Ann 42", not in thrown order "24"),
    points said in words without "(s)" and a played-out game without "played", and a turn
    without a play written one way whether it had dice or was closed out on the bar."""
    from backgammon.core.values import GameResult
    from backgammon.play.record import EndReason, GameEnd, Pass, Play
    from backgammon.web.service.game import log_line

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

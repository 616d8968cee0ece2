"""The web API behind the board page (issue 16): the defects found by playing it, each
refused cleanly in the one error shape, names that every match file keeps, what a game
shows when it ends, money sessions with Jacoby and beavers, rematch and the lobby.  The
tests with a server run on SQLite and on PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st
from pghelp import postgres  # noqa: F401 (the fixture)
from webapi import SQLITE_ONLY, auth, settle

from backgammon.play.match import Match
from backgammon.records import mat, sgf
from backgammon.web import create_app
from backgammon.web.errors import MESSAGE, NAME_LENGTH, BadNameError, check_name


@pytest.fixture
def client(db: str) -> Iterator[TestClient]:
    with TestClient(create_app(db)) as c:
        yield c


def create(client: TestClient, **spec: Any) -> dict[str, Any]:
    r = client.post("/api/matches", json={"length": 1, "bot": "random", **spec})
    assert r.status_code == 201, r.text
    client.cookies.clear()
    return dict(r.json())


def act(client: TestClient, mid: str, token: str, **action: Any) -> dict[str, Any]:
    r = client.post(f"/api/matches/{mid}/actions", json=action, headers=auth(token))
    assert r.status_code == 200, r.text
    return dict(r.json())


def is_error(r: Any, status: int, code: str | None = None) -> dict[str, Any]:
    """The reply is the one error shape with ``status`` (and ``code``), nothing else."""
    assert r.status_code == status, r.text
    data = r.json()
    assert set(data) == {"error"} and set(data["error"]) == {"code", "message"}, data
    assert data["error"]["message"] and len(data["error"]["message"]) <= MESSAGE
    if code is not None:
        assert data["error"]["code"] == code, data
    return dict(data["error"])


def play_to_end_of_game(client: TestClient, mid: str, token: str) -> dict[str, Any]:
    """Play the human seat against the bot until a game ends (or the match)."""
    s = client.get(f"/api/matches/{mid}", headers=auth(token)).json()
    for _ in range(3000):
        s = settle(client, mid, token, s)  # the bot answers after the reply
        if s["ended"] is not None or s["over"]:
            return dict(s)
        acts = s["actions"]
        if "take" in acts:
            s = act(client, mid, token, action="take", seq=s["seq"])
        elif "accept" in acts:
            s = act(client, mid, token, action="accept", seq=s["seq"])
        elif "roll" in acts:
            s = act(client, mid, token, action="roll", seq=s["seq"])
        else:
            longest = max(len(o) for o in s["plays"])
            play = next(o for o in s["plays"] if len(o) == longest)
            s = act(client, mid, token, action="move", steps=play, seq=s["seq"])
    raise AssertionError("the game did not end")


# ------------------------------------------------------------------ defects, one by one


@pytest.mark.parametrize(
    "query",
    ["selected=99", "highlight=99", "highlight=-1", "selected=-5", "highlight=30", "at=-1"],
)
def test_out_of_range_board_parameters_are_422_not_500(client: TestClient, query: str) -> None:
    m = create(client)
    r = client.get(f"/api/matches/{m['id']}/board.svg?{query}")
    is_error(r, 422, "bad_parameter")
    # The server is still answering (the 500 used to reset a kept-open connection).
    ok = client.get(f"/api/matches/{m['id']}/board.svg?selected=25&highlight=0,24")
    assert ok.status_code == 200 and ok.text.startswith("<svg")


def test_unknown_routes_wrong_methods_and_malformed_bodies_have_the_one_shape(
    client: TestClient,
) -> None:
    m = create(client)
    mid, tok = m["id"], m["token"]
    is_error(client.get("/api/nosuch"), 404, "not_found")
    is_error(client.put(f"/api/matches/{mid}"), 405, "method_not_allowed")
    is_error(client.put("/api/matches"), 405, "method_not_allowed")
    url = f"/api/matches/{mid}/actions"
    nested = '{"action": "move", "steps": [[24, {]]}'
    headers = {**auth(tok), "Content-Type": "application/json"}
    is_error(client.post(url, content=nested, headers=headers), 400, "malformed_json")
    three = {"action": "move", "steps": [[1, 2, 3]]}
    is_error(client.post(url, json=three, headers=auth(tok)), 400)
    is_error(client.post(url, json={"action": "roll", "extra": 1}, headers=auth(tok)), 400)
    is_error(client.get(f"/api/matches/{mid}/replay/x"), 400, "invalid_request")


@pytest.mark.parametrize(
    "spec",
    [
        {"length": True},
        {"length": "3"},
        {"length": 3.0},
        {"name": 7},
        {"bot": ["random"]},
        {"money": "yes"},
        {"length": 3, "jacoby": True},  # a money convention in a match (R30)
    ],
)
def test_create_takes_strict_types(client: TestClient, spec: dict[str, Any]) -> None:
    r = client.post("/api/matches", json={"bot": "random", **spec})
    assert r.status_code in (400, 422)
    is_error(r, r.status_code)


@pytest.mark.parametrize(
    "action",
    [
        {"action": "move", "steps": [["24", "18"]]},
        {"action": "move", "steps": [[True, 18]]},
        {"action": "roll", "seq": "0"},
        {"action": "move", "move": 2418},
    ],
)
def test_actions_take_strict_types(client: TestClient, action: dict[str, Any]) -> None:
    m = create(client, opponent="human")
    r = client.post(f"/api/matches/{m['id']}/actions", json=action, headers=auth(m["token"]))
    is_error(r, 400, "invalid_request")
    assert client.get(f"/api/matches/{m['id']}").json()["seq"] == 0


def test_huge_inputs_get_short_answers(client: TestClient) -> None:
    m = create(client, opponent="human")
    mid, tok = m["id"], m["token"]
    url = f"/api/matches/{mid}/actions"
    huge = "24/18 " * 100_000  # 600 KB: read, then refused as an action
    for action in (
        {"action": "move", "move": huge},
        {"action": huge},
        {"action": "name", "name": huge},
        {huge[:5000]: 1},
    ):
        r = client.post(url, json=action, headers=auth(tok))
        assert len(r.content) < 1000
        is_error(r, 400)
    r = client.post(url, json={"action": "move", "move": huge * 2}, headers=auth(tok))
    assert len(r.content) < 1000
    is_error(r, 413)  # over the 1 MB body limit: refused unread
    r = client.get(f"/api/matches/{mid}/board.svg?steps={'1' * 5000}")
    assert len(r.content) < 1000 and r.json()["error"]


def test_websocket_binary_frames_and_invalid_actions_keep_the_connection(
    client: TestClient,
) -> None:
    m = create(client, opponent="human")
    with client.websocket_connect(f"/api/matches/{m['id']}/ws?token={m['token']}") as ws:
        assert ws.receive_json()["type"] == "state"
        ws.send_bytes(b"\x00\x01binary")
        err = ws.receive_json()
        assert err["type"] == "error" and err["error"]["code"] == "invalid_request"
        ws.send_json({"action": "roll", "seq": "0"})
        err = ws.receive_json()
        assert err["type"] == "error" and set(err["error"]) == {"code", "message"}
        ws.send_json({"action": "move", "move": "x" * 100_000})
        err = ws.receive_json()
        assert err["type"] == "error" and len(err["error"]["message"]) <= MESSAGE
        ws.send_text("[1, 2]")
        assert ws.receive_json()["error"]["code"] == "invalid_request"
        ws.send_json({"action": "roll"})  # still connected: the roll is accepted
        s = ws.receive_json()
        assert s["type"] == "state" and s["state"]["seq"] == 1


# ------------------------------------------------------------------ names


@pytest.mark.parametrize(
    "name",
    ["", "   ", "a" * (NAME_LENGTH + 1), "Ann\nBob", "Ann\tX\x00", "Ann: the best", "\u202eevil"],
)
def test_bad_names_are_refused(client: TestClient, name: str) -> None:
    with pytest.raises(BadNameError):
        check_name(name)
    is_error(client.post("/api/matches", json={"name": name}), 400, "invalid_request")


def test_names_collapse_spaces_and_keep_31_characters() -> None:
    assert check_name("  Ann   Lee ") == "Ann Lee"
    assert check_name("Zoë Ωμέγα 漢字") == "Zoë Ωμέγα 漢字"
    assert check_name("x" * NAME_LENGTH) == "x" * NAME_LENGTH


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=60))
def test_check_name_accepts_or_raises_its_error(text: str) -> None:
    try:
        name = check_name(text)
    except BadNameError:
        return
    assert 1 <= len(name) <= NAME_LENGTH and name == " ".join(name.split())


@pytest.mark.parametrize("length", [27, 28, 30, 31])
def test_long_names_read_back_from_mat_and_sgf(tmp_path: Path, length: int) -> None:
    """A name of 27-31 characters used to leave no space between the players in the .mat
    header, which our reader refused; gnubg reads the header back too."""
    from records_helpers import run_gnubg

    names = ("A" * (length - 1) + "z", "Bob")
    m = Match(1)
    m.roll(dice=(3, 1))
    m.move("8/5 6/5")
    m.resign("single", player=1)
    m.accept_resignation()
    text = mat.write(m, names)
    header = next(line for line in text.splitlines() if " : 0" in line)
    assert f"{names[0]} : 0 " in header
    back = mat.read_record(text)
    assert back.players == names
    assert sgf.read_record(sgf.write(m, names)).players == names
    (tmp_path / "long.mat").write_text(text)
    out = run_gnubg(["import mat long.mat", "show player"], tmp_path)
    assert f"Name: {names[0]}" in out and "Name: Bob" in out


def test_a_newline_in_a_name_stays_on_one_line_of_each_file() -> None:
    m = Match(1)
    m.roll(dice=(3, 1))
    m.move("8/5 6/5")
    m.resign("single", player=1)
    m.accept_resignation()
    names = ("Ann\nLee", "Bob\r\n ]x")
    assert mat.read_record(mat.write(m, names)).players == ("Ann Lee", "Bob ]x")
    assert sgf.read_record(sgf.write(m, names)).players == ("Ann Lee", "Bob ]x")


def test_the_invited_friend_chooses_a_name_before_the_first_roll(
    client: TestClient,
    db: str,
) -> None:
    m = create(client, opponent="human", name="Ann")
    mid, tok0, tok1 = m["id"], m["token"], m["invite"].rsplit("/", 1)[1]
    s = act(client, mid, tok1, action="name", name="  Carl  ")
    assert s["names"] == ["Ann", "Carl"] and s["seq"] == 1
    bad = client.post(
        f"/api/matches/{mid}/actions", json={"action": "name", "name": "a\nb"}, headers=auth(tok1)
    )
    is_error(bad, 400)
    act(client, mid, tok0, action="roll")
    late = client.post(
        f"/api/matches/{mid}/actions", json={"action": "name", "name": "Dan"}, headers=auth(tok1)
    )
    is_error(late, 409, "not_allowed")
    # The name is stored like any action: a server started afresh has it.
    with TestClient(create_app(db)) as again:
        assert again.get(f"/api/matches/{mid}").json()["names"] == ["Ann", "Carl"]


def test_a_player_against_the_bot_names_itself_before_rolling(client: TestClient) -> None:
    m = create(client)
    r = client.post(
        f"/api/matches/{m['id']}/actions",
        json={"action": "name", "name": "Bot"},
        headers=auth(m["token"]),
    )
    assert r.status_code == 200 and r.json()["names"][0] == "Bot"


# ------------------------------------------------------------------ what a game shows


@SQLITE_ONLY
def test_a_game_end_says_who_won_how_and_the_new_score(client: TestClient) -> None:
    m = create(client, length=3)
    s = play_to_end_of_game(client, m["id"], m["token"])
    end = s["ended"]
    assert end["game"] == 1 and end["winner"] in (0, 1)
    assert end["result"] in ("single", "gammon", "backgammon")
    assert end["reason"] in ("played", "dropped", "resigned")
    assert end["points"] >= 1 and end["score"] == s["score"]  # the score after game 1
    assert sum(end["score"]) == end["points"]


def test_the_cube_on_offer_shows_the_offered_value(client: TestClient) -> None:
    m = create(client, opponent="human", length=5)
    mid, toks = m["id"], [m["token"], m["invite"].rsplit("/", 1)[1]]
    s = act(client, mid, toks[0], action="roll")
    while s["on_roll"] is None:
        s = act(client, mid, toks[0], action="roll")
    mover = s["on_roll"]
    s = client.get(f"/api/matches/{mid}", headers=auth(toks[mover])).json()
    s = act(client, mid, toks[mover], action="move", steps=max(s["plays"], key=len))
    other = 1 - mover
    s = act(client, mid, toks[other], action="double")
    assert s["cube"] == {"value": 1, "owner": None, "offered": 2}
    svg = client.get(f"/api/matches/{mid}", headers=auth(toks[mover])).json()["svg"]
    assert 'class="cube offered"' in svg and 'data-offered="bottom"' in svg
    assert ">2</text></g>" in svg and ">64<" not in svg
    s = act(client, mid, toks[mover], action="take")
    assert s["cube"] == {"value": 2, "owner": mover, "offered": None}


# ------------------------------------------------------------------ money, rematch, lobby


def test_a_money_session_with_jacoby_and_a_beaver(client: TestClient) -> None:
    m = create(client, opponent="human", money=True, jacoby=True, beavers=True)
    mid, toks = m["id"], [m["token"], m["invite"].rsplit("/", 1)[1]]
    s = act(client, mid, toks[0], action="roll")
    while s["on_roll"] is None:
        s = act(client, mid, toks[0], action="roll")
    assert s["length"] == 0 and s["rules"] == {"money": True, "jacoby": True, "beavers": True}
    mover = s["on_roll"]
    s = client.get(f"/api/matches/{mid}", headers=auth(toks[mover])).json()
    s = act(client, mid, toks[mover], action="move", steps=max(s["plays"], key=len))
    other = 1 - mover
    s = act(client, mid, toks[other], action="double")
    s = client.get(f"/api/matches/{mid}", headers=auth(toks[mover])).json()
    assert "beaver" in s["actions"]  # R32
    s = act(client, mid, toks[mover], action="beaver")
    assert s["cube"]["offered"] == 4 and "beavers" in s["log"][-1]
    s = act(client, mid, toks[other], action="take")
    assert s["cube"] == {"value": 4, "owner": mover, "offered": None}  # the beaver owns it (R32)


@SQLITE_ONLY
def test_a_money_session_against_the_bot_is_played_to_a_game_end(client: TestClient) -> None:
    m = create(client, money=True)
    s = play_to_end_of_game(client, m["id"], m["token"])
    assert s["length"] == 0 and not s["over"] and s["ended"]["points"] >= 1


def test_rematch_keeps_seats_tokens_and_names(client: TestClient) -> None:
    m = create(client, opponent="human", name="Ann")
    mid, toks = m["id"], [m["token"], m["invite"].rsplit("/", 1)[1]]
    act(client, mid, toks[1], action="name", name="Carl")
    early = client.post(f"/api/matches/{mid}/rematch", headers=auth(toks[0]))
    is_error(early, 409, "not_over")
    s = act(client, mid, toks[0], action="roll")
    while s["on_roll"] is None:
        s = act(client, mid, toks[0], action="roll")
    act(client, mid, toks[s["on_roll"]], action="resign", level="single")
    act(client, mid, toks[1 - s["on_roll"]], action="accept")
    is_error(client.post(f"/api/matches/{mid}/rematch"), 403, "spectator")
    first = client.post(f"/api/matches/{mid}/rematch", headers=auth(toks[0]))
    second = client.post(f"/api/matches/{mid}/rematch", headers=auth(toks[1]))
    assert first.status_code == second.status_code == 201
    new = first.json()["id"]
    assert second.json()["id"] == new != mid  # one rematch, both players in it
    assert client.cookies.get(f"bg_{new}") == toks[1]
    client.cookies.clear()
    s0 = client.get(f"/api/matches/{new}", headers=auth(toks[0])).json()
    s1 = client.get(f"/api/matches/{new}", headers=auth(toks[1])).json()
    assert (s0["seat"], s1["seat"]) == (0, 1) and s0["names"] == ["Ann", "Carl"]
    assert s0["seq"] == 0 and s0["commitment"] != m["commitment"]


def test_a_public_invitation_is_listed_claimed_once_and_leaves_the_lobby(
    client: TestClient,
) -> None:
    private = create(client, opponent="human")
    m = create(client, opponent="human", public=True, name="Ann", length=3)
    assert "invite" not in m
    lobby = client.get("/api/lobby").json()["invitations"]
    assert [i["id"] for i in lobby] == [m["id"]] and private["id"] not in str(lobby)
    assert lobby[0]["host"] == "Ann" and lobby[0]["length"] == 3
    # Item 13: the host's own listing is marked, and the host cannot take the other chair.
    assert lobby[0]["yours"] is False  # not the host's browser
    client.cookies.set(f"bg_{m['id']}", m["token"])
    assert client.get("/api/lobby").json()["invitations"][0]["yours"] is True
    refused = client.post(f"/api/matches/{m['id']}/claim", json={"name": "Ann"})
    is_error(refused, 409, "own_invitation")
    client.cookies.clear()
    r = client.post(f"/api/matches/{m['id']}/claim", json={"name": "Zed"})
    assert r.status_code == 201
    tok1 = r.json()["token"]
    client.cookies.clear()
    host = client.get(f"/api/matches/{m['id']}", headers=auth(m["token"])).json()
    assert host["seat"] == 0 and host["names"] == ["Ann", "Zed"]
    s = client.get(f"/api/matches/{m['id']}", headers=auth(tok1)).json()
    assert s["seat"] == 1 and s["names"] == ["Ann", "Zed"]
    is_error(client.post(f"/api/matches/{m['id']}/claim", json={"name": "Yan"}), 409, "seat_taken")
    is_error(client.post(f"/api/matches/{private['id']}/claim", json={}), 409, "seat_taken")
    assert client.get("/api/lobby").json()["invitations"] == []


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-30, 30) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=8,
)
_KINDS = st.sampled_from(["roll", "move", "name", "double", "take", "resign", "accept", "x"])


@settings(max_examples=300, deadline=None)
@given(
    seat=st.integers(0, 1),
    kind=_KINDS,
    extra=st.dictionaries(st.sampled_from(["name", "move", "steps", "level"]), _JSON),
    rolls=st.integers(0, 3),
)
def test_any_action_is_applied_or_refused_with_nothing_changed(
    seat: int, kind: str, extra: dict[str, Any], rolls: int
) -> None:
    """Fuzz: whatever a seat sends (names included), Game.apply either accepts it or
    raises ActionError and leaves the match, its names and its actions as they were."""
    from backgammon.web.service.game import ActionError, Game
    from backgammon.web.store.database import MatchRow

    row = MatchRow("f", 0.0, 3, None, None, ("a", "b"), "00" * 32, "c", ("Ann", "Bob"))
    game = Game(row)
    for _ in range(rolls):  # somewhere in the opening: before, at or after a roll
        if "roll" in {str(a) for a in game.match.legal_actions()}:
            actor = game.actor()
            game.apply(0 if actor is None else actor, {"action": "roll"})
    before = (game.seq, list(game.names), game.match.gnubg_id(), game.match.phase)
    try:
        game.apply(seat, {"action": kind, **extra})
    except ActionError:
        assert (game.seq, list(game.names), game.match.gnubg_id(), game.match.phase) == before
    else:
        assert game.seq == before[0] + 1


def test_a_seat_claimed_after_the_host_rolled_is_still_given(client: TestClient) -> None:
    m = create(client, opponent="human", public=True, name="Ann")
    act(client, m["id"], m["token"], action="roll")
    r = client.post(f"/api/matches/{m['id']}/claim", json={"name": "Zed"})
    assert r.status_code == 201
    client.cookies.clear()
    s = client.get(f"/api/matches/{m['id']}", headers=auth(r.json()["token"])).json()
    assert s["seat"] == 1 and s["names"] == ["Ann", "Friend"]  # too late to choose a name


def test_a_database_from_before_the_options_column_is_read(db: str) -> None:
    """Matches stored before money sessions and the lobby existed keep playing, and the
    column added to the old table serves the lobby and rematches (SQLite and PostgreSQL)."""
    import dataclasses

    import sqlalchemy as sa

    from backgammon.web.store.database import MatchRow, Store, database_url

    old = sa.create_engine(database_url(db))
    with old.begin() as conn:
        conn.exec_driver_sql(
            "CREATE TABLE matches (id TEXT PRIMARY KEY, created REAL NOT NULL, length INTEGER "
            "NOT NULL, bot TEXT, bot_seat INTEGER, token0 TEXT NOT NULL, token1 TEXT NOT NULL, "
            "seed TEXT NOT NULL, commitment TEXT NOT NULL, names TEXT NOT NULL, "
            "over INTEGER NOT NULL DEFAULT 0)"
        )
        conn.execute(
            sa.text(
                "INSERT INTO matches VALUES ('m1', 1.0, 3, NULL, NULL, 'a', 'b', :seed, 'c', "
                '\'["Ann", "Bob"]\', 0)'
            ),
            {"seed": "00" * 32},
        )
    old.dispose()
    store = Store(db)
    try:
        row = store.get_match("m1")
        assert row is not None and row.length == 3 and row.names == ("Ann", "Bob")
        assert (row.jacoby, row.beavers, row.public, row.rematch_of) == (False, False, False, None)
        assert store.open_invitations() == [] and store.rematch_of("m1") is None
        public = dataclasses.replace(row, id="m2", created=2.0, token_hashes=("a", ""), public=True)
        store.create_match(public)
        store.create_match(dataclasses.replace(row, id="m3", created=3.0, rematch_of="m1"))
        assert store.open_invitations() == [public] and store.rematch_of("m1") == "m3"
        assert store.claim_seat("m2", "z") and not store.claim_seat("m2", "y")
        assert store.open_invitations() == [] and isinstance(store.get_match("m2"), MatchRow)
    finally:
        store.close()


def test_an_internal_failure_is_answered_in_the_one_shape(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    from backgammon.web.service.game import Game

    m = create(client)

    def broken(*_a: Any, **_k: Any) -> str:
        raise RuntimeError("boom with secret details")

    monkeypatch.setattr(Game, "svg", broken)
    lenient = TestClient(client.app, raise_server_exceptions=False)  # no second lifespan
    r = lenient.get(f"/api/matches/{m['id']}/board.svg")
    assert "secret" not in r.text
    is_error(r, 500, "internal")

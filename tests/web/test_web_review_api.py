"""The review's server side through the API (issue 37): uploads of match files (their
errors, their analysis kept across a restart, each decision numbered as the move log counts
it), the position editor's edits, the hint the editor lists (the terminal's list), and the
rollout endpoint's bounds and cancel."""

from __future__ import annotations

import dataclasses
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from webapi import wait_done

from backgammon.judging.analysis import analyse
from backgammon.judging.evaluate import best_plays
from backgammon.judging.rollout import RolloutSettings, rollout
from backgammon.play.match import Match
from backgammon.players import CubeState, get
from backgammon.records import mat
from backgammon.records.convert import read_record_text, read_text
from backgammon.records.walk import walk
from backgammon.web import create_app
from backgammon.web.service.game import log_line
from backgammon.web.service.rollouts import BATCH
from backgammon.web.service.uploads import MAX_BYTES

SAMPLE = Path(__file__).parent.parent / "data" / "samples" / "gnubg107_5pt_match.mat"
SGF = Path(__file__).parent.parent / "data" / "samples" / "gnubg107_game2_no_analysis.sgf"
WHITE_TO_ROLL = "4HPwATDgc/ABMA:MAEAAAAAAAAA"  # the start, White (player 0) to roll, money
WHITE_31 = "4HPwATDgc/ABMA:MIEFAAAAAAAA"


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "r.sqlite3"


@pytest.fixture
def client(db: Path) -> Iterator[TestClient]:
    with TestClient(create_app(str(db), bot_processes=1)) as c:
        yield c


def uploads_kept(db: Path) -> int:
    with sqlite3.connect(db) as conn:
        return int(conn.execute("SELECT count(*) FROM uploads").fetchone()[0])


def error(r: Any, status: int, code: str) -> str:
    assert r.status_code == status, r.text
    body = r.json()
    assert set(body) == {"error"} and body["error"]["code"] == code
    return str(body["error"]["message"])


def test_upload_errors_change_nothing(client: TestClient, db: Path) -> None:
    data = SAMPLE.read_bytes()
    # Too big: refused by its Content-Length before the body is read, then while streaming.
    big = b" " * (MAX_BYTES + 1)
    msg = error(
        client.post("/api/uploads", params={"name": "a.mat"}, content=big), 413, "too_large"
    )
    assert "1,000,000" in msg

    def chunks() -> Iterator[bytes]:
        for _ in range(MAX_BYTES // 65536 + 2):
            yield b" " * 65536

    r = client.post("/api/uploads", params={"name": "a.mat"}, content=chunks())
    error(r, 413, "too_large")
    error(client.post("/api/uploads", params={"name": "a.png"}, content=data), 415, "wrong_type")
    error(
        client.post("/api/uploads", params={"name": "a.mat"}, content=b"\x89PNG\xff"),
        415,
        "not_text",
    )
    error(client.post("/api/uploads", params={"name": "a.mat"}, content=b" \n"), 422, "unreadable")
    msg = error(
        client.post("/api/uploads", params={"name": "a.mat"}, content=b"hello"), 422, "unreadable"
    )
    assert "line 1" in msg
    broken = SAMPLE.read_text().replace("31: 8/5 6/5", "31: 8/1 6/5")  # an illegal play
    msg = error(
        client.post("/api/uploads", params={"name": "a.mat"}, content=broken.encode()),
        422,
        "unreadable",
    )
    assert "line" in msg
    error(client.post("/api/uploads", content=data), 400, "invalid_request")  # no name
    r = client.post("/api/uploads", params={"name": "a.mat", "plies": 3}, content=data)
    error(r, 400, "invalid_request")
    r = client.post("/api/uploads", params={"name": "a.mat", "verify": "awful"}, content=data)
    error(r, 400, "invalid_request")
    assert uploads_kept(db) == 0
    error(client.get("/api/uploads/nothing"), 404, "not_found")
    error(client.get("/review/nothing"), 404, "not_found")


def test_an_upload_can_have_its_very_bad_marks_rolled_out(db: Path, tmp_path: Path) -> None:
    """``verify`` reaches the analysis: the first game of the sample has one very bad play at
    0-ply, which comes back judged by a rollout, with the numbers the library gives."""
    record = read_text(SAMPLE.read_text(), "mat")
    one = dataclasses.replace(record, games=record.games[:1])
    data = mat.write_record(one).encode()
    with TestClient(create_app(str(db), bot_processes=1)) as client:
        params = {"name": "one.mat", "plies": 0, "verify": "very bad"}
        r = client.post("/api/uploads", params=params, content=data)
        assert r.status_code == 202, r.text
        done = wait_done(client, f"/api/uploads/{r.json()['id']}")
    assert done["status"] == "done" and done["verify"] == "very bad"
    a = done["analysis"]
    mine = analyse(read_record_text(data.decode(), "mat"), plies=0, verify="very bad").to_json()
    assert a["verify"] == "very bad"
    assert [d["error_emg"] for d in a["decisions"]] == pytest.approx(
        [d["error_emg"] for d in mine["decisions"]], abs=1e-5
    )  # the same rollouts, to float32 rounding
    rolled = [
        d for d in a["decisions"] if any("rollout_trials" in c for c in d.get("candidates", []))
    ]
    assert [(d["game"], d["move"]) for d in rolled] == [(1, 4)]


def test_an_uploaded_file_is_analysed_numbered_and_kept(db: Path) -> None:
    record = read_record_text(SAMPLE.read_text(), "mat")
    with TestClient(create_app(str(db), bot_processes=1)) as client:
        r = client.post(
            "/api/uploads", params={"name": SAMPLE.name, "plies": 0}, content=SAMPLE.read_bytes()
        )
        assert r.status_code == 202, r.text
        made = r.json()
        assert made["review"] == f"/review/{made['id']}"
        assert client.get(made["review"]).status_code == 200
        done = wait_done(client, f"/api/uploads/{made['id']}")
    assert done["status"] == "done" and done["name"] == SAMPLE.name
    a = done["analysis"]
    mine = analyse(record, plies=0).to_json()
    assert [d["error_emg"] for d in a["decisions"]] == pytest.approx(
        [d["error_emg"] for d in mine["decisions"]], abs=1e-5
    )  # a very bad cube decision is rolled out: the same to float32 rounding
    assert a["names"] == ["gnubg", "root"]
    assert [g["score"] for g in a["games"]] == [[0, 0], [0, 2], [0, 3]]
    # Each decision's line is the move log's line that tells it, as the match page writes it.
    m = walk(record)
    lines: list[str] = []
    pending = None
    for action in m.record.actions():
        line, pending = log_line(action, a["names"], pending)
        if line is not None:
            lines.append(line)
    for d in a["decisions"]:
        said = lines[d["line"] - 1]
        who = a["names"][d["player"]]
        if d["kind"] == "checker":
            assert said.startswith(f"{who} ") and said.endswith(f": {d['played']}"), (d, said)
        elif d["kind"] == "take":
            assert said == f"{who} {'takes' if d['played'] == 'Take' else 'passes'}"
        elif d["played"] == "Double":
            assert said.startswith(f"{who} doubles to")
        else:  # no double: the play that followed
            assert said.startswith(f"{who} ")
    points = [p["decision"] for p in a["mwc"]]
    assert all(a["decisions"][i]["kind"] == "checker" for i in points)
    assert points == sorted(points)
    # In a match every error has its match-winning-chance too; cube numbers carry MWC.
    assert all("error_mwc" in d for d in a["decisions"])
    assert all(len(d["cube"]["mwc"]) == 3 for d in a["decisions"] if "cube" in d)
    # Kept: a new server on the same database serves it.
    with TestClient(create_app(str(db), bot_processes=1)) as client:
        again = client.get(f"/api/uploads/{made['id']}").json()
    assert again["status"] == "done" and again["analysis"] == a


def test_an_sgf_file_is_taken(client: TestClient) -> None:
    r = client.post("/api/uploads", params={"name": SGF.name, "plies": 0}, content=SGF.read_bytes())
    assert r.status_code == 202, r.text
    done = wait_done(client, f"/api/uploads/{r.json()['id']}")
    assert done["status"] == "done" and done["analysis"]["decisions"]


def test_the_editor_edits_through_the_ids(client: TestClient) -> None:
    v = client.get("/api/position", params={"id": WHITE_TO_ROLL}).json()
    assert v["gnubgid"] == WHITE_TO_ROLL and v["turn"] == 0 and v["dice"] == []
    assert v["pips"] == [167, 167] and 'data-point="6"' in v["svg"]
    xgid = client.get("/api/position", params={"id": v["xgid"]}).json()
    assert xgid["gnubgid"] == WHITE_TO_ROLL
    # White's checker taken off its 6-point: White has 14 on the board, 6 fewer pips.
    off = client.post("/api/position", json={"id": WHITE_TO_ROLL, "point": 6, "change": "remove"})
    assert off.json()["pips"] == [161, 167]
    assert Match.from_gnubg_id(off.json()["gnubgid"]).position.off == (1, 0)
    # A 16th checker is refused, by the rules' words, and changes nothing.
    msg = error(
        client.post("/api/position", json={"id": WHITE_TO_ROLL, "point": 5}), 422, "refused"
    )
    assert msg == "White has 16 checkers (at most 15)"
    msg = error(
        client.post(
            "/api/position", json={"id": WHITE_TO_ROLL, "point": 5, "side": 1, "change": "remove"}
        ),
        422,
        "no_checker",
    )
    assert "Black" in msg
    # Black on roll with 3-1: the board is the same from White's side; dice and the score.
    turned = client.post("/api/position", json={"id": off.json()["gnubgid"], "turn": 1}).json()
    assert turned["turn"] == 1 and turned["pips"] == [161, 167]
    rolled = client.post("/api/position", json={"id": turned["gnubgid"], "dice": [1, 3]}).json()
    assert rolled["dice"] == [3, 1] and rolled["phase"] == "move"
    scored = client.post(
        "/api/position",
        json={"id": WHITE_TO_ROLL, "length": 7, "score": [4, 6], "cube": 2, "owner": 1},
    ).json()
    m = Match.from_gnubg_id(scored["gnubgid"])
    assert (m.rules.match_length, m.score, m.cube_value, m.cube_owner) == (7, (4, 6), 2, 1)
    error(
        client.post("/api/position", json={"id": scored["gnubgid"], "score": [7, 1]}),
        422,
        "refused",
    )
    error(client.post("/api/position", json={"id": WHITE_TO_ROLL, "cube": 3}), 422, "refused")
    error(
        client.post("/api/position", json={"id": WHITE_TO_ROLL, "point": 26}),
        400,
        "invalid_request",
    )
    error(client.get("/api/position", params={"id": "nonsense"}), 400, "invalid_position")
    start = client.post("/api/position", json={"id": off.json()["gnubgid"], "start": True}).json()
    assert start["gnubgid"] == WHITE_TO_ROLL


@pytest.mark.parametrize("plies", [0, 1, 2])
def test_the_hint_the_editor_lists_is_the_terminals(client: TestClient, plies: int) -> None:
    h = client.get("/api/engine/hint", params={"gnubgid": WHITE_31, "plies": plies, "count": 5})
    assert h.status_code == 200, h.text
    m = Match.from_gnubg_id(WHITE_31)
    assert m.dice is not None
    bot = get("neural", plies=plies)
    mine = best_plays(bot, m.position, m.dice, CubeState.from_match(m), 5)  # type: ignore[arg-type]
    assert [p["move"] for p in h.json()["plays"]] == [str(r.move) for r in mine]
    assert [p["equity"] for p in h.json()["plays"]] == pytest.approx(
        [r.equity for r in mine], abs=1e-6
    )
    assert {p["plies"] for p in h.json()["plays"]} == {plies}


def test_rollout_bounds(client: TestClient) -> None:
    post = lambda **body: client.post("/api/rollouts", json={"id": WHITE_31, **body})  # noqa: E731
    error(post(trials=1297), 400, "invalid_request")
    error(post(trials=0), 400, "invalid_request")
    error(post(plies=2), 400, "invalid_request")
    error(post(top=6), 400, "invalid_request")
    error(post(moves=["8/5 6/5"] * 6), 400, "invalid_request")
    error(post(truncate=-1), 400, "invalid_request")
    error(post(moves=["8/1"]), 422, "illegal_move")
    error(post(cube=True), 422, "no_cube")  # the dice are rolled: no cube decision
    error(client.post("/api/rollouts", json={"id": "junk"}), 400, "invalid_position")
    error(client.get("/api/rollouts/none"), 404, "not_found")
    error(client.delete("/api/rollouts/none"), 404, "not_found")


def test_a_rollout_runs_as_the_library_rolls_out_and_one_is_cancelled(client: TestClient) -> None:
    r = client.post(
        "/api/rollouts",
        json={"id": WHITE_31, "moves": ["8/5 6/5", "24/23 13/10"], "trials": 36, "truncate": 3},
    )
    assert r.status_code == 202, r.text
    done = wait_done(client, f"/api/rollouts/{r.json()['id']}")
    assert done["status"] == "done" and done["progress"] == [36, 36]
    m = Match.from_gnubg_id(WHITE_31)
    settings = RolloutSettings(trials=36, truncate=3, batch=BATCH)
    mine = rollout(
        m.position,
        CubeState.from_match(m),
        dice=m.dice,
        moves=["8/5 6/5", "24/23 13/10"],
        settings=settings,
    )
    got = {c["play"]: c["equity"] for c in done["result"]["candidates"]}
    assert got == pytest.approx({c.play: c.equity for c in mine.candidates})
    # A long one: running, then cancelled at once; the queue is bounded.
    long = client.post("/api/rollouts", json={"id": WHITE_31, "trials": 1296}).json()
    deadline = time.monotonic() + 60
    while client.get(f"/api/rollouts/{long['id']}").json()["status"] != "running":
        assert time.monotonic() < deadline
        time.sleep(0.2)
    # One rollout at a time per client: the same client is refused, others queue, in order.
    error(client.post("/api/rollouts", json={"id": WHITE_TO_ROLL}), 429, "one_at_a_time")
    others = [TestClient(client.app, client=(f"10.0.0.{i}", 1)) for i in range(4)]
    body = {"id": WHITE_TO_ROLL, "trials": 1296}
    waiting = [other.post("/api/rollouts", json=body) for other in others[:3]]
    assert [w.status_code for w in waiting] == [202, 202, 202]
    assert [w.json()["status"] for w in waiting] == ["queued"] * 3
    assert [w.json()["queue"] for w in waiting] == [1, 2, 3]
    error(others[3].post("/api/rollouts", json={"id": WHITE_31}), 429, "busy")
    cancelled = client.delete(f"/api/rollouts/{long['id']}").json()
    assert cancelled["status"] == "cancelled"
    assert client.get(f"/api/rollouts/{long['id']}").json()["status"] == "cancelled"
    # The next one starts in a new worker; cancel the rest (queued ones leave the queue).
    assert client.get(f"/api/rollouts/{waiting[2].json()['id']}").json()["queue"] == 2
    for w in waiting:
        assert client.delete(f"/api/rollouts/{w.json()['id']}").json()["status"] == "cancelled"


def test_a_decisions_board_names_the_files_players(client: TestClient) -> None:
    """A match file's names may be longer than the web's 31 characters: the board still
    draws them; anything longer than 100 is refused."""
    long = "A" * 40
    params = {"gnubg_id": WHITE_31, "name0": long, "name1": "Bob"}
    r = client.get("/api/analysis/board.svg", params=params)
    assert r.status_code == 200 and long in r.text and "Bob" in r.text
    r = client.get("/api/analysis/board.svg", params={**params, "name0": "A" * 101})
    error(r, 400, "invalid_request")

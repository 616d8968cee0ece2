"""``GET /api/engine/hint``: ranked plays or the cube decision as JSON, one error shape,
and a rate limit per client."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from backgammon.play.match import Match
from backgammon.players import get
from backgammon.web import create_app
from backgammon.web.api.engine import engine_router
from backgammon.web.app import answer_errors
from backgammon.web.guards import RateLimiter
from backgammon.web.service.bots import STARTUP
from backgammon.web.service.engine import engine_pool

OPENING_52 = "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:3:0:10"
TO_ROLL_ID = "4HPwATDgc/ABMA:cAkAAAAAAAAA"


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(str(tmp_path / "m.sqlite3"))) as c:
        yield c


def test_ranked_plays(client: TestClient) -> None:
    """The plays of 52 at the start, best first, as the 0-ply bot ranks them; the first
    is its choice (R10: a full play)."""
    r = client.get("/api/engine/hint", params={"xgid": OPENING_52})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["kind"] == "plays" and body["dice"] == [5, 2]
    m = Match.from_xgid(OPENING_52)
    legal = {str(x) for x in m.legal_moves()}
    plays = body["plays"]
    assert {p["move"] for p in plays} <= legal and len(plays) == min(len(legal), 20)
    equities = [p["equity"] for p in plays]
    assert equities == sorted(equities, reverse=True)
    assert m.dice is not None
    assert plays[0]["move"] == str(get("neural", plies=0).choose_move(m.position, m.dice))
    assert all(len(p["probabilities"]) == 5 for p in plays)


def test_cube_decision_by_gnubg_id(client: TestClient) -> None:
    """Before the roll: the three cubeful equities and the actions (R21-R22); nobody
    doubles at the start."""
    r = client.get("/api/engine/hint", params={"gnubgid": TO_ROLL_ID})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["kind"] == "cube" and body["gnubgid"] == TO_ROLL_ID
    assert body["cube"]["action"] == "no double" and body["cube"]["response"] == "take"


def test_a_match_past_25_points_is_evaluated(client: TestClient) -> None:
    """A 31-point match (R: up to 64) gets its cube decision, not a 500 for the match-equity
    table's 25 points."""
    r = client.get("/api/engine/hint", params={"gnubgid": "4HPwATDgc/ABMA:MAHgAwAAAAAE"})
    assert r.status_code == 200, r.text
    assert r.json()["cube"]["action"] == "no double"


def test_the_eval_endpoint_gives_backgammon_evals_numbers(client: TestClient) -> None:
    """``/api/engine/eval`` sends what ``backgammon eval`` prints, for the side on roll
    before its roll (the 52 of the XGID is not yet rolled for this judgement)."""
    from backgammon.evaluation.cube import CubeState
    from backgammon.judging.evaluate import evaluate

    for params in ({"xgid": OPENING_52}, {"gnubgid": "w24bAEI2uxMACg:MAGgAAAAAAAE", "plies": 1}):
        r = client.get("/api/engine/eval", params=params)
        assert r.status_code == 200, r.text
        body = r.json()
        m = (
            Match.from_xgid(OPENING_52)
            if "xgid" in params
            else Match.from_gnubg_id(params["gnubgid"])
        )
        local = evaluate(m.position, CubeState.from_match(m), int(params.get("plies", 0)))
        expected = local.to_json()
        assert (
            body["ply"] == expected["ply"] and body["cube"]["proper"] == expected["cube"]["proper"]
        )
        assert body["probabilities"] == pytest.approx(expected["probabilities"], abs=1e-6)
        assert body["cube"]["no_double"] == pytest.approx(expected["cube"]["no_double"], abs=1e-6)
    r = client.get("/api/engine/eval", params={"xgid": "XGID=nonsense"})
    assert r.status_code == 400 and r.json()["error"]["code"] == "invalid_position"


@pytest.mark.parametrize(
    ("params", "status", "code"),
    [
        ({}, 400, "invalid_request"),
        ({"xgid": OPENING_52, "gnubgid": TO_ROLL_ID}, 400, "invalid_request"),
        ({"xgid": "XGID=nonsense"}, 400, "invalid_position"),
        ({"gnubgid": "4HPwATDgc/ABMA:zzzz"}, 400, "invalid_position"),
        ({"xgid": OPENING_52, "plies": 9}, 400, "invalid_request"),
        ({"gnubgid": Match(length=3).gnubg_id()}, 422, "no_decision"),  # before the opening
    ],
)
def test_errors(client: TestClient, params: dict[str, object], status: int, code: str) -> None:
    r = client.get("/api/engine/hint", params=params)
    assert r.status_code == status, r.text
    assert r.json()["error"]["code"] == code and r.json()["error"]["message"]


def test_rate_limit_per_client() -> None:
    """A client that spends its burst is refused with 429 and Retry-After; tokens come
    back with time."""
    limiter = RateLimiter(rate=1000.0, burst=3)
    app = FastAPI()
    answer_errors(app)
    app.include_router(engine_router(limiter=RateLimiter(rate=0.001, burst=3)))
    with TestClient(app) as c:
        codes = [
            c.get("/api/engine/hint", params={"gnubgid": TO_ROLL_ID}).status_code for _ in range(5)
        ]
        assert codes == [200, 200, 200, 429, 429]
        r = c.get("/api/engine/hint", params={"gnubgid": TO_ROLL_ID})
        assert r.json()["error"]["code"] == "rate_limited" and int(r.headers["Retry-After"]) >= 1
    assert [limiter.wait("a") for _ in range(3)] == [0.0, 0.0, 0.0]
    assert limiter.wait("a") > 0 and limiter.wait("b") == 0.0


def test_a_served_app_warms_the_engine_as_it_starts(tmp_path: Path) -> None:
    """Issue 67, item 9: the served server starts the hints' engine and loads its network
    as it starts, before any hint asks (an app that is not served starts it on the first
    hint); the first hint is then answered."""
    engine_pool().close()  # the process's pool, maybe started by an earlier test: stopped
    with TestClient(create_app(str(tmp_path / "lazy.sqlite3"))):
        assert not engine_pool().warming
    with TestClient(create_app(str(tmp_path / "m.sqlite3"), warm_engine=True)) as c:
        warming = engine_pool().warming
        assert warming, "no warm-up started with the server"
        for f in warming:
            f.result(timeout=STARTUP)  # raises what the warm-up raised
        started = time.monotonic()
        r = c.get("/api/engine/hint", params={"gnubgid": TO_ROLL_ID, "plies": 1})
        assert r.status_code == 200, r.text
        print(f"\nthe first 1-ply hint after the warm-up: {time.monotonic() - started:.2f} s")


def test_a_bare_position_id_is_a_money_game_with_its_side_on_roll(client: TestClient) -> None:
    """Issue 67, item 6: a Position ID without its match part (as the terminal reads it)."""
    r = client.get("/api/position", params={"id": "4HPwAyDgc/ABMA"})
    assert r.status_code == 200, r.text
    assert r.json()["gnubgid"].startswith("4HPwAyDgc/ABMA:")
    bad = client.get("/api/position", params={"id": "4HPwAyDgc/ABM!"})
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "invalid_position"

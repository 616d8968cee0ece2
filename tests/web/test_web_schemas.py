"""The web's one state schema: every state the page receives (reads, replies, WebSocket
pushes, replays) is :class:`StateView`'s JSON, and the schema refuses a state that drifts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic import ValidationError
from webapi import act, auth, full_play, new_match, settle

from backgammon.web import create_app
from backgammon.web.schemas import StateView


def checked(text: str) -> dict[str, Any]:
    """``text`` read back through the schema (strictly): it must hold every field, no more."""
    view = StateView.model_validate_json(text, strict=True)
    data = json.loads(text)
    assert set(data) == set(StateView.model_fields)
    assert json.loads(view.model_dump_json()) == data
    return dict(data)


def test_every_state_of_a_match_is_the_schemas_output(tmp_path: Path) -> None:
    with TestClient(create_app(str(tmp_path / "m.sqlite3"))) as client:
        m = new_match(client, length=3)
        mid, token = m["id"], m["token"]
        seen = 0
        with client.websocket_connect(f"/api/matches/{mid}/ws?token={token}") as ws:
            pushed = ws.receive_json()
            assert pushed["type"] == "state"
            checked(json.dumps(pushed["state"]))
            s = checked(client.get(f"/api/matches/{mid}", headers=auth(token)).text)
            while not s["over"]:
                if "move" in s["actions"]:
                    r = client.post(
                        f"/api/matches/{mid}/actions",
                        json={"action": "move", "steps": full_play(s), "seq": s["seq"]},
                        headers=auth(token),
                    )
                else:
                    simple = next(a for a in ("take", "accept", "roll") if a in s["actions"])
                    r = client.post(
                        f"/api/matches/{mid}/actions",
                        json={"action": simple, "seq": s["seq"]},
                        headers=auth(token),
                    )
                assert r.status_code == 200, r.text
                s = settle(client, mid, token, checked(r.text))
                checked(client.get(f"/api/matches/{mid}").text)  # a spectator's view
                seen += 1
        assert s["over"] and s["seed"] and s["dice_verified"] is True
        for at in (0, s["seq"] // 2, s["seq"]):
            checked(client.get(f"/api/matches/{mid}/replay/{at}", headers=auth(token)).text)
        assert seen > 5


def test_a_state_that_drifts_from_the_schema_is_refused(tmp_path: Path) -> None:
    with TestClient(create_app(str(tmp_path / "m.sqlite3"))) as client:
        m = new_match(client)
        good = act(client, m["id"], m["token"], action="roll")
    checked(json.dumps(good))
    with pytest.raises(ValidationError):
        checked(json.dumps({**good, "extra": 1}))
    with pytest.raises(ValidationError):
        checked(json.dumps({**good, "score": "0-0"}))
    with pytest.raises(ValidationError):
        checked(json.dumps({k: v for k, v in good.items() if k != "cube"}))


def test_the_api_document_describes_states_with_the_one_schema(tmp_path: Path) -> None:
    with TestClient(create_app(str(tmp_path / "m.sqlite3"))) as client:
        doc = client.get("/openapi.json").json()
    for path in ("/api/matches/{match_id}", "/api/matches/{match_id}/replay/{at}"):
        answer = doc["paths"][path]["get"]["responses"]["200"]["content"]["application/json"]
        assert answer["schema"]["$ref"].endswith("/StateView")
    fields = doc["components"]["schemas"]["StateView"]["properties"]
    assert set(fields) == set(StateView.model_fields)

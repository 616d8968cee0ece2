"""The schema grows by Alembic migrations: a new database is made at the newest revision,
and a database made by the release before Alembic (its DDL and rows, written by that
release's code and kept in ``data/web_db_v0.json``) is stamped at the baseline and upgraded
in place, every match kept and playable, on SQLite and PostgreSQL."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient
from pghelp import postgres  # noqa: F401 (the fixture)

from backgammon.web import create_app
from backgammon.web.store.database import Store
from backgammon.web.store.migrations import HEAD

OLD = json.loads((Path(__file__).parent.parent / "data" / "web_db_v0.json").read_text())


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "old.sqlite3")
    return str(request.getfixturevalue("postgres").new_database())


def make_old_database(db: str) -> None:
    """The database as the release before Alembic left it: its own DDL, its own rows."""
    url = db if "://" in db else f"sqlite:///{db}"
    engine = sa.create_engine(url.replace("postgresql://", "postgresql+psycopg://"))
    with engine.begin() as conn:
        for ddl in sorted(OLD["schema"], key=lambda d: "TABLE matches" not in d):
            conn.exec_driver_sql(ddl)
        for table in ("matches", "actions", "analyses", "uploads"):
            for row in OLD["tables"][table]:
                columns = ", ".join(row)
                values = ", ".join(f":{c}" for c in row)
                conn.execute(sa.text(f"INSERT INTO {table} ({columns}) VALUES ({values})"), row)
    engine.dispose()


def test_a_new_database_is_made_at_the_newest_revision(db: str) -> None:
    store = Store(db)
    try:
        with store.engine.connect() as conn:
            version = conn.execute(sa.text("SELECT version_num FROM alembic_version")).scalar()
            tables = set(sa.inspect(conn).get_table_names())
    finally:
        store.close()
    assert version == HEAD
    assert {"matches", "actions", "players", "sessions", "ratings", "seats", "chat"} <= tables


def test_an_old_database_is_upgraded_in_place_keeping_every_match(db: str) -> None:
    make_old_database(db)
    old_matches = OLD["tables"]["matches"]
    with TestClient(create_app(db, bot_processes=1)) as client:
        for row in old_matches:
            actions = [a for a in OLD["tables"]["actions"] if a["match_id"] == row["id"]]
            r = client.get(f"/api/matches/{row['id']}")
            assert r.status_code == 200, r.text
            s = r.json()
            assert s["seq"] == len(actions) and s["commitment"] == row["commitment"]
            assert s["over"] == bool(row["over"])
        # The upgraded database takes accounts and new matches.
        r = client.post("/api/accounts", json={"name": "Ann", "password": "a long enough secret"})
        assert r.status_code == 201
        assert client.post("/api/matches", json={"length": 1, "bot": "random"}).status_code == 201
    store = Store(db)  # opened again: nothing more to do
    try:
        with store.engine.connect() as conn:
            version = conn.execute(sa.text("SELECT version_num FROM alembic_version")).scalar()
            kept = conn.execute(sa.text("SELECT count(*) FROM actions")).scalar()
    finally:
        store.close()
    assert version == HEAD and kept == len(OLD["tables"]["actions"])
    assert any(r["over"] for r in old_matches) and len(old_matches) == 3

"""The web tests' store and client (each test that asks for them runs on SQLite and on
PostgreSQL), and the real server and browser of the browser tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from browserhelp import Server, free_port, launch
from fastapi.testclient import TestClient
from pghelp import postgres  # noqa: F401 (the fixture)
from playwright.sync_api import Browser, sync_playwright

from backgammon.web import create_app


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


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    srv = Server(tmp_path / "web.sqlite3", free_port())
    srv.start()
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as p:
        b = launch(p)
        yield b
        b.close()

"""``backgammon serve --engine gnubg`` against the real gnubg (issue 66): gnubg as a bot in
the lobby, its verdicts beside ours in the review with the largest disagreements marked, a
file gnubg analysed showing gnubg's own verdicts with nothing recomputed, and no gnubg left
once the server ends."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from browserhelp import Server, free_port
from fastapi.testclient import TestClient
from playwright.sync_api import Browser, expect
from records_helpers import run_gnubg
from webapi import new_match, play_turn, state

from backgammon.records.gnubg_analysis import read_gnubg_analysis
from backgammon.web import create_app
from backgammon.web.service.gnubg import ServeEngineError, check_engine
from backgammon.web.service.verdicts import DISAGREE, MOST

SAMPLE = Path(__file__).parent.parent / "data" / "samples" / "gnubg107_5pt_match.mat"


def wait_done(client: TestClient | httpx2.Client, url: str, limit: float = 600) -> dict[str, Any]:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        s = client.get(url).json()
        if s["status"] not in ("running", "queued"):
            return dict(s)
        time.sleep(0.5)
    raise AssertionError(f"{url} did not finish")


@pytest.fixture(scope="module")
def analysed_sgf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample 5-point match as gnubg saves it after its own ``analyse match`` (0-ply)."""
    out = tmp_path_factory.mktemp("gnubg") / "analysed.sgf"
    run_gnubg(
        [
            "set analysis chequerplay evaluation plies 0",
            "set analysis cubedecision evaluation plies 0",
            f"import mat {SAMPLE}",
            "analyse match",
            f"save match {out}",
        ]
    )
    assert out.exists()
    return out


def _gnubg_below(pid: int) -> set[int]:
    """The gnubg processes descended from ``pid`` (read from /proc)."""
    parents: dict[int, int] = {}
    names: dict[int, str] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            name = stat[stat.index("(") + 1 : stat.rindex(")")]
            fields = stat[stat.rindex(")") + 2 :].split()
            if fields[0] != "Z":
                parents[int(entry)], names[int(entry)] = int(fields[1]), name
    found = set()
    for p, name in names.items():
        q = p
        while q in parents and q not in (0, 1, pid):
            q = parents[q]
        if q == pid and name == "gnubg":
            found.add(p)
    return found


def _column(analysis: dict[str, Any]) -> list[dict[str, Any]]:
    """The checker decisions carrying the engine's verdict, after checking the column."""
    assert "engine" in analysis and len(analysis["engine"]["players"]) == 2
    judged = [d for d in analysis["decisions"] if "engine" in d]
    assert judged
    marked = [d for d in analysis["decisions"] if "disagree" in d]
    assert len(marked) <= MOST and all(d["disagree"] >= DISAGREE for d in marked)
    # The marked ones are those where the two judges' errors differ most.
    gaps = sorted(
        (abs(d["engine"]["error_emg"] - d["error_emg"]) for d in judged if d["kind"] == "checker"),
        reverse=True,
    )
    for d in marked:
        assert d["disagree"] == pytest.approx(abs(d["engine"]["error_emg"] - d["error_emg"]))
        assert d["disagree"] >= gaps[min(len(marked), len(gaps)) - 1] - 1e-12
    return judged


def test_only_gnubg_is_the_servers_engine() -> None:
    assert check_engine("gnubg") == "gnubg" and check_engine("GNUBG:2") == "gnubg:2"
    for bad in ("gnubg:9", "ubgi:backgammon ubgi", "neural", "gnubg:x"):
        with pytest.raises(ServeEngineError):
            check_engine(bad)
    with pytest.raises(ServeEngineError):
        create_app(":memory:", engine="gnubg:8")


def test_an_sgf_gnubg_analysed_shows_its_verdicts_as_the_second_column(
    tmp_path: Path, analysed_sgf: Path
) -> None:
    """No engine on the server: the file's own verdicts are the column, as gnubg saved them."""
    theirs = read_gnubg_analysis(analysed_sgf.read_text("utf-8"))
    db = str(tmp_path / "m.sqlite3")
    with TestClient(create_app(db, bot_processes=1)) as client:
        r = client.post(
            "/api/uploads",
            params={"name": "analysed.sgf", "plies": 0},
            content=analysed_sgf.read_bytes(),
        )
        assert r.status_code == 202, r.text
        done = wait_done(client, f"/api/uploads/{r.json()['id']}")
    assert done["status"] == "done", done
    a = done["analysis"]
    assert a["engine"]["name"] == "GNU Backgammon (from the file)"
    judged = _column(a)
    by_roll: dict[tuple[int, int, tuple[int, ...]], list[Any]] = {}
    for g in theirs.games:
        for m in g.moves:
            by_roll.setdefault((m.game, m.player, tuple(sorted(m.dice))), []).append(m)
    checker = [d for d in judged if d["kind"] == "checker"]
    assert len(checker) == len([d for d in a["decisions"] if d["kind"] == "checker"])
    for d in checker:  # gnubg's own numbers, as its file holds them
        e = d["engine"]
        same = by_roll[(d["game"], d["player"], tuple(sorted(d["dice"])))]
        assert any(
            (e["error_emg"], e["best"], e["mark"]) == (m.error, str(m.candidates[0]), m.mark)
            for m in same
        ), d
    luck = [sum(g.stats.luck[p][0] for g in theirs.games if g.stats) for p in (0, 1)]
    assert [p["luck_emg"] for p in a["engine"]["players"]] == pytest.approx(luck)
    cube = [d for d in judged if d["kind"] != "checker"]
    assert {d["played"] for d in cube} >= {"Double", "Take"}


@pytest.fixture
def gnubg_app(tmp_path: Path) -> Iterator[tuple[TestClient, set[int]]]:
    """An application with gnubg at 0-ply as its engine; yields the client and, filled in
    by the test, the gnubg processes it saw (checked gone after the application ends)."""
    seen: set[int] = set()
    with TestClient(
        create_app(str(tmp_path / "m.sqlite3"), bot_processes=1, engine="gnubg:0")
    ) as c:
        yield c, seen
    deadline = time.monotonic() + 30
    while any(Path(f"/proc/{p}").exists() for p in seen) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert seen and not seen & _gnubg_below(os.getpid()), "a gnubg outlived the server"
    assert all(not Path(f"/proc/{p}").exists() for p in seen)


def test_gnubg_plays_a_match_in_the_lobby_and_judges_it_beside_us(
    gnubg_app: tuple[TestClient, set[int]],
) -> None:
    client, seen = gnubg_app
    pool = client.app.state.server.bots.pool  # type: ignore[attr-defined]
    pool.executor()
    for warming in pool.warming:  # its worker loads our default bot first (slow under load)
        warming.result(timeout=600)
    bots = client.get("/api/bots").json()["bots"]
    assert bots["gnubg:0"] == "GNU Backgammon (0-ply)" and "expert" in bots
    m = new_match(client, bot="gnubg:0", length=1, name="Ann")
    s = state(client, m["id"], m["token"])
    assert s["names"][1] == "GNU Backgammon (0-ply)"
    for _ in range(400):
        if s["over"]:
            break
        s = play_turn(client, m["id"], m["token"], s)
        seen |= _gnubg_below(os.getpid())
    assert s["over"]
    assert seen, "gnubg did not run in a bot worker"
    assert client.post(f"/api/matches/{m['id']}/analysis").status_code == 202
    done = wait_done(client, f"/api/matches/{m['id']}/analysis")
    seen |= _gnubg_below(os.getpid())
    assert done["status"] == "done", done
    a = done["analysis"]
    assert a["engine"]["name"] == "GNU Backgammon (0-ply)"
    assert all(p["rate_memg"] >= 0 for p in a["engine"]["players"])
    judged = _column(a)
    assert all(d["kind"] != "checker" or d["engine"]["best"] for d in judged)


@pytest.fixture
def gnubg_server(tmp_path: Path) -> Iterator[Server]:
    """``backgammon serve --engine gnubg:0`` as a child process on a free port."""
    srv = Server(tmp_path / "web.sqlite3", free_port(), "--engine", "gnubg:0")
    srv.start()
    yield srv
    srv.stop()


def test_the_review_shows_gnubgs_column_in_chromium(
    gnubg_server: Server, browser: Browser, analysed_sgf: Path
) -> None:
    srv = gnubg_server
    r = httpx2.post(
        f"{srv.url}/api/uploads",
        params={"name": "analysed.sgf", "plies": 0},
        content=analysed_sgf.read_bytes(),
        timeout=30,
    )
    assert r.status_code == 202, r.text
    review = r.json()["review"]
    with httpx2.Client(base_url=srv.url, timeout=30) as c:
        assert wait_done(c, f"/api/uploads/{r.json()['id']}")["status"] == "done"
    page = browser.new_page()
    page.goto(f"{srv.url}{review}")
    expect(page.locator("#d-engine")).to_be_visible(timeout=30_000)
    expect(page.locator("#d-engine")).to_contain_text("GNU Backgammon")
    costs = page.locator("#decisions .engine-cost")
    expect(costs.first).to_be_visible()
    assert costs.count() == page.locator("#decisions li").count()
    assert page.locator("#decisions .engine-cost.disagree").count() >= 1
    expect(page.locator("#players")).to_contain_text("GNU Backgammon (from the file): luck")
    page.locator("#decisions .engine-cost.disagree").first.click()
    expect(page.locator("#d-engine .disagree")).to_contain_text("the judges differ")
    page.close()

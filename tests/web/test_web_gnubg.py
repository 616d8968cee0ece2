"""``backgammon serve --engine gnubg`` against the real gnubg (issue 66): gnubg as a bot in
the lobby, its verdicts beside ours in the review with the largest disagreements marked, a
file gnubg analysed showing gnubg's own verdicts with nothing recomputed, no gnubg left once
the server ends, and in chromium a match against gnubg clicked to the end and its review."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from browserhelp import Server, click_one_action, free_port, page_state
from fastapi.testclient import TestClient
from playwright.sync_api import Browser, expect
from records_helpers import run_gnubg
from webapi import new_match, play_turn, state, wait_done

from backgammon.records.gnubg_analysis import read_gnubg_analysis
from backgammon.web import create_app
from backgammon.web.service.gnubg import ServeEngineError, check_engine
from backgammon.web.service.verdicts import DISAGREE, MOST

SAMPLE = Path(__file__).parent.parent / "data" / "samples" / "gnubg107_5pt_match.mat"


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
    """An application with gnubg at 0-ply as its engine, its reviews at 0 plies; yields the
    client and, filled in by the test, the gnubg processes it saw (checked gone after the
    application ends)."""
    seen: set[int] = set()
    app = create_app(
        str(tmp_path / "m.sqlite3"), bot_processes=1, engine="gnubg:0", analysis_plies=0
    )
    with TestClient(app) as c:
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
    assert a["engine"]["name"] == "GNU Backgammon (0-ply)" and a["plies"] == 0
    assert all(p["rate_memg"] >= 0 for p in a["engine"]["players"])
    judged = _column(a)
    assert all(d["kind"] != "checker" or d["engine"]["best"] for d in judged)


@pytest.fixture(scope="module")
def gnubg_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """``backgammon serve --engine gnubg:0`` as a child process on a free port, its match
    reviews at 0 plies (the page is what these tests look at); one for the file's browser
    tests, which each make their own match or upload on it."""
    db = tmp_path_factory.mktemp("gnubg-server") / "web.sqlite3"
    srv = Server(db, free_port(), "--engine", "gnubg:0", "--analysis-plies", "0")
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


def _expected_cost(d: dict[str, Any]) -> str:
    """The review list's gnubg column for decision ``d`` as the API's JSON says it."""
    e = d.get("engine")
    cost = f"−{1000 * e['error_emg']:.0f}" if e and e.get("error_emg", 0) > 0 else "0" if e else "–"
    return f"gnubg {cost}" + (" ≠" if "disagree" in d else "")


def test_a_match_against_gnubg_by_clicking_to_the_end_and_its_review_in_chromium(
    gnubg_server: Server, browser: Browser
) -> None:
    """gnubg picked in the lobby page, a 1-point match clicked to its end, its review's columns."""
    srv = gnubg_server
    page = browser.new_page(viewport={"width": 1200, "height": 850})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(srv.url + "/")
    page.fill("#name", "Ann")
    page.select_option("#length", "1")
    page.wait_for_selector('#bot option[value="gnubg:0"]', state="attached")
    assert page.inner_text('#bot option[value="gnubg:0"]') == "GNU Backgammon (0-ply)"
    page.select_option("#bot", "gnubg:0")
    page.click("#play-bot")
    page.wait_for_url("**/m/*")
    s = page_state(page)
    assert s["names"] == ["Ann", "GNU Backgammon (0-ply)"] and s["length"] == 1
    for _ in range(400):
        if page_state(page)["over"]:
            break
        click_one_action(page)
    s = page_state(page)
    assert s["over"] and s["winner"] in (0, 1) and sorted(s["score"])[0] == 0
    assert max(s["score"]) == s["ended"]["points"] >= 1
    winner = s["names"][s["winner"]]
    page.wait_for_selector("#end", state="visible")
    assert page.inner_text("#end-title") == f"Match over: {winner} wins 1-0."
    assert f"{s['ended']['points']} point" in page.inner_text("#end-text")
    assert "checks against the seed" in page.inner_text("#verified")
    # From the end's dialog to the review (a finished match's analysis starts by itself).
    page.click("#end-analyse")
    page.wait_for_url(f"**/m/{s['id']}/analysis")
    expect(page.locator("#result")).to_be_visible(timeout=300_000)
    expect(page.locator("#status")).to_have_text("Analysed at 0-ply.")
    with httpx2.Client(base_url=srv.url, timeout=30) as c:
        done = c.get(f"/api/matches/{s['id']}/analysis").json()
    assert done["status"] == "done" and done["over"] and done["current"], done
    a = done["analysis"]
    assert a["engine"]["name"] == "GNU Backgammon (0-ply)"
    judged = _column(a)
    decisions = a["decisions"]
    # The list: each decision's line carries our verdict and gnubg's cost beside it.
    items = page.locator("#decisions li")
    expect(items).to_have_count(len(decisions))
    costs = page.locator("#decisions li .engine-cost").all_inner_texts()
    assert costs == [_expected_cost(d) for d in decisions]
    assert any(c != "gnubg –" for c in costs)
    for d, line in zip(decisions, items.all_inner_texts(), strict=True):
        assert d["kind"] != "checker" or d["played"] in line
        if d.get("mark") and d["error_emg"] > 0:  # our cost of a marked error, before gnubg's
            assert f"{d['mark']} −{1000 * d['error_emg']:.0f}" in line
    marked = [i for i, d in enumerate(decisions) if "disagree" in d]
    shown = page.locator("#decisions .engine-cost.disagree")
    assert shown.count() == len(marked)
    # The decision where the judges differ most: both verdicts, gnubg's numbers as the API's.
    checker = [i for i, d in enumerate(decisions) if d["kind"] == "checker" and "engine" in d]
    assert checker and len(judged) >= len(checker)
    at = max(
        checker, key=lambda i: abs(decisions[i]["engine"]["error_emg"] - decisions[i]["error_emg"])
    )
    d, e = decisions[at], decisions[at]["engine"]
    # the largest gap is the first marked, when it passes the threshold
    assert ("disagree" in d) == (abs(e["error_emg"] - d["error_emg"]) >= DISAGREE)
    items.nth(at).locator("button").click()
    page.wait_for_function(f"at === {at}")
    ours = page.inner_text("#d-verdict")
    assert f"Played {d['played']}" in ours
    if d["error_emg"] > 0:
        assert f"loses {d['error_emg']:.3f} EMG" in ours and d["best"] in ours
    else:
        assert "the best play" in ours
    theirs = page.locator("#d-engine")
    expect(theirs).to_be_visible()
    text = theirs.inner_text()
    assert text.startswith("GNU Backgammon (0-ply) ")
    if e["error_emg"] > 0:
        assert f"says it loses {e['error_emg']:.3f} EMG against {e['best']}" in text
    else:
        assert "says it is the best play" in text
    if "disagree" in d:
        assert at in marked and "≠" in costs[at]
        assert f"the judges differ by {1000 * d['disagree']:.0f} mEMG" in text
    players = page.inner_text("#players")
    for label in ("overall error rate", "checker error rate", "luck"):
        assert f"GNU Backgammon (0-ply): {label}" in players
    rates = [f"{p['rate_memg']:.1f}" for p in a["engine"]["players"]]
    row = page.locator("#players tr", has_text="GNU Backgammon (0-ply): overall error rate")
    assert row.locator("td").all_inner_texts() == rates
    assert errors == []
    page.close()

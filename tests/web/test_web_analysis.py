"""Analysis in the browser (issue 11): a match against the bot played through the API, then
analysed in the server's worker process, its review in Debian's chromium (Playwright), a
decision clicked to see its board and its place in the replay; and the rule that two people
get no analysis mid-match."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from browserhelp import Server, free_port, launch
from playwright.sync_api import sync_playwright


@pytest.fixture
def quick_server(tmp_path: Path) -> Iterator[Server]:
    """A served server whose reviews are made at 0 plies (``serve --analysis-plies 0``): the
    page is what these tests look at, and a 2-ply review of a match against the random bot
    would take minutes."""
    srv = Server(tmp_path / "web.sqlite3", free_port(), "--analysis-plies", "0")
    srv.start()
    yield srv
    srv.stop()


def play_out(client: httpx2.Client, match_id: str, token: str) -> dict[str, Any]:
    """Play seat 0's side (the first listed play each time) until the match is over."""
    headers = {"Authorization": f"Bearer {token}"}
    url = f"/api/matches/{match_id}"
    state = client.get(url, headers=headers).json()
    for _ in range(400):
        if state["over"]:
            return state
        acts = state["actions"]
        if "roll" in acts:
            body: dict[str, Any] = {"action": "roll"}
        elif "move" in acts:
            body = {"action": "move", "steps": state["plays"][0]}
        elif "take" in acts:
            body = {"action": "take"}
        elif "accept" in acts:
            body = {"action": "accept"}
        else:
            time.sleep(0.2)
            state = client.get(url, headers=headers).json()
            continue
        answer = client.post(f"{url}/actions", json=body, headers=headers)
        assert answer.status_code == 200, answer.text
        state = answer.json()
    raise AssertionError("the match did not end")


@pytest.mark.browser
def test_analyse_a_finished_match_in_the_browser_and_click_an_error(quick_server: Server) -> None:
    server = quick_server
    with httpx2.Client(base_url=server.url, timeout=30) as client:
        # The expert bot: its plays are the 0-ply review's own, so only seat 0's mistakes
        # are rolled out again.
        made = client.post("/api/matches", json={"length": 1, "bot": "expert"}).json()
        match_id, token = made["id"], made["token"]
        assert play_out(client, match_id, token)["over"]
        # Issue 67, item 14: the analysis started by itself as the match ended.
        started = client.get(f"/api/matches/{match_id}/analysis").json()["status"]
        assert started in ("running", "done")
    with sync_playwright() as p:
        browser = launch(p)
        page = browser.new_page()
        page.goto(f"{server.url}/m/{match_id}")  # the match's end links to its analysis
        page.click("#end-analyse")
        page.wait_for_url(f"{server.url}/m/{match_id}/analysis")
        page.wait_for_selector("#result:not([hidden])", timeout=300_000)
        assert page.is_hidden("#analyse")  # nothing to start by hand
        # Item 15: decisions numbered 1, 2, 3 ... once each; the dice as the log writes them.
        texts = page.locator("#decisions li button").all_inner_texts()
        numbers = page.locator("#decisions li").evaluate_all("(lis) => lis.map((li) => li.value)")
        assert numbers == list(range(1, len(texts) + 1))
        assert page.locator("#players tr").count() >= 8
        assert page.locator("#graph polyline").count() == 1
        first = page.locator("#decisions li").nth(1)
        first.locator("button").click()
        page.wait_for_selector("#decisions li[aria-current][data-i='1']")
        page.wait_for_selector("#board-box svg")
        assert "Back to the match" in (page.text_content("#back") or "")
        # The error's link steps the match's replay to that decision.
        href = page.get_attribute("#to-replay", "href") or ""
        step = int(href.rsplit("=", 1)[1])
        page.click("#to-replay")
        page.wait_for_function(
            f"document.getElementById('rp-at').textContent.startsWith('{step} /')", timeout=30_000
        )
        browser.close()
    with httpx2.Client(base_url=server.url, timeout=30) as client:
        done = client.get(f"/api/matches/{match_id}/analysis").json()
    assert done["status"] == "done" and done["current"]
    assert done["analysis"]["plies"] == 0  # the server's --analysis-plies
    players = done["analysis"]["players"]
    assert len(players) == 2 and all("pr" in p["overall"] for p in players)
    with httpx2.Client(base_url=server.url, timeout=30) as client:
        log = client.get(f"/api/matches/{match_id}").json()["log"]
        for d in done["analysis"]["decisions"]:
            assert d["error_emg"] >= 0 and d["kind"] in ("checker", "double", "take")
            # Each decision's replay step shows the position it was taken in.
            replayed = client.get(f"/api/matches/{match_id}/replay/{d['step']}").json()
            assert replayed["gnubg_id"] == d["gnubg_id"]
            # Its move number is the match page's log line that tells it.
            said = log[d["line"] - 1]
            if d["kind"] == "checker":
                assert said.endswith(f": {d['played']}"), (d, said)
                # The review's line starts as the log's: "Name 31:", the higher die first.
                shown = texts[done["analysis"]["decisions"].index(d)]
                assert shown.startswith(said.split(":")[0] + ":"), (shown, said)


def test_no_analysis_between_two_people_until_the_end(server: Server) -> None:
    with httpx2.Client(base_url=server.url, timeout=30) as client:
        made = client.post("/api/matches", json={"length": 3, "opponent": "human"}).json()
        r = client.post(f"/api/matches/{made['id']}/analysis")
        assert r.status_code == 409 and r.json()["error"]["code"] == "not_over"
        bad = client.get("/api/analysis/board.svg", params={"gnubg_id": "nonsense"})
        assert bad.status_code == 400

"""In a real browser, the pages new players stumbled on (issue 67, items 6-18): the match
page's keyboard, names and ratings, the cube beside the dice, the editor's links and
rollouts, the review on a phone and its numbering, the player page, the lobby's words and
the API's documentation offline.  Debian's chromium driven by Playwright against
``backgammon serve``."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from browserhelp import Server, api_act, free_port, page_state, roll_opening
from playwright.sync_api import Browser, Page

from backgammon.core.position import Position
from backgammon.svg import board_svg

SAMPLE = Path(__file__).parent.parent / "data" / "samples" / "gnubg107_5pt_match.mat"
LONG_NAME = "W" * 31  # the name: 31 wide letters, 494 px in a 321 px box, none to break at
WHITE_31 = "4HPwATDgc/ABMA:MIEFAAAAAAAA"


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One server for the tests that do not need a fresh one."""
    srv = Server(tmp_path_factory.mktemp("pages") / "web.sqlite3", free_port())
    srv.start()
    yield srv
    srv.stop()


def focused(page: Page) -> str:
    """What has the keyboard focus: an element's id, or ``point N`` for a board point."""
    return str(
        page.evaluate(
            """() => { const a = document.activeElement;
                 const p = a && a.closest && a.closest('[data-point]');
                 return p ? `point ${p.dataset.point}` : (a.id || a.tagName); }"""
        )
    )


def test_the_match_page_keyboard_name_box_and_resigning(shared: Server, browser: Browser) -> None:
    """Items 7, 16, 18: Tab reaches the controls after one stop on the board, not 26; after
    Roll the focus lands on a checker that may move, never on Resign, and Enter pressed
    again and again resigns nothing (Resign asks, "Keep playing" focused); a 31-character
    name stays inside its box."""
    made = httpx2.post(
        f"{shared.url}/api/matches", json={"length": 5, "bot": "random", "name": LONG_NAME}
    ).json()
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(shared.url + made["link"])
    page_state(page)
    page.wait_for_selector("#board svg")
    sizes = page.evaluate("[who.scrollWidth, who.clientWidth]")
    assert LONG_NAME in page.inner_text("#who") and sizes[0] <= sizes[1], sizes
    # Tab from the top of the page: at most one board point before Roll.
    stops = []
    for _ in range(40):
        page.keyboard.press("Tab")
        stops.append(focused(page))
        if stops[-1] == "btn-roll":
            break
    assert stops[-1] == "btn-roll", stops
    assert len([s for s in stops if s.startswith("point")]) <= 1, stops
    # Roll by the keyboard until it is our turn to move; the focus is then on the board.
    for _ in range(10):
        s = page_state(page)
        if "move" in s["actions"] and s["plays"][0]:
            break
        page.focus("#btn-roll")
        page.keyboard.press("Enter")
        page.wait_for_function(f"state.seq > {s['seq']} && state.actions.length > 0")
    s = page_state(page)
    assert "move" in s["actions"]
    where = focused(page)
    assert where.startswith("point"), where
    assert int(where.split()[1]) in {step[0] for play in s["plays"] for step in play[:1]}
    for _ in range(3):  # Enter spam: picks up and puts down, resigns nothing
        page.keyboard.press("Enter")
        page.wait_for_timeout(150)
    # Resign asks first; Enter on the question keeps playing.
    page.click("#btn-resign")
    assert page.is_visible("#resign-ask") and focused(page) == "resign-no"
    for _ in range(4):
        page.keyboard.press("Enter")
        page.wait_for_timeout(150)
    page.wait_for_timeout(300)
    after = page_state(page)
    assert after["resignation"] is None and after["ended"] is None and after["seq"] == s["seq"]
    # Chosen on purpose, it resigns.
    if not page.is_visible("#resign-ask"):
        page.click("#btn-resign")
    page.click("#resign-yes")
    page.wait_for_function(f"state.seq > {s['seq']}")
    assert any("resign" in line for line in page_state(page)["log"])
    page.close()


@pytest.mark.parametrize("home", ["right", "left"])
@pytest.mark.parametrize("doubler_at_bottom", [False, True])
def test_an_offered_cube_is_not_drawn_between_the_last_plays_dice(
    browser: Browser, home: str, doubler_at_bottom: bool
) -> None:
    """Item 10: the bot doubles (or the player does) while the last play's dice are shown on
    the receiver's half: the cube is drawn beside them, overlapping neither die."""
    svg = board_svg(
        Position.initial(),
        on_roll_at_bottom=doubler_at_bottom,
        played_dice=(6, 5),
        cube_value=2,
        cube_offered="top" if doubler_at_bottom else "bottom",
        home=home,  # type: ignore[arg-type]
    )
    page = browser.new_page()
    page.set_content(f"<!doctype html><body style='margin:0'><div style='width:900px'>{svg}</div>")
    boxes = page.evaluate(
        """() => [...document.querySelectorAll('g.cube rect, g.dice.played g.die rect')]
             .map((r) => { const b = r.getBoundingClientRect();
                           return [b.left, b.top, b.right, b.bottom]; })"""
    )
    page.close()
    cube, *dice = boxes
    assert len(dice) == 2
    for d in dice:
        apart = cube[2] <= d[0] or d[2] <= cube[0] or cube[3] <= d[1] or d[3] <= cube[1]
        assert apart, (cube, d)


def test_the_editor_opens_a_bare_position_id_says_a_bad_one_and_labels_rollouts(
    shared: Server, browser: Browser
) -> None:
    """Items 6 and 11: a Position ID without its match part opens that position; a bad ID
    in the link is said, the link kept; a rollout of plays says it is cubeless."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(f"{shared.url}/position?id=4HPwAyDgc/ABMA")
    page.wait_for_function("document.getElementById('gnubgid').textContent.length > 0")
    assert page.inner_text("#gnubgid").startswith("4HPwAyDgc/ABMA:")
    assert page.inner_text("#error") == ""
    page.goto(f"{shared.url}/position?id=nonsense")
    page.wait_for_function("document.getElementById('error').textContent.length > 0")
    assert 'The link\'s position "nonsense" cannot be read' in page.inner_text("#error")
    assert page.url.endswith("/position?id=nonsense")
    # Candidate plays (cubeful EMG) then their rollout: cubeless, and labelled so.
    page.goto(f"{shared.url}/position?id={WHITE_31}")
    page.wait_for_function("view && view.dice.length === 2")
    page.select_option("#depth", "0")
    page.click("#hint")
    page.wait_for_selector("#plays-table", timeout=120_000)
    assert "cubeless" in page.inner_text("#roll-what")
    page.select_option("#trials", "36")
    for box in page.locator("#plays-table .pick").all()[1:]:  # the best play alone: quick
        box.uncheck()
    page.click("#roll")
    page.wait_for_selector("#rollout-table", timeout=300_000)
    heads = page.locator("#rollout-table thead th").all_inner_texts()
    assert "EMG" not in heads and "Cubeless" in heads, heads
    assert "not comparable with the cubeful EMG" in page.inner_text("#rollout-kind")
    page.close()


def upload(server: Server, name: str, data: bytes) -> dict[str, Any]:
    """A match file sent and analysed at 0-ply: its review link and analysis."""
    r = httpx2.post(
        f"{server.url}/api/uploads", params={"name": name, "plies": 0}, content=data, timeout=30
    )
    assert r.status_code == 202, r.text
    for _ in range(600):
        s = httpx2.get(f"{server.url}/api/uploads/{r.json()['id']}", timeout=30).json()
        if s["status"] not in ("running", "queued"):
            break
        time.sleep(0.3)
    assert s["status"] == "done", s
    return {"link": r.json()["review"], **s["analysis"]}


def test_a_cut_file_reviewed_on_a_phone(shared: Server, browser: Browser) -> None:
    """Items 8, 15 and 17: a .mat cut in the middle of a game is reviewed with a warning; on
    a 390 px phone the review opens at the top and Next keeps the board and itself on
    screen; the decisions are numbered 1, 2, 3 ... once each, as "Decision N of M" says."""
    lines = SAMPLE.read_text().splitlines()
    cut = "\n".join(lines[:20]) + "\n"  # game 1 stops at its 13th move
    review = upload(shared, "cut.mat", cut.encode())
    assert review["warnings"] and "game 1" in review["warnings"][0]
    page = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page.goto(shared.url + review["link"])
    page.wait_for_selector("#result:not([hidden])", timeout=60_000)
    page.wait_for_selector("#board-box svg")
    assert "stops in the middle of game 1" in page.inner_text("#warnings")
    n = len(review["decisions"])
    numbers = page.evaluate("[...document.querySelectorAll('#decisions li')].map((li) => li.value)")
    assert numbers == list(range(1, n + 1)), numbers
    assert page.inner_text("#where") == f"Decision 1 of {n}"

    def on_screen(selector: str) -> bool:
        box = page.locator(selector).bounding_box()
        return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 844

    assert page.evaluate("window.scrollY") == 0
    for k in range(2, 8):
        page.tap("#next")
        page.wait_for_function(
            f"document.getElementById('where').textContent.startsWith('Decision {k} ')"
        )
        page.wait_for_timeout(100)
        assert on_screen("#next"), (k, page.evaluate("window.scrollY"))
        board = page.locator("#board-box").bounding_box()
        assert board is not None and board["y"] + board["height"] > 0, (k, board)
    assert page.evaluate("window.scrollY") < 200
    page.close()


def account(page: Page, server: Server, name: str) -> None:
    r = page.request.post(
        f"{server.url}/api/accounts", data={"name": name, "password": "a long enough secret"}
    )
    assert r.status == 201, r.text()


def test_a_rated_match_shows_ratings_and_the_player_page_its_numbers(
    shared: Server, browser: Browser
) -> None:
    """Items 12 and 13: a rated match's page shows both ratings and, at its end, each one's
    change; the player page's graph has its axes' values and dates, its match table the
    result, score, rating change and date, and fits a 390 px phone."""
    ann_ctx, bob_ctx = browser.new_context(), browser.new_context()
    host, guest = ann_ctx.new_page(), bob_ctx.new_page()
    account(host, shared, "Annabel")
    account(guest, shared, "Bobby")
    m = host.request.post(
        f"{shared.url}/api/matches", data={"length": 1, "opponent": "human", "rated": True}
    ).json()
    joined = guest.request.post(f"{shared.url}/api/matches/{m['id']}/join").json()
    m["tokens"] = [m["token"], joined["token"]]
    host.goto(shared.url + m["link"])
    guest.goto(f"{shared.url}/m/{m['id']}")
    for p in (host, guest):
        page_state(p)
        p.wait_for_function("document.getElementById('ratings').textContent.includes('1500.00')")
    assert host.inner_text("#ratings") == "Rated match: Annabel 1500.00 · Bobby 1500.00."
    s = api_act(shared, m, 0, action="roll")
    while s["on_roll"] is None:
        s = api_act(shared, m, 0, action="roll")
    loser = s["on_roll"]
    api_act(shared, m, loser, action="resign", level="single")
    api_act(shared, m, 1 - loser, action="accept")
    winner_page = [host, guest][1 - loser]
    for p in (host, guest):
        p.wait_for_selector("#end-rating:not(:empty)", timeout=30_000)
    said = winner_page.inner_text("#end-rating")
    assert said.startswith("Your rating: 1500.00 → 15") and "(+" in said, said
    assert "→" in host.inner_text("#ratings") and "→" in guest.inner_text("#ratings")
    # The loser's page on a phone.
    name = ["Annabel", "Bobby"][loser]
    page = browser.new_page(viewport={"width": 390, "height": 844})
    page.goto(f"{shared.url}/p/{name}")
    page.wait_for_selector("#graph circle")
    assert page.locator("#graph .y-label").count() == 3
    assert page.locator("#graph .x-label").count() == 2
    assert page.locator("#graph circle").count() == 2
    assert "1500.00" in (page.text_content("#graph circle title") or "")
    page.wait_for_function(
        "document.querySelector('#matches td:nth-child(4)').textContent.includes('-')"
    )
    row = page.locator("#matches tr").first.locator("td").all_inner_texts()
    player = httpx2.get(f"{shared.url}/api/players/{name}").json()
    change = player["history"][0]["after"] - 1500
    assert row[1] == ["Annabel", "Bobby"][1 - loser] and row[2] == "1-point"
    assert row[3] == "lost 0-1" and row[4] == f"−{abs(change):.2f}", row
    assert row[0]  # the date
    widths = page.evaluate(
        """[document.documentElement.scrollWidth,
            document.querySelector('.scroll table').scrollWidth,
            document.querySelector('.scroll').clientWidth]"""
    )
    assert widths[0] <= 390 and widths[1] <= widths[2], widths
    for p in (host, guest, page):
        p.close()
    ann_ctx.close()
    bob_ctx.close()


def test_the_lobbys_words_and_the_api_docs_offline(server: Server, browser: Browser) -> None:
    """Item 17: a refused sign-up is said in words under the account form (the new-game
    form's line stays empty); an empty leaderboard says so; ``/docs`` works with no
    network but the server's."""
    page = browser.new_page()
    page.goto(server.url + "/")
    page.wait_for_selector("#leaders-empty:not(.hidden)")
    assert "No rated players yet" in page.inner_text("#leaders-empty")
    page.fill("#acct-name", "Cecily")
    page.fill("#acct-password", "short")
    page.click("#signup")
    page.wait_for_function("document.getElementById('account-error').textContent.length > 0")
    assert page.inner_text("#account-error") == "The password needs at least 8 characters."
    assert page.inner_text("#error") == ""
    outside: list[str] = []

    def local_only(route: Any) -> None:
        if route.request.url.startswith(server.url):
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    page.route("**/*", local_only)
    page.goto(server.url + "/docs")
    page.wait_for_selector(".swagger-ui .opblock", timeout=30_000)
    assert page.locator(".swagger-ui .opblock").count() > 10
    assert outside == []
    page.close()


SAID = "document.getElementById('hint-out').textContent"


def test_a_slow_hint_is_asked_again(shared: Server, browser: Browser) -> None:
    """Item 9: a hint the engine did not answer in time (503) is asked again, saying so,
    and then shown."""
    made = httpx2.post(f"{shared.url}/api/matches", json={"length": 3, "bot": "random"}).json()
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    asked: list[str] = []

    def first_slow(route: Any) -> None:
        asked.append(route.request.url)
        if len(asked) == 1:
            body = {"error": {"code": "engine_unavailable", "message": "no answer"}}
            route.fulfill(status=503, content_type="application/json", body=json.dumps(body))
        else:
            route.continue_()

    page.route("**/api/engine/hint*", first_slow)
    page.goto(shared.url + made["link"])
    page_state(page)
    page.select_option("#hint-depth", "0")
    page.check("#hints")
    roll_opening(page)  # hints come on one's turn
    page.wait_for_function(
        f"/Best plays|Cube at|You cannot double/.test({SAID})",
        timeout=60_000,
    )
    assert len(asked) >= 2
    page.close()

"""End to end in a real browser (Debian's chromium driven by Playwright) against the real
server process: a whole 1-point match against the bot played by clicking, and a server
killed with SIGKILL mid-match that resumes where it was, the open page reconnecting."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from playwright.sync_api import Browser, Page, sync_playwright

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SHOTS = Path(os.environ.get("BG_SCREENSHOTS", "/tmp"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """``backgammon serve`` as a child process on a free port."""

    def __init__(self, database: Path, port: int) -> None:
        self.database, self.port = database, port
        self.url = f"http://127.0.0.1:{port}"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        cmd = [sys.executable, "-m", "backgammon", "serve", "--port", str(self.port)]
        self.proc = subprocess.Popen(
            [*cmd, "--database", str(self.database)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                if httpx2.get(f"{self.url}/api/bots", timeout=1).status_code == 200:
                    return
            except httpx2.HTTPError:
                time.sleep(0.1)
        raise RuntimeError("the server did not start")

    def kill9(self) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(5)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(5)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    srv = Server(tmp_path / "web.sqlite3", free_port())
    srv.start()
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


def page_state(page: Page) -> dict[str, Any]:
    page.wait_for_function("typeof state !== 'undefined' && state !== null")
    return dict(page.evaluate("state"))


def dismiss_end(page: Page) -> None:
    """Close the game-end dialog if it is showing."""
    if page.is_visible("#end"):
        page.click("#end-continue")
        page.wait_for_selector("#end", state="hidden")


def click_one_action(page: Page) -> None:
    """Do what the page offers the human, by clicking, and wait for the answer."""
    dismiss_end(page)
    s = page_state(page)
    seq = s["seq"]
    acts = s["actions"]
    for name in ("take", "accept", "roll"):
        if name in acts:
            page.click(f"#btn-{name}")
            break
    else:
        if "move" in acts:
            longest = max(len(o) for o in s["plays"])
            play = next(o for o in s["plays"] if len(o) == longest)
            for k, (src, dst) in enumerate(play):
                page.click(f'#board g[data-point="{src}"]')
                page.wait_for_function(f"selected === {src}")
                page.click(f'#board g[data-point="{dst}"]')
                page.wait_for_function(f"steps.length === {k + 1}")
            page.wait_for_selector("#btn-confirm:not([disabled])")
            page.click("#btn-confirm")
    # Settled: the bot has answered and it is the human's turn again (or the match is over).
    page.wait_for_function(
        f"state.over || (state.seq !== {seq} && state.actions.length > 0)", timeout=60_000
    )


def centre(page: Page, point: int) -> tuple[float, float]:
    bb = page.locator(f'#board g[data-point="{point}"]').bounding_box()
    assert bb is not None
    return bb["x"] + bb["width"] / 2, bb["y"] + bb["height"] / 2


def undo_drag_and_direction(page: Page) -> None:
    """On a turn to move: a step made by clicking is undone, then made by dragging; the
    board turns to the home-on-the-left direction and back."""
    s = page_state(page)
    src, dst = s["plays"][0][0]
    page.click(f'#board g[data-point="{src}"]')
    page.wait_for_function(f"selected === {src}")
    page.wait_for_selector(f'#board g.target[data-point="{dst}"]')  # legal targets lit
    page.click(f'#board g[data-point="{dst}"]')
    page.wait_for_function("steps.length === 1")
    page.click("#btn-undo")
    page.wait_for_function("steps.length === 0")
    x, y = centre(page, src)
    page.mouse.move(x, y)
    page.mouse.down()
    page.wait_for_function(f"selected === {src}")
    page.wait_for_timeout(200)
    x, y = centre(page, dst)
    page.mouse.move(x, y, steps=5)
    page.mouse.up()
    page.wait_for_function("steps.length === 1")
    page.click("#btn-undo")
    page.wait_for_function("steps.length === 0")
    page.check("#home-left")
    page.wait_for_function("home === 'left'")
    page.wait_for_timeout(300)
    assert centre(page, 1)[0] < centre(page, 12)[0]
    page.uncheck("#home-left")
    page.wait_for_timeout(300)
    assert centre(page, 1)[0] > centre(page, 12)[0]


def test_a_whole_one_point_match_against_the_bot_by_clicking(
    server: Server, browser: Browser
) -> None:
    page = browser.new_page(viewport={"width": 1200, "height": 850})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server.url + "/")
    page.select_option("#length", "1")
    page.click("#play-bot")
    page.wait_for_url("**/m/*")
    commitment = page_state(page)["commitment"]
    assert page.inner_text("#commitment") == commitment
    shot = tried = False
    for _ in range(400):
        if page_state(page)["over"]:
            break
        if not tried and "move" in page_state(page)["actions"]:
            undo_drag_and_direction(page)
            tried = True
        click_one_action(page)
        if not shot and page_state(page)["seq"] > 6:
            page.screenshot(path=str(SHOTS / "web-desktop.png"))
            shot = True
    s = page_state(page)
    assert tried
    assert s["over"] and max(s["score"]) >= 1  # a gammon scores 2 (R19, R27)
    page.wait_for_selector("#seed-box:not(.hidden)")
    # The end is shown until the player goes on: who won, how, the points, the score.
    page.wait_for_selector("#end", state="visible")
    winner, loser = s["names"][s["winner"]], s["names"][1 - s["winner"]]
    top = max(s["score"])
    assert page.inner_text("#end-title") == f"Match over: {winner} wins 1-0."  # not "0-2"
    assert f"{winner} wins game 1" in page.inner_text("#end-text")
    assert f"{s['ended']['points']} point" in page.inner_text("#end-text")
    assert loser in page.inner_text("#end-score") and top >= 1
    dismiss_end(page)
    assert page.inner_text("#status") == f"Match over: {winner} wins 1-0."
    assert "checks against the seed" in page.inner_text("#verified")
    assert len(page.query_selector_all("#log li")) >= 3
    # Step back through the replay.
    page.click("#rp-first")
    page.wait_for_function("replayAt === 0")
    page.wait_for_function("document.getElementById('status').textContent.startsWith('Start')")
    assert page.inner_text("#status") == "Start of the match."
    for at in (1, 2, 3):
        page.click("#rp-next")
        page.wait_for_function(f"replayAt === {at}")
        replayed = httpx2.get(f"{server.url}/api/matches/{s['id']}/replay/{at}").json()["log"]
        page.wait_for_function(f"document.querySelectorAll('#log li').length === {len(replayed)}")
        assert page.inner_text("#log li[aria-current]") == replayed[-1]  # the log follows
    assert errors == []
    page.close()


def test_phone_sized_screen_fits(server: Server, browser: Browser) -> None:
    r = httpx2.post(f"{server.url}/api/matches", json={"length": 3, "bot": "random"})
    link = r.json()["link"]
    page = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page.goto(server.url + link)
    page_state(page)
    page.click("#btn-roll")
    page.wait_for_function("state.seq > 0")
    page.wait_for_timeout(300)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390
    box = page.query_selector("#board svg")
    assert box is not None
    bb = box.bounding_box()
    assert bb is not None and 340 <= bb["width"] <= 390
    page.screenshot(path=str(SHOTS / "web-phone.png"), full_page=True)
    page.close()


def test_kill_9_mid_match_then_resume(server: Server, browser: Browser) -> None:
    r = httpx2.post(f"{server.url}/api/matches", json={"length": 3, "bot": "random"})
    m = r.json()
    page = browser.new_page(viewport={"width": 1000, "height": 800})
    page.goto(server.url + m["link"])
    for _ in range(5):
        click_one_action(page)
    before = page_state(page)
    api = f"{server.url}/api/matches/{m['id']}"
    headers = {"Authorization": f"Bearer {m['token']}"}
    assert httpx2.get(api, headers=headers).json()["gnubg_id"] == before["gnubg_id"]
    server.kill9()
    server.start()  # same port, same database
    after = httpx2.get(api, headers=headers).json()
    for key in ("seq", "gnubg_id", "xgid", "score", "dice", "log", "actions"):
        assert after[key] == before[key], key
    # The open page reconnects and goes on; the match can be played on from there.
    page.wait_for_timeout(1500)
    assert page_state(page)["seq"] == before["seq"]
    for _ in range(3):
        click_one_action(page)
    assert page_state(page)["seq"] > before["seq"]
    page.close()


def test_friend_by_invitation_link_sees_moves_live(server: Server, browser: Browser) -> None:
    """Two browsers: the host invites, the friend opens the link; what one does appears on
    the other's page through the WebSocket; a third browser only watches."""
    host_ctx, friend_ctx, watch_ctx = (browser.new_context() for _ in range(3))
    host = host_ctx.new_page()
    host.goto(server.url + "/")
    host.fill("#name", "Ann")
    host.click("#play-friend")
    host.wait_for_selector("#invite", state="visible")
    invite = host.get_attribute("#invite-link", "href")
    assert invite and "/join/" in invite
    host.click("#my-link")
    host.wait_for_url("**/m/*")
    friend = friend_ctx.new_page()
    friend.goto(invite)
    watcher = watch_ctx.new_page()
    watcher.goto(host.url)
    assert page_state(friend)["seat"] == 1 and page_state(host)["seat"] == 0
    assert page_state(watcher)["seat"] is None
    assert watcher.is_hidden("#btn-roll")
    friend.click("#btn-roll")
    friend.wait_for_function("state.seq === 1")
    host.wait_for_function("state.seq === 1")  # pushed to the host's page
    watcher.wait_for_function("state.seq === 1")
    assert "Opening roll" in host.inner_text("#log")
    for ctx in (host_ctx, friend_ctx, watch_ctx):
        ctx.close()


def test_simultaneous_actions_are_accepted_once(server: Server) -> None:
    """Ten clients send the same action for the same seat at once: one is accepted, the
    others are refused as stale, and exactly one action is stored."""
    from concurrent.futures import ThreadPoolExecutor

    m = httpx2.post(f"{server.url}/api/matches", json={"opponent": "human"}).json()
    url = f"{server.url}/api/matches/{m['id']}"
    headers = {"Authorization": f"Bearer {m['token']}"}

    def send(_: int) -> int:
        r = httpx2.post(f"{url}/actions", json={"action": "roll", "seq": 0}, headers=headers)
        return r.status_code

    with ThreadPoolExecutor(10) as pool:
        codes = sorted(pool.map(send, range(10)))
    assert codes == [200] + [409] * 9
    assert httpx2.get(url, headers=headers).json()["seq"] == 1


# ------------------------------------------------------------------ what players expect (issue 16)

AXE = Path(__file__).parent.parent / "vendor" / "axe-core" / "axe.min.js"


def friends_match(server: Server, **spec: Any) -> dict[str, Any]:
    """A match between two humans made through the API: id, tokens and both links."""
    m = httpx2.post(f"{server.url}/api/matches", json={"opponent": "human", **spec}).json()
    m["tokens"] = [m["token"], m["invite"].rsplit("/", 1)[1]]
    return dict(m)


def api_act(server: Server, m: dict[str, Any], seat: int, **action: Any) -> dict[str, Any]:
    r = httpx2.post(
        f"{server.url}/api/matches/{m['id']}/actions",
        json=action,
        headers={"Authorization": f"Bearer {m['tokens'][seat]}"},
    )
    assert r.status_code == 200, r.text
    return dict(r.json())


def opened(server: Server, m: dict[str, Any]) -> dict[str, Any]:
    """Throw the opening roll (again after ties); the state of the player to move."""
    s = api_act(server, m, 0, action="roll")
    while s["on_roll"] is None:
        s = api_act(server, m, 0, action="roll")
    return s


def roll_opening(page: Page) -> int:
    """Click Roll until the opening roll is not a tie (R3); the seat that won it."""
    while True:
        seq = page_state(page)["seq"]
        page.click("#btn-roll")
        page.wait_for_function(f"state.seq > {seq}")
        on_roll = page_state(page)["on_roll"]
        if on_roll is not None:
            return int(on_roll)


def seat_page(browser: Browser, server: Server, link: str, **kw: Any) -> Page:
    page = browser.new_context(**kw).new_page()
    page.goto(server.url + link)
    page_state(page)
    return page


def axe_violations(page: Page) -> list[dict[str, Any]]:
    """axe-core's serious and critical findings on the page as it is now."""
    page.add_script_tag(path=str(AXE))
    found = page.evaluate(
        "async () => (await axe.run(document, {resultTypes: ['violations']})).violations"
    )
    return [
        {"id": v["id"], "nodes": [n["target"] for n in v["nodes"]][:3]}
        for v in found
        if v["impact"] in ("serious", "critical")
    ]


def notation(play: list[list[int]]) -> str:
    """A play's steps in gnubg notation (bar 25, off 0)."""
    word = {25: "bar", 0: "off"}
    return " ".join(f"{word.get(a, a)}/{word.get(b, b)}" for a, b in play)


def tab_to(page: Page, selector: str, limit: int = 120) -> None:
    """Press Tab until the element matching ``selector`` has the focus (keyboard only)."""
    for _ in range(limit):
        if page.evaluate(f"document.activeElement.matches({selector!r})"):
            return
        page.keyboard.press("Tab")
    where = page.evaluate("document.activeElement.outerHTML.slice(0, 80)")
    hidden = page.evaluate(f"document.querySelector({selector!r})?.closest('.hidden')?.id")
    raise AssertionError(f"Tab never reached {selector} (focus on {where}, hidden in {hidden})")


def test_the_opening_roll_names_no_one_undefined(server: Server, browser: Browser) -> None:
    m = friends_match(server, name="Ann")
    host = seat_page(browser, server, m["link"])
    watcher = seat_page(browser, server, f"/m/{m['id']}")
    for page in (host, watcher):
        text = page.inner_text("#status")
        assert "undefined" not in text and "opening roll" in text.lower(), text
    host.context.close()
    watcher.context.close()


def test_a_game_end_is_shown_until_the_player_goes_on(server: Server, browser: Browser) -> None:
    m = friends_match(server, name="Ann", length=3)
    friend = seat_page(browser, server, m["invite"])
    s = opened(server, m)
    api_act(server, m, s["on_roll"], action="resign", level="single")
    api_act(server, m, 1 - s["on_roll"], action="accept")
    friend.wait_for_selector("#end", state="visible")
    winner = ["Ann", "Friend"][1 - s["on_roll"]]
    assert friend.inner_text("#end-title") == "Game 1 is over"
    assert (
        friend.inner_text("#end-text") == f"{winner} wins game 1: a single was resigned, 1 point."
    )
    score = "Ann 0, Friend 1" if winner == "Friend" else "Ann 1, Friend 0"
    assert friend.inner_text("#end-score") == f"Score: {score} (3-point match)."
    friend.keyboard.press("Enter")  # the Continue button has the focus
    friend.wait_for_selector("#end", state="hidden")
    assert "opening roll" in friend.inner_text("#status").lower()
    friend.reload()
    page_state(friend)
    friend.wait_for_timeout(300)
    assert friend.is_hidden("#end")  # seen once is enough
    friend.context.close()


def test_connection_lost_is_shown_and_cleared(server: Server, browser: Browser) -> None:
    r = httpx2.post(f"{server.url}/api/matches", json={"length": 3, "bot": "random"})
    page = seat_page(browser, server, r.json()["link"])
    server.kill9()
    page.wait_for_selector("#conn.lost")
    assert "Connection lost" in page.inner_text("#conn") and "retrying" in page.inner_text("#conn")
    assert page.is_hidden("#btn-roll")  # nothing to click that would do nothing
    server.start()
    page.wait_for_function(
        "connected && !document.getElementById('conn').textContent", timeout=60_000
    )
    page.wait_for_selector("#btn-roll", state="visible")
    page.context.close()


def test_undo_step_and_undo_all_and_the_offered_cube(server: Server, browser: Browser) -> None:
    m = friends_match(server, length=5)
    s = opened(server, m)
    mover = s["on_roll"]
    page = seat_page(browser, server, [m["link"], m["invite"]][mover])
    s = page_state(page)
    play = max(s["plays"], key=len)
    for k, (src, dst) in enumerate(play[:2]):
        page.click(f'#board g[data-point="{src}"]')
        page.wait_for_function(f"selected === {src}")
        page.click(f'#board g[data-point="{dst}"]')
        page.wait_for_function(f"steps.length === {k + 1}")
    page.click("#btn-undo")
    page.wait_for_function("steps.length === 1")
    page.click("#btn-undo-all")
    page.wait_for_function("steps.length === 0")
    page.fill("#move-text", notation(play))
    page.click("#move-form button")
    page.wait_for_function(f"state.seq === {s['seq'] + 1}")
    other = seat_page(browser, server, [m["link"], m["invite"]][1 - mover])
    other.click("#btn-double")
    page.wait_for_selector("#btn-take", state="visible")
    assert page.text_content("#board .cube.offered text") == "2"
    assert "doubles to 2" in page.inner_text("#status")
    page.context.close()
    other.context.close()


def test_the_invited_friend_chooses_a_name(server: Server, browser: Browser) -> None:
    m = friends_match(server, name="Ann")
    host = seat_page(browser, server, m["link"])
    friend = seat_page(browser, server, m["invite"])
    assert host.is_hidden("#name-form")  # item 18: Ann gave her name in the lobby already
    friend.fill("#seat-name", "Carl")
    friend.click("#name-form button")
    host.wait_for_function("state.names[1] === 'Carl'")
    friend.click("#btn-roll")
    friend.wait_for_selector("#name-form", state="hidden")
    host.context.close()
    friend.context.close()


def test_a_keyboard_only_game_with_an_accessible_page(server: Server, browser: Browser) -> None:
    """A whole 1-point match against the bot with the keyboard only: Tab to a control and
    press Enter, plays typed in gnubg notation or made on the focusable points; axe-core
    finds nothing serious on the way, in both themes."""
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server.url + "/")
    assert axe_violations(page) == []
    tab_to(page, "#length")
    page.keyboard.press("ArrowUp")  # 5 -> 3 -> 1 point
    page.keyboard.press("ArrowUp")
    tab_to(page, "#play-bot")
    page.keyboard.press("Enter")
    page.wait_for_url("**/m/*")
    page_state(page)
    assert axe_violations(page) == []
    on_points = False
    for _ in range(300):
        s = page_state(page)
        if s["over"]:
            break
        if page.is_visible("#end"):
            page.keyboard.press("Enter")
            continue
        acts, seq = s["actions"], s["seq"]
        simple = next((a for a in ("take", "accept", "roll") if a in acts), None)
        if simple:
            tab_to(page, f"#btn-{simple}")
            page.keyboard.press("Enter")
        elif "move" in acts:
            play = max(s["plays"], key=len)
            if not play:
                tab_to(page, "#btn-confirm")
                page.keyboard.press("Enter")
            elif not on_points:  # the first play made on the points themselves
                assert axe_violations(page) == []
                for k, (src, dst) in enumerate(play):
                    tab_to(page, f'#board g[data-point="{src}"]')
                    page.keyboard.press("Enter")
                    page.wait_for_function(f"selected === {src}")
                    tab_to(page, f'#board g[data-point="{dst}"]')
                    label = page.evaluate("document.activeElement.getAttribute('aria-label')")
                    assert label.startswith(("point", "borne off", "bar"))
                    page.keyboard.press("Enter")
                    page.wait_for_function(f"steps.length === {k + 1}")
                tab_to(page, "#btn-confirm")
                page.keyboard.press("Enter")
                on_points = True
            else:
                tab_to(page, "#move-text")
                page.keyboard.type(notation(play))
                page.keyboard.press("Enter")
        else:
            raise AssertionError(f"nothing to do with the keyboard: {acts}")
        page.wait_for_function(f"state.over || state.seq !== {seq}", timeout=60_000)
        page.wait_for_function("state.over || state.actions.length > 0", timeout=60_000)
    assert page_state(page)["over"] and on_points
    live = page.inner_text("#status")
    assert page.get_attribute("#status", "aria-live") == "polite" and live
    page.keyboard.press("Enter")  # closes the end dialog
    assert axe_violations(page) == []
    page.check("#dark")
    assert axe_violations(page) == []
    assert errors == []
    page.close()


def test_a_money_session_with_a_beaver_by_clicking(server: Server, browser: Browser) -> None:
    host = browser.new_context().new_page()
    host.goto(server.url + "/")
    host.select_option("#length", "money")
    host.check("#beavers")
    host.click("#play-friend")
    host.wait_for_selector("#invite", state="visible")
    invite = host.get_attribute("#invite-link", "href")
    host.click("#my-link")
    host.wait_for_url("**/m/*")
    friend = browser.new_context().new_page()
    assert invite
    friend.goto(invite)
    s = page_state(friend)
    assert s["rules"] == {"money": True, "jacoby": True, "beavers": True}
    assert "Money session" in friend.inner_text("#title")
    pages = [host, friend]
    mover = roll_opening(friend)
    p = pages[mover]
    p.wait_for_function("state.actions.includes('move')")
    play = max(page_state(p)["plays"], key=len)
    p.fill("#move-text", notation(play))
    p.click("#move-form button")
    doubler, beaverer = pages[1 - mover], pages[mover]
    doubler.wait_for_selector("#btn-double", state="visible")
    doubler.click("#btn-double")
    beaverer.wait_for_selector("#btn-beaver", state="visible")
    beaverer.click("#btn-beaver")
    doubler.wait_for_selector("#btn-take", state="visible")
    assert "redoubles to 4" in doubler.inner_text("#status")
    assert doubler.text_content("#board .cube.offered text") == "4"
    doubler.click("#btn-take")
    beaverer.wait_for_function("state.cube.value === 4 && state.cube.offered === null")
    assert page_state(beaverer)["cube"]["owner"] == mover  # the beaver keeps the cube (R32)
    for page in pages:
        page.context.close()


def test_rematch_and_a_public_invitation_joined_from_the_lobby(
    server: Server, browser: Browser
) -> None:
    host = browser.new_context().new_page()
    host.goto(server.url + "/")
    host.fill("#name", "Ann")
    host.select_option("#length", "1")
    host.check("#public")
    host.click("#play-friend")
    host.wait_for_selector("#invite", state="visible")
    assert host.is_hidden("#invite-box")
    host.click("#my-link")
    host.wait_for_url("**/m/*")
    guest = browser.new_context().new_page()
    guest.goto(server.url + "/")
    guest.fill("#name", "Zed")
    guest.wait_for_selector("#lobby button[data-join]")
    assert "Ann: 1-point match" in guest.inner_text("#lobby")
    guest.click("#lobby button[data-join]")
    guest.wait_for_url("**/m/*")
    assert page_state(guest)["seat"] == 1
    host.wait_for_function("state.names[1] === 'Zed'")
    mid = page_state(host)["id"]
    # The match ends by a resignation; both ask for a rematch and meet in the same new match.
    on_roll = roll_opening(host)
    pages = [host, guest]
    resigner = pages[on_roll]
    resigner.wait_for_selector("#btn-resign", state="visible")
    resigner.once("dialog", lambda d: d.accept())
    resigner.click("#btn-resign")
    accepter = pages[1 - on_roll]
    accepter.wait_for_selector("#btn-accept", state="visible")
    accepter.click("#btn-accept")
    for page in pages:
        page.wait_for_selector("#end-rematch", state="visible")
    for page in pages:
        page.click("#end-rematch")
        page.wait_for_function(f"location.pathname !== '/m/{mid}'")
    a, b = page_state(host), page_state(guest)
    assert a["id"] == b["id"] != mid and (a["seat"], b["seat"]) == (0, 1)
    assert a["names"] == ["Ann", "Zed"] and a["seq"] == 0
    for page in pages:
        page.context.close()


def test_themes_and_the_phone_layout_look_right(server: Server, browser: Browser) -> None:
    """Screenshots of both themes and of the phone layout (looked at by the developer);
    the assertions keep what was seen: dark is dark, light is light, point numbers are
    legible at 390 px."""
    r = httpx2.post(f"{server.url}/api/matches", json={"length": 5, "bot": "random"})
    link = r.json()["link"]
    for theme in ("light", "dark"):
        ctx = browser.new_context(viewport={"width": 1280, "height": 800}, color_scheme=theme)
        page = ctx.new_page()
        page.goto(server.url + link)
        page_state(page)
        page.wait_for_timeout(300)
        bg = page.evaluate("getComputedStyle(document.body).backgroundColor")
        level = sum(int(x) for x in bg[bg.index("(") + 1 : bg.index(")")].split(",")[:3])
        assert (level < 200) == (theme == "dark"), bg
        page.screenshot(path=str(SHOTS / f"web-{theme}.png"))
        ctx.close()
    phone = browser.new_context(
        viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True
    ).new_page()
    phone.goto(server.url + link)
    page_state(phone)  # act() needs the page's state: wait for it before the click
    phone.click("#btn-roll")
    phone.wait_for_function("state.seq > 0")
    phone.wait_for_timeout(400)
    label = phone.locator('#board g[data-point="7"] > text').bounding_box()
    assert label is not None and label["height"] >= 10  # was about 7 px
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    phone.screenshot(path=str(SHOTS / "web-phone-390.png"), full_page=True)
    phone.context.close()


def test_auto_roll_moving_checkers_and_sound(server: Server, browser: Browser) -> None:
    """With auto-roll on, the page throws the dice itself when no double is possible (the
    opening roll); a play slides the checkers that moved; the beep needs no asset."""
    r = httpx2.post(f"{server.url}/api/matches", json={"length": 5, "bot": "random"})
    ctx = browser.new_context()
    ctx.add_init_script(
        "localStorage.setItem('bg-auto-roll', 'on'); localStorage.setItem('bg-sound', 'on');"
        "window.slides = 0; const animate = Element.prototype.animate;"
        "Element.prototype.animate = function (...a) { window.slides++;"
        " return animate.apply(this, a); };"
    )
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server.url + r.json()["link"])
    page.wait_for_function("state && state.seq > 0", timeout=60_000)  # nobody clicked Roll
    page.wait_for_function(
        "state.actions.includes('move') || state.actions.includes('double')", timeout=60_000
    )
    s = page_state(page)
    if "move" in s["actions"]:
        page.fill("#move-text", notation(max(s["plays"], key=len)))
        page.click("#move-form button")
    page.wait_for_function("window.slides > 0", timeout=60_000)
    assert errors == []
    ctx.close()


def test_a_double_click_acts_once_and_the_dice_are_announced(
    server: Server, browser: Browser
) -> None:
    """A double-click on Roll sends one action (no red "you have seen N actions" left on
    screen); after the roll a screen reader hears "You rolled a-b" and the focus is on a
    control, not on the page's body."""
    page = browser.new_page(viewport={"width": 1200, "height": 850})
    page.goto(server.url + "/")
    page.select_option("#length", "3")
    page.click("#play-bot")
    page.wait_for_url("**/m/*")
    posts: list[str] = []
    page.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)
    for _ in range(20):  # to the human's first roll of a turn (the opening may be the bot's)
        s = page_state(page)
        if "roll" in s["actions"] and "double" not in s["actions"]:
            break
        click_one_action(page)
    seq = page_state(page)["seq"]
    posts.clear()
    page.dblclick("#btn-roll")
    page.wait_for_function(f"state.seq > {seq}")
    page.wait_for_timeout(1000)  # the second request, if any, has been answered
    assert len([u for u in posts if u.endswith("/actions")]) == 1
    assert page.inner_text("#error") == ""
    s = page_state(page)
    if "move" in s["actions"]:
        said = page.inner_text("#announce")
        assert f"You rolled {s['dice'][0]}-{s['dice'][1]}" in said, said
    assert page.evaluate("document.activeElement !== document.body")
    page.close()


def test_a_reload_mid_turn_keeps_the_checkers_moved(server: Server, browser: Browser) -> None:
    """One step of a play made, then the page reloaded: the step is still on the board (a
    reload threw it away)."""
    page = browser.new_page(viewport={"width": 1200, "height": 850})
    page.goto(server.url + "/")
    page.select_option("#length", "3")
    page.click("#play-bot")
    page.wait_for_url("**/m/*")
    for _ in range(20):
        if "move" in page_state(page)["actions"]:
            break
        click_one_action(page)
    s = page_state(page)
    src, dst = s["plays"][0][0]
    page.click(f'#board g[data-point="{src}"]')
    page.wait_for_function(f"selected === {src}")
    page.click(f'#board g[data-point="{dst}"]')
    page.wait_for_function("steps.length === 1")
    page.reload()
    page.wait_for_function(f"state !== null && state.seq === {s['seq']}")
    page.wait_for_function("steps.length === 1")
    assert page.evaluate("steps")[0] == [src, dst]
    page.close()


# ------------------------------------------------------------------ what new users met (issue 38)


def bot_just_played(page: Page) -> bool:
    """True when the human is to roll and the log's last line is the bot's play."""
    s = page_state(page)
    last = s["log"][-1] if s["log"] else ""
    mine = s["turn"] == s["seat"] and "roll" in s["actions"] and s["dice"] is None
    return bool(mine and re.match(rf"{re.escape(s['names'][1])} \d\d: ", last))


def test_the_bots_turn_stays_in_sight_and_the_log_is_by_the_board(
    server: Server, browser: Browser
) -> None:
    """Item 11: after the bot plays, its dice stay on the board and the points its checkers
    left and reached are marked, the status says its play, until the player rolls; on a
    390 px phone the moves log comes right after the board, above Settings, IDs and Dice."""
    r = httpx2.post(f"{server.url}/api/matches", json={"length": 5, "bot": "random"})
    page = browser.new_context(
        viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True
    ).new_page()
    page.goto(server.url + r.json()["link"])
    for _ in range(12):
        if bot_just_played(page):
            break
        click_one_action(page)
    assert bot_just_played(page)
    s = page_state(page)
    page.wait_for_timeout(300)  # the board drawn
    dice = page.locator("#board g.dice.played g.die")
    assert dice.count() == 2 and dice.first.is_visible()
    assert page.locator("#board g.moved").count() >= 2
    assert page.inner_text("#status") == f"{s['log'][-1]}. Your turn."
    shown = [int(d.get_attribute("data-value") or 0) for d in dice.all()]
    assert f"{max(shown)}{min(shown)}" in s["log"][-1]  # the dice of that play
    tops = page.evaluate(
        """() => Object.fromEntries(["log", "gnubg-id", "commitment", "home-left", "board"]
             .map((id) => [id, document.getElementById(id).getBoundingClientRect().top
                                + window.scrollY]))"""
    )
    assert tops["board"] < tops["log"] < tops["home-left"] < tops["gnubg-id"] < tops["commitment"]
    assert tops["log"] < 900, tops  # was about 1,000 px further down than the board's bottom
    page.screenshot(path=str(SHOTS / "web-bot-played-390.png"), full_page=True)
    for _ in range(8):  # a roll we cannot play hands the bot its turn, drawn as played: again
        seq = s["seq"]
        page.click("#btn-roll")
        page.wait_for_function(f"state.seq > {seq}")
        page.wait_for_timeout(300)
        s = page_state(page)
        if "move" in s["actions"]:
            break
        for _ in range(12):
            if bot_just_played(page):
                break
            click_one_action(page)
        s = page_state(page)
    assert "move" in s["actions"]
    assert page.locator("#board g.dice.played").count() == 0
    assert page.locator("#board g.moved").count() == 0
    # Item 18: the dice a step has used are drawn faded (doubles: one die per two steps).
    if s["plays"][0]:
        play = max(s["plays"], key=len)
        made = 2 if s["dice"][0] == s["dice"][1] and len(play) >= 2 else 1
        for k, (src, dst) in enumerate(play[:made]):
            page.click(f'#board g[data-point="{src}"]')
            page.wait_for_function(f"selected === {src}")
            page.click(f'#board g[data-point="{dst}"]')
            page.wait_for_function(f"steps.length === {k + 1}")
        page.wait_for_function("document.querySelectorAll('#board g.die.used').length === 1")
        assert page.locator("#board g.dice g.die:not(.used)").count() == 1
    page.context.close()


def test_words_new_users_met_on_the_pages(server: Server, browser: Browser) -> None:
    """Item 18: the invitation's words do not break mid-word (only the link may), and a
    Jacoby session's "a gammon, 1 point" says why it counted one point."""
    page = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    page.goto(server.url + "/")
    page.click("#play-friend")
    page.wait_for_selector("#invite", state="visible")
    breaks = page.evaluate(
        "(ids) => ids.map((id) => getComputedStyle(document.getElementById(id)).wordBreak)",
        ["invite-what", "invite-link"],
    )
    assert breaks == ["normal", "break-all"]
    m = friends_match(server, money=True, jacoby=True, name="Ann")
    host = seat_page(browser, server, m["link"])
    said = host.evaluate(
        "endText({game: 1, winner: 0, points: 1, result: 'gammon', reason: 'played'})"
    )
    assert said.startswith("Ann wins game 1: a gammon, 1 point (the Jacoby rule"), said
    two = host.evaluate(
        "endText({game: 1, winner: 0, points: 2, result: 'gammon', reason: 'played'})"
    )
    assert two == "Ann wins game 1: a gammon, 2 points."
    page.context.close()
    host.context.close()


LONG = "Maximilian Wolfgang Alexandrovi"  # 31 characters, the most the name field allows


@pytest.mark.parametrize("width", [390, 1280])
def test_a_long_name_keeps_the_score_and_pips_on_the_board(
    server: Server, browser: Browser, width: int
) -> None:
    """Item 15: a 31-character name is shortened on the board so that the player's score
    and pips stay inside it (they were clipped off), on a phone and on a desktop, and the
    top strip's name stays clear of the match length."""
    assert len(LONG) == 31
    m = friends_match(server, name=LONG, length=5)
    api_act(server, m, 1, action="name", name=LONG[::-1])
    page = browser.new_context(viewport={"width": width, "height": 900}).new_page()
    page.goto(server.url + m["link"])
    page_state(page)
    page.wait_for_timeout(300)
    board = page.locator("#board svg").bounding_box()
    assert board is not None
    right = min(board["x"] + board["width"], width)
    for side in ("bottom", "top"):
        text = page.locator(f"#board .strip-{side} text").first
        box = text.bounding_box()
        assert box is not None
        assert box["x"] + box["width"] <= right, (side, box, right)
        words = text.text_content() or ""
        assert "score 0" in words and "pips 167" in words, words
        assert "…" in words or width > 390, words
    match_info = page.locator("#board .strip-top text").nth(1)
    top = page.locator("#board .strip-top text").first.bounding_box()
    if match_info.is_visible():
        info = match_info.bounding_box()
        assert top is not None and info is not None
        assert top["x"] + top["width"] < info["x"]
    page.screenshot(path=str(SHOTS / f"web-long-name-{width}.png"))
    page.context.close()


def test_the_host_is_told_when_a_guest_takes_the_invitation(
    server: Server, browser: Browser
) -> None:
    """Item 13: the host's own listing has no Join button (it seated the host in both
    chairs), and the host's lobby page says so when someone takes the invitation."""
    host = browser.new_context().new_page()
    host.goto(server.url + "/")
    host.fill("#name", "Ann")
    host.check("#public")
    host.click("#play-friend")
    host.wait_for_selector("#invite", state="visible")
    host.wait_for_selector("#lobby li")
    assert "(your invitation)" in host.inner_text("#lobby")
    assert host.locator("#lobby button[data-join]").count() == 0
    what = host.inner_text("#invite-what")
    assert "told here" in what
    guest = browser.new_context().new_page()
    guest.goto(server.url + "/")
    guest.fill("#name", "Zed")
    guest.wait_for_selector("#lobby button[data-join]")
    guest.click("#lobby button[data-join]")
    guest.wait_for_url("**/m/*")
    host.wait_for_function(
        "document.getElementById('invite-what').textContent.includes('Zed')", timeout=15_000
    )
    assert host.inner_text("#invite-what") == "Zed took your invitation and sits at the board."
    host.click("#my-link")
    host.wait_for_url("**/m/*")
    s = page_state(host)
    assert s["seat"] == 0 and s["names"] == ["Ann", "Zed"]
    for page in (host, guest):
        page.context.close()

"""End to end in a real browser (Debian's chromium driven by Playwright) against the real
server process: a whole 1-point match against the bot played by clicking, and a server
killed with SIGKILL mid-match that resumes where it was, the open page reconnecting."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
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
                if httpx.get(f"{self.url}/api/bots", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
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


def click_one_action(page: Page) -> None:
    """Do what the page offers the human, by clicking, and wait for the answer."""
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
        f"state.over || (state.seq !== {seq} && state.actions.length > 0)", timeout=15000
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
    assert "Match over" in page.inner_text("#status")
    assert "checks against the seed" in page.inner_text("#verified")
    assert len(page.query_selector_all("#log li")) >= 3
    # Step back through the replay.
    page.click("#rp-first")
    page.wait_for_function("replayAt === 0")
    page.click("#rp-next")
    page.wait_for_function("replayAt === 1")
    assert errors == []
    page.close()


def test_phone_sized_screen_fits(server: Server, browser: Browser) -> None:
    r = httpx.post(f"{server.url}/api/matches", json={"length": 3, "bot": "random"})
    link = r.json()["link"]
    page = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page.goto(server.url + link)
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
    r = httpx.post(f"{server.url}/api/matches", json={"length": 3, "bot": "random"})
    m = r.json()
    page = browser.new_page(viewport={"width": 1000, "height": 800})
    page.goto(server.url + m["link"])
    for _ in range(5):
        click_one_action(page)
    before = page_state(page)
    api = f"{server.url}/api/matches/{m['id']}"
    headers = {"Authorization": f"Bearer {m['token']}"}
    assert httpx.get(api, headers=headers).json()["gnubg_id"] == before["gnubg_id"]
    server.kill9()
    server.start()  # same port, same database
    after = httpx.get(api, headers=headers).json()
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

    m = httpx.post(f"{server.url}/api/matches", json={"opponent": "human"}).json()
    url = f"{server.url}/api/matches/{m['id']}"
    headers = {"Authorization": f"Bearer {m['token']}"}

    def send(_: int) -> int:
        r = httpx.post(f"{url}/actions", json={"action": "roll", "seq": 0}, headers=headers)
        return r.status_code

    with ThreadPoolExecutor(10) as pool:
        codes = sorted(pool.map(send, range(10)))
    assert codes == [200] + [409] * 9
    assert httpx.get(url, headers=headers).json()["seq"] == 1

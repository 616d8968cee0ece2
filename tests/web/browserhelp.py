"""The real server and browser as the browser tests drive them: ``backgammon serve`` on a
free port, Debian's chromium by Playwright, and the page's state, seats and checks."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx2
from playwright.sync_api import Browser, Page, Playwright

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


def launch(p: Playwright) -> Browser:
    """Chromium, its pages made past the site's Content-Security-Policy: Playwright's
    ``wait_for_function`` probes and axe's script are strings the page would evaluate, which
    the policy forbids (:func:`test_the_pages_run_under_their_content_security_policy` loads
    the pages with it)."""
    b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
    context, page = b.new_context, b.new_page
    b.new_context = lambda **kw: context(**{"bypass_csp": True, **kw})  # type: ignore[method-assign]
    b.new_page = lambda **kw: page(**{"bypass_csp": True, **kw})  # type: ignore[method-assign]
    return b


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """``backgammon serve`` as a child process on a free port."""

    def __init__(self, database: Path, port: int, *options: str) -> None:
        self.database, self.port, self.options = database, port, options
        self.url = f"http://127.0.0.1:{port}"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        cmd = [sys.executable, "-m", "backgammon", "serve", "--port", str(self.port)]
        self.proc = subprocess.Popen(
            [*cmd, "--database", str(self.database), *self.options],
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


def point_to(page: Page, point: int) -> None:
    """Tab into the board (one Tab stop) and walk its points with the arrow keys to ``point``."""
    tab_to(page, "#board g[data-point]")
    for _ in range(26):
        if page.evaluate(f"document.activeElement.dataset.point === '{point}'"):
            return
        page.keyboard.press("ArrowRight")
    raise AssertionError(f"the arrow keys never reached point {point}")


def tab_to(page: Page, selector: str, limit: int = 120) -> None:
    """Press Tab until the element matching ``selector`` has the focus (keyboard only)."""
    for _ in range(limit):
        if page.evaluate(f"document.activeElement.matches({selector!r})"):
            return
        page.keyboard.press("Tab")
    where = page.evaluate("document.activeElement.outerHTML.slice(0, 80)")
    hidden = page.evaluate(f"document.querySelector({selector!r})?.closest('.hidden')?.id")
    raise AssertionError(f"Tab never reached {selector} (focus on {where}, hidden in {hidden})")

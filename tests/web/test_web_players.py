"""The account pages in a real browser (Debian's chromium driven by Playwright) against the
real server: a player named like a script signs up in the lobby and is shown as text on
every page, the host of a friend's match is not offered the first roll before the friend
has opened the link (and sees when they have), and a chat line with markup is shown as
text to the other seat."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest
from browserhelp import Server, free_port
from playwright.sync_api import Browser, Page

EVIL = "<script>alert(1)</script>"
LINE = "<b>hi</b><img src=x onerror=alert(2)>"


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    srv = Server(tmp_path / "players.sqlite3", free_port())
    srv.start()
    yield srv
    srv.stop()


def no_dialogs(page: Page, seen: list[str]) -> Page:
    page.on("dialog", lambda d: (seen.append(d.message), d.dismiss()))
    return page


def test_script_names_and_chat_are_text_and_the_host_waits_for_the_friend(
    server: Server,
    browser: Browser,
) -> None:
    dialogs: list[str] = []
    host = no_dialogs(browser.new_context().new_page(), dialogs)
    host.goto(server.url + "/")
    host.fill("#acct-name", EVIL)
    host.fill("#acct-password", "a long enough secret")
    host.click("#signup")
    host.wait_for_selector("#me-line:not(.hidden)")
    assert host.inner_text("#me-link") == EVIL
    host.wait_for_function("document.querySelector('#online').textContent.includes('<script>')")
    host.click("#play-friend")
    host.wait_for_selector("#invite:not(.hidden)")
    invite = host.get_attribute("#invite-link", "href")
    assert invite
    host.click("#my-link")
    host.wait_for_function("typeof state !== 'undefined' && state !== null")
    host.wait_for_function("document.querySelector('#status').textContent.includes('Waiting')")
    assert host.is_hidden("#btn-roll")
    assert "has not opened" in host.inner_text("#presence")
    assert EVIL in host.inner_text("#who")
    # The friend opens the link: the host is told and offered the roll.
    friend = no_dialogs(browser.new_context().new_page(), dialogs)
    friend.goto(invite)
    friend.wait_for_function("typeof state !== 'undefined' && state !== null")
    host.wait_for_selector("#btn-roll:not(.hidden)", timeout=15_000)
    host.wait_for_function("document.querySelector('#presence').textContent.includes('is here')")
    # A chat line with markup arrives as text.
    friend.fill("#chat-text", LINE)
    friend.click("#chat-form button")
    host.wait_for_function(
        "document.querySelector('#chat').textContent.includes('onerror')", timeout=15_000
    )
    assert host.inner_text("#chat li") == f"Friend: {LINE}"
    assert host.locator("#chat b, #chat img, #chat script").count() == 0
    # The player's page shows the name as text.
    host.goto(f"{server.url}/p/{quote(EVIL, safe='')}")
    host.wait_for_function("document.querySelector('#facts').textContent.includes('Rating')")
    assert host.inner_text("#name") == EVIL
    assert host.locator("main script").count() == 0
    assert dialogs == []

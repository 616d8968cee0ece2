"""In a real browser, the match page's clock (issue 67 item 1): each seat's reserve beside
its name, the running seat's delay and then its reserve counting down, nothing in an untimed
match, and a withdrawn invitation said in words.  Debian's chromium driven by Playwright
against ``backgammon serve``."""

from __future__ import annotations

import re

import httpx2
from browserhelp import Server, friends_match, opened, page_state, seat_page
from playwright.sync_api import Browser, Page


def clock_line(page: Page, seat: int) -> str:
    """The clock's line for ``seat`` as the page shows it now."""
    return str(page.text_content(f'#clock [data-seat="{seat}"]'))


def test_a_timed_match_counts_down_and_an_untimed_one_shows_no_clock(
    server: Server, browser: Browser
) -> None:
    m = friends_match(server, name="Ann", length=1, clock={"delay": 2, "reserve": 60})
    friend = seat_page(browser, server, m["invite"])  # seat 1 has come: the match may start
    s = opened(server, m)
    running = s["clock"]["running"]
    assert running == s["on_roll"]
    friend.wait_for_function(f"state.seq === {s['seq']}")
    # The running seat: its delay first, its reserve untouched meanwhile ...
    first = clock_line(friend, running)
    assert re.fullmatch(r"▶ \S+ 1:00 · delay 0:0[12]", first), first
    # ... then the reserve falls, second by second; the other seat's stands still.
    line = f"""document.querySelector('#clock [data-seat="{running}"]').textContent"""
    friend.wait_for_function(f"/^▶ \\S+ 0:5[0-9]$/.test({line})", timeout=8000)
    before = clock_line(friend, running)
    friend.wait_for_timeout(1200)
    after = clock_line(friend, running)
    assert re.fullmatch(r"▶ \S+ 0:5\d", after), after
    assert int(after[-2:]) < int(before[-2:])
    assert re.fullmatch(r"\S+ 1:00", clock_line(friend, 1 - running))

    # An untimed match shows no clock.
    plain = friends_match(server, name="Bea", length=1)
    host = seat_page(browser, server, plain["link"])
    assert host.is_hidden("#clock")
    assert host.text_content("#clock") == ""
    # Withdrawn by its host, the invitation is said to be closed.
    r = httpx2.delete(
        f"{server.url}/api/matches/{plain['id']}",
        headers={"Authorization": f"Bearer {plain['token']}"},
    )
    assert r.status_code < 300, r.text
    host.reload()
    assert page_state(host)["closed"] == "withdrawn"
    assert host.text_content("#status") == "Closed: the host withdrew the invitation."
    friend.close()
    host.close()


def test_the_lobby_form_sets_the_clock(server: Server, browser: Browser) -> None:
    """The host picks the clock in the invitation form: the match is made with it."""
    page = browser.new_page()
    page.goto(server.url + "/")
    page.select_option("#length", "3")
    page.select_option("#clock", "8/30")
    page.click("#play-friend")
    page.wait_for_selector("#invite:not(.hidden)")
    link = str(page.get_attribute("#my-link", "href"))
    state = httpx2.get(f"{server.url}/api/matches/{link.split('/')[2]}").json()
    assert state["clock"]["delay"] == 8
    assert state["clock"]["reserve"] == [90, 90]
    page.select_option("#clock", "off")
    page.click("#play-friend")
    page.wait_for_function(f"document.querySelector('#my-link').getAttribute('href') !== {link!r}")
    other = str(page.get_attribute("#my-link", "href"))
    assert httpx2.get(f"{server.url}/api/matches/{other.split('/')[2]}").json()["clock"] is None
    page.close()

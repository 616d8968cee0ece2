"""In a real browser, what new users met (issue 38): the bot's turn stays in sight beside
the log, the pages' words, a long name beside the score and pips, and the host told when a
guest takes the invitation."""

from __future__ import annotations

import re

import httpx2
import pytest
from browserhelp import (
    SHOTS,
    Server,
    api_act,
    click_one_action,
    friends_match,
    page_state,
    seat_page,
)
from playwright.sync_api import Browser, Page

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

"""End to end in a real browser (Debian's chromium driven by Playwright) against the real
server process: a whole 1-point match against the bot played by clicking, and a server
killed with SIGKILL mid-match that resumes where it was, the open page reconnecting."""

from __future__ import annotations

import httpx2
from browserhelp import (
    SHOTS,
    Server,
    api_act,
    axe_violations,
    click_one_action,
    dismiss_end,
    friends_match,
    notation,
    opened,
    page_state,
    point_to,
    roll_opening,
    seat_page,
    tab_to,
    undo_drag_and_direction,
)
from playwright.sync_api import Browser


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
                    point_to(page, src)
                    page.keyboard.press("Enter")
                    page.wait_for_function(f"selected === {src}")
                    point_to(page, dst)
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
    resigner.click("#btn-resign")
    resigner.click("#resign-yes")
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


def test_the_pages_run_under_their_content_security_policy(
    server: Server, browser: Browser
) -> None:
    """Issue 68, item 12: every page works under its Content-Security-Policy: no script or
    style of its own is refused, the lobby lists, the board draws, the editor edits."""
    made = httpx2.post(f"{server.url}/api/matches", json={"length": 1, "opponent": "human"})
    match_id = made.json()["id"]
    ctx = browser.new_context(bypass_csp=False)
    page = ctx.new_page()
    refused: list[str] = []
    page.on("console", lambda m: refused.append(m.text) if "Content Security" in m.text else None)
    for path, ready in (
        ("/", "#lobby"),
        (f"/m/{match_id}", "#board svg"),
        ("/position", "#board svg"),
        ("/analyse", "input[type=file]"),
    ):
        page.goto(server.url + path)
        page.wait_for_selector(ready, state="attached", timeout=30000)
        page.wait_for_load_state("networkidle")
    ctx.close()
    assert refused == []

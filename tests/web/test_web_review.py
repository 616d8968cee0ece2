"""The review, the upload page, the position editor and the match page's hints in a real
browser (Debian's chromium driven by Playwright) against ``backgammon serve`` (issue 37):
a review stepped through with the keyboard, a gnubg .mat sent from the page, the editor
opened from an ID with its candidates equal to ``backgammon hint``'s, a rollout started and
cancelled, axe-core on every new page in both themes, no sideways scrolling at 390 px, and
the screenshots looked at (``BG_REVIEW_SHOTS``, /tmp/review-shots by default)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from browserhelp import Server, axe_violations, free_port, launch, page_state
from playwright.sync_api import Browser, Page, sync_playwright

from backgammon.judging.evaluate import best_plays
from backgammon.play.match import Match
from backgammon.players import CubeState, get

SAMPLE = Path(__file__).parent.parent / "data" / "samples" / "gnubg107_5pt_match.mat"
SHOTS = Path(os.environ.get("BG_REVIEW_SHOTS", "/tmp/review-shots"))
WHITE_TO_ROLL = "4HPwATDgc/ABMA:MAEAAAAAAAAA"
WHITE_31 = "4HPwATDgc/ABMA:MIEFAAAAAAAA"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("review") / "web.sqlite3", free_port())
    srv.start()
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as p:
        b = launch(p)
        yield b
        b.close()


def wait_done(url: str, limit: float = 240) -> dict[str, Any]:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        s = httpx2.get(url, timeout=30).json()
        if s["status"] not in ("running", "queued"):
            return dict(s)
        time.sleep(0.5)
    raise AssertionError(f"{url} did not finish")


@pytest.fixture(scope="module")
def review(server: Server) -> dict[str, Any]:
    """The sample match sent through the API and analysed at 0-ply: its id and analysis."""
    r = httpx2.post(
        f"{server.url}/api/uploads",
        params={"name": SAMPLE.name, "plies": 0},
        content=SAMPLE.read_bytes(),
        timeout=30,
    )
    assert r.status_code == 202, r.text
    done = wait_done(f"{server.url}/api/uploads/{r.json()['id']}")
    assert done["status"] == "done"
    return {"id": r.json()["id"], "link": r.json()["review"], **done["analysis"]}


def opened(page: Page, url: str) -> None:
    page.goto(url)
    page.wait_for_selector("#result:not([hidden])", timeout=60_000)
    page.wait_for_selector("#board-box svg")


def current(page: Page) -> int:
    return int(page.get_attribute("#decisions li[aria-current]", "data-i") or -1)


def test_step_through_a_review_with_the_keyboard(
    server: Server, browser: Browser, review: dict[str, Any]
) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    opened(page, server.url + review["link"])
    decisions = review["decisions"]
    assert page.text_content("h1") == "Review: gnubg against root, 5-point match"
    assert page.locator("#decisions li").count() == len(decisions)
    assert current(page) == 0
    page.keyboard.press("ArrowRight")
    page.wait_for_function(
        "document.querySelector('#decisions li[aria-current]').dataset.i === '1'"
    )
    for key, want in (("j", 2), ("j", 3), ("k", 2), ("ArrowLeft", 1), ("End", len(decisions) - 1)):
        page.keyboard.press(key)
        page.wait_for_function(
            f"document.querySelector('#decisions li[aria-current]').dataset.i === '{want}'"
        )
    assert page.text_content("#where") == f"Decision {len(decisions)} of {len(decisions)}"
    page.keyboard.press("Home")
    page.wait_for_function(
        "document.querySelector('#decisions li[aria-current]').dataset.i === '0'"
    )
    # A checker play: its ranked candidates, five probabilities each, the played one marked,
    # the move number the log gives it, players by name; the board shows its dice.
    first = decisions[0]
    title = page.text_content("#d-title") or ""
    assert title == f"Game 1 · move {first['line']} · gnubg to play 31"
    rows = page.locator("#cands tr.cand")
    assert rows.count() == len(first["candidates"])
    assert page.locator("#cands tr.cand.played").count() == 1
    probs = page.text_content("#cands tr.probs") or ""
    assert re.search(r"Win \d+\.\d% \(gammon .*\) · lose", probs)
    assert "Luck of the roll" in (page.text_content("#d-luck") or "")
    assert page.locator("#board-box svg").count() == 1
    # The worst error: its mark and what it lost in EMG and match-winning chance.
    worst = max(range(len(decisions)), key=lambda i: decisions[i]["error_emg"])
    page.click(f"#decisions li[data-i='{worst}'] button")
    page.wait_for_function(
        f"document.querySelector('#decisions li[aria-current]').dataset.i === '{worst}'"
    )
    verdict = page.text_content("#d-verdict") or ""
    assert decisions[worst]["mark"] in verdict and "EMG" in verdict and "match-winning" in verdict
    # A cube decision shows the three numbers and the proper action.
    cube = next(i for i, d in enumerate(decisions) if d["kind"] == "double")
    page.click(f"#decisions li[data-i='{cube}'] button")
    page.wait_for_selector("#cube")
    assert page.locator("#cube tbody tr").count() == 3
    assert "Proper cube action" in (page.text_content("#d-body") or "")
    # Errors only: the marked decisions, and stepping keeps to them.
    marked = [i for i, d in enumerate(decisions) if d["mark"]]
    page.check("#errors-only")
    assert page.locator("#decisions li").count() == len(marked)
    page.keyboard.press("Home")
    page.wait_for_function(
        f"document.querySelector('#decisions li[aria-current]').dataset.i === '{marked[0]}'"
    )
    page.keyboard.press("j")
    page.wait_for_function(
        f"document.querySelector('#decisions li[aria-current]').dataset.i === '{marked[1]}'"
    )
    page.uncheck("#errors-only")
    assert page.locator("#decisions li").count() == len(decisions)
    # The graph: axes, the 50% line, the games' boundaries and scores, whose chance; a click
    # on it goes to a play.
    assert page.locator("#graph polyline.line").count() == 1
    assert page.locator("#graph line.half").count() == 1
    assert page.locator("#graph line.game").count() == len(review["games"]) - 1
    assert "100%" in (page.text_content("#graph") or "")
    assert "gnubg's chance to win the match" in (page.text_content("#graph-caption") or "")
    assert "game 2 at 0-2" in (page.text_content("#games") or "")
    box = page.locator("#graph").bounding_box()
    assert box is not None
    page.mouse.click(box["x"] + box["width"] * 0.75, box["y"] + box["height"] / 2)
    page.wait_for_function("location.hash !== '#1'")
    clicked = current(page)
    assert decisions[clicked]["kind"] == "checker"
    assert clicked > len(decisions) // 2
    # The link keeps the decision shown.
    page.goto(f"{server.url}{review['link']}#{clicked + 1}")
    page.reload()
    page.wait_for_selector("#result:not([hidden])")
    assert current(page) == clicked
    assert errors == []
    page.close()


def test_upload_a_gnubg_mat_from_the_page(server: Server, browser: Browser) -> None:
    page = browser.new_page()
    page.goto(f"{server.url}/analyse")
    page.set_input_files("#file", str(SAMPLE))
    page.select_option("#plies", "0")
    started = time.monotonic()
    page.click("#send")
    page.wait_for_url(re.compile(r".*/review/[\w-]+$"))
    page.wait_for_selector("#result:not([hidden])", timeout=240_000)
    took = time.monotonic() - started
    print(f"\nuploaded {SAMPLE.name} analysed at 0-ply in {took:.1f} s")
    assert page.text_content("h1") == "Review: gnubg against root, 5-point match"
    link = page.url.split("#")[0]
    assert link.split("/review/")[1] in (page.text_content("#share") or "")
    upload_id = link.rsplit("/", 1)[1]
    analysis = httpx2.get(f"{server.url}/api/uploads/{upload_id}").json()["analysis"]
    assert page.locator("#decisions li").count() == len(analysis["decisions"])
    # What cannot be read is said on the page.
    page.goto(f"{server.url}/analyse")
    page.set_input_files(
        "#file", {"name": "board.png", "mimeType": "image/png", "buffer": b"\x89PNG"}
    )
    page.click("#send")
    page.wait_for_function("document.getElementById('error').textContent.length > 0")
    assert page.text_content("#error") == "send a .mat or .sgf match file"
    page.close()


def cli_hint(gnubg_id: str, plies: int) -> list[str]:
    """The plays ``backgammon hint ID --ply N`` prints, best first."""
    r = subprocess.run(
        [sys.executable, "-m", "backgammon", "hint", gnubg_id, "--ply", str(plies), "--ascii"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": "200"},
    )
    assert r.returncode == 0, r.stderr
    return re.findall(r"^ +\d+\. (.+?) +\d-ply EMG", r.stdout, re.M)


def test_the_editor_from_an_id_lists_the_terminals_candidates(
    server: Server, browser: Browser
) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(f"{server.url}/position?id={WHITE_TO_ROLL}")
    page.wait_for_selector("#board svg")
    assert page.text_content("#gnubgid") == WHITE_TO_ROLL
    # Click-to-edit: a White checker taken off its 6-point, then put back.
    page.check("input[name='change'][value='remove']")
    page.click("#board g[data-point='6']")
    page.wait_for_function(f"document.getElementById('gnubgid').textContent !== '{WHITE_TO_ROLL}'")
    assert "White 161" in (page.text_content("#pips") or "")
    assert "id=" in page.url and WHITE_TO_ROLL not in page.url
    page.check("input[name='change'][value='add']")
    page.focus("#board g[data-point='6']")
    page.keyboard.press("Enter")  # the keyboard edits too
    page.wait_for_function(f"document.getElementById('gnubgid').textContent === '{WHITE_TO_ROLL}'")
    page.click("#board g[data-point='5']")  # a 16th checker: refused, the position stays
    page.wait_for_function("document.getElementById('error').textContent.includes('16 checkers')")
    assert page.text_content("#gnubgid") == WHITE_TO_ROLL
    # The dice, then the candidates at 1-ply: the terminal's list, from the library call it makes.
    page.select_option("#die1", "3")
    page.select_option("#die2", "1")
    page.wait_for_function(f"document.getElementById('gnubgid').textContent === '{WHITE_31}'")
    page.select_option("#depth", "1")
    page.click("#hint")
    page.wait_for_selector("#plays-table")
    shown = page.locator("#plays-table td.play").all_text_contents()
    m = Match.from_gnubg_id(WHITE_31)
    assert m.dice is not None
    mine = best_plays(get("neural", plies=1), m.position, m.dice, CubeState.from_match(m), 5)  # type: ignore[arg-type]
    assert shown == [str(r.move) for r in mine]
    assert shown == cli_hint(WHITE_31, 1)
    # The evaluation: five probabilities, the equity and the cube.
    page.click("#evaluate")
    page.wait_for_selector("#eval-probs")
    assert page.locator("#eval-probs tbody td").count() == 6
    assert "Proper cube action" in (page.text_content("#eval") or "")
    # The link opens the same state.
    page.goto(page.url)
    page.wait_for_selector("#board svg")
    assert page.text_content("#gnubgid") == WHITE_31
    page.close()


def test_start_and_cancel_a_rollout(server: Server, browser: Browser) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(f"{server.url}/position?id={WHITE_31}")
    page.wait_for_selector("#board svg")
    page.select_option("#trials", "1296")
    page.select_option("#truncate", "0")
    page.click("#roll")
    page.wait_for_selector("#cancel:not([hidden])")
    page.wait_for_function(
        "document.getElementById('roll-status').textContent.startsWith('Rolling out')",
        timeout=60_000,
    )
    assert page.is_visible("#rollout-bar")
    page.click("#cancel")
    page.wait_for_function("document.getElementById('roll-status').textContent === 'Cancelled.'")
    assert page.is_hidden("#cancel") and page.is_enabled("#roll")
    # A short one to the end of its 7 plies: its table.
    page.select_option("#depth", "0")
    page.click("#hint")
    page.wait_for_selector("#plays-table")
    for box in page.locator("#plays-table .pick").all()[2:]:
        box.uncheck()
    page.select_option("#trials", "36")
    page.select_option("#truncate", "7")
    page.click("#roll")
    page.wait_for_selector("#rollout-table", timeout=240_000)
    assert page.locator("#rollout-table tr.cand").count() == 2
    page.close()


def test_hints_against_the_bot_and_not_between_two_people(server: Server, browser: Browser) -> None:
    made = httpx2.post(f"{server.url}/api/matches", json={"length": 3, "bot": "random"}).json()
    page = browser.new_page()
    page.goto(server.url + made["link"])
    page_state(page)
    page.wait_for_selector("#hint-box:not(.hidden)")
    page.check("#hints")
    page.select_option("#hint-depth", "0")
    while page_state(page)["turn"] != 0 or "move" not in page_state(page)["actions"]:
        s = page_state(page)
        if "roll" in s["actions"]:
            page.click("#btn-roll")
            page.wait_for_function(f"state.seq > {s['seq']}")
        elif s["over"]:
            pytest.fail("the match ended before a play")
        else:
            page.wait_for_timeout(200)
    page.wait_for_selector("#hint-out ol li")
    s = page_state(page)
    want = httpx2.get(
        f"{server.url}/api/engine/hint", params={"gnubgid": s["gnubg_id"], "plies": 0, "count": 5}
    ).json()
    shown = page.locator("#hint-out ol li b").all_text_contents()
    assert shown == [p["move"] for p in want["plays"]]
    page.close()
    friends = httpx2.post(
        f"{server.url}/api/matches", json={"length": 3, "opponent": "human"}
    ).json()
    page = browser.new_page()
    page.goto(server.url + friends["link"])
    page_state(page)
    page.wait_for_selector("#hint-box:not(.hidden)")
    assert page.is_disabled("#hints")
    page.close()


PAGES = ("review", "/analyse", "/position?id=" + WHITE_31)


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_new_pages_are_accessible_fit_a_phone_and_look_right(
    server: Server, browser: Browser, review: dict[str, Any], theme: str
) -> None:
    """axe-core finds nothing serious on the review, the upload page and the editor in
    either theme; at 390 px nothing scrolls sideways; screenshots of each (looked at)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    for width, height, tag in ((1280, 900, "desktop"), (390, 844, "phone")):
        phone = width < 500
        ctx = browser.new_context(
            viewport={"width": width, "height": height},
            color_scheme=theme,  # type: ignore[arg-type]
            is_mobile=phone,
            has_touch=phone,
        )
        for path in PAGES:
            page = ctx.new_page()
            name = path.strip("/").split("?")[0]
            if path == "review":
                worst = max(
                    range(len(review["decisions"])),
                    key=lambda i: review["decisions"][i]["error_emg"],
                )
                opened(page, f"{server.url}{review['link']}#{worst + 1}")
            else:
                page.goto(server.url + path)
                page.wait_for_load_state("networkidle")
            if name == "position":
                page.wait_for_selector("#board svg")
                page.click("#evaluate")
                page.wait_for_selector("#eval-probs")
                page.click("#hint")
                page.wait_for_selector("#plays-table")
            bg = page.evaluate("getComputedStyle(document.body).backgroundColor")
            level = sum(int(x) for x in bg[bg.index("(") + 1 : bg.index(")")].split(",")[:3])
            assert (level < 200) == (theme == "dark"), (path, bg)
            assert page.evaluate("document.documentElement.scrollWidth") <= width, (path, tag)
            assert axe_violations(page) == [], (path, tag, theme)
            page.screenshot(path=str(SHOTS / f"{name}-{tag}-{theme}.png"), full_page=True)
            if path == "review":  # and the worst play, its candidates shown
                checker = [i for i, d in enumerate(review["decisions"]) if d["kind"] == "checker"]
                worst = max(checker, key=lambda i: review["decisions"][i]["error_emg"])
                page.click(f"#decisions li[data-i='{worst}'] button")
                page.wait_for_selector("#cands")
                assert page.evaluate("document.documentElement.scrollWidth") <= width
                assert axe_violations(page) == [], (path, "checker", tag, theme)
                page.screenshot(path=str(SHOTS / f"review-play-{tag}-{theme}.png"), full_page=True)
            page.close()
        ctx.close()

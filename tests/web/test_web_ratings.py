"""The FIBS rating formula (equal and unequal ratings, new and experienced players, match
lengths) and a rated match rated exactly once when ten end-of-match commits and reads race
across two server processes on one PostgreSQL database."""

from __future__ import annotations

import math
import time
from concurrent.futures import ThreadPoolExecutor

import httpx2
import pytest
from pghelp import (
    Cluster,
    postgres,  # noqa: F401 (the fixture)
)
from test_web_cluster import Serve

from backgammon.web.schemas import BOTS
from backgammon.web.store.accounts import Accounts
from backgammon.web.store.database import Store
from backgammon.web.store.ratings import experience_factor, fibs_change, win_probability


def test_equal_experienced_players_move_two_points_a_one_point_match() -> None:
    # "A one-point match between two experienced players with identical ratings is worth
    # 2 points" (Bastian, The FIBS Rating System).
    c = fibs_change(1500, 1500, 1, 400, 1000)
    assert (c.winner_rating, c.loser_rating) == (pytest.approx(1502), pytest.approx(1498))
    assert (c.winner_experience, c.loser_experience) == (401, 1001)
    # The change grows with the square root of the length.
    c = fibs_change(1500, 1500, 9, 500, 500)
    assert c.winner_rating == pytest.approx(1500 + 4 * 3 * 0.5)


def test_unequal_ratings_favourite_gains_less_than_underdog() -> None:
    d, n = 200, 5
    upset = 1 / (10 ** (d * math.sqrt(n) / 2000) + 1)
    assert win_probability(1700, 1500, n) == pytest.approx(1 - upset)
    assert win_probability(1500, 1700, n) == pytest.approx(upset)
    fav = fibs_change(1700, 1500, n, 1000, 1000)
    dog = fibs_change(1500, 1700, n, 1000, 1000)
    assert fav.winner_rating - 1700 == pytest.approx(4 * math.sqrt(n) * upset)
    assert 1500 - fav.loser_rating == pytest.approx(4 * math.sqrt(n) * upset)
    assert dog.winner_rating - 1500 == pytest.approx(4 * math.sqrt(n) * (1 - upset))
    assert dog.winner_rating - 1500 > fav.winner_rating - 1700


def test_new_players_move_faster_until_400_experience() -> None:
    assert [experience_factor(e) for e in (0, 100, 250, 399, 400, 5000)] == [
        5.0,
        4.0,
        2.5,
        pytest.approx(1.01),
        1.0,
        1.0,
    ]
    # Each player's own experience scales their own change only.
    c = fibs_change(1500, 1500, 1, 0, 1000)
    assert c.winner_rating == pytest.approx(1500 + 2 * 5) and c.loser_rating == 1498


def test_ten_racing_end_of_match_commits_on_two_processes_rate_once(
    postgres: Cluster,  # noqa: F811
) -> None:
    database = postgres.new_database()
    a, b = Serve(database), Serve(database)
    try:
        ann = httpx2.Client(base_url=a.url, timeout=30)
        bob = httpx2.Client(base_url=b.url, timeout=30)
        for client, name in ((ann, "Ann"), (bob, "Bob")):
            r = client.post(
                "/api/accounts", json={"name": name, "password": "a long enough secret"}
            )
            assert r.status_code == 201, r.text
        m = ann.post("/api/matches", json={"length": 3, "opponent": "human", "rated": True})
        assert m.status_code == 201, m.text
        mid, tok0 = m.json()["id"], m.json()["token"]
        joined = bob.post(f"/api/matches/{mid}/join")
        assert joined.status_code == 201, joined.text
        tokens = [tok0, joined.json()["token"]]
        auth = [{"Authorization": f"Bearer {t}"} for t in tokens]
        url = f"/api/matches/{mid}/actions"
        s = ann.post(url, json={"action": "roll"}, headers=auth[0]).json()
        while s["on_roll"] is None:
            s = ann.post(url, json={"action": "roll"}, headers=auth[0]).json()
        mover = s["on_roll"]
        r = ann.post(url, json={"action": "resign", "level": "backgammon"}, headers=auth[mover])
        assert r.status_code == 200, r.text
        # Ten identical accepts (the match's last action) at once, half through each
        # process, with reads of the match through both: one is stored, and both
        # processes see the match end and try to rate it.
        clients = [ann, bob] * 5

        def accept(i: int) -> int:
            c = clients[i]
            got = c.post(
                url, json={"action": "accept", "seq": s["seq"] + 1}, headers=auth[1 - mover]
            )
            c.get(f"/api/matches/{mid}")
            return got.status_code

        with ThreadPoolExecutor(10) as pool:
            codes = list(pool.map(accept, range(10)))
        assert codes.count(200) == 1, codes
        # And ten direct settlements racing in this process too.
        store = Store(database)
        accounts = Accounts(store, BOTS)
        winner = 1 - mover
        with ThreadPoolExecutor(10) as pool:
            done = list(pool.map(lambda _: accounts.settle(mid, 3, winner), range(10)))
        deadline = time.monotonic() + 10
        names = ["Ann", "Bob"]
        while accounts.player(names[winner]).experience == 0:  # type: ignore[union-attr]
            assert time.monotonic() < deadline, "the match was never rated"
            time.sleep(0.05)
        time.sleep(0.5)  # any late second rating would show now
        w, lo = accounts.player(names[winner]), accounts.player(names[1 - winner])
        assert w is not None and lo is not None
        gain = 4 * math.sqrt(3) * 0.5 * 5
        assert w.rating == pytest.approx(1500 + gain) and lo.rating == pytest.approx(1500 - gain)
        assert w.experience == lo.experience == 3
        assert len(accounts.history("Ann")) == len(accounts.history("Bob")) == 1
        assert done.count(True) <= 1
        store.close()
    finally:
        a.stop()
        b.stop()

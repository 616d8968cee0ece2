"""Load on the web server: N matches against the bot played at once for T seconds.

    python bench/load.py [--matches 20] [--seconds 30] [--servers 1,2]
                         [--databases sqlite,postgresql] [--think 0] [--accounts]

For each number of server processes (``backgammon serve --workers K``, one port) and each
database (an SQLite file, or a throwaway PostgreSQL cluster made with initdb), on loopback:
``--matches`` clients each play a match against the default bot (a new one when it ends),
acting as soon as the WebSocket says it is their turn (or ``--think`` seconds later, as a
person would), with a random legal play.  Prints the human actions per second (and all
stored actions, the bot's included), the latency of a
person's action (POST until the acknowledgement) at p50/p95/p99, and the latency of a
trivial request (GET /api/bots, 20 a second) during the load next to idle, with the
issue's aims as ratios: trivial p95 within 5x idle, action p95 under 50 ms.  Then the CPU
time per human action of the server processes with their bot workers (PostgreSQL's own
not counted) and of this client, and the cores the two used together: the clients act
the moment they may, so the load grows until something is saturated, and the latency is
mostly the queue in front of it.  A second line says what the processes waited on: per
second of the load, the CPU each group of threads used and the time it spent runnable but
waiting for a CPU (the server's event loops, its database threads, its bot workers,
PostgreSQL, this client).  With ``--accounts`` every client first signs up (an argon2 hash
on the server) and plays rated matches with its session cookie (and its ``Origin``, as the
page sends it), its WebSocket asking for presence too; each finished match then moves two
ratings.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import secrets
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import aiohttp
import httpx2
import uvloop

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from pghelp import Cluster, free_port


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (0-100) of values, in milliseconds."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return 1000 * ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


class Load:
    """The clients of one run and what they measured."""

    def __init__(
        self,
        session: aiohttp.ClientSession,
        url: str,
        seconds: float,
        think: float = 0,
        accounts: bool = False,
    ) -> None:
        self.session, self.url, self.think, self.accounts = session, url, think, accounts
        self.end = time.monotonic() + seconds
        self.action_times: list[float] = []
        self.errors = 0
        self.matches = 0
        self.stored = 0

    async def player(self, rng: random.Random, logged_in: dict[str, str]) -> None:
        """Play matches against the bot until the time is up (``logged_in``: as an
        account, rated)."""
        session, url = self.session, self.url
        spec: dict[str, Any] = {"length": 3, "rated": self.accounts}
        while time.monotonic() < self.end:
            async with session.post(f"{url}/api/matches", json=spec, headers=logged_in) as r:
                m = await r.json()
            self.matches += 1
            headers = {"Authorization": f"Bearer {m['token']}"}
            actions_url = f"{url}/api/matches/{m['id']}/actions"
            ws_url = f"{url}/api/matches/{m['id']}/ws?token={m['token']}"
            if self.accounts:
                ws_url += "&presence=1"
            async with session.ws_connect(ws_url, compress=0, max_msg_size=0) as ws:
                state: dict[str, Any] = {"seq": -1}
                while time.monotonic() < self.end:
                    try:
                        frame = await ws.receive(timeout=1.0)
                    except TimeoutError:
                        continue
                    if frame.type is not aiohttp.WSMsgType.TEXT:
                        break  # the server closed the socket (it is stopping)
                    message = json.loads(frame.data)
                    if message["type"] != "state" or message["state"]["seq"] <= state["seq"]:
                        continue
                    state = message["state"]
                    if state["over"]:
                        break
                    action = choose(state, rng)
                    if action is None:
                        continue  # the bot's turn: its answer will be pushed
                    if self.think:
                        await asyncio.sleep(self.think)
                    t = time.perf_counter()
                    async with session.post(
                        actions_url, json=action, headers=headers | logged_in
                    ) as r:
                        await r.read()
                        if r.status == 200:
                            self.action_times.append(time.perf_counter() - t)
                        else:
                            self.errors += 1
                self.stored += state["seq"]

    async def sign_up(self) -> dict[str, str]:
        """A new account's login (made before the clock starts, as people sign up once):
        the headers a page of it sends."""
        account = {"name": f"load-{secrets.token_hex(6)}", "password": "a load test"}
        async with self.session.post(f"{self.url}/api/accounts", json=account) as r:
            assert r.status == 201, await r.text()
            cookie = r.cookies["bg_session"].value
        return {"Cookie": f"bg_session={cookie}", "Origin": self.url}

    async def trivial(self, until: float) -> list[float]:
        """GET /api/bots 20 times a second until ``until``: the latencies."""
        times = []
        while time.monotonic() < until:
            t = time.perf_counter()
            async with self.session.get(f"{self.url}/api/bots") as r:
                await r.read()
            times.append(time.perf_counter() - t)
            await asyncio.sleep(0.05)
        return times


def choose(state: dict[str, Any], rng: random.Random) -> dict[str, Any] | None:
    """A random legal action of the human (never a double or resignation), None when it is
    not theirs to act."""
    actions = state["actions"]
    for simple in ("roll", "take", "accept"):
        if simple in actions:
            return {"action": simple, "seq": state["seq"]}
    if "move" in actions:
        longest = max(len(o) for o in state["plays"])
        plays = [o for o in state["plays"] if len(o) == longest]
        return {"action": "move", "steps": rng.choice(plays), "seq": state["seq"]}
    return None


def _tree(root: int) -> set[int]:
    """Process ``root`` and every process under it (Linux's /proc)."""
    parents: dict[int, int] = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                stat = Path(f"/proc/{entry.name}/stat").read_text().rsplit(")", 1)[1].split()
                parents[int(entry.name)] = int(stat[1])
    tree, grown = {root}, True
    while grown:
        more = {pid for pid, parent in parents.items() if parent in tree} - tree
        tree |= more
        grown = bool(more)
    return tree


def schedstat(
    root: int, group: str | None = None, *, alone: bool = False
) -> dict[str, list[float]]:
    """Per group of the threads under process ``root``: [CPU seconds, seconds spent runnable
    but waiting for a CPU] so far (/proc/PID/task/TID/schedstat).  The groups: ``loop``, the
    main thread of each server process (its event loop); ``threads``, their other threads (the
    database calls); ``bots``, the niced bot workers; or all in ``group``.  ``alone``: not
    the processes under ``root`` (the client's are the servers)."""
    out: dict[str, list[float]] = {}
    for pid in {root} if alone else _tree(root):
        with contextlib.suppress(OSError, IndexError, ValueError):
            nice = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[16])
            for task in os.scandir(f"/proc/{pid}/task"):
                run, wait = Path(f"{task.path}/schedstat").read_text().split()[:2]
                name = group or (
                    "bots" if nice > 0 else "loop" if task.name == str(pid) else "threads"
                )
                totals = out.setdefault(name, [0.0, 0.0])
                totals[0] += int(run) / 1e9
                totals[1] += int(wait) / 1e9
    return out


def cpu_seconds(root: int) -> float:
    """The CPU seconds used so far by process ``root`` and every process under it (Linux's
    /proc; NaN elsewhere): the server processes and their bot workers."""
    parents: dict[int, int] = {}
    ticks: dict[int, int] = {}
    try:
        entries = [e.name for e in os.scandir("/proc") if e.name.isdigit()]
    except OSError:
        return float("nan")
    for name in entries:
        with contextlib.suppress(OSError, IndexError, ValueError):
            fields = Path(f"/proc/{name}/stat").read_text().rsplit(")", 1)[1].split()
            parents[int(name)] = int(fields[1])
            ticks[int(name)] = int(fields[11]) + int(fields[12])
    tree, grown = {root}, True
    while grown:
        more = {pid for pid, parent in parents.items() if parent in tree} - tree
        tree |= more
        grown = bool(more)
    return sum(ticks.get(pid, 0) for pid in tree) / os.sysconf("SC_CLK_TCK")


async def measure(
    url: str,
    matches: int,
    seconds: float,
    server: int,
    think: float,
    postgres: int | None = None,
    accounts: bool = False,
) -> dict[str, Any]:
    # One lean client process (uvloop, aiohttp's C parser, no cookie jar: every player
    # authenticates with its token) so that little of the measured latency is the client's.
    connector = aiohttp.TCPConnector(limit=matches + 10)
    jar = aiohttp.DummyCookieJar()
    async with aiohttp.ClientSession(connector=connector, cookie_jar=jar) as session:
        idle = await Load(session, url, 0).trivial(time.monotonic() + 5)
        load = Load(session, url, seconds, think, accounts)
        logins = [await load.sign_up() if accounts else {} for _ in range(matches)]
        load.end = time.monotonic() + seconds
        started = time.monotonic()
        cpu = (cpu_seconds(server), time.process_time())
        sched = _sched(server, postgres)
        players = [load.player(random.Random(k), logins[k]) for k in range(matches)]
        trivial = asyncio.ensure_future(load.trivial(load.end))
        await asyncio.gather(*players)
        busy = await trivial
        elapsed = time.monotonic() - started
        server_cpu, client_cpu = cpu_seconds(server) - cpu[0], time.process_time() - cpu[1]
        after = _sched(server, postgres)
        waits = {
            k: [(after[k][i] - v[i]) / elapsed for i in (0, 1)]
            for k, v in sched.items()
            if k in after
        }
    actions = max(1, len(load.action_times))
    return {
        "server ms": 1000 * server_cpu / actions,
        "client ms": 1000 * client_cpu / actions,
        "cores": (server_cpu + client_cpu) / elapsed,
        "human/s": len(load.action_times) / elapsed,
        "stored/s": load.stored / elapsed,
        "act50": percentile(load.action_times, 50),
        "act95": percentile(load.action_times, 95),
        "act99": percentile(load.action_times, 99),
        "idle50": percentile(idle, 50),
        "idle95": percentile(idle, 95),
        "busy50": percentile(busy, 50),
        "busy95": percentile(busy, 95),
        "errors": load.errors,
        "waits": waits,
        "matches": load.matches,
    }


def _sched(server: int, postgres: int | None) -> dict[str, list[float]]:
    """:func:`schedstat` of the server, PostgreSQL (``postgres``: its postmaster) and this
    client."""
    out = schedstat(server)
    if postgres is not None:
        out |= schedstat(postgres, "postgres")
    return out | schedstat(os.getpid(), "client", alone=True)


def postmaster(cluster: Cluster | None) -> int | None:
    """The process id of ``cluster``'s server, None without one."""
    if cluster is None:
        return None
    return int((cluster.data / "postmaster.pid").read_text().split()[0])


def serve(database: str, workers: int) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    cmd = [sys.executable, "-m", "backgammon", "serve", "--port", str(port), "--workers"]
    proc = subprocess.Popen(
        [*cmd, str(workers), "--database", database, "--bot-processes", "1"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            if httpx2.get(f"{url}/api/bots", timeout=1).status_code == 200:
                break
        except httpx2.HTTPError:
            if time.monotonic() > deadline:
                proc.kill()
                raise RuntimeError("the server did not start") from None
            time.sleep(0.2)
    time.sleep(3 * workers)  # every worker up and its bot process warm
    return proc, url


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--matches", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--servers", default="1,2", help="server processes to try (1,2)")
    parser.add_argument("--databases", default="sqlite,postgresql")
    parser.add_argument(
        "--think", type=float, default=0, help="seconds a client waits before each action (0)"
    )
    parser.add_argument(
        "--accounts", action="store_true", help="logged-in players in rated matches"
    )
    args = parser.parse_args()
    if not 1 <= args.matches <= 200 or not 1 <= args.seconds <= 600:
        parser.error("--matches 1-200 and --seconds 1-600 keep the run bounded")
    if not 0 <= args.think <= 10:
        parser.error("--think is 0-10 seconds")

    cluster = Cluster() if "postgresql" in args.databases else None
    pace = f"each action {args.think:g} s after its turn came" if args.think else "at once"
    who = ", logged-in players, rated" if args.accounts else ""
    print(f"{args.matches} matches against the bot for {args.seconds:g} s, loopback, {pace}{who}")
    print(
        "servers  database    human/s stored/s  action p50/p95/p99 ms   "
        "/api/bots p50/p95 ms idle -> load   p95 load/idle  action p95/50ms"
        "   CPU ms/action server client  cores"
    )
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for workers in (int(w) for w in args.servers.split(",")):
                for kind in args.databases.split(","):
                    if kind == "sqlite":
                        database = str(Path(tmp) / f"load-{workers}.sqlite3")
                    else:
                        assert cluster is not None
                        database = cluster.new_database()
                    proc, url = serve(database, workers)
                    try:
                        r = uvloop.run(
                            measure(
                                url,
                                args.matches,
                                args.seconds,
                                proc.pid,
                                args.think,
                                postmaster(cluster) if kind != "sqlite" else None,
                                args.accounts,
                            )
                        )
                    finally:
                        proc.terminate()
                        proc.wait(30)
                    print(
                        f"{workers:>7}  {kind:<10} {r['human/s']:8.1f} {r['stored/s']:8.1f}"
                        f"  {r['act50']:6.1f} {r['act95']:6.1f} {r['act99']:6.1f}"
                        f"      {r['idle50']:5.1f} {r['idle95']:5.1f} -> "
                        f"{r['busy50']:5.1f} {r['busy95']:6.1f}"
                        f"   {r['busy95'] / r['idle95']:9.1f}x"
                        f"   {r['act95'] / 50:9.2f}x"
                        f"   {r['server ms']:17.2f} {r['client ms']:6.2f}  {r['cores']:5.2f}"
                        + (f"  ({r['errors']} refused)" if r["errors"] else ""),
                        flush=True,
                    )
                    print(
                        "         CPU cores / waiting for a CPU (s per s): "
                        + ", ".join(f"{k} {v[0]:.2f}/{v[1]:.2f}" for k, v in r["waits"].items()),
                        flush=True,
                    )
    finally:
        if cluster is not None:
            cluster.stop()


if __name__ == "__main__":
    main()

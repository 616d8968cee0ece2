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

``--attacks none,logins,signups,uploads,sockets,chat,rollouts`` repeats each run during
each of issue 68's attacks, one at a time, with ``none`` (the same load unattacked) first:
``logins`` 40 wrong passwords at once, again and again, against one account; ``signups``
two sign-ups a second (argon2 hashes); ``uploads`` the sample 5-point match sent for a
2-ply analysis again and again; ``sockets`` 300 WebSockets on one match, asking for
presence and never reading; ``chat`` 10 chat lines at once every 0.1 s; ``rollouts`` four
rollouts of 1,296 trials at once, again as each is refused or done.  Each row says what the
attack sent and the match actions' p95 beside the unattacked run's (aim: within 5x).
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


ATTACKS = ("none", "logins", "signups", "uploads", "sockets", "chat", "rollouts")
SAMPLE = Path(__file__).resolve().parent.parent / "tests/data/samples/gnubg107_5pt_match.mat"


async def _post(session: aiohttp.ClientSession, url: str, **kw: Any) -> int:
    """A POST's status (0 when it could not be sent), its body read."""
    try:
        async with session.post(url, **kw) as r:
            await r.read()
            return r.status
    except aiohttp.ClientError:
        return 0


async def attack(kind: str, url: str, until: float) -> int:
    """Run the attack ``kind`` (see the module's text) until ``until``, on connections of
    its own (the players' pool stays theirs): the requests sent."""
    connector = aiohttp.TCPConnector(limit=0)
    jar = aiohttp.DummyCookieJar()
    async with aiohttp.ClientSession(connector=connector, cookie_jar=jar) as session:
        return await _attack(kind, session, url, until)


async def _attack(kind: str, session: aiohttp.ClientSession, url: str, until: float) -> int:
    sent = 0
    if kind == "logins":
        victim = {"name": f"victim-{secrets.token_hex(4)}", "password": "the right one"}
        await _post(session, f"{url}/api/accounts", json=victim)
        wrong = {"name": victim["name"], "password": "a wrong password"}
        while time.monotonic() < until:
            burst = [_post(session, f"{url}/api/session", json=wrong) for _ in range(40)]
            await asyncio.gather(*burst)
            sent += 40
    elif kind == "signups":
        pending: set[asyncio.Task[int]] = set()
        while time.monotonic() < until:
            account = {"name": f"s-{secrets.token_hex(6)}", "password": "a load test"}
            task = asyncio.ensure_future(_post(session, f"{url}/api/accounts", json=account))
            pending.add(task)
            task.add_done_callback(pending.discard)
            sent += 1
            await asyncio.sleep(0.5)
        await asyncio.gather(*pending)
    elif kind == "uploads":
        data = SAMPLE.read_bytes()
        params = {"name": SAMPLE.name, "plies": "2"}
        while time.monotonic() < until:
            status = await _post(session, f"{url}/api/uploads", params=params, data=data)
            sent += 1
            await asyncio.sleep(0.2 if status == 202 else 1.0)
    elif kind == "sockets":
        async with session.post(f"{url}/api/matches", json={"length": 25}) as r:
            m = await r.json()
        ws_url = f"{url}/api/matches/{m['id']}/ws?token={m['token']}&presence=1"
        async with contextlib.AsyncExitStack() as stack:
            for _ in range(300):  # opened and never read
                with contextlib.suppress(aiohttp.ClientError):
                    await stack.enter_async_context(session.ws_connect(ws_url, compress=0))
                    sent += 1
            await asyncio.sleep(max(0.0, until - time.monotonic()))
    elif kind == "chat":
        async with session.post(f"{url}/api/matches", json={"length": 25}) as r:
            m = await r.json()
        headers = {"Authorization": f"Bearer {m['token']}"}
        chat = f"{url}/api/matches/{m['id']}/chat"
        while time.monotonic() < until:
            lines = [
                _post(session, chat, json={"text": f"line {k}"}, headers=headers) for k in range(10)
            ]
            await asyncio.gather(*lines)
            sent += 10
            await asyncio.sleep(0.1)
    elif kind == "rollouts":
        body = {"id": "4HPwATDgc/ABMA:cAkAAAAAAAAA", "top": 5, "trials": 1296}

        async def one() -> None:
            nonlocal sent
            while time.monotonic() < until:
                status = await _post(session, f"{url}/api/rollouts", json=body)
                sent += 1
                await asyncio.sleep(5.0 if status == 202 else 1.0)

        await asyncio.gather(*(one() for _ in range(4)))
    return sent


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
    attack_kind: str = "none",
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
        attacking = asyncio.ensure_future(
            attack(attack_kind, url, load.end) if attack_kind != "none" else _none()
        )
        await asyncio.gather(*players)
        sent = await attacking
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
        "sent": sent,
    }


async def _none() -> int:
    return 0


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


def report(workers: int, kind: str, r: dict[str, Any]) -> None:
    """The two lines of a run."""
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
    parser.add_argument(
        "--attacks",
        default="none",
        help="each run again during each attack: " + ",".join(ATTACKS) + " (none)",
    )
    args = parser.parse_args()
    attacks = args.attacks.split(",")
    if any(a not in ATTACKS for a in attacks):
        parser.error(f"--attacks are among {','.join(ATTACKS)}")
    if "none" in attacks:
        attacks.remove("none")
    attacks.insert(0, "none")
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
                    unattacked = float("nan")
                    for attack_kind in attacks:
                        if kind == "sqlite":
                            database = str(Path(tmp) / f"load-{workers}-{attack_kind}.sqlite3")
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
                                    attack_kind,
                                )
                            )
                        finally:
                            proc.terminate()
                            proc.wait(30)
                        report(workers, kind, r)
                        if attack_kind == "none":
                            unattacked = r["act95"]
                        else:
                            print(
                                f"         attack {attack_kind}: {r['sent']} requests sent;"
                                f" action p95 {r['act95']:.1f} ms against {unattacked:.1f} ms"
                                f" unattacked: {r['act95'] / unattacked:.1f}x (aim: within 5x)",
                                flush=True,
                            )
    finally:
        if cluster is not None:
            cluster.stop()


if __name__ == "__main__":
    main()

"""A throwaway PostgreSQL cluster for the web tests: ``initdb`` in a temporary folder, then
``pg_ctl start`` on a free port (as the ``postgres`` user when the tests run as root, since
``initdb`` refuses root), and a fresh database for each test."""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest


def _bindir() -> Path:
    found = shutil.which("pg_ctl")
    if found:
        return Path(found).parent
    dirs = sorted(glob.glob("/usr/lib/postgresql/*/bin"))
    if not dirs:
        pytest.fail("PostgreSQL is not installed (Debian: apt-get install postgresql)")
    return Path(dirs[-1])


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Cluster:
    """A PostgreSQL server of our own, on 127.0.0.1:``port``, user ``postgres``, trust."""

    def __init__(self) -> None:
        self.bin = _bindir()
        self.root = Path(tempfile.mkdtemp(prefix="bg-pg-"))
        self.data, self.run = self.root / "data", self.root / "run"
        self.port = free_port()
        self._as: list[str] = []
        if os.geteuid() == 0:
            user = pwd.getpwnam("postgres")
            os.chown(self.root, user.pw_uid, user.pw_gid)
            self._as = ["runuser", "-u", "postgres", "--"]
        self._sh("mkdir", "-p", str(self.run))
        self._sh(str(self.bin / "initdb"), "-D", str(self.data), "-A", "trust", "-U", "postgres")
        self.start()

    def start(self) -> None:
        """Start the server (again, after :meth:`halt`), on the same port and data."""
        options = (
            f"-p {self.port} -k {self.run} -c listen_addresses=127.0.0.1 -c fsync=off "
            "-c max_connections=300"
        )
        log = str(self.root / "log")
        self._sh(
            str(self.bin / "pg_ctl"), "-D", str(self.data), "-l", log, "-o", options, "-w", "start"
        )

    def halt(self) -> None:
        """Stop the server, keeping its data: an outage."""
        self._sh(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop")

    def _sh(self, *cmd: str) -> None:
        subprocess.run([*self._as, *cmd], check=True, capture_output=True)

    def url(self, dbname: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{dbname}"

    def new_database(self) -> str:
        """A fresh empty database's URL."""
        import psycopg

        name = "t" + uuid.uuid4().hex[:12]
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}")
        return self.url(name)

    def stop(self) -> None:
        """Stop the server and remove its folder in a process of its own: a cluster that held
        a database a test is some hundreds of MB of small files, and removing them took up
        to a minute of a loaded CI machine at the end of a test worker."""
        self._sh(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop")
        subprocess.Popen(["rm", "-rf", str(self.root)], start_new_session=True)


@pytest.fixture(scope="session")
def postgres() -> Iterator[Cluster]:
    cluster = Cluster()
    yield cluster
    cluster.stop()

"""gnubg's external player: a TCP server that answers the FIBS board lines gnubg sends
(``set player 1 external localhost:PORT`` in gnubg) with a play in gnubg notation, or roll,
double, take, drop or beaver, as our bot decides.

gnubg writes each line NUL-terminated, from player 1's side, with names and scores in the
order player 0, player 1 unless a double is pending (formats.md §8); it decides
resignations itself and rolls for the external player when the cube is not available.
"""

from __future__ import annotations

import socket
import socketserver
import subprocess
import threading
from collections.abc import Callable

from backgammon.core.values import short_repr
from backgammon.ids.fibs import FIBS_UNLIMITED, InvalidBoardLineError, board_line_fields
from backgammon.play.match import Match
from backgammon.play.state import MatchError
from backgammon.players import Player
from backgammon.protocols.answer import answer_text, rules_for_line

__all__ = ["ExternalPlayer", "play_gnubg", "serve_external"]

_MAX_LINE = 4096


class ExternalPlayer:
    """Our bot answering gnubg's board lines.  ``jacoby`` and ``beavers`` are the money
    conventions gnubg is set to (a board line does not carry them)."""

    def __init__(self, player: Player, *, jacoby: bool = False, beavers: bool = False) -> None:
        self.player = player
        self.jacoby = jacoby
        self.beavers = beavers
        self._lock = threading.Lock()

    def match_of(self, line: str) -> Match:
        """The match a gnubg board line describes (InvalidBoardLineError if none)."""
        fields = board_line_fields(line)
        try:
            length = int(fields[2])
        except ValueError as exc:
            raise InvalidBoardLineError(f"board line match length {short_repr(fields[2])}") from exc
        rules = rules_for_line(
            None if length in (0, FIBS_UNLIMITED) else length,
            jacoby=self.jacoby,
            beavers=self.beavers,
        )
        return Match.from_board_line(line, rules=rules, gnubg=True)

    def answer(self, line: str) -> str:
        """The answer to one board line (``Error: ...`` for a line we cannot read, which
        gnubg shows and stops on)."""
        try:
            match = self.match_of(line)
        except (InvalidBoardLineError, MatchError, ValueError) as exc:
            return f"Error: {exc}"
        with self._lock:  # one evaluation at a time: the nets are shared
            return answer_text(self.player, match)


def serve_external(
    external: ExternalPlayer,
    port: int,
    host: str = "127.0.0.1",
    *,
    ready: Callable[[tuple[str, int]], None] | None = None,
) -> None:
    """Serve gnubg's external-player connections on ``host:port`` until interrupted
    (``port`` 0 picks a free one); ``ready`` gets the address once listening."""

    class Handler(socketserver.StreamRequestHandler):
        def handle(self) -> None:
            while True:
                raw = self.rfile.readline(_MAX_LINE)
                if not raw:
                    return
                line = raw.decode("utf-8", "replace").strip().strip("\x00").strip()
                if not line:
                    continue
                reply = external.answer(line)
                try:
                    self.wfile.write(reply.encode() + b"\n")
                except OSError:
                    return

    class Server(socketserver.ThreadingTCPServer):
        allow_reuse_address = True
        daemon_threads = True
        address_family = socket.AF_INET6 if ":" in host else socket.AF_INET

    with Server((host, port), Handler) as server:
        if ready is not None:
            address = server.server_address
            ready((str(address[0]), int(address[1])))
        server.serve_forever()


def play_gnubg(
    port: int,
    blocks: list[str],
    *,
    plies: int = 0,
    seed: int = 1,
    timeout: float = 600,
    gnubg: str = "/usr/games/gnubg",
) -> str:
    """Run gnubg without a terminal with its own bot at ``plies`` as player 0 and the
    external player on ``localhost:port`` as player 1 (money without Jacoby or beavers),
    then the commands ``blocks`` (``new match 7``, ``export match mat FILE``...); returns
    what gnubg printed."""
    commands = [
        "set display off",
        "set jacoby off",
        "set beavers 0",
        "set player 0 name gnubg",
        "set player 0 gnubg",
        f"set player 0 chequerplay evaluation plies {plies}",
        f"set player 0 cubedecision evaluation plies {plies}",
        "set player 1 name ours",
        f"set player 1 external localhost:{port}",
        f"set seed {seed}",
        *blocks,
        "quit",
        "y",
        "",
    ]
    run = subprocess.run(
        [gnubg, "-t", "-q"],
        input="\n".join(commands),
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    return run.stdout

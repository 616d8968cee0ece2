"""``backgammon verify``: a match played with --auditable dice is checked from its saved file
and the seed revealed after play."""

from __future__ import annotations

import io
import re
import subprocess
from pathlib import Path

from clihelp import Program, _data_home, play_through, run_cli  # noqa: F401 (a fixture)
from rich.console import Console

from backgammon.cli import PlayOptions, Reader, Session, UsageError, audit
from backgammon.play.dice import AuditableDice, dice_stream
from backgammon.play.match import Match
from backgammon.play.rules import Rules
from backgammon.players import get


def test_an_auditable_match_is_verified_from_its_file(tmp_path: Path) -> None:
    program = Program(
        "play", "--length", "3", "--auditable", "--bot", "random", "--out", "a.mat", cwd=tmp_path
    )
    out = play_through(program)
    assert program.finish() == 0
    commitment = re.search(r"SHA-256 of the secret seed\): ([0-9a-f]{64})", out)
    seed = re.search(r"Dice seed: ([0-9a-f]+)", out)
    assert commitment and seed and "The match is over" in out
    assert f"backgammon verify a.mat --seed {seed.group(1)}" in out
    ok = run_cli(
        "verify",
        "a.mat",
        "--seed",
        seed.group(1),
        "--commitment",
        commitment.group(1),
        cwd=tmp_path,
    )
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "verified: every throw comes from that seed" in ok.stdout
    other = "00" * 32
    bad = run_cli("verify", "a.mat", "--seed", other, cwd=tmp_path)
    assert bad.returncode == 1 and "NOT verified" in bad.stdout
    assert "does not match the commitment" in bad.stdout
    wrong = run_cli(
        "verify", "a.mat", "--seed", seed.group(1), "--commitment", "ab" * 32, cwd=tmp_path
    )
    assert wrong.returncode == 1 and "NOT verified" in wrong.stdout
    # The right seed with a wrong commitment: only the commitment is blamed, not the dice.
    assert "records the commitment" in wrong.stdout and "does not match" in wrong.stdout
    assert "seed gives" not in wrong.stdout and "do not all come" not in wrong.stdout
    # gnubg reads the file, comment and all, to the final score
    final = re.search(r"The match is over: .+ won, (\d+)-(\d+)\.", out)
    assert final is not None
    gnubg = subprocess.run(
        ["/usr/games/gnubg", "-t", "-q"],
        input=f"import mat {tmp_path / 'a.mat'}\nshow score\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert f": You {final.group(1)}, random {final.group(2)} (match to 3" in gnubg.stdout


def test_a_match_stopped_early_can_be_verified(tmp_path: Path) -> None:
    r = run_cli(
        "play",
        "--auditable",
        "--bot",
        "random",
        "--out",
        "s.mat",
        stdin="\n" * 3 + "quit\n",
        cwd=tmp_path,
    )
    assert r.returncode == 0, r.stderr
    seed = re.search(r"Dice seed: ([0-9a-f]+)", r.stdout)
    assert seed and "--load" not in r.stdout  # these dice cannot go on
    ok = run_cli("verify", "s.mat", "--seed", seed.group(1), cwd=tmp_path)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "the commitment the file records" in ok.stdout


def _tied_seed() -> bytes:
    """A seed whose first throw is a tie, so the opening is thrown again."""
    for n in range(1000):
        seed = n.to_bytes(16, "big")
        stream = dice_stream(seed)
        if next(stream) == next(stream):
            return seed
    raise AssertionError("no seed found")


def _play_auditable(tmp_path: Path, seed: bytes) -> Path:
    dice = AuditableDice(seed=seed)
    match = Match(rules=Rules.match(1), dice=dice)
    console = Console(file=io.StringIO(), width=80)
    options = PlayOptions(
        names=("Bot A", "Bot B"), humans=frozenset(), save_path=tmp_path / "t.mat"
    )
    bots = {0: get("random", seed=1), 1: get("random", seed=2)}
    session = Session(match, bots, console, Reader(console, io.StringIO()), options, dice)
    assert session.run() == 0
    return tmp_path / "t.mat"


def test_tied_opening_throws_are_recorded_and_checked(tmp_path: Path) -> None:
    seed = _tied_seed()
    path = _play_auditable(tmp_path, seed)
    commitment, throws = audit.recorded(
        "\n".join(line[1:] for line in path.read_text().splitlines() if line.startswith(";"))
    )
    assert throws is not None and throws[0][0] == throws[0][1]  # the tie is in the record
    assert commitment == AuditableDice(seed=seed).commitment
    assert audit.check(path, seed.hex()) == []
    assert audit.check(path, seed.hex(), commitment) == []
    assert audit.check(path, (b"x" * 16).hex())  # another seed fails


def test_a_changed_record_is_found(tmp_path: Path) -> None:
    seed = _tied_seed()
    path = _play_auditable(tmp_path, seed)
    text = path.read_text()
    thrown = re.search(r"Dice thrown: ((?:\d\d ?)+)", text)
    assert thrown
    throws = thrown.group(1).split()
    # the tie left out: the throws no longer line up with the seed's
    path.write_text(text.replace(thrown.group(0), "Dice thrown: " + " ".join(throws[1:]), 1))
    problems = audit.check(path, seed.hex())
    assert problems == ["the recorded throws are not the ones the seed gives"]
    # a later throw changed: neither the seed nor the games agree with the record
    changed = [*throws[:3], "11" if throws[3] != "11" else "22", *throws[4:]]
    path.write_text(text.replace(thrown.group(0), "Dice thrown: " + " ".join(changed), 1))
    problems = audit.check(path, seed.hex())
    assert problems[0] == "the recorded throws are not the ones the seed gives"
    assert "were not played with the recorded throws: throw 4 is" in problems[1]
    path.write_text(text.replace(thrown.group(0), "Dice thrown: 7", 1))
    try:
        audit.check(path, seed.hex())
    except UsageError as exc:
        assert "'7' is not two dice" in str(exc)
    else:
        raise AssertionError("a bad record was read")

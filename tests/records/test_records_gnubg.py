"""The real GNU Backgammon reads what we write (Debian's gnubg 1.07, ``gnubg -t -q``).

gnubg must import our .mat and SGF files without a complaint, and its own export of what
it imported must hold the same plays (compared by the positions reached, not by spacing
or the order steps are written in).  CI installs gnubg (.ci/run); these tests do not skip.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from records_helpers import (
    GNUBG,
    beavered_money_match,
    beavered_then_played,
    closed_out_game,
    complaints,
    play_signature,
    random_match,
    run_gnubg,
)
from reference import SAMPLES

from backgammon.play.match import Match, Phase
from backgammon.play.record import MatchRecord, Pass
from backgammon.records import mat, sgf
from backgammon.records.walk import walk
from backgammon.records.written import as_written


def test_gnubg_is_installed() -> None:
    assert Path(GNUBG).exists(), "install Debian's gnubg (apt-get install gnubg); CI does"


def test_harness_sees_gnubg_complaints(tmp_path: Path) -> None:
    # The check below must be able to fail: an illegal play makes gnubg warn.
    bad = (SAMPLES / "gnubg107_5pt_match.mat").read_text().replace("24/21 21/15", "24/20 21/15")
    (tmp_path / "bad.mat").write_text(bad)
    out = run_gnubg(["import mat bad.mat"], tmp_path)
    assert any("Invalid move" in line for line in complaints(out))


def gnubg_round_trip(tmp_path: Path, record: MatchRecord) -> list[tuple[MatchRecord, list[str]]]:
    """Write ``record`` both ways, let gnubg import each and save it as SGF; read those
    (each with what its reading found odd).

    gnubg's SGF writer names the player of every action; its .mat exporter instead
    alternates columns blindly, which misplaces everything after a turn passed without a
    roll (R13), so gnubg's own record is taken from its SGF.
    """
    (tmp_path / "ours.mat").write_text(mat.write_record(record))
    (tmp_path / "ours.sgf").write_text(sgf.write_record(record))
    out = run_gnubg(["import mat ours.mat", "save match from_mat.sgf"], tmp_path)
    assert complaints(out) == []
    out = run_gnubg(["load match ours.sgf", "save match from_sgf.sgf"], tmp_path)
    # gnubg 1.07 says "No game in progress." when it loads a resigned game, even from an
    # SGF file it saved itself: what it says about ours must be what it says about its own.
    own = run_gnubg(["load match from_sgf.sgf"], tmp_path)
    assert complaints(out) == complaints(own)
    out: list[tuple[MatchRecord, list[str]]] = []
    for name in ("from_mat.sgf", "from_sgf.sgf"):
        warnings: list[str] = []
        out.append((sgf.read_record((tmp_path / name).read_text(), warnings), warnings))
    return out


@pytest.mark.parametrize(("seed", "length"), [(11, 5), (12, 3), (13, 7), (14, 0), (157, 1)])
def test_gnubg_imports_random_matches(tmp_path: Path, seed: int, length: int) -> None:
    m = random_match(seed, length)
    record = as_written(m, ("alice", "bob"))
    for back, warnings in gnubg_round_trip(tmp_path, record):
        assert warnings == []
        assert back.players == ("alice", "bob")
        assert play_signature(back) == play_signature(record)
        assert walk(back).score == m.score


def test_gnubg_imports_a_closed_out_pass(tmp_path: Path) -> None:
    # R13: Match passes a closed-out turn without dice; the .mat half-row stays empty and
    # SGF has no node.  gnubg imports both and holds the same plays.
    m = walk(closed_out_game())
    record = as_written(m, ("a", "b"))
    assert any(isinstance(a, Pass) and a.dice is None for a in record.actions())
    for back, warnings in gnubg_round_trip(tmp_path, record):
        assert warnings == []
        assert play_signature(back) == play_signature(record)
    # gnubg's .mat export of it shifts columns after the pass; our reader notices.
    out = run_gnubg(["import mat ours.mat", "export match mat back.mat"], tmp_path)
    assert complaints(out) == []
    found: list[str] = []
    back = mat.read_record((tmp_path / "back.mat").read_text(), found)
    assert play_signature(back) == play_signature(record)
    # Its hit marks after the shift follow its own misreading; the reader corrects them.
    assert any("closed-out" in w for w in found)
    assert all("closed-out" in w or "hit marks" in w for w in found)


def test_gnubg_reads_our_sgf_of_its_match_back_to_its_own_bytes(tmp_path: Path) -> None:
    # gnubg keeps the written order of steps when loading SGF, so exporting the match it
    # loaded from our SGF gives back the .mat it originally wrote, byte for byte.
    original = (SAMPLES / "gnubg107_5pt_match.mat").read_text()
    (tmp_path / "ours.sgf").write_text(sgf.write_record(mat.read_record(original)))
    out = run_gnubg(["load match ours.sgf", "export match mat back.mat"], tmp_path)
    assert complaints(out) == []
    assert (tmp_path / "back.mat").read_text() == original


def test_gnubg_export_of_its_sample_has_the_same_plays(tmp_path: Path) -> None:
    # gnubg's import sorts the steps of each play (formats.md §4.3): other bytes, the same
    # plays, and our reader finds nothing odd in gnubg's export.
    original = (SAMPLES / "gnubg107_5pt_match.mat").read_text()
    (tmp_path / "in.mat").write_text(original)
    out = run_gnubg(["import mat in.mat", "export match mat out.mat"], tmp_path)
    assert complaints(out) == []
    exported = (tmp_path / "out.mat").read_text()
    assert exported != original
    found: list[str] = []
    ours = mat.read_record(exported, found)
    assert found == []
    assert play_signature(ours) == play_signature(mat.read_record(original))


def test_gnubg_money_session_with_beavers(tmp_path: Path) -> None:
    # R32: gnubg 1.07 exports beavers as "Beavers => v" with the take left blank; what we
    # write for a beavered and raccooned cube is exactly what gnubg exports after reading it.
    m = beavered_money_match()
    text = mat.write(m)
    (tmp_path / "ours.mat").write_text(text)
    out = run_gnubg(["import mat ours.mat", "export match mat back.mat"], tmp_path)
    assert complaints(out) == []
    back = (tmp_path / "back.mat").read_text()
    assert back.split("\n", 1)[1] == text.replace('; [Jacoby "On"]\n', "")
    assert play_signature(mat.read_record(back)) == play_signature(as_written(m))


def unfinished_match(stop: Phase) -> Match:
    """A 5-point match stopped mid-game: dice rolled, before the roll, or doubled."""
    rng = random.Random(3)
    m = Match(length=5)
    m.roll((5, 2))
    turns = 0
    while True:
        if m.phase is Phase.MOVE:
            if turns > 10 and stop is Phase.MOVE:
                return m
            m.move(rng.choice(m.legal_moves()))
            turns += 1
        elif turns > 10 and stop is Phase.ROLL:
            return m
        elif turns > 10 and stop is Phase.DOUBLED:
            m.double()
            return m
        else:
            m.roll((rng.randint(1, 6), rng.randint(1, 6)))


@pytest.mark.parametrize("stop", [Phase.MOVE, Phase.ROLL, Phase.DOUBLED])
def test_gnubg_resumes_an_unfinished_match_where_we_stopped(tmp_path: Path, stop: Phase) -> None:
    # After importing our file gnubg stands where our Match stands: same Position ID and
    # Match ID (dice, cube, turn, score), for .mat and for SGF.
    m = unfinished_match(stop)
    assert m.phase is stop
    (tmp_path / "u.mat").write_text(mat.write(m))
    (tmp_path / "u.sgf").write_text(sgf.write(m))
    for load in ("import mat u.mat", "load match u.sgf"):
        out = run_gnubg([load, "show board"], tmp_path)
        assert complaints(out) == []
        lines = out.splitlines()
        pos = [ln.split(":", 1)[1].strip() for ln in lines if "Position ID:" in ln][-1]
        mid = [ln.split(":", 1)[1].strip() for ln in lines if "Match ID   :" in ln][-1]
        assert f"{pos}:{mid}" == m.gnubg_id()
    for mod in (mat, sgf):
        warnings: list[str] = []
        back = mod.read(mod.write(m), warnings)
        assert warnings == [] and back.gnubg_id() == m.gnubg_id()


def gnubg_id_after(tmp_path: Path, load: str, settings: tuple[str, ...] = ()) -> str:
    """The Position ID:Match ID gnubg shows after ``load`` (its own complaints none)."""
    out = run_gnubg([*settings, load, "show board"], tmp_path)
    assert complaints(out) == []
    lines = out.splitlines()
    pos = [ln.split(":", 1)[1].strip() for ln in lines if "Position ID:" in ln][-1]
    mid = [ln.split(":", 1)[1].strip() for ln in lines if "Match ID   :" in ln][-1]
    return f"{pos}:{mid}"


def test_gnubg_imports_the_take_of_a_beaver_where_we_stand(tmp_path: Path) -> None:
    # Double, beaver, take, then the doubler plays: we wrote the take as an empty
    # half-row, which moved the doubler's roll into the other column, and gnubg imported
    # our file to another position.  gnubg writes no line for that take.
    m = beavered_then_played()
    (tmp_path / "b.mat").write_text(mat.write(m))
    (tmp_path / "b.sgf").write_text(sgf.write(m))
    money = ("set jacoby off", "set beavers 1")
    assert gnubg_id_after(tmp_path, "import mat b.mat", money) == m.gnubg_id()
    assert gnubg_id_after(tmp_path, "load match b.sgf", money) == m.gnubg_id()
    # And gnubg's own export of it is ours, byte for byte but the date.
    out = run_gnubg([*money, "import mat b.mat", "export match mat back.mat"], tmp_path)
    assert complaints(out) == []
    assert (tmp_path / "back.mat").read_text().split("\n", 1)[1] == mat.write(m)


def test_gnubg_reads_its_resignation_after_a_forced_roll_as_we_do(tmp_path: Path) -> None:
    # tests/data/samples/gnubg107_resign_after_forced_roll.*: gnubg wrote them (the
    # .commands file); gnubg imports the .mat to the final state we read from it.
    name = "gnubg107_resign_after_forced_roll"
    m = mat.read((SAMPLES / f"{name}.mat").read_text())
    (tmp_path / "f.mat").write_text((SAMPLES / f"{name}.mat").read_text())
    out = run_gnubg(["import mat f.mat", "show score"], tmp_path)
    assert complaints(out) == []
    assert "gnubg 1, root 0 (match to 1 point" in out and m.score == (1, 0)
    # Our own files of that match say the same to gnubg.
    (tmp_path / "ours.mat").write_text(mat.write(m, ("gnubg", "root")))
    out = run_gnubg(["import mat ours.mat", "show score"], tmp_path)
    assert complaints(out) == [] and "gnubg 1, root 0 (match to 1 point" in out

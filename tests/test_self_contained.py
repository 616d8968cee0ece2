"""The repository stands alone: nothing in it reads or names files outside it.

1. No tracked file names a path that leads out of the repository: a relative path climbing
   above the repository's root, the development machine's folders, or the reference folder
   the project was once developed beside.
2. A fresh ``git clone`` of the committed HEAD, in an empty temporary folder with nothing
   beside it, runs the tests that read ``tests/data`` and they pass.  (It clones HEAD, so it
   checks what is committed, not uncommitted edits.)
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Written in pieces so that this file does not name them itself.
_UP = ".." + "/"
FORBIDDEN = (
    _UP + "shared",
    "shared" + "/reference",
    "shared" + "/RULES",
    "shared" + "/seeds",
    "RULES" + ".md",
    "/work" + "/",
    "/home" + "/",
    "/Users" + "/",
    "/root" + "/",
)
# A relative path starting with "../" (not the end of an ellipsis such as ".../actions").
RELATIVE_UP = re.compile(r"(?<![\w.])((?:\.\./)+[\w.\-/]*)")

# The test modules that read tests/data (through tests/reference.py).
DATA_TESTS = (
    "tests/core/test_board.py",
    "tests/ids/test_ids.py",
    "tests/core/test_notation.py",
    "tests/records/test_mat.py",
    "tests/records/test_sgf.py",
)


def git(*args: str, cwd: Path = ROOT) -> str:
    result = subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=True, timeout=120
    )
    return result.stdout


def tracked_texts() -> list[tuple[str, str]]:
    """(path, text) of every tracked text file (binary files are read as Latin-1)."""
    out = []
    for name in git("ls-files", "-z").split("\0"):
        path = ROOT / name
        if not name or not path.is_file():
            continue  # deleted in the work tree: it cannot name anything
        data = path.read_bytes()
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            text = data.decode("latin-1")
        out.append((name, text))
    return out


def test_no_tracked_file_names_a_path_outside_the_repository() -> None:
    files = tracked_texts()
    assert any(name == "tests/data/vectors.json" for name, _ in files)
    found = []
    for name, text in files:
        for word in FORBIDDEN:
            if word in text:
                line = text.count("\n", 0, text.index(word)) + 1
                found.append(f"{name}:{line}: {word!r}")
        for m in RELATIVE_UP.finditer(text):
            target = ((ROOT / name).parent / m.group(1)).resolve()
            if not target.is_relative_to(ROOT):
                line = text.count("\n", 0, m.start()) + 1
                found.append(f"{name}:{line}: {m.group(1)!r} leaves the repository")
    assert found == []


def test_a_fresh_clone_passes_the_tests_that_read_its_data(tmp_path: Path) -> None:
    clone = tmp_path / "backgammon"
    git("clone", "--quiet", str(ROOT), str(clone), cwd=tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["backgammon"]  # nothing beside it
    assert (clone / "tests" / "data" / "samples").is_dir()
    env = {**os.environ, "PYTHONPATH": str(clone)}
    env.pop("PYTEST_ADDOPTS", None)
    where = subprocess.run(
        [sys.executable, "-c", "import backgammon; print(backgammon.__file__)"],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert Path(where.stdout.strip()).resolve().is_relative_to(clone.resolve())
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs", *DATA_TESTS],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    report = run.stdout + run.stderr
    assert run.returncode == 0, report
    assert "SKIPPED" not in report, report

"""The reference site builds with warnings as errors and holds every page and every module;
the wheel carries py.typed (the package's types reach its users)."""

from __future__ import annotations

import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = (
    "guide",
    "rules",
    "formats",
    "design",
    "environments",
    "engines",
    "performance",
    "strength",
)


def _modules() -> set[str]:
    out = set()
    for path in (ROOT / "backgammon").rglob("*.py"):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__main__" or "versions" in parts or parts[-2:] == ["migrations", "env"]:
            continue  # Alembic's scripts (env.py, versions/) are run by Alembic, not imported
        if parts[-1] == "__init__":
            parts.pop()
        out.add(".".join(parts))
    return out


def test_every_module_has_an_api_page() -> None:
    documented = set()
    for page in (DOCS / "api").glob("*.rst"):
        documented |= set(re.findall(r"^\.\. automodule:: (\S+)$", page.read_text(), re.M))
    assert documented == _modules()


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    command = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html"]
    build = subprocess.run(
        [*command, "-d", str(out / "doctrees"), str(DOCS), str(out / "html")],
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert build.returncode == 0, build.stderr[-5000:]
    return out / "html"


def test_the_site_holds_the_user_pages(site: Path) -> None:
    index = (site / "index.html").read_text("utf-8")
    assert "Backgammon done right" in index  # the README is the front page
    for page in (*PAGES, "training", "changelog"):
        assert (site / f"{page}.html").is_file(), page
    assert "R13" in (site / "rules.html").read_text("utf-8")
    assert "Keep a Changelog" in (site / "changelog.html").read_text("utf-8")


def test_the_api_pages_describe_the_modules(site: Path) -> None:
    core = (site / "api" / "core.html").read_text("utf-8")
    assert 'id="backgammon.core.position.Position"' in core
    assert 'id="backgammon.core.position.Position.legal_moves"' in core
    assert 'id="backgammon.core.movegen.generate"' in core
    env = (site / "api" / "env.html").read_text("utf-8")
    for name in ("raw_env", "BackgammonEnv", "Table", "play_actions"):
        assert re.search(rf'id="backgammon\.env\.\w+\.{name}"', env), name
    play = (site / "api" / "play.html").read_text("utf-8")
    assert 'id="backgammon.play.match.Match"' in play
    # A name a package re-exports is described once, where it is defined.
    assert 'id="backgammon.core.Position"' not in core


def test_the_wheel_carries_py_typed(tmp_path: Path) -> None:
    build = subprocess.run(
        [sys.executable, "-m", "hatchling", "build", "-t", "wheel", "-d", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert build.returncode == 0, build.stderr
    (wheel,) = tmp_path.glob("*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "backgammon/py.typed" in names
    assert "backgammon/env/table.py" in names
    assert "backgammon/evaluation/data/weights.npz" in names

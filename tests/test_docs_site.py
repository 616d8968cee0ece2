"""The reference site builds with warnings as errors and holds every page and every module,
a quick start and a page a topic whose examples run, and signatures that name defaults; the
wheel carries py.typed (the package's types reach its users)."""

from __future__ import annotations

import doctest
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
# The quick start and one page a topic, as python-chess's site has, each with examples.
TOPICS = ("core", "records", "bots", "engines", "web", "environments")
EXAMPLES = ("quickstart", *(f"topics/{t}" for t in TOPICS))


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
    for page in (*PAGES, *EXAMPLES, "training", "changelog"):
        assert (site / f"{page}.html").is_file(), page
    for topic in TOPICS:  # the quick start leads to every topic, by a link that works
        assert f'href="topics/{topic}.html"' in (site / "quickstart.html").read_text("utf-8")
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


@pytest.mark.parametrize("page", EXAMPLES)
def test_the_quick_start_and_topic_examples_run(page: str) -> None:
    """Each page's ``>>>`` examples run as written and print what the page says."""
    result = doctest.testfile(str(DOCS / f"{page}.md"), module_relative=False)
    assert result.attempted >= 5, page
    assert result.failed == 0, page


def test_signatures_name_a_default_instead_of_printing_it(site: Path) -> None:
    """``met=KAZAROSS_XG2`` shows the table's name (its value is 77,671 characters, which
    made api/players.html 2.1 MB) and numpy's ArrayLike is named, not spelt out."""
    cube = (site / "api" / "evaluation.html").read_text("utf-8")
    to_emg = cube[cube.index('id="backgammon.evaluation.cube.to_emg"') :]
    signature = to_emg[: to_emg.index("</dt>")]
    assert re.search(r"met</span>.*?KAZAROSS_XG2</span>", signature, re.S), signature
    assert "ArrayLike" in signature and "_SupportsArray" not in cube
    assert "0.67736" not in cube  # no entry of the table itself
    for page in site.rglob("*.html"):
        assert page.stat().st_size < 600_000, page.name


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

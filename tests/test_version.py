"""The package's version is written in one place: ``__version__`` in backgammon/_version.py."""

import importlib.metadata
import tomllib
from pathlib import Path

import backgammon
from backgammon.records import sgf
from backgammon.web import create_app

ROOT = Path(__file__).resolve().parent.parent


def test_installed_metadata_is_the_package_version() -> None:
    assert importlib.metadata.version("backgammon") == backgammon.__version__


def test_pyproject_takes_the_version_from_the_package() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in pyproject["project"]
    assert "version" in pyproject["project"]["dynamic"]
    assert pyproject["tool"]["hatch"]["version"]["path"] == "backgammon/_version.py"


def test_other_places_that_name_the_version_use_it(tmp_path: Path) -> None:
    # The SGF files we write name us as their application (gnubg's own files say
    # "GNU Backgammon:1.07.001"); the web API reports it in its OpenAPI document.
    assert f"backgammon:{backgammon.__version__}" == sgf.DEFAULT_APPLICATION
    assert create_app(str(tmp_path / "db.sqlite3")).version == backgammon.__version__

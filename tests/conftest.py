import atexit
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from backgammon.evaluation.bearoff2 import TwoSidedDatabase, cache_path

if "BACKGAMMON_CACHE" not in os.environ:
    # The tests build what the package caches (the two-sided bear-off database) once per
    # session, in a folder of their own: never in the user's cache.
    _CACHE = tempfile.mkdtemp(prefix="backgammon-test-cache-")
    atexit.register(shutil.rmtree, _CACHE, ignore_errors=True)
    os.environ["BACKGAMMON_CACHE"] = _CACHE


@pytest.fixture(scope="session")
def two_sided() -> TwoSidedDatabase:
    """The two-sided bear-off database as players read it: built into the session's cache
    folder (about 10 s of CPU) unless a test has had it built already, then read back."""
    TwoSidedDatabase.load(progress=False)
    assert cache_path().exists()
    return TwoSidedDatabase.load(cache_path(), progress=False)


def _longest_files_first(items: list[pytest.Item]) -> None:
    """Test files longest first by tests/data/durations.json (tests/durations.py makes it
    from a CI run; a file not in it yet comes after those in it), each file's tests in their
    order: CI's workers take whole files in this order (.ci/run), so the long ones start at
    once, the short ones fill the end, and both workers finish together."""
    path = Path(__file__).parent / "data" / "durations.json"
    seconds: dict[str, float] = json.loads(path.read_text()) if path.exists() else {}
    items.sort(key=lambda item: -seconds.get(item.nodeid.split("::")[0], 0.0))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests that drive a real browser (the ``browser`` fixture: chromium by Playwright) are
    marked ``browser``; those on a PostgreSQL cluster of their own (``postgres``) are
    marked ``database`` (also a test's PostgreSQL case when a fixture's parameter picks the
    store): ``-m "not browser and not database"`` leaves them out.  On xdist's workers the
    files come longest first."""
    for item in items:
        names = getattr(item, "fixturenames", ())
        if "browser" in names:
            item.add_marker(pytest.mark.browser)
        callspec = getattr(item, "callspec", None)
        params = callspec.params.values() if callspec is not None else ()
        # (compared one by one: a parameter may be an array, which `in` cannot compare)
        on_postgres = any(isinstance(v, str) and v == "postgresql" for v in params)
        if "postgres" in names or on_postgres:  # a store parametrized over both databases
            item.add_marker(pytest.mark.database)
    if hasattr(config, "workerinput"):  # an xdist worker: every worker sorts alike
        _longest_files_first(items)

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from backgammon.players.bearoff2 import TwoSidedDatabase


@pytest.fixture(scope="session")
def two_sided(tmp_path_factory: pytest.TempPathFactory) -> TwoSidedDatabase:
    """The two-sided bear-off database, built once per test session (about half a minute)
    into a temporary cache folder and read back from its file, as a user's would be."""
    path = tmp_path_factory.mktemp("cache") / "bearoff2.npz"
    TwoSidedDatabase.load(path, progress=False)
    return TwoSidedDatabase.load(path, progress=False)

"""The README's examples run as written."""

import doctest
from pathlib import Path


def test_readme_examples() -> None:
    result = doctest.testfile(
        str(Path(__file__).parent.parent / "README.md"), module_relative=False
    )
    assert result.attempted > 0
    assert result.failed == 0


def test_package_docstring_examples() -> None:
    import backgammon

    result = doctest.testmod(backgammon)
    assert result.attempted >= 3
    assert result.failed == 0

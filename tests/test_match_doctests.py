"""The examples in the match-play modules' docstrings run as written."""

import doctest

import pytest

from backgammon import dice, fibsboard, ids, match, matchids, matchstate, record, rules


@pytest.mark.parametrize(
    "module",
    [dice, fibsboard, ids, match, matchids, matchstate, record, rules],
    ids=lambda m: m.__name__,
)
def test_docstring_examples(module: object) -> None:
    result = doctest.testmod(module)  # type: ignore[arg-type]
    assert result.attempted > 0
    assert result.failed == 0

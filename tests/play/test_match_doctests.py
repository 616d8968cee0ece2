"""The examples in the lower layers' docstrings run as written."""

import doctest

import pytest

from backgammon import core, ids, play
from backgammon.core import movegen, position, turn
from backgammon.ids import fibs, gnubg, xgid
from backgammon.play import dice, match, record, rules, state
from backgammon.play import ids as play_ids


@pytest.mark.parametrize(
    "module",
    [
        core,
        position,
        movegen,
        turn,
        ids,
        gnubg,
        xgid,
        fibs,
        play,
        dice,
        match,
        play_ids,
        state,
        record,
        rules,
    ],
    ids=lambda m: m.__name__,
)
def test_docstring_examples(module: object) -> None:
    result = doctest.testmod(module)  # type: ignore[arg-type]
    assert result.attempted > 0
    assert result.failed == 0

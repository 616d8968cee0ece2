"""gnubg's verdicts as the review's second column: each of our judged plays gets gnubg's
(``engine``: its error, best play, mark and the roll's luck), cube decisions gnubg's mark,
the analysis gnubg's totals per player, and the plays where the two judges disagree most
are marked (``disagree``).  The verdicts come from gnubg's own analysis, as its SGF holds
them (:func:`~backgammon.records.gnubg_analysis.read_gnubg_analysis`): nothing recomputed."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from backgammon.records.errors import MatchFileError
from backgammon.records.gnubg_analysis import (
    GnubgAnalysis,
    GnubgCube,
    GnubgMove,
    read_gnubg_analysis,
)

__all__ = ["DISAGREE", "MOST", "engine_column", "file_analysis"]

T = TypeVar("T")

DISAGREE = 0.02
"""EMG between the two judges' errors on a play past which they are said to disagree."""

MOST = 5
"""How many disagreements are marked at most (the largest)."""


def file_analysis(text: str) -> GnubgAnalysis | None:
    """gnubg's analysis carried by a match file's ``text`` (an SGF gnubg analysed), or
    None when it carries none."""
    if not text.lstrip().startswith("(;") or "A[" not in text:
        return None
    try:
        found = read_gnubg_analysis(text)
    except (MatchFileError, ValueError, IndexError):
        return None
    return found if any(g.moves for g in found.games) else None


def _sorted(dice: Any) -> tuple[int, ...]:
    return tuple(sorted(dice or (), reverse=True))


def _move_key(m: GnubgMove) -> tuple[Any, ...]:
    return (m.game, m.player, _sorted(m.dice))


def _cube_key(c: GnubgCube) -> tuple[Any, ...]:
    return (c.game, c.player, c.action)


def _take(
    found: Iterator[T], want: tuple[Any, ...], key: Callable[[T], tuple[Any, ...]]
) -> T | None:
    """The next of ``found`` whose ``key`` is ``want`` (those before it have no counterpart
    among our decisions: gnubg judges forced plays and rolls after no double too)."""
    return next((x for x in found if key(x) == want), None)


def engine_column(
    analysis: dict[str, Any],
    gnubg: GnubgAnalysis,
    label: str,
    rates: tuple[float, float] | None = None,
) -> None:
    """Add gnubg's verdicts to ``analysis`` (our analysis's JSON, of the same match):
    ``engine`` on the analysis (``label``, gnubg's error rates per player when known,
    checker error rates and luck) and on each decision it judged; ``disagree`` on the
    :data:`MOST` plays where the errors differ most, by :data:`DISAGREE` EMG or more."""
    moves: Iterator[GnubgMove] = (m for g in gnubg.games for m in g.moves)
    cubes: Iterator[GnubgCube] = (c for g in gnubg.games for c in g.cubes if c.action != "roll")
    gaps: list[tuple[float, int]] = []
    for i, d in enumerate(analysis["decisions"]):
        key = (d["game"], d["player"])
        if d["kind"] == "checker":
            dice = _sorted(d.get("dice"))
            m = _take(moves, (*key, dice), _move_key)
            if m is None:
                break
            d["engine"] = {
                "error_emg": m.error,
                "best": str(m.candidates[0]),
                "mark": m.mark,
                **({"luck_emg": m.luck} if m.luck is not None else {}),
            }
            gaps.append((abs(m.error - float(d["error_emg"])), i))
        elif d["played"] in ("Double", "Take", "Pass"):
            action = {"Double": "double", "Take": "take", "Pass": "drop"}[d["played"]]
            c = _take(cubes, (*key, action), _cube_key)
            if c is not None:
                d["engine"] = {"mark": c.mark}
    for gap, i in sorted(gaps, reverse=True)[:MOST]:
        if gap >= DISAGREE:
            analysis["decisions"][i]["disagree"] = gap
    players = [
        {
            "checker_rate_memg": gnubg.checker_rate(p) if gnubg.analysed else None,
            "luck_emg": (
                sum(g.stats.luck[p][0] for g in gnubg.games if g.stats is not None)
                if gnubg.analysed
                else None
            ),
            **({"rate_memg": rates[p]} if rates is not None else {}),
        }
        for p in (0, 1)
    ]
    analysis["engine"] = {"name": label, "players": players}

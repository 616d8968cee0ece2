"""What the terminal reads from a :class:`~backgammon.play.match.Match` beyond its minimum API,
in one place."""

from __future__ import annotations

from backgammon.core.position import Position
from backgammon.core.values import Move
from backgammon.play.match import Act, ActionKind, Match


def _act(who: str, verb: str) -> str:
    """``You take`` but ``Bot takes``."""
    if who == "You":
        return f"You {verb}"
    return f"{who} {verb}es" if verb.endswith("s") else f"{who} {verb}s"


def _phase(m: Match) -> str:
    """What must happen now: opening, roll, move, doubled (answer it), resigned, over."""
    return str(m.phase.value)


def _actor(m: Match) -> int:
    """The player who must act now (player 0 before an opening roll)."""
    return m.turn if m.turn is not None else 0


def _on_roll(m: Match) -> int | None:
    """The player who holds (or will throw) the dice, None before the opening roll."""
    return m.on_roll


def _position_for(m: Match, player: int) -> Position:
    """The board seen from ``player``'s side."""
    holder = m.on_roll if m.on_roll is not None else 0
    return m.position if holder == player else m.position.flip()


def _dice(m: Match) -> tuple[int, int] | None:
    """The dice to play, larger first (as gnubg shows them)."""
    if m.dice is None:
        return None
    return (max(m.dice), min(m.dice))


def _score(m: Match) -> tuple[int, int]:
    return m.score


def _length(m: Match) -> int:
    return m.rules.match_length or 0


def _play(m: Match, move: Move) -> None:
    m.apply(Act(ActionKind.MOVE, move))


def _resignation_text(m: Match) -> str:
    level = m.resignation
    name = level.name.lower() if level is not None else "single"
    return f"the opponent offers to resign a {name} game"

"""What the environments show people: the board as text and the end of an episode as info."""

from __future__ import annotations

from collections.abc import Sequence

import gymnasium
import numpy as np

from backgammon.env.observation import n_observation, upper_bounds
from backgammon.env.row import RowTable
from backgammon.env.table import N_ACTIONS, EnvOptionError, Table

__all__ = ["end_info", "observation_space", "render_text"]


def observation_space(observation: str) -> gymnasium.spaces.Dict:
    """What every environment shows one agent: the ``observation`` array of that kind
    (``float32``) and the ``action_mask`` (``int8``, one entry an action)."""
    return gymnasium.spaces.Dict(
        {
            "observation": gymnasium.spaces.Box(
                0.0,
                upper_bounds(observation),
                shape=(n_observation(observation),),
                dtype=np.float32,
            ),
            "action_mask": gymnasium.spaces.Box(0, 1, shape=(N_ACTIONS,), dtype=np.int8),
        }
    )


def end_info(table: Table | RowTable) -> dict[str, object]:
    """How the last game ended: winner (player 0 or 1), points, result (single, gammon,
    backgammon), reason (played, dropped) and, in a match, the final score."""
    end = table.last_end
    if end is None:
        return {}
    info: dict[str, object] = {
        "winner": end.winner,
        "points": end.points,
        "result": end.result.name.lower(),
        "reason": str(end.reason.value),
    }
    if table.rules.match_length is not None:
        info["score"] = table.score
    return info


def render_text(table: Table | RowTable, names: Sequence[str]) -> str:
    """The board (X is the player it is seen from) with the dice, the cube and the score."""
    seen_from = table.view_player
    lines = [str(table.position), f" X is {names[seen_from]}, O is {names[1 - seen_from]}"]
    to_act = table.to_act
    dice = table.dice_left()
    parts = [f"{names[to_act]} to act" if to_act is not None else "over"]
    if dice:
        parts.append("dice " + "-".join(str(d) for d in dice))
    if table.rules.cube_enabled:
        owner = table.cube_owner
        held = f" ({names[owner]})" if owner is not None else ""
        parts.append(f"cube {table.cube_value}{held}")
    if table.rules.match_length is not None:
        a, b = table.score
        parts.append(f"score {a}-{b} of {table.rules.match_length}")
    lines.append(" " + ", ".join(parts))
    return "\n".join(lines)


def render(table: Table | RowTable, names: Sequence[str], mode: str | None) -> str | None:
    """Both environments' ``render()``: the board as text, returned for ``ansi``, printed
    for ``human``; a warning and None without a render mode."""
    if mode is None:
        gymnasium.logger.warn("render() was called without a render_mode")
        return None
    text = render_text(table, names)
    if mode == "ansi":
        return text
    print(text)
    return None


def checked_render_mode(mode: str | None) -> str | None:
    """``mode`` if both environments can render in it ('human', 'ansi' or None)."""
    if mode is not None and mode not in RENDER_MODES:
        raise EnvOptionError(f"render_mode is 'human', 'ansi' or None, not {mode!r}")
    return mode


RENDER_MODES = ("human", "ansi")
"""What ``render_mode`` may be, besides None."""

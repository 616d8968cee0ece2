"""Environments for learning agents: PettingZoo for two agents, Gymnasium against a bot,
and many games stepped together as arrays (:mod:`backgammon.env.batch`).

Install with ``pip install 'backgammon[rl]'`` (PettingZoo and Gymnasium).  Then::

    from backgammon.env import env
    e = env()                       # PettingZoo AEC, agents player_0 and player_1
    e.reset(seed=7)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        action = None if terminated else e.action_space(agent).sample(obs["action_mask"])
        e.step(action)

    import gymnasium, backgammon.env
    g = gymnasium.make("backgammon/Backgammon-v0", opponent="neural")
    v = gymnasium.make_vec("backgammon/Backgammon-v0", num_envs=1024,
                           vectorization_mode="vector_entry_point", opponent="random")

    from backgammon.env.batch import BatchEnv   # the arrays, self-play or against a bot
    obs, masks = BatchEnv().reset(1024, seed=1)

Every rule is the package's own: the :class:`~backgammon.env.table.Table` drives a
:class:`~backgammon.play.match.Match` (the legal plays from
:meth:`~backgammon.core.position.Position.legal_moves`, the cube and scores from
:mod:`backgammon.play`); the batched environment is compiled and held to it game by game by
its tests, and the single-game environments run on one row of it
(:class:`~backgammon.env.row.RowTable`), or on a table after a ``gnubg_id`` start or
against a bot the compiled code does not play.  Rolls, a roll with no legal play, and the
roll when no double is possible happen by themselves; an agent acts only when it has a
choice.

**Actions** (:data:`~backgammon.env.table.N_ACTIONS` = 680).  A checker action is
``26 * a + b`` with ``a`` and ``b`` source points from the mover's side (1-24, 25 the bar,
0 no step):

- a roll of two numbers is one action: ``a`` is where the larger die moves a checker from,
  ``b`` where the smaller one does (``0`` for a die the rules leave unplayed, R9).  The order
  of the two steps does not matter (the rules find it); 13/7/2 is ``26 * 13 + 7``;
- a double is one action of its two highest sources (``a >= b``) when it plays one or two
  steps, and two actions of two sources each when it plays three or four: the two highest
  first, then the other two (the observation between them shows the board after the first
  two steps and two dice left).

The engine lists one play per resulting position, and the sources of a play fix its result,
so the masked-in actions and the legal plays correspond one to one (two per double of 3-4
steps).  Then ``676`` roll (no double), ``677`` double, ``678`` take, ``679`` pass; these
are asked only with the cube in play, when the player to act may double or must answer.
:func:`~backgammon.env.table.play_actions` gives a play's actions, and the ``plays`` of
:class:`~backgammon.env.table.Table` every legal play by its actions, for agents that choose
among resulting positions.

**Observations** are a dict: ``observation`` (``float32``, from the observing agent's side,
laid out as :mod:`backgammon.env.observation` says: Tesauro's 198 inputs by default, or this
package's network inputs, then the dice, the cube and the score) and ``action_mask``
(``int8``, all 0 for the agent not to act).

**Rewards** are points: when a game ends its winner gets the points the rules give (1 single,
2 gammon, 3 backgammon, times the cube; a passed double the cube's value before it) and the
loser minus as many.  Money play is one game per episode; with ``match_length`` an episode
is the match and each game's points come as it ends, so an agent's return is its score less
the opponent's and positive exactly when it wins the match.

**Illegal actions.** An integer the mask does not allow ends the episode at once: its agent
gets ``illegal_reward`` (default: -3 times the cube, as much as losing a backgammon), the
other 0, and the info says ``illegal_action``.  Anything but an integer raises
:class:`~backgammon.env.table.InvalidActionError` (a ``ValueError``).

**Options** (both environments): ``cube`` (False; True: the doubling cube up to 64),
``match_length`` (None: money; N: a match to N with the Crawford rule), ``observation``
(``"tesauro"`` or ``"net"``), ``illegal_reward`` (one frozen
:class:`~backgammon.env.table.TableOptions` checks them), ``render_mode`` (``"ansi"``,
``"human"``).
``reset(seed=...)`` makes the dice (and the random bot) reproducible; ``reset(options=
{"gnubg_id": "PositionID:MatchID"})`` starts from a position.  Beavers and resignations
are not offered.
"""

from __future__ import annotations

try:
    import gymnasium
    import pettingzoo  # noqa: F401 (checked here so the message below names both)
except ImportError as exc:  # pragma: no cover (the rl extra is part of the test extra)
    raise ImportError(
        "backgammon.env needs PettingZoo and Gymnasium: pip install 'backgammon[rl]'"
    ) from exc

from backgammon.env.aec import env, raw_env
from backgammon.env.single import BackgammonEnv
from backgammon.env.table import (
    DOUBLE,
    DROP,
    N_ACTIONS,
    ROLL,
    TAKE,
    EnvOptionError,
    InvalidActionError,
    Table,
    TableKeywords,
    TableOptions,
    play_actions,
)

__all__ = [
    "DOUBLE",
    "DROP",
    "ENV_ID",
    "N_ACTIONS",
    "ROLL",
    "TAKE",
    "BackgammonEnv",
    "EnvOptionError",
    "InvalidActionError",
    "Table",
    "TableKeywords",
    "TableOptions",
    "env",
    "play_actions",
    "raw_env",
]

ENV_ID = "backgammon/Backgammon-v0"
"""The Gymnasium id of :class:`BackgammonEnv`."""

if ENV_ID not in gymnasium.registry:
    gymnasium.register(
        id=ENV_ID,
        entry_point="backgammon.env.single:BackgammonEnv",
        vector_entry_point="backgammon.env.vector:BackgammonVectorEnv",
    )

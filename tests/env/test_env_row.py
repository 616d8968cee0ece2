"""The one-row kernel table (backgammon.env.row) against the rules: each game it plays is
replayed through a :class:`~backgammon.env.table.Table` with the same dice and actions, and
must show the same masks, observations from both sides, boards, rewards and ends at every
step, the episode's end included."""

from __future__ import annotations

import random
from collections import deque

import numpy as np
import pytest

import backgammon.env as bgenv
from backgammon.env.row import RowTable
from backgammon.env.single import BackgammonEnv
from backgammon.env.table import N_ACTIONS, InvalidActionError, Table
from backgammon.play.dice import check_dice
from backgammon.players import get


class Fed:
    """Dice handed out as the kernel logged them."""

    def __init__(self) -> None:
        self.throws: deque[tuple[int, int]] = deque()

    def roll(self) -> tuple[int, int]:
        return check_dice(self.throws.popleft())


def _log(row: RowTable, fed: Fed) -> None:
    g = row.batch.games
    fed.throws.extend(tuple(int(d) for d in t) for t in g.throws[0, : g.n_throws[0]])


def _same(row: RowTable, table: Table) -> None:
    assert row.done == table.done and row.to_act == table.to_act
    assert row.legal_actions() == table.legal_actions()
    assert np.array_equal(row.action_mask(), table.action_mask())
    for player in (0, 1):
        np.testing.assert_array_equal(row.observe(player), table.observe(player))
    assert row.position == table.position and row.view_player == table.view_player
    assert row.dice_left() == table.dice_left()
    assert row.plays == table.plays
    state = table.match.state
    assert (row.cube_value, row.cube_owner) == (state.cube_value, state.cube_owner)
    assert row.score == state.score
    assert row.last_end == table.last_end


def _replay(options: dict, seed: int, *, illegal: float = 0.0, bot: str | None = None) -> int:
    """Episodes of random masked actions (now and then one the mask refuses, with chance
    ``illegal``) in both; gives the steps made."""
    rng = random.Random(seed)
    row = RowTable(**options, opponent=bot)
    table = Table(**options)
    player = get(bot) if bot else None
    steps = 0
    for episode in range(12):
        fed = Fed()
        row.reset(seed + episode)
        _log(row, fed)
        table.reset(0, dice=fed)
        while table.to_act == 1 and player is not None:
            table.play_bot(player)
        _same(row, table)
        while not row.done:
            if rng.random() < illegal:
                action = rng.choice([N_ACTIONS, *np.flatnonzero(row.action_mask() == 0)[:3]])
            else:
                action = rng.choice(row.legal_actions())
            got = row.step(action)
            _log(row, fed)
            want = table.step(action)
            rewards = list(want.rewards)
            while table.to_act == 1 and player is not None:
                r = table.play_bot(player).rewards
                rewards = [rewards[0] + r[0], rewards[1] + r[1]]
            assert got == type(want)((rewards[0], rewards[1]), table.done, want.illegal)
            assert not fed.throws, "the kernel threw dice the rules did not use"
            _same(row, table)
            steps += 1
    return steps


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"cube": True},
        {"cube": True, "match_length": 5},
        {"match_length": 3},
        {"observation": "net"},
    ],
    ids=["money", "cube", "match-cube", "match", "net"],
)
def test_every_game_replays_through_the_table(options: dict) -> None:
    assert _replay(options, seed=7) > 80


def test_illegal_actions_end_the_episode_as_the_tables_do() -> None:
    assert _replay({"cube": True}, seed=3, illegal=0.05) > 10


def test_pubeval_plays_as_the_table_plays_it() -> None:
    assert _replay({}, seed=5, bot="pubeval") > 50


def test_a_step_after_the_end_or_not_an_integer_is_refused() -> None:
    row = RowTable()
    row.reset(0)
    with pytest.raises(InvalidActionError):
        row.step("8/5")
    assert row.step(N_ACTIONS).illegal and row.done
    with pytest.raises(InvalidActionError):
        row.step(0)


def test_the_environments_fall_back_to_the_table_where_the_kernel_cannot_play() -> None:
    """A gnubg_id start, a bot given as a Player or with options: the Match-based table; a
    fresh start against the kernel's bots (or in self-play): the row."""
    start = "4HPwATDgc/ABMA:MAEFAAAAAAAE"  # the opening, player 0 to play 2-1 (gnubg)
    aec = bgenv.raw_env()
    aec.reset(seed=1)
    assert isinstance(aec.table, RowTable)
    aec.reset(seed=1, options={"gnubg_id": start})
    assert isinstance(aec.table, Table) and aec.table.dice_left() == (2, 1)
    aec.reset(seed=1)
    assert isinstance(aec.table, RowTable)
    for opponent, options, kind in [
        ("random", {}, RowTable),
        ("pubeval", {}, RowTable),
        ("random", {"seed": 3}, Table),
        (get("pubeval"), {}, Table),
    ]:
        env = BackgammonEnv(opponent, opponent_options=options or None)
        env.reset(seed=2)
        assert type(env.table) is kind
        assert env.table.to_act == 0  # the bot's turns are played before the agent's
        env.reset(seed=2, options={"gnubg_id": start})
        assert type(env.table) is Table and env.table.dice_left() == (2, 1)


@pytest.mark.parametrize("options", [{}, {"cube": True, "match_length": 3}])
def test_an_episode_ends_with_how_its_last_game_ended(options: dict) -> None:
    e = bgenv.env(**options)
    e.reset(seed=4)
    rng = np.random.default_rng(0)
    returns = dict.fromkeys(e.possible_agents, 0.0)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        returns[agent] += reward
        if terminated or truncated:
            e.step(None)
            continue
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    winner = f"player_{info['winner']}"
    assert info["result"] in ("single", "gammon", "backgammon") and info["reason"] == "played"
    assert returns[winner] > 0 and returns[winner] == -sum(
        v for a, v in returns.items() if a != winner
    )
    if options:
        assert max(info["score"]) >= 3 and returns[winner] == max(info["score"]) - min(
            info["score"]
        )
    else:
        assert returns[winner] == info["points"]


@pytest.mark.parametrize(
    ("options", "bot"),
    [({}, None), ({"cube": True, "match_length": 3}, None), ({}, "random"), ({}, "pubeval")],
)
def test_the_match_is_the_episode_replayed(options: dict, bot: str | None) -> None:
    """Asked for mid-episode and at its end, the Match-based replay shows what the row
    shows, the bot's decisions included."""
    row = RowTable(**options, opponent=bot)
    rng = random.Random(1)
    for seed in range(4):
        row.reset(seed)
        steps = 0
        while not row.done:
            row.step(rng.choice(row.legal_actions()))
            steps += 1
            if steps == 7:
                _same(row, row.replay())
        _same(row, row.replay())
        match = row.match
        assert match.score == row.score and match.state.last_end == row.last_end
        assert match.is_over or options.get("match_length") is None

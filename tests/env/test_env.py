"""The learning environments (backgammon.env): PettingZoo's and Gymnasium's own checks, the
action mask against the rules, rewards by the rules, seeds, illegal actions, cube and match."""

from __future__ import annotations

import contextlib
import random
import subprocess
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from hypothesis import given, settings
from hypothesis import strategies as st
from pettingzoo.test import api_test, seed_test

import backgammon.env as bgenv
from backgammon import Position
from backgammon.core.values import IllegalMoveError
from backgammon.env.batch import BatchEnv
from backgammon.env.observation import board_block, board_blocks, board_size
from backgammon.env.row import RowTable
from backgammon.env.table import (
    DOUBLE,
    DROP,
    N_ACTIONS,
    ROLL,
    TAKE,
    EnvOptionError,
    InvalidActionError,
    Table,
    TableOptions,
    play_actions,
    steps_of_action,
)
from backgammon.evaluation.encode import encode
from backgammon.play.ids import gnubg_id
from backgammon.play.match import GameStart, MatchState, Phase, Play
from backgammon.players import PLAYERS, UnknownPlayerError

ROLLS = [(a, b) for a in range(1, 7) for b in range(1, a + 1)]

# PettingZoo warns about any dict observation outside its own list of games, though the
# dict (observation and action_mask) is what its classic games use; every other warning
# fails the test.
DICT_WARNINGS = ("Observation space for each agent probably", "Observation is not a NumPy")


def _strict_warnings() -> None:
    warnings.simplefilter("error")
    for text in DICT_WARNINGS:
        warnings.filterwarnings("ignore", message=text)


def gnubg_at(
    position: Position,
    dice: tuple[int, int] | None,
    table: Table,
    *,
    cube: int = 1,
    owner: int | None = None,
    score: tuple[int, int] = (0, 0),
) -> str:
    """gnubg's ID of player 0 on roll in ``position`` (with ``dice`` rolled, or before the
    roll) under the table's rules."""
    state = MatchState(
        rules=table.rules,
        score=score,
        phase=Phase.MOVE if dice else Phase.ROLL,
        on_roll=0,
        position=position,
        dice=dice,
        cube_value=cube,
        cube_owner=owner,
        games=((GameStart(1, score, False),),),
    )
    return gnubg_id(state)


def random_position(seed: int, plies: int) -> Position:
    """The position after ``plies`` random plays from the start (or the last before a
    game ends)."""
    rng = random.Random(seed)
    pos = Position.initial()
    for _ in range(plies):
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        legal = pos.legal_moves(dice)
        after = pos.play(rng.choice(legal)) if legal else pos.flip()
        if after.is_game_over():
            break
        pos = after
    return pos


def named_steps(action: int, die: tuple[int, int] | int) -> list[tuple]:
    """The single-die steps a checker action names (its sources, each moved by its die)."""
    a, b = steps_of_action(action)
    dice = (die, die) if isinstance(die, int) else die
    return [(s, max(s - d, 0)) for s, d in ((a, dice[0]), (b, dice[1])) if s]


def apply_any_order(position: Position, steps: list[tuple]) -> set[tuple[int, ...]]:
    """The boards the steps give in the orders that can be made (their result is one)."""
    boards = set()
    for order in (steps, steps[::-1]):
        with contextlib.suppress(IllegalMoveError):
            boards.add(position.apply_steps(order).board)
    return boards


def play_random(table: Table, rng: random.Random) -> Iterator[int]:
    """Masked random actions until the episode ends; yields each action made."""
    while not table.done:
        action = rng.choice(table.legal_actions())
        table.step(action)
        yield action


# ------------------------------------------------------------------ the libraries' checks
@pytest.mark.parametrize(
    "options",
    [{}, {"cube": True}, {"match_length": 3, "cube": True}, {"observation": "net"}],
    ids=["money", "cube", "match", "net"],
)
def test_pettingzoo_api_test(options: dict) -> None:
    with warnings.catch_warnings():
        _strict_warnings()
        api_test(bgenv.env(**options), num_cycles=1000)


def test_pettingzoo_seed_test() -> None:
    seed_test(bgenv.env, num_cycles=300)


@pytest.mark.parametrize("opponent", PLAYERS)
def test_gymnasium_check_env(opponent: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env = gymnasium.make(bgenv.ENV_ID, opponent=opponent, cube=True)
        check_env(env.unwrapped, skip_render_check=False)


# ------------------------------------------------------------------ the mask and the rules
@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32), plies=st.integers(0, 400))
def test_the_mask_is_exactly_the_legal_plays(seed: int, plies: int) -> None:
    """Over every roll of random positions: each legal play has its actions, each masked-in
    action leads to a legal play, and the sources an action names make that play."""
    pos = random_position(seed, plies)
    table = Table()
    for dice in ROLLS:
        legal = pos.legal_moves(dice)
        if not legal:
            continue  # R10: the turn is lost without a choice
        table.reset(0, gnubg_at(pos, dice, table))
        assert table.to_act == 0
        plays = table.plays
        results = {pos.apply_steps(m).board for m in legal}
        assert len(plays) == len(legal)
        assert {pos.apply_steps(m).board for m in plays.values()} == results
        assert set(table.legal_actions()) == {actions[0] for actions in plays}
        mask = table.action_mask()
        assert mask.sum() == len(table.legal_actions())
        assert all(mask[a] == (a in table.legal_actions()) for a in range(N_ACTIONS))
        for actions, move in plays.items():
            assert actions == play_actions(move, dice)
            hi, lo = max(dice), min(dice)
            if hi != lo:
                steps = named_steps(actions[0], (hi, lo))
            else:
                steps = [s for a in actions for s in named_steps(a, hi)]
                steps.sort(key=lambda step: -step[0])
            assert apply_any_order(pos, steps) == {pos.apply_steps(move).board}


def _entries(table: Table) -> list:
    return [entry for game in table.match.state.games for entry in game]


def test_each_action_plays_what_it_names() -> None:
    """Whole seeded games: every action the mask allows, chosen at random, is played by the
    match as the play it stands for (the record shows it), and nothing else is."""
    table = Table()
    rng = random.Random(11)
    turns = 0
    for seed in range(15):
        table.reset(seed)
        while not table.done:
            player = table.to_act
            if table.match.phase is not Phase.MOVE:
                table.step(rng.choice(table.legal_actions()))
                continue
            plays = table.plays
            actions = rng.choice(sorted(plays))
            before = len(_entries(table))
            for a in actions:
                assert a in table.legal_actions()
                table.step(a)
            made = [x for x in _entries(table)[before:] if isinstance(x, Play)]
            assert made[0] == Play(player, plays[actions])
            turns += 1
    assert turns > 500


def test_a_double_of_four_steps_is_two_actions() -> None:
    table = Table()
    table.reset(0, gnubg_at(Position.initial(), (3, 3), table))
    first = table.legal_actions()
    assert 26 * 13 + 13 in first and 26 * 8 + 8 in first
    assert table.dice_left() == (3, 3, 3, 3)
    table.step(26 * 8 + 8)  # 8/5(2) first
    assert table.to_act == 0 and table.dice_left() == (3, 3)
    assert table.position.checkers(5) == 2 and table.position.checkers(8) == 1
    assert 26 * 6 + 6 in table.legal_actions()
    table.step(26 * 6 + 6)  # then 6/3(2)
    assert table.to_act == 1
    seen_by_1 = table.match.position.flip()
    assert (
        seen_by_1
        == Position.initial().play(Position.initial().parse_move("8/5(2) 6/3(2)", (3, 3))).flip()
    )


def test_no_choice_is_asked_when_there_is_none() -> None:
    """A closed board (R13) and a roll with no play (R10) pass without an action."""
    table = Table()
    closed = Position.from_simple([1, 14, *[0] * 17, -2, -2, -2, -2, -2, -2, 3])
    table.reset(0, gnubg_at(closed, None, table))
    assert table.to_act == 1  # player 0 was closed out: player 1 acts


# ------------------------------------------------------------------ rewards by the rules
def _finish(table: Table) -> tuple[float, float]:
    """Player 0 makes its only play; the rewards of that step."""
    assert table.legal_actions() and len(table.plays) == 1
    result = table.step(table.legal_actions()[0])
    assert result.done
    return result.rewards


@pytest.mark.parametrize(
    ("opponent", "bar", "points", "rule"),
    [
        ([0] * 22 + [-3], 0, 1, "single: the loser has borne a checker off (R19)"),
        ([0] * 11 + [-15] + [0] * 11, 0, 2, "gammon: none borne off (R19)"),
        ([0] * 4 + [-1] + [0] * 6 + [-14] + [0] * 11, 0, 3, "backgammon: one in our home"),
        ([0] * 11 + [-14] + [0] * 11, 1, 3, "backgammon: one on the bar (R19)"),
    ],
)
def test_a_game_scores_what_the_rules_give(
    opponent: list[int], bar: int, points: int, rule: str
) -> None:
    pos = Position.from_simple([0, 1, *opponent, bar])
    assert pos.outcome() is None
    table = Table()
    table.reset(0, gnubg_at(pos, (2, 1), table))
    assert _finish(table) == (points, -points), rule
    assert table.last_end is not None and table.last_end.points == points


def test_the_cube_multiplies_the_points() -> None:
    pos = Position.from_simple([0, 1, *[0] * 11, -15, *[0] * 11, 0])  # a gammon (R19)
    table = Table(cube=True)
    table.reset(0, gnubg_at(pos, (2, 1), table, cube=4, owner=0))
    assert _finish(table) == (8, -8)  # R20: 2 x 4


def test_a_pass_scores_the_cube_before_the_double() -> None:
    table = Table(cube=True)
    table.reset(3)
    while table.match.phase is not Phase.ROLL:
        table.step(table.legal_actions()[0])
    doubler = table.to_act
    assert table.legal_actions() == [ROLL, DOUBLE]
    assert table.step(DOUBLE).rewards == (0.0, 0.0)
    assert table.to_act == 1 - doubler and table.legal_actions() == [TAKE, DROP]
    result = table.step(DROP)
    assert result.done
    assert result.rewards[doubler] == 1 and result.rewards[1 - doubler] == -1  # R24


def test_a_take_turns_the_cube() -> None:
    table = Table(cube=True)
    table.reset(3)
    while table.match.phase is not Phase.ROLL:
        table.step(table.legal_actions()[0])
    doubler = table.to_act
    table.step(DOUBLE)
    table.step(TAKE)
    assert table.match.cube_value == 2 and table.match.cube_owner == 1 - doubler  # R24
    assert table.observe(1 - doubler)[-7] == 1  # the taker owns the cube now (entry 11 of 17)
    assert table.observe(doubler)[-6] == 1  # the doubler's opponent owns it
    for _ in play_random(table, random.Random(0)):
        pass
    end = table.last_end
    assert end is not None and end.points % 2 == 0


def test_without_the_cube_no_cube_action_is_offered() -> None:
    table = Table()
    rng = random.Random(1)
    for seed in range(10):
        table.reset(seed)
        while not table.done:
            assert not {ROLL, DOUBLE, TAKE, DROP} & set(table.legal_actions())
            table.step(rng.choice(table.legal_actions()))
        assert table.last_end is not None and table.last_end.points in (1, 2, 3)


def test_a_match_is_one_episode_and_its_return_is_the_score_difference() -> None:
    table = Table(cube=True, match_length=5)
    rng = random.Random(2)
    crawford_seen = False
    for seed in range(6):
        table.reset(seed)
        returns = [0.0, 0.0]
        while not table.done:
            if table.match.is_crawford_game:
                crawford_seen = True
                assert DOUBLE not in table.legal_actions()  # R28
            r = table.step(rng.choice(table.legal_actions())).rewards
            returns = [returns[0] + r[0], returns[1] + r[1]]
        a, b = table.match.score
        assert max(a, b) >= 5 and table.match.is_over  # R27
        assert returns == [a - b, b - a]
        assert (returns[0] > 0) == (table.match.winner == 0)
    assert crawford_seen


# ------------------------------------------------------------------ seeds
def _episode(seed: int, options: dict) -> list:
    e = bgenv.env(**options)
    e.reset(seed=seed)
    rng = np.random.default_rng(0)
    trace = []
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, _info = e.last()
        trace.append((agent, obs["observation"].tobytes(), reward))
        if terminated or truncated:
            e.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        e.step(int(rng.choice(legal)))
    return trace


@pytest.mark.parametrize("options", [{}, {"cube": True, "match_length": 3}])
def test_the_same_seed_gives_the_same_game(options: dict) -> None:
    assert _episode(5, options) == _episode(5, options)
    assert _episode(5, options) != _episode(6, options)


def test_gymnasium_seeds_fix_the_dice_and_the_random_bot() -> None:
    def run(seed: int) -> list:
        env = gymnasium.make(bgenv.ENV_ID, opponent="random")
        obs, _ = env.reset(seed=seed)
        out = [obs["observation"].tobytes()]
        done = False
        while not done:
            legal = np.flatnonzero(obs["action_mask"])
            obs, reward, done, _trunc, _info = env.step(int(legal[0]))
            out.append((obs["observation"].tobytes(), reward))
        return out

    assert run(3) == run(3)
    assert run(3) != run(4)


# ------------------------------------------------------------------ illegal actions
@pytest.mark.parametrize("action", [-1, N_ACTIONS, 10**9, "masked out"])
def test_an_illegal_action_ends_the_episode_with_the_penalty(action: object) -> None:
    e = bgenv.env()
    e.reset(seed=1)
    agent = e.agent_selection
    obs, *_ = e.last()
    if action == "masked out":
        action = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    e.step(action)
    other = "player_1" if agent == "player_0" else "player_0"
    assert e.rewards == {agent: -3.0, other: 0.0}
    assert all(e.terminations.values())
    assert e.infos[agent] == {"illegal_action": agent}


def test_the_penalty_can_be_chosen_and_follows_the_cube() -> None:
    table = Table(cube=True, illegal_reward=-10)
    table.reset(0)
    result = table.step(N_ACTIONS + 5)
    assert result.illegal and result.done and sorted(result.rewards) == [-10.0, 0.0]
    table = Table(cube=True)
    pos = Position.initial()
    table.reset(0, gnubg_at(pos, (3, 1), table, cube=4, owner=1))
    assert table.step(0).rewards == (-12.0, 0.0)  # -3 x the cube


@pytest.mark.parametrize("action", ["8/5", 2.5, None, True])
def test_an_action_that_is_not_an_integer_is_refused(action: object) -> None:
    table = Table()
    table.reset(0)
    before = table.legal_actions()
    with pytest.raises(InvalidActionError):
        table.step(action)
    assert table.legal_actions() == before and not table.done


def test_the_gymnasium_env_ends_on_an_illegal_action() -> None:
    env = gymnasium.make(bgenv.ENV_ID, opponent="pubeval")
    obs, _ = env.reset(seed=0)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    obs, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated, info) == (-3.0, True, False, {"illegal_action": True})


@pytest.mark.parametrize(
    "options",
    [{"cube": 1}, {"match_length": 0}, {"match_length": 65}, {"observation": "pixels"}],
)
def test_bad_options_are_refused(options: dict) -> None:
    with pytest.raises(EnvOptionError):
        bgenv.env(**options)


BAD_OPTIONS = [
    {"cube": 1},
    {"match_length": 0},
    {"match_length": 65},
    {"observation": "pixels"},
    {"illegal_reward": "a lot"},
    {"illegal_reward": True},
]
"""Options one TableOptions refuses, whichever environment they are given to."""

FACES = {
    "Table": Table,
    "RowTable": RowTable,
    "BatchEnv": BatchEnv,
    "raw_env": bgenv.raw_env,
    "env": bgenv.env,
    "BackgammonEnv": bgenv.BackgammonEnv,
    "make": lambda **o: gymnasium.make(bgenv.ENV_ID, **o),
    "make_vec": lambda **o: gymnasium.make_vec(
        bgenv.ENV_ID, num_envs=2, vectorization_mode="vector_entry_point", **o
    ),
}
"""Every way an environment is made, each taking the options by name."""


@pytest.mark.parametrize("face", FACES)
@pytest.mark.parametrize("options", BAD_OPTIONS)
def test_a_bad_option_is_refused_alike_by_every_environment(face: str, options: dict) -> None:
    with pytest.raises(EnvOptionError) as direct:
        TableOptions(**options)
    with pytest.raises(EnvOptionError) as made:
        FACES[face](**options)
    assert str(made.value) == str(direct.value)


@pytest.mark.parametrize("face", [f for f in FACES if f not in ("make", "make_vec")])
def test_every_environment_holds_the_one_options_value(face: str) -> None:
    made = FACES[face](cube=True, match_length=5, observation="net", illegal_reward=-7)
    made = getattr(made, "unwrapped", made)
    expected = TableOptions(cube=True, match_length=5, observation="net", illegal_reward=-7)
    assert made.options == expected
    assert made.options.rules.cube_enabled and made.options.rules.match_length == 5
    with pytest.raises(AttributeError):
        made.options.cube = False


def test_options_given_by_name_replace_those_given_as_a_value() -> None:
    base = TableOptions(cube=True, observation="net")
    assert TableOptions.of(base) is base
    assert TableOptions.of(base, match_length=3) == TableOptions(True, 3, "net")
    assert Table(base, illegal_reward=-1).options == TableOptions(True, None, "net", -1)
    with pytest.raises(TypeError):
        TableOptions.of(colour="red")


def test_an_unknown_opponent_is_refused() -> None:
    with pytest.raises(UnknownPlayerError):
        gymnasium.make(bgenv.ENV_ID, opponent="nobody")
    with pytest.raises(EnvOptionError):
        bgenv.BackgammonEnv(opponent=3)  # type: ignore[arg-type]


def test_a_bad_start_is_refused() -> None:
    e = bgenv.env(match_length=3)
    with pytest.raises(EnvOptionError):
        e.reset(options={"gnubg_id": "4HPwATDgc/ABMA:cIkKAAAAAAAA"})  # a money ID
    with pytest.raises(EnvOptionError):
        e.reset(options={"gnubg_id": "not an id"})


# ------------------------------------------------------------------ observations
def test_the_tesauro_block_of_the_start() -> None:
    table = Table()
    table.reset(0)
    player = table.to_act
    assert player is not None
    obs = table.observe(player)
    assert obs.shape == (board_size("tesauro") + 17,)
    assert list(obs[5 * 4 : 6 * 4]) == [1, 1, 1, 1]  # five on the 6-point: (5 - 3) / 2
    assert list(obs[23 * 4 : 24 * 4]) == [1, 1, 0, 0]  # two on the 24-point
    assert list(obs[96 + 5 * 4 : 96 + 6 * 4]) == [1, 1, 1, 1]  # the opponent's, the same
    assert list(obs[192:198]) == [0, 0, 0, 0, 1, 0]  # bars, off, on roll
    dice = table.match.dice
    assert dice is not None
    counts = obs[198:204]
    assert counts.sum() == 2 and all(counts[d - 1] >= 1 for d in dice)
    assert obs[204] == 1 and table.observe(1 - player)[204] == 0  # who must act
    assert table.observe(1 - player)[192:198].tolist() == [0, 0, 0, 0, 0, 1]


def test_the_net_block_is_the_packages_network_inputs() -> None:
    table = Table(observation="net")
    table.reset(4)
    player = table.to_act
    assert player is not None
    board = table.match.position.board
    expected = encode(np.asarray([board]))[0].astype(np.float32)
    assert np.array_equal(table.observe(player)[: len(expected)], expected)
    assert np.array_equal(board_block("net", board, True), expected)


def test_observations_are_seen_from_each_side() -> None:
    pos = Position.from_simple([0, 2, 0, 0, 0, 0, 3, *[0] * 17, -1, 1])
    table = Table()
    table.reset(0, gnubg_at(pos, (6, 5), table))
    mine, theirs = table.observe(0), table.observe(1)
    assert np.array_equal(mine[:96], theirs[96:192]) and np.array_equal(mine[96:192], theirs[:96])
    assert mine[192] == 0 and mine[193] == 0.5 and theirs[192] == 0.5  # the bar


def test_render_shows_the_board() -> None:
    e = bgenv.env(render_mode="ansi", cube=True, match_length=3)
    e.reset(seed=0)
    text = e.render()
    assert isinstance(text, str)
    assert "Position ID:" in text and "to act" in text and "score 0-0 of 3" in text


def test_gymnasium_rewards_are_the_agents_points() -> None:
    env = gymnasium.make(bgenv.ENV_ID, opponent="pubeval")
    rng = np.random.default_rng(0)
    points = []
    for seed in range(8):
        obs, _ = env.reset(seed=seed)
        done, reward, info = False, 0.0, {}
        while not done:
            obs, reward, done, _trunc, info = env.step(
                int(rng.choice(np.flatnonzero(obs["action_mask"])))
            )
        sign = 1 if info["winner"] == 0 else -1
        assert reward == sign * info["points"]
        points.append(reward)
    assert min(points) < 0  # pubeval beats a random agent now and then at least


def test_board_blocks_are_board_block_row_by_row() -> None:
    boards = [random_position(seed, 60).board for seed in range(20)]
    for kind in ("tesauro", "net"):
        many = board_blocks(kind, boards, False)
        assert many.shape == (20, board_size(kind))
        for row, board in zip(many, boards, strict=True):
            assert np.allclose(row, board_block(kind, board, False))


def test_the_example_agent_runs() -> None:
    example = Path(__file__).resolve().parents[2] / "examples" / "train_agent.py"
    run = subprocess.run(
        [sys.executable, str(example), "--games", "3", "--eval-games", "2", "--hidden", "4"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr
    assert "trained: wins" in run.stdout and "of 2 games against random" in run.stdout

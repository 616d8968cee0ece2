"""The batched environment (backgammon.env.batch) against the rules: every game it plays is
replayed through a :class:`~backgammon.env.table.Table` (so through ``Match``) with the same
dice and actions, and must show the same masks, observations, boards, rewards and scores at
every step; seeds give the same games at any batch size and row offset."""

from __future__ import annotations

import random
import subprocess
import sys
from collections import deque
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import data_equivalence

import backgammon.env as bgenv
from backgammon import Position
from backgammon.env.batch import BatchEnv
from backgammon.env.table import N_ACTIONS, EnvOptionError, InvalidActionError, Table, play_key
from backgammon.evaluation.children import child_plays
from backgammon.play.dice import check_dice

ROLLS = [(a, b) for a in range(1, 7) for b in range(1, a + 1)]


class Fed:
    """Dice handed out as the batched environment logged them."""

    def __init__(self) -> None:
        self.throws: deque[tuple[int, int]] = deque()

    def roll(self) -> tuple[int, int]:
        return check_dice(self.throws.popleft())


def _random_actions(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return np.asarray((rng.random(masks.shape) * masks).argmax(axis=1), dtype=np.int64)


def _replay(options: dict, rows: int, steps: int, seed: int) -> int:
    """Play ``rows`` games for ``steps`` random steps in the batch and in tables; compare
    them at every step; gives the number of episodes finished."""
    env = BatchEnv(**options)
    obs, masks = env.reset(rows, seed=seed)
    tables = [Table(**options) for _ in range(rows)]
    feeds = [Fed() for _ in range(rows)]

    def log_throws() -> None:
        g = env.games
        for i in range(rows):
            feeds[i].throws.extend(tuple(int(d) for d in t) for t in g.throws[i, : g.n_throws[i]])

    log_throws()
    for i, table in enumerate(tables):
        table.reset(0, dice=feeds[i])
    rng = np.random.default_rng(seed)
    episodes = 0
    for _ in range(steps):
        for i, table in enumerate(tables):
            player = table.to_act
            assert player == env.to_act[i]
            assert np.array_equal(table.action_mask().astype(bool), masks[i])
            np.testing.assert_array_equal(table.observe(player), obs[i])
            seen = table.position if table.view_player == player else table.position.flip()
            assert seen.board == tuple(int(x) for x in env.views[i])
            assert table.match.state.score == tuple(int(s) for s in env.scores[i])
        actions = _random_actions(masks, rng)
        obs, rewards, dones, masks = env.step(actions)
        log_throws()
        for i, table in enumerate(tables):
            result = table.step(int(actions[i]))
            assert result.rewards == tuple(float(r) for r in rewards[i])
            assert result.done == bool(dones[i])
            if result.done:
                episodes += 1
                table.reset(0, dice=feeds[i])
            assert not feeds[i].throws, "the batch threw dice the rules did not use"
    return episodes


@pytest.mark.parametrize(
    ("options", "rows", "steps", "least"),
    [
        ({}, 96, 700, 550),
        ({"cube": True}, 128, 300, 1000),
        ({"cube": True, "match_length": 5}, 48, 500, 120),
        ({"match_length": 3}, 32, 300, 20),
    ],
)
def test_every_batched_game_replays_through_the_rules(
    options: dict, rows: int, steps: int, least: int
) -> None:
    """Random masked actions (doubles, takes and passes among them when the cube is on)."""
    assert _replay(options, rows, steps, seed=11) >= least


def test_play_names_are_the_tables() -> None:
    """child_plays names every legal play by the sources play_key gives it, in the rules
    core's order, over every roll of positions from random games."""
    rng = random.Random(5)
    positions = []
    for _ in range(8):
        pos = Position.initial()
        while pos.outcome() is None:
            positions.append(pos)
            moves = pos.legal_moves((rng.randint(1, 6), rng.randint(1, 6)))
            pos = (pos.play(rng.choice(moves)) if moves else pos).flip()
    cases = [(p, d) for p in positions for d in ROLLS]
    _, counts, names = child_plays([p.board for p, _ in cases], [d for _, d in cases])
    at = 0
    for (pos, dice), count in zip(cases, counts, strict=True):
        legal = pos.legal_moves(dice)
        got = [tuple(int(x) for x in row) for row in names[at : at + count]]
        at += count
        if not legal:
            assert got == [(0, 0, 0, 0)]
            continue
        want = [play_key(m, dice) for m in legal]
        assert got == [(*k, *[0] * (4 - len(k))) for k in want]


def _trace(env: BatchEnv, n: int, seed: int, first: int, steps: int) -> list[np.ndarray]:
    """The observations of ``steps`` steps, each row choosing from its own generator."""
    obs, masks = env.reset(n, seed=seed, first=first)
    rngs = [np.random.default_rng(first + i) for i in range(n)]
    out = [obs.copy()]
    for _ in range(steps):
        actions = np.array(
            [rngs[i].choice(np.flatnonzero(masks[i])) for i in range(n)], dtype=np.int64
        )
        obs, _r, _d, masks = env.step(actions)
        out.append(obs.copy())
    return out


@pytest.mark.parametrize("opponent", [None, "random", "pubeval"])
def test_a_seed_gives_the_same_games_at_any_batch_size_and_offset(opponent: str | None) -> None:
    env = BatchEnv(opponent=opponent, cube=True)
    whole = _trace(env, 12, seed=3, first=0, steps=120)
    head = _trace(env, 5, seed=3, first=0, steps=120)
    tail = _trace(env, 7, seed=3, first=5, steps=120)
    for w, h, t in zip(whole, head, tail, strict=True):
        np.testing.assert_array_equal(w, np.concatenate([h, t]))
    other = _trace(env, 12, seed=4, first=0, steps=120)
    assert not all(np.array_equal(w, o) for w, o in zip(whole, other, strict=True))


@pytest.mark.parametrize("opponent", ["random", "pubeval"])
def test_the_bot_plays_player_one(opponent: str) -> None:
    """The agent is always to act; its episodes end with the points of a game."""
    env = BatchEnv(opponent=opponent)
    _obs, masks = env.reset(64, seed=2)
    rng = np.random.default_rng(2)
    finished = []
    for _ in range(300):
        assert not env.to_act.any()
        _obs, rewards, dones, masks = env.step(_random_actions(masks, rng))
        assert np.array_equal(rewards[:, 0], -rewards[:, 1])
        finished.extend(rewards[dones, 0].tolist())
    assert len(finished) > 100
    assert set(finished) <= {-3.0, -2.0, -1.0, 1.0, 2.0, 3.0}
    # A random agent loses to pubeval nearly always, and about half its games to random.
    share = np.mean(np.array(finished) > 0)
    assert share < 0.1 if opponent == "pubeval" else 0.35 < share < 0.65


def test_the_plays_are_the_masked_actions() -> None:
    env = BatchEnv()
    _obs, masks = env.reset(16, seed=9)
    for i in range(16):
        boards, names = env.plays(i)
        assert len(boards) == len(names) > 0
        assert set(names[:, 0].tolist()) == set(np.flatnonzero(masks[i]).tolist())


def test_an_illegal_action_ends_the_episode_with_the_penalty() -> None:
    env = BatchEnv(illegal_reward=-5)
    _obs, masks = env.reset(4, seed=1)
    actions = np.array([int(np.flatnonzero(m)[0]) for m in masks], dtype=np.int64)
    bad = int(np.flatnonzero(~masks[2])[0])
    actions[2] = bad
    actor = int(env.to_act[2])
    _obs, rewards, dones, _masks = env.step(actions)
    assert dones.tolist() == [False, False, True, False]
    assert rewards[2, actor] == -5 and rewards[2, 1 - actor] == 0


@pytest.mark.parametrize(
    "actions", [np.zeros(3, np.int64), np.zeros(4, np.float64), np.zeros((4, 1), np.int64)]
)
def test_actions_that_are_not_one_integer_a_game_are_refused(actions: np.ndarray) -> None:
    env = BatchEnv()
    obs, _masks = env.reset(4, seed=1)
    before = obs.copy()
    with pytest.raises(InvalidActionError):
        env.step(actions)
    np.testing.assert_array_equal(env.obs, before)


@pytest.mark.parametrize(
    "options", [{"opponent": "gnubg"}, {"observation": "pixels"}, {"match_length": 0}]
)
def test_bad_options_are_refused(options: dict) -> None:
    with pytest.raises(EnvOptionError):
        BatchEnv(**options)


def test_the_net_observation_is_the_tables() -> None:
    env = BatchEnv(observation="net")
    obs, _masks = env.reset(3, seed=1)
    table = Table(observation="net")
    fed = Fed()
    g = env.games
    fed.throws.extend(tuple(int(d) for d in t) for t in g.throws[0, : g.n_throws[0]])
    table.reset(0, dice=fed)
    assert table.to_act is not None
    np.testing.assert_allclose(table.observe(table.to_act), obs[0], rtol=1e-6)
    assert obs.shape[1] == len(table.observe(0)) and env.masks.shape[1] == N_ACTIONS


# ------------------------------------------------------------------ Gymnasium's vector env
def _make_vec(n: int, **options: object) -> gymnasium.vector.VectorEnv:
    return gymnasium.make_vec(
        bgenv.ENV_ID, num_envs=n, vectorization_mode="vector_entry_point", **options
    )


@pytest.mark.parametrize("options", [{"opponent": "random"}, {"opponent": "pubeval", "cube": True}])
def test_the_vector_env_keeps_gymnasiums_contract(options: dict) -> None:
    """The spaces are the single env's batched, every observation is in them, the masked
    actions are accepted, ended episodes restart in the same step, and wrappers run."""
    single = gymnasium.make(bgenv.ENV_ID, **options)
    env = gymnasium.wrappers.vector.RecordEpisodeStatistics(_make_vec(8, **options))
    assert env.metadata["autoreset_mode"] is gymnasium.vector.AutoresetMode.SAME_STEP
    assert env.single_observation_space == single.observation_space
    assert env.single_action_space == single.action_space
    obs, _info = env.reset(seed=1)
    assert env.observation_space.contains(obs)
    returns = []
    for _ in range(400):
        masks = obs["action_mask"].astype(bool)
        actions = np.array([env.single_action_space.sample(m.astype(np.int8)) for m in masks])
        obs, rewards, terminated, truncated, info = env.step(actions)
        assert env.observation_space.contains(obs)
        assert rewards.shape == terminated.shape == truncated.shape == (8,)
        assert not truncated.any() and obs["action_mask"].any(axis=1).all()
        if "episode" in info:
            returns.extend(info["episode"]["r"][info["_episode"]].tolist())
    assert len(returns) > 20 and set(returns) <= {
        -6.0,
        -4.0,
        -3.0,
        -2.0,
        -1.0,
        1.0,
        2.0,
        3.0,
        4.0,
        6.0,
    }


def test_vector_seeds_give_the_same_games_at_any_num_envs() -> None:
    def run(n: int, seed: int) -> list[np.ndarray]:
        env = _make_vec(n, opponent="random")
        obs, _ = env.reset(seed=seed)
        out = [obs["observation"][:3].copy()]
        for _ in range(50):
            obs, *_rest = env.step(obs["action_mask"].argmax(axis=1))
            out.append(obs["observation"][:3].copy())
        return out

    for a, b in zip(run(3, 7), run(10, 7), strict=True):
        assert data_equivalence(a, b)
    assert not all(data_equivalence(a, b) for a, b in zip(run(3, 7), run(3, 8), strict=True))


@pytest.mark.parametrize(
    "options", [{"opponent": "self"}, {"num_envs": 0}, {"render_mode": "ansi"}]
)
def test_bad_vector_options_are_refused(options: dict) -> None:
    n = options.pop("num_envs", 2)
    with pytest.raises(EnvOptionError):
        _make_vec(n, **options)


def test_sample_draws_every_allowed_action_and_no_other() -> None:
    env = BatchEnv()
    _obs, masks = env.reset(6, seed=4)
    rng = np.random.default_rng(0)
    seen = [set() for _ in range(6)]
    for _ in range(400):
        for i, a in enumerate(env.sample(rng)):
            seen[i].add(int(a))
    assert seen == [set(np.flatnonzero(m).tolist()) for m in masks]


def test_a_positions_plays_are_the_same_when_asked_again() -> None:
    """The plays a position keeps for its last roll are a copy each time they are given."""
    pos = Position.initial()
    first = pos.legal_moves((6, 6))
    first.clear()
    assert pos.legal_moves((6, 6)) == Position.initial().legal_moves((6, 6)) != []
    assert pos.legal_moves((2, 1)) == Position.initial().legal_moves((1, 2))


def test_the_batched_example_agent_runs() -> None:
    example = Path(__file__).resolve().parents[2] / "examples" / "train_batched.py"
    run = subprocess.run(
        [sys.executable, str(example), "--minutes", "0.05", "--games", "16", "--eval-games", "40"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr
    assert "games of self-play" in run.stdout and "of 40 games won" in run.stdout


def test_the_batched_example_plays_pubeval_as_the_batched_bot_does() -> None:
    # The duplicate-dice measure plays pubeval itself (as either player); as player 1 its
    # plays must be the batched bot's, game for game, or the measure is not against pubeval.
    import importlib.util

    path = Path(__file__).resolve().parents[2] / "examples" / "train_batched.py"
    spec = importlib.util.spec_from_file_location("train_batched", path)
    assert spec is not None and spec.loader is not None
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    net = example.ValueNet(example.n_inputs(1), 8, np.random.default_rng(3))
    ours = example.first_games(net, 5, 0, 64, 0)
    env = BatchEnv(opponent="pubeval")
    env.reset(64, seed=5)
    pending = np.full(64, -1, np.int64)
    theirs = np.zeros(64, np.float32)
    over = np.zeros(64, np.bool_)
    while not over.all():
        actions, *_rest = example.choose(net, env, pending)
        _obs, rewards, dones, _masks = env.step(actions)
        fresh = dones & ~over
        theirs[fresh] = rewards[fresh, 0]
        over |= dones
    assert (ours == theirs).all() and (ours != 0).all()


def test_every_game_is_always_in_one_of_the_named_phases() -> None:
    """The phases the kernel writes are the ones it names (a half-played double among
    them), not a column number that shares a name with one."""
    from backgammon.env import lockstep

    phases = (lockstep.OPENING, lockstep.ROLLING, lockstep.MOVING, lockstep.DOUBLED)
    phases += (lockstep.HALF, lockstep.OVER)
    assert phases == tuple(range(6))  # as lockstep numbers them: no name taken twice
    named = set(phases)
    env = BatchEnv(cube=True)
    rng = np.random.default_rng(7)
    env.reset(256, seed=7)
    seen: set[int] = set()
    for _ in range(300):
        env.step(env.sample(rng))
        seen |= {int(p) for p in np.unique(env.games.phase)}
    assert seen <= named and lockstep.HALF in seen

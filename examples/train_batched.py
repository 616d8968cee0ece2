"""Train an agent on the batched environment in a few minutes, then measure it against pubeval.

    pip install 'backgammon[rl]'
    python examples/train_batched.py [--minutes 4] [--games 256] [--rate 0.003] [--seed 1]

The agent is TD-Gammon's method on many games at once: a numpy network (the package's 215
network inputs, one hidden layer, a sigmoid output) estimates the side on roll's points,
scaled from -3..3 to 0..1 (so gammons count).  ``--games`` games of self-play run in
lockstep in one :class:`~backgammon.env.batch.BatchEnv`; at every step each game's mover
looks at the board every legal play leaves (``BatchEnv.games``: the plays and their
actions), takes the one worst for the opponent, and the network moves the estimate of the
board it left last time towards one minus that of the board it leaves now (TD(0)), a won
game's last board towards what its loser lost, all games' errors in one gradient step.
After ``--minutes`` of CPU time it plays ``--eval-games`` games against pubeval
(``BatchEnv(opponent="pubeval")``, on dice not used in training) and prints its points a
game with their standard error.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import numpy.typing as npt

from backgammon.env import lockstep
from backgammon.env.batch import BatchEnv
from backgammon.evaluation.encode import N_INPUTS, encode

Array = npt.NDArray[np.float64]


class ValueNet:
    """The side on roll's points (scaled to 0-1) from the network inputs of the board seen
    from that side, trained with Adam on squared errors."""

    def __init__(self, hidden: int, rng: np.random.Generator, rate: float = 3e-3) -> None:
        self.params = [
            rng.normal(0, 1 / np.sqrt(N_INPUTS), (N_INPUTS, hidden)),
            np.zeros(hidden),
            rng.normal(0, 1 / np.sqrt(hidden), hidden),
            np.zeros(1),
        ]
        self.moments = [(np.zeros_like(p), np.zeros_like(p)) for p in self.params]
        self.rate, self.t = rate, 0

    def values(self, x: Array) -> Array:
        """The estimate of each row of ``x``."""
        w1, b1, w2, b2 = self.params
        h = np.tanh(x @ w1 + b1)
        out: Array = 1 / (1 + np.exp(-(h @ w2 + b2)))
        return out

    def fit(self, x: Array, target: Array) -> None:
        """One Adam step on the mean squared error of ``x``'s estimates against ``target``."""
        w1, b1, w2, b2 = self.params
        h = np.tanh(x @ w1 + b1)
        v = 1 / (1 + np.exp(-(h @ w2 + b2)))
        dz = (v - target) * v * (1 - v) / len(x)
        dh = np.outer(dz, w2) * (1 - h * h)
        grads = [x.T @ dh, dh.sum(0), h.T @ dz, np.array([dz.sum()])]
        self.t += 1
        for p, g, (m, s) in zip(self.params, grads, self.moments, strict=True):
            m *= 0.9
            m += 0.1 * g
            s *= 0.999
            s += 0.001 * g * g
            p -= self.rate * (m / (1 - 0.9**self.t)) / (np.sqrt(s / (1 - 0.999**self.t)) + 1e-8)


def afterstates(env: BatchEnv) -> tuple[Array, Array, npt.NDArray[np.int64], Array]:
    """Every legal play of every game to play now: its board seen by the opponent (on roll
    there) as network inputs, its actions, the game of each row, and the points it wins
    (0 unless it bears off the last checker: 1, 2 a gammon, 3 a backgammon)."""
    g = env.games
    moving = g.phase == lockstep.MOVING
    n = np.where(moving, g.n_plays, 0)
    rows = np.repeat(np.arange(env.n), n)
    slot = np.arange(len(rows)) - np.repeat(np.cumsum(n) - n, n)
    after = g.plays[rows, slot].astype(np.int64)  # the mover's view
    turned = -after[:, ::-1]  # the opponent's view, who is on roll there
    won = ~(after > 0).any(axis=1)
    gammon = np.minimum(after, 0).sum(axis=1) == -15
    back = (after[:, :7] < 0).any(axis=1)
    points = np.where(won, np.where(gammon, np.where(back, 3.0, 2.0), 1.0), 0.0)
    return encode(turned), g.names[rows, slot].astype(np.int64), rows, points


def choose(
    net: ValueNet, env: BatchEnv, pending: npt.NDArray[np.int64]
) -> tuple[npt.NDArray[np.int64], Array, Array, npt.NDArray[np.bool_], Array]:
    """Each game's action (the second of a double already chosen, when one is pending),
    and for the games that chose a play: its inputs, its value for the mover, which games
    chose, and the points those that won by it won."""
    x, names, rows, points = afterstates(env)
    won = points > 0
    worth = np.where(won, (3 + points) / 6, 1.0 - net.values(x))  # for the mover
    order = np.lexsort((-worth, rows))  # by game, best first
    first = np.ones(len(order), np.bool_)
    first[1:] = rows[order][1:] != rows[order][:-1]
    best = order[first]
    games = rows[best]
    actions = pending.copy()
    actions[games] = names[best, 0]
    pending[:] = -1
    pending[games] = names[best, 1]
    chose = np.zeros(env.n, np.bool_)
    chose[games] = True
    inputs = np.zeros((env.n, x.shape[1]))
    inputs[games] = x[best]
    value = np.zeros(env.n)
    value[games] = worth[best]
    ended = np.zeros(env.n)
    ended[games] = points[best]
    return actions, inputs, value, chose, ended


def train(net: ValueNet, games: int, seconds: float, seed: int) -> int:
    """Self-play in ``games`` lockstep games for ``seconds`` of CPU time; gives the games
    finished."""
    env = BatchEnv()
    env.reset(games, seed=seed)
    pending = np.full(games, -1, np.int64)
    last_x = np.zeros((games, N_INPUTS))
    has_last = np.zeros(games, np.bool_)
    finished = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        actions, x, value, chose, ended = choose(net, env, pending)
        # The board this game's previous mover left is worth, to the side on roll there
        # (this mover), what this mover's choice is worth to it.
        learn = chose & has_last
        xs, targets = [last_x[learn]], [value[learn]]
        over = ended > 0
        xs.append(x[over])
        targets.append((3 - ended[over]) / 6)
        net.fit(np.concatenate(xs), np.concatenate(targets))
        last_x[chose] = x[chose]
        has_last[chose] = True
        _obs, _rewards, dones, _masks = env.step(actions)
        has_last[dones] = False
        finished += int(dones.sum())
    return finished


def evaluate(net: ValueNet, games: int, seed: int) -> tuple[float, float, float]:
    """Points a game against pubeval, their standard error, and the share of games won."""
    env = BatchEnv(opponent="pubeval")
    env.reset(min(games, 1024), seed=seed)
    pending = np.full(env.n, -1, np.int64)
    points: list[float] = []
    while len(points) < games:
        actions, *_rest = choose(net, env, pending)
        _obs, rewards, dones, _masks = env.step(actions)
        points.extend(rewards[dones, 0].tolist())
    p = np.array(points[:games])
    return float(p.mean()), float(p.std(ddof=1) / np.sqrt(len(p))), float((p > 0).mean())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--minutes", type=float, default=4.0)
    parser.add_argument("--games", type=int, default=256)
    parser.add_argument("--hidden", type=int, default=48)
    parser.add_argument("--eval-games", type=int, default=10_000)
    parser.add_argument("--rate", type=float, default=3e-3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    net = ValueNet(args.hidden, np.random.default_rng(args.seed), args.rate)
    start = time.process_time()
    finished = train(net, args.games, 60 * args.minutes, args.seed)
    spent = time.process_time() - start
    print(f"trained on {finished:,} games of self-play in {spent:.0f} s of CPU time")
    ppg, se, won = evaluate(net, args.eval_games, seed=10**6 + args.seed)
    print(
        f"against pubeval: {ppg:+.3f} points a game (standard error {se:.3f}), "
        f"{won:.1%} of {args.eval_games:,} games won"
    )


if __name__ == "__main__":
    main()

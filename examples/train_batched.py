"""Train an agent on the batched environment in a few minutes, then measure it against pubeval.

    pip install 'backgammon[rl]'
    python examples/train_batched.py [--minutes 4] [--games 256] [--inputs 2] [--seed 1]

The agent is TD-Gammon's method on many games at once: a numpy network (the package's 215
network inputs, or with ``--inputs 2`` those and 14 features of blockades and timing; one
hidden layer, a sigmoid output) estimates the side on roll's points, scaled from -3..3 to
0..1 (so gammons count).  ``--games`` games of self-play run in
lockstep in one :class:`~backgammon.env.batch.BatchEnv`; at every step each game's mover
looks at the board every legal play leaves (``BatchEnv.games``: the plays and their
actions), takes the one worst for the opponent, and the network moves the estimate of the
board it left last time towards one minus that of the board it leaves now (TD(0)), a won
game's last board towards what its loser lost, all games' errors in one gradient step.
After ``--minutes`` of CPU time it plays ``--eval-games`` games against pubeval with
duplicate dice (each row's dice twice, the net as either player, on dice not used in
training) and prints its points a game with their standard error.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import numpy.typing as npt

from backgammon.env import lockstep
from backgammon.env.batch import BatchEnv
from backgammon.evaluation.encode import encode_with_race, n_inputs
from backgammon.players.pubeval import pubeval_scores

Array = npt.NDArray[np.float32]


class ValueNet:
    """The side on roll's points (scaled to 0-1) from the network inputs of the board seen
    from that side, trained with Adam on squared errors."""

    def __init__(
        self, inputs: int, hidden: int, rng: np.random.Generator, rate: float = 3e-3
    ) -> None:
        params = [
            rng.normal(0, 1 / np.sqrt(inputs), (inputs, hidden)),
            np.zeros(hidden),
            rng.normal(0, 1 / np.sqrt(hidden), hidden),
            np.zeros(1),
        ]
        self.params = [p.astype(np.float32) for p in params]  # float32: twice the speed
        self.inputs = 1 if inputs == n_inputs(1) else 2
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
        grads = [x.T @ dh, dh.sum(0), h.T @ dz, np.array([dz.sum()], np.float32)]
        self.t += 1
        for p, g, (m, s) in zip(self.params, grads, self.moments, strict=True):
            m *= 0.9
            m += 0.1 * g
            s *= 0.999
            s += 0.001 * g * g
            p -= self.rate * (m / (1 - 0.9**self.t)) / (np.sqrt(s / (1 - 0.999**self.t)) + 1e-8)


def afterstates(
    env: BatchEnv, inputs: int
) -> tuple[Array, npt.NDArray[np.int64], npt.NDArray[np.int64], Array, npt.NDArray[np.int64]]:
    """Every legal play of every game to play now: its board seen by the opponent (on roll
    there) as network inputs, its actions, the game of each row, the points it wins (0
    unless it bears off the last checker: 1, 2 a gammon, 3 a backgammon), and the board it
    leaves seen by the mover."""
    g = env.games
    moving = g.phase == lockstep.MOVING
    n = np.where(moving, g.n_plays, 0)
    rows = np.repeat(np.arange(env.n, dtype=np.int64), n)
    slot = np.arange(len(rows)) - np.repeat(np.cumsum(n) - n, n)
    after = g.plays[rows, slot].astype(np.int64)  # the mover's view
    turned = -after[:, ::-1]  # the opponent's view, who is on roll there
    won = ~(after > 0).any(axis=1)
    gammon = np.minimum(after, 0).sum(axis=1) == -15
    back = (after[:, :7] < 0).any(axis=1)
    points = np.where(won, np.where(gammon, np.where(back, 3.0, 2.0), 1.0), 0.0)
    x = encode_with_race(turned, inputs, np.float32)[0].astype(np.float32, copy=False)
    names = g.names[rows, slot].astype(np.int64)
    return x, names, rows, points.astype(np.float32), after


def pubeval_worth(
    env: BatchEnv, after: npt.NDArray[np.int64], rows: npt.NDArray[np.int64]
) -> Array:
    """pubeval's score of each play (``after``, the mover's view) of the games ``rows``: the
    race weights where that game's board before the play is a race, as pubeval decides."""
    b = env.games.board.astype(np.int64)
    points = np.arange(26)
    rear = np.where(b > 0, points, -1).max(axis=1)  # the mover's rearmost checker
    front = np.where(b < 0, points, 26).min(axis=1)  # the opponent's rearmost, seen by us
    race = (rear < front)[rows]
    scores = np.where(race, pubeval_scores(after, True), pubeval_scores(after, False))
    return scores.astype(np.float32)


def choose(
    net: ValueNet,
    env: BatchEnv,
    pending: npt.NDArray[np.int64],
    pubeval: npt.NDArray[np.bool_] | None = None,
) -> tuple[npt.NDArray[np.int64], Array, Array, npt.NDArray[np.bool_], Array]:
    """Each game's action (the second of a double already chosen, when one is pending),
    and for the games that chose a play: its inputs, its value for the mover, which games
    chose, and the points those that won by it won.  Games where ``pubeval`` is set choose
    pubeval's play (the first on ties, as the bot in :mod:`backgammon.env.lockstep`)."""
    x, names, rows, points, after = afterstates(env, net.inputs)
    won = points > 0
    worth = np.where(won, (3 + points) / 6, 1.0 - net.values(x))  # for the mover
    if pubeval is not None and pubeval.any():
        bot = pubeval[rows]
        worth[bot] = pubeval_worth(env, after[bot], rows[bot])
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
    inputs = np.zeros((env.n, x.shape[1]), np.float32)
    inputs[games] = x[best]
    value = np.zeros(env.n, np.float32)
    value[games] = worth[best]
    ended = np.zeros(env.n, np.float32)
    ended[games] = points[best]
    return actions, inputs, value, chose, ended


def train(net: ValueNet, games: int, seconds: float, seed: int, save: str | None = None) -> int:
    """Self-play in ``games`` lockstep games for ``seconds`` of CPU time; gives the games
    finished.  Every 10,000 games the net is saved to ``save`` (to evaluate or go on later)."""
    env = BatchEnv()
    env.reset(games, seed=seed)
    pending = np.full(games, -1, np.int64)
    last_x = np.zeros((games, n_inputs(net.inputs)), np.float32)
    maker = np.full(games, -1, np.int8)  # who left last_x (-1: no board yet this game)
    finished = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        mover = env.to_act.copy()
        actions, x, value, chose, ended = choose(net, env, pending)
        # The board this game's previous mover left is worth, to the side on roll there,
        # what this mover's choice is worth to it: this mover, or its opponent if this
        # mover left that board too (the side on roll there had no legal play).
        learn = chose & (maker >= 0)
        back = maker[learn] == mover[learn]
        xs, targets = [last_x[learn]], [np.where(back, 1 - value[learn], value[learn])]
        over = ended > 0
        xs.append(x[over])
        targets.append((3 - ended[over]) / 6)
        net.fit(np.concatenate(xs), np.concatenate(targets))
        last_x[chose] = x[chose]
        maker[chose] = mover[chose]
        _obs, _rewards, dones, _masks = env.step(actions)
        maker[dones] = -1
        finished += int(dones.sum())
        if finished // 10_000 != (finished - int(dones.sum())) // 10_000:
            print(f"  {finished:,} games, {time.process_time() - start:.0f} s", flush=True)
            if save:
                np.savez(save, *net.params)
    return finished


def first_games(net: ValueNet, seed: int, first: int, n: int, agent: int) -> Array:
    """The net's points in the first game of rows ``first`` to ``first + n - 1`` of
    ``seed``, playing player ``agent`` against pubeval."""
    env = BatchEnv()
    env.reset(n, seed=seed, first=first)
    pending = np.full(n, -1, np.int64)
    result = np.zeros(n, np.float32)
    over = np.zeros(n, np.bool_)
    while not over.all():
        actions, *_rest = choose(net, env, pending, pubeval=env.to_act != agent)
        _obs, rewards, dones, _masks = env.step(actions)
        fresh = dones & ~over
        result[fresh] = rewards[fresh, agent]
        over |= dones
    return result


def evaluate(net: ValueNet, games: int, seed: int) -> tuple[float, float, float]:
    """Points a game against pubeval with duplicate dice, their standard error, and the
    share of games won: each row's dice are played twice, the net player 0 then player 1,
    so luck cancels out within a pair (the error is over the pairs)."""
    pairs = (games + 1) // 2
    points = []
    for first in range(0, pairs, 1024):
        n = min(1024, pairs - first)
        points.append(np.stack([first_games(net, seed, first, n, agent) for agent in (0, 1)], 1))
    p = np.concatenate(points).astype(np.float64)
    mean = p.mean(axis=1)
    return float(mean.mean()), float(mean.std(ddof=1) / np.sqrt(pairs)), float((p > 0).mean())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--minutes", type=float, default=4.0)
    parser.add_argument("--games", type=int, default=256)
    parser.add_argument("--hidden", type=int, default=48)
    parser.add_argument("--eval-games", type=int, default=10_000)
    parser.add_argument("--rate", type=float, default=3e-3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--inputs", type=int, choices=(1, 2), default=1)
    parser.add_argument("--save", help="save the net here as it learns (.npz)")
    parser.add_argument("--load", help="start from a net saved by --save")
    args = parser.parse_args()
    net = ValueNet(n_inputs(args.inputs), args.hidden, np.random.default_rng(args.seed), args.rate)
    if args.load:
        with np.load(args.load) as saved:
            net.params = [saved[f"arr_{k}"] for k in range(4)]
    start = time.process_time()
    finished = train(net, args.games, 60 * args.minutes, args.seed, args.save)
    spent = time.process_time() - start
    print(f"trained on {finished:,} games of self-play in {spent:.0f} s of CPU time")
    ppg, se, won = evaluate(net, args.eval_games, seed=10**6 + args.seed)
    print(
        f"against pubeval: {ppg:+.3f} points a game (standard error {se:.3f}), "
        f"{won:.1%} of {2 * ((args.eval_games + 1) // 2):,} games won (duplicate dice)"
    )


if __name__ == "__main__":
    main()

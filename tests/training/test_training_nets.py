"""The one backward pass and the optimisers on it: the gradients are the loss's (checked by
finite differences), TD's step descends squared error by them, Adam's first step is the
step size against each gradient's sign."""

from __future__ import annotations

import numpy as np
import pytest

from backgammon.evaluation.net import Net
from backgammon.training.nets import Adam, backward, random_net, sgd_step


def _problem(seed: int) -> tuple[Net, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    net = random_net(7, 5, rng)
    net.b1 = rng.normal(0, 0.3, 5)
    net.b2 = rng.normal(0, 0.3, 5)
    return net, rng.random((9, 7)), rng.random((9, 5))


def _cross_entropy(net: Net, x: np.ndarray, t: np.ndarray) -> float:
    y = net.forward(x)[1]
    return float(-(t * np.log(y) + (1 - t) * np.log(1 - y)).sum())


def _half_squared_error(net: Net, x: np.ndarray, t: np.ndarray) -> float:
    return float(0.5 * ((net.forward(x)[1] - t) ** 2).sum())


def _numeric_gradients(loss, net: Net, x: np.ndarray, t: np.ndarray) -> list[np.ndarray]:  # type: ignore[no-untyped-def]
    out = []
    for a in (net.w1, net.b1, net.w2, net.b2):
        g = np.zeros_like(a)
        for i in np.ndindex(a.shape):
            keep = a[i]
            a[i] = keep + 1e-6
            up = loss(net, x, t)
            a[i] = keep - 1e-6
            down = loss(net, x, t)
            a[i] = keep
            g[i] = (up - down) / 2e-6
        out.append(g)
    return out


@pytest.mark.parametrize("seed", range(3))
def test_backward_gives_the_gradients_of_cross_entropy(seed: int) -> None:
    net, x, t = _problem(seed)
    h, y = net.forward(x)
    grads = backward(net, x, h, y - t)  # cross-entropy's derivative at the output sums
    for g, n in zip(grads, _numeric_gradients(_cross_entropy, net, x, t), strict=True):
        assert np.allclose(g, n, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("seed", range(3))
def test_the_td_step_descends_squared_error_by_its_gradient(seed: int) -> None:
    net, x, t = _problem(seed)
    before = [a.copy() for a in (net.w1, net.b1, net.w2, net.b2)]
    numeric = _numeric_gradients(_half_squared_error, net, x, t)
    loss = _half_squared_error(net, x, t)
    reported = sgd_step(net, x, t, 0.01)
    assert reported == pytest.approx(2 * loss)
    after = (net.w1, net.b1, net.w2, net.b2)
    for b, a, n in zip(before, after, numeric, strict=True):
        assert np.allclose(a, b - 0.01 * n, rtol=1e-6, atol=1e-9)
    assert _half_squared_error(net, x, t) < loss


def test_adams_first_step_is_its_size_against_each_gradients_sign() -> None:
    net, x, t = _problem(4)
    before = [a.copy() for a in (net.w1, net.b1, net.w2, net.b2)]
    h, y = net.forward(x)
    signs = [np.sign(g) for g in backward(net, x, h, y - t)]
    Adam(net, 1e-3).step(x, t)
    for b, a, s in zip(before, (net.w1, net.b1, net.w2, net.b2), signs, strict=True):
        assert np.allclose(a, b - 1e-3 * s, rtol=0, atol=1e-5)
        assert not np.allclose(a, b, rtol=0, atol=5e-4)


def test_adam_follows_the_derivative_it_is_given() -> None:
    net, x, t = _problem(5)
    plain, shifted = net.copy(), net.copy()
    Adam(plain, 1e-3).step(x, t)
    Adam(shifted, 1e-3).step(x, t, lambda _y, err: -err)  # the opposite loss
    assert np.allclose(shifted.w2 - net.w2, -(plain.w2 - net.w2), rtol=0, atol=1e-12)

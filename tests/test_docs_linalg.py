"""docs/linalg.md's worked example runs as written, and its result is the optimum that
scipy.optimize finds for the same likelihood written with scipy.linalg."""
import os
import re

import numpy as np
import scipy.linalg as sl
import scipy.optimize as so

import tenferro as tf

from conftest import central_grad

DOC = os.path.join(os.path.dirname(__file__), os.pardir, "docs", "linalg.md")


def _example():
    text = open(DOC).read()
    section = text[text.index("## Worked example"):]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def _scipy_nll(t, X, y):
    ell, sf2, sn2 = np.exp(t)
    d = X[:, None] - X[None, :]
    c = sl.cho_factor(sf2 * np.exp(-0.5 * d * d / ell**2) + sn2 * np.eye(len(X)), lower=True)
    return (0.5 * y @ sl.cho_solve(c, y) + np.sum(np.log(np.diag(c[0])))
            + 0.5 * len(X) * np.log(2 * np.pi))


def test_gp_worked_example(capsys):
    ns = {}
    exec(compile(_example(), "docs/linalg.md", "exec"), ns)
    printed = capsys.readouterr().out
    X, y = ns["X"], ns["y"]
    # the gradient the example descends is scipy's likelihood's (central differences)
    t0 = np.array([0.3, -0.2, -1.5])
    g = tf.grad(ns["nll"])(tf.asarray(t0))
    np.testing.assert_allclose(g.numpy(), central_grad(lambda t: _scipy_nll(t, X, y), t0),
                               rtol=1e-6, atol=1e-8)
    # and it reaches scipy.optimize's optimum
    best = so.minimize(_scipy_nll, np.zeros(3), args=(X, y))
    theta = ns["theta"].numpy()
    assert abs(_scipy_nll(theta, X, y) - best.fun) < 1e-3
    np.testing.assert_allclose(np.exp(theta), np.exp(best.x), rtol=2e-2)
    assert "nll 9.059" in printed   # the output quoted in the doc

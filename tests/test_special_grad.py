"""tenferro.special's derivatives at the edges of each domain, derivatives against
scipy's own functions, clear errors for what has no derivative, the device error on
another device (WebGPU, CUDA where present) and the composed functions there, traced
and compiled programs, and ``tf.special``.  (Gradchecks to order
2 at ordinary points: tests/special_specs.py, run by tests/test_autograd_rules.py.)"""
import math

import numpy as np
import pytest
import scipy.special as sc

import tenferro as tf
import tenferro.special as ts

from conftest import run_on


def grad(f, x):
    """d sum(f(x)) / dx, reverse mode, and the same in forward mode (they must agree)."""
    x = tf.asarray(np.asarray(x, dtype=float))
    g = tf.grad(lambda v: tf.sum(f(v)))(x).numpy()
    _, t = tf.jvp(f, (x,), (tf.ones_like(x),))
    np.testing.assert_allclose(g, t.numpy(), rtol=1e-15)
    return g


def test_derivatives_are_scipys_functions():
    x = np.array([0.3, 1.0, 2.5, 7.0, -0.5, -2.3])
    np.testing.assert_array_equal(grad(ts.gammaln, x), sc.psi(x))
    np.testing.assert_array_equal(grad(ts.digamma, x), sc.polygamma(1, x))
    for n in (1, 2, 4):
        np.testing.assert_array_equal(grad(lambda v: ts.polygamma(n, v), x),
                                      sc.polygamma(n + 1, x))
    np.testing.assert_array_equal(grad(ts.i0, x), sc.i1(x))
    # second derivatives: gammaln'' = polygamma(1), i0'' = i1' = i0 - i1/x
    g2 = tf.grad(lambda v: tf.sum(tf.grad(lambda w: tf.sum(ts.gammaln(w)))(v)))(
        tf.asarray(x)).numpy()
    np.testing.assert_array_equal(g2, sc.polygamma(1, x))
    g2 = tf.grad(lambda v: tf.sum(tf.grad(lambda w: tf.sum(ts.i0(w)))(v)))(tf.asarray(x))
    np.testing.assert_allclose(g2.numpy(), sc.i0(x) - sc.i1(x) / x, rtol=1e-15)
    # i1' and i1'' near 0 (the series branch): (I0 + I2)/2 and (3 I1 + I3)/4
    x = np.array([2e-2, 9e-3, 1e-4, 1e-7, 0.0, -3e-5])
    np.testing.assert_allclose(grad(ts.i1, x), (sc.iv(0, x) + sc.iv(2, x)) / 2, rtol=1e-15)
    g2 = tf.grad(lambda v: tf.sum(tf.grad(lambda w: tf.sum(ts.i1(w)))(v)))(tf.asarray(x))
    np.testing.assert_allclose(g2.numpy(), (3 * sc.iv(1, x) + sc.iv(3, x)) / 4, rtol=1e-11)
    a = np.array([0.5, 2.0, 3.5])
    np.testing.assert_allclose(grad(lambda v: ts.gammainc(a, v), [0.7, 1.0, 4.0]),
                               np.exp(-np.array([0.7, 1.0, 4.0])) *
                               np.array([0.7, 1.0, 4.0]) ** (a - 1) / sc.gamma(a),
                               rtol=1e-14)


def test_edge_derivatives():
    # xlogy: d/dx = log(y) at x = 0 too, d/dy = 0 there; finite at x = y = 0
    x, y = tf.asarray([0.0, 0.0, 2.0]), tf.asarray([3.0, 0.0, 0.5])
    gx, gy = tf.grad(lambda a, b: tf.sum(ts.xlogy(a, b)), argnums=(0, 1))(x, y)
    np.testing.assert_array_equal(gx.numpy(), [math.log(3.0), 0.0, math.log(0.5)])
    np.testing.assert_array_equal(gy.numpy(), [0.0, 0.0, 4.0])
    gx, gy = tf.grad(lambda a, b: tf.sum(ts.xlog1py(a, b)), argnums=(0, 1))(x, y - 1.0)
    assert np.isfinite(gx.numpy()).all() and gy.numpy()[:2].tolist() == [0.0, 0.0]
    # entr: -(log x + 1), +inf at 0, 0 where entr is the constant -inf
    np.testing.assert_array_equal(grad(ts.entr, [0.0, -1.0, 1.0, math.e]),
                                  [np.inf, 0.0, -1.0, -2.0])
    # rel_entr: log(x/y) + 1 in x (-inf at x = 0), -x/y in y (0 at x = 0)
    gx, gy = tf.grad(lambda a, b: tf.sum(ts.rel_entr(a, b)), argnums=(0, 1))(
        tf.asarray([0.0, 2.0, -1.0]), tf.asarray([1.0, 4.0, 1.0]))
    np.testing.assert_allclose(gx.numpy(), [-np.inf, math.log(0.5) + 1, 0.0])
    np.testing.assert_allclose(gy.numpy(), [0.0, -0.5, 0.0])
    gx, gy = tf.grad(lambda a, b: tf.sum(ts.kl_div(a, b)), argnums=(0, 1))(
        tf.asarray([0.0, 2.0]), tf.asarray([1.0, 4.0]))
    np.testing.assert_allclose(gx.numpy(), [-np.inf, math.log(0.5)])
    np.testing.assert_allclose(gy.numpy(), [1.0, 0.5])
    # erfinv: inf at +-1; logit: inf at 0 and 1
    np.testing.assert_allclose(grad(ts.erfinv, [-1.0, 0.0, 1.0]),
                               [np.inf, math.sqrt(math.pi) / 2, np.inf])
    np.testing.assert_allclose(grad(ts.logit, [0.0, 0.5, 1.0]), [np.inf, 4.0, np.inf])
    # i1'(0) = i1e'(0) = 1/2; gammainc's x-derivative at x = 0 by a
    np.testing.assert_array_equal(grad(ts.i1, [0.0]), [0.5])
    np.testing.assert_array_equal(grad(ts.i1e, [0.0]), [0.5])
    np.testing.assert_array_equal(
        grad(lambda v: ts.gammainc(np.array([0.5, 1.0, 2.0]), v), [0.0, 0.0, 0.0]),
        [np.inf, 1.0, 0.0])
    # sinc: 0 and -pi^2/3 at 0 (its Taylor branch), and NumPy's function elsewhere
    x0 = tf.asarray([0.0])
    assert grad(ts.sinc, [0.0]).tolist() == [0.0]
    d2 = tf.grad(lambda v: tf.sum(tf.grad(lambda w: tf.sum(ts.sinc(w)))(v)))(x0)
    np.testing.assert_allclose(d2.numpy(), [-math.pi ** 2 / 3], rtol=1e-14)
    x = np.array([0.5, 1.5, -2.2])
    np.testing.assert_allclose(grad(ts.sinc, x),
                               (np.cos(np.pi * x) - np.sinc(x)) / x, rtol=1e-13)


def test_softmax_family_derivatives():
    a = np.array([[0.3, -1.0, 2.0], [1.5, 0.2, -0.7]])
    g = tf.grad(lambda v: tf.sum(ts.logsumexp(v, axis=1)))(tf.asarray(a)).numpy()
    np.testing.assert_allclose(g, sc.softmax(a, axis=1), rtol=1e-15)
    b = np.array([2.0, 0.5, 1.0])
    g = tf.grad(lambda v: tf.sum(ts.logsumexp(v, axis=1, b=b)))(tf.asarray(a)).numpy()
    w = b * np.exp(a)
    np.testing.assert_allclose(g, w / w.sum(1, keepdims=True), rtol=1e-15)
    # d log_softmax_i / d x_j = delta_ij - softmax_j
    j = tf.jacrev(lambda v: ts.log_softmax(v))(tf.asarray(a[0])).numpy()
    np.testing.assert_allclose(j, np.eye(3) - sc.softmax(a[0])[None, :], rtol=1e-14)


def test_no_derivative_errors():
    a, x = tf.asarray([1.5, 2.0]), tf.asarray([0.5, 1.0])
    for f in (ts.gammainc, ts.gammaincc):
        name = f.__name__
        with pytest.raises(NotImplementedError, match=r"tenferro\.special\.%s: the "
                                                      r"derivative with respect to a" % name):
            tf.grad(lambda v: tf.sum(f(v, x)))(a)
        with pytest.raises(NotImplementedError, match="with respect to a"):
            tf.jvp(lambda v: f(v, x), (a,), (a,))
        tf.grad(lambda v: tf.sum(f(a, v)))(x)            # x alone: fine
    z = tf.asarray([1.0 + 1.0j])
    with pytest.raises(NotImplementedError, match=r"tenferro\.special\.digamma: no "
                                                  r"derivative for complex input"):
        tf.grad(lambda v: tf.sum(tf.real(ts.digamma(v))))(z)


def test_eager_tape_and_float32():
    x = tf.asarray(np.array([0.5, 1.5, 3.0], dtype=np.float32))
    x.requires_grad = True
    y = tf.sum(ts.gammaln(x) + ts.erfc(x) * ts.i1e(x) + ts.entr(x) + ts.sinc(x))
    y.backward()
    assert x.grad.dtype == tf.float32
    xd = np.array([0.5, 1.5, 3.0])
    want = (sc.psi(xd) - 2 / np.sqrt(np.pi) * np.exp(-xd ** 2) * sc.i1e(xd)
            + sc.erfc(xd) * (sc.i0e(xd) - sc.i1e(xd) * (1 + 1 / xd)) - (np.log(xd) + 1)
            + (np.cos(np.pi * xd) - np.sinc(xd)) / xd)
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=2e-6)


def test_traced_and_compiled():
    def f(x, y):
        return (ts.gammaln(x) * ts.erfcx(y) + ts.xlogy(x, y) + ts.entr(x)
                + ts.softmax(x) + ts.i0(y))
    x, y = np.array([0.5, 1.5, 3.0]), np.array([0.2, 1.0, 2.0])
    eager = f(tf.asarray(x), tf.asarray(y)).numpy()
    np.testing.assert_array_equal(tf.jit(f)(tf.asarray(x), tf.asarray(y)).numpy(), eager)
    g = tf.grad(lambda a, b: tf.sum(f(a, b)))
    np.testing.assert_allclose(tf.jit(g)(tf.asarray(x), tf.asarray(y)).numpy(),
                               g(tf.asarray(x), tf.asarray(y)).numpy(), rtol=1e-15)


def test_tf_special_is_the_subpackage():
    import tenferro.special
    assert tf.special is tenferro.special
    assert set(tenferro.special.__all__) >= {"gammaln", "logsumexp", "gammaincc", "psi"}
    for name in tenferro.special.__all__:
        assert callable(getattr(tf.special, name)) and getattr(tf.special, name).__doc__
        # a scipy ufunc's own name finds its tenferro function (digamma is scipy's psi)
        u = getattr(sc, name)
        if isinstance(u, np.ufunc):
            assert getattr(tf.special, u.__name__) is getattr(tf.special, name)


# -- another device ------------------------------------------------------------------------

KERNELS = [(ts.gammaln, 1), (ts.digamma, 1), (lambda x: ts.polygamma(1, x), 1),
           (ts.erfc, 1), (ts.erfcx, 1), (ts.erfinv, 1), (ts.i0, 1), (ts.i0e, 1),
           (ts.i1, 1), (ts.i1e, 1), (ts.betaln, 2), (ts.gammainc, 2), (ts.gammaincc, 2)]


def test_kernel_functions_refuse_other_devices(accel_device):
    """WebGPU (and CUDA where present): UnsupportedOperation naming the primitive, the
    device and the explicit move, before anything runs."""
    x = tf.asarray(np.array([0.25, 0.5], dtype=np.float32)).to(accel_device)
    for f, arity in KERNELS:
        with pytest.raises(tf.UnsupportedOperation, match=r"special\.\w+: not supported on "
                                                          r"device '%s'.*to_device"
                                                          % accel_device):
            f(*(x,) * arity)


COMPOSED = [("expit", sc.expit), ("logit", sc.logit), ("log_expit", sc.log_expit),
            ("entr", sc.entr), ("sinc", np.sinc), ("erf", sc.erf),
            ("softmax", sc.softmax), ("log_softmax", sc.log_softmax),
            ("logsumexp", sc.logsumexp)]


@pytest.mark.parametrize("name,ref", COMPOSED, ids=[n for n, _ in COMPOSED])
def test_compositions_run_on_other_devices(name, ref, accel_device):
    dev = accel_device
    x = np.array([0.0, 0.05, 0.3, 0.5, 0.9, 1.0, -0.7, 3.0], dtype=np.float32)
    got = run_on(dev, getattr(ts, name), tf.asarray(x).to(dev))
    assert got.device == dev and got.dtype == tf.float32
    np.testing.assert_allclose(got.to("cpu").numpy(), ref(x.astype(np.float64)),
                               rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("name", ["xlogy", "xlog1py", "rel_entr", "kl_div"])
def test_binary_compositions_run_on_other_devices(name, accel_device):
    dev = accel_device
    x = np.array([0.0, 0.5, 2.0, 0.0, 1.0], dtype=np.float32)
    y = np.array([0.0, 0.25, 3.0, -1.0, 2.0], dtype=np.float32)
    got = run_on(dev, getattr(ts, name), tf.asarray(x).to(dev), tf.asarray(y).to(dev))
    assert got.device == dev
    np.testing.assert_allclose(got.to("cpu").numpy(), getattr(sc, name)(x, y),
                               rtol=2e-5, atol=2e-6)


def test_docs_worked_example(capsys):
    """docs/special.md's example runs as written, and finds the optimum scipy.optimize
    finds for the same likelihood written with scipy.special."""
    import os
    import re

    import scipy.optimize as so

    with open(os.path.join(os.path.dirname(__file__), os.pardir, "docs", "special.md")) as fh:
        text = fh.read()
    code = re.search(r"```python\n(.*?)```", text[text.index("## Worked example"):],
                     re.S).group(1)
    ns = {}
    exec(compile(code, "docs/special.md", "exec"), ns)
    assert capsys.readouterr().out.startswith("shape ")
    x = ns["x"]

    def nll(t):
        k, r = np.exp(t)
        return -np.sum(sc.xlogy(k, r) + sc.xlogy(k - 1, x) - r * x - sc.gammaln(k))
    want = so.minimize(nll, np.zeros(2), method="Nelder-Mead",
                       options={"xatol": 1e-10, "fatol": 1e-12}).x
    np.testing.assert_allclose(ns["res"].x, want, atol=1e-6)

"""Eager ``tenferro.checkpoint`` of a function that closes over tensors requiring grad:
their gradients equal those of the same code without checkpoint (they were silently
dropped when an argument also required grad), for leaves and non-leaves, through a
jit program inside the function, nested checkpoints, double backward, complex values
and parallel backward; each against NumPy's closed form or central differences."""
import numpy as np
import pytest

import tenferro as tf

from conftest import central_grad


def _leaf(a):
    t = tf.asarray(np.array(a))
    t.requires_grad = True
    return t


def _grads(fn, *leaves, num_workers=None):
    for t in leaves:
        t.grad = None
    fn().backward(num_workers=num_workers)
    return [np.asarray(t.grad) for t in leaves]


def _both(build, leaves, **kw):
    """Gradients of ``build(checkpointed)`` with and without the checkpoint."""
    ck = _grads(lambda: build(True), *leaves, **kw)
    plain = _grads(lambda: build(False), *leaves, **kw)
    return ck, plain


def _maybe(ck, f, *args):
    return tf.checkpoint(f, *args) if ck else f(*args)


@pytest.mark.parametrize("num_workers", [None, 2])
def test_leaf_closure_gets_its_gradient(num_workers):
    rng = np.random.default_rng(0)
    xn, wn = rng.standard_normal((4, 3)), rng.standard_normal(3)
    x, w = _leaf(xn), _leaf(wn)
    ck, plain = _both(lambda c: _maybe(c, lambda a: tf.sin(a * w).sum(), x), [x, w],
                      num_workers=num_workers)
    np.testing.assert_allclose(ck[1], (xn * np.cos(xn * wn)).sum(0), rtol=1e-12)
    np.testing.assert_allclose(ck[0], wn * np.cos(xn * wn), rtol=1e-12)
    for a, b in zip(ck, plain):
        np.testing.assert_array_equal(a, b)


def test_nonleaf_closure_gradient_flows_through_its_graph():
    rng = np.random.default_rng(1)
    xn, wn = rng.standard_normal((4, 3)), rng.standard_normal(3)
    x, w = _leaf(xn), _leaf(wn)

    def build(c):
        v = tf.exp(w)   # computed outside the checkpoint, closed over inside
        return _maybe(c, lambda a: (tf.sin(a * v) * v).sum(), x) + v.sum()
    ck, plain = _both(build, [x, w])
    f = lambda wv: float((np.sin(xn * np.exp(wv)) * np.exp(wv)).sum() + np.exp(wv).sum())
    np.testing.assert_allclose(ck[1], central_grad(f, wn), rtol=1e-6)
    for a, b in zip(ck, plain):
        np.testing.assert_allclose(a, b, rtol=1e-14)


def test_closure_read_by_a_jit_program_inside_the_checkpoint():
    rng = np.random.default_rng(2)
    xn, wn = rng.standard_normal((5, 2)), rng.standard_normal(2)
    x, w = _leaf(xn), _leaf(wn)
    closes = tf.jit(lambda a: (a * w).sum())           # w is a constant of the program
    takes = tf.jit(lambda a, b: (tf.cos(a) * b).sum())  # w passed as an argument
    ck, plain = _both(lambda c: _maybe(c, lambda a: closes(tf.sin(a)) + takes(a, w), x),
                      [x, w])
    np.testing.assert_allclose(ck[1], np.sin(xn).sum(0) + np.cos(xn).sum(0), rtol=1e-12)
    for a, b in zip(ck, plain):
        np.testing.assert_allclose(a, b, rtol=1e-14)


def test_nested_checkpoints_and_a_closure_that_is_also_an_argument():
    rng = np.random.default_rng(3)
    xn, wn = rng.standard_normal(3), rng.standard_normal(3)
    x, w = _leaf(xn), _leaf(wn)

    def build(c):
        inner = lambda a: _maybe(c, lambda b: tf.tanh(b * w), a)
        return _maybe(c, lambda a, u: (inner(a) * u * w).sum(), x, w)
    ck, plain = _both(build, [x, w])
    f = lambda wv: float((np.tanh(xn * wv) * wv * wv).sum())
    np.testing.assert_allclose(ck[1], central_grad(f, wn), rtol=1e-6)
    for a, b in zip(ck, plain):
        np.testing.assert_allclose(a, b, rtol=1e-14)


def test_complex_closure_and_double_backward():
    rng = np.random.default_rng(4)
    xn = rng.standard_normal(3) + 1j * rng.standard_normal(3)
    wn = rng.standard_normal(3) + 1j * rng.standard_normal(3)
    x, w = _leaf(xn), _leaf(wn)
    ck, plain = _both(lambda c: tf.real(_maybe(c, lambda a: (a * w * tf.conj(a * w)).sum(),
                                               x)), [x, w])
    for a, b in zip(ck, plain):
        np.testing.assert_allclose(a, b, rtol=1e-13)
    # second order: d/dw of sum(grad_x) with the closure inside the checkpoint
    y, v = _leaf(np.array([0.3, -0.7])), _leaf(np.array([1.1, 0.4]))
    out = tf.checkpoint(lambda a: (tf.sin(a * v)).sum(), y)
    (gy,) = tf.autograd.grad(out, [y], create_graph=True)
    gy.sum().backward()
    yn, vn = np.array([0.3, -0.7]), np.array([1.1, 0.4])
    # d/dv sum(v cos(y v)) = cos(y v) - y v sin(y v)
    np.testing.assert_allclose(np.asarray(v.grad), np.cos(yn * vn) - yn * vn * np.sin(yn * vn),
                               rtol=1e-12)

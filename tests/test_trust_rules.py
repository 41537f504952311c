"""Regression tests for the blind spots of the rule and kernel tests (issue 15): bugs
planted one at a time in the rule tables, the linalg broadening and the reduction
kernels that the rest of the suite let through.  Expectations come from NumPy or from
hand-derived values, never from tenferro itself."""
import numpy as np
import pytest

import tenferro as tf

NAN, INF = np.nan, np.inf


def _grads(f, x, y):
    g = tf.grad(lambda a, b: f(a, b).sum(), argnums=(0, 1))(tf.asarray(x), tf.asarray(y))
    return g[0].numpy(), g[1].numpy()


# -- maximum/minimum/fmax/fmin: the gradient goes to the operand NumPy returns ---------
# x, y and NumPy's choice: the output is x (1), y (0) or a tie (0.5 each)
_X = np.array([NAN, 1.0, NAN, 2.0, 3.0, 1.0, INF, -INF, NAN])
_Y = np.array([1.0, NAN, NAN, 2.0, 1.0, 3.0, INF, 0.0, INF])


def _numpy_share(op, x, y):
    """x's share of the gradient: 1 where op returns x (the first on double NaNs, as
    NumPy documents), 0.5 on ties of equal non-NaN values, else 0."""
    out = getattr(np, op)(x, y)
    same_x = (out == x) | (np.isnan(out) & np.isnan(x))
    same_y = (out == y) | (np.isnan(out) & np.isnan(y))
    both_nan = np.isnan(x) & np.isnan(y)
    return np.where(both_nan, 1.0, np.where(same_x & same_y, 0.5, np.where(same_x, 1.0, 0.0)))


@pytest.mark.parametrize("op", ["maximum", "minimum", "fmax", "fmin"])
def test_minmax_gradient_goes_to_the_returned_operand_with_nans(op):
    # regression: fmax/fmin with the NaN masks swapped sent the gradient to the NaN
    # operand; maximum/minimum gave the full gradient to both operands of a NaN
    gx, gy = _grads(getattr(tf, op), _X, _Y)
    want = _numpy_share(op, _X, _Y)
    np.testing.assert_array_equal(gx, want)
    np.testing.assert_array_equal(gy, 1.0 - want)


@pytest.mark.parametrize("op", ["maximum", "minimum", "fmax", "fmin"])
def test_minmax_jvp_routes_like_the_vjp_with_nans(op):
    f = getattr(tf, op)
    want = _numpy_share(op, _X, _Y)
    tx, ty = np.full(_X.shape, 3.0), np.full(_X.shape, 5.0)
    _, t = tf.jvp(f, (tf.asarray(_X), tf.asarray(_Y)), (tf.asarray(tx), tf.asarray(ty)))
    np.testing.assert_array_equal(t.numpy(), want * tx + (1 - want) * ty)


@pytest.mark.parametrize("op", ["maximum", "minimum", "fmax", "fmin"])
def test_minmax_ties_split_the_gradient_half_and_half(op):
    gx, gy = _grads(getattr(tf, op), [2.0, -1.0, 0.0], [2.0, -1.0, -0.0])
    np.testing.assert_array_equal(gx, [0.5, 0.5, 0.5])
    np.testing.assert_array_equal(gy, [0.5, 0.5, 0.5])


@pytest.mark.parametrize("op", ["max", "min"])
def test_max_min_reduction_gradient_goes_to_the_nans(op):
    # the NaN extremum is "taken" from the NaN positions: they share the gradient as ties
    # do (was: 0/0, NaN everywhere, including the positions that cannot matter)
    x = tf.asarray([1.0, NAN, 3.0, NAN, -2.0])
    g = tf.grad(lambda v: getattr(tf, op)(v))(x).numpy()
    np.testing.assert_array_equal(g, [0, 0.5, 0, 0.5, 0])
    _, t = tf.jvp(getattr(tf, op), (x,), (tf.asarray([1.0, 2.0, 3.0, 4.0, 5.0]),))
    assert float(t) == 3.0
    xs = tf.asarray([[1.0, NAN], [4.0, 2.0]])
    g = tf.grad(lambda v: getattr(tf, op)(v, axis=1).sum())(xs).numpy()
    np.testing.assert_array_equal(g, [[0, 1], [op == "max", op == "min"]])

"""Behaviour the docstrings promise, where the docstring audit of issue 23 found the
code did otherwise (each test names what was wrong).

- tenferro.random: a negative ``scale`` with a complex dtype was accepted (the Raises
  section promises ValueError); a complex ``loc`` with a real dtype and a negative
  ``size`` raised NumPy's messages, which do not name the function.
- tenferro.array_api.vecdot: an out-of-range ``axis`` raised a bare IndexError (the
  docstring says ValueError).
"""
import numpy as np
import pytest

import tenferro as tf


@pytest.mark.parametrize("dtype", [tf.float64, tf.complex128])
def test_normal_negative_scale(dtype):
    with pytest.raises(ValueError, match="tenferro.random.normal: scale"):
        tf.random.normal(0.0, -1.0, size=2, dtype=dtype)
    g = tf.random.default_rng(0)
    with pytest.raises(ValueError, match="tenferro.random.normal: scale"):
        g.normal(0.0, -1.0, size=2, dtype=dtype)


def test_normal_nan_scale_as_numpy():
    assert np.isnan(np.asarray(tf.random.normal(0.0, float("nan"))))


def test_normal_complex_loc():
    with pytest.raises(TypeError, match="tenferro.random.normal: a complex loc"):
        tf.random.normal(1j, size=2)
    z = np.asarray(tf.random.default_rng(1).normal(1j, 0.0, size=2, dtype=tf.complex128))
    assert np.array_equal(z, [1j, 1j])


@pytest.mark.parametrize("call", [
    lambda: tf.random.normal(size=(2, -1)),
    lambda: tf.random.standard_normal(-1),
    lambda: tf.random.uniform(size=-3),
    lambda: tf.random.random((-1,)),
    lambda: tf.random.integers(0, 3, size=-2),
])
def test_negative_size_names_the_function(call):
    with pytest.raises(ValueError, match=r"tenferro\.random\.\w+: negative dimensions"):
        call()


@pytest.mark.parametrize("dtype", [tf.float64, tf.complex128])
def test_uniform_high_below_low(dtype):
    with pytest.raises(ValueError, match="tenferro.random.uniform: high must be >= low"):
        tf.random.uniform(1.0, 0.0, size=2, dtype=dtype)


def test_array_parameters_still_accepted_as_numpy():
    # the checks above must not break NumPy's array loc/scale/low/high
    g, n = tf.random.default_rng(0), np.random.default_rng(0)
    z, o = np.zeros(3), np.ones(3)
    np.testing.assert_allclose(g.normal(z, o), n.normal(z, o))
    np.testing.assert_allclose(g.uniform(z, o), n.uniform(z, o))
    with pytest.raises(ValueError, match="tenferro.random.normal: scale must be >= 0"):
        g.normal(0.0, np.array([1.0, -1.0]))
    with pytest.raises(ValueError, match="tenferro.random.uniform: high must be >= low"):
        g.uniform(np.array([0.0, 2.0]), np.array([1.0, 1.0]))


def test_sizes_still_accepted():
    assert tf.random.normal(size=np.int64(3)).shape == (3,)
    assert tf.random.uniform(size=(0, 2)).shape == (0, 2)
    assert tf.random.normal().shape == ()


@pytest.mark.parametrize("axis", [2, -3, 5])
def test_vecdot_axis_out_of_range(axis):
    xp = tf.array_api
    with pytest.raises(ValueError, match="tenferro.array_api.vecdot: axis .* out of range"):
        xp.vecdot(xp.ones((2, 2)), xp.ones((2, 2)), axis=axis)


@pytest.mark.parametrize("axis", [0, 1, -1, -2])
def test_vecdot_axis_in_range(axis):
    xp = tf.array_api
    x = np.arange(6.0).reshape(2, 3)[:, :2]
    np.testing.assert_allclose(np.asarray(xp.vecdot(tf.asarray(x), tf.asarray(x), axis=axis)),
                               np.vecdot(x, x, axis=axis))


def test_det_second_derivative_exact_at_an_exactly_singular_matrix():
    # linalg.det's docstring: exact derivatives (cofactors) where the computed
    # determinant is exactly 0; this matrix's LU gives det == 0 exactly.
    a = tf.asarray([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.5, 1.0, 0.3]])
    assert float(np.asarray(tf.linalg.det(a))) == 0.0
    assert tf.autograd.gradcheck(tf.linalg.det, (a,), order=2)

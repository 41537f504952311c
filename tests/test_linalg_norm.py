"""tenferro.linalg norm against numpy.linalg.norm / scipy.linalg.norm for every ord, axis
and keepdims, every dtype, batched; derivatives (gradcheck to order 2, forward and
reverse, real and complex) at generic points; the zero subgradient at a zero input;
errors."""
import numpy as np
import pytest
import scipy.linalg as sl

import tenferro as tf
from tenferro import autograd
from tenferro.linalg._norm import norm

from conftest import assert_close, sample, stable_rng

DTYPES = ["int64", "float32", "float64", "complex64", "complex128"]
VECTOR_ORDS = [None, np.inf, -np.inf, 0, 1, -1, 2, 3, 0.5, -2.5]
MATRIX_ORDS = [None, "fro", "nuc", 2, -2, 1, -1, np.inf, -np.inf]
RTOL = {"float32": 2e-5, "complex64": 2e-5, "float64": 1e-13, "complex128": 1e-13,
        "int64": 1e-13}


def _data(dtype, shape, key):
    x = sample(stable_rng("norm", dtype, shape, key), shape, dtype)
    if np.dtype(dtype).kind in "iu":
        x[(0,) * x.ndim] = 0   # a zero entry: ord 0 counts it
    return x


def _check(got, want, dtype):
    want = np.asarray(want)
    assert_close(got, want, dtype=want.dtype, rtol=RTOL[dtype], atol=0)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("ord", VECTOR_ORDS, ids=str)
@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("keepdims", [False, True])
def test_vector_norms_vs_numpy(dtype, ord, axis, keepdims):
    x = _data(dtype, (3, 4, 5), "v")
    with np.errstate(divide="ignore"):
        want = np.linalg.norm(x, ord, axis, keepdims)
    _check(norm(x, ord, axis, keepdims), want, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("ord", MATRIX_ORDS, ids=str)
@pytest.mark.parametrize("axis", [(0, 1), (2, 0), (-1, -2), (1, 2)], ids=str)
@pytest.mark.parametrize("keepdims", [False, True])
def test_matrix_norms_vs_numpy(dtype, ord, axis, keepdims):
    x = _data(dtype, (3, 4, 5), "m")
    _check(norm(x, ord, axis, keepdims), np.linalg.norm(x, ord, axis, keepdims), dtype)


def _scipy(x, ord=None, keepdims=False):
    """scipy.linalg.norm's value in NumPy's result dtype (scipy returns float64 for some
    float32 cases, those going through BLAS nrm2; tenferro keeps NumPy's float32)."""
    with np.errstate(divide="ignore"):
        return np.asarray(sl.norm(x, ord, keepdims=keepdims)).astype(
            np.linalg.norm(x, ord, keepdims=keepdims).dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("keepdims", [False, True])
def test_default_and_1d_2d_norms_vs_scipy(dtype, keepdims):
    for shape in [(), (5,), (3, 4), (2, 3, 4)]:   # ord None, axis None: flattened 2-norm
        x = _data(dtype, shape, "d")
        _check(norm(x, keepdims=keepdims), _scipy(x, keepdims=keepdims), dtype)
    v, m = _data(dtype, (5,), "1d"), _data(dtype, (3, 4), "2d")
    for ord in VECTOR_ORDS:   # a 1-D array: vector norms
        _check(norm(v, ord, keepdims=keepdims), _scipy(v, ord, keepdims), dtype)
    for ord in MATRIX_ORDS:   # a 2-D array: matrix norms
        _check(norm(m, ord, keepdims=keepdims), _scipy(m, ord, keepdims), dtype)


def test_norm_errors():
    x = np.ones((2, 3, 4))
    with pytest.raises(ValueError, match=r"norm: invalid norm order 'fro' for vectors "
                                         r"\(shape \(2, 3, 4\), axis \(1,\)\)"):
        norm(x, "fro", axis=1)
    with pytest.raises(ValueError, match=r"norm: invalid norm order 3 for matrices "
                                         r"\(shape \(2, 3, 4\), axis \(0, 1\)\)"):
        norm(x, 3, axis=(0, 1))
    with pytest.raises(ValueError, match="norm: invalid norm order 'foo' for matrices"):
        norm(np.ones((2, 2)), "foo")
    with pytest.raises(ValueError, match=r"norm: improper number of dimensions to norm: "
                                         r"ord=2 needs a 1-D or 2-D array or an axis, got "
                                         r"shape \(2, 3, 4\)"):
        norm(x, 2)
    with pytest.raises(ValueError, match=r"norm: improper number of dimensions to norm: "
                                         r"axis \(0, 1, 2\)"):
        norm(x, axis=(0, 1, 2))
    with pytest.raises(ValueError, match=r"norm: duplicate axes given: \(1, -2\)"):
        norm(x, axis=(1, -2))
    with pytest.raises(ValueError, match=r"norm: axis 3 is out of bounds for an array of "
                                         r"shape \(2, 3, 4\)"):
        norm(x, axis=3)
    with pytest.raises(TypeError, match="norm: axis must be None, an int or a tuple of ints, "
                                        "got 1.5"):
        norm(x, axis=1.5)
    with pytest.raises(ValueError, match="norm: array must not contain infs or NaNs"):
        norm(np.array([1.0, np.inf]))
    assert norm(np.array([1.0, np.inf]), check_finite=False).item() == np.inf


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("ord", [None, np.inf, -np.inf, 1, -1, 2, 3, 1.5, 0.5, -2.5],
                         ids=str)
@pytest.mark.parametrize("keepdims", [False, True])
def test_vector_norm_gradcheck(dtype, ord, keepdims):
    # generic points: no zero entries, no ties of |x| (inf/-inf pick one entry)
    x = tf.asarray(sample(stable_rng("gv", dtype), (3, 4), dtype))
    autograd.gradcheck(lambda x: norm(x, ord, 1, keepdims), (x,), modes=("jvp", "vjp"),
                       order=2)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("ord", MATRIX_ORDS, ids=str)
@pytest.mark.parametrize("shape,axis", [((3, 4), None), ((4, 2, 3), (2, 0))], ids=str)
def test_matrix_norm_gradcheck(dtype, ord, shape, axis):
    x = tf.asarray(sample(stable_rng("gm", dtype, shape), shape, dtype))
    autograd.gradcheck(lambda x: norm(x, ord, axis), (x,), modes=("jvp", "vjp"), order=2)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_gradient_at_zero_is_zero_not_nan(dtype):
    z = tf.asarray(np.zeros((3, 4), dtype))
    cases = [(o, None) for o in MATRIX_ORDS] + [(o, 1) for o in
                                                [None, np.inf, -np.inf, 0, 1, 2, 3, 1.5]]
    # the p-norms (and Frobenius) have the subgradient 0 at 0, as PyTorch; svdvals-based
    # and max/min-based norms give another valid, finite one (nuc: U V^H, as PyTorch)
    zero = [(None, None), ("fro", None), (None, 1), (0, 1), (1, 1), (2, 1), (3, 1), (1.5, 1)]
    for ord, axis in cases:
        g = tf.grad(lambda x: norm(x, ord, axis).sum())(z).numpy()
        assert np.all(np.isfinite(g)), (ord, axis, g)
        if (ord, axis) in zero:
            assert np.all(g == 0), (ord, axis, g)
        t = autograd.jvp(lambda x: norm(x, ord, axis), (z,), (tf.ones_like(z),))[1].numpy()
        assert np.all(np.isfinite(t)), (ord, axis, t)
    # the whole-array 2-norm of a zero array, and one zero row in a batch of vectors
    assert np.all(tf.grad(lambda x: norm(x))(z).numpy() == 0)
    x = np.array([[0.0, 0.0], [3.0, 4.0]], dtype)
    g = tf.grad(lambda x: norm(x, axis=1).sum())(tf.asarray(x)).numpy()
    assert_close(tf.asarray(g), np.array([[0, 0], [0.6, 0.8]], dtype), rtol=1e-15)
    torch = pytest.importorskip("torch")   # (last: PyTorch is optional; the same subgradient)
    tx = torch.tensor(x, requires_grad=True)
    torch.linalg.vector_norm(tx, dim=1).sum().backward()
    np.testing.assert_allclose(g, tx.grad.numpy(), rtol=1e-15)


def test_vector_norm_shape_rule_agrees_with_eager_result():
    from tenferro.linalg._norm import vector_norm_p
    for dtype in ["float32", "complex64", "complex128"]:
        x = tf.asarray(sample(stable_rng("aval", dtype), (2, 3, 4), dtype))
        out = vector_norm_p.bind(x, p=3.0, axes=(0, 2))
        assert vector_norm_p.abstract_eval((x.shape, x.dtype), p=3.0, axes=(0, 2)) == \
            (out.shape, out.dtype) == ((1, 3, 1), tf.real(x).dtype)

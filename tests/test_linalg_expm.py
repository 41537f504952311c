"""tenferro.linalg expm / expm_frechet against scipy.linalg, matrix_power against
numpy.linalg, and their derivatives (gradcheck to order 2, forward and reverse, real and
complex, batched); special matrices (nilpotent, diagonal, triangular, large norms,
batches of very different norms); errors."""
import numpy as np
import pytest
import scipy.linalg as sl

import tenferro as tf
from tenferro import autograd
from tenferro.linalg import LinAlgError
from tenferro.linalg._expm import expm, expm_frechet, matrix_power

from conftest import MATRIX_LAYOUTS, assert_close, matrix_layout, sample, stable_rng

DTYPES = ["float32", "float64", "complex64", "complex128"]
# normwise relative error vs scipy's float64/complex128 result for the same input
NTOL = {"float32": 1e-4, "complex64": 1e-4, "float64": 1e-13, "complex128": 1e-13}
# scipy's own error grows with the norm (up to 4e-12 against a 50-digit reference at
# ||A||_1 ~ 100, where tenferro's is 4e-14: test_expm_vs_high_precision)
LARGE = 100
WIDE = {"float32": "float64", "complex64": "complex128"}


def _scipy_expm(a):
    """scipy's expm of each matrix, in double precision."""
    a = np.asarray(a).astype(WIDE.get(np.asarray(a).dtype.name, np.asarray(a).dtype))
    return np.stack([sl.expm(m) for m in a.reshape((-1,) + a.shape[-2:])]).reshape(a.shape)


def _close_normwise(got, want, tol):
    got, want = np.asarray(got).astype(complex), np.asarray(want).astype(complex)  # no overflow
    assert got.shape == want.shape, (got.shape, want.shape)
    for g, w in zip(got.reshape((-1,) + want.shape[-2:]), want.reshape((-1,) + want.shape[-2:])):
        assert np.linalg.norm(g - w) <= tol * np.linalg.norm(w), np.linalg.norm(g - w)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("scale", [1e-3, 0.1, 1.0, 5.0, 20.0])
@pytest.mark.parametrize("batch", [(), (2, 3)], ids=str)
@pytest.mark.parametrize("layout", MATRIX_LAYOUTS)
def test_expm_vs_scipy(dtype, scale, batch, layout):
    a = sample(stable_rng("expm", dtype, scale, batch), batch + (4, 4), dtype) * \
        np.asarray(scale, dtype=dtype)
    got = expm(tf.asarray(matrix_layout(a, layout)))
    assert got.dtype == tf.asarray(a).dtype and got.shape == a.shape
    _close_normwise(got, _scipy_expm(a), NTOL[dtype] * (LARGE if scale > 1 else 1))


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_expm_vs_high_precision(dtype):
    import mpmath as mp  # a test dependency (the "test" extra)
    mp.mp.dps = 50
    a = sample(stable_rng("mp", dtype), (6, 4, 4), dtype) * np.array(
        [0.01, 0.3, 1.0, 5.0, 20.0, 30.0])[:, None, None]
    want = np.array([np.array(mp.expm(mp.matrix(m.tolist())).tolist(), dtype=complex)
                     for m in a])
    want = want if dtype == "complex128" else want.real
    _close_normwise(expm(a), want, 1e-13)
    # triangular matrices (Code Fragment 2.1 fixes the diagonals while squaring): upper,
    # lower, a batch, and a badly scaled 2x2 where scipy is off by 8e-13
    g = stable_rng("mptri", dtype)
    tri = [np.triu(sample(g, (5, 5), dtype)) * 30, np.tril(sample(g, (5, 5), dtype)) * 30,
           np.triu(sample(g, (2, 4, 4), dtype)) * np.array([0.01, 20.0])[:, None, None],
           np.array([[1.0, 1e6], [0.0, 1.0001]], dtype),
           np.array([[0.5, 1e3, 0], [0, 0.50001, 1e3], [0, 0, 0.5]], dtype)]
    for t in tri:
        got = expm(t).numpy()
        for x, m in zip(got.reshape((-1,) + t.shape[-2:]), t.reshape((-1,) + t.shape[-2:])):
            want = np.array(mp.expm(mp.matrix(m.tolist())).tolist(), dtype=complex)
            want = want if dtype == "complex128" else want.real
            _close_normwise(x, want, 1e-14)
            assert not np.any(np.tril(x, -1) if not np.any(np.tril(m, -1)) else np.triu(x, 1))


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_expm_batch_of_very_different_norms(dtype):
    # each matrix gets its own degree and scaling: compare matrix by matrix with scipy
    scales = np.array([0.0, 1e-8, 1e-2, 0.5, 3.0, 30.0, 150.0])
    a = sample(stable_rng("norms", dtype), (7, 5, 5), dtype) * scales[:, None, None]
    _close_normwise(expm(a), _scipy_expm(a), NTOL[dtype] * LARGE)
    assert_close(expm(a)[0], np.eye(5, dtype=dtype))   # expm(0) = I exactly


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_expm_special_matrices(dtype):
    # nilpotent: expm(N) = I + N + N^2/2 exactly
    n = np.triu(sample(stable_rng("nil", dtype), (4, 4), dtype), 1)
    assert_close(expm(n), np.eye(4) + n + n @ n / 2 + n @ n @ n / 6, rtol=1e-14, atol=1e-15)
    # diagonal (batched, with large entries): entrywise exp, as scipy
    d = np.array([[1.0, -30.0, 50.0], [0.0, 2.0, -1.0]]).astype(dtype)
    want = np.stack([np.diag(np.exp(v)) for v in d])
    assert_close(expm(np.stack([np.diag(v) for v in d])), want, rtol=1e-14, atol=0)
    # upper triangular with a large norm: needs squaring
    t = np.triu(sample(stable_rng("tri", dtype), (5, 5), dtype)) * 20
    _close_normwise(expm(t), _scipy_expm(t), NTOL[dtype] * LARGE)
    # 2x2 rotation generator: expm([[0, -x], [x, 0]]) = [[cos x, -sin x], [sin x, cos x]]
    x = 2.5
    assert_close(expm(np.array([[0, -x], [x, 0]], dtype=dtype)),
                 np.array([[np.cos(x), -np.sin(x)], [np.sin(x), np.cos(x)]], dtype=dtype),
                 rtol=1e-14, atol=1e-15)
    # 1x1 and empty
    assert_close(expm(np.array([[0.5]], dtype=dtype)), np.exp(np.array([[0.5]], dtype=dtype)))
    assert expm(np.zeros((2, 0, 0), dtype)).shape == (2, 0, 0)
    assert expm(np.zeros((0, 3, 3), dtype)).shape == (0, 3, 3)


def test_expm_promotes_ints_and_errors():
    got = expm(np.array([[1, 2], [0, 1]]))
    assert got.dtype == tf.float64
    assert_close(got, sl.expm(np.array([[1.0, 2.0], [0.0, 1.0]])), rtol=1e-14)
    with pytest.raises(ValueError, match=r"expm: expected square matrices \[..., N, N\], "
                                         r"got shape \(2, 3\)"):
        expm(np.ones((2, 3)))
    with pytest.raises(ValueError, match=r"expm: expected a matrix or a stack"):
        expm(np.ones(3))
    with pytest.raises(ValueError, match="expm: array must not contain infs or NaNs"):
        expm(np.array([[np.nan, 1.0], [0.0, 1.0]]))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("scale", [0.01, 1.0, 30.0])
@pytest.mark.parametrize("batch", [(), (3,)], ids=str)
def test_expm_frechet_vs_scipy(dtype, scale, batch):
    g = stable_rng("frechet", dtype, scale, batch)
    a = sample(g, batch + (4, 4), dtype) * np.asarray(scale, dtype=dtype)
    e = sample(g, batch + (4, 4), dtype) * np.asarray(1e3, dtype=dtype)  # |E| >> |A|
    ea, l = expm_frechet(a, e)
    wide = WIDE.get(dtype, dtype)
    want = [sl.expm_frechet(x, y) for x, y in zip(a.reshape(-1, 4, 4).astype(wide),
                                                   e.reshape(-1, 4, 4).astype(wide))]
    tol = NTOL[dtype] * (LARGE if scale > 1 else 1)
    _close_normwise(ea, np.stack([w[0] for w in want]).reshape(a.shape), tol)
    _close_normwise(l, np.stack([w[1] for w in want]).reshape(a.shape), tol)
    assert ea.dtype == tf.asarray(a).dtype and l.dtype == ea.dtype
    l2 = expm_frechet(a, e, compute_expm=False, method="blockEnlarge")
    assert isinstance(l2, tf.Tensor)
    _close_normwise(l2, np.asarray(l), 1e-15)


def test_expm_frechet_special_cases_and_errors():
    # commuting A and E: L(A, E) = E expm(A)
    a = np.diag([1.0, 2.0, -3.0])
    e = np.diag([0.5, -1.0, 2.0])
    assert_close(expm_frechet(a, e)[1], e @ np.diag(np.exp([1.0, 2.0, -3.0])), rtol=1e-14)
    # zero E and zero A; broadcasting of E's batch against A's; ints promoted
    assert_close(expm_frechet(a, np.zeros((3, 3)))[1], np.zeros((3, 3)))
    assert_close(expm_frechet(np.zeros((3, 3)), e)[1], e, rtol=1e-15)
    b = sample(stable_rng("fb"), (2, 3, 3), "float64")
    ea, l = expm_frechet(b, np.eye(3, dtype=int))
    assert l.dtype == tf.float64 and l.shape == (2, 3, 3)
    _close_normwise(l, np.stack([sl.expm_frechet(x, np.eye(3))[1] for x in b]), 1e-13)
    with pytest.raises(ValueError, match=r"expm_frechet: expected A and E to be the same "
                                         r"shape, got \(3, 3\) and \(2, 2\)"):
        expm_frechet(np.eye(3), np.eye(2))
    with pytest.raises(ValueError, match="expm_frechet: method must be None, 'SPS' or "
                                         "'blockEnlarge', got 'foo'"):
        expm_frechet(np.eye(3), np.eye(3), method="foo")
    with pytest.raises(ValueError, match="expm_frechet: array must not contain infs"):
        expm_frechet(np.eye(2), np.array([[np.inf, 0], [0, 0]]))


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("shape", [(3, 3), (2, 3, 3)], ids=str)
def test_expm_gradcheck(dtype, shape):
    a = tf.asarray(sample(stable_rng("gexpm", dtype, shape), shape, dtype))
    autograd.gradcheck(expm, (a,), modes=("jvp", "vjp", "eager"), order=2)
    # a norm that needs squaring (the derivatives go through larger blocks)
    autograd.gradcheck(expm, (a * 4.0,), modes=("jvp", "vjp"), order=1)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("shape", [(3, 3), (2, 3, 3)], ids=str)
def test_expm_frechet_gradcheck(dtype, shape):
    g = stable_rng("gfr", dtype, shape)
    a = tf.asarray(sample(g, shape, dtype))
    e = tf.asarray(sample(g, shape, dtype))
    autograd.gradcheck(lambda a, e: expm_frechet(a, e), (a, e), modes=("jvp", "vjp"), order=2)
    autograd.gradcheck(lambda e: expm_frechet(a, e, compute_expm=False), (e,),
                       modes=("jvp", "vjp"), order=2)


def test_expm_gradient_vs_scipy_frechet():
    # d/dt <G, expm(A + t E)> = <G, L(A, E)>: the VJP against scipy's Frechet derivative
    g = stable_rng("gsc")
    a, e, w = (sample(g, (4, 4), "float64") for _ in range(3))
    grad = tf.grad(lambda a: (expm(a) * tf.asarray(w)).sum())(tf.asarray(a)).numpy()
    assert np.isclose((grad * e).sum(), (w * sl.expm_frechet(a, e)[1]).sum(), rtol=1e-12)
    torch = pytest.importorskip("torch")   # (last: PyTorch is optional)
    ta = torch.tensor(a, requires_grad=True)
    (torch.linalg.matrix_exp(ta) * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(grad, ta.grad.numpy(), rtol=1e-11, atol=1e-12)


# -- matrix_power --------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [-5, -2, -1, 0, 1, 2, 3, 8, 13])
@pytest.mark.parametrize("batch", [(), (2,)], ids=str)
def test_matrix_power_vs_numpy(dtype, n, batch):
    a = sample(stable_rng("mp", dtype, batch), batch + (4, 4), dtype) * \
        np.asarray(0.6, dtype) + 2 * np.eye(4, dtype=dtype)
    got = matrix_power(a, n)
    wide = WIDE.get(dtype, dtype)
    want = np.linalg.matrix_power(a.astype(wide), n)
    assert got.dtype == tf.asarray(a).dtype
    _close_normwise(got, want, 1e-5 if dtype in WIDE else 1e-13)


def test_matrix_power_errors_and_promotion():
    got = matrix_power(np.array([[1, 1], [0, 1]]), 3)
    assert got.dtype == tf.float64
    assert_close(got, np.array([[1.0, 3.0], [0.0, 1.0]]))
    a = tf.asarray(np.eye(2))
    b = matrix_power(a, 1)
    assert b is not a and not np.shares_memory(a.numpy(), b.numpy())   # a copy, as NumPy
    assert_close(matrix_power(np.ones((2, 3, 3)), np.int64(0)),
                 np.broadcast_to(np.eye(3), (2, 3, 3)))
    with pytest.raises(TypeError, match="matrix_power: the exponent must be an integer, "
                                        "got 1.5 of type float"):
        matrix_power(np.eye(2), 1.5)
    with pytest.raises(ValueError, match="matrix_power: expected square matrices"):
        matrix_power(np.ones((2, 3)), 2)
    with pytest.raises(LinAlgError, match="matrix 1 of the batch is singular"):
        matrix_power(np.stack([np.eye(2), np.zeros((2, 2))]), -1)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("n", [-3, 0, 1, 4, 5])
@pytest.mark.parametrize("shape", [(3, 3), (2, 3, 3)], ids=str)
def test_matrix_power_gradcheck(dtype, n, shape):
    a = sample(stable_rng("gmp", dtype, shape), shape, dtype) * np.asarray(0.5, dtype) + \
        2 * np.eye(3, dtype=dtype)
    autograd.gradcheck(lambda a: matrix_power(a, n), (tf.asarray(a),), modes=("jvp", "vjp"),
                       order=2)


def test_expm_nan_cotangent_stays_in_its_matrix():
    # a NaN reaching the rules (here, the cotangent) makes that matrix's gradient NaN and
    # leaves the others exact (per-matrix degree and scaling; no hang, no garbage)
    a = sample(stable_rng("nan"), (2, 3, 3), "float64")
    w = np.ones((2, 3, 3))
    w[1, 0, 0] = np.nan
    g = tf.grad(lambda a: (expm(a) * tf.asarray(w)).sum())(tf.asarray(a)).numpy()
    assert np.all(np.isnan(g[1]))
    g0 = tf.grad(lambda a: expm(a).sum())(tf.asarray(a[0])).numpy()
    assert_close(tf.asarray(g[0]), g0, rtol=1e-14)


def test_shape_rules_agree_with_eager_results():
    from tenferro.linalg._expm import expm_frechet_p, expm_p
    for dtype in ["float32", "complex128"]:
        a = tf.asarray(sample(stable_rng("aval", dtype), (2, 3, 3), dtype))
        assert expm_p.abstract_eval((a.shape, a.dtype)) == (expm(a).shape, a.dtype)
        outs = expm_frechet_p.abstract_eval((a.shape, a.dtype), (a.shape, a.dtype))
        assert list(outs) == [(x.shape, x.dtype) for x in expm_frechet(a, a)]

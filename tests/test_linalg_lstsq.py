"""tenferro.linalg lstsq / pinv against scipy.linalg and numpy.linalg (over-, under-
determined and rank-deficient, vector and matrix b, all dtypes, batched and strided,
empty), their derivatives (gradcheck to order 2, forward and reverse, real and complex,
full rank and rank-deficient at constant rank) and their errors."""
import numpy as np
import pytest
import scipy.linalg as sl

import tenferro as tf
from tenferro import autograd
from tenferro.linalg._lstsq import lstsq, pinv

from conftest import MATRIX_LAYOUTS, assert_close, matrix_layout, sample, stable_rng

DTYPES = ["float32", "float64", "complex64", "complex128"]
TOL = {"float32": 1e-3, "complex64": 1e-3, "float64": 1e-10, "complex128": 1e-10}
SHAPES = [(5, 3), (3, 5), (4, 4)]


def low_rank(gen, batch, m, n, r, dtype):
    """A [..., m, n] matrix of rank r (X Y), as NumPy data."""
    return sample(gen, batch + (m, r), dtype) @ sample(gen, batch + (r, n), dtype)


def each(batch):
    return list(np.ndindex(*batch)) if batch else [()]


# -- lstsq forward ------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("batch", [(), (2,)], ids=str)
@pytest.mark.parametrize("vec", [False, True], ids=["matrix_b", "vector_b"])
@pytest.mark.parametrize("layout", MATRIX_LAYOUTS)
def test_lstsq_vs_scipy(dtype, shape, batch, vec, layout):
    gen = stable_rng("lstsq", dtype, shape, batch, vec, layout)
    m, n = shape
    a = sample(gen, batch + shape, dtype)
    b = sample(gen, (m,) if vec else batch + (m, 2), dtype)
    x, res, rank, s = lstsq(tf.asarray(matrix_layout(a, layout)),
                            tf.asarray(b if vec else matrix_layout(b, layout)))
    tol = TOL[dtype]
    for i in each(batch):
        wx, wres, wrank, ws = sl.lstsq(a[i], b if vec else b[i])
        assert_close(x[i], wx, rtol=tol, atol=tol)
        assert_close(s[i], ws, rtol=tol, atol=tol)
        assert (rank if batch == () else rank[i]) == wrank == min(m, n)
        if m > n:
            assert_close(res[i], np.asarray(wres), rtol=tol, atol=tol)
        else:
            assert res.shape == (0,) and np.asarray(wres).size == 0
    assert x.shape == batch + ((n,) if vec else (n, 2)) and x.dtype == tf.dtype(dtype)
    assert isinstance(rank, int) if batch == () else rank.shape == batch


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(6, 4), (4, 6), (5, 5)], ids=str)
def test_lstsq_rank_deficient_is_minimum_norm(dtype, shape):
    gen = stable_rng("lstsq-rd", dtype, shape)
    m, n = shape
    a = low_rank(gen, (3,), m, n, 2, dtype)
    b = sample(gen, (3, m, 2), dtype)
    x, res, rank, s = lstsq(a, b, cond=1e-4)
    np.testing.assert_array_equal(rank, [2, 2, 2])
    assert res.shape == (0,)                        # rank < n: no residues, as scipy
    tol = TOL[dtype] * 10
    for i in range(3):
        wx, _, wrank, ws = sl.lstsq(a[i], b[i], cond=1e-4)
        assert wrank == 2
        assert_close(x[i], wx, rtol=tol, atol=tol)
        assert_close(x[i], np.linalg.pinv(a[i], rcond=1e-4) @ b[i], rtol=tol, atol=tol)
        assert_close(s[i], ws, rtol=tol, atol=tol)
    # a batch with full-rank and rank-deficient matrices: ranks per matrix, no residues
    if m > n:
        a2 = np.stack([sample(gen, (m, n), dtype), a[0]])
        x2, res2, rank2, _ = lstsq(a2, b[:2], cond=1e-4)
        np.testing.assert_array_equal(rank2, [n, 2])
        assert res2.shape == (0,)
        assert_close(x2[0], sl.lstsq(a2[0], b[0], cond=1e-4)[0], rtol=tol, atol=tol)
    # default cond (the dtype's eps, as scipy): rank as scipy's
    assert lstsq(a[0], b[0])[2] == sl.lstsq(a[0], b[0])[2]


def test_lstsq_broadcast_batch_promotion_and_drivers():
    gen = stable_rng("lstsq-bc")
    a = sample(gen, (2, 1, 5, 3), "float64")
    b = sample(gen, (3, 5, 2), "float64")
    x, res, rank, s = lstsq(a, b)
    assert x.shape == (2, 3, 3, 2) and res.shape == (2, 3, 2) and rank.shape == (2, 3)
    assert s.shape == (2, 3, 3)
    for i, j in np.ndindex(2, 3):
        wx, wres, _, ws = sl.lstsq(a[i, 0], b[j])
        assert_close(x[i, j], wx, rtol=1e-10, atol=1e-10)
        assert_close(res[i, j], wres, rtol=1e-10, atol=1e-10)
    # ints promote to float64, as scipy
    ai, bi = np.array([[1, 0], [0, 2], [1, 1]]), np.array([1, 2, 3])
    xi = lstsq(ai, bi)[0]
    assert xi.dtype == tf.float64
    assert_close(xi, sl.lstsq(ai, bi)[0], rtol=1e-12, atol=1e-12)
    # gelss and gelsy go through gelsd: the same minimum-norm solution
    for drv in ("gelsd", "gelss", "gelsy"):
        assert_close(lstsq(a[0, 0], b[0], lapack_driver=drv)[0],
                     sl.lstsq(a[0, 0], b[0], lapack_driver=drv)[0], rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("m,n,k", [(0, 3, 2), (3, 0, 2), (0, 0, 2)], ids=str)
def test_lstsq_empty(m, n, k):
    a, b = np.ones((m, n)), np.arange(m * k, dtype=float).reshape(m, k)
    x, res, rank, s = lstsq(a, b)
    wx, wres, wrank, ws = sl.lstsq(a, b)
    assert_close(x, wx)
    assert rank == wrank
    assert res.shape == np.shape(wres)
    if res.shape != (0,):
        assert_close(res, wres)
    assert s.shape == (min(m, n),)
    assert lstsq(np.ones((0, 3, 2)), np.ones((0, 3, 1)))[0].shape == (0, 2, 1)


def test_lstsq_no_columns():
    # b with no columns: x [n, 0], s and rank still computed (scipy's gelsd path raises)
    a = sample(stable_rng("lstsq-k0"), (3, 2), "float64")
    x, res, rank, s = lstsq(a, np.ones((3, 0)))
    assert x.shape == (2, 0) and res.shape == (0,) and rank == 2
    assert_close(s, sl.svdvals(a), rtol=1e-12, atol=1e-12)


def test_lstsq_errors():
    with pytest.raises(ValueError, match=r"lstsq: a of shape \(4, 3\) and b of shape "
                                         r"\(3, 2\) do not fit: b needs 4 rows"):
        lstsq(np.ones((4, 3)), np.ones((3, 2)))
    with pytest.raises(ValueError, match=r"lstsq: a of shape \(4, 3\) and b of shape \(3,\)"):
        lstsq(np.ones((4, 3)), np.ones(3))
    with pytest.raises(ValueError, match=r"lstsq: a of shape \(4, 3\) and b of shape \(\)"):
        lstsq(np.ones((4, 3)), 1.0)
    with pytest.raises(ValueError, match="lstsq: expected a matrix or a stack"):
        lstsq(np.ones(3), np.ones(3))
    with pytest.raises(ValueError, match="lstsq.*infs or NaNs"):
        lstsq(np.ones((3, 2)), np.array([1.0, np.inf, 0.0]))
    with pytest.raises(ValueError, match="lstsq.*infs or NaNs"):
        lstsq(np.full((3, 2), np.nan), np.ones(3))
    with pytest.raises(ValueError, match="lapack_driver must be None, 'gelsd', 'gelss' or "
                                         "'gelsy', got 'gesv'"):
        lstsq(np.eye(2), np.ones(2), lapack_driver="gesv")
    with pytest.raises(ValueError, match=r"lstsq: shapes \(2,\) and \(3,\) do not broadcast"):
        lstsq(np.ones((2, 4, 3)), np.ones((3, 4, 1)))


# -- lstsq derivatives --------------------------------------------------------------------

def _outputs(x, res, rank, s):
    return (x, s) if res.shape == (0,) else (x, res, s)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("shape", [(5, 3), (3, 5)], ids=str)
@pytest.mark.parametrize("batch", [(), (2,)], ids=str)
def test_lstsq_gradcheck_full_rank(dtype, shape, batch):
    gen = stable_rng("glstsq", dtype, shape, batch)
    m, n = shape
    a = tf.asarray(sample(gen, batch + shape, dtype))
    b = tf.asarray(sample(gen, batch + (m, 2), dtype))
    autograd.gradcheck(lambda a, b: _outputs(*lstsq(a, b)), (a, b), modes=("jvp", "vjp"),
                       order=2)
    autograd.gradcheck(lambda a, b: _outputs(*lstsq(a, b)), (a, b), modes=("eager",),
                       order=1)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_lstsq_gradcheck_vector_b_and_single_inputs(dtype):
    gen = stable_rng("glstsq-vec", dtype)
    a = tf.asarray(sample(gen, (5, 3), dtype))
    b = tf.asarray(sample(gen, (5,), dtype))
    autograd.gradcheck(lambda a: lstsq(a, b)[:2], (a,), modes=("jvp", "vjp"), order=2)
    autograd.gradcheck(lambda b: lstsq(a, b)[:2], (b,), modes=("jvp", "vjp"), order=2)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("shape", [(5, 4), (4, 5)], ids=str)
def test_lstsq_gradcheck_rank_deficient(dtype, shape):
    # a = X Y of rank 2 with X, Y the differentiated inputs: the rank stays 2
    gen = stable_rng("glstsq-rd", dtype, shape)
    m, n = shape
    xx = tf.asarray(sample(gen, (m, 2), dtype))
    yy = tf.asarray(sample(gen, (2, n), dtype))
    b = tf.asarray(sample(gen, (m, 2), dtype))

    def f(xx, yy, b):
        x, res, rank, s = lstsq(xx @ yy, b, cond=1e-8)
        assert rank == 2
        return x, s[..., :2]
    autograd.gradcheck(f, (xx, yy, b), modes=("jvp", "vjp"), order=2)


# -- pinv ---------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("layout", MATRIX_LAYOUTS)
def test_pinv_vs_scipy_numpy(dtype, shape, layout):
    gen = stable_rng("pinv", dtype, shape, layout)
    a = sample(gen, (2, 3) + shape, dtype)
    p = pinv(tf.asarray(matrix_layout(a, layout)))
    tol = TOL[dtype]
    assert p.shape == (2, 3) + shape[::-1] and p.dtype == tf.dtype(dtype)
    assert_close(p, np.linalg.pinv(a), rtol=tol, atol=tol)     # NumPy is batched
    assert_close(p[1, 2], sl.pinv(a[1, 2]), rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", DTYPES)
def test_pinv_rank_deficient_tolerances_and_rank(dtype):
    gen = stable_rng("pinv-rd", dtype)
    a = low_rank(gen, (3,), 6, 4, 2, dtype)
    tol = TOL[dtype] * 10
    p, rank = pinv(a, return_rank=True)
    np.testing.assert_array_equal(rank, [2, 2, 2])
    for i in range(3):
        wp, wrank = sl.pinv(a[i], return_rank=True)
        assert wrank == 2
        assert_close(p[i], wp, rtol=tol, atol=tol)
    # atol / rtol as scipy: cutoff = atol + rtol * s_max
    a1 = np.diag([4.0, 2.0, 1.0, 0.5]).astype(dtype)
    for kw in [dict(atol=1.5), dict(rtol=0.2), dict(atol=0.3, rtol=0.1),
               dict(atol=0, rtol=0)]:
        wp, wrank = sl.pinv(a1, return_rank=True, **kw)
        p1, rank1 = pinv(a1, return_rank=True, **kw)
        assert rank1 == wrank and isinstance(rank1, int)
        assert_close(p1, wp, rtol=tol, atol=tol)


def test_pinv_empty_promotion_and_errors():
    for shape in [(0, 3), (3, 0), (2, 0, 0)]:
        p, rank = pinv(np.ones(shape), return_rank=True)
        assert p.shape == shape[:-2] + shape[-2:][::-1]
        assert not np.asarray(rank).any()
    assert_close(pinv(np.array([[1, 2], [3, 4], [5, 6]])), sl.pinv([[1, 2], [3, 4], [5, 6]]),
                 rtol=1e-12, atol=1e-12)
    with pytest.raises(ValueError, match=r"pinv: atol and rtol must be >= 0, got atol=-1.0"):
        pinv(np.eye(2), atol=-1)
    with pytest.raises(ValueError, match=r"pinv: atol and rtol must be >= 0, got .*rtol=nan"):
        pinv(np.eye(2), rtol=np.nan)
    with pytest.raises(ValueError, match="pinv: expected a matrix or a stack"):
        pinv(np.ones(3))
    with pytest.raises(ValueError, match="pinv.*infs or NaNs"):
        pinv(np.array([[1.0, np.inf]]))


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (3, 3)], ids=str)
def test_pinv_gradcheck(dtype, shape):
    gen = stable_rng("gpinv", dtype, shape)
    a = tf.asarray(sample(gen, (2,) + shape, dtype))
    autograd.gradcheck(pinv, (a,), modes=("jvp", "vjp"), order=2)
    autograd.gradcheck(pinv, (a[0],), modes=("jvp", "vjp"), order=2)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_pinv_gradcheck_rank_deficient(dtype):
    gen = stable_rng("gpinv-rd", dtype)
    xx = tf.asarray(sample(gen, (2, 5, 2), dtype))
    yy = tf.asarray(sample(gen, (2, 2, 4), dtype))

    def f(xx, yy):
        p, rank = pinv(xx @ yy, rtol=1e-8, return_rank=True)
        np.testing.assert_array_equal(rank, [2, 2])
        return p
    autograd.gradcheck(f, (xx, yy), modes=("jvp", "vjp"), order=2)


def test_pinv_and_lstsq_gradients_vs_torch():
    gen = stable_rng("torch-lstsq")
    a = sample(gen, (5, 3), "float64")
    b = sample(gen, (5, 2), "float64")
    g = sample(gen, (3, 5), "float64")
    ta = tf.asarray(a)
    ga = autograd.functional_grad(lambda a: tf.sum(pinv(a) * tf.asarray(g)))(ta)
    gx = autograd.functional_grad(lambda a: tf.sum(lstsq(a, b)[0] ** 2))(ta)
    # own check first: central differences of scipy's value along one direction
    d = sample(gen, (5, 3), "float64")
    h = 1e-6
    fd = (np.sum(sl.pinv(a + h * d) * g) - np.sum(sl.pinv(a - h * d) * g)) / (2 * h)
    np.testing.assert_allclose(np.sum(ga.numpy() * d), fd, rtol=1e-6)
    fd = (np.sum(sl.lstsq(a + h * d, b)[0] ** 2)
          - np.sum(sl.lstsq(a - h * d, b)[0] ** 2)) / (2 * h)
    np.testing.assert_allclose(np.sum(gx.numpy() * d), fd, rtol=1e-6)
    torch = pytest.importorskip("torch")   # (last: PyTorch is optional)
    t = torch.tensor(a, requires_grad=True)
    torch.sum(torch.linalg.pinv(t) * torch.tensor(g)).backward()
    np.testing.assert_allclose(ga.numpy(), t.grad.numpy(), rtol=1e-8, atol=1e-10)
    t = torch.tensor(a, requires_grad=True)
    torch.sum((torch.linalg.pinv(t) @ torch.tensor(b)) ** 2).backward()
    np.testing.assert_allclose(gx.numpy(), t.grad.numpy(), rtol=1e-8, atol=1e-10)

"""tenferro.linalg against scipy.linalg (forward) and finite differences (gradcheck to
order 2, forward and reverse, real and complex); batching, broadcasting, promotion and
errors."""
import numpy as np
import pytest
import scipy.linalg as sl

import tenferro as tf
import tenferro.linalg as tl
from tenferro import autograd

from conftest import MATRIX_LAYOUTS, assert_close, matrix_layout, sample, stable_rng

DTYPES = ["float32", "float64", "complex64", "complex128"]
TOL = {"float32": 2e-4, "complex64": 2e-4, "float64": 1e-10, "complex128": 1e-10}


def rand(rng, shape, dtype):
    return sample(rng, shape, dtype)


def spd(rng, batch, n, dtype):
    """Hermitian positive definite: X X^H + n I."""
    x = rand(rng, batch + (n, n), dtype)
    return (x @ np.conj(np.swapaxes(x, -1, -2)) + n * np.eye(n)).astype(dtype)


def per_matrix(f, *arrays):
    """scipy's f applied matrix by matrix over the (equal) batch dims."""
    batch = arrays[0].shape[:-2]
    out = [f(*[a[i] for a in arrays]) for i in np.ndindex(*batch)] if batch else None
    if out is None:
        return f(*arrays)
    return np.stack(out).reshape(batch + out[0].shape)


# -- forward vs scipy ----------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("batch", [(), (3,), (2, 3)], ids=str)
@pytest.mark.parametrize("lower", [False, True])
@pytest.mark.parametrize("layout", MATRIX_LAYOUTS)
def test_cholesky_vs_scipy(dtype, batch, lower, layout):
    a = spd(stable_rng("chol", dtype, batch), batch, 5, dtype)
    got = tl.cholesky(tf.asarray(matrix_layout(a, layout)), lower=lower)
    want = per_matrix(lambda m: sl.cholesky(m, lower=lower), a)
    assert got.dtype == a.dtype and got.shape == a.shape
    assert_close(got, want, rtol=TOL[dtype], atol=TOL[dtype] * 5)


def test_cholesky_reads_one_triangle_and_promotes_ints():
    rng = stable_rng("tri")
    a = spd(rng, (), 4, "float64")
    junk = a + np.triu(rng.standard_normal((4, 4)) * 100, 1)  # upper triangle garbage
    assert_close(tl.cholesky(junk, lower=True), sl.cholesky(a, lower=True), rtol=1e-12)
    i = np.array([[4, 2], [2, 3]])
    got = tl.cholesky(i)
    assert got.dtype == tf.float64
    assert_close(got, sl.cholesky(i), rtol=1e-12)
    c, low = tl.cho_factor(a)
    assert low is False
    assert_close(c, sl.cholesky(a), rtol=1e-12)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("trans", [0, 1, 2, "N", "T", "C"])
@pytest.mark.parametrize("lower", [False, True])
@pytest.mark.parametrize("unit", [False, True])
def test_solve_triangular_vs_scipy(dtype, trans, lower, unit):
    rng = stable_rng("trsv", dtype, trans, lower, unit)
    a = rand(rng, (4, 4), dtype) + 4 * np.eye(4, dtype=dtype)
    b = rand(rng, (4, 3), dtype)
    want = sl.solve_triangular(a, b, trans=trans, lower=lower, unit_diagonal=unit)
    got = tl.solve_triangular(a, b, trans=trans, lower=lower, unit_diagonal=unit)
    assert_close(got, want, rtol=TOL[dtype], atol=TOL[dtype])
    v = b[:, 0]
    got = tl.solve_triangular(tf.asarray(a), tf.asarray(v), trans=trans, lower=lower,
                              unit_diagonal=unit)
    assert got.shape == (4,)
    assert_close(got, sl.solve_triangular(a, v, trans=trans, lower=lower,
                                          unit_diagonal=unit), rtol=TOL[dtype], atol=TOL[dtype])


def test_solve_triangular_batches_broadcast_and_promote():
    rng = stable_rng("trsv-batch")
    a = rand(rng, (2, 1, 4, 4), "float64") + 4 * np.eye(4)
    b = rand(rng, (3, 4, 2), "complex128")
    got = tl.solve_triangular(a, b, lower=True)
    assert got.shape == (2, 3, 4, 2) and got.dtype == tf.complex128
    for i in range(2):
        for j in range(3):
            assert_close(got[i, j], sl.solve_triangular(a[i, 0], b[j], lower=True),
                         rtol=1e-12, atol=1e-12)
    ib = np.arange(8).reshape(4, 2)
    assert tl.solve_triangular(np.eye(4, dtype=np.int64) * 2, ib).dtype == tf.float64


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("lower", [False, True])
def test_cho_solve_vs_scipy(dtype, lower):
    rng = stable_rng("chosolve", dtype, lower)
    a = spd(rng, (), 5, dtype)
    b = rand(rng, (5, 2), dtype)
    want = sl.cho_solve(sl.cho_factor(a, lower=lower), b)
    got = tl.cho_solve(tl.cho_factor(a, lower=lower), b)
    assert_close(got, want, rtol=TOL[dtype] * 10, atol=TOL[dtype] * 10)
    assert_close(got, np.linalg.solve(a, b), rtol=TOL[dtype] * 10, atol=TOL[dtype] * 10)


# -- errors ----------------------------------------------------------------------------------

def test_not_positive_definite_names_the_matrix():
    rng = stable_rng("notpd")
    a = spd(rng, (4,), 3, "float64")
    a[2] = -a[2]
    with pytest.raises(tl.LinAlgError, match=r"cholesky: matrix 2 of the batch is not "
                                             r"positive definite"):
        tl.cholesky(a)
    with pytest.raises(tl.LinAlgError, match=r"cholesky: the matrix is not positive "
                                             r"definite"):
        tl.cholesky(-np.eye(3))
    b = spd(rng, (2, 3), 3, "float64")
    b[1, 2] = -b[1, 2]
    b[1, 0] = -b[1, 0]
    with pytest.raises(tl.LinAlgError, match=r"matrix \(1, 0\) of the batch is not "
                                             r"positive definite \(and 1 more\)"):
        tl.cholesky(b)
    assert issubclass(tl.LinAlgError, ValueError)


def test_inv_of_a_singular_matrix_names_inv():
    with pytest.raises(tf.LinAlgError, match=r"^tenferro.linalg.inv: the matrix is singular"):
        tl.inv(tf.zeros((2, 2)))
    with pytest.raises(tf.LinAlgError, match=r"^tenferro.linalg.inv: matrix 1 of the batch"):
        tl.inv(tf.stack([tf.eye(2), tf.zeros((2, 2))]))
    with pytest.raises(tf.LinAlgError, match=r"^tenferro.linalg.solve: the matrix is singular"):
        tl.solve(tf.zeros((2, 2)), tf.ones(2))


def test_singular_triangle_and_bad_arguments():
    a = np.triu(np.ones((3, 3)))
    a[1, 1] = 0
    with pytest.raises(tl.LinAlgError, match="solve_triangular: the matrix is singular"):
        tl.solve_triangular(a, np.ones(3))
    with pytest.raises(ValueError, match=r"cholesky: expected square matrices \[\.\.\., N, "
                                         r"N\], got shape \(2, 3\)"):
        tl.cholesky(np.ones((2, 3)))
    with pytest.raises(ValueError, match=r"expected a matrix or a stack of matrices"):
        tl.cholesky(np.ones(3))
    with pytest.raises(ValueError, match=r"a of shape \(3, 3\) and b of shape \(4,\) do "
                                         r"not fit: b needs 3 rows"):
        tl.solve_triangular(np.eye(3), np.ones(4))
    with pytest.raises(ValueError, match="trans must be 0, 1, 2, 'N', 'T' or 'C', got 3"):
        tl.solve_triangular(np.eye(3), np.ones(3), trans=3)
    with pytest.raises(ValueError, match="must not contain infs or NaNs"):
        tl.cholesky(np.full((2, 2), np.nan))
    with pytest.raises(ValueError, match="broadcast"):
        tl.solve_triangular(np.ones((2, 3, 3)), np.ones((4, 3, 1)))


# -- derivatives -------------------------------------------------------------------------------

def _inputs(key, dtype, *shapes):
    rng = stable_rng(*key, dtype)
    return tuple(tf.asarray(rand(rng, s, dtype)) for s in shapes)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("lower", [False, True])
@pytest.mark.parametrize("batch", [(), (2,)], ids=str)
def test_cholesky_gradcheck(dtype, lower, batch):
    # the raw function in every direction (triangle-only derivatives), to order 2
    a = tf.asarray(spd(stable_rng("gc", dtype, lower, batch), batch, 3, dtype))
    autograd.gradcheck(lambda a: tl.cholesky(a, lower=lower), (a,), modes=("jvp", "vjp"),
                       order=2)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("trans", [0, 1, 2])
@pytest.mark.parametrize("lower", [False, True])
@pytest.mark.parametrize("unit", [False, True])
def test_solve_triangular_gradcheck(dtype, trans, lower, unit):
    a, b = _inputs(("gtr", trans, lower, unit), dtype, (3, 3), (3, 2))
    a = a + 3.0 * tf.eye(3, dtype=a.dtype)
    autograd.gradcheck(lambda a, b: tl.solve_triangular(a, b, trans=trans, lower=lower,
                                                        unit_diagonal=unit),
                       (a, b), modes=("jvp", "vjp"), order=2)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_gradients_in_hermitian_directions(dtype):
    # A = X X^H + n I built from X: what users of any convention differentiate; the
    # eager tape, reverse and forward modes agree with finite differences
    x, b = _inputs(("herm",), dtype, (4, 4), (4, 2))

    def herm(x):
        return x @ tf.conj(tf.matrix_transpose(x)) + 4.0 * tf.eye(4, dtype=x.dtype)

    def f(x, b):
        return tl.cho_solve(tl.cho_factor(herm(x), lower=True), b)
    autograd.gradcheck(f, (x, b), modes=("jvp", "vjp", "eager"), order=2)
    # eigh (both triangles: the same derivative along Hermitian matrices) and solve with
    # assume_a 'pos' (one triangle) and 'her' (LU: the whole matrix)
    for lower in (True, False):
        autograd.gradcheck(lambda x: (lambda w, v: (w, (v * tf.sin(w)[None, :]) @ tf.conj(
            tf.matrix_transpose(v))))(*tl.eigh(herm(x), lower=lower)), (x,),
            modes=("jvp", "vjp", "eager"), order=2)
        autograd.gradcheck(lambda x, b: tl.solve(herm(x), b, assume_a="pos", lower=lower),
                           (x, b), modes=("jvp", "vjp", "eager"), order=2)
    autograd.gradcheck(lambda x, b: tl.solve(herm(x), b, assume_a="her"), (x, b),
                       modes=("jvp", "vjp", "eager"), order=2)


def test_gaussian_process_log_likelihood_gradient():
    # the negative log likelihood of a GP through cholesky + cho_solve: value against
    # scipy, gradient against central differences of scipy's value, then against
    # PyTorch's autograd when it is installed
    rng = stable_rng("gp")
    xs = rng.uniform(-3, 3, 30)
    y = np.sin(xs) + 0.1 * rng.standard_normal(30)
    d = (xs[:, None] - xs[None, :]) ** 2

    def nll_tf(p):
        k = tf.exp(-0.5 * tf.asarray(d) / p[0] ** 2) + p[1] * tf.eye(30)
        L = tl.cholesky(k, lower=True)
        alpha = tl.cho_solve((L, True), tf.asarray(y))
        return 0.5 * (tf.asarray(y) * alpha).sum() + tf.log(tf.diagonal(L)).sum()

    def nll_scipy(ls, noise):
        k = np.exp(-0.5 * d / ls ** 2) + noise * np.eye(30)
        c = sl.cho_factor(k, lower=True)
        return 0.5 * y @ sl.cho_solve(c, y) + np.log(np.diag(c[0])).sum()

    p = tf.tensor([0.8, 0.3], requires_grad=True)
    v = nll_tf(p)
    v.backward()
    assert_close(v, nll_scipy(0.8, 0.3), rtol=1e-12)
    e = 1e-6
    fd = [(nll_scipy(0.8 + e, 0.3) - nll_scipy(0.8 - e, 0.3)) / (2 * e),
          (nll_scipy(0.8, 0.3 + e) - nll_scipy(0.8, 0.3 - e)) / (2 * e)]
    assert_close(p.grad, np.array(fd), rtol=1e-6, atol=1e-8)
    torch = pytest.importorskip("torch")   # (last: PyTorch is optional)
    q = torch.tensor([0.8, 0.3], dtype=torch.float64, requires_grad=True)
    k = torch.exp(-0.5 * torch.from_numpy(d) / q[0] ** 2) + q[1] * torch.eye(30, dtype=float)
    L = torch.linalg.cholesky(k)
    alpha = torch.cholesky_solve(torch.from_numpy(y)[:, None], L)[:, 0]
    w = 0.5 * (torch.from_numpy(y) * alpha).sum() + torch.log(torch.diagonal(L)).sum()
    w.backward()
    assert_close(p.grad, q.grad.numpy(), rtol=1e-9, atol=1e-12)

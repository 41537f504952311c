"""The LU family of tenferro.linalg (lu, lu_factor, lu_solve, solve, inv, det, slogdet)
against scipy.linalg / numpy.linalg (forward) and finite differences (gradcheck to order
2, forward and reverse, real and complex); batching, broadcasting, promotion, errors."""
import numpy as np
import pytest
import scipy.linalg as sl

import tenferro as tf
from tenferro import autograd
from tenferro.linalg import LinAlgError
from tenferro.linalg import _lu as tl

from conftest import central_grad, MATRIX_LAYOUTS, assert_close, matrix_layout, sample, stable_rng

DTYPES = ["float32", "float64", "complex64", "complex128"]
TOL = {"float32": 2e-4, "complex64": 2e-4, "float64": 1e-10, "complex128": 1e-10}
BATCHES = [(), (3,), (2, 3)]


def rand(rng, shape, dtype):
    return sample(rng, shape, dtype)


def wellcond(rng, batch, n, dtype):
    return (rand(rng, batch + (n, n), dtype) + n * np.eye(n)).astype(dtype)


def per_matrix(f, *arrays):
    batch = arrays[0].shape[:-2]
    if not batch:
        return f(*arrays)
    out = [f(*[a[i] for a in arrays]) for i in np.ndindex(*batch)]
    return np.stack(out).reshape(batch + np.shape(out[0]))


# -- forward vs scipy ----------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("batch", BATCHES, ids=str)
@pytest.mark.parametrize("layout", MATRIX_LAYOUTS)
def test_lu_factor_vs_scipy(dtype, batch, layout):
    a = rand(stable_rng("luf", dtype, batch), batch + (5, 5), dtype)
    lu, piv = tl.lu_factor(tf.asarray(matrix_layout(a, layout)))
    want_lu = per_matrix(lambda m: sl.lu_factor(m)[0], a)
    want_piv = per_matrix(lambda m: sl.lu_factor(m)[1], a)
    assert lu.dtype == a.dtype and lu.shape == a.shape
    assert piv.dtype == want_piv.dtype == np.int32 and piv.shape == batch + (5,)
    np.testing.assert_array_equal(piv.numpy(), want_piv)
    assert_close(lu, want_lu, rtol=TOL[dtype] * 10, atol=TOL[dtype] * 10)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(5, 3), (3, 5)], ids=str)
@pytest.mark.parametrize("layout", MATRIX_LAYOUTS)
def test_lu_factor_rectangular_vs_scipy(dtype, shape, layout):
    a = rand(stable_rng("lufr", dtype, shape), (2,) + shape, dtype)
    lu, piv = tl.lu_factor(tf.asarray(matrix_layout(a, layout)))
    assert lu.shape == a.shape and piv.shape == (2, 3) and piv.dtype == np.int32
    np.testing.assert_array_equal(piv.numpy(), per_matrix(lambda m: sl.lu_factor(m)[1], a))
    assert_close(lu, per_matrix(lambda m: sl.lu_factor(m)[0], a), rtol=TOL[dtype] * 10,
                 atol=TOL[dtype] * 10)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4)], ids=str)
@pytest.mark.parametrize("batch", [(), (2, 3)], ids=str)
@pytest.mark.parametrize("layout", MATRIX_LAYOUTS)
def test_lu_vs_scipy(dtype, shape, batch, layout):
    a = rand(stable_rng("lu", dtype, shape, batch), batch + shape, dtype)
    t = tf.asarray(matrix_layout(a, layout))
    tol = TOL[dtype] * 10
    p, l, u = tl.lu(t)
    wp, wl, wu = sl.lu(a)   # scipy 1.17 batches
    assert p.dtype == wp.dtype and l.dtype == u.dtype == a.dtype
    assert_close(p, wp)     # exact: a permutation matrix of a's real dtype
    assert_close(l, wl, rtol=tol, atol=tol)
    assert_close(u, wu, rtol=tol, atol=tol)
    assert_close(tf.asarray(p.numpy() @ l.numpy() @ u.numpy()), a, rtol=tol, atol=tol)
    pi, li, ui = tl.lu(t, p_indices=True)
    wpi = sl.lu(a, p_indices=True)[0]
    assert pi.dtype == wpi.dtype == np.int32
    assert_close(pi, wpi)
    assert_close(li, wl, rtol=tol, atol=tol)
    pl, u2 = tl.lu(t, permute_l=True)
    wpl, wu2 = sl.lu(a, permute_l=True)
    assert_close(pl, wpl, rtol=tol, atol=tol)
    assert_close(u2, wu2, rtol=tol, atol=tol)


@pytest.mark.parametrize("shape", [(3, 0), (0, 3), (0, 0), (2, 0, 3), (0, 2, 2)], ids=str)
def test_lu_empty(shape):
    # p is the m x m identity (scipy returns an empty p here, which p @ l @ u cannot use)
    a = np.ones(shape, np.complex128)
    m, n = shape[-2:]
    k = min(m, n)
    b = shape[:-2]
    p, l, u = tl.lu(a)
    assert_close(p, np.broadcast_to(np.eye(m), b + (m, m)))
    assert l.shape == b + (m, k) and u.shape == b + (k, n) and l.dtype == tf.complex128
    assert_close(tl.lu(a, p_indices=True)[0],
                 np.broadcast_to(np.arange(m, dtype=np.int32), b + (m,)))
    pl, u = tl.lu(a, permute_l=True)
    assert pl.shape == b + (m, k) and u.shape == b + (k, n)
    lu, piv = tl.lu_factor(a)
    assert lu.shape == shape and piv.shape == b + (k,)


def test_lu_promotion_singular_and_errors():
    ia = np.array([[1, 2, 3], [2, 4, 6]])   # rank 1: factored without error, as scipy
    p, l, u = tl.lu(ia)
    assert l.dtype == u.dtype == p.dtype == tf.float64
    for g, w in zip((p, l, u), sl.lu(ia)):
        assert_close(g, w, rtol=1e-12, atol=1e-12)
    assert u.numpy()[1, 1] == 0
    for f in (tl.lu, tl.lu_factor):
        with pytest.raises(ValueError, match=r"\.%s: expected a matrix or a stack of "
                                             r"matrices \[..., M, N\], got shape \(3,\)"
                                             % f.__name__):
            f(np.ones(3))
        with pytest.raises(ValueError, match=r"\.%s: array must not contain infs or NaNs"
                                             % f.__name__):
            f(np.array([[1.0, np.nan]]))
    with pytest.raises(ValueError, match=r"lu_solve: expected square matrices"):
        tl.lu_solve(tl.lu_factor(np.ones((3, 2))), np.ones(3))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("trans", [0, 1, 2, "N", "T", "C"])
@pytest.mark.parametrize("batch", BATCHES, ids=str)
def test_lu_solve_vs_scipy(dtype, trans, batch):
    rng = stable_rng("lus", dtype, trans, batch)
    a = rand(rng, batch + (4, 4), dtype)
    b = rand(rng, batch + (4, 2), dtype)
    got = tl.lu_solve(tl.lu_factor(a), b, trans=trans)
    trans = {"N": 0, "T": 1, "C": 2}.get(trans, trans)  # scipy's lu_solve takes ints only
    want = per_matrix(lambda m, v: sl.lu_solve(sl.lu_factor(m), v, trans=trans), a, b)
    assert got.dtype == a.dtype
    assert_close(got, want, rtol=TOL[dtype] * 100, atol=TOL[dtype] * 100)
    if not batch:
        v = b[:, 0]
        got = tl.lu_solve(tl.lu_factor(a), v, trans=trans)
        assert got.shape == (4,)
        assert_close(got, sl.lu_solve(sl.lu_factor(a), v, trans=trans),
                     rtol=TOL[dtype] * 100, atol=TOL[dtype] * 100)


def test_lu_solve_accepts_scipy_factors_and_broadcasts():
    rng = stable_rng("lus-sp")
    a = rand(rng, (4, 4), "float64")
    b = rand(rng, (3, 4, 2), "float64")
    got = tl.lu_solve(sl.lu_factor(a), b)
    assert got.shape == (3, 4, 2)
    for j in range(3):
        assert_close(got[j], np.linalg.solve(a, b[j]), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("batch", BATCHES, ids=str)
@pytest.mark.parametrize("assume_a", ["gen", "sym", "her", "pos"])
def test_solve_vs_scipy(dtype, batch, assume_a):
    rng = stable_rng("solve", dtype, batch, assume_a)
    a = rand(rng, batch + (4, 4), dtype)
    if assume_a == "sym":
        a = a + np.swapaxes(a, -1, -2)
    elif assume_a in ("her", "pos"):
        a = a @ np.conj(np.swapaxes(a, -1, -2)) + 4 * np.eye(4, dtype=dtype) \
            if assume_a == "pos" else a + np.conj(np.swapaxes(a, -1, -2))
    b = rand(rng, batch + (4, 3), dtype)
    got = tl.solve(a, b, assume_a=assume_a)
    want = per_matrix(lambda m, v: sl.solve(m, v, assume_a=assume_a), a, b)
    assert got.dtype == a.dtype and got.shape == b.shape
    assert_close(got, want, rtol=TOL[dtype] * 100, atol=TOL[dtype] * 100)


@pytest.mark.parametrize("dtype", DTYPES)
def test_solve_vector_transposed_and_lower(dtype):
    rng = stable_rng("solve-vec", dtype)
    a = rand(rng, (4, 4), dtype) + 4 * np.eye(4, dtype=dtype)
    v = rand(rng, (4,), dtype)
    got = tl.solve(a, v)
    assert got.shape == (4,)
    assert_close(got, sl.solve(a, v), rtol=TOL[dtype] * 10, atol=TOL[dtype] * 10)
    assert_close(tl.solve(a, v, transposed=True), np.linalg.solve(a.T, v),
                 rtol=TOL[dtype] * 10, atol=TOL[dtype] * 10)
    p = a @ np.conj(a.T)
    junk = np.triu(p) + np.tril(rand(rng, (4, 4), dtype) * 100, -1)  # lower part garbage
    assert_close(tl.solve(junk, v, assume_a="pos"), sl.solve(p, v, assume_a="pos"),
                 rtol=TOL[dtype] * 100, atol=TOL[dtype] * 100)
    junk = np.tril(p) + np.triu(rand(rng, (4, 4), dtype) * 100, 1)
    assert_close(tl.solve(junk, v, assume_a="pos", lower=True), sl.solve(p, v),
                 rtol=TOL[dtype] * 100, atol=TOL[dtype] * 100)


def test_solve_broadcasts_and_promotes():
    rng = stable_rng("solve-bc")
    a = rand(rng, (2, 1, 4, 4), "float64") + 4 * np.eye(4)
    b = rand(rng, (3, 4, 2), "complex128")
    got = tl.solve(a, b)
    assert got.shape == (2, 3, 4, 2) and got.dtype == tf.complex128
    for i in range(2):
        for j in range(3):
            assert_close(got[i, j], np.linalg.solve(a[i, 0], b[j]), rtol=1e-12, atol=1e-12)
    ia = np.array([[2, 1], [1, 3]])
    got = tl.solve(ia, np.array([1, 2]))
    assert got.dtype == tf.float64
    assert_close(got, sl.solve(ia, [1, 2]), rtol=1e-12)
    assert tl.inv(ia).dtype == tf.float64 and tl.det(ia).dtype == tf.float64
    assert tl.lu_factor(ia)[0].dtype == tf.float64
    assert_close(tl.det(ia), 5.0, rtol=1e-12)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("batch", BATCHES, ids=str)
def test_inv_det_slogdet_vs_numpy(dtype, batch):
    rng = stable_rng("inv", dtype, batch)
    a = rand(rng, batch + (5, 5), dtype)
    t = TOL[dtype] * 100
    got = tl.inv(a)
    assert got.dtype == a.dtype
    assert_close(got, per_matrix(sl.inv, a), rtol=t, atol=t)
    assert_close(tl.det(a), np.asarray(per_matrix(sl.det, a), dtype=dtype), rtol=t, atol=t)
    sign, logabs = tl.slogdet(a)
    ws, wl = np.linalg.slogdet(a)
    assert sign.dtype == ws.dtype and logabs.dtype == wl.dtype
    assert sign.shape == logabs.shape == batch
    assert_close(sign, ws, rtol=t, atol=t)
    assert_close(logabs, wl, rtol=t, atol=t)


def test_singular_det_slogdet_and_empty():
    a = np.array([[[1.0, 2.0], [2.0, 4.0]], [[0.0, 1.0], [0.0, 1.0]], [[2.0, 0], [0, 3]]])
    assert_close(tl.det(a), np.array([0.0, 0.0, 6.0]), atol=1e-15)
    sign, logabs = tl.slogdet(a)
    assert_close(sign, np.array([0.0, 0.0, 1.0]))
    np.testing.assert_array_equal(logabs.numpy()[:2], [-np.inf, -np.inf])
    z = tl.slogdet(np.zeros((2, 2), dtype=np.complex128))
    assert z[0].dtype == tf.complex128 and complex(z[0]) == 0
    assert_close(tl.det(np.zeros((3, 0, 0))), np.ones(3))


# -- errors ----------------------------------------------------------------------------------

def test_singular_matrices_name_the_batch_index():
    a = np.stack([np.eye(3), np.eye(3), np.ones((3, 3))])
    with pytest.raises(LinAlgError, match=r"solve: matrix 2 of the batch is singular"):
        tl.solve(a, np.ones(3))
    with pytest.raises(LinAlgError, match=r"^tenferro.linalg.inv: matrix 2 of the batch is "):
        tl.inv(a)
    with pytest.raises(LinAlgError, match=r"lu_solve: matrix 2 of the batch is singular"):
        tl.lu_solve(tl.lu_factor(a), np.ones(3))
    with pytest.raises(LinAlgError, match=r"^tenferro.linalg.inv: the matrix is singular"):
        tl.inv(np.zeros((2, 2)))
    b = np.broadcast_to(np.eye(2), (2, 3, 2, 2)).copy()
    b[1, 2] = 0
    with pytest.raises(LinAlgError, match=r"matrix \(1, 2\) of the batch is singular"):
        tl.inv(b)
    with pytest.raises(LinAlgError, match="not positive definite"):
        tl.solve(-np.eye(2), np.ones(2), assume_a="pos")
    lu, piv = tl.lu_factor(np.ones((3, 3)))  # factoring a singular matrix is no error
    assert lu.shape == (3, 3)


def test_bad_arguments():
    with pytest.raises(ValueError, match=r"solve: expected square matrices"):
        tl.solve(np.ones((2, 3)), np.ones(2))
    for f in (tl.inv, tl.det, tl.slogdet):
        with pytest.raises(ValueError, match=r"expected square matrices"):
            f(np.ones((2, 3)))
        with pytest.raises(ValueError, match=r"expected a matrix or a stack"):
            f(np.ones(3))
    with pytest.raises(ValueError, match=r"a of shape \(3, 3\) and b of shape \(4,\) do "
                                         r"not fit: b needs 3 rows"):
        tl.solve(np.eye(3), np.ones(4))
    with pytest.raises(ValueError, match=r"b of shape \(2, 4, 1\) do not fit"):
        tl.lu_solve(tl.lu_factor(np.eye(3)), np.ones((2, 4, 1)))
    with pytest.raises(ValueError, match="broadcast"):
        tl.solve(np.ones((2, 3, 3)), np.ones((4, 3, 1)))
    with pytest.raises(ValueError, match="trans must be 0, 1, 2, 'N', 'T' or 'C', got 5"):
        tl.lu_solve(tl.lu_factor(np.eye(3)), np.ones(3), trans=5)
    with pytest.raises(ValueError, match=r"piv of shape \(2,\) does not fit"):
        tl.lu_solve((np.eye(3), np.zeros(2, np.int32)), np.ones(3))
    with pytest.raises(ValueError, match="'band' is not a recognized matrix structure"):
        tl.solve(np.eye(2), np.ones(2), assume_a="band")
    with pytest.raises(ValueError, match="must not contain infs or NaNs"):
        tl.solve(np.full((2, 2), np.nan), np.ones(2))
    with pytest.raises(ValueError, match="must not contain infs or NaNs"):
        tl.det(np.full((2, 2), np.inf))


# -- derivatives -------------------------------------------------------------------------------

GDT = ["float64", "complex128"]


def _wc(key, dtype, batch=(), n=3):
    return tf.asarray(wellcond(stable_rng(*key, dtype), batch, n, dtype))


def _b(key, dtype, shape):
    return tf.asarray(rand(stable_rng("b", *key, dtype), shape, dtype))


@pytest.mark.parametrize("dtype", GDT)
@pytest.mark.parametrize("batch", [(), (2,)], ids=str)
def test_solve_gradcheck(dtype, batch):
    a, b = _wc(("gs", batch), dtype, batch), _b(("gs", batch), dtype, batch + (3, 2))
    autograd.gradcheck(lambda a, b: tl.solve(a, b), (a, b), modes=("jvp", "vjp"), order=2)
    autograd.gradcheck(lambda a, b: tl.solve(a, b, transposed=True), (a, b),
                       modes=("jvp", "vjp"), order=2)
    v = _b(("gsv",), dtype, (3,))
    autograd.gradcheck(lambda a, v: tl.solve(a, v), (a, v), modes=("jvp", "vjp", "eager"),
                       order=2)


class _CountingLapack:
    """tenferro's _lapack module, counting the LU factorizations (getrf and gesv)."""

    def __init__(self, real):
        self.real, self.getrf_calls = real, 0

    def __getattr__(self, name):
        return getattr(self.real, name)

    def getrf(self, *args):
        self.getrf_calls += 1
        return self.real.getrf(*args)

    def gesv(self, *args):
        self.getrf_calls += 1
        return self.real.gesv(*args)


@pytest.mark.parametrize("dtype", GDT)
def test_solve_derivatives_reuse_the_factorization(dtype, monkeypatch):
    # first-order derivatives solve with the forward LU (one getrf in all); the values
    # are checked against NumPy: gB = A^-H gX, gA = -gB X^H, dX = A^-1 (dB - dA X)
    rng = stable_rng("reuse", dtype)
    an, bn = wellcond(rng, (2,), 4, dtype), rand(rng, (2, 4, 3), dtype)
    gn, tan, tbn = (rand(rng, s, dtype) for s in [(2, 4, 3), (2, 4, 4), (2, 4, 3)])
    xn = np.linalg.solve(an, bn)
    gb_ref = np.linalg.solve(np.conj(np.swapaxes(an, -1, -2)), gn)
    ga_ref = -gb_ref @ np.conj(np.swapaxes(xn, -1, -2))
    dx_ref = np.linalg.solve(an, tbn - tan @ xn)
    lap = _CountingLapack(tl._lapack)
    monkeypatch.setattr(tl, "_lapack", lap)
    a, b = tf.asarray(an).requires_grad_(), tf.asarray(bn).requires_grad_()
    tl.solve(a, b).backward(tf.asarray(gn))
    assert lap.getrf_calls == 1
    assert_close(a.grad, ga_ref, rtol=TOL[dtype])
    assert_close(b.grad, gb_ref, rtol=TOL[dtype])
    lap.getrf_calls = 0
    _, vjp_fn = autograd.vjp(tl.solve, tf.asarray(an), tf.asarray(bn))
    ga, gb = vjp_fn(tf.asarray(gn))
    assert lap.getrf_calls == 1
    assert_close(ga, ga_ref, rtol=TOL[dtype])
    assert_close(gb, gb_ref, rtol=TOL[dtype])
    lap.getrf_calls = 0
    _, dx = autograd.jvp(tl.solve, (tf.asarray(an), tf.asarray(bn)),
                         (tf.asarray(tan), tf.asarray(tbn)))
    assert lap.getrf_calls == 1
    assert_close(dx, dx_ref, rtol=TOL[dtype])


@pytest.mark.parametrize("dtype", GDT)
def test_solve_broadcast_gradcheck(dtype):
    a, b = _wc(("gsb",), dtype, (2, 1)), _b(("gsb",), dtype, (3, 3, 1))
    autograd.gradcheck(lambda a, b: tl.solve(a, b), (a, b), modes=("jvp", "vjp"), order=2)


@pytest.mark.parametrize("dtype", GDT)
@pytest.mark.parametrize("batch", [(), (2,)], ids=str)
def test_inv_det_slogdet_gradcheck(dtype, batch):
    a = _wc(("gi", batch), dtype, batch)
    for f in (tl.inv, tl.det, lambda a: tl.slogdet(a)[1]):
        autograd.gradcheck(f, (a,), modes=("jvp", "vjp"), order=2)
    if dtype == "complex128":
        autograd.gradcheck(lambda a: tl.slogdet(a)[0], (a,), modes=("jvp", "vjp"), order=2)
    else:  # a random (non-dominant) real matrix: det of either sign
        r = tf.asarray(rand(stable_rng("gi-r", batch), batch + (3, 3), dtype))
        autograd.gradcheck(tl.det, (r,), modes=("jvp", "vjp"), order=2)
        autograd.gradcheck(lambda a: tl.slogdet(a)[1], (r,), modes=("jvp", "vjp"), order=2)


@pytest.mark.parametrize("dtype", GDT)
@pytest.mark.parametrize("trans", [0, 1, 2])
def test_lu_factor_and_lu_solve_gradcheck(dtype, trans):
    a, b = _wc(("glu", trans), dtype), _b(("glu", trans), dtype, (3, 2))
    autograd.gradcheck(lambda a, b: tl.lu_solve(tl.lu_factor(a), b, trans=trans), (a, b),
                       modes=("jvp", "vjp", "eager"), order=2)
    # the packed factors themselves (pivoting chosen at a, fixed nearby)
    r = tf.asarray(rand(stable_rng("glu-r", trans), (2, 3, 3), dtype))
    autograd.gradcheck(lambda a: tl.lu_factor(a)[0], (r,), modes=("jvp", "vjp"), order=2)


def test_lu_solve_gradient_vs_solve():
    rng = stable_rng("lu-vs-solve")
    a = tf.asarray(wellcond(rng, (2,), 4, "complex128"))
    b = tf.asarray(rand(rng, (2, 4, 3), "complex128"))
    f1 = tf.grad(lambda a, b: tf.abs(tl.lu_solve(tl.lu_factor(a), b)).sum(), argnums=(0, 1))
    f2 = tf.grad(lambda a, b: tf.abs(tl.solve(a, b)).sum(), argnums=(0, 1))
    for g1, g2 in zip(f1(a, b), f2(a, b)):
        assert_close(g1, g2.numpy(), rtol=1e-10, atol=1e-12)


def test_det_gradient_at_singular_matrices_is_the_adjugate():
    # d det / dA = adj(A)^T (cofactors), also where A is singular (no NaN, no error)
    a = np.array([[1.0, 2.0], [2.0, 4.0]])
    g = tf.grad(tl.det)(tf.asarray(a))
    assert_close(g, np.array([[4.0, -2.0], [-2.0, 1.0]]))
    m = np.array([[1.0, 2, 3], [4, 5, 6], [7, 8, 9]])
    cof = np.array([[np.linalg.det(np.delete(np.delete(m, i, 0), j, 1)) * (-1) ** (i + j)
                     for j in range(3)] for i in range(3)])
    assert_close(tf.grad(tl.det)(tf.asarray(m)), cof, rtol=1e-10, atol=1e-10)
    z = np.zeros((3, 3))  # rank 0: adjugate 0
    assert_close(tf.grad(tl.det)(tf.asarray(z)), np.zeros((3, 3)))
    for x in (tf.asarray(m), tf.asarray(np.array([[1 + 1j, 2], [1j - 1, 2j]]))):
        autograd.gradcheck(tl.det, (x,), modes=("jvp", "vjp", "eager"), order=2)
    mixed = tf.asarray(np.stack([m, np.eye(3) * 2]))  # a batch with one singular matrix
    autograd.gradcheck(tl.det, (mixed,), modes=("jvp", "vjp"), order=2)


def test_slogdet_and_solve_gradients_at_singular_matrices_raise():
    a = tf.asarray(np.array([[1.0, 2.0], [2.0, 4.0]]))
    with pytest.raises(LinAlgError, match="singular"):
        tf.grad(lambda a: tl.slogdet(a)[1])(a)
    with pytest.raises(LinAlgError, match="singular"):
        tf.grad(lambda a: tl.solve(a, tf.ones(2)).sum())(a)


@pytest.mark.parametrize("dtype", GDT)
@pytest.mark.parametrize("lower", [False, True])
def test_solve_pos_gradcheck(dtype, lower):
    # 'pos' reads one triangle (cholesky's triangle-only derivatives)
    a, b = _wc(("gpos", lower), dtype), _b(("gpos", lower), dtype, (3, 2))
    a = a @ tf.conj(tf.matrix_transpose(a))
    autograd.gradcheck(lambda a, b: tl.solve(a, b, assume_a="pos", lower=lower), (a, b),
                       modes=("jvp", "vjp"), order=2)


@pytest.mark.parametrize("dtype", GDT)
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4)], ids=str)
@pytest.mark.parametrize("batch", [(), (2,)], ids=str)
def test_lu_gradcheck(dtype, shape, batch):
    # l and u (the permutation is chosen at a and fixed nearby); the packed rectangular
    # lu_factor; permute_l's p @ l
    a = tf.asarray(rand(stable_rng("glu2", dtype, shape, batch), batch + shape, dtype))
    modes = ("jvp", "vjp", "eager") if batch else ("jvp", "vjp")
    autograd.gradcheck(lambda a: tl.lu(a)[1:], (a,), modes=modes, order=2)
    autograd.gradcheck(lambda a: tl.lu(a, permute_l=True), (a,), modes=("jvp", "vjp"), order=2)
    autograd.gradcheck(lambda a: tl.lu_factor(a)[0], (a,), modes=("jvp", "vjp"), order=2)


def test_lu_gradient_vs_scipy_differences_and_torch():
    # a tall complex batch: against central differences of the same loss with scipy.linalg.lu
    # (tenferro's convention: dL/dRe a + i dL/dIm a), then PyTorch's
    a = rand(stable_rng("lu-torch"), (2, 5, 3), "complex128")

    def np_loss(x):
        _, l, u = sl.lu(x)
        return (np.abs(l) ** 3).sum() + (u * u).real.sum()

    g = tf.grad(lambda a: (lambda p, l, u: (tf.abs(l) ** 3).sum() + tf.real(u * u).sum())(
        *tl.lu(a)))(tf.asarray(a))
    assert_close(g, central_grad(np_loss, a), rtol=1e-6, atol=1e-6)
    torch = pytest.importorskip("torch")   # (last: PyTorch is optional)
    ta = torch.tensor(a, requires_grad=True)
    _, tl_, tu = torch.linalg.lu(ta)
    ((tl_.abs() ** 3).sum() + (tu * tu).real.sum()).backward()
    assert_close(g, ta.grad.numpy(), rtol=1e-10, atol=1e-10)

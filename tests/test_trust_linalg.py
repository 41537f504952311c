"""issue 15, linalg: no silent wrong result.  Each named defect has its regression test
(named after it); every reference is NumPy/SciPy or central finite differences.
Crash-prone calls (out-of-range pivots) run in a subprocess, so a segfault fails the
test instead of killing pytest."""
import inspect
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest
import scipy.linalg as sl

import tenferro as tf
import tenferro.linalg as tl
from tenferro import autograd

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_isolated(code):
    """``code`` in a fresh interpreter (this checkout first on the path): (returncode,
    stdout + stderr)."""
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=env, cwd=ROOT, timeout=120)
    return r.returncode, r.stdout + r.stderr


# -- 1. LAPACK entries validate what LAPACK trusts ------------------------------------------

def _raises_in_subprocess(setup, call, names, message):
    """Run ``call`` for each of ``cases`` (unpacked into ``names``) after ``setup`` in a
    fresh interpreter (a crash there fails the test, not the run): every case must raise
    ValueError containing ``message``."""
    code = setup + """
for %s in cases:
    try:
        %s
    except ValueError as e:
        assert %r in str(e), e
    else:
        raise SystemExit("no error")
print("RAISED")
""" % (names, call, message)
    rc, out = run_isolated(code)
    assert rc == 0 and "RAISED" in out, out


@pytest.mark.parametrize("piv", ["[5, 1, 2]", "[-1, 1, 2]", "[0, 1, 3]", "[2**31 + 1, 1, 2]"])
def test_lu_solve_out_of_range_pivots_raise_not_crash(piv):
    _raises_in_subprocess("""
import numpy as np, scipy.linalg as sl, tenferro.linalg as tl
lu, _ = sl.lu_factor(np.eye(3) + 1)
piv = np.array(%s, dtype=np.int64)
cases = [(lu, piv, np.ones(3)), (np.stack([lu, lu]), np.stack([piv, piv]), np.ones((2, 3, 1)))]
""" % piv, "tl.lu_solve((l, p), b)", "l, p, b", "piv must hold 0-based row indices in [0, 3)")


def test_getrs_kernel_checks_pivots_itself():
    _raises_in_subprocess("""
import numpy as np
from tenferro._kernels import _lapack
lu = np.eye(3); b = np.ones((3, 1)); out = np.empty((3, 1))
cases = [np.array([7, 1, 2], np.int32), np.array([-4, 1, 2], np.int32)]
""", "_lapack.getrs(lu, piv, b, out, 0, 1)", "piv", "pivots must lie in [0, 3)")


def test_lu_solve_valid_pivots_still_match_scipy():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((4, 4))
    lu, piv = sl.lu_factor(a)
    b = rng.standard_normal(4)
    np.testing.assert_allclose(tl.lu_solve((lu, piv), b).numpy(), sl.lu_solve((lu, piv), b),
                               rtol=1e-12)
    # float pivots are cast as scipy does
    np.testing.assert_allclose(tl.lu_solve((lu, piv.astype(float)), b).numpy(),
                               sl.lu_solve((lu, piv.astype(float)), b), rtol=1e-12)


def test_lu_solve_rejects_complex_pivots():
    lu, piv = sl.lu_factor(np.eye(2))
    with pytest.raises(TypeError, match="piv must be integer pivots"):
        tl.lu_solve((lu, piv + 0j), np.ones(2))


# -- 2. NaN / inf with check_finite=False: never uninitialised memory -----------------------

NONFINITE = [np.nan, np.inf, -np.inf]


def bad_matrix(v, n=2):
    a = np.eye(n) + 0.5
    a[0, 0] = v
    return a


@pytest.mark.parametrize("v", NONFINITE)
@pytest.mark.parametrize("n", [2, 20])   # the tiny-matrix (Jacobi) and the LAPACK paths
@pytest.mark.parametrize("f", [
    lambda a: tl.svd(a, check_finite=False, compute_uv=False),
    lambda a: tl.svd(a, check_finite=False),
    lambda a: tl.svd(a, check_finite=False, lapack_driver="gesvd"),
    lambda a: tl.svdvals(a, check_finite=False),
    lambda a: tl.eigh(a, check_finite=False),
    lambda a: tl.eigvalsh(a, check_finite=False),
    lambda a: tl.lstsq(a, np.ones(a.shape[0]), check_finite=False),
    lambda a: tl.pinv(a, check_finite=False),
    lambda a: tl.norm(a, 2, check_finite=False),
], ids=["svdvals-via-svd", "svd", "svd-gesvd", "svdvals", "eigh", "eigvalsh", "lstsq", "pinv",
        "norm2"])
def test_svd_eigh_of_nan_inf_check_finite_false_raise_not_garbage(f, v, n):
    # scipy: "SVD did not converge"-style errors or LAPACK "illegal value"; NumPy:
    # LinAlgError "did not converge".  Today svd of NaN returned [1e-313, 0].
    with pytest.raises(np.linalg.LinAlgError, match="did not converge"):
        f(bad_matrix(v, n))


@pytest.mark.parametrize("v", NONFINITE)
def test_nonfinite_matrix_in_a_batch_names_it(v):
    a = np.stack([np.eye(3), bad_matrix(v, 3), np.eye(3)])
    with pytest.raises(tl.LinAlgError, match="matrix 1 of the batch did not converge"):
        tl.svdvals(a, check_finite=False)


@pytest.mark.parametrize("v", NONFINITE)
def test_eig_of_nonfinite_is_nan(v):
    w = tl.eigvals(bad_matrix(v), check_finite=False).numpy()
    assert np.isnan(w).all()


@pytest.mark.parametrize("f", [tl.svd, tl.svdvals, tl.eigh, tl.eigvalsh, tl.eig, tl.eigvals,
                               tl.qr, tl.cholesky, tl.pinv, tl.det, tl.inv, tl.lu_factor,
                               lambda a: tl.lstsq(a, np.ones(2)),
                               lambda a: tl.solve(a, np.ones(2)), tl.norm])
def test_check_finite_default_raises_scipy_value_error(f):
    with pytest.raises(ValueError, match="array must not contain infs or NaNs"):
        f(bad_matrix(np.nan))
    with pytest.raises(ValueError):       # scipy's own behaviour, for the same call
        sl.svd(bad_matrix(np.nan))


def test_lstsq_b_nonfinite_check_finite_false_raises():
    with pytest.raises(tl.LinAlgError, match="did not converge"):
        tl.lstsq(np.eye(2), np.array([np.nan, 1.0]), check_finite=False)


# -- 3. norm: no overflow, no underflow -----------------------------------------------------

@pytest.mark.parametrize("scale", [1e200, 1e-200, 1.0])
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_norm_free_of_overflow_and_underflow(scale, dtype):
    x = np.array([3.0, 4.0], dtype) * scale
    want = 5.0 * scale
    for ord in (None, 2):
        np.testing.assert_allclose(tl.norm(x, ord).numpy(), want, rtol=1e-15)
    np.testing.assert_allclose(float(tl.norm(x)), sl.norm(x), rtol=1e-15)
    m = np.array([[3.0, 0.0], [0.0, 4.0]], dtype) * scale
    for ord in (None, "fro"):
        np.testing.assert_allclose(tl.norm(m, ord).numpy(), want, rtol=1e-15)
    np.testing.assert_allclose(tl.norm(np.stack([x, 2 * x]), axis=1).numpy(),
                               [want, 2 * want], rtol=1e-15)
    np.testing.assert_allclose(tl.norm(np.stack([m, m]), axis=(1, 2)).numpy(),
                               [want, want], rtol=1e-15)
    np.testing.assert_allclose(tl.norm(x, 3).numpy(), scale * (27 + 64) ** (1 / 3),
                               rtol=1e-14)


@pytest.mark.parametrize("x, dtype", [([2e38, 2e38], np.float32), ([3e38, 1e30], np.float32),
                                      ([1.7e308, 1e300], np.float64),
                                      ([2e38 + 1e38j], np.complex64)])
def test_norm_near_the_largest_float_is_finite(x, dtype):
    """A scale of the power of two *above* max |x| is 2**128 for float32 values near
    3e38, which is not a float32: the norm came out NaN (inf scale, 0 * inf)."""
    a = np.array(x, dtype)
    mag = np.abs(a).astype(np.longdouble)
    for ord, want in ((None, np.sqrt(np.sum(mag ** 2))), (3, np.sum(mag ** 3) ** (1 / 3))):
        got = tl.norm(a, ord)
        assert got.dtype == np.abs(a).dtype
        np.testing.assert_allclose(float(got), float(want), rtol=1e-6)


def test_norm_1e200_is_not_inf():
    np.testing.assert_allclose(tl.norm(np.array([1e200, 1e200])).numpy(),
                               np.sqrt(2) * 1e200, rtol=1e-15)


def test_norm_float32_1e_30_is_not_zero():
    got = tl.norm(np.array([1e-30, 1e-30], np.float32)).numpy()
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, np.float32(np.sqrt(2) * 1e-30), rtol=1e-6)
    np.testing.assert_allclose(got, sl.norm(np.array([1e-30, 1e-30], np.float32)), rtol=1e-6)


def test_norm_in_range_matches_numpy_exactly():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((5, 7))
    for ord, axis in [(None, None), (None, 1), (3, 0), ("fro", None), (0.5, 1)]:
        np.testing.assert_allclose(tl.norm(x, ord, axis).numpy(), np.linalg.norm(x, ord, axis),
                                   rtol=1e-14)


def test_norm_nan_and_inf_propagate_as_numpy():
    for x in ([np.inf, 1.0], [np.nan, 1.0], [np.inf, np.nan], [-np.inf, 0.0], [0.0, 0.0]):
        x = np.array(x)
        np.testing.assert_equal(tl.norm(x, check_finite=False).numpy(), np.linalg.norm(x))
        np.testing.assert_equal(tl.norm(x, 3, check_finite=False).numpy(),
                                np.linalg.norm(x, 3))


def _fd_grad(f, x, rel=1e-6):
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        h = rel * max(abs(x[i]), 1e-300)
        e = np.zeros_like(x)
        e[i] = h
        g[i] = (f(x + e) - f(x - e)) / (2 * h)
    return g


@pytest.mark.parametrize("scale", [1e200, 1e-200, 1.0])
@pytest.mark.parametrize("p", [None, 3, 1.5])
def test_norm_gradient_at_scaled_magnitudes_matches_finite_differences(scale, p):
    x0 = np.array([3.0, -4.0, 1.0]) * scale
    fd = _fd_grad(lambda v: np.linalg.norm(v / scale, p) * scale, x0)
    g = tf.grad(lambda v: tl.norm(v, p))(tf.asarray(x0)).numpy()
    np.testing.assert_allclose(g, fd, rtol=1e-6)
    x = tf.tensor(x0, requires_grad=True)
    tl.norm(x, p).backward()
    np.testing.assert_allclose(x.grad.numpy(), fd, rtol=1e-6)
    t = np.array([1.0, 2.0, -0.5]) * scale
    _, jv = tf.jvp(lambda v: tl.norm(v, p), (tf.asarray(x0),), (tf.asarray(t),))
    np.testing.assert_allclose(float(jv), fd @ t, rtol=1e-6)


def test_norm_gradient_gradcheck_complex_and_matrix():
    rng = np.random.default_rng(2)
    z = tf.asarray(rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4)))
    autograd.gradcheck(lambda v: tl.norm(v), (z,), modes=("jvp", "vjp"), order=2)
    autograd.gradcheck(lambda v: tl.norm(v, 3, axis=1), (z,), modes=("jvp", "vjp"), order=2)
    x = tf.asarray(rng.standard_normal((2, 3, 4)))
    autograd.gradcheck(lambda v: tl.norm(v, "fro", axis=(1, 2)), (x,), modes=("jvp", "vjp"),
                       order=2)


@pytest.mark.parametrize("shape", [(0, 0), (0, 3), (3, 0)])
@pytest.mark.parametrize("ord", [None, "fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf])
def test_norm_of_empty_matrix_as_numpy(shape, ord):
    x = np.zeros(shape)
    try:
        want = np.linalg.norm(x, ord)
    except ValueError:
        with pytest.raises(ValueError, match="zero-size"):
            tl.norm(x, ord)
        return
    assert float(tl.norm(x, ord)) == want


@pytest.mark.parametrize("ord", [None, 1, 2, 3, np.inf, 0, -1])
def test_norm_of_empty_vector_as_numpy(ord):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = np.linalg.norm(np.zeros(0), ord)
    assert float(tl.norm(np.zeros(0), ord)) == want


# -- 4. slogdet -----------------------------------------------------------------------------

@pytest.mark.parametrize("a", [
    [[np.inf, 0.0], [0.0, 1.0]], [[-np.inf, 0.0], [0.0, 1.0]], [[np.inf, 0.0], [0.0, -1.0]],
    [[1e300, 0.0], [0.0, 1e300]], [[-1e300, 0.0], [0.0, 1e300]], [[np.nan, 1.0], [1.0, 2.0]],
    [[1.0, 2.0], [2.0, 4.0]], [[0.0, 0.0], [0.0, 0.0]], [[0.0, 1.0], [1.0, 0.0]],
    [[np.inf + 0j, 0.0], [0.0, 1.0]], [[1e300j, 0.0], [0.0, 1e300]],
    [[np.nan + 0j, 0.0], [0.0, 1.0]], [[0j, 1.0], [1.0, 0.0]]],
    ids=["inf", "-inf", "inf,-1", "overflow", "-overflow", "nan", "singular", "zero", "swap",
         "complex-inf", "complex-overflow", "complex-nan", "complex-swap"])
def test_slogdet_infinite_determinant_sign_as_numpy(a):
    a = np.array(a)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        ws, wl = np.linalg.slogdet(a)
    s, l_ = tl.slogdet(a)
    np.testing.assert_equal(s.numpy(), ws)
    np.testing.assert_allclose(l_.numpy(), wl, rtol=1e-14)


# -- 5. cho_solve broadcasting --------------------------------------------------------------

def test_cho_solve_batched_factors_with_1d_b_broadcasts_as_scipy():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((3, 4, 4))
    a = x @ np.swapaxes(x, -1, -2) + 4 * np.eye(4)
    for lower in (True, False):
        c = np.stack([sl.cho_factor(m, lower=lower)[0] for m in a])
        b = rng.standard_normal(4)
        np.testing.assert_allclose(tl.cho_solve((c, lower), b).numpy(),
                                   sl.cho_solve((c, lower), b), rtol=1e-12)
        b2 = rng.standard_normal((4, 2))
        np.testing.assert_allclose(tl.cho_solve((c, lower), b2).numpy(),
                                   sl.cho_solve((c, lower), b2), rtol=1e-12)
    with pytest.raises(ValueError, match="b needs 4 rows"):
        tl.cho_solve((c, True), np.ones(3))


# -- 6. solve's structures ------------------------------------------------------------------

def _nonsym(dtype, n=4, seed=4):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((n, n)) + 4 * np.eye(n)
    if dtype == "complex128":
        a = a + 1j * rng.standard_normal((n, n))
    return a.astype(dtype)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("assume_a", ["sym", "symmetric", "her", "hermitian", "pos",
                                      "positive definite"])
@pytest.mark.parametrize("lower", [False, True])
def test_solve_sym_her_pos_read_the_triangle_scipy_reads(dtype, assume_a, lower):
    a = _nonsym(dtype)
    if assume_a.startswith("pos"):    # positive definite in the read triangle
        a = a + 10 * np.eye(4)
    b = np.arange(1.0, 5.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sl.LinAlgWarning)
        want = sl.solve(a, b, assume_a=assume_a, lower=lower)
    np.testing.assert_allclose(tl.solve(a, b, assume_a=assume_a, lower=lower).numpy(), want,
                               rtol=1e-12)


@pytest.mark.parametrize("assume_a", [None, "gen", "general", "banded", "diagonal",
                                      "tridiagonal", "upper triangular", "lower triangular"])
@pytest.mark.parametrize("transposed", [False, True])
def test_solve_scipy_117_structures(assume_a, transposed):
    a = _nonsym("float64", 5)
    b = np.arange(1.0, 11.0).reshape(5, 2)
    want = sl.solve(a, b, assume_a=assume_a, transposed=transposed)
    np.testing.assert_allclose(tl.solve(a, b, assume_a=assume_a, transposed=transposed).numpy(),
                               want, rtol=1e-12)
    np.testing.assert_allclose(tl.solve(a, b[:, 0], assume_a=assume_a,
                                        transposed=transposed).numpy(), want[:, 0], rtol=1e-12)
    ab = np.stack([a, 2 * a])
    np.testing.assert_allclose(tl.solve(ab, b, assume_a=assume_a).numpy(),
                               sl.solve(ab, b, assume_a=assume_a), rtol=1e-12)


@pytest.mark.parametrize("assume_a", [None, "gen", "diagonal", "upper triangular",
                                      "lower triangular", "pos", "sym", "her"])
@pytest.mark.parametrize("lower", [False, True])
def test_inv_assume_a_as_scipy(assume_a, lower):
    a = _nonsym("float64") + (10 * np.eye(4) if assume_a == "pos" else 0)
    if assume_a == "diagonal":   # scipy 1.17 leaves a's off-diagonal entries in its result
        a = np.diag(np.diag(a))
    np.testing.assert_allclose(tl.inv(a, assume_a=assume_a, lower=lower).numpy(),
                               sl.inv(a, assume_a=assume_a, lower=lower), rtol=1e-12)


def test_solve_unknown_structure_and_complex_transposed():
    with pytest.raises(ValueError, match="'band' is not a recognized matrix structure"):
        tl.solve(np.eye(2), np.ones(2), assume_a="band")
    with pytest.raises(ValueError, match="not a recognized matrix structure"):
        tl.inv(np.eye(2), assume_a="tridiagonal")
    with pytest.raises(tl.LinAlgError, match="singular"):
        tl.solve(np.diag([1.0, 0.0]), np.ones(2), assume_a="diagonal")


@pytest.mark.parametrize("assume_a", ["sym", "her", "pos", "diagonal", "tridiagonal",
                                      "upper triangular", "lower triangular", None])
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_solve_structure_gradients_match_finite_differences(assume_a, dtype):
    rng = np.random.default_rng(5)
    a = _nonsym(dtype) + (10 * np.eye(4) if assume_a == "pos" else 0)
    b = rng.standard_normal((4, 2)).astype(dtype)
    for lower in (False, True):
        autograd.gradcheck(lambda x, y: tl.solve(x, y, assume_a=assume_a, lower=lower),
                           (tf.asarray(a), tf.asarray(b)), modes=("jvp", "vjp"), order=1)


# -- 7. error types and warnings as scipy's -------------------------------------------------

def test_linalg_error_is_numpy_linalg_error():
    assert issubclass(tl.LinAlgError, np.linalg.LinAlgError)
    with pytest.raises(np.linalg.LinAlgError, match="singular"):
        tl.solve(np.zeros((2, 2)), np.ones(2))
    with pytest.raises(ValueError, match="singular"):      # still a ValueError
        tl.inv(np.zeros((2, 2)))


@pytest.mark.parametrize("f", [lambda a, b: tl.solve(a, b), lambda a, b: tl.inv(a),
                               lambda a, b: tl.solve(np.stack([np.eye(12), a]), b)],
                         ids=["solve", "inv", "batch"])
def test_ill_conditioned_solve_warns_linalg_warning_as_scipy(f):
    a = sl.hilbert(12)
    b = np.ones(12)
    with pytest.warns(sl.LinAlgWarning):
        sl.solve(a, b)
    with pytest.warns(sl.LinAlgWarning, match="ill-conditioned matrix detected: slice "):
        f(a, b)
    with warnings.catch_warnings():   # well enough conditioned: no warning (nor scipy's)
        warnings.simplefilter("error")
        sl.solve(sl.hilbert(4), b[:4])
        tl.solve(sl.hilbert(4), b[:4])
        tl.inv(np.stack([np.eye(4), sl.hilbert(4)]))


@pytest.mark.parametrize("assume_a,a", [
    ("pos", sl.hilbert(12)), ("sym", sl.hilbert(12)), ("her", sl.hilbert(12)),
    ("diagonal", np.diag([1.0, 1e-17, 1.0])), ("tridiagonal", np.diag([1.0, 1e-17, 1.0])),
    ("positive definite", np.diag([1.0, 1e-17, 1.0]))])
def test_ill_conditioned_structured_solve_warns_as_scipy(assume_a, a):
    b = np.ones(a.shape[0])
    with pytest.warns(sl.LinAlgWarning):
        sl.solve(a, b, assume_a=assume_a)
    with pytest.warns(sl.LinAlgWarning, match="solve: an ill-conditioned matrix detected"):
        tl.solve(a, b, assume_a=assume_a)


def test_ill_conditioned_pos_rcond_is_scipys_pocon():
    a = sl.hilbert(12)
    for lower in (False, True):
        c = sl.cholesky(a, lower=lower)
        want, _ = sl.lapack.dpocon(c, np.abs(a).sum(axis=0).max(), uplo="L" if lower else "U")
        with pytest.warns(sl.LinAlgWarning) as rec:
            tl.solve(a, np.ones(12), assume_a="pos", lower=lower)
        got = float(str(rec[0].message).split("rcond = ")[1].split(";")[0])
        # an estimate from a factor that differs in the last bits (tenferro's own
        # Cholesky for n <= 16): the same to a few percent at cond ~ 1e17
        np.testing.assert_allclose(got, want, rtol=0.05)


def test_ill_conditioned_rcond_is_scipys_gecon():
    a = sl.hilbert(12)
    with pytest.warns(sl.LinAlgWarning) as want:
        sl.solve(a, np.ones(12), assume_a="gen")
    with pytest.warns(sl.LinAlgWarning) as rec:
        tl.solve(a, np.ones(12))
    rcond = float(str(want[0].message).split("rcond = ")[1].rstrip("."))
    assert ("rcond = %.6g" % rcond) in str(rec[0].message)


BAD = [
    ("svd lapack_driver not a string", lambda m: m.svd(np.eye(2), lapack_driver=1)),
    ("svd unknown lapack_driver", lambda m: m.svd(np.eye(2), lapack_driver="x")),
    ("lstsq unknown lapack_driver", lambda m: m.lstsq(np.eye(2), np.ones(2),
                                                      lapack_driver="x")),
    ("eigh unknown driver", lambda m: m.eigh(np.eye(2), driver=1)),
    ("solve non-square", lambda m: m.solve(np.ones((2, 3)), np.ones(2))),
    ("solve 1-D a", lambda m: m.solve(np.ones(2), np.ones(2))),
    ("solve b rows", lambda m: m.solve(np.eye(2), np.ones(3))),
    ("inv non-square", lambda m: m.inv(np.ones((2, 3)))),
    ("det non-square", lambda m: m.det(np.ones((2, 3)))),
    ("cholesky non-square", lambda m: m.cholesky(np.ones((2, 3)))),
    ("eigh non-square", lambda m: m.eigh(np.ones((2, 3)))),
    ("eig non-square", lambda m: m.eig(np.ones((2, 3)))),
    ("svd 1-D", lambda m: m.svd(np.ones(2))),
    ("qr bad mode", lambda m: m.qr(np.eye(2), mode="x")),
    ("norm bad ord", lambda m: m.norm(np.eye(2), ord=3)),
    ("cho_solve non-square", lambda m: m.cho_solve((np.ones((2, 3)), False), np.ones(2))),
    ("solve_triangular non-square", lambda m: m.solve_triangular(np.ones((2, 3)), np.ones(2))),
    ("solve unknown assume_a", lambda m: m.solve(np.eye(2), np.ones(2), assume_a="x")),
]


@pytest.mark.parametrize("case", BAD, ids=[c[0] for c in BAD])
def test_error_types_match_scipy(case):
    _, call = case
    want, got = _raised(call, sl), _raised(call, tl)
    assert want is not None and got is not None, (want, got)
    # the same class, or a subclass of scipy's (tenferro's LinAlgError is NumPy's)
    assert isinstance(got, type(want)), (got, want)
    assert "tenferro" in str(got), got      # our message, naming the operation


def _raised(call, module):
    """The exception ``call(module)`` raises (None if it returns)."""
    try:
        call(module)
    except (ValueError, TypeError, NotImplementedError, np.linalg.LinAlgError) as e:
        return e
    return None


# -- 8. overwrite_a / overwrite_b accepted wherever scipy accepts them ----------------------

@pytest.mark.parametrize("name", ["cholesky", "cho_factor", "cho_solve", "solve_triangular",
                                  "eigh", "eigvalsh", "eig", "eigvals", "lu", "lu_factor",
                                  "lu_solve", "solve", "inv", "det", "qr", "svd", "svdvals",
                                  "lstsq"])
def test_overwrite_parameters_accepted_as_scipy(name):
    ours = inspect.signature(getattr(tl, name)).parameters
    for p in inspect.signature(getattr(sl, name)).parameters:
        if p.startswith("overwrite"):
            assert p in ours, (name, p)


def test_overwrite_true_leaves_inputs_untouched():
    a = np.array([[4.0, 1.0], [2.0, 3.0]])
    b = np.array([1.0, 2.0])
    a0, b0 = a.copy(), b.copy()
    tl.solve(a, b, overwrite_a=True, overwrite_b=True)
    tl.lu_factor(a, overwrite_a=True)
    tl.inv(a, overwrite_a=True)
    tl.svd(a, overwrite_a=True)
    np.testing.assert_array_equal(a, a0)
    np.testing.assert_array_equal(b, b0)


# -- 1b. layouts and edge shapes at every LAPACK entry: scipy's numbers ---------------------

_ENTRIES = {
    "svd": lambda m, a: m.svd(a, compute_uv=False),
    "svd-u": lambda m, a: np.abs(np.asarray(m.svd(a)[0])),
    "eigh": lambda m, a: m.eigh(a)[0],
    "eigvalsh": lambda m, a: m.eigvalsh(a),
    "eigvals": lambda m, a: np.sort_complex(np.asarray(m.eigvals(a), complex)),
    "qr": lambda m, a: np.abs(np.asarray(m.qr(a)[1])),
    "cholesky": lambda m, a: m.cholesky(a),
    "lu_factor": lambda m, a: m.lu_factor(a)[0],
    "inv": lambda m, a: m.inv(a),
    "det": lambda m, a: m.det(a),
    "solve": lambda m, a: m.solve(a, np.ones(a.shape[-1])),
    "lstsq": lambda m, a: m.lstsq(a, np.ones(a.shape[-2]))[0],
    "pinv": lambda m, a: m.pinv(a),
    "expm": lambda m, a: m.expm(a),
    "norm": lambda m, a: m.norm(a),
    "solve_triangular": lambda m, a: m.solve_triangular(a, np.ones(a.shape[-1])),
    "cho_solve": lambda m, a: m.cho_solve((m.cho_factor(a)[0], False), np.ones(a.shape[-1])),
    "lu_solve": lambda m, a: m.lu_solve(m.lu_factor(a), np.ones(a.shape[-1])),
}


def _layouts():
    rng = np.random.default_rng(6)
    big = rng.standard_normal((8, 8))
    big = big @ big.T + 8 * np.eye(8)
    ro = np.array(big[:4, :4])
    ro.flags.writeable = False
    return {"empty": np.zeros((0, 0)), "empty-batch": np.zeros((2, 0, 0)),
            "strided": big[::2, ::2], "transposed": big[:4, :4].T,
            "negative-strides": big[::-1, ::-1][:4, :4], "read-only": ro,
            "unaligned": np.frombuffer(b"\0" + big[:4, :4].tobytes(), np.float64,
                                       offset=1).reshape(4, 4),
            "big-endian": big[:4, :4].astype(">f8"), "int": np.array([[2, 1], [1, 2]])}


@pytest.mark.parametrize("layout", list(_layouts()))
@pytest.mark.parametrize("entry", list(_ENTRIES))
def test_lapack_entries_on_edge_layouts_match_scipy(entry, layout):
    a = _layouts()[layout]
    f = _ENTRIES[entry]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sl.LinAlgWarning)
        # scipy reads some non-native layouts wrongly: compare with its native-endian,
        # aligned, contiguous copy
        want = np.asarray(f(sl, np.array(a, a.dtype.newbyteorder("="), order="C")))
        got = np.asarray(f(tl, a))
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_svd_of_impossible_size_is_value_error_as_scipy():
    a = np.broadcast_to(np.ones((1, 1)), (100000, 100000))     # no memory behind it
    for full in (True, False):
        with pytest.raises(ValueError, match="integer overflow in LAPACK"):
            sl.svd(a, full_matrices=full, check_finite=False)
        with pytest.raises(ValueError, match="svd: .* would incur integer overflow in LAPACK"):
            tl.svd(a, full_matrices=full, check_finite=False)

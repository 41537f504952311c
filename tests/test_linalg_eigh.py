"""tenferro.linalg.eigh / eigvalsh against scipy.linalg, their derivatives (gradcheck to
order 2, forward and reverse, real and complex, through gauge-invariant quantities),
degenerate spectra (finite gradients where PyTorch gives NaN) and the complex gauge
check."""
import numpy as np
import pytest
import scipy.linalg as sl

import tenferro as tf
import tenferro.linalg as tl
from tenferro import autograd

from conftest import MATRIX_LAYOUTS, assert_close, matrix_layout, stable_rng

DTYPES = ["float32", "float64", "complex64", "complex128"]
TOL = {"float32": 2e-4, "complex64": 2e-4, "float64": 1e-10, "complex128": 1e-10}


def herm(rng, batch, n, dtype):
    x = rng.standard_normal(batch + (n, n))
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(batch + (n, n))
    return ((x + np.conj(np.swapaxes(x, -1, -2))) / 2).astype(dtype)


def H(x):
    return tf.conj(tf.matrix_transpose(tf.asarray(x)))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("batch", [(), (3,), (2, 2)], ids=str)
@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("layout", MATRIX_LAYOUTS)
def test_eigh_vs_scipy(dtype, batch, lower, layout):
    a = herm(stable_rng("eigh", dtype, batch, lower), batch, 5, dtype)
    t = tf.asarray(matrix_layout(a, layout))
    w, v = tl.eigh(t, lower=lower)
    real = np.dtype(dtype).type(0).real.dtype
    assert w.dtype == real and v.dtype == a.dtype and w.shape == batch + (5,)
    want = np.stack([sl.eigh(m, eigvals_only=True) for m in a.reshape(-1, 5, 5)]).reshape(
        batch + (5,))
    tol = TOL[dtype] * 10
    assert_close(w, want, rtol=tol, atol=tol)
    assert_close(tl.eigvalsh(t, lower=lower), want, rtol=tol, atol=tol)
    assert_close(tl.eigh(t, lower=lower, eigvals_only=True), want, rtol=tol, atol=tol)
    vn = v.numpy()
    assert_close(tf.asarray(vn * np.expand_dims(w.numpy(), -2) @ H(vn).numpy()), a,
                 rtol=tol, atol=tol)
    assert_close(tf.asarray(H(vn).numpy() @ vn), np.broadcast_to(np.eye(5), a.shape).astype(
        a.dtype), rtol=tol, atol=tol)


def test_eigh_reads_one_triangle_promotes_and_rejects():
    rng = stable_rng("tri")
    a = herm(rng, (), 4, "float64")
    junk = np.tril(a) + np.triu(rng.standard_normal((4, 4)) * 9, 1)
    assert_close(tl.eigvalsh(junk, lower=True), sl.eigvalsh(a), rtol=1e-12, atol=1e-12)
    assert tl.eigvalsh(np.array([[2, 1], [1, 2]])).dtype == tf.float64
    with pytest.raises(ValueError, match=r"eigh: expected square matrices"):
        tl.eigh(np.ones((2, 3)))
    with pytest.raises(ValueError, match="infs or NaNs"):
        tl.eigvalsh(np.full((2, 2), np.inf))


# -- derivatives -------------------------------------------------------------------------------

def _input(key, dtype, batch=()):
    return tf.asarray(herm(stable_rng(*key, dtype), batch, 4, dtype))


GAUGE_INVARIANT = {
    "eigenvalues": lambda w, v: w,
    "matrix function V f(w) V^H": lambda w, v: (v * tf.expand_dims(tf.sin(w), -2)) @ H(v),
    "first eigenprojector": lambda w, v: v[..., :, :1] @ H(v[..., :, :1]),
    "|v|^2": lambda w, v: tf.abs(v) ** 2,
}


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("name", list(GAUGE_INVARIANT))
def test_eigh_gradcheck(dtype, lower, name):
    g = GAUGE_INVARIANT[name]
    a = _input(("g", lower, name), dtype)
    autograd.gradcheck(lambda a: g(*tl.eigh(a, lower=lower)), (a,), modes=("jvp", "vjp"),
                       order=2)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_eigh_gradcheck_batched_and_eigvalsh(dtype):
    a = _input(("b",), dtype, (2,))
    autograd.gradcheck(lambda a: GAUGE_INVARIANT["first eigenprojector"](*tl.eigh(a)), (a,),
                       modes=("jvp", "vjp"), order=2)
    autograd.gradcheck(tl.eigvalsh, (a,), modes=("jvp", "vjp", "eager"), order=2)


def test_degenerate_spectrum_gives_finite_exact_gradient():
    # A = Q diag(1, 1, 1, 3) Q^T: a triple eigenvalue.  The projector onto the
    # degenerate eigenspace and the eigenvalues are smooth functions of A; their
    # gradients through eigh are finite and match finite differences along symmetric
    # directions (PyTorch's eigh backward gives NaN/inf here)
    rng = stable_rng("degenerate")
    q, _ = np.linalg.qr(rng.standard_normal((4, 4)))
    a = q @ np.diag([1.0, 1.0, 1.0, 3.0]) @ q.T
    c = rng.standard_normal((4, 4))

    def loss(a):
        w, v = tl.eigh(a)
        p = v[:, :3] @ tf.matrix_transpose(v[:, :3])
        return (tf.asarray(c) * p).sum() + (w ** 2).sum()
    g = tf.grad(loss)(tf.asarray(a)).numpy()
    assert np.all(np.isfinite(g))
    for k in range(3):
        d = rng.standard_normal((4, 4))
        d = d + d.T
        e = 1e-6
        fd = (float(loss(tf.asarray(a + e * d))) - float(loss(tf.asarray(a - e * d)))) / (2 * e)
        assert abs(np.sum(g * d) - fd) < 1e-6 * max(1.0, abs(fd))
    # exactly equal eigenvalues (a diagonal matrix): still finite and exact here, where
    # PyTorch divides by the zero gap (checked last: PyTorch is optional)
    a0 = np.diag([1.0, 1.0, 1.0, 3.0])
    g0 = tf.grad(loss)(tf.asarray(a0)).numpy()
    assert np.all(np.isfinite(g0))
    d = rng.standard_normal((4, 4))
    d = d + d.T
    fd = (float(loss(tf.asarray(a0 + 1e-6 * d))) - float(loss(tf.asarray(a0 - 1e-6 * d)))) / 2e-6
    assert abs(np.sum(g0 * d) - fd) < 1e-6 * max(1.0, abs(fd))
    torch = pytest.importorskip("torch")
    ta = torch.tensor(a0, requires_grad=True)
    tw, tv = torch.linalg.eigh(ta)
    ((torch.tensor(c) * (tv[:, :3] @ tv[:, :3].T)).sum() + (tw ** 2).sum()).backward()
    assert not torch.all(torch.isfinite(ta.grad))


def test_phase_dependent_loss_raises():
    a = _input(("phase",), "complex128")

    def bad(a):
        w, v = tl.eigh(a)
        return tf.imag(v[0, 0]) + tf.real(v[1, 0])
    with pytest.raises(tl.LinAlgError, match="depends on the phases of the complex "
                                             "eigenvectors"):
        tf.grad(bad)(a)
    # a phase-invariant loss of the same eigenvector is fine
    tf.grad(lambda a: tf.abs(tl.eigh(a)[1][0, 0]) ** 2)(a)


# -- generalized problem, subsets, drivers -----------------------------------------------------

def pd(rng, batch, n, dtype):
    x = herm(rng, batch, n, dtype)
    return (x @ np.conj(np.swapaxes(x, -1, -2)) + n * np.eye(n)).astype(dtype)


def junk(rng, m, lower):
    """``m`` with large random values in the triangle that ``lower`` says is not read."""
    j = (rng.standard_normal(m.shape) * 9).astype(m.dtype)
    return np.tril(m) + np.triu(j, 1) if lower else np.triu(m) + np.tril(j, -1)


def scipy_eigh(a, b=None, **kw):
    """scipy.linalg.eigh per matrix of a batch (b broadcast)."""
    batch = a.shape[:-2] if b is None else np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = np.broadcast_to(a, batch + a.shape[-2:]).reshape((-1,) + a.shape[-2:])
    bs = [None] * len(a) if b is None else np.broadcast_to(
        b, batch + b.shape[-2:]).reshape((-1,) + b.shape[-2:])
    out = [sl.eigh(x, y, **kw) for x, y in zip(a, bs)]
    w = np.stack([o[0] for o in out])
    v = np.stack([o[1] for o in out])
    return w.reshape(batch + w.shape[1:]), v.reshape(batch + v.shape[1:])


def projectors(v):
    """v_i v_i^H for each column: the gauge-invariant content of eigenvectors."""
    v = np.asarray(v)
    return np.einsum("...ik,...jk->...kij", v, np.conj(v))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("type", [1, 2, 3])
@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("batch", [(), (2,)], ids=str)
def test_generalized_vs_scipy(dtype, type, lower, batch):
    rng = stable_rng("gen", dtype, type, lower, batch)
    a = junk(rng, herm(rng, batch, 4, dtype), lower)
    bh = pd(rng, batch, 4, dtype)
    b = junk(rng, bh, lower)
    w, v = tl.eigh(a, b, type=type, lower=lower)
    ws, vs = scipy_eigh(a, b, type=type, lower=lower)
    tol = TOL[dtype] * 100
    assert w.dtype == ws.dtype and v.dtype == vs.dtype and v.shape == vs.shape
    assert_close(w, ws, rtol=tol, atol=tol)
    assert_close(tf.asarray(projectors(v)), projectors(vs), rtol=tol, atol=tol)
    # LAPACK's normalization (v^H b v = I, or v^H b^-1 v = I for type 3), on tenferro's v
    vn = v.numpy()
    g = bh if type != 3 else np.linalg.inv(bh)
    assert_close(tf.asarray(np.conj(np.swapaxes(vn, -1, -2)) @ g @ vn),
                 np.broadcast_to(np.eye(4), vn.shape).astype(dtype), rtol=tol, atol=tol)
    for vals in (tl.eigvalsh(a, b, type=type, lower=lower),
                 tl.eigh(a, b, type=type, lower=lower, eigvals_only=True)):
        assert_close(vals, ws, rtol=tol, atol=tol)


def test_generalized_broadcasts_promotes_and_ignores_type_without_b():
    rng = stable_rng("bcast")
    a = herm(rng, (2, 3), 4, "complex128")
    b = pd(rng, (3,), 4, "float32")
    w, v = tl.eigh(a, b, type=2)
    ws, vs = scipy_eigh(a, b.astype(np.float64), type=2)
    assert w.shape == (2, 3, 4) and v.dtype == tf.complex128
    assert_close(w, ws, rtol=1e-6, atol=1e-6)
    assert_close(tf.asarray(projectors(v)), projectors(vs), rtol=1e-6, atol=1e-6)
    ai = np.array([[2, 1], [1, 3]])
    assert_close(tl.eigvalsh(ai, np.array([[2, 0], [0, 1]])),
                 sl.eigvalsh(ai, np.array([[2, 0], [0, 1]])), rtol=1e-14, atol=1e-14)
    # scipy ignores type (even a bad one) without b
    assert_close(tl.eigvalsh(a, type=7), scipy_eigh(a)[0], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("generalized", [False, True])
@pytest.mark.parametrize("batch", [(), (3,)], ids=str)
def test_subset_by_index_vs_scipy(dtype, generalized, batch):
    rng = stable_rng("idx", dtype, generalized, batch)
    a = herm(rng, batch, 5, dtype)
    b = pd(rng, batch, 5, dtype) if generalized else None
    tol = TOL[dtype] * 100
    for lo, hi in [(0, 0), (1, 3), (4, 4), (0, 4)]:
        w, v = tl.eigh(a, b, subset_by_index=[lo, hi])
        ws, vs = scipy_eigh(a, b, subset_by_index=[lo, hi])
        assert v.shape == vs.shape == batch + (5, hi - lo + 1)
        assert_close(w, ws, rtol=tol, atol=tol)
        assert_close(tf.asarray(projectors(v)), projectors(vs), rtol=tol, atol=tol)
        assert_close(tl.eigvalsh(a, b, subset_by_index=(lo, hi)), ws, rtol=tol, atol=tol)


def spectrum(rng, ws, dtype):
    """Hermitian matrices with the eigenvalues ``ws`` (one row per matrix)."""
    out = []
    for w in ws:
        x = herm(rng, (), len(w), dtype).astype(np.result_type(dtype, np.float64))
        q, _ = np.linalg.qr(x + 3 * np.eye(len(w)))
        out.append(q @ np.diag(w) @ np.conj(q.T))
    return np.stack(out).astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_subset_by_value_vs_scipy(dtype):
    rng = stable_rng("val", dtype)
    # kept ranges (0, 1.5] start at index 2 in the first matrix and 3 in the second
    a = spectrum(rng, [[-3.0, -1.0, 1.0, 2.0], [-3.0, -2.0, -1.0, 1.0]], dtype)
    tol = TOL[dtype] * 100
    for bounds in ([0.0, 1.5], [-np.inf, -2.5], [-2.5, np.inf], [-4.0, 3.0], [5.0, 6.0]):
        w, v = tl.eigh(a, subset_by_value=bounds)
        ws, vs = scipy_eigh(a, subset_by_value=bounds)
        assert w.shape == ws.shape and v.shape == vs.shape
        assert_close(w, ws, rtol=tol, atol=tol)
        assert_close(tf.asarray(projectors(v)), projectors(vs), rtol=tol, atol=tol)
        assert_close(tl.eigvalsh(a, subset_by_value=bounds), ws, rtol=tol, atol=tol)
    # half-open (vl, vh]: an eigenvalue equal to vh is kept, one equal to vl is not
    d = np.diag([1.0, 2.0, 3.0])
    assert_close(tl.eigvalsh(d, subset_by_value=[1.0, 2.0]),
                 sl.eigvalsh(d, subset_by_value=[1.0, 2.0]), rtol=0, atol=0)
    assert tl.eigvalsh(d, subset_by_value=[1.0, 2.0]).numpy().tolist() == [2.0]
    # generalized: b^-1 a has a's inertia, so the signs' counts are known
    a = spectrum(rng, [[-3.0, -1.0, 1.0, 2.0], [-2.0, -1.0, 1.0, 3.0]], dtype)
    b = pd(rng, (2,), 4, dtype)
    for bounds in ([-np.inf, 0.0], [0.0, np.inf]):
        ws, vs = scipy_eigh(a, b, subset_by_value=bounds)
        w, v = tl.eigh(a, b, subset_by_value=bounds)
        assert_close(w, ws, rtol=tol, atol=tol)
        assert_close(tf.asarray(projectors(v)), projectors(vs), rtol=tol, atol=tol)


@pytest.mark.parametrize("driver", ["ev", "evd", "evr", "evx", "gv", "gvd", "gvx"])
def test_drivers_vs_scipy(driver):
    rng = stable_rng("drv", driver)
    a = herm(rng, (), 4, "complex128")
    b = pd(rng, (), 4, "complex128") if driver.startswith("g") else None
    w, v = tl.eigh(a, b, driver=driver)
    ws, vs = sl.eigh(a, b, driver=driver)
    assert_close(w, ws, rtol=1e-10, atol=1e-10)
    assert_close(tf.asarray(projectors(v)), projectors(vs), rtol=1e-10, atol=1e-10)
    if driver in ("evr", "evx", "gvx"):
        ws = sl.eigvalsh(a, b, driver=driver, subset_by_index=[1, 2])
        assert_close(tl.eigvalsh(a, b, driver=driver, subset_by_index=[1, 2]), ws,
                     rtol=1e-10, atol=1e-10)


BAD_ARGS = [
    (dict(driver="foo"), "unknown driver 'foo'"),
    (dict(driver="gvd"), "driver 'gvd' is for generalized problems: it requires b"),
    (dict(b=True, driver="evr"), "driver 'evr' is for standard problems: it does not accept b"),
    (dict(driver="evd", subset_by_index=[0, 1]), "driver 'evd' cannot compute subsets"),
    (dict(b=True, driver="gvd", subset_by_value=[0, 1]), "driver 'gvd' cannot compute subsets"),
    (dict(b=True, type=4), "type must be 1, 2 or 3, got 4"),
    (dict(subset_by_index=[2, 1]), r"subset_by_index=\[2, 1\] is not valid: expected 0 <= lo "
                                   r"<= hi <= 3 for matrices of size 4"),
    (dict(subset_by_index=[-1, 1]), r"subset_by_index=\[-1, 1\] is not valid"),
    (dict(subset_by_index=[0, 4]), r"subset_by_index=\[0, 4\] is not valid"),
    (dict(subset_by_value=[1.0, 1.0]), r"subset_by_value=\[1.0, 1.0\] is not valid: expected "
                                       "vl < vh"),
    (dict(subset_by_index=[0, 1], subset_by_value=[0, 1]),
     "subset_by_index and subset_by_value cannot both be given"),
]


@pytest.mark.parametrize("kw, msg", BAD_ARGS, ids=[m for _, m in BAD_ARGS])
@pytest.mark.parametrize("fn", ["eigh", "eigvalsh"])
def test_bad_arguments_raise_as_scipy(kw, msg, fn):
    rng = stable_rng("bad")
    a = herm(rng, (), 4, "float64")
    kw = dict(kw)
    if kw.pop("b", False):
        kw["b"] = pd(rng, (), 4, "float64")
    with pytest.raises(ValueError):
        getattr(sl, fn)(a, **kw)
    with pytest.raises(ValueError, match="tenferro.linalg.%s: %s" % (fn, msg)):
        getattr(tl, fn)(a, **kw)


def test_generalized_errors():
    rng = stable_rng("generr")
    a = herm(rng, (3,), 4, "float64")
    b = pd(rng, (3,), 4, "float64")
    b[1, 2, 2] = -100.0
    with pytest.raises(tl.LinAlgError, match="eigh: b must be positive definite, but its "
                                             "Cholesky factorization failed: matrix 1 of "
                                             "the batch is not positive definite"):
        tl.eigh(a, b)
    with pytest.raises(tl.LinAlgError, match="eigvalsh: b must be positive definite.*the "
                                             "matrix is not positive definite"):
        tl.eigvalsh(a[1], b[1])
    with pytest.raises(ValueError, match=r"eigh: a of shape \(3, 4, 4\) and b of shape "
                                         r"\(3, 3\) do not fit"):
        tl.eigh(a, np.eye(3))
    with pytest.raises(ValueError, match="eigh"):
        tl.eigh(a, np.broadcast_to(np.eye(4), (2, 4, 4)))
    with pytest.raises(ValueError, match="eigvalsh: expected square matrices"):
        tl.eigvalsh(a, np.ones((4, 3)))
    with pytest.raises(ValueError, match="eigh: array must not contain infs"):
        tl.eigh(a, np.full((4, 4), np.nan))
    # batch members keeping different numbers of eigenvalues
    m = spectrum(rng, [[-1.0, 1.0, 2.0], [-1.0, -0.5, 2.0]], "float64")
    with pytest.raises(ValueError, match=r"eigh: subset_by_value=\[0.0, 3.0\] selects "
                                         "different numbers of eigenvalues in the matrices "
                                         r"of the batch \(from 1 to 2\)"):
        tl.eigh(m, subset_by_value=[0.0, 3.0])


# -- derivatives of the generalized problem and of subsets -------------------------------------

@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("type", [1, 2, 3])
@pytest.mark.parametrize("name", ["eigenvalues", "matrix function V f(w) V^H", "|v|^2"])
def test_generalized_gradcheck(dtype, type, name):
    g = GAUGE_INVARIANT[name]
    rng = stable_rng("gg", dtype, type, name)
    a, b = tf.asarray(herm(rng, (), 3, dtype)), tf.asarray(pd(rng, (), 3, dtype))
    lower = type != 2
    autograd.gradcheck(lambda a, b: g(*tl.eigh(a, b, type=type, lower=lower)), (a, b),
                       modes=("jvp", "vjp"), order=2)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_generalized_gradcheck_batched_broadcast_and_eigvalsh(dtype):
    rng = stable_rng("ggb", dtype)
    a, b = tf.asarray(herm(rng, (2,), 3, dtype)), tf.asarray(pd(rng, (), 3, dtype))
    autograd.gradcheck(lambda a, b: GAUGE_INVARIANT["first eigenprojector"](
        *tl.eigh(a, b, lower=False)), (a, b), modes=("jvp", "vjp"), order=2)
    autograd.gradcheck(lambda a, b: tl.eigvalsh(a, b, type=3), (a, b),
                       modes=("jvp", "vjp", "eager"), order=2)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("generalized", [False, True])
def test_subset_gradcheck(dtype, generalized):
    rng = stable_rng("sg", dtype, generalized)
    # batched, kept ranges (0, 1.5] starting at different indices: the gather path
    # (generalized: as many negative eigenvalues in each, kept by [-inf, 0])
    last = [-2.0, -1.0, 1.0, 3.0] if generalized else [-3.0, -2.0, -1.0, 1.0]
    a = tf.asarray(spectrum(rng, [[-3.0, -1.0, 1.0, 2.0], last], dtype))
    args = (a, tf.asarray(pd(rng, (), 4, dtype))) if generalized else (a,)
    f = GAUGE_INVARIANT["matrix function V f(w) V^H"]
    autograd.gradcheck(lambda *x: f(*tl.eigh(*x, subset_by_index=[1, 2])), args,
                       modes=("jvp", "vjp"), order=2)
    autograd.gradcheck(lambda *x: tl.eigvalsh(*x, subset_by_index=[3, 3]), args,
                       modes=("jvp", "vjp"), order=2)
    bounds = [0.0, 1.5] if not generalized else [-np.inf, 0.0]
    autograd.gradcheck(lambda *x: f(*tl.eigh(*x, subset_by_value=bounds)), args,
                       modes=("jvp", "vjp"), order=2)

"""tenferro.linalg.eig / eigvals against scipy.linalg (forward: eigenvalues as sets,
eigenvectors gauge-invariantly), and their derivatives (gradcheck to order 2, forward
and reverse, real and complex, batched, through gauge-invariant losses); real-input
gradients are real; the phase check; errors."""
import numpy as np
import pytest
import scipy.linalg as sl

import tenferro as tf
from tenferro import autograd
from tenferro.linalg import LinAlgError
from tenferro.linalg._eig import eig, eigvals
from tenferro.linalg._lu import inv

from conftest import MATRIX_LAYOUTS, matrix_layout, sample, stable_rng

DTYPES = ["float32", "float64", "complex64", "complex128"]
CPLX = {"float32": np.complex64, "complex64": np.complex64, "float64": np.complex128,
        "complex128": np.complex128}
TOL = {"float32": 2e-3, "complex64": 2e-3, "float64": 1e-9, "complex128": 1e-9}


def H(x):
    return np.conj(np.swapaxes(x, -1, -2))


def same_spectrum(w, ws, tol):
    """The index in ws of each w[i] (nearest), checking that w and ws are the same set
    (a permutation; eigenvalues are compared as sets, not in an order)."""
    idx = np.array([np.argmin(np.abs(ws - x)) for x in w], dtype=int)
    assert sorted(idx) == list(range(len(ws))), (w, ws)
    np.testing.assert_allclose(w, ws[idx], rtol=tol, atol=tol)
    return idx


def check_against_scipy(a, w, vl, vr, tol, b=None):
    """One matrix: w is scipy's spectrum; vr, vl are unit-norm right/left eigenvectors
    for w (scipy's left convention vl^H a = w vl^H [b]) and match scipy's up to a
    phase."""
    ws, vls, vrs = sl.eig(a, b, left=True)
    idx = same_spectrum(w, ws, tol)
    scale = max(1.0, np.abs(a).max())
    bm = np.eye(len(a)) if b is None else b
    for v, ref in ((vr, vrs), (vl, vls)):
        if v is None:
            continue
        np.testing.assert_allclose(np.linalg.norm(v, axis=0), 1, rtol=tol, atol=tol)
        for i, j in enumerate(idx):   # the same eigenvalue in scipy's order
            assert abs(abs(np.vdot(ref[:, j], v[:, i])) - 1) < tol * 10
    scale *= max(1.0, np.abs(w).max())
    if vr is not None:
        np.testing.assert_allclose(a @ vr, bm @ vr * w, atol=tol * scale * 10)
    if vl is not None:
        np.testing.assert_allclose(H(vl) @ a, w[:, None] * (H(vl) @ bm), atol=tol * scale * 10)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("batch", [(), (3,), (2, 2)], ids=str)
@pytest.mark.parametrize("layout", MATRIX_LAYOUTS)
def test_eig_vs_scipy(dtype, batch, layout):
    a = sample(stable_rng("eig", dtype, batch), batch + (5, 5), dtype)
    x = tf.asarray(matrix_layout(a.copy(), layout))
    w, vl, vr = eig(x, left=True)
    c = np.dtype(CPLX[dtype])
    assert (w.dtype, vl.dtype, vr.dtype) == (c, c, c)
    assert w.shape == batch + (5,) and vl.shape == vr.shape == batch + (5, 5)
    w2, vr2 = eig(x)
    w3 = eigvals(x)
    w4, vl4 = eig(x, left=True, right=False)
    w5 = eig(x, right=False)
    for i in np.ndindex(*batch):
        check_against_scipy(a[i], w.numpy()[i], vl.numpy()[i], vr.numpy()[i], TOL[dtype])
        check_against_scipy(a[i], w2.numpy()[i], None, vr2.numpy()[i], TOL[dtype])
        check_against_scipy(a[i], w4.numpy()[i], vl4.numpy()[i], None, TOL[dtype])
        for ww in (w3, w5):
            same_spectrum(ww.numpy()[i], sl.eigvals(a[i]), TOL[dtype])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("batch", [((), ()), ((3,), ()), ((2, 1), (3,))], ids=str)
@pytest.mark.parametrize("layout", MATRIX_LAYOUTS)
def test_generalized_vs_scipy(dtype, batch, layout):
    rng = stable_rng("geig", dtype, batch)
    a = sample(rng, batch[0] + (4, 4), dtype)
    b = sample(rng, batch[1] + (4, 4), dtype) + 4 * np.eye(4, dtype=dtype)
    x, y = tf.asarray(matrix_layout(a.copy(), layout)), tf.asarray(matrix_layout(b, layout))
    w, vl, vr = (t.numpy() for t in eig(x, y, left=True))
    w2 = eigvals(x, y).numpy()
    full = np.broadcast_shapes(batch[0], batch[1])
    assert w.shape == w2.shape == full + (4,) and w.dtype == np.dtype(CPLX[dtype])
    a, b = np.broadcast_to(a, full + (4, 4)), np.broadcast_to(b, full + (4, 4))
    for i in np.ndindex(*full):
        check_against_scipy(a[i], w[i], vl[i], vr[i], TOL[dtype], b=b[i])
        same_spectrum(w2[i], sl.eigvals(a[i], b[i]), TOL[dtype])


def test_generalized_singular_b_gives_infinite_eigenvalues():
    a = np.array([[1.0, 2, 0], [0, 3, 1], [1, 0, 2]])
    b = np.diag([1.0, 0.0, 0.0])
    w = eigvals(a, b).numpy()
    ws = sl.eigvals(a, b)
    assert np.isinf(w.real).sum() == np.isinf(ws.real).sum() == 2
    same_spectrum(w[np.isfinite(w)], ws[np.isfinite(ws)], 1e-12)
    assert np.isnan(eigvals(np.zeros((2, 2)), np.zeros((2, 2))).numpy()).all()
    # the derivative needs (B V)^-1: a clear error, not NaN
    with pytest.raises(LinAlgError, match="eig: the derivative needs the inverse of the "
                                          "eigenvector matrix V .* singular"):
        tf.grad(lambda a: tf.real(eigvals(a, b)[0]))(tf.asarray(a))
    with pytest.raises(LinAlgError, match="eig: the derivative needs the inverse"):
        tf.jvp(lambda a: eig(a, b), (tf.asarray(a),), (tf.asarray(a),))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_real_matrix_with_complex_pairs(dtype):
    # a rotation-scaling block (eigenvalues 1 +- 2i) and 3: known exactly
    a = np.array([[1, -2, 0], [2, 1, 0], [0, 0, 3]], dtype)
    q = np.array([[1, 1, 0], [0, 1, 1], [1, 0, 1]], dtype)   # similarity: not normal
    a = q @ a @ np.linalg.inv(q).astype(dtype)
    w, vl, vr = (t.numpy() for t in eig(a, left=True))
    tol = TOL[dtype]
    same_spectrum(w, np.array([1 - 2j, 1 + 2j, 3]), tol * 10)
    check_against_scipy(a, w, vl, vr, tol)
    p = np.flatnonzero(w.imag > 0)[0]
    q = np.flatnonzero(w.imag < 0)[0]
    # the pair's vectors are conjugate (LAPACK's x + iy, x - iy)
    np.testing.assert_allclose(vr[:, q], np.conj(vr[:, p]), atol=tol)
    np.testing.assert_allclose(vl[:, q], np.conj(vl[:, p]), atol=tol)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(0, 0), (3, 0, 0), (0, 4, 4)], ids=str)
def test_empty(dtype, shape):
    w, vl, vr = eig(np.ones(shape, dtype), left=True)
    assert w.shape == shape[:-1] and vl.shape == vr.shape == shape
    assert w.dtype == vr.dtype == np.dtype(CPLX[dtype])
    assert eigvals(np.ones(shape, dtype)).shape == shape[:-1]


def test_promotion_and_errors():
    w, v = eig(np.array([[2, 1], [0, 3]]))
    assert w.dtype == v.dtype == tf.complex128
    same_spectrum(w.numpy(), np.array([2, 3]), 1e-12)
    with pytest.raises(ValueError, match="eig: expected square matrices"):
        eig(np.ones((2, 3)))
    with pytest.raises(ValueError, match="eigvals: expected a matrix or a stack"):
        eigvals(np.ones(3))
    with pytest.raises(ValueError, match="eig: array must not contain infs or NaNs"):
        eig(np.full((2, 2), np.nan))
    with pytest.raises(ValueError, match=r"eig: a of shape \(2, 2\) and b of shape "
                                         r"\(3, 3\) do not fit"):
        eig(np.eye(2), np.eye(3))
    with pytest.raises(ValueError, match="eigvals: expected square matrices"):
        eigvals(np.eye(2), np.ones((2, 3)))
    with pytest.raises(ValueError, match="eig: array must not contain infs or NaNs"):
        eig(np.eye(2), np.full((2, 2), np.inf))
    with pytest.raises(ValueError, match="eig: shapes"):
        eig(np.ones((2, 3, 3)), np.ones((4, 3, 3)))
    with pytest.raises(NotImplementedError, match="eig: homogeneous_eigvals=True"):
        eig(np.eye(2), homogeneous_eigvals=True)
    with pytest.raises(NotImplementedError, match="eigvals: homogeneous_eigvals=True"):
        eigvals(np.eye(2), np.eye(2), homogeneous_eigvals=True)


def test_nonfinite_without_check_gives_nan():
    a = np.stack([np.diag([1.0, 2.0]), np.array([[np.inf, 0], [0, 1]])])
    w, v = (t.numpy() for t in eig(a, check_finite=False))
    same_spectrum(w[0], np.array([1, 2]), 1e-12)
    assert np.isnan(w[1]).all() and np.isnan(v[1]).all()


# -- derivatives -------------------------------------------------------------------------


def _vfv(w, vr):
    return vr @ (tf.expand_dims(tf.sin(w), -1) * inv(vr))   # = sin(A): gauge-free


GAUGE_INVARIANT = {
    "eigenvalues": lambda a: eig(a)[0],
    "|vr|^2": lambda a: tf.abs(eig(a)[1]) ** 2,
    "|vl|^2, |vr|^2": lambda a: (lambda w, vl, vr: (w, tf.abs(vl) ** 2, tf.abs(vr) ** 2))(
        *eig(a, left=True)),
    "|vl|^2 only": lambda a: tf.abs(eig(a, left=True, right=False)[1]) ** 2,
    "V sin(w) V^-1": lambda a: _vfv(*eig(a)),
    "eigvals": lambda a: eigvals(a),
}


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("batch", [(), (2,)], ids=str)
@pytest.mark.parametrize("name", list(GAUGE_INVARIANT))
def test_eig_gradcheck(dtype, batch, name):
    a = tf.asarray(sample(stable_rng("geig", dtype, batch, name), batch + (4, 4), dtype))
    autograd.gradcheck(GAUGE_INVARIANT[name], (a,), modes=("jvp", "vjp"), order=2)


GENERALIZED = {
    "eigenvalues": lambda a, b: eigvals(a, b),
    "w, |vl|^2, |vr|^2": lambda a, b: (lambda w, vl, vr: (w, tf.abs(vl) ** 2,
                                                          tf.abs(vr) ** 2))(
        *eig(a, b, left=True)),
    "V sin(w) V^-1": lambda a, b: _vfv(*eig(a, b)),
}


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("batch", [(), (2,)], ids=str)
@pytest.mark.parametrize("name", list(GENERALIZED))
def test_generalized_gradcheck(dtype, batch, name):
    rng = stable_rng("ggen", dtype, batch, name)
    a = tf.asarray(sample(rng, batch + (3, 3), dtype))
    b = tf.asarray(sample(rng, batch + (3, 3), dtype) + 3 * np.eye(3))
    autograd.gradcheck(GENERALIZED[name], (a, b), modes=("jvp", "vjp"), order=2)


def test_generalized_gradients_exact():
    # sum(w) = tr(B^-1 A): gA = B^-T, gB = -(B^-1 A B^-1)^T; real for real input
    rng = stable_rng("gexact")
    a = sample(rng, (3, 3), "float64")
    b = sample(rng, (3, 3), "float64") + 3 * np.eye(3)
    ga, gb = tf.grad(lambda a, b: tf.real(eigvals(a, b)).sum(), argnums=(0, 1))(
        tf.asarray(a), tf.asarray(b))
    assert ga.dtype == gb.dtype == tf.float64
    bi = np.linalg.inv(b)
    np.testing.assert_allclose(ga.numpy(), bi.T, atol=1e-10)
    np.testing.assert_allclose(gb.numpy(), -(bi @ a @ bi).T, atol=1e-10)


def test_eigvals_eager_gradcheck():
    a = tf.asarray(sample(stable_rng("geager"), (2, 3, 3), "complex128"))
    autograd.gradcheck(eigvals, (a,), modes=("eager",), order=2)


def test_real_input_gradient_is_real_and_exact():
    # sum(w) = tr(A), sum(w^2) = tr(A^2): gradients I and 2 A^T (2 A^H for complex A)
    a = sample(stable_rng("greal"), (2, 4, 4), "float64")
    g1 = tf.grad(lambda a: tf.real(eigvals(a)).sum())(tf.asarray(a))
    assert g1.dtype == tf.float64
    np.testing.assert_allclose(g1.numpy(), np.broadcast_to(np.eye(4), a.shape), atol=1e-12)
    g2 = tf.grad(lambda a: tf.real(eig(a)[0] ** 2).sum())(tf.asarray(a))
    assert g2.dtype == tf.float64
    np.testing.assert_allclose(g2.numpy(), 2 * np.swapaxes(a, -1, -2), atol=1e-10)
    c = sample(stable_rng("gcplx"), (4, 4), "complex128")
    g3 = tf.grad(lambda a: tf.real(eig(a)[0] ** 2).sum())(tf.asarray(c))
    np.testing.assert_allclose(g3.numpy(), 2 * H(c), atol=1e-10)
    # forward mode: a real tangent gives complex tangents of the complex outputs
    t = sample(stable_rng("gtan"), (2, 4, 4), "float64")
    _, dw = tf.jvp(lambda a: eigvals(a), (tf.asarray(a),), (tf.asarray(t),))
    assert dw.dtype == tf.complex128
    np.testing.assert_allclose(dw.numpy().sum(-1), np.trace(t, axis1=-2, axis2=-1), atol=1e-12)
    torch = pytest.importorskip("torch")   # (last: PyTorch is optional)
    ta = torch.tensor(a, requires_grad=True)
    tw, tv = torch.linalg.eig(ta)
    (tw.real ** 2 + (tv.abs() ** 2).sum(-2)).sum().backward()
    g4 = tf.grad(lambda a: (lambda w, v: (tf.real(w) ** 2 + (tf.abs(v) ** 2).sum(-2)).sum())(
        *eig(a)))(tf.asarray(a))
    np.testing.assert_allclose(g4.numpy(), ta.grad.numpy(), atol=1e-9)


def test_repeated_eigenvalues_give_finite_gradients():
    # a non-defective matrix with a double eigenvalue: the gradient of tr(A) through w
    # is exact, and a function of the vectors stays finite (broadened gaps)
    q = np.array([[2.0, 1, 0], [0, 1, 1], [1, 0, 1]])
    a = tf.asarray(q @ np.diag([1.0, 1.0, 3.0]) @ np.linalg.inv(q))
    g = tf.grad(lambda a: tf.real(eig(a)[0]).sum())(a)
    np.testing.assert_allclose(g.numpy(), np.eye(3), atol=1e-10)
    g = tf.grad(lambda a: (tf.abs(eig(a)[1]) ** 2).sum())(a)
    assert np.all(np.isfinite(g.numpy()))


@pytest.mark.parametrize("left", [False, True])
def test_phase_dependent_loss_raises(left):
    a = tf.asarray(sample(stable_rng("ph"), (3, 3), "complex128"))
    pick = (lambda out: out[1]) if left else (lambda out: out[-1])
    with pytest.raises(LinAlgError, match="eig: the loss depends on the phases of the "
                                          "complex eigenvectors"):
        tf.grad(lambda a: (lambda v: tf.imag(v[0, 0]) + tf.real(v[1, 0]))(
            pick(eig(a, left=left))))(a)
    # real input too: its eigenvectors are complex, with arbitrary phases
    r = tf.asarray(sample(stable_rng("phr"), (3, 3), "float64"))
    with pytest.raises(LinAlgError, match="eig: the loss depends on the phases"):
        tf.grad(lambda a: (lambda v: tf.imag(v[0, 0]) + tf.real(v[1, 0]))(eig(a)[1]))(r)

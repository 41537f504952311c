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
    with pytest.raises(NotImplementedError, match="generalized problem"):
        tl.eigh(a, np.eye(4))
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
    autograd.gradcheck(lambda a: g(*tl.eigh(a, lower=lower)), (a,), modes=("fwd", "rev"),
                       order=2)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_eigh_gradcheck_batched_and_eigvalsh(dtype):
    a = _input(("b",), dtype, (2,))
    autograd.gradcheck(lambda a: GAUGE_INVARIANT["first eigenprojector"](*tl.eigh(a)), (a,),
                       modes=("fwd", "rev"), order=2)
    autograd.gradcheck(tl.eigvalsh, (a,), modes=("fwd", "rev", "eager"), order=2)


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

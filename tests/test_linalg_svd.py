"""tenferro.linalg.svd / svdvals against scipy.linalg, and their derivatives (gradcheck
to order 2, forward and reverse, real and complex, tall, wide and square, through
gauge-invariant quantities); repeated singular values; the complex phase check."""
import numpy as np
import pytest
import scipy.linalg as sl

import tenferro as tf
import tenferro.linalg as tl
from tenferro import autograd

from conftest import MATRIX_LAYOUTS, assert_close, matrix_layout, sample, stable_rng

DTYPES = ["float32", "float64", "complex64", "complex128"]
TOL = {"float32": 2e-4, "complex64": 2e-4, "float64": 1e-10, "complex128": 1e-10}
SHAPES = [(5, 3), (3, 5), (4, 4)]


def H(x):
    return tf.conj(tf.matrix_transpose(tf.asarray(x)))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("batch", [(), (2,)], ids=str)
@pytest.mark.parametrize("full", [True, False])
@pytest.mark.parametrize("layout", MATRIX_LAYOUTS)
def test_svd_vs_scipy(dtype, shape, batch, full, layout):
    a = sample(stable_rng("svd", dtype, shape, batch), batch + shape, dtype)
    u, s, vh = tl.svd(tf.asarray(matrix_layout(a, layout)), full_matrices=full)
    m, n = shape
    k = min(m, n)
    assert u.shape == batch + (m, m if full else k)
    assert vh.shape == batch + (n if full else k, n)
    want = np.stack([sl.svdvals(x) for x in a.reshape((-1,) + shape)]).reshape(batch + (k,))
    tol = TOL[dtype] * 10
    assert_close(s, want, rtol=tol, atol=tol)
    assert_close(tl.svdvals(a), want, rtol=tol, atol=tol)
    assert_close(tl.svd(a, compute_uv=False), want, rtol=tol, atol=tol)
    un, vn = u.numpy(), vh.numpy()
    rec = (un[..., :, :k] * np.expand_dims(s.numpy(), -2)) @ vn[..., :k, :]
    assert_close(tf.asarray(rec), a, rtol=tol, atol=tol)
    assert_close(tf.asarray(H(un).numpy() @ un), np.broadcast_to(
        np.eye(un.shape[-1]), batch + (un.shape[-1],) * 2).astype(dtype), rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("full", [True, False])
def test_svd_gesvd_driver_is_scipys(dtype, full):
    # lapack_driver='gesvd' runs ?gesvd, as scipy: the same factors, signs included
    a = sample(stable_rng("gesvd", dtype), (2, 5, 3), dtype)
    u, s, vh = tl.svd(a, full_matrices=full, lapack_driver="gesvd")
    tol = TOL[dtype] * 10
    for i in range(2):
        ru, rs, rvh = sl.svd(a[i], full_matrices=full, lapack_driver="gesvd")
        assert_close(u[i], ru, rtol=tol, atol=tol)
        assert_close(s[i], rs, rtol=tol, atol=tol)
        assert_close(vh[i], rvh, rtol=tol, atol=tol)
    assert_close(tl.svd(a, compute_uv=False, lapack_driver="gesvd"), s.numpy(), rtol=tol,
                 atol=tol)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_svd_gesvd_gradcheck(dtype):
    a = tf.asarray(sample(stable_rng("ggesvd", dtype), (2, 4, 3), dtype))
    autograd.gradcheck(lambda a: GAUGE_INVARIANT["projectors"](
        *tl.svd(a, full_matrices=False, lapack_driver="gesvd")), (a,), modes=("jvp", "vjp"),
        order=2)
    autograd.gradcheck(lambda a: tl.svd(a, compute_uv=False, lapack_driver="gesvd"), (a,),
                       modes=("jvp", "vjp"), order=2)


def test_svd_errors_and_promotion():
    assert tl.svdvals(np.array([[3, 0], [0, 4]])).dtype == tf.float64
    with pytest.raises(ValueError, match="expected a matrix or a stack of matrices"):
        tl.svd(np.ones(3))
    with pytest.raises(ValueError, match="lapack_driver must be 'gesdd' or 'gesvd'"):
        tl.svd(np.eye(2), lapack_driver="x")
    with pytest.raises(ValueError, match="infs or NaNs"):
        tl.svdvals(np.full((2, 2), np.nan))


GAUGE_INVARIANT = {
    "singular values": lambda u, s, vh: s,
    "U f(s) Vh": lambda u, s, vh: (u * tf.expand_dims(tf.sin(s), -2)) @ vh,
    "projectors": lambda u, s, vh: (u @ H(u), H(vh) @ vh),
    "|u|^2, |vh|^2": lambda u, s, vh: (tf.abs(u) ** 2, tf.abs(vh) ** 2),
}


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("name", list(GAUGE_INVARIANT))
def test_svd_gradcheck(dtype, shape, name):
    g = GAUGE_INVARIANT[name]
    a = tf.asarray(sample(stable_rng("gsvd", dtype, shape, name), shape, dtype))
    autograd.gradcheck(lambda a: g(*tl.svd(a, full_matrices=False)), (a,),
                       modes=("jvp", "vjp"), order=2)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_svd_full_matrices_batched_and_svdvals_gradients(dtype):
    a = tf.asarray(sample(stable_rng("gfull", dtype), (2, 4, 3), dtype))
    # full_matrices=True: the gradient of the thin part (the extra columns are fixed)
    autograd.gradcheck(lambda a: (lambda u, s, vh: (u[..., :, :3] * tf.expand_dims(s, -2))
                                  @ vh)(*tl.svd(a)), (a,), modes=("jvp", "vjp"), order=2)
    autograd.gradcheck(tl.svdvals, (a,), modes=("jvp", "vjp", "eager"), order=2)


def test_repeated_singular_values_give_finite_gradients():
    # an orthogonal matrix times 2: all singular values equal.  The nuclear norm
    # sum(s) and the squared Frobenius norm sum(s^2) are smooth; their gradients
    # through svd are finite and exact (Q and 4 Q)
    q, _ = np.linalg.qr(sample(stable_rng("rep"), (4, 4), "float64"))
    a = tf.asarray(2 * q)
    g1 = tf.grad(lambda a: (lambda u, s, vh: s.sum())(*tl.svd(a)))(a).numpy()
    assert_close(tf.asarray(g1), q, rtol=1e-10, atol=1e-10)
    g2 = tf.grad(lambda a: (lambda u, s, vh: (s ** 2).sum())(*tl.svd(a)))(a).numpy()
    assert_close(tf.asarray(g2), 4 * q, rtol=1e-10, atol=1e-10)
    g3 = tf.grad(lambda a: (lambda u, s, vh: ((u * tf.expand_dims(s, -2)) @ vh).sum())(
        *tl.svd(a)))(tf.asarray(2 * np.eye(4))).numpy()
    assert np.all(np.isfinite(g3))   # finite (the limitation at exact degeneracy: docs)
    torch = pytest.importorskip("torch")   # (last: PyTorch is optional)
    ta = torch.tensor(2 * np.eye(4), requires_grad=True)
    tu, ts, tvh = torch.linalg.svd(ta)
    ((tu * ts) @ tvh).sum().backward()   # PyTorch divides by the zero gaps
    assert not torch.all(torch.isfinite(ta.grad))


def test_phase_dependent_loss_raises():
    a = tf.asarray(sample(stable_rng("ph"), (3, 3), "complex128"))
    with pytest.raises(tl.LinAlgError, match="svd: the loss depends on the phases of the "
                                             "complex singular vectors"):
        tf.grad(lambda a: (lambda u, s, vh: tf.imag(u[0, 0]) + tf.real(u[1, 0]))(
            *tl.svd(a)))(a)

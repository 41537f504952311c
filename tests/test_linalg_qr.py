"""tenferro.linalg qr against scipy.linalg.qr (directly, as both take LAPACK's signs, and
through Q^H Q = I, Q R = A), every mode, tall, wide, square, empty, batched and strided;
its derivatives (gradcheck to order 2, forward and reverse, real and complex); the
full-mode complement convention; errors."""
import numpy as np
import pytest
import scipy.linalg as sl

import tenferro as tf
from tenferro import autograd
from tenferro.linalg import LinAlgError
from tenferro.linalg._qr import qr

from conftest import central_grad, MATRIX_LAYOUTS, assert_close, matrix_layout, sample, stable_rng

DTYPES = ["float32", "float64", "complex64", "complex128"]
TOL = {"float32": 2e-4, "complex64": 2e-4, "float64": 1e-10, "complex128": 1e-10}
SHAPES = [(5, 3), (3, 5), (4, 4)]
MODES = ["full", "economic", "r"]


def H(x):
    return np.conj(np.swapaxes(x, -1, -2))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("batch", [(), (2, 3)], ids=str)
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("layout", MATRIX_LAYOUTS)
def test_qr_vs_scipy(dtype, shape, batch, mode, layout):
    a = sample(stable_rng("qr", dtype, shape, batch), batch + shape, dtype)
    got = qr(tf.asarray(matrix_layout(a, layout)), mode=mode)
    want = sl.qr(a, mode=mode)   # scipy 1.17 batches
    if batch:  # scipy: (R,) for a matrix but a bare R for a stack; a list for (Q, R)
        want = (want,) if mode == "r" else tuple(want)
    assert isinstance(got, tuple) and len(got) == len(want) == (1 if mode == "r" else 2)
    tol = TOL[dtype] * 10
    for g, w in zip(got, want):
        assert g.dtype == a.dtype and g.shape == w.shape
        assert_close(g, w, rtol=tol, atol=tol)
    r = got[-1].numpy()
    assert (np.tril(r, -1) == 0).all()
    if dtype.startswith("complex"):
        assert (np.diagonal(r, axis1=-2, axis2=-1).imag == 0).all()
    if mode != "r":
        q = got[0].numpy()
        eye = np.broadcast_to(np.eye(q.shape[-1]), q.shape[:-2] + (q.shape[-1],) * 2)
        assert_close(tf.asarray(H(q) @ q), eye.astype(dtype), rtol=tol, atol=tol)
        assert_close(tf.asarray(q @ r), a, rtol=tol, atol=tol)


@pytest.mark.parametrize("shape", [(3, 0), (0, 3), (0, 0), (2, 0, 3), (2, 3, 0)], ids=str)
@pytest.mark.parametrize("mode", MODES)
def test_qr_empty(shape, mode):
    a = np.ones(shape, np.complex64)
    got = qr(a, mode=mode)
    want = sl.qr(a, mode=mode)
    want = (want,) if mode == "r" and len(shape) == 3 else tuple(want)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == tf.complex64
        assert_close(g, w)     # Q the identity, R zeros (as scipy)


def test_qr_empty_batch():
    # (scipy's batched qr rejects zero-size batches)
    q, r = qr(np.ones((0, 4, 2)))
    assert q.shape == (0, 4, 4) and r.shape == (0, 4, 2)
    q, r = qr(np.ones((0, 4, 2)), mode="economic")
    assert q.shape == (0, 4, 2) and r.shape == (0, 2, 2)
    assert qr(np.ones((0, 4, 2)), mode="r")[0].shape == (0, 4, 2)


def test_qr_promotion_and_errors():
    ia = np.array([[1, 2], [3, 4], [5, 7]])
    q, r = qr(ia)
    assert q.dtype == r.dtype == tf.float64
    for g, w in zip((q, r), sl.qr(ia)):
        assert_close(g, w, rtol=1e-12, atol=1e-12)
    with pytest.raises(NotImplementedError, match=r"qr: pivoting=True .* not implemented"):
        qr(np.eye(2), pivoting=True)
    with pytest.raises(NotImplementedError, match=r"qr: mode='raw' .* not implemented"):
        qr(np.eye(2), mode="raw")
    with pytest.raises(ValueError, match=r"qr: mode must be one of 'full', 'r', 'economic', "
                                         r"'raw', got 'thin'"):
        qr(np.eye(2), mode="thin")
    with pytest.raises(ValueError, match=r"qr: expected a matrix or a stack of matrices "
                                         r"\[..., M, N\], got shape \(3,\)"):
        qr(np.ones(3))
    with pytest.raises(ValueError, match="qr: array must not contain infs or NaNs"):
        qr(np.array([[1.0, np.inf], [0, 1]]))
    assert qr(np.array([[1.0, np.nan]]), check_finite=False)[0].shape == (1, 1)


# -- derivatives -------------------------------------------------------------------------------

GDT = ["float64", "complex128"]


def _thin_full(a):
    """Full mode's Q restricted to its first k columns, and R (the complement columns of a
    full Q are arbitrary: see test_full_mode_complement_columns_are_constant)."""
    q, r = qr(a)
    return q[..., :, :min(a.shape[-2:])], r


@pytest.mark.parametrize("dtype", GDT)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("batch", [(), (2,)], ids=str)
@pytest.mark.parametrize("mode", MODES)
def test_qr_gradcheck(dtype, shape, batch, mode):
    a = tf.asarray(sample(stable_rng("gqr", dtype, shape, batch, mode), batch + shape, dtype))
    f = _thin_full if mode == "full" else (lambda a: qr(a, mode=mode))
    modes = ("jvp", "vjp", "eager") if batch else ("jvp", "vjp")
    autograd.gradcheck(f, (a,), modes=modes, order=2)


@pytest.mark.parametrize("dtype", GDT)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_qr_gradcheck_one_factor(dtype, shape):
    # a loss on Q alone and on R alone (the other cotangent is zero)
    a = tf.asarray(sample(stable_rng("gqr1", dtype, shape), shape, dtype))
    autograd.gradcheck(lambda a: qr(a, mode="economic")[0], (a,), modes=("jvp", "vjp"),
                       order=2)
    autograd.gradcheck(lambda a: qr(a, mode="economic")[1], (a,), modes=("jvp", "vjp"),
                       order=2)


def test_full_mode_complement_columns_are_constant():
    # mode='full', m > n: Q's last m - n columns get zero tangents and their cotangent is
    # ignored (the svd full_matrices convention)
    a = tf.asarray(sample(stable_rng("compl"), (2, 5, 3), "complex128"))
    _, (dq, dr) = tf.jvp(lambda a: qr(a), (a,), (tf.ones_like(a),))
    assert_close(dq[..., :, 3:], np.zeros((2, 5, 2), np.complex128))
    g = tf.grad(lambda a: tf.abs(qr(a)[0][..., :, 3:]).sum())(a)
    assert_close(g, np.zeros((2, 5, 3), np.complex128))
    # and the thin part's gradient is the economic one's
    loss = lambda q, r: (tf.abs(q[..., :, :3]) ** 2 * tf.real(q[..., :, :3])).sum() + \
        tf.real(r[..., :3, :]).sum()  # noqa: E731
    g_full = tf.grad(lambda a: loss(*qr(a)))(a)
    g_econ = tf.grad(lambda a: loss(*qr(a, mode="economic")))(a)
    assert_close(g_full, g_econ.numpy(), rtol=1e-12, atol=1e-12)


def test_rank_deficient_gradient_raises():
    # R has an exact zero on its diagonal: the derivative does not exist
    a = tf.asarray(np.array([[1.0, 0.0], [2.0, 0.0], [3.0, 0.0]]))
    assert qr(a)[1].numpy()[1, 1] == 0
    for mode in MODES:
        with pytest.raises(LinAlgError, match="qr: no derivative for a rank-deficient"):
            tf.grad(lambda a: qr(a, mode=mode)[-1].sum())(a)
        with pytest.raises(LinAlgError, match="qr: no derivative for a rank-deficient"):
            tf.jvp(lambda a: qr(a, mode=mode), (a,), (a,))


def test_qr_gradient_vs_scipy_differences_and_torch():
    # a wide batch: the gradient against central differences of the same loss computed
    # with scipy.linalg.qr (tenferro's convention: dL/dRe a + i dL/dIm a), then PyTorch's
    a = sample(stable_rng("qr-torch"), (2, 3, 5), "complex128")
    loss = lambda q, r: (tf.abs(q) ** 3).sum() + tf.real(r * r).sum()  # noqa: E731

    def np_loss(x):
        q, r = sl.qr(x, mode="economic")
        return (np.abs(q) ** 3).sum() + (r * r).real.sum()

    g = tf.grad(lambda a: loss(*qr(a, mode="economic")))(tf.asarray(a))
    assert_close(g, central_grad(np_loss, a), rtol=1e-6, atol=1e-6)
    torch = pytest.importorskip("torch")   # (last: PyTorch is optional)
    ta = torch.tensor(a, requires_grad=True)
    tq, tr = torch.linalg.qr(ta)
    ((tq.abs() ** 3).sum() + (tr * tr).real.sum()).backward()
    assert_close(g, ta.grad.numpy(), rtol=1e-10, atol=1e-10)

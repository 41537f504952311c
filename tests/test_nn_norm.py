"""tenferro.nn's layer_norm, rms_norm and affine against torch.nn.functional: values
and gradients in the input, weight and bias (tenferro.grad and the eager tape), every
form of normalized_shape, edges and errors.  The norms' kernels, edge values, forward
mode, second order, jit and vmap: tests/test_nn_norm_prim.py; plain jit, vmap and the
other devices: tests/test_nn_act.py (its ``ALL`` table); gradcheck to order 2:
tests/nn_act_specs.py."""
import numpy as np
import pytest

import tenferro as tf
import tenferro.nn as tnn

torch = pytest.importorskip("torch")
F = torch.nn.functional

from test_nn_act import DTYPES, RTOL, _close, _np  # noqa: E402  (the shared helpers)


# -- layer_norm, rms_norm -----------------------------------------------------------------

def _with_grads(fn, arrays):
    """(value, gradients of sum(value * w)) of ``fn`` on torch tensors of ``arrays``."""
    ts = [None if a is None else torch.from_numpy(a).requires_grad_(True) for a in arrays]
    y = fn(*ts)
    w = torch.from_numpy(np.random.default_rng(6).standard_normal(tuple(y.shape)).astype(
        arrays[0].dtype))
    gs = torch.autograd.grad((y * w).sum(), [t for t in ts if t is not None])
    return _np(y), [_np(g) for g in gs], _np(w)


NORM_CASES = [((2, 3, 4), 4), ((2, 3, 4), (3, 4)), ((5,), [5]), ((2, 3, 4), (2, 3, 4))]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("affine_", ["none", "weight", "both"])
@pytest.mark.parametrize("shape,ns", NORM_CASES)
def test_layer_norm_against_torch(shape, ns, affine_, dtype):
    rng = np.random.default_rng(7)
    nshape = (ns,) if isinstance(ns, int) else tuple(ns)
    x = rng.standard_normal(shape).astype(dtype) * 3 + 1
    w = rng.standard_normal(nshape).astype(dtype) if affine_ != "none" else None
    b = rng.standard_normal(nshape).astype(dtype) if affine_ == "both" else None
    arrays = [a for a in (x, w, b) if a is not None]
    want, grads, ct = _with_grads(
        lambda *ts: F.layer_norm(ts[0], nshape, *ts[1:], eps=1e-5), arrays)
    f = lambda *ts: tnn.layer_norm(ts[0], ns, *ts[1:])   # noqa: E731
    tol = 1e-12 if dtype == "float64" else 1e-4
    _close(_np(f(*[tf.asarray(a) for a in arrays])), want, dtype, rtol=tol, atol=tol)
    got = tf.grad(lambda *ts: (f(*ts) * tf.asarray(ct)).sum(), argnums=tuple(
        range(len(arrays))))(*[tf.asarray(a) for a in arrays])
    for g, gw in zip(got, grads):
        _close(_np(g), gw, dtype, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("eps", [None, 1e-3])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("shape,ns", NORM_CASES)
def test_rms_norm_against_torch(shape, ns, weighted, eps, dtype):
    rng = np.random.default_rng(8)
    nshape = (ns,) if isinstance(ns, int) else tuple(ns)
    x = rng.standard_normal(shape).astype(dtype) * 1e-4   # where eps=None matters
    arrays = [x] + ([rng.standard_normal(nshape).astype(dtype)] if weighted else [])
    want, grads, ct = _with_grads(lambda *ts: F.rms_norm(ts[0], nshape, *ts[1:], eps=eps),
                                  arrays)
    f = lambda *ts: tnn.rms_norm(ts[0], ns, *ts[1:], eps=eps)   # noqa: E731
    tol = 1e-12 if dtype == "float64" else 1e-4
    _close(_np(f(*[tf.asarray(a) for a in arrays])), want, dtype, rtol=tol, atol=tol)
    got = tf.grad(lambda *ts: (f(*ts) * tf.asarray(ct)).sum(), argnums=tuple(
        range(len(arrays))))(*[tf.asarray(a) for a in arrays])
    for g, gw in zip(got, grads):
        _close(_np(g), gw, dtype, rtol=tol, atol=tol * 1e4)   # grads ~ 1/|x| ~ 1e4


def test_norm_edges():
    # a constant row: variance 0, eps alone; gradients as torch's
    x = np.ones((2, 3))
    x[1] = [1.0, 2.0, 3.0]
    want, grads, ct = _with_grads(lambda t: F.layer_norm(t, (3,)), [x])
    got = tf.grad(lambda v: (tnn.layer_norm(v, 3) * tf.asarray(ct)).sum())(tf.asarray(x))
    _close(_np(tnn.layer_norm(tf.asarray(x), 3)), want, "float64", rtol=1e-12)
    _close(_np(got), grads[0], "float64", rtol=1e-10)
    assert tnn.layer_norm(tf.zeros((0, 4)), 4).shape == (0, 4)
    assert tnn.rms_norm(tf.ones((2, 0)), (2, 0)).shape == (2, 0)


def test_norm_errors():
    x = tf.ones((2, 3, 4))
    with pytest.raises(ValueError, match=r"tenferro.nn.layer_norm: normalized_shape \(3,\) "
                                         r"does not match the trailing dimensions of the "
                                         r"input of shape \(2, 3, 4\)"):
        tnn.layer_norm(x, 3)
    with pytest.raises(ValueError, match="normalized_shape .* does not match"):
        tnn.rms_norm(x, (1, 2, 3, 4))
    with pytest.raises(ValueError, match="at least one dimension"):
        tnn.layer_norm(x, ())
    with pytest.raises(TypeError, match="normalized_shape must be an int or a tuple of ints"):
        tnn.layer_norm(x, 4.0)
    with pytest.raises(ValueError, match=r"tenferro.nn.layer_norm: weight must have the "
                                         r"normalized shape \(4,\), got shape \(3,\)"):
        tnn.layer_norm(x, 4, tf.ones(3))
    with pytest.raises(ValueError, match="bias must have the normalized shape"):
        tnn.layer_norm(x, 4, None, tf.ones((1, 4)))
    with pytest.raises(ValueError, match="tenferro.nn.rms_norm: weight must have"):
        tnn.rms_norm(x, (3, 4), tf.ones(4))


# -- affine -------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shapes", [((2, 3), (3,), ()), ((2, 3), (2, 1), (1, 3)),
                                    ((), (4,), (4,)), ((0, 3), (3,), (3,))])
def test_affine_against_torch(shapes, dtype):
    rng = np.random.default_rng(9)
    arrays = [rng.standard_normal(s).astype(dtype) for s in shapes]
    want, grads, ct = _with_grads(lambda x, s, b: x * s + b, arrays)
    got = tnn.affine(*[tf.asarray(a) for a in arrays])
    _close(_np(got), want, dtype)
    g = tf.grad(lambda *ts: (tnn.affine(*ts) * tf.asarray(ct)).sum(), argnums=(0, 1, 2))(
        *[tf.asarray(a) for a in arrays])
    for a, b in zip(g, grads):
        _close(_np(a), b, dtype, rtol=RTOL[dtype] * 10)


def test_affine_dtypes_and_scalars():
    x = tf.ones((2, 2), dtype=tf.float32)
    assert tnn.affine(x, 2.0, 1.0).dtype == tf.float32            # weak Python scalars
    assert tnn.affine(x, tf.ones(2), tf.zeros(2)).dtype == tf.float64   # NumPy's promotion
    np.testing.assert_array_equal(_np(tnn.affine([1, 2], 3, 1)), [4, 7])
    xt = tf.tensor(np.ones(3), requires_grad=True)
    s = tf.tensor(np.full(3, 2.0), requires_grad=True)
    tnn.affine(xt, s, tf.ones(3)).sum().backward()
    assert xt.grad.tolist() == [2.0] * 3 and s.grad.tolist() == [1.0] * 3


def test_complex_norms_are_refused():
    with pytest.raises(TypeError, match="tenferro.nn.layer_norm: complex input"):
        tnn.layer_norm(tf.asarray([1 + 1j, 2j]), 2)
    with pytest.raises(TypeError, match="tenferro.nn.rms_norm: complex input"):
        tnn.rms_norm(tf.asarray([1 + 1j, 2j]), 2)



def test_norms_on_the_eager_tape():
    """backward() through the normalizations (the composition is recorded, not the
    compiled program a plain call runs) gives torch's gradients."""
    rng = np.random.default_rng(12)
    x, w, b = rng.standard_normal((3, 5)), rng.standard_normal(5), rng.standard_normal(5)
    want, grads, ct = _with_grads(lambda *ts: F.layer_norm(ts[0], (5,), *ts[1:]), [x, w, b])
    ts = [tf.tensor(a, requires_grad=True) for a in (x, w, b)]
    (tnn.layer_norm(ts[0], 5, ts[1], ts[2]) * tf.asarray(ct)).sum().backward()
    for t, g in zip(ts, grads):
        _close(_np(t.grad), g, "float64", rtol=1e-12, atol=1e-14)
    want, grads, ct = _with_grads(lambda *ts: F.rms_norm(ts[0], (5,), ts[1]), [x, w])
    ts = [tf.tensor(a, requires_grad=True) for a in (x, w)]
    (tnn.rms_norm(ts[0], 5, ts[1]) * tf.asarray(ct)).sum().backward()
    for t, g in zip(ts, grads):
        _close(_np(t.grad), g, "float64", rtol=1e-12, atol=1e-14)

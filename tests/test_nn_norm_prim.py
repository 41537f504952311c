"""tenferro.nn's primitives nn.layer_norm / nn.rms_norm and their backward primitives
(tenferro/nn/_norm_prim.py, _norm_grad.py): the row kernel against PyTorch on long,
short and strided rows, edge values (NaN, inf, huge, tiny, constant rows), against the
composition of tenferro's ops, float32 accuracy, the thread count; forward mode and
second derivatives against torch.func; jit (the primitives stay in the graph) and vmap
with batched weights."""
import numpy as np
import pytest

import tenferro as tf
import tenferro.nn as tnn

torch = pytest.importorskip("torch")
F = torch.nn.functional

from test_nn_act import DTYPES, _close, _np  # noqa: E402  (the shared helpers)
from test_nn_norm import _with_grads  # noqa: E402

from tenferro.nn import _norm_grad, _norm_prim  # noqa: E402


# -- the row kernel -------------------------------------------------------------------------

def _torch_norm(rms, nshape, eps):
    if rms:
        return lambda *ts: F.rms_norm(ts[0], nshape, *ts[1:], eps=eps)
    return lambda *ts: F.layer_norm(ts[0], nshape, *ts[1:], eps=eps)


def _tf_norm(rms, ns, eps):
    if rms:
        return lambda *ts: tnn.rms_norm(ts[0], ns, *ts[1:], eps=eps)
    return lambda *ts: tnn.layer_norm(ts[0], ns, *ts[1:], eps=eps)


def _against_torch(rms, arrays, ns, eps, tol, atol=0.0, grad_atol=None):
    """Value and gradients (x, weight, bias) of tenferro's norm against torch's."""
    nshape = (ns,) if isinstance(ns, int) else tuple(ns)
    want, grads, ct = _with_grads(_torch_norm(rms, nshape, eps), arrays)
    f = _tf_norm(rms, ns, eps)
    dtype = str(arrays[0].dtype)
    _close(_np(f(*[tf.asarray(a) for a in arrays])), want, dtype, rtol=tol, atol=atol)
    got = tf.grad(lambda *ts: (f(*ts) * tf.asarray(ct)).sum(), argnums=tuple(
        range(len(arrays))))(*[tf.asarray(a) for a in arrays])
    for g, gw in zip(got, grads):
        _close(_np(g), gw, dtype, rtol=tol, atol=atol if grad_atol is None else grad_atol)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("rms", [False, True])
@pytest.mark.parametrize("shape", [(3, 100000), (7, 1), (1, 1), (2, 3, 1)])
def test_norm_rows_long_and_short(shape, rms, dtype):
    """Rows of 1e5 elements (partial weight gradients in blocks), rows of one element
    (variance 0: the output is the bias)."""
    rng = np.random.default_rng(20)
    x = rng.standard_normal(shape).astype(dtype) * 2 + 0.5
    w, b = (rng.standard_normal(shape[-1]).astype(dtype) for _ in range(2))
    tol = 1e-12 if dtype == "float64" else 2e-4
    _against_torch(rms, [x, w] if rms else [x, w, b], shape[-1], 1e-5, tol,
                   atol=tol * 1e-2, grad_atol=tol * (10 if shape[-1] > 1000 else 1))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("rms", [False, True])
def test_norm_non_contiguous(rms, dtype):
    rng = np.random.default_rng(21)
    x = (rng.standard_normal((6, 5, 4)).astype(dtype) * 3)
    xt = np.transpose(x, (2, 1, 0))[:, ::2]       # (4, 3, 6), strided rows
    w, b = (rng.standard_normal(6).astype(dtype) for _ in range(2))
    tol = 1e-12 if dtype == "float64" else 1e-4
    _against_torch(rms, [xt, w] if rms else [xt, w, b], 6, 1e-5, tol, atol=tol)
    # a non-contiguous weight too, and an F-ordered x
    xf = np.asfortranarray(rng.standard_normal((5, 8)).astype(dtype))
    wn = rng.standard_normal(16).astype(dtype)[::2]
    _against_torch(rms, [xf, wn], 8, 1e-5, tol, atol=tol)


@pytest.mark.parametrize("rms", [False, True])
def test_norm_edge_values(rms):
    """Constant rows (variance 0: rstd = 1/sqrt(eps)) of huge and tiny values, NaN and
    inf (the row becomes NaN, as PyTorch's), zeros."""
    x = np.array([[1e-300] * 4, [3.0] * 4, [1.0, np.nan, 2.0, 3.0],
                  [1.0, np.inf, 2.0, 3.0], [0.0] * 4, [1e-200, -1e-200, 3e-200, 0.0],
                  [-np.inf, 1.0, np.inf, 2.0]])
    want, grads, ct = _with_grads(_torch_norm(rms, (4,), 1e-5), [x])
    got = _tf_norm(rms, 4, 1e-5)(tf.asarray(x))
    _close(_np(got), want, "float64", rtol=1e-12)
    g = tf.grad(lambda v: (_tf_norm(rms, 4, 1e-5)(v) * tf.asarray(ct)).sum())(tf.asarray(x))
    _close(_np(g), grads[0], "float64", rtol=1e-12, atol=1e-300)


@pytest.mark.parametrize("rms", [False, True])
def test_norm_scale_invariance_at_huge_values(rms):
    """f(x s; eps s^2) = f(x; eps) and its gradient is f's gradient / s, for s = 1e150 (the
    squares near 1e300) and 1e200 (the squares overflow: scaled).  PyTorch's rms_norm
    backward loses a term there (rstd^3 underflows); tenferro's does not."""
    rng = np.random.default_rng(28)
    x, ct = rng.standard_normal((3, 6)), rng.standard_normal((3, 6))
    for sc in (1e150, 1e200):
        f = _tf_norm(rms, 6, 1e-5 * sc * sc if sc < 1e160 else 0.0)
        ref = _tf_norm(rms, 6, 1e-5 if sc < 1e160 else 0.0)
        _close(_np(f(tf.asarray(x * sc))), _np(ref(tf.asarray(x))), "float64", rtol=1e-13)
        for ff, xx, d in ((f, x * sc, sc), (ref, x, 1.0)):
            g = tf.grad(lambda v: (ff(v) * tf.asarray(ct)).sum())(tf.asarray(xx))
            if d != 1.0:
                got = _np(g) * d
            else:
                _close(got, _np(g), "float64", rtol=1e-12, atol=1e-14)


def test_layer_norm_huge_constant_rows():
    """A row of equal huge values: its sum overflows, but the mean does not (the sum is
    rescaled), so the variance is 0 and the result the bias, the exact value (PyTorch's
    Welford update overflows there: NaN)."""
    x = np.full((2, 1000), 1e306)
    x[1] = -1.5e307
    b = np.arange(1000.0)
    y = tnn.layer_norm(tf.asarray(x), 1000, None, tf.asarray(b))
    np.testing.assert_array_equal(_np(y), np.stack([b, b]))
    ct = np.random.default_rng(27).standard_normal(x.shape)
    g = tf.grad(lambda v: (tnn.layer_norm(v, 1000) * tf.asarray(ct)).sum())(tf.asarray(x))
    want = (ct - ct.mean(-1, keepdims=True)) / np.sqrt(1e-5)   # rstd = 1 / sqrt(eps)
    _close(_np(g), want, "float64", rtol=1e-12, atol=1e-12)


def test_layer_norm_large_mean():
    """A row far from 0: the two-pass variance about the mean keeps full accuracy."""
    x = 1e8 + np.random.default_rng(22).standard_normal((4, 1000))
    want = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-5)
    _close(_np(tnn.layer_norm(tf.asarray(x), 1000)), want, "float64", rtol=1e-7, atol=1e-7)


@pytest.mark.parametrize("rms", [False, True])
@pytest.mark.parametrize("dtype", DTYPES)
def test_kernel_equals_composition(rms, dtype):
    """The CPU kernel (a plain eager call) and the composition of tenferro's ops (what
    other devices and differentiated calls run) agree, values and backward."""
    rng = np.random.default_rng(23)
    x = tf.asarray(rng.standard_normal((5, 3, 7)).astype(dtype))
    w, b, ct = (tf.asarray(rng.standard_normal(s).astype(dtype)) for s in ((3, 7), (3, 7),
                                                                            (5, 3, 7)))
    b = None if rms else b
    tol = 1e-13 if dtype == "float64" else 1e-5
    y = _norm_prim.PRIMS[rms].bind(*[t for t in (x, w, b) if t is not None], ndim=2,
                                   eps=1e-5, weighted=True, biased=b is not None)
    _close(_np(y), _np(_norm_prim.composition(x, w, b, ndim=2, eps=1e-5, rms=rms)), dtype,
           rtol=tol, atol=tol)
    fast = _norm_grad.grad(rms, ct, x, w, 2, 1e-5)   # the backward kernel
    slow = _norm_grad.formula(ct, x, w, ndim=2, eps=1e-5, rms=rms)
    for a, c in zip([t for t in fast if t is not None], slow):
        _close(_np(a), _np(c), dtype, rtol=tol * 10, atol=tol * 10)


# -- forward mode, second order, jit, vmap -------------------------------------------------

@pytest.mark.parametrize("rms", [False, True])
def test_norm_jvp_and_second_order_against_torch(rms):
    from torch.func import jvp as tjvp
    rng = np.random.default_rng(24)
    x, tx, ct = (rng.standard_normal((3, 5)) for _ in range(3))
    w, tw, b, tb = (rng.standard_normal(5) for _ in range(4))
    args, tans = ([x, w], [tx, tw]) if rms else ([x, w, b], [tx, tw, tb])
    tt = lambda *a: [torch.from_numpy(v) for v in a]   # noqa: E731
    want = tjvp(_torch_norm(rms, (5,), 1e-5), tuple(tt(*args)), tuple(tt(*tans)))[1]
    f = _tf_norm(rms, 5, 1e-5)
    got = tf.jvp(f, [tf.asarray(a) for a in args], [tf.asarray(t) for t in tans])[1]
    _close(_np(got), _np(want), "float64", rtol=1e-12, atol=1e-14)
    # the Hessian of <ct, f(x)> along tx, in x: torch's double backward
    xt = torch.from_numpy(x).requires_grad_(True)
    g, = torch.autograd.grad((_torch_norm(rms, (5,), 1e-5)(xt, *tt(*args[1:]))
                              * torch.from_numpy(ct)).sum(), xt, create_graph=True)
    h, = torch.autograd.grad((g * torch.from_numpy(tx)).sum(), xt)
    gx = tf.grad(lambda v: (f(v, *[tf.asarray(a) for a in args[1:]]) * tf.asarray(ct)).sum())
    hx = tf.grad(lambda v: (gx(v) * tf.asarray(tx)).sum())(tf.asarray(x))
    _close(_np(hx), _np(h), "float64", rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("rms", [False, True])
def test_norm_jit_keeps_the_primitive_on_the_cpu(rms):
    name = "nn.rms_norm" if rms else "nn.layer_norm"
    f = _tf_norm(rms, (3, 4), 1e-5)
    spec = tf.TensorSpec((2, 3, 4), "float64")
    assert [n.prim.name for n in tf.make_graph(f, spec).nodes] == [name]
    assert name in [n.prim.name for n in tf.compile(tf.make_graph(f, spec)).graph.nodes]
    x = tf.asarray(np.random.default_rng(25).standard_normal((2, 3, 4)))
    _close(_np(tf.jit(f)(x)), _np(f(x)), "float64", rtol=1e-14)
    g = tf.grad(lambda v: (f(v) * v).sum())
    _close(_np(tf.jit(g)(x)), _np(g(x)), "float64", rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("rms", [False, True])
def test_norm_vmap_batched_weight_and_bias(rms):
    rng = np.random.default_rng(26)
    x, w, b = rng.standard_normal((3, 4, 5)), rng.standard_normal((3, 5)), \
        rng.standard_normal((3, 5))
    if rms:
        f = lambda x, w, b: tnn.rms_norm(x, 5, w)           # noqa: E731
    else:
        f = lambda x, w, b: tnn.layer_norm(x, 5, w, b)      # noqa: E731
    for axes in ((0, 0, 0), (None, 0, 0), (0, None, 0), (0, 0, None)):
        args = [a if ax is not None else a[0] for a, ax in zip((x, w, b), axes)]
        got = tf.vmap(f, in_axes=axes)(*[tf.asarray(a) for a in args])
        want = np.stack([_np(f(*[tf.asarray(a[i] if ax is not None else a)
                                 for a, ax in zip(args, axes)])) for i in range(3)])
        _close(_np(got), want, "float64", rtol=1e-13, atol=1e-15)
    # gradients through vmap: per-example weight gradients
    gw = tf.grad(lambda w: (tf.vmap(f)(tf.asarray(x), w, tf.asarray(b)) ** 2).sum())(
        tf.asarray(w))
    want = np.stack([_np(tf.grad(lambda wi: (f(tf.asarray(x[i]), wi, tf.asarray(b[i]))
                                              ** 2).sum())(tf.asarray(w[i])))
                     for i in range(3)])
    _close(_np(gw), want, "float64", rtol=1e-12, atol=1e-14)


def test_norm_mixed_dtypes_promote():
    x = tf.ones((2, 3), dtype=tf.float32)
    assert tnn.layer_norm(x, 3).dtype == tf.float32
    assert tnn.layer_norm(x, 3, tf.ones(3)).dtype == tf.float64   # NumPy's promotion
    assert tnn.rms_norm(x, 3, tf.ones(3, dtype=tf.float32)).dtype == tf.float32
    assert tnn.layer_norm([[1, 2, 3]], 3).dtype == tf.float64      # ints: float64


@pytest.mark.parametrize("rms", [False, True])
def test_norm_thread_count_changes_no_value(rms):
    """Rows are computed alone and the weight/bias gradients summed in blocks of rows fixed
    by the shape: one thread and two give the same bits."""
    rng = np.random.default_rng(29)
    x, ct = rng.standard_normal((300, 257)), rng.standard_normal((300, 257))
    w, b = rng.standard_normal(257), rng.standard_normal(257)
    args = [tf.asarray(a) for a in ((x, w) if rms else (x, w, b))]
    f = _tf_norm(rms, 257, 1e-5)
    g = tf.grad(lambda *ts: (f(*ts) * tf.asarray(ct)).sum(), argnums=tuple(range(len(args))))
    old = tf.get_num_threads()
    try:
        res = []
        for n in (1, 2):
            tf.set_num_threads(n)
            res.append([_np(f(*args))] + [_np(t) for t in g(*args)])
    finally:
        tf.set_num_threads(old)
    for a, c in zip(*res):
        np.testing.assert_array_equal(a, c)


@pytest.mark.parametrize("rms", [False, True])
def test_norm_empty_gradients(rms):
    for shape, ns in (((0, 4), 4), ((2, 0), (2, 0)), ((3, 0), 0)):
        x = tf.zeros(shape)
        w = tf.ones(shape[1:] if isinstance(ns, int) else ns)
        f = _tf_norm(rms, ns, 1e-5)
        gx, gw = tf.grad(lambda a, b: f(a, b).sum(), argnums=(0, 1))(x, w)
        assert gx.shape == x.shape and gw.shape == w.shape
        np.testing.assert_array_equal(_np(gw), np.zeros(w.shape))


def test_layer_norm_float32_to_float32_rounding():
    """float32 rows (one pass about the first element, or the corrected passes where an
    outlier first element would cost digits) are as close to the float64 computation on
    the same input as PyTorch's (both round the mean to float32, as PyTorch saves it:
    a mean far from 0 costs digits of x - mean in both)."""
    rng = np.random.default_rng(30)
    x = rng.standard_normal((6, 1000))
    x[1, 0] = 1e4                  # an outlier first: the cancellation fallback
    x[2] += 1e4                    # a mean far from 0
    x[3] *= 1e-20                  # tiny values
    x[4, 0] = 1e7
    x[5] = x[5] * 1e3 + 3e5
    x = x.astype("float32")
    x64 = x.astype("float64")
    want = (x64 - x64.mean(-1, keepdims=True)) / np.sqrt(x64.var(-1, keepdims=True) + 1e-5)
    got = _np(tnn.layer_norm(tf.asarray(x), 1000)).astype("float64")
    ref = _np(F.layer_norm(torch.from_numpy(x), (1000,))).astype("float64")
    err, ref_err = (np.abs(y - want).max(-1) / np.abs(want).max(-1) for y in (got, ref))
    assert (err <= 1.5 * ref_err + 2e-7).all(), (err, ref_err)


@pytest.mark.parametrize("rms", [False, True])
def test_norm_vmap_of_gradients(rms):
    """vmap of a gradient: the backward primitive's batching rule, with per-example
    weights too."""
    rng = np.random.default_rng(31)
    x, w, ct = rng.standard_normal((3, 4, 5)), rng.standard_normal((3, 5)), \
        rng.standard_normal((3, 4, 5))
    f = _tf_norm(rms, 5, 1e-5)
    g = tf.grad(lambda x, w, c: (f(x, w) * c).sum(), argnums=(0, 1))
    for axes in ((0, 0, 0), (0, None, 0)):
        args = [a if ax is not None else a[0] for a, ax in zip((x, w, ct), axes)]
        got = tf.vmap(g, in_axes=axes)(*[tf.asarray(a) for a in args])
        for k in range(2):
            want = np.stack([_np(g(*[tf.asarray(a[i] if ax is not None else a)
                                     for a, ax in zip(args, axes)])[k]) for i in range(3)])
            _close(_np(got[k]), want, "float64", rtol=1e-12, atol=1e-14)

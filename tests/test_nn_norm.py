"""tenferro.nn's layer_norm, rms_norm and affine against torch.nn.functional: values
and gradients in the input, weight and bias (tenferro.grad and the eager tape), every
form of normalized_shape, edges and errors; the norms' row kernel against their
composition, their JVP and second derivatives against torch.func, jit and vmap with
batched weights.  Plain jit, vmap and the other devices: tests/test_nn_act.py (its
``ALL`` table); gradcheck to order 2: tests/nn_act_specs.py."""
import numpy as np
import pytest

import tenferro as tf
import tenferro.nn as tnn

torch = pytest.importorskip("torch")
F = torch.nn.functional

from test_nn_act import DTYPES, RTOL, _close, _np  # noqa: E402  (the shared helpers)

from tenferro.nn import _norm_grad, _norm_prim  # noqa: E402


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

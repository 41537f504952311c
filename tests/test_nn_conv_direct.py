"""The direct CPU convolution kernel (tenferro/_kernels/_conv.pyx, routed by
tenferro/nn/_conv_cpu.py for few channels per group): depthwise and small-group
convolutions against torch.nn.functional (values and autograd gradients, float32 and
float64), complex against a NumPy reference, gradcheck to order 2, strided views, batch
1 and unbatched inputs; the direct and BLAS schedules forced in turn agree, on the
layouts the rules produce too (input dilation, cropping pads, a weight's gradient)."""
import numpy as np
import pytest

import tenferro as tf
import tenferro.nn as tnn
from tenferro.nn import _conv_cpu
from tenferro.nn._conv_prim import conv_p
from test_nn_conv import _rand   # (a tenferro-independent random array)

torch = pytest.importorskip("torch")
F = torch.nn.functional

pytestmark = pytest.mark.filterwarnings("ignore:Using padding=.same. with even kernel")

TOL = {"float64": 1e-12, "float32": 3e-5, "complex64": 3e-5, "complex128": 1e-12}
PATHS = ["direct", "blas"]


def _close(got, want, dtype="float64"):
    got = got.numpy() if isinstance(got, tf.Tensor) else got
    want = want.detach().numpy() if hasattr(want, "detach") else np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, want.shape,
                                                                  got.dtype, want.dtype)
    scale = max(1.0, float(np.abs(want).max(initial=0.0)))
    np.testing.assert_allclose(got, want, rtol=TOL[dtype], atol=TOL[dtype] * scale)


@pytest.fixture(params=PATHS)
def path(request, monkeypatch):
    """Each test under each schedule (the direct kernel, the BLAS ones)."""
    monkeypatch.setattr(_conv_cpu, "FORCE", request.param)
    return request.param


CASES = [  # (input shape, weight shape, kwargs): depthwise and few channels per group
    ((2, 4, 9, 8), (4, 1, 3, 3), dict(groups=4, padding=1)),
    ((2, 4, 9, 8), (4, 1, 3, 3), dict(groups=4, padding=1, stride=2)),
    ((1, 3, 11, 10), (6, 1, 3, 2), dict(groups=3, stride=(2, 3), padding=(2, 1),
                                        dilation=(2, 1))),                  # multiplier 2
    ((2, 6, 7, 9), (6, 2, 2, 3), dict(groups=3, dilation=(3, 2), padding=(0, 2))),
    ((2, 5, 8, 8), (5, 1, 5, 5), dict(groups=5, padding="same")),
    ((3, 2, 6, 7), (2, 1, 4, 2), dict(groups=2, padding="same", dilation=2)),  # even k
    ((2, 3, 5, 4), (3, 1, 5, 4), dict(groups=3)),                        # kernel = input
    ((2, 2, 9, 3), (2, 1, 3, 3), dict(groups=2, stride=(4, 1), padding=(0, 1))),
    ((2, 4, 6, 6), (4, 1, 1, 1), dict(groups=4)),                        # 1x1
    ((8, 9, 9), (8, 2, 3, 3), dict(groups=4, padding=2, stride=2)),      # unbatched
    ((2, 4, 8, 8), (4, 4, 3, 3), dict(padding=1, stride=2)),             # one group
    ((2, 3, 5, 21), (3, 1, 2, 7), dict(groups=3, padding=(1, 3), stride=(1, 3))),
    ((2, 4, 3, 3), (4, 1, 3, 3), dict(groups=4, padding=2, dilation=2)),  # pad > input
]
CASES_1D = [
    ((2, 4, 17), (4, 1, 3), dict(groups=4, padding=1)),
    ((1, 6, 20), (6, 2, 5), dict(groups=3, stride=3, padding=4, dilation=2)),
    ((3, 12), (6, 1, 4), dict(groups=3, padding="same")),               # unbatched
    ((2, 2, 31), (2, 1, 9), dict(groups=2, stride=2)),
]


def _case(fn, tfn, xs, ws, kw, dtype, seed=0):
    x, w, b = _rand(xs, dtype, seed), _rand(ws, dtype, seed + 1), _rand(ws[:1], dtype,
                                                                         seed + 2)
    ts = [torch.tensor(a, requires_grad=True) for a in (x, w, b)]
    want = tfn(*ts, **kw)
    got = fn(tf.asarray(x), tf.asarray(w), tf.asarray(b), **kw)
    _close(got, want, dtype)
    ct = _rand(want.shape, dtype, seed + 3)
    want.backward(torch.tensor(ct))
    _, vjp = tf.vjp(lambda x, w, b: fn(x, w, b, **kw), *map(tf.asarray, (x, w, b)))
    for g, t in zip(vjp(tf.asarray(ct)), ts):
        _close(g, t.grad, dtype)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_conv2d_against_torch(case, dtype, path):
    xs, ws, kw = CASES[case]
    _case(tnn.conv2d, F.conv2d, xs, ws, kw, dtype, seed=case)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", range(len(CASES_1D)))
def test_conv1d_against_torch(case, dtype, path):
    xs, ws, kw = CASES_1D[case]
    _case(tnn.conv1d, F.conv1d, xs, ws, kw, dtype, seed=10 + case)


def _numpy_conv2d(x, w, stride, padding, dilation, groups):
    """A NumPy reference: the sum over the kernel taps of strided slices."""
    (n, _, h, wd), (o, cg, kh, kw) = x.shape, w.shape
    xp = np.pad(x, [(0, 0), (0, 0), (padding[0],) * 2, (padding[1],) * 2])
    oh = (h + 2 * padding[0] - dilation[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (wd + 2 * padding[1] - dilation[1] * (kw - 1) - 1) // stride[1] + 1
    xg = xp.reshape(n, groups, cg, *xp.shape[2:])
    wg = w.reshape(groups, o // groups, cg, kh, kw)
    out = np.zeros((n, groups, o // groups, oh, ow), np.result_type(x, w))
    for i in range(kh):
        for j in range(kw):
            r0, c0 = i * dilation[0], j * dilation[1]
            win = xg[..., r0:r0 + stride[0] * (oh - 1) + 1:stride[0],
                     c0:c0 + stride[1] * (ow - 1) + 1:stride[1]]
            out += np.einsum("ngcyx,goc->ngoyx", win, wg[..., i, j])
    return out.reshape(n, o, oh, ow)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_against_numpy(dtype, path):
    for case in (0, 1, 2, 3, 7, 11):
        xs, ws, kw = CASES[case]
        x, w = _rand(xs, dtype, case), _rand(ws, dtype, case + 1)
        stride, dil = [kw.get(k, 1) for k in ("stride", "dilation")]
        pad = kw.get("padding", 0)
        two = [(v, v) if isinstance(v, int) else v for v in (stride, pad, dil)]
        want = _numpy_conv2d(x, w, *two, kw["groups"])
        _close(tnn.conv2d(tf.asarray(x), tf.asarray(w), **kw), want, dtype)


def test_complex_gradients_against_torch(path):
    _case(tnn.conv2d, F.conv2d, (2, 4, 7, 6), (4, 1, 3, 2),
          dict(groups=4, stride=2, padding=(1, 0)), "complex128", seed=30)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("kw", [dict(groups=2, padding=1),
                                dict(groups=2, stride=2, padding=(1, 1), dilation=(1, 2))])
def test_gradcheck_order_2(kw, dtype):
    """Through the schedule the routing picks (the direct kernel here, for the forward
    pass and both transposed convolutions)."""
    x, w = tf.asarray(_rand((2, 2, 5, 4), dtype, 31)), tf.asarray(_rand((2, 1, 2, 3),
                                                                        dtype, 32))
    tf.autograd.gradcheck(lambda x, w: tnn.conv2d(x, w, **kw), (x, w),
                          modes=("jvp", "vjp", "eager"), order=2)


def test_strided_views(path):
    """Non-contiguous, negative-stride and Fortran-ordered inputs and weights."""
    x, w = _rand((4, 3, 9, 8), seed=33), _rand((4, 2, 3, 2), seed=34)
    xv = tf.permute_dims(tf.asarray(x), (1, 0, 3, 2))[:, :, ::-1, 1:]   # (3, 4, 8, 8)
    wv = tf.asarray(w)[:, :, ::-1, :]
    xt = torch.tensor(np.ascontiguousarray(xv.numpy()))
    wt = torch.tensor(np.ascontiguousarray(wv.numpy()))
    for kw in (dict(groups=2, padding=(1, 0)), dict(groups=2, stride=(2, 1), dilation=2),
               dict(groups=2, stride=3, padding=2)):
        _close(tnn.conv2d(xv, wv, **kw), F.conv2d(xt, wt, **kw))
    x = _rand((2, 4, 9, 8), seed=35)
    _close(tnn.conv2d(tf.asarray(np.asfortranarray(x)), tf.asarray(w), groups=2),
           F.conv2d(torch.tensor(x), torch.tensor(w), groups=2))


def test_schedules_agree_on_the_rules_layouts():
    """The primitive, forced through each schedule, on random parameters the rules
    produce: input dilation (with and without strides), negative (cropping) pads,
    a weight gradient's few outputs from a large kernel."""
    rng = np.random.default_rng(35)
    checked = 0
    while checked < 60:
        nsd, g = 1 + checked % 2, int(rng.integers(1, 4))
        cg, og = int(rng.integers(1, 4)), int(rng.integers(1, 3))
        sp = tuple(int(s) for s in rng.integers(1, 12, nsd))
        ks = tuple(int(k) for k in rng.integers(1, 5 if checked % 4 else 12, nsd))
        params = dict(strides=tuple(int(s) for s in rng.integers(1, 4, nsd)),
                      padding=tuple((int(rng.integers(-2, 4)), int(rng.integers(-2, 4)))
                                    for _ in range(nsd)),
                      lhs_dilation=tuple(int(d) for d in rng.integers(1, 3, nsd)),
                      rhs_dilation=tuple(int(d) for d in rng.integers(1, 3, nsd)),
                      groups=g)
        shape, _ = conv_p.abstract_eval(((2, g * cg) + sp, np.dtype("float64")),
                                   ((g * og, cg) + ks, np.dtype("float64")), **params)
        full = [1 + d * (s - 1) + lo for s, d, (lo, _) in zip(sp, params["lhs_dilation"],
                                                               params["padding"])]
        if min(shape[2:]) < 1 or min(full) < 0:
            continue
        x, w = _rand((2, g * cg) + sp, seed=checked), _rand((g * og, cg) + ks,
                                                            seed=checked + 1)
        got = {}
        for p in PATHS:
            _conv_cpu.FORCE = p
            try:
                got[p] = _conv_cpu.conv_cpu(x, w, **params)
            finally:
                _conv_cpu.FORCE = None
        _close(got["direct"], got["blas"])
        checked += 1


@pytest.mark.parametrize("xs, ws, groups", [((0, 4, 5, 5), (4, 1, 3, 3), 4),    # no sample
                                             ((2, 4, 5, 5), (0, 1, 3, 3), 4),    # no output
                                             ((2, 0, 5, 5), (3, 0, 3, 3), 1),    # no input
                                             ((2, 2, 5, 5), (2, 1, 0, 3), 2)])   # no tap
def test_empty(xs, ws, groups, path):
    x, w = _rand(xs), _rand(ws)
    kw = dict(strides=(1, 1), padding=((1, 1), (1, 1)), lhs_dilation=(1, 1),
              rhs_dilation=(1, 1), groups=groups)
    got = _conv_cpu.conv_cpu(x, w, **kw)
    want = F.conv2d(torch.tensor(x), torch.tensor(w), padding=1, groups=groups) \
        if 0 not in xs + ws else np.zeros(got.shape)
    _close(got, want)


def _spy(monkeypatch):
    calls = []
    real = _conv_cpu._direct

    def spy(*a):
        calls.append(a[1].shape)
        return real(*a)
    monkeypatch.setattr(_conv_cpu, "_direct", spy)
    return calls


def test_routing(monkeypatch):
    """Depthwise convolutions and both their gradients run on the direct kernel; a
    convolution with many channels per group does not."""
    calls = _spy(monkeypatch)
    x, w = tf.asarray(_rand((2, 8, 10, 10))), tf.asarray(_rand((8, 1, 3, 3)))
    tf.grad(lambda x, w: tnn.conv2d(x, w, groups=8, stride=2, padding=1).sum(),
            argnums=(0, 1))(x, w)
    # the forward, the input gradient (in phases: several calls), the weight gradient
    # (batch 2 as its input channels, the output's 5x5 as its kernel)
    assert (8, 1, 3, 3) in calls and (8, 2, 5, 5) in calls and len(calls) >= 3
    calls.clear()
    tnn.conv2d(x, tf.asarray(_rand((8, 8, 3, 3))))
    tnn.conv3d(tf.asarray(_rand((1, 2, 4, 4, 4))), tf.asarray(_rand((2, 1, 2, 2, 2))),
               groups=2)
    assert calls == []


def test_kernel_threads_and_errors():
    """Rows are computed alone: one thread and several give the same bits.  The
    kernel's own checks (the CPU's callers never trip them)."""
    from tenferro._kernels import _conv

    x, w = _rand((3, 6, 20, 30), "float32", 36), _rand((6, 1, 3, 3), "float32", 37)
    outs = [np.empty((3, 6, 18, 28), np.float32) for _ in range(2)]
    old = _conv.set_grain(1)
    try:
        for o, nth in zip(outs, (1, 2)):
            _conv.conv2d(x, w, o, (1, 1), (1, 1), (0, 0), (1, 1), nth)
    finally:
        _conv.set_grain(**old)
    np.testing.assert_array_equal(outs[0], outs[1])
    with pytest.raises(TypeError, match="no loop for int64"):
        _conv.conv2d(x.astype(np.int64), w.astype(np.int64), outs[0].astype(np.int64),
                     (1, 1), (1, 1), (0, 0), (1, 1), 1)
    with pytest.raises(TypeError, match="share a dtype"):
        _conv.conv2d(x, w.astype(np.float64), outs[0], (1, 1), (1, 1), (0, 0), (1, 1), 1)
    for bad in [((0, 1), (1, 1)), ((1, 2), (1, 2))]:   # (strides, input dilation)
        with pytest.raises(ValueError, match="do not fit"):
            _conv.conv2d(x, w, outs[0], bad[0], (1, 1), (0, 0), bad[1], 1)
    ro = outs[0].copy()
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        _conv.conv2d(x, w, ro, (1, 1), (1, 1), (0, 0), (1, 1), 1)


# -- max pooling's window argmax (_conv.pyx's pool_argmax) ------------------------------

def test_max_pool_random_against_torch():
    """Random kernels, strides, paddings, dilations and ceil mode, with ties, -inf and
    NaN in the input, on strided views: values and indices as PyTorch's."""
    rng = np.random.default_rng(38)
    checked = 0
    while checked < 60:
        k = tuple(int(v) for v in rng.integers(1, 5, 2))
        kw = dict(kernel_size=k, stride=tuple(int(v) for v in rng.integers(1, 4, 2)),
                  padding=tuple(int(rng.integers(0, v // 2 + 1)) for v in k),
                  dilation=tuple(int(v) for v in rng.integers(1, 3, 2)),
                  ceil_mode=bool(checked % 2))
        shape = (int(rng.integers(1, 3)), 2) + tuple(int(v) for v in rng.integers(1, 12, 2))
        dtype = ("float64", "float32")[checked % 2]
        x = rng.integers(-2, 3, shape).astype(dtype)       # ties
        x[rng.random(shape) < 0.05] = -np.inf
        if checked % 3 == 0:
            x[rng.random(shape) < 0.05] = np.nan
        try:
            want, wi = F.max_pool2d(torch.tensor(x), return_indices=True, **kw)
        except RuntimeError:
            continue
        view = tf.permute_dims(tf.asarray(np.ascontiguousarray(np.swapaxes(x, 2, 3))),
                               (0, 1, 3, 2))                # a non-contiguous input
        got, gi = tnn.max_pool2d(view, return_indices=True, **kw)
        inside = np.isfinite(want.numpy()) | np.isnan(want.numpy())   # not padding only
        np.testing.assert_array_equal(got.numpy(), want.numpy())
        np.testing.assert_array_equal(gi.numpy()[inside], wi.numpy()[inside])
        checked += 1


def test_pool_argmax_threads_and_errors():
    from tenferro._kernels import _conv

    x = _rand((6, 40, 50), "float32", 39)
    outs = [np.empty((6, 20, 25), np.int64) for _ in range(2)]
    old = _conv.set_grain(1)
    try:
        for o, nth in zip(outs, (1, 2)):
            _conv.pool_argmax(x, o, (3, 3), (2, 2), (1, 1), (1, 1), nth)
    finally:
        _conv.set_grain(**old)
    np.testing.assert_array_equal(outs[0], outs[1])
    with pytest.raises(TypeError, match="no loop for complex128"):
        _conv.pool_argmax(x.astype(complex), outs[0], (3, 3), (2, 2), (1, 1), (1, 1), 1)
    with pytest.raises(ValueError, match="int64"):
        _conv.pool_argmax(x, outs[0].astype(np.int32), (3, 3), (2, 2), (1, 1), (1, 1), 1)
    with pytest.raises(ValueError, match="do not fit"):
        _conv.pool_argmax(x, outs[0], (0, 3), (2, 2), (1, 1), (1, 1), 1)

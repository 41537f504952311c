"""tenferro.nn's convolutions and poolings against torch.nn.functional: values (float64
to rounding, float32), gradients against torch's autograd, gradcheck to order 2 (real
and complex), ties and NaN in max pooling, argument errors, jit, make_graph and vmap.
(tests/nn_conv_specs.py adds specs to the registry-wide rule and vmap tests.)"""
import os
import subprocess
import sys

import numpy as np
import pytest

import tenferro as tf
import tenferro.nn as tnn

torch = pytest.importorskip("torch")
F = torch.nn.functional

pytestmark = pytest.mark.filterwarnings("ignore:Using padding=.same. with even kernel")

RTOL = {"float64": 1e-12, "float32": 2e-5, "complex128": 1e-12}


def _rand(shape, dtype="float64", seed=0):
    rng = np.random.default_rng(seed)
    v = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        v = v + 1j * rng.standard_normal(shape)
    return v.astype(dtype)


def _close(got, want, dtype="float64"):
    want = want.detach().numpy() if hasattr(want, "detach") else want
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, want.shape)
    scale = max(1.0, float(np.abs(want).max(initial=0.0)))
    np.testing.assert_allclose(got.numpy(), want, rtol=RTOL[dtype], atol=RTOL[dtype] * scale)


# -- convolutions: values and gradients against PyTorch ---------------------------------

CONV2D = [  # (input shape, weight shape, kwargs)
    ((2, 3, 7, 6), (4, 3, 3, 3), {}),
    ((1, 3, 5, 5), (4, 3, 3, 3), dict(padding=1)),
    ((2, 4, 7, 9), (6, 2, 3, 2), dict(stride=(2, 3), padding=(1, 2), dilation=(1, 2),
                                      groups=2)),
    ((2, 4, 8, 8), (4, 1, 3, 3), dict(groups=4, padding=1, stride=2)),     # depthwise
    ((3, 5, 4, 6), (2, 5, 1, 1), {}),                                      # 1x1
    ((1, 2, 6, 7), (3, 2, 4, 2), dict(padding="same")),                    # even kernel
    ((2, 2, 6, 7), (3, 2, 3, 2), dict(padding="same", dilation=(2, 3))),
    ((2, 3, 6, 5), (3, 3, 2, 3), dict(padding="valid", stride=2)),
    ((6, 5, 5), (4, 3, 2, 2), dict(groups=2, dilation=2, padding=2)),        # unbatched
    ((2, 3, 5, 4), (3, 3, 5, 4), {}),                                        # kernel = input
    ((2, 2, 9, 3), (2, 2, 3, 3), dict(stride=(4, 1), padding=(0, 1))),      # leftover rows
    ((0, 2, 4, 4), (3, 2, 2, 2), {}),                                        # empty batch
]
CONV1D = [
    ((2, 3, 10), (4, 3, 3), dict(stride=2, padding=1)),
    ((1, 4, 9), (4, 1, 4), dict(groups=4, padding="same", dilation=2)),
    ((3, 7), (5, 3, 2), dict(stride=3, padding=4)),      # unbatched; padding > kernel
]


def _conv_case(fn, tfn, xs, ws, kw, dtype, bias):
    x, w = _rand(xs, dtype, 1), _rand(ws, dtype, 2)
    b = _rand(ws[:1], dtype, 3) if bias else None
    xt, wt = torch.tensor(x, requires_grad=True), torch.tensor(w, requires_grad=True)
    bt = torch.tensor(b, requires_grad=True) if bias else None
    want = tfn(xt, wt, bt, **kw)
    got = fn(tf.asarray(x), tf.asarray(w), None if b is None else tf.asarray(b), **kw)
    _close(got, want, dtype)
    return (x, w, b), (xt, wt, bt), want


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", range(len(CONV2D)))
def test_conv2d_values_and_gradients(case, dtype):
    xs, ws, kw = CONV2D[case]
    (x, w, b), tts, want = _conv_case(tnn.conv2d, F.conv2d, xs, ws, kw, dtype, bias=True)
    if dtype != "float64" or want.numel() == 0:
        return
    ct = _rand(want.shape, dtype, 4)
    want.backward(torch.tensor(ct))
    _, vjp = tf.vjp(lambda x, w, b: tnn.conv2d(x, w, b, **kw), *map(tf.asarray, (x, w, b)))
    for got, t in zip(vjp(tf.asarray(ct)), tts):
        _close(got, t.grad)


@pytest.mark.parametrize("case", range(len(CONV1D)))
def test_conv1d_values_and_gradients(case):
    xs, ws, kw = CONV1D[case]
    (x, w, _), (xt, wt, _), want = _conv_case(tnn.conv1d, F.conv1d, xs, ws, kw, "float64",
                                              bias=False)
    want.sum().backward()
    gx, gw = tf.grad(lambda x, w: tnn.conv1d(x, w, **kw).sum(), argnums=(0, 1))(
        tf.asarray(x), tf.asarray(w))
    _close(gx, xt.grad)
    _close(gw, wt.grad)


def test_conv3d_and_complex_against_torch():
    _conv_case(tnn.conv3d, F.conv3d, (2, 2, 4, 5, 3), (4, 1, 2, 3, 2),
               dict(groups=2, stride=(1, 2, 1), padding=1), "float64", bias=True)
    (x, w, _), (xt, wt, _), want = _conv_case(
        tnn.conv2d, F.conv2d, (2, 4, 6, 5), (4, 2, 3, 2),
        dict(stride=2, padding=(1, 0), groups=2), "complex128", bias=True)
    ct = _rand(want.shape, "complex128", 5)
    want.backward(torch.tensor(ct))   # torch's complex gradients: the same convention
    _, vjp = tf.vjp(lambda x, w: tnn.conv2d(x, w, stride=2, padding=(1, 0), groups=2),
                    tf.asarray(x), tf.asarray(w))
    gx, gw = vjp(tf.asarray(ct))
    _close(gx, xt.grad, "complex128")
    _close(gw, wt.grad, "complex128")


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("kw", [dict(stride=2, padding=(2, 1), dilation=(1, 2)),
                                dict(groups=2, padding="same"),
                                dict(stride=(3, 1), padding=1)])
def test_conv2d_gradcheck_order_2(kw, dtype):
    x, w = tf.asarray(_rand((2, 2, 5, 4), dtype, 6)), tf.asarray(_rand((2, 1 if kw.get(
        "groups") else 2, 2, 3), dtype, 7))
    tf.autograd.gradcheck(lambda x, w: tnn.conv2d(x, w, **kw), (x, w),
                          modes=("jvp", "vjp", "eager"), order=2)


def test_eager_backward_matches_torch():
    x, w = _rand((2, 3, 6, 6), seed=8), _rand((4, 3, 3, 3), seed=9)
    X, W = tf.tensor(x, requires_grad=True), tf.tensor(w, requires_grad=True)
    (tnn.conv2d(X, W, padding=1, stride=2) ** 2).sum().backward()
    xt, wt = torch.tensor(x, requires_grad=True), torch.tensor(w, requires_grad=True)
    (F.conv2d(xt, wt, padding=1, stride=2) ** 2).sum().backward()
    _close(X.grad, xt.grad)
    _close(W.grad, wt.grad)


# -- pooling ------------------------------------------------------------------------------

POOL = [  # (input shape, kwargs common to both poolings)
    ((2, 3, 7, 8), dict(kernel_size=3, stride=2, padding=1)),
    ((2, 3, 7, 8), dict(kernel_size=(2, 3), stride=(2, 1), padding=(1, 0), ceil_mode=True)),
    ((1, 2, 9, 9), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)),
    ((2, 5, 5), dict(kernel_size=2)),                               # unbatched
    ((1, 2, 6, 7), dict(kernel_size=(3, 2), stride=(1, 3))),
    ((2, 1, 5, 6), dict(kernel_size=4, stride=3, padding=2, ceil_mode=True)),
]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("dilation", [1, (2, 1)])
@pytest.mark.parametrize("case", range(len(POOL)))
def test_max_pool2d_against_torch(case, dilation, dtype):
    xs, kw = POOL[case]
    kw = dict(kw, dilation=dilation)
    x = _rand(xs, dtype, 10)
    xt = torch.tensor(x, requires_grad=True)
    want, wi = F.max_pool2d(xt, return_indices=True, **kw)
    got, gi = tnn.max_pool2d(tf.asarray(x), return_indices=True, **kw)
    _close(got, want, dtype)
    np.testing.assert_array_equal(gi.numpy(), wi.numpy())
    ct = _rand(want.shape, dtype, 11)
    want.backward(torch.tensor(ct))
    _, vjp = tf.vjp(lambda x: tnn.max_pool2d(x, **kw), tf.asarray(x))
    _close(vjp(tf.asarray(ct))[0], xt.grad, dtype)


@pytest.mark.parametrize("count_include_pad", [True, False])
@pytest.mark.parametrize("case", range(len(POOL)))
def test_avg_pool2d_against_torch(case, count_include_pad):
    xs, kw = POOL[case]
    x = _rand(xs, "float64", 12)
    xt = torch.tensor(x, requires_grad=True)
    want = F.avg_pool2d(xt, count_include_pad=count_include_pad, **kw)
    _close(tnn.avg_pool2d(tf.asarray(x), count_include_pad=count_include_pad, **kw), want)
    ct = _rand(want.shape, "float64", 13)
    want.backward(torch.tensor(ct))
    _, vjp = tf.vjp(lambda x: tnn.avg_pool2d(x, count_include_pad=count_include_pad, **kw),
                    tf.asarray(x))
    _close(vjp(tf.asarray(ct))[0], xt.grad)
    want = F.avg_pool2d(xt, divisor_override=3, **kw)
    _close(tnn.avg_pool2d(tf.asarray(x), divisor_override=3, **kw), want)


def test_avg_pool2d_complex_and_float32():
    x = _rand((2, 2, 6, 5), "complex128", 14)
    ref = (F.avg_pool2d(torch.tensor(x.real), 3, 2, 1)
           + 1j * F.avg_pool2d(torch.tensor(x.imag), 3, 2, 1)).numpy()
    _close(tnn.avg_pool2d(tf.asarray(x), 3, 2, 1), ref, "complex128")
    x = _rand((2, 2, 6, 5), "float32", 15)
    _close(tnn.avg_pool2d(tf.asarray(x), 2, ceil_mode=True),
           F.avg_pool2d(torch.tensor(x), 2, ceil_mode=True), "float32")


def test_max_pool2d_ties_nan_and_inf_as_pytorch():
    """The derivative goes to the window's first maximum (not split as tenferro's max
    reduction does), a NaN window gives NaN and sends it to its last NaN, padding never
    beats an input element equal to -inf, a window of padding only gives -inf."""
    nan, inf = float("nan"), float("inf")
    rows = [[1.0, 3, 3, nan, 2, nan], [-inf, -inf, 3, -inf, 5, 5]]
    for row, kw in [(rows[0], dict(kernel_size=(1, 3))),
                    (rows[0], dict(kernel_size=(1, 2), stride=1)),
                    (rows[1], dict(kernel_size=(1, 2), padding=(0, 1))),
                    (rows[1], dict(kernel_size=(1, 3), stride=1, padding=(0, 1)))]:
        x = np.array([[row]])
        xt = torch.tensor(x, requires_grad=True)
        want, wi = F.max_pool2d(xt, return_indices=True, **kw)
        want.sum().backward()
        got, gi = tnn.max_pool2d(tf.asarray(x), return_indices=True, **kw)
        np.testing.assert_array_equal(got.numpy(), want.detach().numpy())
        np.testing.assert_array_equal(gi.numpy(), wi.numpy())
        g = tf.grad(lambda x: tnn.max_pool2d(x, **kw).sum())(tf.asarray(x))
        np.testing.assert_array_equal(g.numpy(), xt.grad.numpy())
    # a window of padding only (dilation skips the one input element): -inf, no gradient
    x = tf.ones((1, 1, 1, 1))
    kw = dict(kernel_size=2, stride=1, padding=1, dilation=2)
    assert tnn.max_pool2d(x, **kw).numpy().tolist() == [[[[-inf]]]]
    assert tf.grad(lambda x: tnn.max_pool2d(x, **kw).sum())(x).numpy().tolist() == [[[[0.0]]]]


def test_pool_gradcheck_order_2():
    x = tf.asarray(np.random.default_rng(16).permutation(60).reshape(1, 3, 4, 5) / 7.0)
    for f in (lambda x: tnn.max_pool2d(x, 3, 2, 1, ceil_mode=True),
              lambda x: tnn.avg_pool2d(x, (2, 3), 1, (1, 0), count_include_pad=False)):
        tf.autograd.gradcheck(f, (x,), modes=("jvp", "vjp", "eager"), order=2)
    z = tf.asarray(_rand((1, 2, 4, 3), "complex128", 17))
    tf.autograd.gradcheck(lambda z: tnn.avg_pool2d(z, 2, 1, 1), (z,),
                          modes=("jvp", "vjp", "eager"), order=2)


# -- transforms: jit, make_graph, vmap ---------------------------------------------------

def _net(x, w):
    y = tnn.conv2d(x, w, padding=1, stride=(1, 2))
    return tnn.avg_pool2d(tnn.max_pool2d(tf.tanh(y), 2, 1), 2).sum()


def test_jit_and_make_graph():
    x, w = tf.asarray(_rand((2, 3, 6, 7), seed=18)), tf.asarray(_rand((4, 3, 3, 3), seed=19))
    _close(tf.jit(_net)(x, w), _net(x, w).numpy())
    g = tf.make_graph(_net, tf.TensorSpec(x.shape, x.dtype), tf.TensorSpec(w.shape, w.dtype))
    assert {"nn.conv", "nn.max_pool_argmax"} <= {n.prim.name for n in g.nodes}
    want = tf.grad(_net, argnums=(0, 1))(x, w)
    for got, ref in zip(tf.jit(tf.grad(_net, argnums=(0, 1)))(x, w), want):
        _close(got, ref.numpy())


def test_vmap():
    x, w = _rand((3, 2, 4, 6, 5), seed=20), _rand((3, 6, 2, 2, 3), seed=21)
    for in_axes in [(0, None), (None, 0), (0, 0)]:
        args = [tf.asarray(a if ax == 0 else a[0]) for a, ax in zip((x, w), in_axes)]
        f = lambda x, w: tnn.conv2d(x, w, stride=(1, 2), padding=1, groups=2)   # noqa: E731
        got = tf.vmap(f, in_axes=in_axes)(*args)
        want = np.stack([f(*[a[i] if ax == 0 else a for a, ax in zip(args, in_axes)]).numpy()
                         for i in range(3)])
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-12, atol=1e-12)
    xs = tf.asarray(x)
    for f in (lambda x: tnn.max_pool2d(x, 2, 1, 1), lambda x: tnn.avg_pool2d(x, 3, 2, 1)):
        want = np.stack([f(xs[i]).numpy() for i in range(3)])
        np.testing.assert_allclose(tf.vmap(f)(xs).numpy(), want, rtol=1e-12, atol=1e-12)
    # per-example weight gradients
    g = tf.vmap(tf.grad(lambda w, x: tnn.conv2d(x, w, groups=2).sum()), in_axes=(0, None))(
        tf.asarray(w), xs[0])
    assert g.shape == w.shape


# -- errors -------------------------------------------------------------------------------

X4, W4 = tf.ones((1, 4, 5, 5)), tf.ones((2, 4, 3, 3))


@pytest.mark.parametrize("call, exc, match", [
    (lambda: tnn.conv2d(tf.ones((4, 5)), W4), ValueError,
     r"conv2d: expected 3D \(unbatched\) or 4D \(batched\) input"),
    (lambda: tnn.conv2d(X4, tf.ones((2, 4, 3))), ValueError, r"conv2d: weight must be 4-d"),
    (lambda: tnn.conv2d(X4, tf.ones((2, 3, 3, 3))), ValueError,
     r"expected input of shape \(1, 4, 5, 5\) to have 3 channels"),
    (lambda: tnn.conv2d(X4, tf.ones((3, 1, 3, 3)), groups=3), ValueError,
     r"to have 3 channels .* got 4"),
    (lambda: tnn.conv2d(X4, tf.ones((3, 2, 3, 3)), groups=2), ValueError,
     r"out_channels \(weight.shape\[0\] = 3\) must be divisible by groups = 2"),
    (lambda: tnn.conv2d(X4, W4, groups=0), ValueError, r"groups must be positive"),
    (lambda: tnn.conv2d(X4, W4, stride=0), ValueError, r"conv2d: stride must be positive"),
    (lambda: tnn.conv2d(X4, W4, stride=(1, -1)), ValueError, r"stride must be positive"),
    (lambda: tnn.conv2d(X4, W4, padding=-1), ValueError, r"padding must be non-negative"),
    (lambda: tnn.conv2d(X4, W4, stride=(1, 2, 3)), ValueError, r"tuple of 2 ints"),
    (lambda: tnn.conv2d(X4, W4, padding="full"), ValueError, r"invalid padding string"),
    (lambda: tnn.conv2d(X4, W4, padding="same", stride=2), ValueError,
     r"'same' is not supported for strided"),
    (lambda: tnn.conv2d(tf.ones((1, 4, 2, 5)), W4), ValueError,
     r"padded input size per channel \(2, 5\) is smaller than the \(dilated\) kernel "
     r"size \(3, 3\)"),
    (lambda: tnn.conv2d(X4, W4, dilation=3), ValueError, r"\(7, 7\)"),
    (lambda: tnn.conv2d(X4, W4.astype(tf.float32)), TypeError,
     r"input \(float64\) and weight \(float32\) must have the same dtype"),
    (lambda: tnn.conv2d(tf.ones((1, 4, 5, 5), dtype=tf.int64), W4), TypeError,
     r"input must be floating point or complex, got int64"),
    (lambda: tnn.conv2d(X4, W4, tf.ones(3)), ValueError, r"bias must be a 1-d tensor of 2"),
    (lambda: tnn.conv1d(X4, W4), ValueError, r"conv1d: expected 2D \(unbatched\)"),
    (lambda: tnn.max_pool2d(X4, 3, padding=2), ValueError,
     r"max_pool2d: pad should be at most half of the kernel size"),
    (lambda: tnn.avg_pool2d(X4, 2, padding=(0, 2)), ValueError, r"avg_pool2d: pad should"),
    (lambda: tnn.max_pool2d(X4, 6), ValueError, r"output size \(0, 0\) is too small"),
    (lambda: tnn.max_pool2d(X4, 2, stride=0), ValueError, r"stride must be positive"),
    (lambda: tnn.max_pool2d(tf.ones((5, 5)), 2), ValueError, r"expected 3D \(unbatched\)"),
    (lambda: tnn.max_pool2d(X4.astype(tf.complex128), 2), TypeError,
     r"max_pool2d: input must be floating point, got complex128"),
    (lambda: tnn.avg_pool2d(X4.astype(tf.int64), 2), TypeError, r"avg_pool2d: input must be"),
    (lambda: tnn.avg_pool2d(X4, "a"), TypeError, r"kernel_size must be an int"),
])
def test_errors(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_devices_without_kernels_raise(accel_device):
    x = tf.ones((1, 2, 4, 4), device=accel_device)
    for f, name in [(lambda: tnn.conv2d(x, tf.ones((1, 2, 2, 2), device=accel_device)),
                     "conv2d"), (lambda: tnn.max_pool2d(x, 2), "max_pool2d"),
                    (lambda: tnn.avg_pool2d(x, 2), "avg_pool2d")]:
        with pytest.raises(tf.UnsupportedOperation,
                           match="tenferro.nn.%s.*%s" % (name, accel_device.type)):
            f()


def test_lazy_submodule():
    assert tf.nn is tnn and "nn" in tf.__all__ and "nn" in dir(tf)
    code = "import sys, tenferro; print('tenferro.nn' in sys.modules)"
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    r = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=root))
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "False"


def test_strided_views_and_both_kernels():
    """Non-contiguous and negative-stride inputs and weights; the unit-stride kernel
    (shifted runs) and the strided one (im2col) on the same convolution."""
    x, w = _rand((3, 2, 6, 8), seed=22), _rand((3, 4, 3, 2), seed=23)
    xv = tf.permute_dims(tf.asarray(x), (1, 0, 3, 2))[:, :, ::-1, 1:]   # (2, 3, 8, 5)
    wv = tf.permute_dims(tf.asarray(w), (1, 0, 2, 3))[:, :, ::-1]       # (4, 3, 3, 2)
    xt = torch.tensor(np.ascontiguousarray(xv.numpy()))
    wt = torch.tensor(np.ascontiguousarray(wv.numpy()))
    for kw in (dict(padding=(1, 0)), dict(stride=(2, 1), dilation=(1, 2)), dict(stride=1)):
        _close(tnn.conv2d(xv, wv, **kw), F.conv2d(xt, wt, **kw))


def test_input_dilation_against_zeros_inserted():
    """``nn.conv`` with input (lhs) dilation -- the transposed convolutions of the rules,
    which the CPU kernel splits into phases -- equals PyTorch's convolution of the input
    with the zeros inserted and the padding applied (negative pads crop)."""
    from tenferro.nn._conv_prim import conv_p, dilate

    rng = np.random.default_rng(24)
    checked = 0
    while checked < 60:
        sp, ks = tuple(rng.integers(1, 7, 2)), tuple(rng.integers(1, 5, 2))
        lhs, rhs = tuple(rng.integers(1, 4, 2)), tuple(rng.integers(1, 4, 2))
        strides = tuple(rng.integers(1, 3, 2)) if checked % 3 == 0 else (1, 1)
        pads = tuple((int(rng.integers(-2, 5)), int(rng.integers(-2, 5))) for _ in range(2))
        full = [dilate(s, d) for s, d in zip(sp, lhs)]
        if any(f + lo < 0 or f + hi < 0 or f + lo + hi < dilate(k, d)
               for f, (lo, hi), k, d in zip(full, pads, ks, rhs)):
            continue
        x, w = _rand((2, 4) + sp, seed=checked), _rand((6, 2) + ks, seed=checked + 1)
        xd = np.zeros((2, 4) + tuple(full))
        xd[:, :, ::lhs[0], ::lhs[1]] = x
        xd = np.pad(xd, [(0, 0), (0, 0)] + [(max(lo, 0), max(hi, 0)) for lo, hi in pads])
        xd = xd[:, :, max(-pads[0][0], 0):xd.shape[2] - max(-pads[0][1], 0),
                max(-pads[1][0], 0):xd.shape[3] - max(-pads[1][1], 0)]
        want = F.conv2d(torch.tensor(xd), torch.tensor(w), stride=strides, dilation=rhs,
                        groups=2)
        got = conv_p.bind(tf.asarray(x), tf.asarray(w), strides=strides, padding=pads,
                          lhs_dilation=lhs, rhs_dilation=rhs, groups=2)
        _close(got, want)
        checked += 1


def test_random_configurations_against_torch():
    """Random shapes, strides, paddings, dilations and groups (every schedule of the CPU
    kernel, through the forward pass and both gradients) against PyTorch in float64."""
    rng = np.random.default_rng(25)
    checked = 0
    while checked < 40:
        nsd = 1 + checked % 2
        g = int(rng.integers(1, 4))
        c, o = g * int(rng.integers(1, 4)), g * int(rng.integers(1, 4))
        sp, ks = tuple(rng.integers(1, 10, nsd)), tuple(rng.integers(1, 5, nsd))
        kw = dict(stride=tuple(int(s) for s in rng.integers(1, 4, nsd)),
                  padding=tuple(int(p) for p in rng.integers(0, 3, nsd)),
                  dilation=tuple(int(d) for d in rng.integers(1, 3, nsd)), groups=g)
        if any(s + 2 * p < (k - 1) * d + 1 for s, p, k, d in
               zip(sp, kw["padding"], ks, kw["dilation"])):
            continue
        fn, tfn = (tnn.conv1d, F.conv1d) if nsd == 1 else (tnn.conv2d, F.conv2d)
        shape = (int(rng.integers(1, 4)), c) + sp
        (x, w, b), tts, want = _conv_case(fn, tfn, shape, (o, c // g) + ks, kw, "float64",
                                          bias=True)
        ct = _rand(want.shape, seed=checked)
        want.backward(torch.tensor(ct))
        _, vjp = tf.vjp(lambda x, w, b: fn(x, w, b, **kw), *map(tf.asarray, (x, w, b)))
        for got, t in zip(vjp(tf.asarray(ct)), tts):
            _close(got, t.grad)
        checked += 1

"""The WebGPU driver (tenferro.devices.webgpu) against NumPy.

Runs for real on any WebGPU adapter (in CI: Mesa's lavapipe through Vulkan); the
module is skipped, with the driver's reason, when wgpu or an adapter is missing.

Tolerances (float32): arithmetic that WGSL specifies as correctly rounded or within
2.5 ULP (+, -, *, /, sqrt) uses rtol 1e-6; transcendental functions use rtol 1e-5 and
atol 1e-6 on inputs of magnitude <= 3 (WGSL allows exp/log 3 + 2|x| ULP, and
sin/cos an absolute error that lavapipe's LLVM implementations stay well inside).
References are computed by NumPy in float64 from the same float32 inputs.
"""
import os
import subprocess
import sys

import numpy as np
import pytest
import scipy.special

import tenferro as tf
from conftest import central_grad, gpu, host, reduction_tol, webgpu_or_skip
from tenferro._ops.elementwise import BINARY, UNARY

W = webgpu_or_skip()
_drv = tf.devices.get_driver("webgpu")


DEV = tf.device("webgpu")
F32, I32, BOOL, I64 = (np.dtype("float32"), np.dtype("int32"), np.dtype("bool"),
                       np.dtype("int64"))
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))




def check(t, expected, dtype=None, rtol=1e-6, atol=0.0):
    got = host(t)
    expected = np.asarray(expected)
    want = np.dtype(dtype) if dtype is not None else expected.dtype
    assert got.dtype == want, (got.dtype, want)
    assert got.shape == expected.shape, (got.shape, expected.shape)
    if want.kind in "bi":
        np.testing.assert_array_equal(got, expected)
    else:
        np.testing.assert_allclose(got, expected.astype(want), rtol=rtol, atol=atol,
                                   equal_nan=True)


def sample(shape, dtype, domain="any", seed=0):
    r = np.random.default_rng(seed)
    if dtype == BOOL:
        return r.random(shape) < 0.5
    if dtype == I32:
        return r.integers(-20, 21, shape).astype(np.int32)
    if dtype == I64:  # small values and values past 32 bits, both signs
        big = r.integers(-2**63, 2**63 - 1, shape, dtype=np.int64, endpoint=True)
        return np.where(r.random(shape) < 0.5, big, r.integers(-20, 21, shape))
    lo, hi = {"any": (-3, 3), "pos": (0.05, 4), "unit": (-0.95, 0.95),
              "gt1": (1.05, 4)}[domain]
    return r.uniform(lo, hi, shape).astype(np.float32)


# -- discovery, transfers, layouts ------------------------------------------------------

def test_discovery_and_info():
    assert "webgpu:0" in tf.devices.available()
    info = _drv.info()
    for k in ("adapter", "backend", "max_storage_buffer_binding_size", "max_buffer_size",
              "max_compute_workgroups_per_dimension"):
        assert info[k], k
    assert _drv.dtypes == {F32, I32, BOOL, I64}
    out = subprocess.run([sys.executable, "-c", "import tenferro as tf; tf.show_config()"],
                         capture_output=True, text=True, cwd=ROOT,
                         env=dict(os.environ, PYTHONPATH=ROOT))
    assert out.returncode == 0, out.stderr
    assert "webgpu" in out.stdout and info["adapter"] in out.stdout, out.stdout


def test_without_wgpu_reports_zero_devices_with_reason():
    code = ("import sys; sys.modules['wgpu'] = None\n"
            "import tenferro as tf\n"
            "d = tf.devices.get_driver('webgpu')\n"
            "print(d.device_count()); print(d.unavailable_reason())\n"
            "print(tf.devices.available())\n"
            "try:\n    tf.device('webgpu')\nexcept RuntimeError as e:\n    print(e)\n")
    env = dict(os.environ, PYTHONPATH=ROOT)
    env.pop("TENFERRO_CUDA_SIMULATOR", None)   # (available() would list cuda:0)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, env=env)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "0"
    assert "wgpu package is not installed" in lines[1] and "tenferro[webgpu]" in lines[1]
    assert lines[2] == "['cpu']"
    assert "'webgpu' is not available on this machine: the wgpu package" in lines[3]


@pytest.mark.parametrize("dtype", [F32, I32, BOOL, I64])
def test_round_trip_layouts(dtype):
    a = sample((4, 6, 5), dtype, seed=1)
    t = gpu(a)
    assert t.dtype == dtype and t.shape == a.shape and t.device == DEV
    assert t.strides == a.strides  # bytes of the logical dtype (1 a bool)
    check(t, a)
    # host arrays of any layout go up contiguous
    for h in (a.transpose(2, 0, 1), a[::2, ::-1, 1:4], a[1]):
        check(gpu(h), h)
    # device views read back through their strides and offsets
    check(t.mT, a.swapaxes(-1, -2))
    check(tf.permute_dims(t, (2, 0, 1)), a.transpose(2, 0, 1))
    check(t[1:, ::-2, 3], a[1:, ::-2, 3])
    check(t[..., None, ::3], a[..., None, ::3])
    check(t[2, 4], a[2, 4])
    check(tf.broadcast_to(t[:, :1], (4, 3, 5)), np.broadcast_to(a[:, :1], (4, 3, 5)))
    check(tf.diagonal(t, 1, 0, 2), np.diagonal(a, 1, 0, 2))
    check(tf.reshape(t.mT, (10, 12)), a.swapaxes(-1, -2).reshape(10, 12))
    check(t[1:, ::-2].copy(), a[1:, ::-2])
    assert host(tf.zeros((0, 3), dtype=dtype, device="webgpu")).shape == (0, 3)


def test_views_share_memory_and_copies_do_not():
    a = sample((4, 6), F32)
    t = gpu(a)
    v = tf.reshape(t, (6, 4))
    assert v._data.storage is t._data.storage
    assert tf.permute_dims(t, (1, 0))._data.storage is t._data.storage
    assert t[1:, ::2]._data.storage is t._data.storage
    c = tf.reshape(t.mT, (24,))  # not contiguous: a copy
    assert c._data.storage is not t._data.storage
    check(c, a.T.reshape(24))
    assert t[1:, ::2].strides == a[1:, ::2].strides


def test_full_empty_and_setitem():
    check(tf.full((3, 2), 2.5, dtype=tf.float32, device="webgpu"), np.full((3, 2), 2.5, F32))
    check(tf.ones((2, 3), dtype=tf.int32, device="webgpu"), np.ones((2, 3), I32))
    check(tf.zeros(4, dtype=tf.bool, device="webgpu"), np.zeros(4, bool))
    assert tf.empty((2, 2), dtype=tf.float32, device="webgpu").shape == (2, 2)
    a = sample((4, 5), F32)
    t = gpu(a)
    t[1:3, ::2] = gpu(np.float32(7.0))
    a[1:3, ::2] = 7.0
    check(t, a)
    t[0] = t[3]
    a[0] = a[3]
    check(t, a)
    with pytest.raises(ValueError, match="read-only"):
        _drv.implementations["assign"](tf.broadcast_to(t[:1], (4, 5))._data, t._data)


# -- elementwise -------------------------------------------------------------------------

_DOMAIN = {"log": "pos", "log2": "pos", "log10": "pos", "sqrt": "pos", "rsqrt": "pos",
           "log1p": "pos", "arcsin": "unit", "arccos": "unit", "arctanh": "unit",
           "arccosh": "gt1", "reciprocal": "pos"}
_REF_UNARY = {"rsqrt": lambda x: 1 / np.sqrt(x), "sigmoid": lambda x: 1 / (1 + np.exp(-x)),
              "round": np.rint, "erf": scipy.special.erf}
_EXACT = {"negative", "positive", "abs", "sign", "square", "floor", "ceil", "trunc",
          "round", "conj", "isnan", "isinf", "isfinite", "logical_not", "bitwise_invert",
          "sqrt", "reciprocal", "rsqrt", "real", "imag", "angle"}
# Ops this driver leaves out on purpose (the core then raises UnsupportedOperation).
ABSENT = {}


def _cpu_dtype(fn, a):
    """The dtype tenferro gives on the CPU, or the exception type it raises."""
    try:
        return fn(*[tf.asarray(np.ones_like(x)) for x in a]).dtype
    except TypeError as e:
        return type(e)


@pytest.mark.parametrize("dtype", [F32, I32, BOOL])
@pytest.mark.parametrize("name", sorted(UNARY) + ["real", "imag", "angle"])
def test_unary(name, dtype):
    a = sample((3, 7), dtype, _DOMAIN.get(name, "any"), seed=2)
    fn = getattr(tf, name)
    want = _cpu_dtype(fn, [a])
    t = gpu(a).mT  # a strided input
    if isinstance(want, type):
        with pytest.raises(want):
            fn(t)
        return
    if want not in _drv.dtypes or name in ABSENT:
        with pytest.raises(tf.UnsupportedOperation, match=r"^\w+: not supported on device "
                                                          r"'webgpu:0' for dtype \w+"):
            fn(t)
        return
    ref = _REF_UNARY.get(name, UNARY[name][0] if name in UNARY else getattr(np, name))
    # float results: NumPy in float64 (bool inputs would otherwise use a float16 loop)
    # (and int results of bool inputs in the int32 loop tenferro uses)
    x = a.T.astype(np.float64) if want == F32 else a.T.astype(want)
    with np.errstate(all="ignore"):
        expected = np.asarray(ref(x)).astype(want)
    exact = name in _EXACT or want != F32
    check(fn(t), expected, want, rtol=1e-6 if exact else 1e-5, atol=0 if exact else 1e-6)


SPECIALS = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 0.5, 1e-30, 1e30,
                     -1e-7, 100.0, -100.0], np.float32)


@pytest.mark.parametrize("name", ["isnan", "isinf", "isfinite", "sign", "abs", "exp",
                                  "expm1", "log", "log1p", "sqrt", "tanh", "floor", "ceil",
                                  "trunc", "round", "square", "negative", "logical_not",
                                  "sigmoid", "arcsin", "arctanh", "arccosh", "angle"])
def test_unary_special_values(name):
    with np.errstate(all="ignore"):
        ref = _REF_UNARY.get(name, UNARY[name][0] if name in UNARY else getattr(np, name))
        expected = ref(SPECIALS.astype(np.float64)).astype(
            BOOL if name.startswith("is") or name == "logical_not" else F32)
    check(getattr(tf, name)(gpu(SPECIALS)), expected, rtol=1e-5, atol=1e-6)


def test_small_argument_accuracy():
    x = np.array([1e-10, -1e-8, 1e-6, -3e-4, 2e-3], np.float32)
    check(tf.expm1(gpu(x)), np.expm1(x.astype(np.float64)), F32, rtol=1e-5)
    check(tf.log1p(gpu(x)), np.log1p(x.astype(np.float64)), F32, rtol=1e-5)
    check(tf.arcsinh(gpu(x)), np.arcsinh(x.astype(np.float64)), F32, rtol=1e-5)


_BIN_EXACT = {"add", "subtract", "multiply", "divide", "maximum", "minimum", "fmax", "fmin",
              "copysign", "floor_divide"}


def _binary_inputs(name, dtype):
    a = sample((3, 1, 5), dtype, seed=3)
    b = sample((4, 5), dtype, seed=4)
    if name in ("left_shift", "right_shift") and dtype == I32:
        b = np.abs(b) * 2  # shifts 0..40: past 31 gives 0 / the sign as in NumPy
    if name == "power" and dtype == F32:
        b[::2] = np.round(b[::2])  # integral exponents of negative bases are defined
    if name == "power" and dtype == I32:
        b = np.abs(b) % 40  # negative exponents raise (tests/test_webgpu_math.py)
    if name in ("remainder", "floor_divide", "divide") and dtype == F32:
        b[b == 0] = 0.5
    return a, b


@pytest.mark.parametrize("dtype", [F32, I32, BOOL])
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_broadcast_strided(name, dtype):
    a, b = _binary_inputs(name, dtype)
    fn = getattr(tf, name)
    want = _cpu_dtype(fn, [a, b])
    # b arrives as a transposed device view: strided, and broadcast against a
    ta, tb = gpu(a), tf.permute_dims(gpu(np.ascontiguousarray(b.T)), (1, 0))
    if isinstance(want, type):
        with pytest.raises(want):
            fn(ta, tb)
        return
    if want not in _drv.dtypes or name not in _drv.implementations:
        # (named by the op, or by the cast to float64/int64 the core does first)
        with pytest.raises(tf.UnsupportedOperation, match=r"^(%s|convert): not supported on "
                                                          r"device 'webgpu:0' for dtype" % name):
            fn(ta, tb)
        return
    x, y = (a.astype(np.float64), b.astype(np.float64)) if want == F32 else (a, b)
    with np.errstate(all="ignore"):
        expected = BINARY[name][0](x, y).astype(want)
    exact = name in _BIN_EXACT or want != F32
    check(fn(ta, tb), expected, want, rtol=1e-6 if exact else 1e-5, atol=0 if exact else 1e-6)


def test_integer_division_floor_semantics():
    x = np.array([7, -7, 7, -7, 0, 5, -2147483648, 3], np.int32)
    y = np.array([2, 2, -2, -2, 3, 0, -1, 0], np.int32)
    with np.errstate(all="ignore"):
        check(gpu(x) // gpu(y), x // y)
        check(gpu(x) % gpu(y), x % y)
    xf = np.array([7, -7, 7, -7, 5.5, -0.5, 1.0, np.inf], np.float32)
    yf = np.array([2, 2, -2, -2, 1.5, np.inf, np.inf, 2.0], np.float32)
    with np.errstate(all="ignore"):
        check(gpu(xf) // gpu(yf), xf // yf)
        check(gpu(xf) % gpu(yf), xf % yf)


def test_nan_propagation_and_comparisons():
    x = np.array([np.nan, 1.0, np.nan, -np.inf, 2.0], np.float32)
    y = np.array([1.0, np.nan, np.nan, 3.0, 2.0], np.float32)
    for name in ("maximum", "minimum", "fmax", "fmin", "less", "equal", "not_equal",
                 "greater_equal", "logaddexp", "hypot"):
        with np.errstate(all="ignore"):
            check(getattr(tf, name)(gpu(x), gpu(y)), BINARY[name][0](x, y), rtol=1e-6)


def test_scalar_operands_and_promotion():
    a = sample((2, 3), F32)
    t = gpu(a)
    check(t * 2.0 + 1, a * np.float32(2) + 1)
    check(2 ** t, np.float32(2) ** a, rtol=1e-5)
    check(t > 0.5, a > 0.5)
    i = gpu(np.arange(6, dtype=np.int32).reshape(2, 3))
    check(i * 3 - 1, np.arange(6, dtype=np.int32).reshape(2, 3) * 3 - 1)
    check(tf.astype(i, tf.float32) / 2, np.arange(6, dtype=np.float32).reshape(2, 3) / 2)


def test_where_clip():
    c = sample((3, 1), BOOL, seed=5)
    x = sample((3, 4), F32, seed=6)
    y = sample((4,), F32, seed=7)
    check(tf.where(gpu(c), gpu(x).mT.mT, gpu(y)), np.where(c, x, y))
    check(tf.clip(gpu(x), -1.0, 0.5), np.clip(x, -1.0, 0.5))
    xi = sample((3, 4), I32)
    check(tf.clip(gpu(xi), -5, 5), np.clip(xi, -5, 5))
    check(tf.where(gpu(c), gpu(xi), 0), np.where(c, xi, 0))
    nanx = np.array([np.nan, -5, 5], np.float32)
    check(tf.clip(gpu(nanx), -1.0, 1.0), np.clip(nanx, -1, 1))
    # two Python floats: the device's default float (float32 here; NumPy's float64 on
    # the CPU), as asarray(0.5, device=...) makes
    w = tf.where(gpu(c), 0.0, 0.5)
    assert w.dtype == tf.float32 and w.device == gpu(c).device
    check(w, np.where(c, 0.0, 0.5).astype(np.float32))
    assert tf.where(tf.asarray(c), 0.0, 0.5).dtype == tf.float64


@pytest.mark.parametrize("src", [F32, I32, BOOL, I64])
@pytest.mark.parametrize("dst", [F32, I32, BOOL, I64])
def test_convert(src, dst):
    a = sample((5, 4), src, seed=8)
    if src == F32:
        a = (a * 7).astype(np.float32)
        a[0, :3] = [np.nan, 0.0, -0.0]
    t = gpu(a).mT
    with np.errstate(all="ignore"):
        expected = a.T.astype(dst)
    if src == F32 and dst in (I32, I64):
        expected[:, 0][0] = np.iinfo(dst).min  # NaN: NumPy's x86 value
    check(tf.astype(t, dst), expected)


def test_out_and_inplace():
    a = sample((3, 4), F32)
    t = gpu(a)
    t += 1.0
    check(t, a + 1)
    o = tf.empty((3, 4), dtype=tf.float32, device="webgpu")
    tf.multiply(t, t, out=o)
    check(o, (a + 1) * (a + 1))
    tf.sin(t, out=t)
    check(t, np.sin((a + 1).astype(np.float64)), F32, rtol=1e-5, atol=1e-6)


# -- reductions -----------------------------------------------------------------------------

@pytest.mark.parametrize("name,dtype", [("sum", F32), ("prod", F32), ("max", F32),
                                        ("min", F32), ("max", I32), ("min", I32),
                                        ("any", BOOL), ("all", BOOL), ("mean", F32),
                                        ("max", BOOL)])
@pytest.mark.parametrize("axis", [None, 0, (0, 2), -1])
def test_reductions(name, dtype, axis):
    a = sample((4, 3, 5), dtype, seed=9)
    if name == "prod":
        a = (a / 3 + 1).astype(np.float32)
    t = tf.permute_dims(gpu(a.transpose(1, 2, 0)), (2, 0, 1))  # strided input
    expected = getattr(np, name)(a.astype(np.float64) if dtype == F32 else a, axis=axis)
    check(getattr(tf, name)(t, axis=axis), np.asarray(expected).astype(dtype), rtol=1e-5)


def test_int_mean_needs_float64():
    # NumPy averages integers in float64, which WebGPU cannot hold: the cast is named
    for dtype in (I32, I64, BOOL):
        with pytest.raises(tf.UnsupportedOperation,
                           match=r"^convert: not supported on device 'webgpu:0' for dtype "
                                 r"float64 \(WebGPU has no standard float64; use float32"):
            tf.mean(gpu(np.arange(4).astype(dtype)))


# -- dispatch limits, caches, pool -----------------------------------------------------------

def test_more_than_65535_workgroups():
    # the 2-D dispatch grid: more workgroups than one dimension holds
    n = 65535 * W.wgsl.WORKGROUP + 3
    a = np.arange(n, dtype=np.float32)
    t = gpu(a) + 1.0
    got = host(t)
    assert got.shape == (n,)
    np.testing.assert_array_equal(got[:1000], a[:1000] + 1)
    np.testing.assert_array_equal(got[-1000:], a[-1000:] + 1)
    np.testing.assert_array_equal(got[::4099], a[::4099] + 1)


@pytest.mark.parametrize("sa,sb", [
    ((2, 3), (3, 65535 * 16 + 17)),    # more column tiles than one grid dimension holds
    ((65535 * 16 + 17, 3), (3, 2)),    # more row tiles
    ((65537, 2, 3), (65537, 3, 2)),    # more batch entries
    ((2, 1_100_003), (1_100_003, 3)),  # K in pieces (llvmpipe ends loops at 65535 trips)
], ids=["cols", "rows", "batch", "long-k"])
def test_matmul_more_than_65535_workgroups(sa, sb):
    r = np.random.default_rng(5)
    a = r.integers(-3, 4, sa).astype(np.float32)   # small integers: exact in float32
    b = r.integers(-3, 4, sb).astype(np.float32)
    np.testing.assert_array_equal(host(tf.matmul(gpu(a), gpu(b))), a @ b)


def test_buffer_too_large_is_rejected():
    limit = W.context.get_context().max_binding
    n = limit // 4 + 1
    with pytest.raises(MemoryError, match=r"tenferro.empty: a WebGPU buffer of %d bytes "
                       r"exceeds the device's limit of %d bytes" % (4 * n, limit)):
        tf.empty((n,), dtype=tf.float32, device="webgpu")


def test_pipeline_cache_compiles_once():
    a = gpu(sample((7, 3), F32))
    body = "x * 3.0 + 0.25"  # a kernel no other test renders
    before = W.pipeline_info()["compiles"]
    r = W.render.run_elementwise("test", body, [a._data], F32)
    assert W.pipeline_info()["compiles"] == before + 1
    for shape in [(7, 3), (2, 5, 4), (1,)]:  # any layout: the same source, no compile
        x = sample(shape, F32)
        r = W.render.run_elementwise("test", body, [gpu(x).mT._data if x.ndim > 1 else
                                                      gpu(x)._data], F32)
        want = (x.swapaxes(-1, -2) if x.ndim > 1 else x) * 3 + 0.25
        np.testing.assert_allclose(_drv.to_numpy(r), want, rtol=1e-6)
    assert W.pipeline_info()["compiles"] == before + 1
    tf.hypot(a, a)
    n = W.pipeline_info()["compiles"]
    tf.hypot(gpu(sample(5, F32)), gpu(sample(5, F32)))
    assert W.pipeline_info()["compiles"] == n


def test_buffer_pool_reuses_freed_buffers():
    import gc

    shape = (123, 77)
    x = gpu(sample(shape, F32))
    y = tf.cos(x)
    del y
    gc.collect()
    before = W.pool_info()
    for _ in range(5):
        y = tf.cos(x)  # each result reuses the buffer the previous one freed
        del y
    after = W.pool_info()
    assert after["hits"] - before["hits"] >= 5
    assert after["misses"] == before["misses"]


def test_buffer_pool_survives_reference_cycles():
    import gc

    class Holder:
        pass

    # An array dying in cyclic garbage (autodiff graphs, tracebacks) once its work was
    # submitted: the collector finalises its storage and wgpu's GPUBuffer together, and
    # a pool fed from _Storage.__del__ got buffers wgpu had already released.
    shape = (311, 3)
    for _ in range(4):
        h = Holder()
        h.t = tf.exp(gpu(sample(shape, F32)))
        h.self = h
        DEV.synchronize()
        del h
        gc.collect()
        x = sample(shape, F32, seed=3)
        check(tf.exp(gpu(x)), np.exp(x.astype(np.float64)), F32, rtol=1e-5)


# -- bad input ------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float64", "complex64", "complex128"])
def test_unsupported_dtypes_raise(dtype):
    a = np.ones(3, dtype)
    with pytest.raises(tf.UnsupportedOperation, match=r"device_put: not supported on device "
                       r"'webgpu:0' for dtype %s \(WebGPU has no" % dtype
                       if dtype != "complex64" else r"device_put: .*'webgpu:0'.*complex64"):
        tf.asarray(a).to("webgpu")
    with pytest.raises(tf.UnsupportedOperation, match=r"'webgpu:0' for dtype %s" % dtype):
        tf.ones(3, dtype=dtype, device="webgpu")
    # a cast on the device to such a dtype: the op is named
    with pytest.raises(tf.UnsupportedOperation, match=r"^convert: .*'webgpu:0'.*%s" % dtype):
        tf.astype(gpu(np.ones(3, np.float32)), dtype)


def test_int_exp_needs_float64():
    with pytest.raises(tf.UnsupportedOperation, match=r"'webgpu:0' for dtype float64"):
        tf.exp(gpu(np.arange(3, dtype=np.int32)))


def test_mixed_devices_raise():
    g = gpu(np.ones(3, np.float32))
    c = tf.asarray(np.ones(3, np.float32))
    for fn in (lambda: g + c, lambda: c * g, lambda: tf.where(c > 0, g, c),
               lambda: tf.maximum(g, c)):
        with pytest.raises(tf.DeviceMismatchError, match="cpu.*webgpu:0|webgpu:0.*cpu"):
            fn()


# -- autodiff ------------------------------------------------------------------------------------

def test_grad_matches_finite_differences():
    """The reference is float64 central differences of the NumPy function (not the CPU's
    rules, which a sign error would share)."""
    def f(x, m=tf):
        return m.sum(m.sin(x) * x + m.exp(x) / (1.0 + x * x) - m.tanh(x) ** 2)

    a = sample((4, 5), F32, seed=11)
    g_gpu = tf.grad(f)(gpu(a))
    assert g_gpu.device == DEV and g_gpu.dtype == tf.float32
    check(g_gpu, central_grad(lambda v: f(v, np), a.astype(np.float64)).astype(F32),
          rtol=2e-5, atol=1e-5)


def test_backward_broadcast_matches_finite_differences():
    a = sample((3, 4), F32, seed=12)
    b = sample((4,), F32, seed=13)

    def f(x, y, m=tf):
        return m.sum(m.maximum(x * y, 0.1) + m.sqrt(x * x + 1.0) * y)

    x = gpu(a).requires_grad_()
    y = gpu(b).requires_grad_()
    f(x, y).backward()
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    check(x.grad, central_grad(lambda v: f(v, b64, np), a64).astype(F32), rtol=1e-5, atol=1e-5)
    check(y.grad, central_grad(lambda v: f(a64, v, np), b64).astype(F32), rtol=1e-5, atol=1e-5)


# -- matmul, einsum, concatenate -------------------------------------------------------------

@pytest.mark.parametrize("dtype", [F32, I32])
@pytest.mark.parametrize("shapes", [((19, 37), (37, 23)), ((3, 1, 5, 17), (4, 17, 2)),
                                    ((40,), (40, 33)), ((16, 16), (16,)), ((2, 0), (0, 3)),
                                    ((1, 1), (1, 1))])
def test_matmul(dtype, shapes):
    a = sample(shapes[0], dtype, seed=14)
    b = sample(shapes[1], dtype, seed=15)
    expected = a.astype(np.float64) @ b if dtype == F32 else a @ b
    # float32 sums of up to 40 terms of size <= 9: rtol 1e-5 with atol for cancellation
    check(gpu(a) @ gpu(b), expected.astype(dtype), rtol=1e-5, atol=1e-5)


def test_matmul_strided_operands():
    a = sample((2, 37, 19), F32, seed=16)
    b = sample((2, 23, 37), F32, seed=17)
    got = gpu(a).mT @ gpu(b)[:, ::-1].mT  # transposed and reversed views, no copy
    check(got, a.swapaxes(-1, -2).astype(np.float64) @ b[:, ::-1].swapaxes(-1, -2),
          F32, rtol=1e-5, atol=1e-5)


def test_matmul_bad_input():
    with pytest.raises(tf.UnsupportedOperation, match=r"^matmul: .*'webgpu:0' for dtype bool"):
        gpu(np.ones((2, 2), bool)) @ gpu(np.ones((2, 2), bool))
    with pytest.raises(ValueError, match="contracted dimensions differ"):
        gpu(np.ones((2, 3), np.float32)) @ gpu(np.ones((2, 3), np.float32))


# -- the register-blocked matmul kernel (64 x 64 output tiles, 4 x 4 outputs a thread) ---

def check_matmul(got, a, b):
    """``got`` against NumPy: int32 exactly (np.matmul wraps the same way), float32
    within 1e-6 sqrt(K) of the float64 product relative to sum_k |a_ik b_kj| (rounding
    errors of a K-term sum grow like sqrt(K)); NaN and inf where NumPy has them."""
    got = host(got)
    assert got.dtype == a.dtype and got.shape == np.matmul(a[..., :1, :], b).shape[:-2] + (
        a.shape[-2], b.shape[-1]), (got.dtype, got.shape)
    if a.dtype == I32:
        np.testing.assert_array_equal(got, np.matmul(a, b))
        return
    with np.errstate(invalid="ignore"):   # inf - inf: nan, as on the device
        want = np.matmul(a.astype(np.float64), b.astype(np.float64))
        scale = np.matmul(np.abs(a.astype(np.float64)), np.abs(b.astype(np.float64)))
    finite, nan = np.isfinite(want), np.isnan(want)
    np.testing.assert_array_equal(np.isnan(got), nan)
    np.testing.assert_array_equal(got[~finite & ~nan], want[~finite & ~nan])
    bound = 1e-6 * np.sqrt(max(a.shape[-1], 1)) * scale[finite]
    err = np.abs(got[finite] - want[finite])
    assert np.all(err <= bound), (err - bound).max()


def _mm_sample(shape, dtype, seed):
    """int32 over the whole range (products and sums wrap), float32 in [-3, 3]."""
    r = np.random.default_rng(seed)
    if dtype == I32:
        x = r.integers(-2**31, 2**31, shape, dtype=np.int64).astype(np.int32)
        x.flat[::7] = np.array([-2**31, 2**31 - 1, -1, 0, 1, 46341, -46341])[
            np.arange(x.flat[::7].size) % 7]
        return x
    return sample(shape, F32, seed=seed)


def test_matmul_kernel_choice():
    # the register-blocked kernel unless one 16 x 16 tile holds the product
    assert W.matmul.kernel(16, 16)[0] is W.wgsl_matmul.MATMUL
    for m, n in [(17, 16), (16, 17), (1, 1024), (64, 64)]:
        assert W.matmul.kernel(m, n) == (W.wgsl_matmul.MATMUL_RB, 64)


_EDGE = (63, 64, 65, 127, 129)


@pytest.mark.parametrize("dtype", [F32, I32])
@pytest.mark.parametrize("mkn", sorted({(m, 65, 65) for m in _EDGE} | {(65, k, 65) for k in _EDGE}
                                       | {(65, 65, n) for n in _EDGE}
                                       | {(129, 127, 63), (1, 129, 65), (129, 1, 1),
                                          (2, 300, 127), (17, 3, 16), (16, 40, 16)}))
def test_matmul_tile_edges(dtype, mkn):
    m, k, n = mkn
    a, b = _mm_sample((m, k), dtype, seed=m + k), _mm_sample((k, n), dtype, seed=n)
    check_matmul(gpu(a) @ gpu(b), a, b)


@pytest.mark.parametrize("dtype", [F32, I32])
def test_matmul_strided_offset_views(dtype):
    big_a = _mm_sample((3, 150, 140), dtype, seed=40)
    big_b = _mm_sample((3, 160, 130), dtype, seed=41)
    # (key into a, transpose it, key into b, transpose it): views, no copies
    cases = [((slice(1, None), slice(2, 67), slice(3, 133, 2)), False,  # offsets, steps
              (slice(None, 2), slice(1, 66), slice(None, None, -2)), False),  # reversed
             ((slice(None), slice(5, 134), slice(7, 72)), True,  # column-major a
              (slice(None), slice(3, 132), slice(None, None, -2)), False),
             ((2, slice(1, 66), slice(1, 130)), True,  # both transposed, offsets
              (0, slice(4, 69), slice(2, 67)), True),
             ((slice(None), slice(-1, -131, -2), slice(None, None, -3)), False,  # negative
              (slice(None), slice(100, 147), slice(None, None, 2)), False)]  # strides
    ga, gb = gpu(big_a), gpu(big_b)
    for ka, ta, kb, tb in cases:
        x, y, xa, yb = ga[ka], gb[kb], big_a[ka], big_b[kb]
        x, xa = (x.mT, xa.swapaxes(-1, -2)) if ta else (x, xa)
        y, yb = (y.mT, yb.swapaxes(-1, -2)) if tb else (y, yb)
        assert x.shape[-1] == y.shape[-2] and min(x.shape[-2], y.shape[-1]) >= 65  # RB kernel
        check_matmul(x @ y, np.ascontiguousarray(xa), np.ascontiguousarray(yb))


@pytest.mark.parametrize("dtype", [F32, I32])
def test_matmul_batch_broadcast(dtype):
    # stride-0 batch axes on both sides: (4, 1) x (3,) -> (4, 3), and a broadcast view
    a = _mm_sample((4, 1, 65, 70), dtype, seed=42)
    b = _mm_sample((3, 70, 66), dtype, seed=43)
    check_matmul(gpu(a) @ gpu(b), a, b)
    bb = tf.broadcast_to(gpu(b[:1]), (2, 3, 70, 66))
    check_matmul(gpu(a[:2]) @ bb, a[:2], np.broadcast_to(b[:1], (2, 3, 70, 66)))


@pytest.mark.parametrize("dtype", [F32, I32])
@pytest.mark.parametrize("mkn", [(0, 65, 70), (65, 0, 70), (70, 65, 0), (0, 0, 0)])
def test_matmul_empty(dtype, mkn):
    m, k, n = mkn
    a, b = np.ones((2, m, k), dtype), np.ones((2, k, n), dtype)
    check_matmul(gpu(a) @ gpu(b), a, b)


def test_matmul_nan_inf():
    a = sample((70, 80), F32, seed=44)
    b = sample((80, 66), F32, seed=45)
    a[3, 5], a[64, 0], a[69, 79] = np.nan, np.inf, -np.inf
    b[7, 65], b[0, 1] = np.inf, 0.0     # inf * 0 -> nan, inf - inf -> nan
    a[10, :] = -0.0
    check_matmul(gpu(a) @ gpu(b), a, b)


@pytest.mark.parametrize("dtype", [F32, I32])
def test_matmul_k_pieces_and_grid_blocks(monkeypatch, dtype):
    # K in pieces of 64 (each adds to the previous ones' sum) and grids of at most 2
    # workgroups a dimension, on both kernels (200 x 190: 4 x 3 tiles of 64, 13 x 12
    # of 16; the 16 x 16 products use the small kernel), with a broadcast batch
    a = _mm_sample((5, 1, 200, 201), dtype, seed=46)
    b = _mm_sample((3, 201, 190), dtype, seed=47)
    sa, sb = _mm_sample((5, 16, 129), dtype, seed=48), _mm_sample((5, 129, 16), dtype, seed=49)
    ga, gb, gsa, gsb = gpu(a), gpu(b), gpu(sa), gpu(sb)
    calls = {"sa": [], "ta": []}     # the groups of each RB (sa) and small (ta) dispatch
    dispatch = W.context.Context.dispatch

    def counting(self, source, storages, meta, n, groups=None):
        for name, got in calls.items():
            if "var<workgroup> %s:" % name in source:
                got.append(groups)
        return dispatch(self, source, storages, meta, n, groups)

    monkeypatch.setattr(W.context.Context, "dispatch", counting)
    monkeypatch.setattr(W.wgsl_matmul, "MATMUL_KCHUNK", 64)
    monkeypatch.setattr(W.matmul, "MAX_GROUPS_X", 2)
    big, small = ga @ gb, gsa @ gsb
    monkeypatch.undo()
    # 8 batch blocks x 2 row blocks x 2 column blocks x 4 pieces of K, and 3 x 1 x 1 x 3
    assert len(calls["sa"]) == 8 * 2 * 2 * 4 and len(calls["ta"]) == 3 * 3
    assert {g for g in calls["sa"]} == {(x, 2, z) for x in (1, 2) for z in (1, 2)}
    check_matmul(big, a, b)
    check_matmul(small, sa, sb)

@pytest.mark.parametrize("spec,shapes", [("bij,bjk->bik", [(3, 4, 5), (3, 5, 6)]),
                                         ("ij,kj->ik", [(4, 7), (5, 7)]),
                                         ("ii->i", [(5, 5)]), ("ijk->kj", [(2, 3, 4)]),
                                         ("i,i->", [(9,), (9,)]),
                                         ("abc,cd,be->ade", [(2, 3, 4), (4, 5), (3, 6)])])
def test_einsum(spec, shapes):
    ops = [sample(s, F32, seed=20 + i) for i, s in enumerate(shapes)]
    expected = np.einsum(spec, *[o.astype(np.float64) for o in ops])
    check(tf.einsum(spec, *[gpu(o) for o in ops]), expected.astype(F32), rtol=1e-5, atol=1e-5)


def test_concatenate():
    a, b = sample((2, 3), F32, seed=1), sample((2, 4), F32, seed=2)
    check(tf.concatenate([gpu(a), gpu(b).mT.mT], axis=1), np.concatenate([a, b], axis=1))
    check(tf.concatenate([gpu(a), gpu(a)], axis=0), np.concatenate([a, a]))


def test_grad_through_matmul_matches_cpu():
    x0, w0 = sample((6, 5), F32, seed=30), sample((5, 4), F32, seed=31)
    grads = []
    for dev in ("cpu", "webgpu"):
        x = tf.asarray(x0).to(dev).requires_grad_()
        w = tf.asarray(w0).to(dev).requires_grad_()
        tf.sum(tf.tanh(x @ w) * tf.sigmoid(x[:, :4])).backward()
        grads.append([g.to("cpu").numpy() for g in (x.grad, w.grad)])
    for got, want in zip(grads[1], grads[0]):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("shape,axis", [((1000003,), None), ((300, 500), 1), ((300, 500), 0),
                                        ((7, 9000, 3), (0, 1)), ((5000, 2), 0)])
def test_tree_reductions(shape, axis):
    """Long reductions: the workgroup tree, in several chunks when > 4096 long."""
    a = np.random.default_rng(40).standard_normal(shape).astype(np.float32)
    t = gpu(a)
    ref = a.astype(np.float64)
    # float32 tree sums: error ~ eps * log2(n) * sum|a| ; compare on that scale
    scale = np.sum(np.abs(ref), axis=axis)
    got = host(tf.sum(t, axis=axis))
    assert np.all(np.abs(got - np.sum(ref, axis=axis)) <= 2e-6 * scale), "sum"
    check(tf.max(t, axis=axis), np.max(a, axis=axis))
    check(tf.min(t, axis=axis), np.min(a, axis=axis))
    check(tf.mean(t, axis=axis), np.mean(ref, axis=axis).astype(F32), rtol=1e-4, atol=2e-6)
    b = np.zeros(shape, bool)
    b.flat[len(b.flat) // 2 + 1] = True
    for x in (b, b.astype(F32), b.astype(I32), b.astype(I64)):  # any/all test truth
        check(tf.any(gpu(x), axis=axis), np.any(x, axis=axis))
        check(tf.all(gpu(x == 0), axis=axis), np.all(x == 0, axis=axis))
        check(tf.all(gpu(x), axis=axis), np.all(x, axis=axis))
    f = np.zeros(shape, F32)
    f.flat[-1] = np.nan   # NaN is true
    check(tf.any(gpu(f), axis=axis), np.any(f, axis=axis))
    ai = np.random.default_rng(41).integers(-1000, 1000, shape).astype(np.int32)
    check(tf.max(gpu(ai), axis=axis), np.max(ai, axis=axis))
    check(tf.min(gpu(ai), axis=axis), np.min(ai, axis=axis))


def test_reduction_nan_propagates():
    a = np.arange(10000, dtype=np.float32)
    a[7777] = np.nan
    check(tf.max(gpu(a)), np.max(a))
    check(tf.min(gpu(a)), np.min(a))
    check(tf.sum(gpu(a)), np.sum(a))


def test_submissions_are_batched():
    a = sample((50, 40), F32, seed=50)
    t = gpu(a)
    DEV.synchronize()
    before = W.pipeline_info()["submits"]
    r, ref = t, a.astype(np.float64)
    for k in range(10):  # scalar operands are uploads too: they must not force a submit
        r = tf.tanh(r * 0.5 + float(k)) - t
        ref = np.tanh(ref * 0.5 + k) - a
    assert W.pipeline_info()["submits"] == before  # nothing submitted before the read
    check(r, ref.astype(F32), rtol=1e-5, atol=1e-5)
    assert W.pipeline_info()["submits"] == before + 1



# -- dispatch overhead: cached bind groups, one compute pass per batch -------------------

def test_cached_bind_groups_see_recycled_buffers_contents():
    # A loop of small ops binds the same pooled buffers again and again, so their bind
    # groups come from the cache; each result must still be the new contents'.
    ctx = W.context.get_context()
    a, b = sample(3, F32, seed=60), sample(3, F32, seed=61)
    ta, tb = gpu(a), gpu(b)
    r = ta + tb
    DEV.synchronize()
    n = len(ctx.bind_groups)
    for k in range(200):   # crosses several batches (_BATCH dispatches each)
        r = ta + tb
        if k % 37 == 0:    # a read mid-loop: a submit with the pass ended
            check(r, a + b)
    assert len(ctx.bind_groups) <= n + 2   # the result's buffers alternate: cache hits
    check(r, a + b)
    # the same pooled buffers, new contents, another kernel: no stale binding
    for seed in range(5):
        x, y = sample(3, F32, seed=70 + seed), sample(3, F32, seed=80 + seed)
        tx, ty = gpu(x), gpu(y)
        check(tx * ty - tx, x * y - x, rtol=1e-6)
        del tx, ty


def test_bind_group_cache_key_and_bound():
    ctx = W.context.get_context()
    x = gpu(sample((4, 5), F32, seed=62))
    s1, s2 = x._data.storage, tf.exp(x)._data.storage
    pipe, layout = ctx.pipeline(W.render.elementwise_source("exp(x)", (F32,), F32))
    m1, m2 = ctx.meta([1, 2, 3]), ctx.meta([1, 2, 4])
    g = ctx.bind_group(pipe, layout, (s1.buffer, s2.buffer), m1)
    assert ctx.bind_group(pipe, layout, (s1.buffer, s2.buffer), m1) is g
    assert ctx.bind_group(pipe, layout, (s2.buffer, s1.buffer), m1) is not g
    assert ctx.bind_group(pipe, layout, (s1.buffer, s2.buffer), m2) is not g
    for k in range(W.context.BIND_GROUPS + 10):  # distinct meta buffers: distinct groups
        ctx.bind_group(pipe, layout, (s1.buffer, s2.buffer), ctx.meta([7, k]))
    assert len(ctx.bind_groups) <= W.context.BIND_GROUPS


def test_bind_group_cache_lets_dropped_buffers_go():
    import gc

    ctx = W.context.get_context()
    x = sample((33, 9), F32, seed=63)
    t = gpu(x)
    check(tf.sin(t), np.sin(x.astype(np.float64)), F32, rtol=1e-5, atol=1e-6)
    assert ctx.bind_groups
    W.clear_pool()
    assert not ctx.bind_groups      # cleared with the pool: it must not pin buffers
    check(tf.sin(t), np.sin(x.astype(np.float64)), F32, rtol=1e-5, atol=1e-6)
    assert ctx.bind_groups
    limit = ctx.pool_limit
    ctx.pool_limit = 0              # the pool now lets every freed buffer go
    try:
        r = tf.cos(t)
        DEV.synchronize()
        del r
        gc.collect()
        assert not ctx.bind_groups
    finally:
        ctx.pool_limit = limit
    check(tf.cos(t), np.cos(x.astype(np.float64)), F32, rtol=1e-5, atol=1e-6)


def test_dependent_dispatches_in_one_pass():
    # Read-after-write and in-place chains recorded into one compute pass, across
    # batch boundaries, with views, broadcasting and a reduction in between.
    a = sample((6, 7), F32, seed=64)
    t = gpu(a)
    r, ref = gpu(np.zeros((6, 7), F32)), np.zeros((6, 7), np.float64)
    for k in range(150):
        r += t.mT.mT * 0.5
        r -= t[:, :1]
        ref += a * 0.5
        ref -= a[:, :1]
    s = tf.sum(r, axis=0) + r[0]
    check(r, ref.astype(F32), rtol=1e-5, atol=1e-4)
    # the sum of 6 rows of magnitude <= 150 * (|a| + |a|): a few eps of 6 * 150 * 2 max|a|
    check(s, (ref.sum(axis=0) + ref[0]).astype(F32), rtol=1e-5,
          atol=reduction_tol("webgpu", F32, 6, "sum", scale=300 * np.abs(a).max())[1])

@pytest.mark.parametrize("fn,op,dtype", [
    (lambda t: tf.linalg.cholesky(t), r"linalg\.cholesky", "float32"),  # no LAPACK here
    (lambda t: tf.linalg.qr(t), r"linalg\.qr", "float32"),
    (lambda t: tf.linalg.eigh(t), r"linalg\.eigh", "float32"),
    (lambda t: tf.take(t.astype("int64") // 2, [0], axis=0), "floor_divide", "int64"),
])
def test_absent_ops_raise_unsupported(fn, op, dtype):
    import tenferro.linalg  # noqa: F401  (tf.linalg)

    t = gpu(sample((3, 3), F32))
    with pytest.raises(tf.UnsupportedOperation, match=r"^%s: not supported on device "
                       r"'webgpu:0' for dtype %s" % (op, dtype)):
        fn(t)


def test_python_scalar_operands_are_uploaded_once():
    from tenferro._ops.elementwise import _scalar_on

    dev = tf.device("webgpu")
    s = _scalar_on(2.5, np.dtype(np.float32), dev)
    assert isinstance(s, W.WGPUArray) and not s.writeable
    assert _scalar_on(2.5, np.dtype(np.float32), dev) is s
    x0 = np.array([1.0, -2.0, 3.5], np.float32)
    x = gpu(x0).requires_grad_()
    y = x * 2.5 + 1 - x ** 2
    np.testing.assert_array_equal(host(y.detach()), x0 * np.float32(2.5) + 1 - x0 ** 2)
    tf.sum(y).backward()
    np.testing.assert_allclose(host(x.grad), 2.5 - 2 * x0, rtol=1e-6)
    with pytest.raises(OverflowError, match="1099511627776 out of bounds for int32"):  # as NumPy
        gpu(np.arange(3, dtype=np.int32)) + 2 ** 40


# -- int64: two u32 words an element, exact emulated arithmetic ------------------------------

I64_MIN, I64_MAX = np.iinfo(np.int64).min, np.iinfo(np.int64).max
# carries and borrows across the 32-bit boundary, the int32 and int64 extremes
I64_EDGES = np.array([0, 1, -1, 2, -2, 7, 2**16 + 3, 2**31 - 1, 2**31, -2**31, -2**31 - 1,
                      2**32 - 1, 2**32, 2**32 + 1, -2**32, -2**32 + 1, 3 * 2**32 + 5,
                      2**53 + 1, -2**53 - 1, 2**62, -2**62, I64_MAX, I64_MIN, I64_MAX - 1,
                      I64_MIN + 1, 0x123456789ABCDEF, -0x0FEDCBA987654321], np.int64)


def _i64_pairs():
    a = np.broadcast_to(I64_EDGES[:, None], (I64_EDGES.size,) * 2)
    return a, a.T


@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "maximum", "minimum", "fmax",
                                  "fmin", "equal", "not_equal", "less", "less_equal",
                                  "greater", "greater_equal", "bitwise_and", "bitwise_or",
                                  "bitwise_xor", "logical_and", "logical_or", "logical_xor"])
def test_int64_binary_edges(name):
    """Every pair of edge values (wraparound mod 2^64 as NumPy), broadcast and strided."""
    a, b = _i64_pairs()
    with np.errstate(all="ignore"):
        expected = getattr(np, name)(a, b)
    ga, gb = gpu(I64_EDGES[:, None]), gpu(I64_EDGES)   # broadcast on the device
    check(getattr(tf, name)(ga, gb), expected)
    # transposed and reversed operands
    check(getattr(tf, name)(gpu(np.ascontiguousarray(a.T)).mT, gpu(b[::-1])[::-1]),
          expected)


@pytest.mark.parametrize("name", ["negative", "positive", "abs", "sign", "square",
                                  "bitwise_invert", "logical_not", "isnan", "isinf",
                                  "isfinite", "floor", "ceil", "trunc", "round"])
def test_int64_unary_edges(name):
    with np.errstate(all="ignore"):
        ref = {"bitwise_invert": np.invert, "round": np.round}.get(name, getattr(np, name))
        expected = ref(I64_EDGES)
    check(getattr(tf, name)(gpu(I64_EDGES)), expected)
    check(getattr(tf, name)(gpu(I64_EDGES[::-3])), expected[::-3])


def test_int64_random_arithmetic_matches_numpy():
    a, b = sample((64, 33), I64, seed=50), sample((64, 33), I64, seed=51)
    with np.errstate(all="ignore"):
        for name in ("add", "subtract", "multiply", "maximum", "less", "bitwise_xor"):
            check(getattr(tf, name)(gpu(a), gpu(b)), getattr(np, name)(a, b))
    # products of 32-bit halves: every partial product's carry
    h = np.array([0xFFFFFFFF, 0xFFFF0000, 0x0000FFFF, 0x80000000, 0x7FFFFFFF], np.int64)
    x = (h[:, None] << 32 | h[None, :]).ravel()
    with np.errstate(all="ignore"):
        check(tf.multiply(gpu(x[:, None]), gpu(x)), x[:, None] * x)


def test_int64_where_clip_setitem_concatenate():
    e = I64_EDGES
    c = np.arange(e.size) % 3 == 0
    check(tf.where(gpu(c), gpu(e), gpu(e[::-1])), np.where(c, e, e[::-1]))
    check(tf.clip(gpu(e), -2**40, 2**33 + 1), np.clip(e, -2**40, 2**33 + 1))
    check(tf.clip(gpu(e), gpu(e[::-1]), I64_MAX), np.clip(e, e[::-1], I64_MAX))
    t = gpu(e.reshape(3, 9))
    h = e.reshape(3, 9).copy()
    t[1:, ::2] = gpu(np.int64(I64_MIN))
    h[1:, ::2] = I64_MIN
    check(t, h)
    t[0] = t[2]
    h[0] = h[2]
    check(t, h)
    check(tf.concatenate([t, gpu(e[:9][None])], axis=0), np.concatenate([h, e[:9][None]]))
    # in place (out=), also through overlapping views of one buffer
    u, g = gpu(e), e.copy()
    u += 2**33
    g += 2**33
    u[1:] *= u[:-1]
    with np.errstate(all="ignore"):
        g[1:] *= g[:-1].copy()
    check(u, g)
    check(tf.full((2, 3), I64_MIN, dtype=tf.int64, device="webgpu"), np.full((2, 3), I64_MIN))
    check(tf.zeros((0, 2), dtype=tf.int64, device="webgpu"), np.zeros((0, 2), np.int64))
    # the transposes of basic_index and diagonal (used by autodiff) hold int64 too
    imp = _drv.implementations
    key = [("s", 1, 3, 1), ("i", 2)]
    r = imp["basic_index_transpose"](gpu(e[:2])._data, key=key, shape=(4, 5))
    want = np.zeros((4, 5), np.int64)
    want[1:3, 2] = e[:2]
    np.testing.assert_array_equal(_drv.to_numpy(r), want)
    r = imp["diagonal_transpose"](gpu(e[:3])._data, offset=1, axis1=0, axis2=1, shape=(3, 4))
    want = np.zeros((3, 4), np.int64)
    want[[0, 1, 2], [1, 2, 3]] = e[:3]
    np.testing.assert_array_equal(_drv.to_numpy(r), want)


def test_int64_casts_edge_values():
    # int64 -> float32 rounds to nearest even (ties 2**24 + 1, 2**25 + 2 ...), as NumPy
    x = np.concatenate([I64_EDGES, np.array(
        [2**24 + 1, 2**24 + 3, 2**25 + 2, 2**25 + 6, -(2**24 + 1), 2**53 + 1, 2**63 - 2**39,
         2**63 - 2**39 - 1, 2**40 + 2**16, 2**40 + 2**16 + 1, 0x7FFFFF8000000000,
         -0x7FFFFF8000000000], np.int64),
        sample((200,), I64, seed=52)])
    got = host(tf.astype(gpu(x), tf.float32))
    np.testing.assert_array_equal(got.view(np.uint32), x.astype(np.float32).view(np.uint32))
    check(tf.astype(gpu(x), tf.int32), x.astype(np.int32))   # the low word: wraps
    check(tf.astype(gpu(x), tf.bool), x.astype(bool))
    # float32 -> int64 truncates; NaN, inf and |x| >= 2**63 give INT64_MIN (x86, NumPy)
    f = np.array([np.nan, np.inf, -np.inf, 1e19, -1e19, 2.0**63, -2.0**63, 2.0**62,
                  -2.0**62 * 1.5, 0.0, -0.0, 0.5, -0.5, 0.99999994, -1.5, 2.5, 1e-40,
                  16777217.0, 2.0**31, -2.0**31 - 256, 2.0**32 + 512, 3e10, -3e10,
                  123456789012.0], np.float32)
    mag = 10.0 ** (np.arange(300) % 21)   # up to 1e20: past 2**63 too
    f = np.concatenate([f, (np.random.default_rng(53).standard_normal(300) * mag)
                        .astype(np.float32)])
    with np.errstate(all="ignore"):
        want = f.astype(np.int64)
    assert want[0] == I64_MIN and want[1] == I64_MIN and want[3] == I64_MIN  # x86 values
    check(tf.astype(gpu(f), tf.int64), want)
    i = np.array([0, 1, -1, 2**31 - 1, -2**31, 12345, -12345], np.int32)
    check(tf.astype(gpu(i), tf.int64), i.astype(np.int64))
    check(tf.astype(gpu(np.array([True, False, True])), tf.int64), np.array([1, 0, 1]))


@pytest.mark.parametrize("shape,axis", [((37,), None), ((300,), None), ((5000,), None),
                                        ((1000003,), None), ((300, 130), 0), ((300, 130), 1),
                                        ((9000, 3), 0), ((4, 0), 1), ((0, 5), 0)])
def test_integer_sums_accumulate_in_int64(shape, axis):
    """bool and int32 sums/products give int64 as NumPy, exactly (past int32's range
    and wrapping mod 2^64), over one thread, one workgroup tree, or several chunks."""
    r = np.random.default_rng(54)
    big = np.full(shape, 2**31 - 1, np.int32)
    big.flat[::7] = -2**31
    for a in (big, r.integers(-9, 10, shape).astype(np.int32), r.random(shape) < 0.3,
              r.integers(I64_MIN, I64_MAX, shape, dtype=np.int64)):
        t = gpu(a)
        with np.errstate(all="ignore"):
            check(tf.sum(t, axis=axis), np.sum(a, axis=axis))
            check(tf.prod(t, axis=axis), np.prod(a, axis=axis))
            check(tf.sum(t, axis=axis, dtype=tf.int32), np.sum(a, axis=axis, dtype=np.int32))
        if a.ndim == 2:  # a transposed device view
            tt = gpu(np.ascontiguousarray(a.T)).mT
            with np.errstate(all="ignore"):
                check(tf.sum(tt, axis=axis), np.sum(a, axis=axis))
                check(tf.prod(tt, axis=axis), np.prod(a, axis=axis))
        if a.dtype == I64 and a.size:
            for name in ("max", "min", "any", "all"):
                check(getattr(tf, name)(t, axis=axis), getattr(np, name)(a, axis=axis))


def test_int64_reduction_edges():
    e = np.concatenate([I64_EDGES, I64_EDGES[::-1]])
    a = np.tile(e, 200).reshape(-1, 2 * I64_EDGES.size)   # 200 rows: the tree
    for axis in (None, 0, 1):
        with np.errstate(all="ignore"):
            for name in ("sum", "prod", "max", "min", "any", "all"):
                check(getattr(tf, name)(gpu(a), axis=axis), getattr(np, name)(a, axis=axis))
    # prod overflowing int64: wraps as NumPy
    p = np.array([3**39, 3**39, 5, -7, 2**33 + 1], np.int64)
    with np.errstate(all="ignore"):
        check(tf.prod(gpu(p)), np.prod(p))
    z = np.zeros(5000, np.int64)
    z[4097] = 1
    check(tf.any(gpu(z)), np.array(True))
    check(tf.all(gpu(z + 1)), np.array(True))


def _arg_data(dtype, shape, seed):
    r = np.random.default_rng(seed)
    if dtype == F32:   # few distinct values: ties everywhere
        return r.integers(-3, 4, shape).astype(np.float32) / np.float32(2)
    if dtype == I64:   # ties in the high word, differences in the low one (and back)
        return ((r.integers(-2, 2, shape) << 32) | r.integers(0, 3, shape)).astype(np.int64)
    if dtype == BOOL:
        return r.random(shape) < 0.01
    return r.integers(-3, 4, shape).astype(dtype)


@pytest.mark.parametrize("dtype", [F32, I32, BOOL, I64])
@pytest.mark.parametrize("shape,axis", [((7,), None), ((63,), 0), ((64,), 0), ((300,), 0),
                                        ((4097,), 0), ((10000,), None), ((1000003,), None),
                                        ((300, 130), 0), ((300, 130), 1), ((3, 9000), 1),
                                        ((2, 3, 4), 1), ((5, 1), 1)])
@pytest.mark.parametrize("name", ["argmax", "argmin"])
def test_argmax_argmin(name, dtype, shape, axis):
    """The first index of the extremum (ties), int64 indices, over one thread per output,
    the (value, index) workgroup tree and its multi-pass chunks; views too."""
    a = _arg_data(dtype, shape, seed=len(shape) + shape[0])
    check(getattr(tf, name)(gpu(a), axis=axis), getattr(np, name)(a, axis=axis))
    views = []   # device views (transposed strides) holding the values of a
    if a.ndim >= 2:
        views.append(tf.permute_dims(gpu(np.ascontiguousarray(a.T)), range(a.ndim)[::-1]))
    if a.ndim == 3:
        views.append(tf.permute_dims(gpu(np.ascontiguousarray(a.transpose(2, 0, 1))),
                                     (1, 2, 0)))
    for t in views:
        check(getattr(tf, name)(t, axis=axis), getattr(np, name)(a, axis=axis))
    check(getattr(tf, name)(gpu(a)[::-1], axis=axis), getattr(np, name)(a[::-1], axis=axis))


@pytest.mark.parametrize("n", [10, 300, 10000])
def test_argmax_nan_and_infinities(n):
    """A NaN wins both argmax and argmin (the first NaN), as in NumPy; -inf/inf ties."""
    a = np.full(n, -np.inf, np.float32)
    check(tf.argmax(gpu(a)), np.argmax(a))
    check(tf.argmin(gpu(-a)), np.argmin(-a))
    a[n // 3] = np.inf
    a[n // 2] = np.nan
    a[n - 1] = np.nan
    for x in (a, a[::-1], -a):
        check(tf.argmax(gpu(x)), np.argmax(x))
        check(tf.argmin(gpu(x)), np.argmin(x))
    m = np.stack([a, np.arange(n, dtype=np.float32), a[::-1]])
    for axis in (0, 1):
        check(tf.argmax(gpu(m), axis=axis), np.argmax(m, axis=axis))
        check(tf.argmin(gpu(m), axis=axis), np.argmin(m, axis=axis))


def test_argmax_empty_axis_raises():
    with pytest.raises(ValueError, match="argmax: attempt to get argmax of an empty sequence"):
        tf.argmax(gpu(np.zeros((3, 0), np.float32)), axis=1)
    check(tf.argmax(gpu(np.zeros((0, 3), np.float32)), axis=1), np.zeros(0, np.int64))


@pytest.mark.parametrize("fn,op", [
    (lambda t: t // t, "floor_divide"), (lambda t: t % t, "remainder"),
    (lambda t: t ** t, "power"), (lambda t: t << t, "left_shift"),
    (lambda t: t >> t, "right_shift"), (lambda t: tf.reciprocal(t), "reciprocal"),
    (lambda t: tf.matmul(t, t), "matmul"), (lambda t: tf.einsum("ij,jk->ik", t, t),
                                            "matmul"),
])
def test_int64_unsupported_ops_raise(fn, op):
    """int64 ops without an exact emulation raise naming the op, the device and int64,
    and the driver declares them (so the coverage table says so)."""
    t = gpu(np.arange(1, 5, dtype=np.int64).reshape(2, 2))
    with pytest.raises(tf.UnsupportedOperation,
                       match=r"^%s: not supported on device 'webgpu:0' for dtype int64 "
                             r"\(int64 is emulated with 32-bit words" % op):
        fn(t)
    assert not _drv.supports(op, I64)

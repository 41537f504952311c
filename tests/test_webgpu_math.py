"""WebGPU erf (float32), int32 power and float32 cumsum/cumprod against NumPy / SciPy.

Runs on any WebGPU adapter (in CI Mesa's lavapipe through Vulkan); skipped with the
driver's reason when wgpu or an adapter is missing.
"""

import numpy as np
import pytest
from scipy.special import erf, erfc

import tenferro as tf
from conftest import gpu, host, webgpu_or_skip

webgpu_or_skip()
_drv = tf.devices.get_driver("webgpu")

from tenferro.devices.webgpu import wgsl, wgsl_math  # noqa: E402

F32, I32 = np.dtype("float32"), np.dtype("int32")
IMIN, IMAX = np.iinfo(np.int32).min, np.iinfo(np.int32).max
NEG_POWER = "^Integers to negative integer powers are not allowed.$"




# -- erf -------------------------------------------------------------------------------------

def ulp_error(got, x):
    """|got - erf(x)| in units of the float32 spacing at erf(x) (x float32, erf in float64)."""
    ref = erf(x.astype(np.float64))
    spacing = np.spacing(np.abs(ref.astype(F32))).astype(np.float64)
    return np.abs(got.astype(np.float64) - ref) / spacing


def erf_inputs():
    tiny = np.logspace(-30, -3, 2000)
    denormals = np.array([1e-45, 3e-44, 1e-40, 5e-39, 1.1754942e-38])
    return np.concatenate([np.linspace(-6, 6, 100001), tiny, -tiny, denormals, -denormals,
                           [0.9999999, 1.0, 1.0000001, 1.9999999, 2.0, 2.0000002, 3.9199998,
                            3.92, 3.9200003, 9.0, 1e30, -1e30, 3.4028235e38]]).astype(F32)


def test_erf_ulp_accuracy_over_the_line():
    x = erf_inputs()
    got = host(tf.erf(gpu(x)))
    assert got.dtype == F32
    err = ulp_error(got, x)
    # max 1.14 ulp measured on lavapipe (1.02 in a float32 emulation of the kernel)
    assert err.max() <= 2.0, (err.max(), x[err.argmax()], got[err.argmax()])
    # tiny arguments keep full relative accuracy (erf(x) ~ 2x/sqrt(pi)), not 1e-7 absolute
    small = (np.abs(x) < 1e-3) & (x != 0)
    np.testing.assert_allclose(got[small], erf(x[small].astype(np.float64)), rtol=2.5e-7,
                               atol=2e-45)


def test_erf_special_values():
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 4.0, -4.0, 100.0, -1e-45],
                 F32)
    got = host(tf.erf(gpu(x)))
    np.testing.assert_array_equal(got[:4], [0.0, -0.0, 1.0, -1.0])
    assert not np.signbit(got[0]) and np.signbit(got[1])  # -0.0 -> -0.0
    assert np.isnan(got[4:6]).all()
    np.testing.assert_array_equal(got[6:9], [1.0, -1.0, 1.0])  # saturated
    assert got[9] == erf(np.float64(x[9])).astype(F32) and got[9] < 0  # a denormal


@pytest.mark.parametrize("how", ["transposed", "reversed", "broadcast", "empty", "0-d"])
def test_erf_layouts(how):
    rng = np.random.default_rng(0)
    a = (rng.standard_normal((6, 9)) * 2).astype(F32)
    t = gpu(a)
    if how == "transposed":
        a, t = a.T, t.mT
    elif how == "reversed":
        a, t = a[::-2, ::-1], t[::-2, ::-1]
    elif how == "broadcast":
        a, t = np.broadcast_to(a[:1], (4, 9)), tf.broadcast_to(t[:1], (4, 9))
    elif how == "empty":
        a, t = a[:0], t[:0]
    else:
        a, t = a[2, 3], t[2, 3]
    got = host(tf.erf(t))
    assert got.shape == a.shape and got.dtype == F32
    if a.size:
        assert ulp_error(got, np.asarray(a)).max() <= 2.0


def test_erf_gradient_matches_cpu_and_formula():
    x0 = np.array([[-3.0, -1.5, -0.3, 0.0], [1e-20, 0.7, 2.5, 5.0]], F32)
    grads = [host(tf.grad(lambda t: tf.sum(tf.erf(t) * 3.0))(gpu(x0)))]
    grads.append(tf.grad(lambda t: tf.sum(tf.erf(t) * 3.0))(tf.asarray(x0)).numpy())
    want = 3.0 * 2.0 / np.sqrt(np.pi) * np.exp(-x0.astype(np.float64) ** 2)
    for g in grads:
        np.testing.assert_allclose(g, want, rtol=1e-5, atol=1e-10)
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-5, atol=1e-10)


def fit_erf_coefficients():
    """Recompute the erf coefficients of tenferro/devices/webgpu/wgsl_math.py (their
    source): relative least squares on 3000 Chebyshev nodes per piece against SciPy in
    float64."""
    def nodes(a, b, n=3000):
        return (a + b) / 2 + (b - a) / 2 * np.cos(np.pi * (np.arange(n) + 0.5) / n)

    def fit(u, y, deg):
        w = 1 / np.abs(y)
        v = np.vander(u, deg + 1, increasing=True)
        return np.linalg.lstsq(v * w[:, None], y * w, rcond=None)[0]

    (s0, s1, s2), (c0, c1) = wgsl_math.ERF_SPLITS, wgsl_math.ERF_CENTRES
    x = nodes(0, s0)
    a = fit(x * x, erf(x) / x, len(wgsl_math.ERF_A) - 1)
    a[0] -= 1.0                      # erf(x) = x + x * A(x^2)
    x = nodes(s0, s1)
    b = fit(x - c0, erf(x), len(wgsl_math.ERF_B) - 1)
    x = nodes(s1, s2)
    c = fit(x - c1, np.log(erfc(x)), len(wgsl_math.ERF_C) - 1)
    return [p.astype(F32) for p in (a, b, c)]


def test_erf_coefficients_are_reproducible():
    coefficients = (wgsl_math.ERF_A, wgsl_math.ERF_B, wgsl_math.ERF_C)
    for got, want in zip(coefficients, fit_erf_coefficients()):
        np.testing.assert_allclose(np.array(got, F32), want, rtol=3e-7)
    # beyond the last split erf rounds to 1 in float32
    assert np.float32(erf(wgsl_math.ERF_SPLITS[2])) == 1.0


# -- int32 power -------------------------------------------------------------------------------

EDGE_BASES = np.array([0, 1, -1, 2, -2, 3, -3, 7, 46341, -46341, 65536, IMIN, IMAX, IMIN + 1],
                      I32)
EDGE_EXPONENTS = np.array([0, 1, 2, 3, 5, 15, 16, 30, 31, 32, 33, 100, 12345, IMAX], I32)


def test_int_power_edges_wrap_like_numpy():
    # every base with every exponent (broadcast): overflow wraps around, 0 ** 0 == 1
    a, b = EDGE_BASES[:, None], EDGE_EXPONENTS[None, :]
    got = host(gpu(a) ** gpu(b))
    assert got.dtype == I32
    np.testing.assert_array_equal(got, np.power(a, b))
    assert got[0, 0] == 1 and got[0, 1] == 0


@pytest.mark.parametrize("how", ["strided", "reversed", "scalar", "0-d view", "empty", "out"])
def test_int_power_layouts(how):
    rng = np.random.default_rng(1)
    a = rng.integers(-50, 50, (8, 10), dtype=I32)
    b = rng.integers(0, 12, (10, 8), dtype=I32)
    ta, tb = gpu(a), gpu(b)
    if how == "strided":
        x, y, tx, ty = a[::2], b.T[::2], ta[::2], tb.mT[::2]
    elif how == "reversed":
        x, y, tx, ty = a[::-1, ::-3], b.T[::-1, ::-3], ta[::-1, ::-3], tb.mT[::-1, ::-3]
    elif how == "scalar":
        x, y, tx, ty = a, np.int32(7), ta, 7
    elif how == "0-d view":          # one element at an offset: read directly
        x, y, tx, ty = a, b[3, 5], ta, tb[3, 5]
    elif how == "empty":
        x, y, tx, ty = a[:0], b.T[:0], ta[:0], tb.mT[:0]
    else:
        out = gpu(np.zeros((8, 10), I32))
        r = tf.power(ta, tb.mT, out=out)
        np.testing.assert_array_equal(host(out), np.power(a, b.T))
        assert r is out
        return
    got = host(tx ** ty)
    np.testing.assert_array_equal(got, np.power(x, y))
    assert got.dtype == I32


def test_bool_power_matches_cpu():
    a = np.array([[True, False], [True, True], [False, False]])
    b = np.array([True, False])
    cpu = tf.power(tf.asarray(a), tf.asarray(b))
    got = tf.power(gpu(a), gpu(b))
    assert got.dtype == cpu.dtype
    np.testing.assert_array_equal(host(got), cpu.numpy())
    np.testing.assert_array_equal(host(got), np.power(a, b))  # NumPy: int8, same values


@pytest.mark.parametrize("n", [1, 5, 64, 5000])  # one element, a few, the tree reduction
def test_int_negative_exponent_raises_like_cpu(n):
    a = np.full(n, 3, I32)
    b = np.arange(n, dtype=I32)
    b[n // 2] = -1                    # one negative exponent anywhere
    with pytest.raises(ValueError, match=NEG_POWER):
        tf.power(tf.asarray(a), tf.asarray(b))   # the CPU's message ...
    with pytest.raises(ValueError, match=NEG_POWER):
        gpu(a) ** gpu(b)                          # ... and the same on WebGPU


def test_int_negative_exponent_scalar_broadcast_and_out():
    t = gpu(np.arange(6, dtype=I32).reshape(2, 3))
    with pytest.raises(ValueError, match=NEG_POWER):
        t ** -1
    with pytest.raises(ValueError, match=NEG_POWER):
        t ** tf.broadcast_to(gpu(np.array([2, IMIN, 0], I32)), (2, 3))
    with pytest.raises(ValueError, match=NEG_POWER):
        2 ** gpu(np.array([[0, 1], [2, -3]], I32)).mT
    out = gpu(np.full((2, 3), 9, I32))
    with pytest.raises(ValueError, match=NEG_POWER):
        tf.power(t, gpu(np.array([1, -2, 3], I32)), out=out)
    np.testing.assert_array_equal(host(out), np.full((2, 3), 9))  # untouched


# -- float32 cumsum / cumprod -----------------------------------------------------------------

SCANS = {"cumsum": np.cumsum, "cumprod": np.cumprod}


def scan_data(shape, op, seed=0):
    rng = np.random.default_rng(seed)
    if op == "cumprod":   # around 1: long products neither vanish nor overflow at once
        return (1 + rng.standard_normal(shape) * 1e-3).astype(F32)
    return rng.standard_normal(shape).astype(F32)


def assert_same(got, want):
    """Bit-for-bit NumPy's float32 sequential accumulation (the kernel keeps its order)."""
    assert got.dtype == want.dtype == F32 and got.shape == want.shape
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


@pytest.mark.parametrize("op", sorted(SCANS))
@pytest.mark.parametrize("n", [1, 7, 257, 5000, wgsl.SCAN_CHUNK, wgsl.SCAN_CHUNK + 1,
                               70000])  # past SCAN_CHUNK: several dispatches a line
def test_scan_lengths(op, n):
    a = scan_data((3, n), op, seed=n)
    assert_same(host(getattr(tf, op)(gpu(a), axis=1)), SCANS[op](a, axis=1))
    # the same lines along axis 0 (strided reads, strided writes)
    assert_same(host(getattr(tf, op)(gpu(a.T.copy()), axis=0)), SCANS[op](a.T, axis=0))


@pytest.mark.parametrize("op", sorted(SCANS))
@pytest.mark.parametrize("axis", [0, 1, 2, -1])
def test_scan_axes_of_3d(op, axis):
    a = scan_data((4, 5, 6), op, seed=3)
    assert_same(host(getattr(tf, op)(gpu(a), axis=axis)), SCANS[op](a, axis=axis))


@pytest.mark.parametrize("op", sorted(SCANS))
def test_scan_many_short_lines(op):
    a = scan_data((70000, 3), op, seed=4)
    assert_same(host(getattr(tf, op)(gpu(a), axis=1)), SCANS[op](a, axis=1))
    b = scan_data((2, 100000), op, seed=5)
    assert_same(host(getattr(tf, op)(gpu(b), axis=0)), SCANS[op](b, axis=0))


@pytest.mark.parametrize("op", sorted(SCANS))
@pytest.mark.parametrize("how", ["transposed", "reversed", "broadcast", "flattened",
                                 "empty-lines", "empty-axis", "5-d"])
def test_scan_layouts(op, how):
    a = scan_data((6, 8, 5), op, seed=6)
    t = gpu(a)
    f, ref = getattr(tf, op), SCANS[op]
    if how == "transposed":
        x, got = np.transpose(a, (2, 0, 1)), f(tf.permute_dims(t, (2, 0, 1)), axis=1)
    elif how == "reversed":
        x, got = a[::-1, ::2, ::-2], f(t[::-1, ::2, ::-2], axis=2)
    elif how == "broadcast":
        x = np.broadcast_to(a[:, :1], (6, 8, 5))
        got = f(tf.broadcast_to(t[:, :1], (6, 8, 5)), axis=1)
    elif how == "flattened":      # axis=None scans the C-order flattening
        x, got = a.T, f(tf.permute_dims(t, (2, 1, 0)))
        assert_same(host(got), ref(x))
        return
    elif how == "empty-lines":
        x, got = a[:, :0], f(t[:, :0], axis=2)
    elif how == "empty-axis":
        x, got = a[:, :, :0], f(t[:, :, :0], axis=2)
    else:
        x = scan_data((2, 3, 1, 4, 3), op, seed=7)
        got = f(gpu(x)[:, ::-1], axis=3)
        x = x[:, ::-1]
        assert_same(host(got), ref(x, axis=3))
        return
    assert_same(host(got), ref(x, axis=1 if how in ("transposed", "broadcast") else 2))


@pytest.mark.parametrize("op", sorted(SCANS))
def test_scan_special_values(op):
    a = np.array([[-0.0, -0.0, 1.0, np.inf, -np.inf, 2.0],
                  [np.nan, 1.0, 2.0, 3.0, 4.0, 5.0],
                  [3e38, 3e38, -3e38, 1.0, 0.0, np.inf],
                  [1e-45, 1e-45, 1e-38, -1e-45, 0.5, 0.0]], F32)
    with np.errstate(all="ignore"):
        want = SCANS[op](a, axis=1)
    assert_same(host(getattr(tf, op)(gpu(a), axis=1)), want)


@pytest.mark.parametrize("n", [5, 70000])
@pytest.mark.parametrize("op", sorted(SCANS))
def test_scan_int_and_bool_accumulate_in_int64(op, n):
    """NumPy's int64 accumulator: running sums past int32, products wrapping mod 2^64."""
    r = np.random.default_rng(n)
    big = r.integers(2**30, 2**31 - 1, (3, n)).astype(I32) * np.where(
        r.random((3, n)) < 0.3, -1, 1).astype(I32)
    for a in (big, r.random((3, n)) < 0.5, big.astype(np.int64) * 2**20):
        for axis in (0, 1):
            got = getattr(tf, op)(gpu(a), axis=axis)
            assert got.dtype == np.int64
            np.testing.assert_array_equal(host(got), SCANS[op](a, axis=axis))
    assert _drv.supports(op, I32) and _drv.supports(op, np.bool_)


@pytest.mark.parametrize("op", sorted(SCANS))
def test_scan_gradient_matches_cpu(op):
    a = scan_data((3, 5), op, seed=8) + 0.5

    def f(t):
        return tf.sum(getattr(tf, op)(t, axis=1) * tf.asarray(np.arange(5, dtype=F32)).to(
            t.device))

    g_gpu = host(tf.grad(f)(gpu(a)))
    g_cpu = tf.grad(f)(tf.asarray(a)).numpy()
    np.testing.assert_allclose(g_gpu, g_cpu, rtol=1e-5, atol=1e-6)


def test_jit_runs_the_new_ops_on_webgpu():
    """Traced programs run these ops node by node through the driver: same checks."""
    a = np.array([[2, -3], [IMIN, 5]], I32)
    b = np.array([[31, 3], [1, 0]], I32)
    h = tf.jit(lambda x, y: (x ** y) * 3)
    np.testing.assert_array_equal(host(h(gpu(a), gpu(b))), np.power(a, b) * np.int32(3))
    with pytest.raises(ValueError, match=NEG_POWER):
        h(gpu(a), gpu(-b))
    x = np.linspace(-3, 3, 40, dtype=F32).reshape(8, 5)
    k = tf.jit(lambda t: tf.cumsum(tf.erf(t) * 2.0, axis=0))
    got = host(k(gpu(x)))
    assert_same(got, np.cumsum(host(tf.erf(gpu(x))) * np.float32(2), axis=0))
    np.testing.assert_allclose(got, np.cumsum(erf(x.astype(np.float64)) * 2, axis=0),
                               rtol=1e-6, atol=1e-6)

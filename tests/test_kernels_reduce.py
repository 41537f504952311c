"""tenferro._kernels._reduce against NumPy: every op x dtype, shapes, axes, strides."""
import itertools

import numpy as np
import pytest

from tenferro._kernels import _reduce as R

DTYPES = [np.bool_, np.int32, np.int64, np.float32, np.float64, np.complex64, np.complex128]
NP_REDUCE = {"sum": np.sum, "prod": np.prod, "max": np.max, "min": np.min,
             "any": np.any, "all": np.all}
NP_SCAN = {"cumsum": np.cumsum, "cumprod": np.cumprod}
NP_ARG = {"argmax": np.argmax, "argmin": np.argmin}


def out_dtype(op, dt):
    dt = np.dtype(dt)
    if op in ("any", "all"):
        return np.dtype(np.bool_)
    if op in ("sum", "prod", "cumsum", "cumprod") and dt in (np.bool_, np.int32):
        return np.dtype(np.int64)
    return dt


def make(shape, dt, rng, small=False):
    return np.asarray(_make(shape, dt, rng, small))


def _make(shape, dt, rng, small):
    dt = np.dtype(dt)
    if dt == np.bool_:
        return rng.random(shape) < 0.6
    if dt.kind == "i":
        return rng.integers(-3 if small else -50, 4 if small else 50, shape).astype(dt)
    lo, hi = (0.8, 1.25) if small else (-10, 10)
    a = rng.uniform(lo, hi, shape)
    if dt.kind == "c":
        a = a + 1j * rng.uniform(lo, hi, shape)
        if small:  # modulus near 1: long products stay finite
            a = a / np.abs(a) * rng.uniform(0.9, 1.1, shape)
    return a.astype(dt)


def tol(op, dt):
    dt = np.dtype(dt)
    if dt.kind in "biu" or op in ("max", "min", "any", "all"):
        return dict(rtol=0, atol=0)
    if dt in (np.float32, np.complex64):
        return dict(rtol=2e-5, atol=2e-5)
    return dict(rtol=1e-12, atol=1e-12)


def check_reduce(op, x, axes, nthreads=1):
    od = out_dtype(op, x.dtype)
    kw = dict(dtype=od) if op in ("sum", "prod") else {}
    want = NP_REDUCE[op](x, axis=axes, **kw)
    want = np.asarray(want)
    out = np.empty(want.shape, od)
    R.reduce(op, x, axes, out, nthreads)
    np.testing.assert_allclose(out, want, equal_nan=True, **tol(op, x.dtype))
    return out


def all_axes(nd):
    for k in range(nd + 1):
        yield from itertools.combinations(range(nd), k)


SHAPES = [(), (0,), (5,), (1,), (3, 0), (0, 4), (1, 1), (4, 1), (3, 7), (2, 1, 5),
          (3, 4, 5), (2, 3, 1, 4), (17, 9)]


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op", R.REDUCE_OPS)
def test_reduce_shapes_axes(op, dt):
    rng = np.random.default_rng(0)
    for shape in SHAPES:
        x = make(shape, dt, rng, small=op == "prod")
        for axes in all_axes(len(shape)):
            if op in ("max", "min") and any(shape[a] == 0 for a in axes):
                continue
            check_reduce(op, x, axes)


def strided_views(dt, rng, small):
    base = make((6, 10, 8), dt, rng, small)
    yield base[:, ::2, 1::3]                       # non-contiguous
    yield base[::-1, :, ::-2]                      # negative strides
    yield base.transpose(2, 0, 1)                  # permuted
    yield np.broadcast_to(base[:, :1, :], (6, 5, 8))          # zero stride (reduced/kept)
    yield np.broadcast_to(make((7,), dt, rng, small), (4, 3, 7))
    yield np.asfortranarray(base)


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op", R.REDUCE_OPS)
def test_reduce_strided(op, dt):
    rng = np.random.default_rng(1)
    for x in strided_views(dt, rng, op == "prod"):
        for axes in all_axes(3):
            check_reduce(op, x, axes)


@pytest.mark.parametrize("op", R.REDUCE_OPS)
@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
def test_reduce_threads_identical(op, dt):
    # large enough to go parallel; chunking depends on shape only -> bitwise equal
    rng = np.random.default_rng(2)
    for shape, axes in [((300, 257), (0,)), ((300, 257), (1,)), ((300, 257), (0, 1)),
                        ((70000,), (0,)), ((5, 9000), (0,)), ((9000, 5), (0,)),
                        ((40, 30, 50), (0, 2))]:
        x = make(shape, dt, rng, small=True)
        if op == "prod" and np.dtype(dt).kind in "fc":
            x = (x / np.abs(x)).astype(dt)  # keep products finite
        a = check_reduce(op, x, axes, nthreads=1)
        b = check_reduce(op, x, axes, nthreads=2)
        np.testing.assert_array_equal(a, b)


def test_reduce_outer_axis_large_and_pieces():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((4096, 40))
    for axes in [(0,), (1,), (0, 1)]:
        check_reduce("sum", x, axes, 2)
        check_reduce("sum", x[::-1, ::3], axes, 2)


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.complex64, np.complex128])
@pytest.mark.parametrize("op", ["max", "min"])
def test_reduce_nan(op, dt):
    rng = np.random.default_rng(4)
    x = make((6, 40), dt, rng)
    x[1, 3] = np.nan
    x[4, 39] = np.nan
    if np.dtype(dt).kind == "c":
        x[2, 20] = complex(1, np.nan)
    for axes in all_axes(2):
        check_reduce(op, x, axes)
        check_reduce(op, x[:, ::-1], axes)
        check_reduce(op, np.ascontiguousarray(x.T), axes)
    y = np.array([1.0, np.nan, 3.0, np.inf], dt)
    check_reduce(op, y, (0,))


def test_any_all_nan_truthy_and_complex():
    x = np.array([0, np.nan, 0], np.float64)
    check_reduce("any", x, (0,))
    check_reduce("all", x, (0,))
    c = np.array([0j, 1j, 0j], np.complex128)
    check_reduce("any", c, (0,))
    check_reduce("all", c, (0,))


def test_complex_lexicographic():
    x = np.array([1 + 5j, 3 + 0j, 3 + 2j, 3 - 1j, -2 + 9j], np.complex128)
    for op in ("max", "min"):
        check_reduce(op, x, (0,))
        check_reduce(op, np.broadcast_to(x, (20, 5)), (1,))
        check_reduce(op, np.broadcast_to(x[:, None], (5, 20)), (0,))
    for op in ("argmax", "argmin"):
        check_arg(op, x, 0)


def test_empty_identities():
    for op, want in [("sum", 0), ("prod", 1), ("any", False), ("all", True)]:
        for dt in DTYPES:
            x = np.empty((0, 3), dt)
            out = np.empty(3, out_dtype(op, dt))
            R.reduce(op, x, (0,), out, 1)
            assert (out == want).all()
            out = np.empty((), out_dtype(op, dt))
            R.reduce(op, x, (0, 1), out, 1)
            assert out == want


def test_strided_out_and_keepdims_view():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((30, 40))
    big = np.zeros((40, 3))
    R.reduce("sum", x, (0,), big[:, 1], 1)
    np.testing.assert_allclose(big[:, 1], x.sum(0))
    assert not big[:, 0].any() and not big[:, 2].any()
    out = np.zeros(30)[::-1]
    R.reduce("max", x, (1,), out, 1)
    np.testing.assert_array_equal(out, x.max(1))


def test_float32_accuracy_vs_numpy():
    rng = np.random.default_rng(6)
    ones = np.ones(10**7, np.float32)
    out = np.empty((), np.float32)
    R.reduce("sum", ones, (0,), out, 2)
    assert out == 1e7
    x = rng.random(10**7).astype(np.float32)
    ref = x.astype(np.float64).sum()
    R.reduce("sum", x, (0,), out, 2)
    assert abs(float(out) - ref) <= abs(float(x.sum()) - ref) + 1e-9 * abs(ref)
    # outer-axis (row accumulation) accuracy, vs numpy's naive accumulation
    y = rng.random((20000, 64)).astype(np.float32)
    ref = y.astype(np.float64).sum(0)
    out = np.empty(64, np.float32)
    R.reduce("sum", y, (0,), out, 2)
    assert np.abs(out - ref).max() <= np.abs(y.sum(0) - ref).max() + 1e-3
    # complex pairwise on both parts
    z = (rng.random(10**6) + 1j * rng.random(10**6)).astype(np.complex64)
    ref = z.astype(np.complex128).sum()
    outc = np.empty((), np.complex64)
    R.reduce("sum", z, (0,), outc, 2)
    assert abs(outc.real - ref.real) <= abs(z.sum().real - ref.real) + 1e-3
    assert abs(outc.imag - ref.imag) <= abs(z.sum().imag - ref.imag) + 1e-3


def check_arg(op, x, axis, nthreads=1):
    want = NP_ARG[op](x, axis=axis)
    out = np.empty(np.shape(want), np.int64)
    R.argreduce(op, x, axis, out, nthreads)
    np.testing.assert_array_equal(out, want)
    return out


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op", R.ARG_OPS)
def test_argreduce(op, dt):
    rng = np.random.default_rng(7)
    for shape in [(5,), (1,), (3, 7), (2, 1, 5), (3, 4, 5), (0, 4), (17, 9), (40, 33)]:
        x = make(shape, dt, rng, small=True)   # small ints: many ties
        for axis in range(len(shape)):
            if shape[axis] == 0:
                continue
            check_arg(op, x, axis)
    for x in strided_views(dt, rng, True):
        for axis in range(3):
            check_arg(op, x, axis)
    x = make((300, 200), dt, rng, small=True)
    for axis in (0, 1):
        np.testing.assert_array_equal(check_arg(op, x, axis, 1), check_arg(op, x, axis, 2))


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.complex64, np.complex128])
@pytest.mark.parametrize("op", R.ARG_OPS)
def test_argreduce_nan(op, dt):
    rng = np.random.default_rng(8)
    x = make((12, 30), dt, rng)
    x[3, 5] = np.nan
    x[7, 5] = np.nan
    x[9, 20] = np.inf
    x[2, 11] = -np.inf
    for axis in (0, 1):
        check_arg(op, x, axis)
        check_arg(op, x[::-1], axis)
        check_arg(op, np.asfortranarray(x), axis)
    check_arg(op, np.array([1, np.nan, np.nan, 5], dt), 0)
    check_arg(op, np.array([np.nan, 1], dt), 0)


def check_scan(op, x, axis, nthreads=1, out=None):
    od = out_dtype(op, x.dtype)
    want = NP_SCAN[op](x, axis=axis, dtype=od)
    if out is None:
        out = np.empty(x.shape, od)
    R.scan(op, x, axis, out, nthreads)
    np.testing.assert_allclose(out, want, **tol(op, x.dtype))
    return out


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op", R.SCAN_OPS)
def test_scan(op, dt):
    rng = np.random.default_rng(9)
    for shape in [(5,), (0,), (1,), (3, 0), (3, 7), (2, 1, 5), (3, 4, 5), (17, 9), (6, 40)]:
        x = make(shape, dt, rng, small=True)
        for axis in range(len(shape)):
            check_scan(op, x, axis)
    for x in strided_views(dt, rng, True):
        for axis in range(3):
            check_scan(op, x, axis)
    x = make((300, 200), dt, rng, small=True)
    if op == "cumprod" and np.dtype(dt).kind in "fc":
        x = (x / np.abs(x)).astype(dt)
    for axis in (0, 1):
        np.testing.assert_array_equal(check_scan(op, x, axis, 1), check_scan(op, x, axis, 2))


def test_scan_inplace_and_0d():
    rng = np.random.default_rng(10)
    x = rng.standard_normal((50, 20))
    want = np.cumsum(x, 0)
    R.scan("cumsum", x, 0, x, 1)
    np.testing.assert_allclose(x, want)
    y = rng.standard_normal((20, 50))
    want = np.cumprod(y, 1)
    R.scan("cumprod", y, 1, y, 1)
    np.testing.assert_allclose(y, want)
    z = np.array(3.5)
    out = np.empty((), np.float64)
    R.scan("cumsum", z, 0, out, 1)
    assert out == 3.5


def test_errors():
    x = np.zeros(3, np.float16)
    with pytest.raises(TypeError, match="no loop"):
        R.reduce("sum", x, (0,), np.empty((), np.float16), 1)
    with pytest.raises(TypeError, match="_reduce.sum: no loop for float64 -> float32"):
        R.reduce("sum", np.zeros(3), (0,), np.empty((), np.float32), 1)
    with pytest.raises(ValueError, match="_reduce.reduce: unknown op 'mean'"):
        R.reduce("mean", np.zeros(3), (0,), np.empty(()), 1)
    assert R.REDUCE_OPS == ["sum", "prod", "max", "min", "any", "all"]
    assert R.SCAN_OPS == ["cumsum", "cumprod"]


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.complex64, np.complex128],
                         ids=lambda d: np.dtype(d).name)
def test_contiguous_sum_kernel_lengths_and_specials(dt):
    # the flat leaf/stack kernel: lengths around chunk (4 vectors), leaf (16 chunks)
    # and stack boundaries, -0.0, NaN / inf anywhere, even/odd (re/im) parity
    import math
    rng = np.random.default_rng(11)
    dt = np.dtype(dt)
    real = np.float32 if dt.itemsize == 4 or dt == np.complex64 else np.float64
    eps = np.finfo(real).eps
    out = np.empty((), dt)
    lens = sorted(set(list(range(0, 80)) + [k * m + d for m in (16, 32, 64, 512, 1024)
                                                for k in (1, 2, 3, 5, 8, 17)
                                                for d in (-1, 0, 1, 7)]))
    for n in lens:
        x = make((n,), dt, rng)
        R.reduce("sum", x, (0,), out, 1)
        for part, ref_x in ((np.real, x.real), (np.imag, x.imag)) if dt.kind == "c" else ((np.asarray, x),):
            ref = math.fsum(ref_x.astype(np.float64))
            bound = 40 * eps * float(np.abs(ref_x.astype(np.float64)).sum()) + 1e-300
            assert abs(float(part(out)) - ref) <= bound, (n, float(part(out)), ref)
        if n == 0 or dt.kind == "c":
            continue
        for pos in {0, n // 2, n - 1}:
            y = x.copy()
            y[pos] = np.nan
            R.reduce("sum", y, (0,), out, 1)
            assert np.isnan(out), n
            y[pos] = np.inf
            R.reduce("sum", y, (0,), out, 1)
            assert out == np.inf, n
        z = np.full(n, -0.0, dt)
        R.reduce("sum", z, (0,), out, 1)
        assert out == 0 and np.signbit(out), n


def test_contiguous_sum_accuracy_vs_numpy_float64():
    rng = np.random.default_rng(12)
    import math
    for n in (10**6 + 3, 3 * 2**19 - 5):
        x = rng.standard_normal(n) * 10.0 ** rng.integers(-8, 8, n)
        ref = math.fsum(x)
        out = np.empty((), np.float64)
        R.reduce("sum", x, (0,), out, 2)
        assert abs(float(out) - ref) <= 4 * abs(float(x.sum()) - ref) + 1e-15 * np.abs(x).sum()
        # per-output rows (axis 1) use the same kernel
        y = x[: (n // 1000) * 1000].reshape(-1, 1000)
        o1 = np.empty(y.shape[0])
        R.reduce("sum", y, (1,), o1, 2)
        refs = np.array([math.fsum(r) for r in y[:50]])
        assert np.all(np.abs(o1[:50] - refs) <= np.abs(y[:50].sum(1) - refs) + 1e-14 * np.abs(y[:50]).sum(1))

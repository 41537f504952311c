"""The CUDA driver's reductions, arg-reductions and scans (tenferro/devices/cuda/reduce.py)
against NumPy: run in the host simulator (TENFERRO_CUDA_SIMULATOR=1; skipped without a
``cuda`` device) over shapes, axes, strided, permuted and reversed views and every
dtype, through both kernel variants of each (one thread per row; block trees and scans,
with segments and a second pass), and every kernel they render compiled by NVRTC for
sm_80 and sm_90 (skipped without NVRTC).

Each kernel the simulator runs is compiled by the host compiler once (about a second):
the cases reuse a few (dtype, op, layout) combinations on purpose."""
import itertools

import numpy as np
import pytest

from conftest import get_test_device, reduction_tol
from test_cuda_driver import requires_nvrtc
from tenferro.devices.cuda import nvrtc, reduce as R, scan as S
from tenferro.devices.cuda.array import from_numpy, to_numpy
from tenferro.devices.cuda.cmath import PRELUDE

B, I32, I64 = np.dtype(bool), np.dtype(np.int32), np.dtype(np.int64)
F32, F64 = np.dtype(np.float32), np.dtype(np.float64)
C64, C128 = np.dtype(np.complex64), np.dtype(np.complex128)
RNG = np.random.default_rng(1818)


@pytest.fixture(scope="module")
def dev():
    return get_test_device("cuda")


def data(shape, dtype, nan=False):
    """Random values of ``dtype`` with repeats (ties), some zeros; NaNs if asked."""
    if dtype == B:
        return RNG.random(shape) < 0.5
    a = RNG.integers(-3, 4, shape).astype(dtype)
    if dtype.kind in "fc":
        a = (a + RNG.random(shape) * (RNG.random(shape) < 0.5)).astype(dtype)
    if dtype.kind == "c":
        a = (a + 1j * RNG.integers(-2, 3, shape)).astype(dtype)
    if nan and a.size > 3 and dtype.kind in "fc":
        flat = a.reshape(-1)
        flat[[1, a.size // 2]] = np.nan if dtype.kind == "f" else complex(1, np.nan)
    return a


def on_device(view, base, dev):
    """The device view of ``base`` (uploaded) that NumPy's ``view`` is of ``base``."""
    isz = base.dtype.itemsize
    d = from_numpy(base, dev)
    off = (view.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // isz
    return d.view(view.shape, tuple(s // isz for s in view.strides), off)


def views(shape, dtype, nan=False):
    """(NumPy view, its base) pairs: C order, permuted, strided, reversed."""
    base = data(shape, dtype, nan)
    big = data(tuple(2 * n for n in shape), dtype, nan)
    return [(base, base), (base.transpose(tuple(range(len(shape)))[::-1]), base),
            (big[tuple(slice(1, None, 2) for _ in shape)], big), (base[::-1], base)]


def reduce_np(op, a, axes):
    if op in ("sum", "prod"):
        return getattr(np, op)(a, axis=axes, dtype=R.out_dtype_of(op, a.dtype))
    return getattr(np, op)(a, axis=axes)


def check_reduce(op, v, base, dev, axes):
    want = reduce_np(op, v, axes)
    got = to_numpy(R.reduce_op(op, on_device(v, base, dev), axes, R.out_dtype_of(op, v.dtype)))
    assert got.dtype == want.dtype and got.shape == np.shape(want)
    if want.dtype.kind in "fc" and op in ("sum", "prod"):
        n = max(v.size // max(np.size(want), 1), 1)
        rt, at = reduction_tol("cuda", want.real.dtype, n, op, 4.0 if op == "sum" else 1.0)
        np.testing.assert_allclose(got, want, rtol=max(rt, 1e-12), atol=at)
    else:
        np.testing.assert_array_equal(got, want)


def all_axes(nd):
    return [c for k in range(nd + 1) for c in itertools.combinations(range(nd), k)]


@pytest.mark.parametrize("shape", [(7,), (3, 4, 5), (2, 3, 1, 4)], ids=str)
def test_sum_over_every_axis_set_of_every_layout(dev, shape):
    for v, base in views(shape, F64):
        for axes in all_axes(len(shape)):
            check_reduce("sum", v, base, dev, axes)


def test_max_propagates_nan_over_layouts(dev):
    for v, base in views((4, 6), F32, nan=True):
        for axes in all_axes(2):
            check_reduce("max", v, base, dev, axes)


# (op, dtypes): every combine and accumulator conversion of the catalog's dtypes
DTYPE_CASES = [("sum", [B, I32, I64, F32, F64, C64, C128]), ("prod", [B, I32, C128]),
               ("max", [B, I32, F32, C64]), ("min", [I64, F64, C128]),
               ("any", [F64, C64, I32]), ("all", [B, I32, F32])]


@pytest.mark.parametrize("op,dtypes", DTYPE_CASES, ids=[c[0] for c in DTYPE_CASES])
def test_reductions_of_every_dtype(dev, op, dtypes):
    for dt in dtypes:
        a = data((5, 6), dt, nan=op in ("max", "min", "any"))
        if op == "all":
            a[2] = 1   # a row all true
        if dt.kind == "c" and op in ("max", "min"):
            a[1, :3] = [2 + 1j, 2 + 3j, 2 - 1j]   # ties in the real part: imag decides
        for axes in [(1,), (0,)]:
            check_reduce(op, a, a, dev, axes)


def test_empty_and_degenerate_reductions(dev):
    e = np.zeros((3, 0), F64)
    for op in ("sum", "prod", "any", "all"):
        check_reduce(op, e, e, dev, (1,))
        check_reduce(op, e, e, dev, (0,))           # no outputs
    for op in ("max", "min"):
        with pytest.raises(ValueError, match="no identity"):
            R.reduce_op(op, from_numpy(e, dev), (1,), F64)
    s = np.array(2.5)
    check_reduce("sum", s, s, dev, ())             # 0-d, nothing reduced
    a = data((3, 4), I32)
    check_reduce("sum", a, a, dev, ())             # a converting copy to int64
    with pytest.raises(TypeError):
        R.reduce_op("sum", from_numpy(a, dev), (0,), I32)   # not the accumulator dtype


def plan(dev, nout, nred, kst, rst):
    return R._plan(from_numpy(np.zeros(1), dev).storage.backend, nout, nred, kst, rst)


def test_tree_paths_long_rows_columns_and_full(dev):
    # long contiguous rows: several blocks (segments) per row, partials reduced again
    assert plan(dev, 3, 3000, (3000,), (1,))[0::4] == ("tree", 6)
    a = data((3, 3000), F64)
    check_reduce("sum", a, a, dev, (1,))
    # columns: the kept dimension is contiguous, a block spans 32 of them
    assert plan(dev, 33, 40, (1,), (33,))[:3] == ("tree", 64, 32)
    c = data((40, 33), F64)
    check_reduce("sum", c, c, dev, (0,))
    # many short rows: a thread each
    assert plan(dev, 200, 10, (10,), (1,))[0] == "thread"
    # full reductions of permuted and strided views; NaN through two passes
    for v, base in views((50, 40), F32, nan=True)[1:3]:
        check_reduce("max", v, base, dev, (0, 1))
        check_reduce("min", v, base, dev, (1,))


def test_float32_sum_accuracy_is_pairwise_class(dev):
    a = RNG.uniform(0, 1, 100_000).astype(F32)   # all positive: sequential sums drift
    got = to_numpy(R.reduce_op("sum", from_numpy(a, dev), (0,), F32))
    want = a.astype(np.float64).sum()
    assert abs(float(got) - want) <= 4 * np.finfo(F32).eps * want


def test_block_of_256_threads(dev, monkeypatch):
    monkeypatch.setattr(R, "_block", lambda be: 256)
    a = data((2, 1500), F64)
    check_reduce("sum", a, a, dev, (1,))


@pytest.mark.parametrize("op", ["argmax", "argmin"])
def test_argreductions(dev, op):
    cases = [(F32, (4, 7)), (F64, (5, 3)), (I64, (4, 7)), (B, (4, 7)), (C128, (4, 7))]
    fn = R.implementations[op]
    for dt, shape in cases:
        a = data(shape, dt, nan=dt.kind in "fc" and op == "argmax")
        for axis in range(a.ndim):
            got = to_numpy(fn(from_numpy(a, dev), axis=axis))
            np.testing.assert_array_equal(got, getattr(np, op)(a, axis=axis))
            t = a.T
            got = to_numpy(fn(on_device(t, a, dev), axis=axis))
            np.testing.assert_array_equal(got, getattr(np, op)(t, axis=axis))
    # long rows: block trees over segments, partial (value, index) pairs reduced again;
    # ties and NaNs placed across segment boundaries
    a = np.zeros((2, 3000), F32)
    a[0, [100, 2500]] = 5          # a tie: the first wins
    a[1, [1700, 2900]] = np.nan    # the first NaN wins
    a[1, 10] = -7
    for axis in (0, 1):
        got = to_numpy(fn(from_numpy(a, dev), axis=axis))
        np.testing.assert_array_equal(got, getattr(np, op)(a, axis=axis))
    flat = a.reshape(-1)
    np.testing.assert_array_equal(to_numpy(fn(from_numpy(flat, dev), axis=0)),
                                  getattr(np, op)(flat))


def check_scan(op, v, base, dev, axis):
    want = getattr(np, op)(v, axis=axis, dtype=R.out_dtype_of(op, v.dtype))
    got = to_numpy(S.scan_op(op, on_device(v, base, dev), axis, R.out_dtype_of(op, v.dtype)))
    assert got.dtype == want.dtype and got.shape == want.shape
    if want.dtype.kind in "fc":   # (block scans add in another order than NumPy)
        scale = float(np.abs(v).max()) if v.size else 1.0
        rt, at = reduction_tol("cuda", want.real.dtype, v.shape[axis], R.SCANS[op], scale)
        np.testing.assert_allclose(got, want, rtol=max(rt, 1e-12), atol=at)
    else:
        np.testing.assert_array_equal(got, want)


SCAN_CASES = [("cumsum", [B, I32, F32, C64]), ("cumprod", [I64, F64, C128])]


@pytest.mark.parametrize("op,dtypes", SCAN_CASES, ids=[c[0] for c in SCAN_CASES])
def test_scans_one_thread_per_line(dev, op, dtypes):
    for dt in dtypes:
        for v, base in views((5, 4), dt):
            for axis in (0, 1):
                check_scan(op, v, base, dev, axis)
    s = np.array(3, I32) if op == "cumsum" else np.array(1.5)
    got = S.scan_op(op, from_numpy(s, dev), 0, R.out_dtype_of(op, s.dtype))
    assert got.shape == () and to_numpy(got) == s
    e = np.zeros((0, 3), F64)
    assert to_numpy(S.scan_op(op, from_numpy(e, dev), 0, F64)).shape == (0, 3)


def test_block_scans_with_carries(dev):
    # lines few and long: block scans; the longest cut into segments whose totals
    # (a tree reduction) are scanned for the carries in
    a = RNG.uniform(-1, 1, (2, 700))
    check_scan("cumsum", a, a, dev, 1)
    check_scan("cumsum", a.T, a, dev, 0)
    p = RNG.uniform(0.9, 1.1, (3, 100))
    check_scan("cumprod", p[:, ::-1], p, dev, 1)
    # many contiguous lines long enough for a block each (coalesced reads)
    be = from_numpy(np.zeros(1), dev).storage.backend
    assert S._scan_plan(be, 130, 70, 1)[0] == "block"
    assert S._scan_plan(be, 130, 70, 130)[0] == "thread"
    m = RNG.uniform(-1, 1, (130, 70))
    check_scan("cumsum", m, m, dev, 1)


# -- NVRTC: every kernel this module renders compiles ---------------------------------

@requires_nvrtc
@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_every_reduction_kernel_compiles_with_nvrtc(arch):
    """All kernels in one program, each in a namespace of its own (NVRTC reads the
    prelude once: twice as fast as one program each); on failure each alone, so the
    error names the kernel."""
    ks = R.all_kernels() + S.all_kernels()
    assert len({k.source for k in ks}) == len(ks) >= 140
    assert all(k.source.startswith(PRELUDE) for k in ks)
    parts = [PRELUDE] + ["namespace tf_k%d {\n%s}\n" % (i, k.source[len(PRELUDE):].replace(
        k.name, "%s_%d" % (k.name, i))) for i, k in enumerate(ks)]
    try:
        cubin = nvrtc.compile_cubin("".join(parts), "reduce_all.cu", arch)
    except RuntimeError:
        for k in ks:
            nvrtc.compile_cubin(k.source, k.name + ".cu", arch)
        raise
    assert cubin.startswith(b"\x7fELF")
